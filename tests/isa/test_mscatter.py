"""MSCATTER: seed examples, per-target semantics, OOB policies, duplicates, atomics, constraints.

Expected values are computed independently in the tests with plain numpy / Python loops
(sequential reference loops, uint32 index conversion, per-step D12 rounding with ml_dtypes).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim.enums import Coalesce, PadValue, ScatterAtomicOp, ScatterConflict, ScatterOOB
from ptosim.errors import ExecutionError
from ptosim.layout import TileGeom
from ptosim.tensors import Placement, TileRef
from tests.helpers.devices import NPU_DEVICES, ONE_PER_TARGET

TARGET = {"cpu": "cpu", "a2": "a2a3", "a3": "a2a3", "950pr": "a5", "950dt": "a5"}
HSET = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

BASE9 = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32"]
DTYPES = {
    "cpu": BASE9 + ["float8_e4m3", "float8_e5m2"],
    "a2a3": BASE9,
    "a5": BASE9 + ["hifloat8", "float8_e4m3", "float8_e5m2"],
}


# -- independent reference helpers ------------------------------------------------------------
def u32(values) -> np.ndarray:
    """Index values as the hardware reads them (uint32 reinterpretation, D2)."""
    return np.asarray(values).astype(np.int64) & 0xFFFFFFFF


def ref_map(k: int, cap: int, oob: str, size_t: bool = False) -> int | None:
    """One index through the ScatterOOB definition; None = not written. The index is read as
    uint32 (NPU) or, with ``size_t``, as the cpu's 64-bit size_t (an int32 sign-extends)."""
    k = int(k) % (1 << 64) if size_t else int(k) & 0xFFFFFFFF
    if cap == 0:
        return None
    if oob == "skip":
        return k if k < cap else None
    if oob == "clamp":
        return min(k, cap - 1)
    if oob == "wrap":
        return k % cap
    assert k < cap
    return k


def rand_bits(rng, dt_name: str, shape) -> np.ndarray:
    """Random bit patterns of a dtype (bit-exact data moves)."""
    dt = D.dtype(dt_name)
    raw = rng.integers(0, 256, tuple(shape) + (dt.size_bytes,), dtype=np.uint8)
    return raw.view(dt.np).reshape(shape)


def bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def to_nz(a2d: np.ndarray, c0: int) -> np.ndarray:
    """(L, W) logical matrix -> NZ buffer [bc, br, rin, cin] = a[br*16+rin, bc*c0+cin]."""
    L, W = a2d.shape
    return np.ascontiguousarray(a2d.reshape(L // 16, 16, W // c0, c0).transpose(2, 0, 1, 3))


# -- a kernel runner --------------------------------------------------------------------------
def _load(tile: pto.Tile, buf, layout: str, shape2d) -> None:
    r, c = shape2d
    if layout == "NZ":
        c0 = tile.dtype.c0
        gm = pto.GlobalTensor(buf, (1, c // c0, r // 16, 16, c0), layout="NZ")
    else:
        gm = pto.GlobalTensor(buf, (1, 1, 1, r, c), layout=layout)
    pto.TLOAD(tile, gm)


def _host(values: np.ndarray, layout: str, c0: int = 8) -> np.ndarray:
    if layout == "DN":
        return np.ascontiguousarray(values.T)
    if layout == "NZ":
        return to_nz(values, c0)
    return values


def _tile_shape(shape, layout: str, dt: str) -> tuple[int, int]:
    """Smallest tile holding ``shape`` with 32-byte rows (ND) / columns (DN)."""
    r, c = shape
    c0 = D.dtype(dt).c0
    if layout == "ND":
        return r, -(-c // c0) * c0
    if layout == "DN":
        return -(-r // c0) * c0, c
    return r, c


_BLAYOUT = {
    "ND": ("RowMajor", "NoneBox"),
    "DN": ("ColMajor", "NoneBox"),
    "NZ": ("ColMajor", "RowMajor"),
}


def scatter(
    dev_name,
    table,
    src,
    idx,
    *,
    shape=None,
    stride=None,
    layout="ND",
    offset=0,
    src_tile=None,
    src_layout="ND",
    src_valid=None,
    idx_tile=None,
    idx_layout="ND",
    idx_valid=None,
    dt=None,
    idx_dt="int32",
    addrs=None,
    dynamic=False,
    dev=None,
    **policy,
):
    """Run one MSCATTER on a device; returns (table buffer after, run, device).

    ``src``/``idx`` are the data loaded into the tiles (their shapes are the tiles' valid
    shapes, static unless ``dynamic``); ``src_valid``/``idx_valid`` (optional) change the valid
    shape after the loads. The table is the device's first GM buffer.
    """
    dev = dev or pto.Device(dev_name)
    src, idx = np.asarray(src), np.asarray(idx)
    dt = dt or D.dtype(src.dtype).name
    src = src.reshape(1, -1) if src.ndim == 1 else src
    idx = idx.reshape(1, -1) if idx.ndim == 1 else idx
    tbuf = dev.gm_array(table, dtype=dt)
    sbuf = dev.gm_array(_host(src, src_layout, D.dtype(dt).c0), dtype=dt)
    ibuf = dev.gm_array(_host(idx.astype(D.dtype(idx_dt).np), idx_layout), dtype=idx_dt)
    srows, scols = src_tile or _tile_shape(src.shape, src_layout, dt)
    irows, icols = idx_tile or _tile_shape(idx.shape, idx_layout, idx_dt)
    s = pto.Tile(
        "Vec",
        dt,
        srows,
        scols,
        blayout=_BLAYOUT[src_layout][0],
        slayout=_BLAYOUT[src_layout][1],
        valid=None if dynamic else src.shape,
    )
    i = pto.Tile(
        "Vec",
        idx_dt,
        irows,
        icols,
        blayout=_BLAYOUT[idx_layout][0],
        valid=None if dynamic else idx.shape,
    )
    tshape = shape if shape is not None else (1, 1, 1) + tuple(np.asarray(table).shape[-2:])

    @pto.kernel
    def kern():
        if addrs:
            pto.TASSIGN(s, addrs[0])
            pto.TASSIGN(i, addrs[1])
        if dynamic:
            s.set_valid(*src.shape)
            i.set_valid(*idx.shape)
        _load(s, sbuf, src_layout, src.shape)
        _load(i, ibuf, idx_layout, idx.shape)
        pto.pipe_barrier(pto.PIPE_ALL)  # the a2a3 caller pattern (semantics.md 4.3)
        if src_valid is not None:
            s.set_valid(*src_valid)
        if idx_valid is not None:
            i.set_valid(*idx_valid)
        g = pto.GlobalTensor(tbuf, tshape, stride=stride, layout=layout, offset=offset)
        pto.MSCATTER(g, s, i, **policy)

    run = dev.run(kern)
    return tbuf.numpy(), run, dev


def mscatter_instr(run):
    return [x for x in run.program if x.opcode == "MSCATTER"][0]


def ref_row(table2d, src, idx, cap, oob, *, op="none", size_t=False):
    out = table2d.copy()
    for r in range(src.shape[0]):  # sequential: later rows win / accumulate
        k = ref_map(idx[r], cap, oob, size_t)
        if k is None:
            continue
        if op == "add":
            out[k, : src.shape[1]] = out[k, : src.shape[1]] + src[r]
        else:
            out[k, : src.shape[1]] = src[r]
    return out


def ref_elem(flat, src, idx, cap, oob, size_t=False):
    out = flat.copy()
    for r in range(src.shape[0]):
        for c in range(src.shape[1]):
            k = ref_map(idx[r, c], cap, oob, size_t)
            if k is not None:
                out[k] = src[r, c]
    return out


# == seed examples ============================================================================
@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
@pytest.mark.parametrize("manual", [False, True])
def test_seed_automatic_and_manual_16x16_elem(dev_name, manual):
    """Seed 'Automatic'/'Manual': float 16x16 src and int32 16x16 idx; the untemplated CPU form
    is Elem, so the Python call names coalesce='elem' (our default is Row on every target)."""
    rng = np.random.default_rng(1)
    src = rng.standard_normal((16, 16)).astype(np.float32)
    idx = rng.permutation(256).reshape(16, 16).astype(np.int32)
    table = np.full((16, 16), -1.0, np.float32)
    out, run, _ = scatter(
        dev_name, table, src, idx, coalesce="elem", addrs=(0x1000, 0x2000) if manual else None
    )
    expected = table.reshape(-1).copy()
    expected[idx.reshape(-1)] = src.reshape(-1)
    np.testing.assert_array_equal(out.reshape(-1), expected)
    assert run.findings == []


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_seed_automatic_with_default_row_is_an_index_shape_error(dev_name):
    src = np.zeros((16, 16), np.float32)
    idx = np.zeros((16, 16), np.int32)
    with pytest.raises(pto.ConstraintError) as ei:
        scatter(dev_name, np.zeros((16, 16), np.float32), src, idx)
    e = ei.value
    assert (e.rule, e.operand, e.instruction, e.code) == (
        "index-shape-row",
        "idx",
        "MSCATTER",
        "PTO101",
    )
    assert "MSCATTER" in str(e) and "index-shape-row" in str(e) and "'idx'" in str(e)


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
@pytest.mark.parametrize("dt", ["float32", "half"])
def test_seed_row_embedding_scatter_clamp(dev_name, dt):
    R, C, rows = 8, 16, 32
    rng = np.random.default_rng(2)
    src = rng.standard_normal((R, C)).astype(D.dtype(dt).np)
    idx = np.array([3, 40, 7, -1, 31, 0, 12, 3], dtype=np.int32)  # 40, -1 clamp to 31
    table = rng.standard_normal((rows, C)).astype(D.dtype(dt).np)
    out, run, _ = scatter(dev_name, table, src, idx, oob="clamp", addrs=(0x0000, 0x1000))
    np.testing.assert_array_equal(out, ref_row(table, src, idx, rows, "clamp"))
    # rows 3 and 31 were written twice: the later source row wins on every target
    np.testing.assert_array_equal(out[3], src[7])
    np.testing.assert_array_equal(out[31], src[4])


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
@pytest.mark.parametrize("dt", ["float32", "int32"])
def test_seed_row_atomic_add_wrap(dev_name, dt):
    R, C, rows = 8, 8, 5
    rng = np.random.default_rng(3)
    npdt = D.dtype(dt).np
    src = (rng.integers(-50, 50, (R, C)) * (0.25 if dt == "float32" else 1)).astype(npdt)
    idx = np.array([0, 5, 12, -3, 4, 4, 9, 1], dtype=np.int32)
    table = rng.integers(-9, 9, (rows, C)).astype(npdt)
    out, run, _ = scatter(dev_name, table, src, idx, atomic="add", oob="wrap")
    expected = table.copy()
    for r in range(R):
        expected[int(u32(idx[r])) % rows] += src[r]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_seed_elem_sparse_update_skip(dev_name):
    R, C, size = 8, 32, 256
    rng = np.random.default_rng(4)
    src = rng.standard_normal((R, C)).astype(np.float32)
    idx = rng.integers(0, 400, (R, C)).astype(np.int32)  # some duplicates, ~1/3 skipped
    table = rng.standard_normal((1, size)).astype(np.float32)
    out, run, _ = scatter(
        dev_name, table, src, idx, coalesce="elem", oob="skip", addrs=(0x0000, 0x0800)
    )
    expected = ref_elem(table.reshape(-1), src, idx, size, "skip")
    np.testing.assert_array_equal(out.reshape(-1), expected)
    untouched = np.setdiff1d(np.arange(size), idx[idx < size])
    np.testing.assert_array_equal(out.reshape(-1)[untouched], table.reshape(-1)[untouched])


@pytest.mark.parametrize("dev_name", ["950pr"])
def test_seed_a5_conflict_last_colmajor_index(dev_name):
    R, C, rows = 8, 64, 4096  # the seed uses 65536 rows; fewer keeps the test fast
    rng = np.random.default_rng(5)
    src = rng.standard_normal((R, C)).astype(np.float16)
    idx = np.array([[7], [100], [7], [70000], [100], [4095], [5], [7]], dtype=np.int32)
    table = rng.standard_normal((rows, C)).astype(np.float16)
    out, run, dev = scatter(
        dev_name,
        table,
        src,
        idx,
        idx_layout="DN",
        oob="clamp",
        conflict="last",
        addrs=(0x0000, 0x1000),
    )
    expected = table.copy()
    for slot in range(rows):  # slot-centric: the largest source row targeting the slot wins
        winners = [r for r in range(R) if min(int(u32(idx[r, 0])), rows - 1) == slot]
        if winners:
            expected[slot] = src[max(winners)]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(out[7], src[7])
    np.testing.assert_array_equal(out[4095], src[5])  # 70000 clamps to 4095, row 5 is later
    assert run.findings == []
    assert mscatter_instr(run).is_simt(dev.arch)


def test_seed_conflict_parameter_does_not_exist_on_a2a3():
    with pytest.raises(pto.UnsupportedError) as ei:
        scatter(
            "a2",
            np.zeros((16, 8), np.float32),
            np.zeros((2, 8), np.float32),
            np.zeros(2, np.int32),
            conflict="last",
        )
    assert ei.value.code == "PTO102" and ei.value.rule == "conflict-param"
    assert ei.value.operand == "conflict"


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_seed_elem_1x1_degenerate(dev_name):
    table = np.arange(32, dtype=np.float32).reshape(1, 32)
    dev = pto.Device(dev_name)
    tbuf = dev.gm_array(table)
    sbuf = dev.gm_array(np.array([[42.5]], np.float32))
    ibuf = dev.gm_array(np.array([[17]], np.int32))
    s = pto.Tile("Vec", "float32", 1, 8, valid=(1, 1))
    i = pto.Tile("Vec", "int32", 1, 8, valid=(1, 1))

    @pto.kernel
    def k():
        pto.TASSIGN(s, 0x0000)
        pto.TASSIGN(i, 0x0080)
        pto.TLOAD(s, pto.GlobalTensor(sbuf, (1, 1, 1, 1, 1)))
        pto.TLOAD(i, pto.GlobalTensor(ibuf, (1, 1, 1, 1, 1)))
        pto.pipe_barrier(pto.PIPE_ALL)
        pto.MSCATTER(pto.GlobalTensor(tbuf, (1, 1, 1, 1, 32)), s, i, coalesce="elem")

    run = dev.run(k)
    expected = table.copy()
    expected[0, 17] = 42.5
    np.testing.assert_array_equal(tbuf.numpy(), expected)
    assert mscatter_instr(run).is_simt(dev.arch) is False  # scalar fallback / not a5


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_seed_dynamic_shape_elem_skip(dev_name):
    """Tile<1, 16, -1, -1> with valid (1, 9); table Shape<1,1,1,-1,-1>(3, 10), Stride(10, 1)."""
    rng = np.random.default_rng(6)
    src = rng.standard_normal((1, 9)).astype(np.float32)
    idx = np.array([[0, 29, 30, 13, 100, 7, -1, 13, 21]], np.int32)  # 30, 100, -1: skipped
    table = np.arange(30, dtype=np.float32).reshape(3, 10)
    out, run, dev = scatter(
        dev_name,
        table,
        src,
        idx,
        src_tile=(1, 16),
        idx_tile=(1, 16),
        dynamic=True,
        shape=(1, 1, 1, 3, 10),
        stride=(1, 1, 1, 10, 1),
        coalesce="elem",
        oob="skip",
    )
    expected = ref_elem(table.reshape(-1), src, idx, 30, "skip")
    np.testing.assert_array_equal(out.reshape(-1), expected)
    assert out.reshape(-1)[13] == src[0, 7]  # duplicate 13: the later source wins
    instr = mscatter_instr(run)
    assert not instr.src.static_valid
    assert instr.is_simt(dev.arch) == (TARGET[dev_name] == "a5")


# == OOB policies, capacities (D2-D4) ========================================================
@pytest.mark.parametrize("oob", ["skip", "clamp", "wrap"])
@pytest.mark.parametrize("mode", ["row", "elem"])
def test_policies_with_negative_and_huge_indices(device, oob, mode):
    rows, C = 6, 8
    rng = np.random.default_rng(7)
    table = rng.standard_normal((rows, C)).astype(np.float32)
    if mode == "row":
        src = rng.standard_normal((5, C)).astype(np.float32)
        idx = np.array([2, -1, 6, 2**31 - 1, -7], np.int32)
        cap = rows
        out, *_ = scatter(device.name, table, src, idx, oob=oob)
        expected = ref_row(table, src, idx, cap, oob, size_t=device.name == "cpu")
    else:
        src = rng.standard_normal((2, 8)).astype(np.float32)
        idx = np.array(
            [[0, -1, 47, 48, 49, -48, 5, 2**31 - 1], [100, 3, -2, 47, 11, 0, 64, -1]], np.int32
        )
        cap = rows * C
        out, *_ = scatter(device.name, table, src, idx, oob=oob, coalesce="elem")
        cpu = device.name == "cpu"
        expected = ref_elem(table.reshape(-1), src, idx, cap, oob, cpu).reshape(rows, C)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dev_name", NPU_DEVICES)
def test_negative_index_wrap_is_uint32_modulo(dev_name):
    """D2: -1 is 0xFFFFFFFF on the NPUs, so Wrap sends it to 4294967295 % cap (not cap - 1).
    (cpu converts through size_t: tests/isa/test_trust_semantics.py.)"""
    table = np.zeros((7, 8), np.float32)
    src = np.full((1, 8), 5.0, np.float32)
    out, *_ = scatter(dev_name, table, src, np.array([-1], np.int32), oob="wrap")
    row = (2**32 - 1) % 7
    assert row == 3
    assert (out[row] == 5).all() and np.count_nonzero(out) == 8


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_uint32_index_tile(dev_name):
    table = np.zeros((1, 64), np.int16)
    src = np.arange(1, 17, dtype=np.int16).reshape(1, 16)
    idx = np.array(
        [0, 63, 64, 2**32 - 1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21], dtype=np.uint32
    ).reshape(1, 16)
    out, *_ = scatter(dev_name, table, src, idx, idx_dt="uint32", coalesce="elem", oob="clamp")
    np.testing.assert_array_equal(
        out.reshape(-1), ref_elem(table.reshape(-1), src, idx, 64, "clamp")
    )
    assert out[0, 63] == 4  # 64 and 0xFFFFFFFF clamp to 63; the last of them is src 4


@pytest.mark.parametrize("oob", ["undefined", "skip", "clamp", "wrap"])
@pytest.mark.parametrize(
    "dev_name,mode",
    [("cpu", "row"), ("a2", "row"), ("cpu", "elem"), ("a2", "elem"), ("950pr", "elem")],
)
def test_empty_table_writes_nothing(dev_name, mode, oob):
    """D4: capacity 0 scatters nothing under any policy (no wrap by zero, no clamp to -1)."""
    buf = np.arange(32, dtype=np.float32).reshape(4, 8)
    src = np.ones((2, 8), np.float32)
    idx = np.array([0, 5], np.int32) if mode == "row" else np.zeros((2, 8), np.int32)
    out, run, _ = scatter(dev_name, buf, src, idx, shape=(1, 1, 1, 0, 8), coalesce=mode, oob=oob)
    np.testing.assert_array_equal(out, buf)


def test_a5_row_empty_table_is_rejected():
    with pytest.raises(pto.ConstraintError) as ei:
        scatter(
            "950pr",
            np.zeros((4, 8), np.float32),
            np.ones((2, 8), np.float32),
            np.zeros(2, np.int32),
            shape=(1, 1, 1, 0, 8),
        )
    assert ei.value.rule == "table-rows" and ei.value.operand == "table"


@pytest.mark.parametrize("dev_name,expected_row", [("cpu", 1), ("a2", 5), ("950pr", 1)])
def test_row_capacity_differs_per_target(dev_name, expected_row):
    """D3: a2a3 Row capacity is shape0*..*shape3 (8 here), cpu/a5 use shape[3] (4)."""
    shape = (1, 1, 2, 4, 8)
    if dev_name == "cpu":
        shape = (1, 1, 1, 4, 8)  # the cpu table must be <1, 1, 1, Rows, Width>
    buf = np.zeros((8, 8), np.float32)
    src = np.full((1, 8), 3.0, np.float32)
    out, *_ = scatter(dev_name, buf, src, np.array([5], np.int32), shape=shape, oob="wrap")
    assert (out[expected_row] == 3).all() and np.count_nonzero(out) == 8


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_row_pitch_per_target(dev_name):
    """D3: cpu/a2a3 address row k at k*stride[3]; a5 at k*validCols (packed)."""
    buf = np.zeros((4, 16), np.float32)
    src = np.array([[1, 2, 3, 4, 5, 6, 7, 8]], np.float32)
    out, *_ = scatter(
        dev_name,
        buf,
        src,
        np.array([2], np.int32),
        shape=(1, 1, 1, 4, 8),
        stride=(64, 64, 64, 16, 1),
    )
    flat = out.reshape(-1)
    start = 2 * (8 if TARGET[dev_name] == "a5" else 16)
    np.testing.assert_array_equal(flat[start : start + 8], src[0])
    assert np.count_nonzero(flat) == 8


@pytest.mark.parametrize("dev_name", ["cpu", "a2"])
def test_row_column_step(dev_name):
    """cpu steps columns by stride[4]; the a2a3 row DMA writes C contiguous elements."""
    buf = np.zeros((4, 16), np.float32)
    src = np.arange(1, 9, dtype=np.float32).reshape(1, 8)
    out, *_ = scatter(
        dev_name,
        buf,
        src,
        np.array([1], np.int32),
        shape=(1, 1, 1, 4, 8),
        stride=(64, 64, 64, 16, 2),
    )
    flat = out.reshape(-1)
    step = 2 if dev_name == "cpu" else 1
    np.testing.assert_array_equal(flat[16 : 16 + 8 * step : step], src[0])
    assert np.count_nonzero(flat) == 8


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_view_offset_is_honoured(dev_name):
    buf = np.zeros((5, 8), np.float32)
    src = np.ones((1, 8), np.float32)
    out, *_ = scatter(dev_name, buf, src, np.array([1], np.int32), shape=(1, 1, 1, 4, 8), offset=8)
    assert (out[2] == 1).all() and np.count_nonzero(out) == 8


@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_elem_index_is_the_raw_element_offset(dev_name):
    """Elem addresses the table's raw element pointer table_ptr[k] (capacity = product of the
    shape), not the 5-D view walked through its strides (issue 10, item 1)."""
    buf = np.zeros((4, 16), np.float32)
    src = np.array([[1, 2, 3, 4, 5, 6, 7, 8]], np.float32)
    idx = np.array([[0, 9, 31, 8, 15, 16, 23, 24]], np.int32)
    out, *_ = scatter(
        dev_name, buf, src, idx, shape=(1, 1, 1, 4, 8), stride=(64, 64, 64, 16, 1), coalesce="elem"
    )
    expected = np.zeros(64, np.float32)
    for v, k in zip(src[0], idx[0]):
        expected[k] = v
    expected = expected.reshape(4, 16)
    np.testing.assert_array_equal(out, expected)


def test_cpu_row_index_rowmajor_rx1_in_wider_tile_rejected():
    """The CPU simulator reads a Row index linearly (idx.data[r]); a RowMajor [R, 1] index in an
    8-column tile would read row 0's columns, so cpu rejects it (issue 10, item 3)."""
    src = np.ones((4, 8), np.float32)
    idx = np.array([[6], [1], [3], [0]], np.int32)
    with pytest.raises(pto.ConstraintError) as ei:
        scatter("cpu", np.zeros((8, 8), np.float32), src, idx, idx_tile=(4, 8))
    assert ei.value.rule == "index-layout-row"


def test_a5_colmajor_source_and_index():
    rng = np.random.default_rng(9)
    src = rng.standard_normal((8, 8)).astype(np.float32)
    idx = rng.permutation(64).reshape(8, 8).astype(np.int32)
    table = np.zeros((8, 8), np.float32)
    out, *_ = scatter("950pr", table, src, idx, src_layout="DN", idx_layout="DN", coalesce="elem")
    expected = np.zeros(64, np.float32)
    expected[idx.reshape(-1)] = src.reshape(-1)
    np.testing.assert_array_equal(out.reshape(-1), expected)
    out, *_ = scatter(
        "950pr",
        table,
        src,
        np.array([[3], [1], [0], [7], [2], [6], [5], [4]], np.int32),
        src_layout="DN",
        idx_layout="DN",
    )
    np.testing.assert_array_equal(out[[3, 1, 0, 7, 2, 6, 5, 4]], src)


# == dtype families: bit-exact moves =========================================================
@pytest.mark.parametrize("dev_name", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("mode", ["row", "elem"])
def test_every_dtype_moves_bits(dev_name, mode):
    rng = np.random.default_rng(10)
    for dt in DTYPES[TARGET[dev_name]]:
        c = 32 // D.dtype(dt).size_bytes
        src = rand_bits(rng, dt, (4, c))
        table = rand_bits(rng, dt, (8, c))
        if mode == "row":
            idx = np.array([5, 0, 7, 2], np.int32)
            expected = bits(table).copy()
            expected[idx] = bits(src)
        else:
            idx = rng.permutation(8 * c)[: 4 * c].reshape(4, c).astype(np.int32)
            expected = bits(table).reshape(-1).copy()
            expected[idx.reshape(-1)] = bits(src).reshape(-1)
            expected = expected.reshape(8, c)
        gm_in = table.view(np.uint8) if dt == "hifloat8" else table
        src_in = src.view(np.uint8) if dt == "hifloat8" else src
        out, *_ = scatter(dev_name, gm_in, src_in, idx, dt=dt, coalesce=mode)
        np.testing.assert_array_equal(bits(out), expected, err_msg=dt)


# == a2a3 NZ ====================================================================================
NZ_SHAPES = [(1, 2, 2, 16, 8), (2, 1, 2, 16, 8)]  # logical 32 x 16 float32, both nz branches


@pytest.mark.parametrize("dev_name", ["a2"])
@pytest.mark.parametrize("shape", NZ_SHAPES)
def test_a2a3_nz_row(dev_name, shape):
    rng = np.random.default_rng(11)
    L, W = 32, 16
    table = rng.standard_normal((L, W)).astype(np.float32)
    src = rng.standard_normal((16, 16)).astype(np.float32)
    idx = np.array([[31, 0, 17, 5, 40, 16, 3, 5, 9, 10, 11, 12, 13, 14, 15, 2]], np.int32)
    out, *_ = scatter(
        dev_name,
        to_nz(table, 8),
        src,
        idx,
        shape=shape,
        layout="NZ",
        src_layout="NZ",
        src_valid=(6, 16),
        idx_valid=(1, 6),
        oob="skip",
    )
    expected = ref_row(table, src[:6], idx[0, :6], L, "skip")
    np.testing.assert_array_equal(out, to_nz(expected, 8).reshape(out.shape))


def test_a2a3_nz_row_writes_whole_table_row():
    """The NZ row DMA moves gShape0*gShape1*C0 columns even when src ValidCol is smaller."""
    rng = np.random.default_rng(12)
    table = np.zeros((32, 16), np.float32)
    src = rng.standard_normal((16, 16)).astype(np.float32)
    idx = np.array([[4, 9] + [0] * 14], np.int32)
    out, *_ = scatter(
        "a2",
        to_nz(table, 8),
        src,
        idx,
        shape=(1, 2, 2, 16, 8),
        layout="NZ",
        src_layout="NZ",
        src_valid=(2, 8),
        idx_valid=(1, 2),
    )
    expected = table.copy()
    expected[4], expected[9] = src[0], src[1]  # all 16 columns, incl. the non-valid 8..15
    np.testing.assert_array_equal(out, to_nz(expected, 8).reshape(out.shape))


@pytest.mark.parametrize(
    "dt,shape",
    [
        ("float32", (1, 2, 2, 16, 8)),
        ("float32", (2, 1, 2, 16, 8)),
        ("half", (1, 2, 2, 16, 16)),
        ("half", (2, 1, 2, 16, 16)),
    ],
)
def test_a2a3_nz_elem(dt, shape):
    rng = np.random.default_rng(13)
    c0 = shape[4]
    L, W = 32, shape[0] * shape[1] * c0
    npdt = D.dtype(dt).np
    table = rng.standard_normal((L, W)).astype(npdt)
    src = rng.standard_normal((16, 16)).astype(npdt)
    idx = rng.permutation(L * W + 100)[:256].reshape(16, 16).astype(np.int32)  # some OOB
    out, *_ = scatter(
        "a2",
        to_nz(table, c0),
        src,
        idx,
        shape=shape,
        layout="NZ",
        src_layout="NZ",
        coalesce="elem",
        oob="skip",
    )
    expected = ref_elem(table.reshape(-1), src, idx, L * W, "skip").reshape(L, W)
    np.testing.assert_array_equal(out, to_nz(expected, c0).reshape(out.shape))


def test_a2a3_nz_elem_duplicates_follow_the_block_column_walk():
    """NZ Elem walks block column -> row -> column: (0, 8) (block 1) is written after (1, 0)."""
    table = np.zeros((32, 16), np.float32)
    src = np.arange(256, dtype=np.float32).reshape(16, 16) + 1
    idx = (np.arange(256, dtype=np.int32) + 256).reshape(16, 16)  # distinct, rows 16..31
    idx[0, 8] = idx[1, 0] = 7
    out, *_ = scatter(
        "a2",
        to_nz(table, 8),
        src,
        idx,
        shape=(1, 2, 2, 16, 8),
        layout="NZ",
        src_layout="NZ",
        coalesce="elem",
    )
    logical = out.reshape(2, 2, 16, 8).transpose(1, 2, 0, 3).reshape(32, 16)
    assert logical[0, 7] == src[0, 8]
    # the ND kernel (row-major walk) keeps the other one
    out_nd, *_ = scatter("a2", table, src, idx, coalesce="elem")
    assert out_nd[0, 7] == src[1, 0]


# == duplicates (D6) ==========================================================================
@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
def test_duplicates_last_writer_wins(dev_name):
    src = np.arange(32, dtype=np.float32).reshape(4, 8)
    out, run, _ = scatter(
        dev_name, np.zeros((8, 8), np.float32), src, np.array([2, 2, 5, 2], np.int32)
    )
    np.testing.assert_array_equal(out[2], src[3])
    idx = np.array([[1, 9, 1, 3, 4, 5, 6, 7], [0, 9, 10, 11, 12, 13, 14, 1]], np.int32)
    src2 = np.arange(16, dtype=np.float32).reshape(2, 8) + 1
    out, run, _ = scatter(dev_name, np.zeros((1, 16), np.float32), src2, idx, coalesce="elem")
    assert out[0, 1] == src2[1, 7] and out[0, 9] == src2[1, 1]
    assert run.findings == []  # cpu/a2a3 are sequential, a5 defaults to Conflict::Last


@pytest.mark.parametrize("mode", ["row", "elem"])
def test_a5_default_conflict_reports_collisions(mode):
    src = np.arange(32, dtype=np.float32).reshape(4, 8) + 1
    if mode == "row":
        idx = np.array([6, 1, 6, 50], np.int32)
        out, run, _ = scatter(
            "950pr", np.zeros((8, 8), np.float32), src, idx, oob="skip", conflict="default"
        )
        np.testing.assert_array_equal(out[6], src[2])  # modelled schedule: later row lands last
        words = ("table row 6", "row 0", "row 2", "kept row 2")
    else:
        idx = np.arange(32, dtype=np.int32).reshape(4, 8)
        idx[3, 7] = idx[0, 2] = 20
        out, run, _ = scatter(
            "950pr", np.zeros((1, 64), np.float32), src, idx, coalesce="elem", conflict="default"
        )
        assert out[0, 20] == src[3, 7]
        words = ("table element 20", "(0, 2)", "(2, 4)", "(3, 7)", "kept (3, 7)")
    assert len(run.findings) == 1
    f = run.findings[0]
    assert f.code == "F103" and f.kind == "scatter-collision"
    assert all(w in f.message for w in words), f.message
    assert "ScatterConflict::Last" in f.message and "MSCATTER" in f.message


@pytest.mark.parametrize(
    "conflict,atomic,idx",
    [
        ("default", "none", [0, 1, 2, 3]),  # collision-free: Default == Last, nothing to report
        ("default", "add", [1, 1, 1, 1]),  # atomics ignore the conflict policy
        ("last", "none", [1, 1, 1, 1]),
        ("default", "none", [1, 9, 9, 9]),  # skipped writes do not collide
    ],
)
def test_a5_no_collision_finding(conflict, atomic, idx):
    src = np.ones((4, 8), np.float32)
    oob = "skip"
    _, run, _ = scatter(
        "950pr",
        np.zeros((8, 8), np.float32),
        src,
        np.array(idx, np.int32),
        conflict=conflict,
        atomic=atomic,
        oob=oob,
    )
    assert run.findings == []


def test_cpu_explicit_conflicts_are_last_writer():
    src = np.arange(16, dtype=np.float32).reshape(2, 8)
    for conflict in ("last", "default"):
        out, run, _ = scatter(
            "cpu", np.zeros((4, 8), np.float32), src, np.array([3, 3], np.int32), conflict=conflict
        )
        np.testing.assert_array_equal(out[3], src[1])
        assert run.findings == []


def test_default_conflict_order_models_the_launch_mapping():
    from ptosim.isa.scatter import default_conflict_order

    # Elem: i = iteration*32W + ty*32 + tx, so (iteration, warp, lane) order is i ascending
    for R, C in ((1, 1), (8, 32), (40, 64), (3, 5)):
        total = R * C
        W = min(max(-(-total // 32), 1), 32)
        i = np.arange(total)
        key = (i // (32 * W)) * 10**6 + ((i % (32 * W)) // 32) * 100 + i % 32
        np.testing.assert_array_equal(
            default_conflict_order(Coalesce.Elem, R, C), np.argsort(key, kind="stable")
        )
    # Row: later row iteration (r // rowWarps) wins, then the higher warp (r % rowWarps)
    for R in (1, 5, 32, 70):
        rw = min(R, 32)
        r = np.arange(R)
        order = default_conflict_order(Coalesce.Row, R, 64)
        np.testing.assert_array_equal(order, np.argsort((r // rw) * 100 + r % rw, kind="stable"))


# == atomics (D11, D12) =======================================================================
def _seq_add(dt_name: str, start, values):
    """Sequential D12 accumulation, written independently with Python scalars."""
    dt = D.dtype(dt_name)
    acc = start
    for v in values:
        if dt_name == "bfloat16":
            acc = ml_dtypes.bfloat16(np.float32(acc) + np.float32(v))
        elif dt_name == "half":
            acc = np.float16(np.float32(acc) + np.float32(v))
        elif dt_name == "float32":
            acc = np.float32(np.float32(acc) + np.float32(v))
        else:
            nbits = dt.size_bytes * 8
            total = int(acc) + int(v)
            if dt.kind == "int":
                total = (total + 2 ** (nbits - 1)) % 2**nbits - 2 ** (nbits - 1)
            else:
                total %= 2**nbits
            acc = dt.np.type(total)
    return acc


@pytest.mark.parametrize("dev_name", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize(
    "dt,start,step",
    [("bfloat16", 256.0, 1.0), ("half", 2048.0, 1.0), ("bfloat16", 1.0, 0.00390625)],
)
def test_atomic_add_rounds_each_step(dev_name, dt, start, step):
    """D12: every add rounds to the element type (RNE), so 256 + 1 stays 256 in bfloat16."""
    npdt = D.dtype(dt).np
    src = np.full((4, 16), step, npdt)
    idx = np.full((4, 16), 3, np.int32)
    table = np.zeros((1, 16), npdt)
    table[0, 3] = start
    out, *_ = scatter(dev_name, table, src, idx, coalesce="elem", atomic="add")
    expected = _seq_add(dt, npdt.type(start), [step] * 64)
    assert bits(out)[0, 3] == bits(np.array([expected], npdt))[0]
    assert float(expected) != start + 64 * step  # rounding per step is visible
    # np.add.at on the typed array applies the same per-step rounding
    ref = table.copy()
    np.add.at(ref.reshape(-1), idx.reshape(-1), src.reshape(-1))
    np.testing.assert_array_equal(bits(out), bits(ref))


@pytest.mark.parametrize(
    "dev_name,dt",
    [
        ("a2", "int8"),
        ("a2", "int16"),
        ("cpu", "int8"),
        ("cpu", "uint8"),
        ("cpu", "uint16"),
        ("950pr", "uint32"),
        ("a2", "int32"),
    ],
)
def test_atomic_add_integers_wrap(dev_name, dt):
    npdt = D.dtype(dt).np
    info = np.iinfo(npdt)
    c = 32 // npdt.itemsize
    src = np.full((3, c), info.max // 2 + 3, npdt)
    table = np.full((2, c), info.max - 5, npdt)
    out, *_ = scatter(dev_name, table, src, np.array([1, 1, 1], np.int32), atomic="add")
    for col in range(c):
        assert out[1, col] == _seq_add(dt, table[1, col], src[:, col])
    np.testing.assert_array_equal(out[0], table[0])


@pytest.mark.parametrize("dev_name", ["cpu", "950pr"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_atomic_max_min_elem_with_nan(dev_name, op):
    src = np.array([[5, 1, np.nan, -2, 7, 3, 0, 9]], np.float32)
    idx = np.array([[0, 0, 1, 2, 2, 3, 4, 5]], np.int32)
    table = np.array([[4, 4, 4, 4, 4, 4, 4, 4]], np.float32)
    out, *_ = scatter(dev_name, table, src, idx, coalesce="elem", atomic=op)
    if dev_name == "cpu":  # std::max(table, src) / std::min(table, src): NaN src never lands
        f = (lambda a, b: b if a < b else a) if op == "max" else (lambda a, b: b if b < a else a)
    else:  # NPU: NaN propagates
        f = np.maximum if op == "max" else np.minimum
    expected = table.copy()
    for c in range(8):
        expected[0, idx[0, c]] = f(expected[0, idx[0, c]], src[0, c])
    np.testing.assert_array_equal(out, expected)
    assert np.isnan(out[0, 1]) == (dev_name != "cpu")


@pytest.mark.parametrize("dev_name", ["cpu", "950pr"])
def test_atomic_max_row_compares_addressed_element(dev_name):
    """D11: cpu Row Max compares against table[k*stride3 + j], not table[k]."""
    table = np.zeros((4, 8), np.int32)
    table[0] = 100  # table[k] for small k lies in row 0 (the reference bug would read these)
    table[2] = np.arange(8) * 2
    src = np.array([[5, 5, 5, 5, 5, 5, 5, 5], [1, 20, 1, 20, 1, 20, 1, 20]], np.int32)
    out, *_ = scatter(dev_name, table, src, np.array([2, 2], np.int32), atomic="max")
    np.testing.assert_array_equal(out[2], np.maximum(np.maximum(table[2], src[0]), src[1]))
    np.testing.assert_array_equal(out[0], table[0])


@pytest.mark.parametrize("op", ["add", "max", "min"])
def test_cpu_atomics_on_float8(op):
    src = np.array([[0.5, 1.5, 2.0, -1.0] * 8], ml_dtypes.float8_e4m3fn)
    idx = np.array([[0, 0, 1, 1] * 8], np.int32)
    table = np.ones((1, 32), ml_dtypes.float8_e4m3fn)
    out, *_ = scatter("cpu", table, src, idx, coalesce="elem", atomic=op)
    expected = table.copy().reshape(-1)
    for v, k in zip(src.reshape(-1), idx.reshape(-1)):
        a, b = np.float32(expected[k]), np.float32(v)
        r = a + b if op == "add" else (max(a, b) if op == "max" else min(a, b))
        expected[k] = ml_dtypes.float8_e4m3fn(r)
    np.testing.assert_array_equal(bits(out.reshape(-1)), bits(expected))


# == errors ==================================================================================
@pytest.mark.parametrize("dev_name", ONE_PER_TARGET)
@pytest.mark.parametrize("mode", ["row", "elem"])
def test_undefined_out_of_range_raises_and_leaves_gm_unchanged(dev_name, mode):
    table = np.arange(64, dtype=np.float32).reshape(8, 8)
    src = np.full((2, 8), -5.0, np.float32)
    if mode == "row":
        idx = np.array([1, 8], np.int32)  # row 1 would be valid, row 8 is not
    else:
        idx = np.arange(16, dtype=np.int32).reshape(2, 8)
        idx[1, 7] = 64
    dev = pto.Device(dev_name)
    with pytest.raises(pto.OutOfBoundsError) as ei:
        scatter(dev_name, table, src, idx, coalesce=mode, dev=dev)
    msg = str(ei.value)
    assert ei.value.code == "PTO202"
    assert "MSCATTER" in msg and "not below the table capacity" in msg
    np.testing.assert_array_equal(dev.gm.buffers[0].numpy(), table)


@pytest.mark.parametrize("dev_name", ["cpu", "a2"])
def test_write_past_the_gm_buffer_raises_before_writing(dev_name):
    """A Row write running past the buffer (C > table width on the last row) is caught by the
    bounds check before any row is written."""
    table = np.zeros((4, 8), np.float32)
    src = np.ones((2, 16), np.float32)
    dev = pto.Device(dev_name)
    tbuf = dev.gm_array(table)
    sbuf, ibuf = dev.gm_array(src), dev.gm_array(np.array([[0, 3]], np.int32))
    s = pto.Tile("Vec", "float32", 2, 16)
    i = pto.Tile("Vec", "int32", 1, 8, valid=(1, 2))

    @pto.kernel
    def k():
        pto.TLOAD(s, pto.GlobalTensor(sbuf, (1, 1, 1, 2, 16)))
        pto.TLOAD(i, pto.GlobalTensor(ibuf, (1, 1, 1, 1, 2)))
        pto.pipe_barrier(pto.PIPE_ALL)
        pto.MSCATTER(pto.GlobalTensor(tbuf, (1, 1, 1, 4, 8)), s, i)

    with pytest.raises(pto.OutOfBoundsError) as ei:
        dev.run(k)
    assert "table" in str(ei.value)
    np.testing.assert_array_equal(tbuf.numpy(), table)


def test_unknown_policy_names_are_kernel_errors():
    with pytest.raises(pto.KernelError, match="ScatterOOB"):
        scatter(
            "cpu",
            np.zeros((4, 8), np.float32),
            np.ones((1, 8), np.float32),
            np.zeros(1, np.int32),
            oob="zero",
        )
    with pytest.raises(pto.KernelError, match="ScatterAtomicOp"):
        scatter(
            "cpu",
            np.zeros((4, 8), np.float32),
            np.ones((1, 8), np.float32),
            np.zeros(1, np.int32),
            atomic="mul",
        )


def test_opcode_pipe_and_operands():
    _, run, _ = scatter(
        "cpu",
        np.zeros((4, 8), np.float32),
        np.ones((1, 8), np.float32),
        np.zeros(1, np.int32),
        atomic="add",
    )
    instr = mscatter_instr(run)
    assert instr.opcode == "MSCATTER" and instr.nominal_pipe is pto.PIPE_V
    assert set(instr.gm_operands()) == {"table"} and set(instr.tile_operands()) == {"src", "idx"}
    assert "table" in instr.reads  # atomic read-modify-write


@pytest.mark.parametrize(
    "dev_name,expected",
    [("cpu", ScatterConflict.Default), ("a2", None), ("950pr", ScatterConflict.Last)],
)
def test_effective_conflict_defaults(dev_name, expected):
    _, run, dev = scatter(
        dev_name, np.zeros((4, 8), np.float32), np.ones((1, 8), np.float32), np.zeros(1, np.int32)
    )
    assert mscatter_instr(run).effective_conflict(dev.arch) is expected


def test_a5_dynamic_empty_source_writes_nothing():
    table = np.arange(32, dtype=np.float32).reshape(4, 8)
    out, run, dev = scatter(
        "950pr",
        table,
        np.ones((2, 8), np.float32),
        np.zeros(2, np.int32),
        src_valid=(0, 8),
        idx_valid=(1, 0),
    )
    np.testing.assert_array_equal(out, table)
    assert mscatter_instr(run).is_simt(dev.arch)


# == constraints ==============================================================================
def _ref(tile: pto.Tile) -> TileRef:
    return tile.ref()


def _bad_ref(dt, rows, cols, blayout, slayout="NoneBox", valid=None) -> TileRef:
    """A TileRef whose geometry the Tile constructor would refuse (to reach defensive rules)."""
    geom = TileGeom(
        pto.TileType.Vec,
        D.dtype(dt),
        rows,
        cols,
        pto.BLayout.parse(blayout),
        pto.SLayout.parse(slayout),
        512,
    )
    vr, vc = valid or (rows, cols)
    return TileRef(geom, vr, vc, True, PadValue.Null, Placement(0, False), "bad", -1)


def check(
    dev_name,
    *,
    table=None,
    src=None,
    idx=None,
    mode="row",
    atomic="none",
    oob="undefined",
    conflict=None,
    rule=None,
    operand=None,
    cls=pto.ConstraintError,
):
    """Validate one MSCATTER directly; with ``rule`` expect that constraint error."""
    from ptosim.isa.scatter import MScatter

    dev = pto.Device(dev_name)
    buf = dev.gm_zeros((4096,), "float32")
    table = table if table is not None else pto.GlobalTensor(buf, (1, 1, 1, 16, 8))
    src = src if src is not None else pto.Tile("Vec", "float32", 4, 8)
    idx = idx if idx is not None else pto.Tile("Vec", "int32", 1, 8, valid=(1, 4))
    instr = MScatter(
        table.ref(),
        src if isinstance(src, TileRef) else src.ref(),
        idx if isinstance(idx, TileRef) else idx.ref(),
        Coalesce.parse(mode),
        ScatterAtomicOp.parse(atomic),
        ScatterOOB.parse(oob),
        None if conflict is None else ScatterConflict.parse(conflict),
    )
    if rule is None:
        instr.check(dev.arch)
        return instr
    with pytest.raises(cls) as ei:
        instr.check(dev.arch)
    e = ei.value
    assert type(e) is cls, type(e)
    assert e.rule == rule and e.instruction == "MSCATTER", (e.rule, str(e))
    if operand:
        assert e.operand == operand
    msg = str(e)
    assert "MSCATTER" in msg and f"'{e.operand}'" in msg and f"'{rule}'" in msg
    assert "expected" in msg and "given" in msg
    return e


def _gm(dt="float32", shape=(1, 1, 1, 16, 8), layout="ND", stride=None, n=4096):
    dev = pto.Device("cpu")
    return pto.GlobalTensor(dev.gm_zeros((n,), dt), shape, stride=stride, layout=layout)


def test_valid_defaults_pass_everywhere():
    for dev_name in ONE_PER_TARGET:
        check(dev_name)
        check(dev_name, idx=pto.Tile("Vec", "int32", 4, 8), mode="elem")


def test_rule_tile_location():
    check(
        "cpu",
        src=pto.Tile("Mat", "float32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
        rule="tile-location",
        operand="src",
    )
    check(
        "a2",
        idx=pto.Tile("Mat", "int32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
        rule="tile-location",
        operand="idx",
    )


@pytest.mark.parametrize("dev_name", ["cpu", "a2", "950pr"])
def test_rule_dtype_lists(dev_name):
    allowed = set(DTYPES[TARGET[dev_name]])
    for dt in [d.name for d in D.ALL]:
        c = 32 // D.dtype(dt).size_bytes
        src = pto.Tile("Vec", dt, 4, c)
        table = _gm(dt, (1, 1, 1, 16, c))
        if dt in allowed:
            check(dev_name, src=src, table=table)
        else:
            check(dev_name, src=src, table=table, rule="dtype", operand="src")


@pytest.mark.parametrize("dev_name", ["cpu", "a2", "950pr"])
def test_rule_index_dtype(dev_name):
    check(dev_name, idx=pto.Tile("Vec", "uint32", 1, 8, valid=(1, 4)))
    for dt in ("int16", "int64", "float32"):
        c = 32 // D.dtype(dt).size_bytes
        check(
            dev_name, idx=pto.Tile("Vec", dt, 1, c, valid=(1, 4)), rule="index-dtype", operand="idx"
        )


def test_rule_same_dtype():
    check("a2", table=_gm("half", (1, 1, 1, 16, 8)), rule="same-dtype", operand="table")


def test_rule_src_layout():
    check(
        "cpu",
        src=pto.Tile("Vec", "float32", 8, 8, blayout="ColMajor"),
        rule="src-layout",
        operand="src",
    )
    check(
        "950pr",
        src=pto.Tile("Vec", "float32", 16, 8, blayout="ColMajor", slayout="RowMajor", valid=(4, 8)),
        rule="src-layout",
        operand="src",
    )


def test_rule_index_layout():
    col = pto.Tile("Vec", "int32", 8, 8, blayout="ColMajor", valid=(1, 4))
    check("cpu", idx=col, rule="index-layout-row", operand="idx")  # read linearly on cpu
    check("cpu", idx=col, mode="elem", rule="index-layout", operand="idx")
    check("a2", idx=col, rule="index-layout", operand="idx")
    boxed_cpu = pto.Tile(
        "Vec", "int32", 16, 8, blayout="ColMajor", slayout="RowMajor", valid=(1, 4)
    )
    check("cpu", idx=boxed_cpu, rule="index-layout", operand="idx")
    boxed = pto.Tile("Vec", "int32", 16, 8, blayout="ColMajor", slayout="RowMajor", valid=(1, 4))
    check("950pr", idx=boxed, rule="index-layout", operand="idx")


def test_rule_table_layout():
    check("cpu", table=_gm(layout="DN"), rule="table-layout", operand="table")
    check("a2", table=_gm(layout="DN"), rule="table-layout", operand="table")
    check("950pr", table=_gm(layout="DN"), rule="table-layout", operand="table")
    check(
        "950pr",
        table=_gm(shape=(1, 2, 1, 16, 8), layout="NZ"),
        rule="table-layout",
        operand="table",
        cls=pto.UnsupportedError,
    )


def test_rule_layout_pairing():
    nz_src = pto.Tile("Vec", "float32", 16, 8, blayout="ColMajor", slayout="RowMajor", valid=(4, 8))
    check("a2", src=nz_src, rule="layout-pairing", operand="src")
    check(
        "a2", table=_gm(shape=(1, 1, 1, 16, 8), layout="NZ"), rule="layout-pairing", operand="src"
    )
    check("a2", table=_gm(shape=(1, 1, 1, 16, 8), layout="NZ"), src=nz_src)


def test_rule_nz_shapes():
    nz_src = pto.Tile("Vec", "float32", 16, 8, blayout="ColMajor", slayout="RowMajor", valid=(4, 8))
    check(
        "a2",
        table=_gm(shape=(1, 1, 2, 8, 8), layout="NZ"),
        src=nz_src,
        rule="nz-shape",
        operand="table",
    )
    check(
        "a2",
        table=_gm(shape=(1, 1, 1, 16, 16), layout="NZ"),
        src=nz_src,
        rule="nz-shape",
        operand="table",
    )
    short = pto.Tile("Vec", "float32", 8, 8, blayout="ColMajor", slayout="RowMajor", valid=(4, 8))
    check(
        "a2",
        table=_gm(shape=(1, 1, 1, 16, 8), layout="NZ"),
        src=short,
        rule="nz-src-rows",
        operand="src",
    )
    narrow = _bad_ref("float32", 16, 4, "ColMajor", "RowMajor", valid=(4, 4))
    check(
        "a2",
        table=_gm(shape=(1, 1, 1, 16, 8), layout="NZ"),
        src=narrow,
        rule="nz-src-cols",
        operand="src",
    )


def test_rule_nz_table_cols():
    nz_src = pto.Tile("Vec", "float32", 16, 8, blayout="ColMajor", slayout="RowMajor", valid=(4, 8))
    check(
        "a2",
        table=_gm(shape=(1, 2, 1, 16, 8), layout="NZ"),
        src=nz_src,
        rule="nz-table-cols",
        operand="table",
    )  # table row wider than the src tile
    wide = pto.Tile("Vec", "float32", 16, 16, blayout="ColMajor", slayout="RowMajor", valid=(4, 16))
    check(
        "a2",
        table=_gm(shape=(1, 1, 1, 16, 8), layout="NZ"),
        src=wide,
        rule="nz-table-cols",
        operand="table",
    )  # valid columns the DMA would drop
    check(
        "a2",
        table=_gm(shape=(1, 1, 1, 16, 8), layout="NZ"),
        src=wide,
        mode="elem",
        idx=pto.Tile("Vec", "int32", 4, 16),
    )  # Elem: no row DMA, no such rule


def test_rule_src_32B_aligned():
    """Unreachable through pto.Tile (it enforces the same rule); checked on raw refs."""
    for dev_name in ("cpu", "a2", "950pr"):
        check(
            dev_name,
            src=_bad_ref("float32", 4, 6, "RowMajor"),
            table=_gm(shape=(1, 1, 1, 16, 6)),
            rule="src-32B-aligned",
            operand="src",
        )
    check("950pr", src=_bad_ref("float32", 4, 8, "ColMajor"), rule="src-32B-aligned", operand="src")


@pytest.mark.parametrize("dev_name", ["cpu", "a2", "950pr"])
def test_rule_index_shape_row(dev_name):
    check(
        dev_name,
        idx=pto.Tile("Vec", "int32", 1, 8, valid=(1, 3)),
        rule="index-shape-row",
        operand="idx",
    )
    col = pto.Tile("Vec", "int32", 4, 8, valid=(4, 1))
    if dev_name == "a2":
        check(dev_name, idx=col, rule="index-shape-row", operand="idx")
    elif dev_name == "cpu":  # [R, 1] ColMajor (linear); RowMajor in a wider tile is not
        check(
            dev_name,
            src=pto.Tile("Vec", "float32", 8, 8, valid=(4, 8)),
            idx=pto.Tile("Vec", "int32", 8, 1, blayout="ColMajor", valid=(4, 1)),
        )
        check(dev_name, idx=col, rule="index-layout-row", operand="idx")
    else:
        check(dev_name, idx=pto.Tile("Vec", "int32", 8, 1, blayout="ColMajor", valid=(4, 1)))


@pytest.mark.parametrize("dev_name", ["cpu", "a2", "950pr"])
def test_rule_index_shape_elem(dev_name):
    check(
        dev_name,
        idx=pto.Tile("Vec", "int32", 4, 8, valid=(4, 7)),
        mode="elem",
        rule="index-shape-elem",
        operand="idx",
    )


def test_rule_a5_index_layout_row():
    check(
        "950pr",
        idx=pto.Tile("Vec", "int32", 4, 8, valid=(4, 1)),
        rule="index-layout-row",
        operand="idx",
    )
    check(
        "950pr",
        idx=pto.Tile("Vec", "int32", 8, 8, blayout="ColMajor", valid=(1, 4)),
        rule="index-layout-row",
        operand="idx",
    )
    one = pto.Tile("Vec", "float32", 1, 8)
    check(
        "950pr", src=one, idx=pto.Tile("Vec", "int32", 8, 8, blayout="ColMajor", valid=(1, 1))
    )  # R == 1: any layout reads idx[0]


def test_rule_cpu_index_rows():
    check(
        "cpu",
        idx=pto.Tile("Vec", "int32", 8, 8, valid=(4, 8)),
        mode="elem",
        rule="index-rows",
        operand="idx",
    )
    check(
        "cpu",
        idx=pto.Tile("Vec", "int32", 8, 1, blayout="ColMajor", valid=(4, 1)),
        rule="index-rows",
        operand="idx",
    )
    check("a2", idx=pto.Tile("Vec", "int32", 8, 8, valid=(4, 8)), mode="elem")  # cpu only


def test_rule_cpu_table_shape():
    check("cpu", table=_gm(shape=(1, 1, 2, 8, 8)), rule="table-shape", operand="table")
    check("a2", table=_gm(shape=(1, 1, 2, 8, 8)))


def test_rule_a5_table_row_width_rows_non_empty():
    check("950pr", table=_gm(shape=(1, 1, 1, 16, 16)), rule="table-row-width", operand="table")
    check(
        "950pr", table=_gm(shape=(1, 1, 1, 16, 16)), mode="elem", idx=pto.Tile("Vec", "int32", 4, 8)
    )  # Elem has no row-width rule
    check("cpu", table=_gm(shape=(1, 1, 1, 16, 16)))
    check("950pr", table=_gm(shape=(1, 1, 1, 0, 8)), rule="table-rows", operand="table")
    check(
        "950pr",
        src=pto.Tile("Vec", "float32", 4, 8, valid=(0, 8)),
        idx=pto.Tile("Vec", "int32", 1, 8, valid=(1, 0)),
        rule="non-empty",
        operand="src",
    )
    check(
        "950pr",
        src=pto.Tile("Vec", "float32", 4, 8, valid=(4, 0)),
        mode="elem",
        idx=pto.Tile("Vec", "int32", 4, 8, valid=(4, 0)),
        rule="non-empty",
    )


ATOMIC_OK = {
    ("a2", "add"): ["int8", "int16", "int32", "half", "bfloat16", "float32"],
    ("950pr", "add"): ["int32", "uint32", "float32", "half", "bfloat16"],
    ("950pr", "max"): ["int32", "uint32", "float32"],
    ("950pr", "min"): ["int32", "uint32", "float32"],
    ("cpu", "add"): DTYPES["cpu"],
    ("cpu", "max"): DTYPES["cpu"],
    ("cpu", "min"): DTYPES["cpu"],
}


@pytest.mark.parametrize("dev_name,op", list(ATOMIC_OK))
def test_rule_atomic_dtype(dev_name, op):
    for dt in DTYPES[TARGET[dev_name]]:
        c = 32 // D.dtype(dt).size_bytes
        kw = dict(src=pto.Tile("Vec", dt, 4, c), table=_gm(dt, (1, 1, 1, 16, c)), atomic=op)
        if dt in ATOMIC_OK[(dev_name, op)]:
            check(dev_name, **kw)
        else:
            check(dev_name, **kw, rule="atomic-dtype", operand="src")


@pytest.mark.parametrize("op", ["max", "min"])
def test_rule_a2a3_atomic_max_min_unsupported(op):
    check("a2", atomic=op, rule="atomic-op", operand="atomic", cls=pto.UnsupportedError)


def test_rule_cpu_conflict_last_with_atomic():
    e = check("cpu", atomic="add", conflict="last", rule="conflict-atomic", operand="conflict")
    assert "Conflict::Last cannot be used together with Atomic" in str(e)
    check("cpu", atomic="add", conflict="default")
    check("950pr", atomic="add", conflict="last")  # a5: atomics ignore the conflict policy


def test_rule_a2a3_conflict_param():
    for conflict in ("last", "default"):
        check(
            "a2",
            conflict=conflict,
            rule="conflict-param",
            operand="conflict",
            cls=pto.UnsupportedError,
        )


def test_constraint_error_through_the_api_names_position_and_source():
    with pytest.raises(pto.ConstraintError) as ei:
        scatter(
            "a2",
            np.zeros((16, 8), np.float32),
            np.zeros((2, 8), np.float32),
            np.zeros(2, np.int32),
            atomic="max",
        )
    e = ei.value
    assert e.position is not None and e.source and "test_mscatter.py" in e.source
    assert f"MSCATTER #{e.position}" in str(e)


def test_is_simt_per_target():
    assert check("950pr").is_simt(pto.Device("950pr").arch)
    assert not check("a2").is_simt(pto.Device("a2").arch)
    assert not check("cpu").is_simt(pto.Device("cpu").arch)
    one = dict(
        src=pto.Tile("Vec", "float32", 1, 8, valid=(1, 1)),
        idx=pto.Tile("Vec", "int32", 1, 8, valid=(1, 1)),
    )
    arch = pto.Device("950dt").arch
    assert not check("950dt", mode="elem", **one).is_simt(arch)  # static (1, 1) Elem: scalar
    assert check("950dt", mode="row", table=_gm(shape=(1, 1, 1, 16, 1)), **one).is_simt(arch)


# == hypothesis properties ====================================================================
def _mgather_ready() -> bool:
    dev = pto.Device("cpu")
    tbuf = dev.gm_zeros((4, 8), "float32")
    d = pto.Tile("Vec", "float32", 1, 8)
    i = pto.Tile("Vec", "int32", 1, 8, valid=(1, 1))

    @pto.kernel
    def k():
        pto.TEXPANDS(i, 0)
        pto.MGATHER(d, pto.GlobalTensor(tbuf, (1, 1, 1, 4, 8)), i)

    try:
        dev.run(k)
    except NotImplementedError:
        return False
    except ExecutionError as exc:
        if isinstance(exc.__cause__, NotImplementedError):
            return False
        raise
    return True


@given(data=st.data())
@settings(max_examples=20, deadline=None)
def _gather_after_scatter_property(data):
    dev_name = data.draw(st.sampled_from(["cpu", "a2", "950pr"]))
    mode = data.draw(st.sampled_from(["row", "elem"]))
    R = data.draw(st.integers(1, 6))
    C = 8 * data.draw(st.integers(1, 2))
    rows = data.draw(st.integers(R, 12))
    seed = data.draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    src = rng.standard_normal((R, C)).astype(np.float32)
    if mode == "row":
        idx = rng.permutation(rows)[:R].astype(np.int32).reshape(1, R)
    else:
        idx = rng.permutation(rows * C)[: R * C].astype(np.int32).reshape(R, C)
    dev = pto.Device(dev_name)
    tbuf = dev.gm_array(rng.standard_normal((rows, C)).astype(np.float32))
    sbuf, ibuf = dev.gm_array(src), dev.gm_array(idx)
    s = pto.Tile("Vec", "float32", R, C)
    d = pto.Tile("Vec", "float32", R, C)
    i = pto.Tile("Vec", "int32", *((1, 8) if mode == "row" else (R, C)), valid=idx.shape)

    @pto.kernel
    def k():
        pto.TLOAD(s, pto.GlobalTensor(sbuf, (1, 1, 1, R, C)))
        pto.TLOAD(i, pto.GlobalTensor(ibuf, (1, 1, 1) + idx.shape))
        g = pto.GlobalTensor(tbuf, (1, 1, 1, rows, C))
        pto.pipe_barrier(pto.PIPE_ALL)
        pto.MSCATTER(g, s, i, coalesce=mode)
        pto.pipe_barrier(pto.PIPE_ALL)  # the table rows land in GM before MGATHER reads them
        pto.MGATHER(d, g, i, coalesce=mode)

    run = dev.run(k)
    np.testing.assert_array_equal(run.tile(d), src)


def test_property_mgather_after_mscatter_is_identity():
    if not _mgather_ready():
        pytest.skip("ptosim.isa.gather.MGATHER still raises NotImplementedError")
    _gather_after_scatter_property()


@HSET
@given(data=st.data())
def test_property_atomic_add_matches_sequential_add_at(data):
    dev_name = data.draw(st.sampled_from(["cpu", "a2", "950pr"]))
    dt = data.draw(
        st.sampled_from(
            {
                "cpu": ["float32", "half", "bfloat16", "int8", "int32"],
                "a2": ["float32", "half", "bfloat16", "int8", "int16"],
                "950pr": ["float32", "half", "bfloat16", "uint32"],
            }[dev_name]
        )
    )
    npdt = D.dtype(dt).np
    c = 32 // npdt.itemsize
    R = data.draw(st.integers(1, 4))
    size = data.draw(st.integers(1, 3 * c))
    seed = data.draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    if D.dtype(dt).is_float:
        src = (rng.standard_normal((R, c)) * 100).astype(npdt)
        table = (rng.standard_normal((1, size)) * 1000).astype(npdt)
    else:
        info = np.iinfo(npdt)
        src = rng.integers(info.min, info.max, (R, c), endpoint=True).astype(npdt)
        table = rng.integers(info.min, info.max, (1, size), endpoint=True).astype(npdt)
    idx = rng.integers(0, size, (R, c)).astype(np.int32)
    out, *_ = scatter(dev_name, table, src, idx, coalesce="elem", atomic="add")
    ref = table.reshape(-1).copy()
    np.add.at(ref, idx.reshape(-1), src.reshape(-1))  # sequential, per-step rounding / wrap
    np.testing.assert_array_equal(bits(out.reshape(-1)), bits(ref))
    k0 = int(idx[0, 0])  # and one slot against the scalar D12 loop
    mine = [src.reshape(-1)[j] for j in range(R * c) if idx.reshape(-1)[j] == k0]
    assert bits(np.array([_seq_add(dt, table[0, k0], mine)], npdt))[0] == bits(out)[0, k0]


@HSET
@given(data=st.data())
def test_property_oob_policies_follow_their_definitions(data):
    dev_name = data.draw(st.sampled_from(["cpu", "a2", "950pr"]))
    mode = data.draw(st.sampled_from(["row", "elem"]))
    oob = data.draw(st.sampled_from(["skip", "clamp", "wrap"]))
    R = data.draw(st.integers(1, 5))
    rows = data.draw(st.integers(1, 6))
    C = 8
    n = R if mode == "row" else R * C
    vals = data.draw(
        st.lists(
            st.one_of(st.integers(-(2**31), 2**31 - 1), st.integers(-3, rows * C + 3)),
            min_size=n,
            max_size=n,
        )
    )
    idx = (
        np.array(vals, np.int32).reshape(1, R)
        if mode == "row"
        else np.array(vals, np.int32).reshape(R, C)
    )
    rng = np.random.default_rng(len(vals))
    src = rng.standard_normal((R, C)).astype(np.float32)
    table = rng.standard_normal((rows, C)).astype(np.float32)
    out, *_ = scatter(dev_name, table, src, idx, coalesce=mode, oob=oob)
    cpu = dev_name == "cpu"  # size_t index conversion
    if mode == "row":
        expected = ref_row(table, src, idx[0], rows, oob, size_t=cpu)
    else:
        expected = ref_elem(table.reshape(-1), src, idx, rows * C, oob, cpu).reshape(rows, C)
    np.testing.assert_array_equal(out, expected)
