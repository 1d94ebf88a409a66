"""TSCATTER (UB -> UB): index mode and mask mode on the cpu, a2a3 and a5 targets.

Expected values are computed here with plain numpy / Python loops from the seed's and the
reference's mathematics (reference/semantics.md 3.3, DESIGN.md D5/D6), never from ptosim.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim.isa.base import ExecContext
from ptosim.isa.tscatter import TScatterIndex, TScatterMask
from ptosim.memory import GlobalMemory, Scratchpad
from ptosim.tensors import Placement
from tests.helpers.devices import ONE_PER_TARGET

DEVICES = ("cpu", "a2", "950pr")
TARGET = {"cpu": "cpu", "a2": "a2a3", "a3": "a2a3", "950pr": "a5", "950dt": "a5"}
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# -- helpers ------------------------------------------------------------------------------
def npdt(name):
    return D.dtype(name).np


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(UNSIGNED[a.dtype.itemsize])


def assert_bits_equal(got, exp):
    np.testing.assert_array_equal(bits(got), bits(np.asarray(exp, dtype=got.dtype)))


def rand(name, shape, rng):
    dt = npdt(name)
    if D.dtype(name).is_float:
        return (rng.standard_normal(shape) * 8).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)


def gt(buf, rows, cols):
    return pto.GlobalTensor(buf, (1, 1, 1, rows, cols))


def mte2_to_v():
    """The caller-side MTE2 -> V handshake after the TLOADs (semantics.md 4.3)."""
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)


def place(*tiles, start=0):
    addr = start
    for t in tiles:
        pto.TASSIGN(t, addr)
        addr += -(-t.rows * t.cols * t.dtype.size_bytes // 32) * 32


def run_index(
    device,
    src,
    idx,
    *,
    dst_shape,
    src_shape=None,
    idx_shape=None,
    prefill=None,
    dst_valid=None,
    rng=None,
):
    """Load src/idx/dst (prefilled) from GM, TSCATTER(dst, src, idx); return (run, storage)."""
    rng = rng or np.random.default_rng(1)
    dev = pto.Device(device)
    dtype = D.dtype(src.dtype).name
    s = pto.Tile("Vec", dtype, *(src_shape or src.shape), valid=src.shape)
    x = pto.Tile("Vec", D.dtype(idx.dtype).name, *(idx_shape or idx.shape), valid=idx.shape)
    d = pto.Tile("Vec", dtype, *dst_shape)
    if prefill is None:
        prefill = rand(dtype, dst_shape, rng)
    gs, gx, gd = dev.gm_array(src), dev.gm_array(idx), dev.gm_array(prefill)

    @pto.kernel
    def k(gs, gx, gd):
        place(s, x, d)
        pto.TLOAD(s, gt(gs, *src.shape))
        pto.TLOAD(x, gt(gx, *idx.shape))
        pto.TLOAD(d, gt(gd, *dst_shape))
        if dst_valid is not None:
            d.set_valid(*dst_valid)
        mte2_to_v()
        pto.TSCATTER(d, s, x)

    run = dev.run(k, gs, gx, gd)
    return run, run.tile_storage(d).reshape(dst_shape), prefill


def expected_index(target, prefill, src, idx):
    """Sequential reference: cpu/a2a3 row-major last writer; a5 per (row, batch) vscatter in
    which the lowest lane wins (assign lanes in reverse order)."""
    out = (prefill.copy() if target == "cpu" else np.zeros_like(prefill)).reshape(-1)
    u = np.ascontiguousarray(idx).view(UNSIGNED[idx.dtype.itemsize]).astype(np.int64)
    rows, cols = idx.shape
    if target == "a5":
        lanes = 256 // (4 if idx.dtype.itemsize == 4 else 2)
        for i in range(rows):
            for b in range(0, cols, lanes):
                for j in reversed(range(b, min(b + lanes, cols))):
                    out[u[i, j]] = src[i, j]
    else:
        for i in range(rows):
            for j in range(cols):
                out[u[i, j]] = src[i, j]
    return out.reshape(prefill.shape)


def expect_constraint(device, body, operand, rule, cls=pto.ConstraintError):
    dev = pto.Device(device)
    with pytest.raises(cls) as info:
        dev.run(pto.kernel(body))
    exc = info.value
    assert exc.code == cls.code
    assert (exc.instruction, exc.operand, exc.rule) == ("TSCATTER", operand, rule)
    assert exc.target == TARGET[device]
    text = str(exc)
    assert "TSCATTER" in text and f"operand '{operand}'" in text and f"rule '{rule}'" in text
    assert "expected" in text and "given" in text
    return exc


# -- seed examples ------------------------------------------------------------------------
@pytest.mark.parametrize("device", ONE_PER_TARGET)
def test_seed_index_float_uint16(device):
    """Seed: Tile<Vec, float, 16, 16> with Tile<Vec, uint16_t, 16, 16> indices. The size pairing
    (4-byte T needs a 4-byte index) rejects it on a2a3/a5; the cpu runs it."""
    rng = np.random.default_rng(3)
    src = rand("float32", (16, 16), rng)
    idx = rng.permutation(256).astype(np.uint16).reshape(16, 16)
    if TARGET[device] != "cpu":
        dev = pto.Device(device)
        s, d = pto.Tile("Vec", "float32", 16, 16), pto.Tile("Vec", "float32", 16, 16)
        x = pto.Tile("Vec", "uint16", 16, 16)

        def body():  # the seed's manual example
            pto.TASSIGN(s, 0x1000)
            pto.TASSIGN(d, 0x2000)
            pto.TASSIGN(x, 0x3000)
            pto.TSCATTER(d, s, x)

        with pytest.raises(pto.ConstraintError) as info:
            dev.run(pto.kernel(body))
        assert info.value.rule == "index-dtype-size" and info.value.operand == "idx"
        # the same example with a 4-byte index tile is the intended valid form
        idx = idx.astype(np.uint32)
    run, got, prefill = run_index(device, src, idx, dst_shape=(16, 16))
    exp = np.zeros(256, np.float32) if TARGET[device] != "cpu" else prefill.reshape(-1).copy()
    exp[idx.reshape(-1).astype(np.int64)] = src.reshape(-1)
    assert_bits_equal(got, exp.reshape(16, 16))
    assert run.findings == []


def _mask_expected(src, times, pos, axis):
    """Interleave with zeros via stacking (independent of slicing with a step)."""
    r, c = src.shape
    if axis == "row":
        groups = np.zeros((r, c, times), dtype=src.dtype)
        groups[:, :, pos] = src
        return groups.reshape(r, c * times)
    groups = np.zeros((r, times, c), dtype=src.dtype)
    groups[:, pos, :] = src
    return groups.reshape(r * times, c)


def run_mask(
    device,
    src_full,
    *,
    dst_shape,
    mask,
    axis=None,
    src_valid=None,
    dst_valid=None,
    prefill=None,
    rng=None,
):
    """Load full src/dst tiles from GM, then narrow their valid shapes and TSCATTER."""
    rng = rng or np.random.default_rng(2)
    dev = pto.Device(device)
    dtype = D.dtype(src_full.dtype).name
    s = pto.Tile("Vec", dtype, *src_full.shape)
    d = pto.Tile("Vec", dtype, *dst_shape)
    if prefill is None:
        prefill = rand(dtype, dst_shape, rng)
    gs, gd = dev.gm_array(src_full), dev.gm_array(prefill)
    kwargs = {"mask": mask} if axis is None else {"mask": mask, "axis": axis}

    @pto.kernel
    def k(gs, gd):
        place(s, d)
        pto.TLOAD(s, gt(gs, *src_full.shape))
        pto.TLOAD(d, gt(gd, *dst_shape))
        if src_valid is not None:
            s.set_valid(*src_valid)
        if dst_valid is not None:
            d.set_valid(*dst_valid)
        mte2_to_v()
        pto.TSCATTER(d, s, **kwargs)

    run = dev.run(k, gs, gd)
    return run, run.tile(d), run.tile_storage(d).reshape(dst_shape), prefill


SEED_MASKS = [
    # (mask, axis, dtype, src shape, dst shape, times, pos)
    ("P1010", None, "half", (16, 64), (16, 128), 2, 1),
    ("P1000", None, "float32", (16, 64), (16, 256), 4, 3),
    ("P1010", "SCATTER_COL", "half", (64, 16), (128, 16), 2, 1),
]


@pytest.mark.parametrize("device", ONE_PER_TARGET)
@pytest.mark.parametrize("case", SEED_MASKS, ids=["p1010-row", "p1000-row", "p1010-col"])
def test_seed_mask(device, case):
    mask, axis, dtype, sshape, dshape, times, pos = case
    src = rand(dtype, sshape, np.random.default_rng(4))
    run, got, storage, _ = run_mask(device, src, dst_shape=dshape, mask=mask, axis=axis)
    exp = _mask_expected(src, times, pos, "col" if axis else "row")
    assert got.shape == dshape
    assert_bits_equal(got, exp)
    assert_bits_equal(storage, exp)  # valid region == whole tile here
    # the inverse selection recovers the source
    back = got[pos::times, :] if axis else got[:, pos::times]
    assert_bits_equal(back, src)
    assert run.findings == []


# -- index mode ---------------------------------------------------------------------------
INDEX_FAMILIES = [
    ("float32", "uint32"),
    ("float32", "int32"),
    ("int32", "int32"),
    ("uint32", "uint32"),
    ("half", "uint16"),
    ("bfloat16", "int16"),
    ("int16", "int16"),
    ("uint16", "uint16"),
    ("int8", "uint16"),
    ("uint8", "int16"),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("family", INDEX_FAMILIES, ids=lambda f: f"{f[0]}-{f[1]}")
def test_index_permutation_families(device, family):
    """idx valid region (3x20) inside a 4x32 tile; destinations anywhere in the 8x32 storage,
    including positions outside dst's valid region (it is ignored by index mode)."""
    dtype, idx_dtype = family
    rng = np.random.default_rng(abs(hash(family)) % 1000)
    src = rand(dtype, (4, 32), rng)
    idx = rng.choice(256, size=60, replace=False).astype(npdt(idx_dtype)).reshape(3, 20)
    run, got, prefill = run_index(
        device, src, idx, dst_shape=(8, 32), idx_shape=(4, 32), dst_valid=(2, 32), rng=rng
    )
    exp = prefill.copy() if device == "cpu" else np.zeros_like(prefill)
    exp.reshape(-1)[idx.reshape(-1).astype(np.int64)] = src[:3, :20].reshape(-1)
    assert_bits_equal(got, exp)
    assert run.findings == []


@pytest.mark.parametrize("device", ["cpu", "950pr"])
@pytest.mark.parametrize("family", [("int64", "int32"), ("uint64", "uint32")])
def test_index_b64(device, family):
    dtype, idx_dtype = family
    rng = np.random.default_rng(5)
    src = rand(dtype, (4, 16), rng)
    idx = rng.choice(128, size=64, replace=False).astype(npdt(idx_dtype)).reshape(4, 16)
    run, got, prefill = run_index(device, src, idx, dst_shape=(8, 16), rng=rng)
    exp = prefill.copy() if device == "cpu" else np.zeros_like(prefill)
    exp.reshape(-1)[idx.reshape(-1).astype(np.int64)] = src.reshape(-1)
    assert_bits_equal(got, exp)


@settings(max_examples=25, deadline=None)
@given(
    device=st.sampled_from(DEVICES),
    family=st.sampled_from([("float32", "uint32"), ("half", "int16"), ("int8", "uint16")]),
    rows=st.integers(1, 4),
    cols=st.integers(1, 32),
    seed=st.integers(0, 2**16),
)
def test_property_permutation_equals_numpy(device, family, rows, cols, seed):
    """A permutation index == numpy ``out.reshape(-1)[idx] = src`` on a zeroed tile (the cpu
    does not zero: pre-zero it with a zero prefill)."""
    dtype, idx_dtype = family
    rng = np.random.default_rng(seed)
    src = rand(dtype, (rows, cols), rng)
    idx = rng.permutation(256)[: rows * cols].astype(npdt(idx_dtype)).reshape(rows, cols)
    zero = np.zeros((8, 32), dtype=npdt(dtype))
    _, got, _ = run_index(
        device, src, idx, dst_shape=(8, 32), src_shape=(4, 32), idx_shape=(4, 32), prefill=zero
    )
    out = np.zeros((8, 32), dtype=npdt(dtype))
    out.reshape(-1)[idx.reshape(-1).astype(np.int64)] = src.reshape(-1)
    assert_bits_equal(got, out)


@settings(max_examples=30, deadline=None)
@given(
    device=st.sampled_from(ONE_PER_TARGET),
    family=st.sampled_from([("float32", "uint32"), ("half", "uint16"), ("int8", "int16")]),
    rows=st.integers(1, 3),
    cols=st.integers(1, 160),
    span=st.sampled_from([4, 16, 256]),
    seed=st.integers(0, 2**16),
)
def test_property_duplicate_winners(device, family, rows, cols, span, seed):
    """Colliding indices: cpu/a2a3 last row-major writer, a5 later vscatter / lowest lane (D6)."""
    dtype, idx_dtype = family
    rng = np.random.default_rng(seed)
    src = rand(dtype, (rows, cols), rng)
    idx = rng.integers(0, span, size=(rows, cols)).astype(npdt(idx_dtype))
    _, got, prefill = run_index(
        device, src, idx, dst_shape=(8, 32), src_shape=(3, 160), idx_shape=(3, 160), rng=rng
    )
    assert_bits_equal(got, expected_index(TARGET[device], prefill, src, idx))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype, idx_dtype, cols, a5_lane",
    [
        ("float32", "uint32", 128, 64),
        ("half", "uint16", 112, 0),
        ("uint16", "int16", 240, 128),
        ("int8", "uint16", 160, 128),
        ("float32", "int32", 16, 0),
    ],
)
def test_duplicates_single_target(device, dtype, idx_dtype, cols, a5_lane):
    """Every element of two rows targets element 7. cpu/a2a3: src[1, cols-1] wins. a5: the
    second row's last vscatter batch, whose lowest lane is ``a5_lane``."""
    rng = np.random.default_rng(6)
    src = rand(dtype, (2, cols), rng)
    idx = np.full((2, cols), 7, dtype=npdt(idx_dtype))
    _, got, _ = run_index(device, src, idx, dst_shape=(2, 32 if dtype == "int8" else 16))
    winner = src[1, a5_lane] if TARGET[device] == "a5" else src[1, cols - 1]
    assert bits(got.reshape(-1)[7:8])[0] == bits(np.array([winner]))[0]


def test_duplicates_b64_a5_lowest_lane():
    src = rand("int64", (1, 16), np.random.default_rng(7))
    idx = np.full((1, 16), 3, dtype=np.int32)
    _, got, _ = run_index("950pr", src, idx, dst_shape=(2, 16))
    assert got.reshape(-1)[3] == src[0, 0]
    _, got, _ = run_index("cpu", src, idx, dst_shape=(2, 16))
    assert got.reshape(-1)[3] == src[0, 15]


@pytest.mark.parametrize("device", ONE_PER_TARGET)
def test_index_outside_tile_writes_next_tile(device):
    """An index past dst's Rows*Cols is a finding and lands at tile address + idx*sizeof(T)."""
    dev = pto.Device(device)
    rng = np.random.default_rng(8)
    d = pto.Tile("Vec", "float32", 8, 8, name="dst")
    victim = pto.Tile("Vec", "float32", 8, 8, name="victim")
    s = pto.Tile("Vec", "float32", 1, 8)
    x = pto.Tile("Vec", "int32", 1, 8)
    src = rand("float32", (1, 8), rng)
    idx = np.array([[0, 1, 2, 64 + 5, 3, 4, 5, 63]], dtype=np.int32)
    vic = rand("float32", (8, 8), rng)
    pre = rand("float32", (8, 8), rng)
    gs, gx, gv, gd = dev.gm_array(src), dev.gm_array(idx), dev.gm_array(vic), dev.gm_array(pre)

    @pto.kernel
    def k(gs, gx, gv, gd):
        place(d, victim, s, x)  # dst [0, 0x100), victim [0x100, 0x200)
        pto.TLOAD(s, gt(gs, 1, 8))
        pto.TLOAD(x, gt(gx, 1, 8))
        pto.TLOAD(victim, gt(gv, 8, 8))
        pto.TLOAD(d, gt(gd, 8, 8))
        mte2_to_v()
        pto.TSCATTER(d, s, x)

    run = dev.run(k, gs, gx, gv, gd)
    exp_v = vic.copy()
    exp_v.reshape(-1)[5] = src[0, 3]
    assert_bits_equal(run.tile(victim), exp_v)
    exp_d = pre.copy() if device == "cpu" else np.zeros((8, 8), np.float32)
    exp_d.reshape(-1)[[0, 1, 2, 3, 4, 5, 63]] = src[0, [0, 1, 2, 4, 5, 6, 7]]
    assert_bits_equal(run.tile(d), exp_d)
    (f,) = run.findings
    assert (f.code, f.kind) == ("F102", "index-outside-tile")
    assert "victim" in f.message and "69" in f.message and "TSCATTER" in f.message
    with pytest.raises(pto.FindingsError):
        dev.run(k, gs, gx, gv, gd, strict=True)


@pytest.mark.parametrize("device", DEVICES)
def test_negative_int16_index_is_unsigned(device):
    """int16 -1 is read as 65535: a half element at byte 2*65535 from the tile (inside UB)."""
    src = np.array([[1.5] * 16], dtype=np.float16)
    idx = np.array([[-1] + list(range(1, 16))], dtype=np.int16)
    run, got, _ = run_index(device, src, idx, dst_shape=(4, 16))
    (ins,) = [i for i in run.program.instructions if i.opcode == "TSCATTER"]
    ub = run.blocks[0].ub
    assert ub.typed(ins.dst.address + 2 * 65535, D.half, 1)[0] == np.float16(1.5)
    assert bits(got.reshape(-1)[1:16]).tolist() == bits(src[0, 1:16]).tolist()
    assert [f.code for f in run.findings] == ["F102"]
    assert "65535" in run.findings[0].message


def _ctx(device, fill=0x5A):
    dev = pto.Device(device)
    ub = Scratchpad("UB", dev.arch.ub_size_bytes)
    ub.data[:] = np.arange(ub.size_bytes, dtype=np.uint64).astype(np.uint8) ^ fill
    ctx = ExecContext(dev.arch, ub, Scratchpad("L1", dev.arch.l1_size_bytes), GlobalMemory())
    return dev, ctx


def _ref(tile, address):
    tile.placement = Placement(address, auto=False)
    return tile.ref()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bad", [-1, 1 << 20])
def test_index_past_ub_end_raises_and_writes_nothing(device, bad):
    """A negative int32 (huge unsigned) or too large index: OutOfBoundsError, UB untouched
    (the a2a3/a5 zero fill included)."""
    dev, ctx = _ctx(device)
    d = _ref(pto.Tile("Vec", "float32", 8, 8), 0x0)
    s = _ref(pto.Tile("Vec", "float32", 1, 8), 0x100)
    x = _ref(pto.Tile("Vec", "int32", 1, 8), 0x200)
    ctx.tile_storage(x)[:] = [0, 1, 2, bad, 3, 4, 5, 6]
    before = ctx.ub.data.copy()
    ins = TScatterIndex(d, s, x)
    ins.check(dev.arch)
    ctx.instr = ins
    with pytest.raises(pto.OutOfBoundsError) as info:
        ins.execute(ctx)
    assert info.value.code == "PTO202"
    assert "nothing was written" in str(info.value) and str(bad & 0xFFFFFFFF) in str(info.value)
    np.testing.assert_array_equal(ctx.ub.data, before)


@pytest.mark.parametrize("device", DEVICES)
def test_index_ub_end_exact_boundary(device):
    """The last element of UB is addressable; one past it is not."""
    dev, ctx = _ctx(device)
    d = _ref(pto.Tile("Vec", "float32", 1, 8), 0x0)
    s = _ref(pto.Tile("Vec", "float32", 1, 8), 0x100)
    x = _ref(pto.Tile("Vec", "uint32", 1, 8), 0x200)
    last = dev.arch.ub_size_bytes // 4 - 1
    ctx.tile_storage(s)[:] = np.arange(8, dtype=np.float32) + 10
    ctx.tile_storage(x)[:] = [last, 1, 2, 3, 4, 5, 6, 7]
    ins = TScatterIndex(d, s, x)
    ctx.instr = ins
    ins.execute(ctx)
    assert ctx.ub.typed(4 * last, D.float32, 1)[0] == 10
    ctx.tile_storage(x)[0] = last + 1
    with pytest.raises(pto.OutOfBoundsError):
        ins.execute(ctx)


@pytest.mark.parametrize("device", DEVICES)
def test_index_empty_valid_region(device):
    dev = pto.Device(device)
    s, x = (
        pto.Tile("Vec", "float32", 1, 8, valid=(0, 8)),
        pto.Tile("Vec", "uint32", 1, 8, valid=(0, 8)),
    )
    d = pto.Tile("Vec", "float32", 2, 8)
    pre = rand("float32", (2, 8), np.random.default_rng(9))
    gd = dev.gm_array(pre)

    @pto.kernel
    def k(gd):
        place(s, x, d)
        pto.TLOAD(d, gt(gd, 2, 8))
        mte2_to_v()
        pto.TSCATTER(d, s, x)

    run = dev.run(k, gd)
    exp = pre if device == "cpu" else np.zeros_like(pre)
    assert_bits_equal(run.tile(d), exp)


def test_cpu_any_layout_src_idx():
    """The cpu addresses src/idx through the tile layout: DN tiles work there (a2a3/a5 need
    ND, see the constraint tests)."""
    dev = pto.Device("cpu")
    rng = np.random.default_rng(10)
    src = rand("float32", (8, 4), rng)
    idx = rng.permutation(64)[:32].astype(np.int32).reshape(8, 4)
    s = pto.Tile("Vec", "float32", 8, 4, blayout="ColMajor")
    x = pto.Tile("Vec", "int32", 8, 4, blayout="ColMajor")
    d = pto.Tile("Vec", "float32", 8, 8)
    gs, gx = dev.gm_array(src), dev.gm_array(idx)
    gd = dev.gm_array(np.zeros((8, 8), np.float32))

    @pto.kernel
    def k(gs, gx, gd):
        place(s, x, d)
        pto.TLOAD(s, pto.GlobalTensor(gs, (1, 1, 1, 8, 4), layout="DN"))
        pto.TLOAD(x, pto.GlobalTensor(gx, (1, 1, 1, 8, 4), layout="DN"))
        pto.TLOAD(d, gt(gd, 8, 8))
        pto.TSCATTER(d, s, x)

    run = dev.run(k, gs, gx, gd)
    loaded_src, loaded_idx = run.tile(s), run.tile(x)
    out = np.zeros(64, np.float32)
    out[loaded_idx.reshape(-1).astype(np.int64)] = loaded_src.reshape(-1)
    assert_bits_equal(run.tile(d).reshape(-1), out)


@pytest.mark.parametrize("device", DEVICES)
def test_overlap_finding(device):
    """dst storage overlapping src is reported (on a2a3/a5 the zero fill clobbers src)."""
    dev = pto.Device(device)
    src = rand("float32", (8, 8), np.random.default_rng(11))
    g = dev.gm_array(src)
    s = pto.Tile("Vec", "float32", 8, 8, name="S")
    d = pto.Tile("Vec", "float32", 8, 16, name="D", valid=(8, 16))

    @pto.kernel
    def k(g):
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(d, 0x0)
        pto.TLOAD(s, gt(g, 8, 8))
        mte2_to_v()
        pto.TSCATTER(d, s, mask="P0101")

    run = dev.run(k, g)
    assert [f.code for f in run.findings] == ["F105"]
    assert run.findings[0].kind == "tile-overlap" and "S" in run.findings[0].message


# -- mask mode ----------------------------------------------------------------------------
MASKS = ["P0101", "P1010", "P0001", "P0010", "P0100", "P1000"]
TIMES_POS = {
    "P0101": (2, 0),
    "P1010": (2, 1),
    "P0001": (4, 0),
    "P0010": (4, 1),
    "P0100": (4, 2),
    "P1000": (4, 3),
    "P1111": (1, 0),
}
MASK_DTYPES = {
    "cpu": ["float32", "half", "bfloat16", "int16", "uint16", "int32", "uint32"],
    "a2": ["float32", "half", "bfloat16", "int16", "uint16", "int32", "uint32", "int8", "uint8"],
    "950pr": [
        "float32",
        "half",
        "bfloat16",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int8",
        "uint8",
        "int64",
        "uint64",
    ],
}


@st.composite
def mask_cases(draw):
    device = draw(st.sampled_from(DEVICES))
    dtype = draw(st.sampled_from(MASK_DTYPES[device]))
    mask = draw(st.sampled_from(MASKS))
    axis = draw(st.sampled_from(["row", "col"]))
    vr = draw(st.integers(1, 4))
    full_width = draw(st.booleans())
    vc = 32 if full_width else draw(st.integers(1, 32))
    return device, dtype, mask, axis, vr, vc, draw(st.integers(0, 2**16))


@settings(max_examples=40, deadline=None)
@given(mask_cases())
def test_property_mask(case):
    """Mask scatter then the inverse selection recovers src; every unselected element of the
    valid region is 0; outside it a2a3/a5 hold 0 and the cpu keeps the old contents. The cpu
    SCATTER_ROW takes its source stream from a cursor wrapping at the padded width (32)."""
    device, dtype, mask, axis, vr, vc, seed = case
    times, pos = TIMES_POS[mask]
    rng = np.random.default_rng(seed)
    src_full = rand(dtype, (4, 32), rng)
    if axis == "row":
        dshape, dvalid = (4, 128), (vr, vc * times)
    else:
        dshape, dvalid = (16, 32), (vr * times, vc)
    run, got, storage, prefill = run_mask(
        device,
        src_full,
        dst_shape=dshape,
        mask=mask,
        axis=f"SCATTER_{axis.upper()}",
        src_valid=(vr, vc),
        dst_valid=dvalid,
        rng=rng,
    )
    if device == "cpu" and axis == "row":
        src = src_full.reshape(-1)[: vr * vc].reshape(vr, vc)  # the cursor over Cols = 32
    else:
        src = src_full[:vr, :vc]
    assert_bits_equal(got, _mask_expected(src, times, pos, axis))
    if axis == "row":
        back, rest = got[:, pos::times], np.delete(got, np.s_[pos::times], axis=1)
    else:
        back, rest = got[pos::times, :], np.delete(got, np.s_[pos::times], axis=0)
    assert_bits_equal(back, src)
    assert not bits(rest).any()
    outside = np.ones(dshape, bool)
    outside[: dvalid[0], : dvalid[1]] = False
    exp_out = prefill[outside] if device == "cpu" else np.zeros(outside.sum(), prefill.dtype)
    assert_bits_equal(storage[outside], exp_out)


@pytest.mark.parametrize("device", DEVICES)
def test_mask_row_narrow_src_cursor(device):
    """src 4x16 float with valid 4x8, P0101 -> dst valid 4x16. a2a3/a5 follow the formula; the
    cpu cursor wraps at SrcTile::Cols = 16, so dst row 1 takes src[0, 8:16] (padding)."""
    src_full = np.arange(64, dtype=np.float32).reshape(4, 16)
    _, got, _, _ = run_mask(device, src_full, dst_shape=(4, 16), mask="P0101", src_valid=(4, 8))
    exp = np.zeros((4, 16), np.float32)
    if device == "cpu":
        stream = np.arange(32, dtype=np.float32).reshape(4, 8)  # elements 0..31 of storage
        exp[:, 0::2] = stream
    else:
        exp[:, 0::2] = src_full[:, :8]
    assert_bits_equal(got, exp)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "spelling",
    [
        {"mask": pto.MaskPattern.P0010, "axis": pto.ScatterAxis.SCATTER_COL},
        {"mask": "p0010", "axis": "scatter_col"},
        {"mask": "MaskPattern::P0010", "axis": "ScatterAxis::SCATTER_COL"},
        {"mask": "P0010", "axis": "col"},
    ],
)
def test_mask_enum_spellings(device, spelling):
    src = rand("int32", (2, 8), np.random.default_rng(12))
    _, got, _, _ = run_mask(device, src, dst_shape=(8, 8), **spelling)
    exp = np.zeros((8, 8), np.int32)
    exp[1::4] = src
    assert_bits_equal(got, exp)


@pytest.mark.parametrize("device", ONE_PER_TARGET)
@pytest.mark.parametrize("explicit", [True, False])
def test_p1111_is_tmov(device, explicit):
    """P1111 (also the default without idx and mask) copies the valid region like TMOV."""
    dev = pto.Device(device)
    src = rand("half", (4, 16), np.random.default_rng(13))
    pre = rand("half", (4, 32), np.random.default_rng(14))
    s = pto.Tile("Vec", "half", 4, 32, valid=(4, 16))
    d = pto.Tile("Vec", "half", 4, 32, valid=(4, 16))
    gs, gd = dev.gm_array(src), dev.gm_array(pre)

    @pto.kernel
    def k(gs, gd):
        place(s, d)
        d.set_valid(4, 32)
        pto.TLOAD(d, gt(gd, 4, 32))
        d.set_valid(4, 16)
        pto.TLOAD(s, gt(gs, 4, 16))
        mte2_to_v()
        if explicit:
            pto.TSCATTER(d, s, mask="P1111", axis="SCATTER_COL")
        else:
            pto.TSCATTER(d, s)

    run = dev.run(k, gs, gd)
    assert_bits_equal(run.tile(d), src)
    # TMOV semantics: no zero fill, the rest of the storage keeps its contents
    assert_bits_equal(run.tile_storage(d).reshape(4, 32)[:, 16:], pre[:, 16:])


@pytest.mark.parametrize("device", ["cpu", "950pr"])
def test_mask_b64_a5_only(device):
    src = rand("int64", (2, 8), np.random.default_rng(15))
    if device == "cpu":
        expect_constraint(
            "cpu",
            lambda: pto.TSCATTER(
                pto.Tile("Vec", "int64", 2, 16), pto.Tile("Vec", "int64", 2, 8), mask="P0101"
            ),
            "src",
            "dtype",
        )
        return
    _, got, _, _ = run_mask(device, src, dst_shape=(2, 16), mask="P0101")
    assert_bits_equal(got, _mask_expected(src, 2, 0, "row"))


# -- constraints --------------------------------------------------------------------------
def V(dtype, rows, cols, **kw):
    return pto.Tile("Vec", dtype, rows, cols, **kw)


def idx_call(dst, src, idx):
    return lambda: pto.TSCATTER(dst, src, idx)


INDEX_CONSTRAINTS = [
    # (id, device, factory -> body, operand, rule)
    (
        "dst-loc",
        "a2",
        lambda: idx_call(pto.Tile("Mat", "float32", 8, 8), V("float32", 8, 8), V("int32", 8, 8)),
        "dst",
        "tile-location",
    ),
    (
        "src-loc",
        "cpu",
        lambda: idx_call(V("float32", 8, 8), pto.Tile("Mat", "float32", 8, 8), V("int32", 8, 8)),
        "src",
        "tile-location",
    ),
    (
        "idx-loc",
        "950pr",
        lambda: idx_call(V("float32", 8, 8), V("float32", 8, 8), pto.Tile("Mat", "int32", 8, 8)),
        "idx",
        "tile-location",
    ),
    (
        "a2-int64",
        "a2",
        lambda: idx_call(V("int64", 8, 8), V("int64", 8, 8), V("int32", 8, 8)),
        "dst",
        "dtype",
    ),
    (
        "a2-fp8",
        "a3",
        lambda: idx_call(V("float8_e4m3", 8, 32), V("float8_e4m3", 8, 32), V("int16", 8, 32)),
        "dst",
        "dtype",
    ),
    (
        "a5-fp8",
        "950dt",
        lambda: idx_call(V("float8_e5m2", 8, 32), V("float8_e5m2", 8, 32), V("int16", 8, 32)),
        "dst",
        "dtype",
    ),
    (
        "cpu-same-dtype",
        "cpu",
        lambda: idx_call(V("float32", 8, 8), V("int32", 8, 8), V("int32", 8, 8)),
        "src",
        "same-dtype",
    ),
    (
        "a5-same-dtype",
        "950pr",
        lambda: idx_call(V("half", 8, 16), V("bfloat16", 8, 16), V("int16", 8, 16)),
        "src",
        "same-dtype",
    ),
    (
        "a2-idx-int8",
        "a2",
        lambda: idx_call(V("int8", 8, 32), V("int8", 8, 32), V("int8", 8, 32)),
        "idx",
        "index-dtype",
    ),
    (
        "a5-idx-int64",
        "950pr",
        lambda: idx_call(V("int64", 8, 8), V("int64", 8, 8), V("int64", 8, 8)),
        "idx",
        "index-dtype",
    ),
    (
        "cpu-idx-float",
        "cpu",
        lambda: idx_call(V("float32", 8, 8), V("float32", 8, 8), V("float32", 8, 8)),
        "idx",
        "index-dtype",
    ),
    (
        "a2-pair-4-2",
        "a2",
        lambda: idx_call(V("float32", 16, 16), V("float32", 16, 16), V("uint16", 16, 16)),
        "idx",
        "index-dtype-size",
    ),
    (
        "a2-pair-2-4",
        "a3",
        lambda: idx_call(V("half", 8, 16), V("half", 8, 16), V("int32", 8, 16)),
        "idx",
        "index-dtype-size",
    ),
    (
        "a5-pair-1-4",
        "950pr",
        lambda: idx_call(V("int8", 8, 32), V("int8", 8, 32), V("int32", 8, 32)),
        "idx",
        "index-dtype-size",
    ),
    (
        "a5-pair-8-2",
        "950pr",
        lambda: idx_call(V("int64", 8, 16), V("int64", 8, 16), V("uint16", 8, 16)),
        "idx",
        "index-dtype-size",
    ),
    (
        "a2-src-dn",
        "a2",
        lambda: idx_call(
            V("float32", 8, 8), V("float32", 8, 8, blayout="ColMajor"), V("int32", 8, 8)
        ),
        "src",
        "row-major",
    ),
    (
        "a5-idx-dn",
        "950pr",
        lambda: idx_call(
            V("float32", 8, 8), V("float32", 8, 8), V("int32", 8, 8, blayout="ColMajor")
        ),
        "idx",
        "row-major",
    ),
    (
        "a2-dst-nz",
        "a2",
        lambda: idx_call(
            V("float32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
            V("float32", 8, 8),
            V("int32", 8, 8),
        ),
        "dst",
        "row-major",
    ),
    (
        "idx-wider-than-src",
        "cpu",
        lambda: idx_call(V("float32", 8, 8), V("float32", 8, 8, valid=(8, 4)), V("int32", 8, 8)),
        "idx",
        "index-valid-shape",
    ),
    (
        "idx-taller-than-src",
        "a2",
        lambda: idx_call(
            V("float32", 8, 8), V("float32", 8, 8, valid=(2, 8)), V("int32", 8, 8, valid=(3, 8))
        ),
        "idx",
        "index-valid-shape",
    ),
    (
        "a5-b64-cols",
        "950pr",
        lambda: idx_call(V("int64", 1, 72), V("int64", 1, 72), V("int32", 1, 72)),
        "idx",
        "a5-b64-valid-col",
    ),
]


@pytest.mark.parametrize("case", INDEX_CONSTRAINTS, ids=[c[0] for c in INDEX_CONSTRAINTS])
def test_index_constraints(case):
    _, device, factory, operand, rule = case
    expect_constraint(device, factory(), operand, rule)


def mask_call(dst, src, **kw):
    return lambda: pto.TSCATTER(dst, src, **kw)


MASK_CONSTRAINTS = [
    (
        "dst-loc",
        "a2",
        lambda: mask_call(pto.Tile("Mat", "half", 4, 32), V("half", 4, 16), mask="P1010"),
        "dst",
        "tile-location",
    ),
    (
        "src-loc",
        "cpu",
        lambda: mask_call(V("half", 4, 32), pto.Tile("Mat", "half", 4, 16), mask="P1010"),
        "src",
        "tile-location",
    ),
    (
        "cpu-int8",
        "cpu",
        lambda: mask_call(V("int8", 4, 64), V("int8", 4, 32), mask="P1010"),
        "src",
        "dtype",
    ),
    (
        "a2-int64",
        "a2",
        lambda: mask_call(V("int64", 4, 8), V("int64", 4, 4), mask="P1010"),
        "dst",
        "dtype",
    ),
    (
        "a5-fp8",
        "950pr",
        lambda: mask_call(V("float8_e4m3", 4, 64), V("float8_e4m3", 4, 32), mask="P1010"),
        "dst",
        "dtype",
    ),
    (
        "same-dtype",
        "950pr",
        lambda: mask_call(V("half", 4, 32), V("int16", 4, 16), mask="P1010"),
        "src",
        "same-dtype",
    ),
    (
        "cpu-col-major",
        "cpu",
        lambda: mask_call(
            V("float32", 8, 16), V("float32", 8, 8, blayout="ColMajor"), mask="P1010"
        ),
        "src",
        "row-major",
    ),
    (
        "a2-zz",
        "a2",
        lambda: mask_call(V("half", 16, 32, slayout="RowMajor"), V("half", 16, 16), mask="P1010"),
        "dst",
        "row-major",
    ),
    (
        "p1111-a2-shape",
        "a2",
        lambda: mask_call(V("float32", 4, 16, valid=(4, 8)), V("float32", 4, 8), mask="P1111"),
        "src",
        "same-shape",
    ),
    (
        "p1111-valid",
        "cpu",
        lambda: mask_call(V("float32", 4, 8), V("float32", 4, 8, valid=(4, 7))),
        "dst",
        "same-valid-shape",
    ),
]
for _dev in DEVICES:
    MASK_CONSTRAINTS += [
        (
            f"{_dev}-row-rows",
            _dev,
            lambda: mask_call(V("float32", 8, 16, valid=(7, 16)), V("float32", 8, 8), mask="P0101"),
            "dst",
            "same-valid-row",
        ),
        (
            f"{_dev}-row-cols",
            _dev,
            lambda: mask_call(V("float32", 8, 16), V("float32", 8, 8), mask="P1000"),
            "dst",
            "expanded-valid-col",
        ),
        (
            f"{_dev}-row-reversed",
            _dev,
            lambda: mask_call(V("float32", 8, 8), V("float32", 8, 16), mask="P1010"),
            "dst",
            "expanded-valid-col",
        ),
        (
            f"{_dev}-col-cols",
            _dev,
            lambda: mask_call(
                V("float32", 16, 8, valid=(16, 7)),
                V("float32", 8, 8),
                mask="P1010",
                axis="SCATTER_COL",
            ),
            "dst",
            "same-valid-col",
        ),
        (
            f"{_dev}-col-rows",
            _dev,
            lambda: mask_call(
                V("float32", 16, 8), V("float32", 8, 8), mask="P0100", axis="SCATTER_COL"
            ),
            "dst",
            "expanded-valid-row",
        ),
    ]


@pytest.mark.parametrize("case", MASK_CONSTRAINTS, ids=[c[0] for c in MASK_CONSTRAINTS])
def test_mask_constraints(case):
    _, device, factory, operand, rule = case
    expect_constraint(device, factory(), operand, rule)


@pytest.mark.parametrize("device", DEVICES)
def test_mask_pattern_and_axis_rules(device):
    """Direct construction with a value outside P0101..P1111 / ScatterAxis is rejected."""
    dev = pto.Device(device)
    d, s = V("float32", 8, 16).ref(), V("float32", 8, 8).ref()
    for mask, axis, operand, rule in (
        (0, pto.ScatterAxis.SCATTER_ROW, "mask", "mask-pattern"),
        (pto.MaskPattern.P1010, 5, "axis", "scatter-axis"),
    ):
        with pytest.raises(pto.ConstraintError) as info:
            TScatterMask(d, s, mask, axis).check(dev.arch)
        assert (info.value.operand, info.value.rule) == (operand, rule)
        assert "TSCATTER" in str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda d, s, x: pto.TSCATTER(d, s, x, mask="P1010"),
        lambda d, s, x: pto.TSCATTER(d, s, x, axis="SCATTER_ROW"),
        lambda d, s, x: pto.TSCATTER(d, s, "P1010"),
        lambda d, s, x: pto.TSCATTER(d, s, mask="P1100"),
        lambda d, s, x: pto.TSCATTER(d, s, mask="P1010", axis="diagonal"),
        lambda d, s, x: pto.TSCATTER(np.zeros(4), s, x),
        lambda d, s, x: pto.TSCATTER(d, s, np.zeros(4, np.int32)),
    ],
    ids=["idx+mask", "idx+axis", "str-idx", "bad-mask", "bad-axis", "dst-not-tile", "idx-not-tile"],
)
def test_kernel_errors(call):
    dev = pto.Device("cpu")
    d, s, x = V("float32", 8, 16), V("float32", 8, 8), V("int32", 8, 8)
    with pytest.raises(pto.KernelError) as info:
        dev.run(pto.kernel(lambda: call(d, s, x)))
    assert info.value.code == "PTO100" and "TSCATTER" in str(info.value)


def test_instruction_metadata():
    d, s, x = V("float32", 8, 8).ref(), V("float32", 8, 8).ref(), V("int32", 8, 8).ref()
    ins = TScatterIndex(d, s, x)
    assert ins.opcode == "TSCATTER" and ins.nominal_pipe is pto.PIPE_V
    assert set(ins.tile_operands()) == {"dst", "src", "idx"}
    assert ins.writes == ("dst",) and set(ins.reads) == {"src", "idx"}
    m = TScatterMask(d, s, pto.MaskPattern.P1010, pto.ScatterAxis.SCATTER_ROW)
    assert m.opcode == "TSCATTER" and m.nominal_pipe is pto.PIPE_V
    assert m.reads == ("src",) and m.writes == ("dst",)
    assert ml_dtypes.bfloat16 is not None  # bfloat16 data comes from ml_dtypes


@pytest.mark.parametrize(
    "dtype, idx_dtype",
    [
        ("float32", "int8"),
        ("float32", "uint8"),
        ("float32", "int64"),
        ("half", "uint64"),
        ("float8_e4m3", "int16"),
        ("int64", "uint16"),
    ],
)
def test_cpu_index_any_integer_dtype(dtype, idx_dtype):
    """The cpu only needs an integral index type (no size pairing, any element type)."""
    rng = np.random.default_rng(16)
    src = (
        rand(dtype, (1, 32), rng)
        if dtype != "float8_e4m3"
        else rng.standard_normal((1, 32)).astype(ml_dtypes.float8_e4m3fn)
    )
    idx = rng.permutation(64)[:32].astype(npdt(idx_dtype)).reshape(1, 32)
    run, got, prefill = run_index("cpu", src, idx, dst_shape=(2, 32), rng=rng)
    exp = prefill.copy()
    exp.reshape(-1)[idx.reshape(-1).astype(np.int64)] = src.reshape(-1)
    assert_bits_equal(got, exp)
