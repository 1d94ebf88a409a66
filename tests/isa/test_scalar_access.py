"""GetValue / SetValue: scalar reads and writes of one tile or GM element on PIPE_S (exact
values, the index conventions, the errors, the plans and their costs, the hazard checker)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim.isa import registry
from ptosim.isa.scalar_access import GetValueInstr, SetValueInstr
from ptosim.plan import StepKind
from ptosim.targets import specs

# every numeric type (hifloat8 has no encoding to read or write a number with)
SCALAR_DTYPES = tuple(d for d in D.ALL if d.kind != "opaque")

S, V, MTE2, MTE3 = pto.PIPE_S, pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
DEVICES = ("cpu", "a2", "950pr")


def _random_values(rng, dt, n):
    """Values of ``dt`` from random bit patterns (its whole range; NaN replaced by 1)."""
    vals = np.frombuffer(rng.bytes(n * dt.size_bytes), dtype=dt.np).copy()
    if dt.is_float:
        vals[np.isnan(vals.astype(np.float64))] = 1
    return vals


def _widened(v, dt):
    """The exact Python value of a numpy scalar (independent formulation: via float64 / int)."""
    return (
        int(np.int64(v))
        if dt.kind == "int"
        else (int(np.uint64(v)) if dt.kind == "uint" else float(np.float64(v)))
    )


@settings(max_examples=25, deadline=None)
@given(
    dt=st.sampled_from(SCALAR_DTYPES),
    seed=st.integers(0, 2**32 - 1),
    device=st.sampled_from(DEVICES),
)
def test_get_value_reads_the_exact_stored_value_of_every_dtype(dt, seed, device):
    """A tile element read after a TLOAD (with its MTE2 -> S handshake) and a GM element read
    directly are the stored values widened exactly; the NPU dtype sets exclude what their DMA
    cannot move."""
    if device != "cpu" and dt.size_bytes == 1 and dt.is_float and device == "a2":
        return  # a2a3 TLOAD does not move float8 (the DMA dtype set)
    rng = np.random.default_rng(seed)
    cols = 32 // dt.size_bytes
    host = _random_values(rng, dt, 2 * cols).reshape(2, cols)
    i, j = (int(x) for x in rng.integers(0, 2 * cols, size=2))
    got = {}

    @pto.kernel
    def k(src):
        t = pto.Tile("Vec", dt.name, 2, cols)
        pto.TLOAD(t, pto.GlobalTensor(src, shape=(2, cols)))
        pto.set_flag(MTE2, S, 0)
        pto.wait_flag(MTE2, S, 0)
        got["tile"] = t.GetValue(i)
        got["gm"] = pto.GlobalTensor(src, shape=(2, cols)).GetValue(j)

    dev = pto.Device(device)
    run = dev.run(k, dev.gm_array(host, dtype=dt.name))
    assert run.findings == []
    flat = host.reshape(-1)
    assert type(got["tile"]) is (int if dt.is_int else float)
    assert got["tile"] == _widened(flat[i], dt)
    assert got["gm"] == _widened(flat[j], dt)


def test_tile_index_is_the_storage_offset_and_gm_index_honours_the_offset(device):
    """Tile: a flat offset into the Rows x Cols storage in storage order (a ColMajor tile is
    column-major: offset n is logical (n % Rows, n // Rows)); GlobalTensor: an offset from the
    tensor's start (its own offset into the buffer added)."""
    seen, tiles = [], []

    @pto.kernel
    def k(src):
        t = pto.Tile("Vec", "float32", 8, 4, blayout="ColMajor", valid=(8, 3))
        tiles.append(t)
        pto.TLOAD(t, pto.GlobalTensor(src, shape=(8, 3), stride=(1, 8), layout="DN"))
        pto.set_flag(MTE2, S, 0)
        pto.wait_flag(MTE2, S, 0)
        seen.extend(t.GetValue(n) for n in (0, 1, 8, 17))
        view = pto.GlobalTensor(src, shape=(1, 4), offset=5)
        seen.extend(view.GetValue(n) for n in (0, 3))

    dev = pto.Device(device.name)
    host = np.arange(32, dtype=np.float32) * 1.5
    run = dev.run(k, dev.gm_array(host))
    logical = run.tile(tiles[-1])  # the 8 x 3 valid region (the body ran twice: see session)
    expect = [float(logical[n % 8, n // 8]) for n in (0, 1, 8, 17)]
    assert seen == expect + [float(host[5]), float(host[8])]
    assert expect != [float(logical.reshape(-1)[n]) for n in (0, 1, 8, 17)]  # not row-major


def test_set_value_then_tstore_with_the_scalar_handshake_is_exact_and_clean(device):
    @pto.kernel
    def k(out):
        t = pto.Tile("Vec", "int32", 1, 8)
        for n in range(8):
            t.SetValue(n, 10 * n - 3)
        pto.set_flag(S, MTE3, 0)
        pto.wait_flag(S, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 8)), t)

    dev = pto.Device(device.name)
    out = dev.gm_zeros((1, 8), "int32")
    run = dev.run(k, out)
    assert run.findings == []
    np.testing.assert_array_equal(out.numpy(), (10 * np.arange(8) - 3)[None])


def test_set_value_without_the_handshake_is_a_race_naming_both_instructions(device):
    @pto.kernel
    def k(out):
        t = pto.Tile("Vec", "int32", 1, 8)
        t.SetValue(0, 7)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 8)), t)

    dev = pto.Device(device.name)
    run = dev.run(k, dev.gm_zeros((1, 8), "int32"))
    races = [f for f in run.findings if f.code == "F203"]
    assert races and "SetValue #0" in str(races[0]) and "TSTORE #1" in str(races[0])


def test_set_value_into_gm_honours_the_offset_and_rounds_floats(device):
    @pto.kernel
    def k(out):
        g = pto.GlobalTensor(out, shape=(4,), offset=2)
        g.SetValue(1, 1.0 + 2**-10)  # bfloat16 rounds to nearest even: 1.0
        g.SetValue(3, -3.5)

    dev = pto.Device(device.name)
    out = dev.gm_zeros((6,), "bfloat16")
    dev.run(k, out)
    assert out.numpy().astype(np.float64).tolist() == [0, 0, 0, 1.0, 0, -3.5]


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        (lambda t, g: t.GetValue(16), "scalar-index"),  # 2 x 8 storage: 0..15
        (lambda t, g: t.SetValue(-1, 0), "scalar-index"),
        (lambda t, g: g.GetValue(4), "scalar-index"),  # extent 4
        (lambda t, g: t.SetValue(0, 2**31), "scalar-range"),
        (lambda t, g: t.SetValue(0, "x"), "scalar-numeric"),
    ],
)
def test_bad_scalar_accesses_are_constraint_errors(body, rule):
    @pto.kernel
    def k(buf):
        body(pto.Tile("Vec", "int32", 2, 8), pto.GlobalTensor(buf, shape=(4,), offset=4))

    dev = pto.Device("a2")
    with pytest.raises(pto.ConstraintError) as err:
        dev.run(k, dev.gm_zeros((8,), "int32"))
    assert err.value.rule == rule
    assert "GetValue" in str(err.value) or "SetValue" in str(err.value)


def test_a_mat_tile_is_not_scalar_accessible():
    """The scalar unit reads and writes UB and GM; an L1 (Mat) tile is a tile-location error."""

    @pto.kernel
    def k():
        pto.Tile("Mat", "float32", 16, 16).GetValue(0)

    for device in DEVICES:
        if device == "cpu":  # its tiles are host memory (tests/isa/cube/test_cpu_mat_copies.py)
            continue
        with pytest.raises(pto.ConstraintError) as err:
            pto.Device(device).run(k)
        assert err.value.rule == "tile-location"


def test_hifloat8_has_no_value_to_read_and_a_non_index_is_a_kernel_error():
    @pto.kernel
    def hif(buf):
        pto.GlobalTensor(buf, shape=(4,)).GetValue(0)

    @pto.kernel
    def bad_index(buf):
        pto.GlobalTensor(buf, shape=(4,)).GetValue(1.0)

    dev = pto.Device("cpu")
    with pytest.raises(pto.ConstraintError) as err:
        dev.run(hif, dev.gm_array(np.zeros(4, np.uint8), dtype="hifloat8"))
    assert err.value.rule == "dtype"
    with pytest.raises(pto.KernelError, match="integer element offset"):
        dev.run(bad_index, dev.gm_zeros((4,), "int32"))


def test_registry_and_plans_one_pipe_s_step_each_target():
    """Defined once in the registry; a2a3 and a5 plan each access as one PIPE_S scalar step."""
    from ptosim.targets import a2a3, a5

    for name in ("GetValue", "SetValue"):
        spec = registry.spec(name)
        assert spec.family == "data movement"
        assert all(t.dtypes_of(name) == SCALAR_DTYPES for t in specs())
    for plans in (a2a3.PLANS, a5.PLANS):
        assert GetValueInstr in plans and SetValueInstr in plans


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_costs_come_from_the_scalar_config_and_gm_loads_use_the_data_cache(device):
    """UB load/store and GM store cost their [timing.scalar] latencies; a second GM load of the
    same 64-byte line hits the data cache (cheaper than the first, a miss)."""

    @pto.kernel
    def k(buf):
        t = pto.Tile("Vec", "int32", 1, 8)
        t.SetValue(0, 1)
        t.GetValue(0)
        g = pto.GlobalTensor(buf, shape=(8,))
        g.GetValue(0)
        g.GetValue(1)
        g.SetValue(2, 5)

    dev = pto.Device(device)
    run = dev.run(k, dev.gm_zeros((8,), "int32"))
    s = dev.config.timing.scalar
    steps = [e for e in run.trace.events if e.pipe == "PIPE_S" and e.kind == "scalar"]
    assert [e.name for e in steps] == [
        "SetValue UB store",
        "GetValue UB load",
        "GetValue GM load",
        "GetValue GM load",
        "SetValue GM store",
    ]
    cycles = [e.dur for e in steps]
    assert cycles[0] == s.ub_store_cycles and cycles[1] == s.ub_load_cycles
    assert cycles[2] == s.gm_load_miss_cycles > cycles[3] == s.gm_load_hit_cycles
    assert cycles[4] == s.gm_store_cycles
    assert all(e.kind == StepKind.SCALAR.value for e in steps)


def test_missing_wait_before_get_value_is_a_finding_and_the_handshake_is_clean(device):
    """TLOAD then GetValue of the tile: without wait_flag(MTE2, S) the checker names both
    instructions; with the handshake the run is clean and the value exact."""

    def make(handshake: bool):
        got = []

        @pto.kernel
        def k(src):
            t = pto.Tile("Vec", "int32", 1, 8)
            pto.TLOAD(t, pto.GlobalTensor(src, shape=(1, 8)))
            if handshake:
                pto.set_flag(MTE2, S, 0)
                pto.wait_flag(MTE2, S, 0)
            got.append(t.GetValue(5))

        return k, got

    dev = pto.Device(device.name)
    src = dev.gm_array(np.arange(8, dtype=np.int32) + 100)
    k, got = make(False)
    run = dev.run(k, src)
    race = [f for f in run.findings if f.code == "F203"]
    assert race, run.findings
    assert "TLOAD #0" in str(race[0]) and "GetValue #1" in str(race[0])
    assert "wait_flag(PIPE_MTE2, PIPE_S" in str(race[0])
    k, got = make(True)
    run = dev.run(k, src)
    assert run.findings == [] and got == [105]


def test_get_value_waits_for_the_load_it_reads():
    """Timing: with the handshake, the scalar load starts after the DMA that fills the tile
    ended (the value it returns is the loaded one)."""

    @pto.kernel
    def k(src):
        t = pto.Tile("Vec", "int32", 1, 8)
        pto.TLOAD(t, pto.GlobalTensor(src, shape=(1, 8)))
        pto.set_flag(MTE2, S, 0)
        pto.wait_flag(MTE2, S, 0)
        t.GetValue(0)

    dev = pto.Device("a2")
    run = dev.run(k, dev.gm_array(np.ones(8, np.int32)))
    dma = max(e.start + e.dur for e in run.trace.events if e.pipe == "PIPE_MTE2")
    load = next(e for e in run.trace.events if e.name == "GetValue UB load")
    assert load.start >= dma
