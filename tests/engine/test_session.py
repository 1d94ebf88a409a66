"""Incremental simulation sessions: a kernel that reads values gets the simulated value at that
point of the program (cpu, a2, 950pr), deadlocks/failures/findings behave as in plain runs,
runs are deterministic, and a kernel that never reads keeps the record-then-simulate path."""

from __future__ import annotations

import importlib.util
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import session
from ptosim.session import SessionProgram
from tests.helpers.paths import ROOT

S, V, MTE2, MTE3 = pto.PIPE_S, pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
DEVICES = ("cpu", "a2", "950pr")


@pto.kernel
def loop_bound_from_gm(meta, x, out):
    """out[:n] = x[:n] + 1 row by row, with n read from GM: a data-dependent loop bound."""
    n = pto.GlobalTensor(meta, shape=(1,)).GetValue(0)
    t = pto.Tile("Vec", "float32", 1, 16)
    for r in range(n):
        pto.TLOAD(t, pto.GlobalTensor(x, shape=(1, 16), offset=16 * r))
        pto.set_flag(MTE2, V, 0)
        pto.wait_flag(MTE2, V, 0)
        pto.TADDS(t, t, 1.0)
        pto.set_flag(V, MTE3, 0)
        pto.wait_flag(V, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 16), offset=16 * r), t)
        pto.set_flag(MTE3, MTE2, 0)
        pto.wait_flag(MTE3, MTE2, 0)


@pto.kernel
def gather_by_scalar(idx, table, out, count):
    """out[k] = table[idx[k]]: each row index read from a UB tile picks the GM offset."""
    it = pto.Tile("Vec", "int32", 1, 8)
    pto.TLOAD(it, pto.GlobalTensor(idx, shape=(1, 8)))
    pto.set_flag(MTE2, S, 0)
    pto.wait_flag(MTE2, S, 0)
    row = pto.Tile("Vec", "float32", 1, 32)
    for k in range(count):
        r = it.GetValue(k)
        pto.TLOAD(row, pto.GlobalTensor(table, shape=(1, 32), offset=32 * r))
        pto.set_flag(MTE2, MTE3, 0)
        pto.wait_flag(MTE2, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 32), offset=32 * k), row)
        pto.set_flag(MTE3, MTE2, 0)
        pto.wait_flag(MTE3, MTE2, 0)


@pytest.mark.parametrize("device", DEVICES)
def test_data_dependent_loop_bound_read_from_gm(device):
    rng = np.random.default_rng(1)
    dev = pto.Device(device)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    out = dev.gm_zeros((8, 16), "float32")
    run = dev.run(loop_bound_from_gm, dev.gm_array(np.array([5], np.int32)), dev.gm_array(x), out)
    assert isinstance(run.program, SessionProgram)
    assert run.findings == []
    expect = np.zeros_like(x)
    expect[:5] = x[:5] + np.float32(1.0)
    np.testing.assert_array_equal(out.numpy(), expect)
    # the loop ran 5 times: 5 TSTOREs were recorded
    assert sum(i.opcode == "TSTORE" for i in run.program) == 5


@pytest.mark.parametrize("device", DEVICES)
def test_gather_by_scalar_index_read_from_a_tile(device):
    rng = np.random.default_rng(2)
    dev = pto.Device(device)
    table = rng.standard_normal((16, 32)).astype(np.float32)
    idx = rng.integers(0, 16, size=8).astype(np.int32)
    out = dev.gm_zeros((6, 32), "float32")
    run = dev.run(gather_by_scalar, dev.gm_array(idx), dev.gm_array(table), out, 6)
    assert run.findings == []
    np.testing.assert_array_equal(out.numpy(), table[idx[:6]])
    if run.cycles is not None:  # each read waits for the store before it: more rows, longer
        short = dev.run(gather_by_scalar, dev.gm_array(idx), dev.gm_array(table), out, 2)
        assert short.cycles < run.cycles


def test_session_runs_the_engine_between_reads():
    """The value is the simulated one at that point: a GM element written by a TSTORE earlier
    in the same kernel (with its MTE3 -> S handshake) is read back."""
    got = []

    @pto.kernel
    def k(buf):
        t = pto.Tile("Vec", "int32", 1, 8)
        pto.TEXPANDS(t, 42)
        pto.set_flag(V, MTE3, 0)
        pto.wait_flag(V, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(buf, shape=(1, 8)), t)
        pto.set_flag(MTE3, S, 0)
        pto.wait_flag(MTE3, S, 0)
        got.append(pto.GlobalTensor(buf, shape=(8,)).GetValue(3))

    for device in DEVICES:
        got.clear()
        dev = pto.Device(device)
        run = dev.run(k, dev.gm_zeros((8,), "int32"))
        assert got[-1] == 42 and run.findings == [], device


def test_a_race_changes_the_value_read_and_the_checker_reports_it():
    """Without the MTE2 -> S wait the scalar load runs before the DMA lands: on a2 it reads the
    UB as it was (what the hardware would do), and the race is a finding; cpu (program order)
    reads the loaded value and reports the same race."""
    got = {}

    @pto.kernel
    def k(src):
        t = pto.Tile("Vec", "int32", 1, 8)
        pto.TLOAD(t, pto.GlobalTensor(src, shape=(1, 8)))
        got[pto.get_block_idx()] = t.GetValue(2)

    for device, loaded in (("cpu", True), ("a2", False)):
        dev = pto.Device(device)
        run = dev.run(k, dev.gm_array(np.arange(8, dtype=np.int32) + 50))
        assert (got[0] == 52) is loaded, device
        assert [f.code for f in run.findings] == ["F203"]


def test_deadlock_with_a_get_value_waiting_is_a_deadlock_error_and_the_body_is_unwound():
    finally_ran = []

    @pto.kernel
    def k(src):
        t = pto.Tile("Vec", "int32", 1, 8)
        pto.TLOAD(t, pto.GlobalTensor(src, shape=(1, 8)))
        pto.wait_flag(MTE2, S, 0)  # never posted
        try:
            t.GetValue(0)
        except Exception:  # noqa: BLE001 - a kernel catching errors must not swallow the abort
            finally_ran.append("swallowed")
        except session.Aborted:
            finally_ran.append(f"aborted, stopped() {session.stopped()}")
            raise
        finally:
            finally_ran.append("unwound")

    dev = pto.Device("a2")
    before = {t.ident for t in threading.enumerate()}
    with pytest.raises(pto.DeadlockError) as err:
        dev.run(k, dev.gm_zeros((8,), "int32"))
    assert "wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0)" in str(err.value)
    assert "WAIT_FLAG #1" in str(err.value)
    # the abandoned recording unwinds (NeedsSession), then the session's body (Aborted)
    assert finally_ran == ["unwound", "aborted, stopped() True", "unwound"]
    left = [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert left == []
    assert err.value.partial_run.trace is not None


def test_errors_of_the_body_propagate_unchanged():
    """A body that fails after a read (a GM offset computed from a read value leaves the
    buffer; a plain Python error) raises that error, as a plain recording would."""

    @pto.kernel
    def offset_out(buf):
        n = pto.GlobalTensor(buf, shape=(4,)).GetValue(0)
        pto.GlobalTensor(buf, shape=(4,), offset=n)

    @pto.kernel
    def python_error(buf):
        n = pto.GlobalTensor(buf, shape=(4,)).GetValue(0)
        return 1 // n

    for device in DEVICES:
        dev = pto.Device(device)
        with pytest.raises(pto.OutOfBoundsError, match="offset 100"):
            dev.run(offset_out, dev.gm_array(np.array([100, 0, 0, 0], np.int32)))
        with pytest.raises(ZeroDivisionError):
            dev.run(python_error, dev.gm_zeros((4,), "int32"))


def test_two_runs_give_byte_identical_traces(tmp_path):
    rng = np.random.default_rng(3)
    table = rng.standard_normal((16, 32)).astype(np.float32)
    idx = rng.integers(0, 16, size=8).astype(np.int32)
    texts = []
    for n in range(2):
        dev = pto.Device("a2")
        out = dev.gm_zeros((6, 32), "float32")
        run = dev.run(gather_by_scalar, dev.gm_array(idx), dev.gm_array(table), out, 6, block_dim=2)
        run.write_trace(tmp_path / f"{n}.json")
        texts.append((tmp_path / f"{n}.json").read_bytes() + run.summary().encode())
    assert texts[0] == texts[1]


def _pingpong_runs(device: str, force: bool):
    """examples/pingpong_row_scale.py (clean, double-buffered) on two blocks."""
    path = ROOT / "examples" / "pingpong_row_scale.py"
    spec = importlib.util.spec_from_file_location("pingpong_row_scale_session", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(4)
    rows = mod.TILES * mod.ROWS
    x = rng.standard_normal((rows, mod.COLS)).astype(np.float32)
    scales = rng.standard_normal((rows, 1)).astype(np.float32)
    with session.forced(force):
        dev = pto.Device(device)
        out = dev.gm_zeros(x.shape, "float32")
        run = dev.run(mod.pingpong_row_scale, dev.gm_array(x), dev.gm_array(scales), out)
    return run, out.numpy(), x * scales


@pytest.mark.parametrize("device", DEVICES)
def test_a_kernel_without_reads_keeps_the_fast_path_and_a_forced_session_matches_it(device):
    """Same instructions, cycles, trace, findings and results with the session forced on."""
    plain, out_plain, x = _pingpong_runs(device, False)
    forced, out_forced, _ = _pingpong_runs(device, True)
    assert not isinstance(plain.program, SessionProgram)
    assert isinstance(forced.program, SessionProgram)
    np.testing.assert_array_equal(out_plain, x)
    assert out_forced.tobytes() == out_plain.tobytes()
    assert forced.cycles == plain.cycles
    assert [f.code for f in forced.findings] == [f.code for f in plain.findings] == []
    for a, b in zip(plain.blocks, forced.blocks):
        assert [(i.opcode, i.source) for i in a.program] == [
            (i.opcode, i.source) for i in b.program
        ]
    if plain.trace is not None:
        key = [(e.core, e.pipe, e.name, e.start, e.dur) for e in plain.trace.events]
        assert key == [(e.core, e.pipe, e.name, e.start, e.dur) for e in forced.trace.events]


def test_only_the_first_recording_reruns_and_explicit_session_kernels_never():
    """A body that reads is recorded normally up to its first GetValue, then rerun in a session
    (so Python side effects before that first read happen twice); the run's next blocks start in
    a session at once. ``session.kernel`` bodies run once per block (front ends whose body cannot
    be rerun)."""
    calls = []

    def body(buf):
        calls.append(pto.get_block_idx())
        pto.GlobalTensor(buf, shape=(4,)).GetValue(pto.get_block_idx())

    dev = pto.Device("a2")
    buf = dev.gm_zeros((4,), "int32")
    dev.run(pto.kernel(body), buf, block_dim=3)
    assert sorted(calls) == [0, 0, 1, 2]  # block 0: the abandoned recording, then the session
    calls.clear()
    dev.run(session.kernel(body), buf, block_dim=2)
    assert calls == [0, 1]


def test_each_block_reads_its_own_values_across_cores():
    """block_dim=3: every block reads its own row index and the reads interleave on the engine;
    once block 0 has read, the next blocks start in a session (block 2, which never reads, too:
    a session of a body without reads gives the plain program's cycles and trace)."""

    @pto.kernel
    def k(idx, table, out):
        b = pto.get_block_idx()
        row = pto.Tile("Vec", "float32", 1, 32)
        r = b if b == 2 else pto.GlobalTensor(idx, shape=(4,)).GetValue(b)
        pto.TLOAD(row, pto.GlobalTensor(table, shape=(1, 32), offset=32 * r))
        pto.set_flag(MTE2, MTE3, 0)
        pto.wait_flag(MTE2, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 32), offset=32 * b), row)

    table = np.arange(8 * 32, dtype=np.float32).reshape(8, 32)
    idx = np.array([6, 1, 0, 0], np.int32)
    for device in DEVICES:
        dev = pto.Device(device)
        out = dev.gm_zeros((3, 32), "float32")
        run = dev.run(k, dev.gm_array(idx), dev.gm_array(table), out, block_dim=3)
        np.testing.assert_array_equal(out.numpy(), table[[6, 1, 2]])
        kinds = [isinstance(b.program, SessionProgram) for b in run.blocks]
        assert kinds == [True, True, True]


def test_tiles_are_placed_at_first_use_with_the_budget_error_of_plain_runs():
    @pto.kernel
    def k(buf):
        pto.GlobalTensor(buf, shape=(4,)).GetValue(0)
        for _ in range(10):  # 10 x 64 KiB > the UB (a2 192 KiB, cpu 512 KiB)
            pto.TEXPANDS(pto.Tile("Vec", "float32", 128, 128), 0.0)

    for device in ("cpu", "a2"):
        dev = pto.Device(device)
        with pytest.raises(pto.UbBudgetError, match="ub-budget"):
            dev.run(k, dev.gm_zeros((4,), "int32"))


def test_a_body_failing_on_a_raced_value_raises_the_race_first():
    """The stale index (UB poison, -1) read without the MTE2 -> S wait makes the body build a
    negative GM offset: the run raises RaceFailureError leading with the race, the body's
    error as its cause (as for an instruction failing on raced data); cpu reads in program
    order and only reports the race."""

    @pto.kernel
    def k(idx, table, out):
        it = pto.Tile("Vec", "int32", 1, 8)
        pto.TLOAD(it, pto.GlobalTensor(idx, shape=(1, 8)))
        r = it.GetValue(0)
        row = pto.Tile("Vec", "float32", 1, 16)
        pto.TLOAD(row, pto.GlobalTensor(table, shape=(1, 16), offset=16 * r))

    def args(dev):
        table = dev.gm_array(np.zeros((4, 16), np.float32))
        return dev.gm_array(np.full(8, 1, np.int32)), table, dev.gm_zeros((1, 16), "float32")

    dev = pto.Device("a2")
    with pytest.raises(pto.RaceFailureError) as err:
        dev.run(k, *args(dev))
    text = str(err.value)
    assert text.index("GetValue #1") < text.index("F203") < text.index("failed after reading")
    assert isinstance(err.value.original, pto.KernelError)
    assert err.value.__cause__ is err.value.original
    assert [f.code for f in err.value.findings][:1] == ["F203"]
    dev = pto.Device("cpu")
    assert [f.code for f in dev.run(k, *args(dev)).findings] == ["F203"]


@settings(max_examples=12, deadline=None)
@given(
    idx=st.lists(st.integers(0, 15), min_size=8, max_size=8),
    count=st.integers(0, 8),
    device=st.sampled_from(DEVICES),
)
def test_gather_by_scalar_matches_numpy_for_any_indices_and_count(idx, count, device):
    rng = np.random.default_rng(sum(idx) + count)
    dev = pto.Device(device)
    table = rng.standard_normal((16, 32)).astype(np.float32)
    ids = np.array(idx, np.int32)
    out = dev.gm_zeros((8, 32), "float32")
    run = dev.run(gather_by_scalar, dev.gm_array(ids), dev.gm_array(table), out, count)
    assert run.findings == []
    expect = np.zeros((8, 32), np.float32)
    expect[:count] = table[ids[:count]]
    np.testing.assert_array_equal(out.numpy(), expect)
