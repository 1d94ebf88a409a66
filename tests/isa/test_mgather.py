"""MGATHER: seed examples, OOB policies per target, capacities (D2-D4), NZ paths, GM -> L1,
dtype families, constraints, and hypothesis properties against independent numpy formulations."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim.enums import BLayout, Coalesce, GatherOOB, PadValue, SLayout, TileType
from ptosim.isa import gather as G
from ptosim.layout import TileGeom
from ptosim.tensors import Placement, TileRef
from tests.helpers.devices import ONE_PER_TARGET
from tests.helpers.kernels import vec

TARGET_DEV = {"cpu": "cpu", "a2a3": "a2", "a5": "950pr"}
POLICIES = ("undefined", "clamp", "wrap", "zero")
_DEVS: dict[str, pto.Device] = {}


def dev_(name: str) -> pto.Device:
    if name not in _DEVS:
        _DEVS[name] = pto.Device(name)
    return _DEVS[name]


# -- independent numpy reference -----------------------------------------------------------
def ref_policy(raw, cap: int, oob: str, size_t: bool = False):
    """(k, ok): the index after the GatherOOB policy, ok False where T(0) is read. The index is
    converted to uint32 (NPU) or, with ``size_t``, to the cpu's 64-bit size_t."""
    if size_t:  # Python integers: 2^64 + v for a negative v
        big = np.array([int(v) % (1 << 64) for v in np.ravel(raw)], dtype=object)
        big = big.reshape(np.shape(raw))
        ones = np.ones(big.shape, dtype=bool)
        if cap == 0:
            return np.zeros(big.shape, np.int64), ~ones
        ok = (big < cap).astype(bool)
        if oob == "clamp":
            return np.where(ok, big, cap - 1).astype(np.int64), ones
        if oob == "wrap":
            return (big % cap).astype(np.int64), ones
        if oob == "zero":
            return np.where(ok, big, 0).astype(np.int64), ok
        assert ok.all()
        return big.astype(np.int64), ones
    k = np.asarray(raw, dtype=np.int64) % (1 << 32)
    ones = np.ones(k.shape, dtype=bool)
    if cap == 0:
        return np.zeros_like(k), ~ones
    if oob == "clamp":
        return np.where(k >= cap, cap - 1, k), ones
    if oob == "wrap":
        return k % cap, ones
    if oob == "zero":
        ok = k < cap
        return np.where(ok, k, 0), ok
    assert (k < cap).all()
    return k, ones


def ref_take(source, k, ok, dtype):
    """source[k] with T(0) where not ok (source: rows for Row, flat table for Elem)."""
    out = np.zeros(k.shape + source.shape[1:], dtype=dtype)
    out[ok] = source[k[ok]]
    return out


def bits(a) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def nz_off(r, c, rows, c0):
    return (c // c0) * rows * c0 + r * c0 + c % c0


def nz_table(table2d, c0, s0=1):
    """NZ GM buffer of a logical LxW table: [o0, o1, br, rin, cin] = t[br*16+rin, bc*C0+cin]."""
    L, W = table2d.shape
    s1 = W // c0 // s0
    buf = table2d.reshape(L // 16, 16, s0, s1, c0).transpose(2, 3, 0, 1, 4).copy()
    return buf, (s0, s1, L // 16, 16, c0)


def poison(n, dtype):
    return np.full(n * np.dtype(dtype).itemsize, 0xFF, np.uint8).view(dtype)


def load_idx(tile, buf, colmajor=False):
    vr, vc = tile.valid
    pto.TLOAD(tile, pto.GlobalTensor(buf, (1, 1, 1, vr, vc), layout="DN" if colmajor else "ND"))


def run_ub(
    devname,
    table_arr,
    idx_arr,
    dst,
    idx,
    *,
    gshape,
    gstride=None,
    glayout="ND",
    table_dtype=None,
    idx_colmajor=False,
    **mg,
):
    """TLOAD the index tile, then MGATHER into dst; returns the RunResult."""
    dev = dev_(devname)
    tbuf = dev.gm_array(table_arr, dtype=table_dtype)
    ibuf = dev.gm_array(idx_arr.T.copy() if idx_colmajor else idx_arr)

    @pto.kernel
    def k():
        pto.TASSIGN(dst, 0x0)
        pto.TASSIGN(idx, -(-dst.geom.size_bytes // 32) * 32)
        load_idx(idx, ibuf, idx_colmajor)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, gshape, gstride, glayout), idx, **mg)

    return dev.run(k)


def mgather_instr(run):
    return next(i for i in run.program if i.opcode == "MGATHER")


def rng(seed=0):
    return np.random.default_rng(seed)


# -- seed examples -------------------------------------------------------------------------
@pytest.mark.parametrize("devname", ONE_PER_TARGET)
@pytest.mark.parametrize("dtype", ["float32", "half"])
def test_seed_embedding_lookup_row_clamp(devname, dtype):
    R, C, rows = 8, 64, 64
    dev = dev_(devname)
    table = rng(1).standard_normal((rows, C)).astype(dtype)
    index = np.array([3, 0, 63, 64, 1000, -1, 17, 5], dtype=np.int32)
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(index)
    out = dev.gm_full((R, C), dtype, 7)

    @pto.kernel
    def embedding_lookup(tbuf, ibuf, out):
        table_gm = pto.GlobalTensor(tbuf, (1, 1, 1, rows, C), (1, 1, 1, C, 1))
        idx_gm = pto.GlobalTensor(ibuf, (1, 1, 1, 1, R), (1, 1, 1, R, 1))
        dst = pto.Tile("Vec", dtype, R, C, "RowMajor", valid=(R, C))
        idx = pto.Tile("Vec", "int32", 1, R, "RowMajor", valid=(1, R))
        pto.TASSIGN(dst, 0x0000)
        pto.TASSIGN(idx, 0x1000)
        pto.TLOAD(idx, idx_gm)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.MGATHER(dst, table_gm, idx, coalesce=pto.Coalesce.Row, oob="Clamp")
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, R, C)), dst)

    run = dev.run(embedding_lookup, tbuf, ibuf, out)
    k, ok = ref_policy(index, rows, "clamp")
    assert bits(out.numpy()) == bits(ref_take(table, k, ok, table.dtype))
    assert mgather_instr(run).is_simt(dev.arch) == (dev.target == "a5")


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_seed_elem_2d_wrap(devname):
    R, C, size = 8, 32, 256
    table = rng(2).standard_normal(size).astype(np.float32)
    index = rng(3).integers(-2000, 2000, (R, C)).astype(np.int32)
    dst = pto.Tile("Vec", "float32", R, C, valid=(R, C))
    idx = pto.Tile("Vec", "int32", R, C, valid=(R, C))
    run = run_ub(
        devname,
        table,
        index,
        dst,
        idx,
        gshape=(1, 1, 1, 1, size),
        gstride=(1, 1, 1, size, 1),
        coalesce="elem",
        oob="wrap",
    )
    k = (index.astype(np.int64) % 2**32) % size  # D2: a negative int32 is 2^32 - |k|
    assert np.array_equal(run.tile(dst), table[k])


@pytest.mark.parametrize("devname", ["950pr"])
def test_seed_row_colmajor_index_a5(devname):
    R, C, rows = 8, 64, 64
    table = rng(4).standard_normal((rows, C)).astype(np.float16)
    index = rng(5).integers(0, rows, (R, 1)).astype(np.int32)
    dst = pto.Tile("Vec", "half", R, C, "RowMajor", valid=(R, C))
    idx = pto.Tile("Vec", "int32", R, 1, "ColMajor", valid=(R, 1))
    run = run_ub(
        devname,
        table,
        index,
        dst,
        idx,
        gshape=(1, 1, 1, rows, C),
        gstride=(1, 1, 1, C, 1),
        idx_colmajor=True,
        coalesce="row",
        oob="undefined",
    )
    assert np.array_equal(run.tile(dst), table[index[:, 0]])
    assert mgather_instr(run).is_simt(dev_(devname).arch)


@pytest.mark.parametrize("devname", ["a2"])  # cpu accepts it: tests/isa/test_trust_semantics.py
def test_seed_row_colmajor_index_rejected_off_a5(devname):
    dst = pto.Tile("Vec", "half", 8, 64)
    idx = pto.Tile("Vec", "int32", 8, 1, "ColMajor", valid=(8, 1))
    with pytest.raises(pto.ConstraintError) as ei:
        attempt(devname, dst, idx, shape=(1, 1, 1, 64, 64))
    assert ei.value.rule == "index-layout"


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_seed_elem_scalar_degenerate(devname):
    size = 32
    table = rng(6).standard_normal(size).astype(np.float32)
    index = np.array([[21]], dtype=np.int32)
    dst = pto.Tile("Vec", "float32", 1, 8, valid=(1, 1))
    idx = pto.Tile("Vec", "int32", 1, 8, valid=(1, 1))
    run = run_ub(
        devname,
        table,
        index,
        dst,
        idx,
        gshape=(1, 1, 1, 1, size),
        gstride=(1, 1, 1, size, 1),
        coalesce="elem",
    )
    assert run.tile(dst)[0, 0] == table[21]
    storage = run.tile_storage(dst)
    assert bits(storage[1:]) == bits(poison(7, np.float32))  # only the valid element is written
    assert not mgather_instr(run).is_simt(dev_(devname).arch)  # a5: scalar fallback


def test_elem_dynamic_1x1_is_simt_on_a5():
    dst = pto.Tile("Vec", "float32", 1, 8)
    idx = pto.Tile("Vec", "int32", 1, 8)
    dst.set_valid(1, 1)
    idx.set_valid(1, 1)
    table = np.arange(32, dtype=np.float32)
    run = run_ub(
        "950pr",
        table,
        np.array([[9]], np.int32),
        dst,
        idx,
        gshape=(1, 1, 1, 1, 32),
        coalesce="elem",
    )
    assert run.tile(dst)[0, 0] == 9.0
    assert mgather_instr(run).is_simt(dev_("950pr").arch)


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_seed_dynamic_shape(devname):
    valid_cols, d3, d4, stride3 = 9, 3, 10, 10
    table = rng(7).standard_normal(d3 * d4).astype(np.float32)
    index = rng(8).integers(0, d3 * d4, (1, valid_cols)).astype(np.int32)
    dst = pto.Tile("Vec", "float32", 1, 16)
    idx = pto.Tile("Vec", "int32", 1, 16)
    dst.set_valid(1, valid_cols)
    idx.set_valid(1, valid_cols)
    run = run_ub(
        devname,
        table,
        index,
        dst,
        idx,
        gshape=(d3, d4),
        gstride=(stride3, 1),
        coalesce="elem",
        oob="undefined",
    )
    assert np.array_equal(run.tile(dst), table[index])
    storage = run.tile_storage(dst)
    assert bits(storage[valid_cols:]) == bits(poison(16 - valid_cols, np.float32))


def _mat_tile(dtype, R, C, valid=None):
    return pto.Tile("Mat", dtype, R, C, "ColMajor", valid=valid, slayout="RowMajor")


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
@pytest.mark.parametrize("dtype", ["float32", "half", "int8"])
def test_seed_gm2l1_row_clamp(devname, dtype):
    R, C, rows = 16, 64, 40
    dev = dev_(devname)
    table = rng(9).integers(-100, 100, (rows, C)).astype(dtype)
    index = np.array([0, 39, 40, 77, -2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 2**31 - 1, 1], np.int32)
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(index)
    dst = _mat_tile(dtype, R, C)

    @pto.kernel
    def k():
        table_gm = pto.GlobalTensor(tbuf, (1, 1, 1, rows, C), (1, 1, 1, C, 1))
        idx_gm = pto.GlobalTensor(ibuf, (1, 1, 1, 1, R), (1, 1, 1, R, 1))
        pto.TASSIGN(dst, 0x0)
        pto.MGATHER(dst, table_gm, idx_gm, coalesce="row", oob="clamp")

    run = dev.run(k)
    kk, ok = ref_policy(index, rows, "clamp")
    assert bits(run.tile(dst)) == bits(ref_take(table, kk, ok, table.dtype))
    instr = mgather_instr(run)
    assert isinstance(instr, G.MGatherL1) and not instr.is_simt(dev.arch)


def _gm2l1_elem(
    devname, *, R=16, C=16, size=100, oob="zero", gather_exec="scalar", valid=None, dtype="float32"
):
    dev = dev_(devname)
    vr, vc = valid or (R, C)
    table = rng(10).standard_normal(size).astype(dtype)
    index = rng(11).integers(-5, size + 30, (vr, vc)).astype(np.int32)
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(index)
    sbuf = dev.gm_full((R * C,), dtype, 7)
    dst = _mat_tile(dtype, R, C, valid=(vr, vc))

    @pto.kernel
    def k():
        table_gm = pto.GlobalTensor(tbuf, (1, 1, 1, 1, size), (1, 1, 1, size, 1))
        idx_gm = pto.GlobalTensor(ibuf, (1, 1, 1, vr, vc), (1, 1, 1, vc, 1))
        scratch = pto.GlobalTensor(sbuf, (1, 1, 1, 1, R * C), (1, 1, 1, R * C, 1))
        pto.TASSIGN(dst, 0x0)
        pto.MGATHER(
            dst,
            table_gm,
            idx_gm,
            coalesce="elem",
            oob=oob,
            scratch=scratch,
            gather_exec=gather_exec,
        )

    run = dev.run(k)
    kk, ok = ref_policy(index, size, oob)
    expected = ref_take(table, kk, ok, table.dtype)
    assert bits(run.tile(dst)) == bits(expected)
    return run, dst, sbuf, expected


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_seed_gm2l1_elem_zero_scratch(devname):
    R, C = 16, 16
    run, dst, sbuf, expected = _gm2l1_elem(devname, R=R, C=C, valid=(13, 11))
    staged = np.zeros(R * C, np.float32)
    r, c = np.meshgrid(np.arange(13), np.arange(11), indexing="ij")
    staged[nz_off(r, c, R, 8)] = expected
    if devname == "cpu":  # scratch is ignored; only the valid region of L1 is written
        assert np.all(sbuf.numpy() == 7)
        storage = run.tile_storage(dst)
        assert bits(storage[nz_off(r, c, R, 8)]) == bits(expected)
    else:  # scratch zero-filled + NZ-ordered, then copied whole to L1
        assert bits(sbuf.numpy()) == bits(staged)
        assert bits(run.tile_storage(dst)) == bits(staged)


@pytest.mark.parametrize("devname", ["950pr"])
def test_seed_gm2l1_elem_simt_a5(devname):
    R, C = 16, 32
    run, dst, sbuf, expected = _gm2l1_elem(devname, R=R, C=C, gather_exec="simt", dtype="half")
    staged = np.zeros(R * C, np.float16)
    r, c = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    staged[nz_off(r, c, R, 16)] = expected
    assert bits(sbuf.numpy()) == bits(staged)
    assert mgather_instr(run).is_simt(dev_(devname).arch)
    run2, *_ = _gm2l1_elem(devname, R=R, C=C, gather_exec="scalar", dtype="half")
    assert not mgather_instr(run2).is_simt(dev_(devname).arch)


@pytest.mark.parametrize("devname", ["cpu", "a2"])
def test_gm2l1_simt_unsupported_off_a5(devname):
    with pytest.raises(pto.UnsupportedError) as ei:
        _gm2l1_elem(devname, gather_exec="simt")
    check_error(ei.value, "gather-exec", "gather_exec", "PTO102")


# -- OOB policies per target (D2) ----------------------------------------------------------
IDX_OOB = np.array([0, 9, 10, 25, -1, -7, 2**31 - 1, -(2**31), 3, 4, 5, 6, 7, 8, 1, 2], np.int32)


@pytest.mark.parametrize("target", list(TARGET_DEV))
@pytest.mark.parametrize("oob", POLICIES)
@pytest.mark.parametrize("idx_dtype", [np.int32, np.uint32])
def test_row_policies(target, oob, idx_dtype):
    N, C, R = 10, 16, 16
    table = rng(12).standard_normal((N, C)).astype(np.float32)
    index = IDX_OOB if oob != "undefined" else rng(13).integers(0, N, R).astype(np.int32)
    index = index.astype(idx_dtype).reshape(1, R)
    dst = pto.Tile("Vec", "float32", R, C)
    idx = pto.Tile("Vec", idx_dtype, 1, R)
    run = run_ub(
        TARGET_DEV[target], table, index, dst, idx, gshape=(1, 1, 1, N, C), coalesce="row", oob=oob
    )
    k, ok = ref_policy(index[0].astype(np.int64), N, oob)
    assert np.array_equal(run.tile(dst), ref_take(table, k, ok, np.float32))


@pytest.mark.parametrize("target", list(TARGET_DEV))
def test_negative_index_d2(target):
    """D2: -1 is 2^32-1: Clamp -> cap-1, Wrap -> (2^32-1) % cap, Zero -> T(0)."""
    N, C = 10, 8
    table = np.arange(N * C, dtype=np.int32).reshape(N, C)
    index = np.array([[-1, -7]], np.int32)
    for oob, rows in (("clamp", [9, 9]), ("wrap", [(2**32 - 1) % N, (2**32 - 7) % N])):
        dst, idx = pto.Tile("Vec", "int32", 2, C), pto.Tile("Vec", "int32", 1, 8, valid=(1, 2))
        run = run_ub(TARGET_DEV[target], table, index, dst, idx, gshape=(1, 1, 1, N, C), oob=oob)
        assert np.array_equal(run.tile(dst), table[rows])
    dst, idx = pto.Tile("Vec", "int32", 2, C), pto.Tile("Vec", "int32", 1, 8, valid=(1, 2))
    run = run_ub(TARGET_DEV[target], table, index, dst, idx, gshape=(1, 1, 1, N, C), oob="zero")
    assert np.all(run.tile(dst) == 0)


@pytest.mark.parametrize("target", list(TARGET_DEV))
@pytest.mark.parametrize("oob", POLICIES)
def test_elem_policies(target, oob):
    R, C, size = 4, 16, 50
    table = rng(14).integers(-1000, 1000, size).astype(np.int16)
    if oob == "undefined":
        index = rng(15).integers(0, size, (R, C))
    else:
        index = rng(15).integers(-(2**31), 2**31, (R, C))
        index[0, :4] = [-1, size, size - 1, 0]
    index = index.astype(np.int32)
    dst, idx = pto.Tile("Vec", "int16", R, C), pto.Tile("Vec", "int32", R, C)
    run = run_ub(
        TARGET_DEV[target],
        table,
        index,
        dst,
        idx,
        gshape=(1, 1, 1, 5, 10),
        coalesce="elem",
        oob=oob,
    )
    k, ok = ref_policy(index, size, oob, size_t=target == "cpu")
    assert np.array_equal(run.tile(dst), ref_take(table, k, ok, np.int16))


@pytest.mark.parametrize("target", list(TARGET_DEV))
@pytest.mark.parametrize("mode", ["row", "elem"])
def test_undefined_oob_raises_and_writes_nothing(target, mode):
    dev = dev_(TARGET_DEV[target])
    N, C = 8, 8
    tbuf = dev.gm_array(np.arange(N * C, dtype=np.float32))
    shape = (1, 8) if mode == "row" else (8, 8)
    index = np.zeros(shape, np.int32)
    index[0, 3] = N if mode == "row" else N * C  # first index past the capacity
    ibuf = dev.gm_array(index)
    out = dev.gm_full((8, 8), "float32", 42.0)
    dst, idx = pto.Tile("Vec", "float32", 8, 8), pto.Tile("Vec", "int32", *shape)

    @pto.kernel
    def k():
        pto.TASSIGN(dst, 0)
        pto.TASSIGN(idx, 0x1000)
        load_idx(idx, ibuf)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, (1, 1, 1, N, C)), idx, coalesce=mode)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 8, 8)), dst)

    with pytest.raises(pto.OutOfBoundsError) as ei:
        dev.run(k)
    assert ei.value.code == "PTO202"
    assert "MGATHER" in str(ei.value) and "idx" in str(ei.value)
    assert f"= {index[0, 3]} is not below" in str(ei.value)  # the real index, not stale UB
    assert np.all(out.numpy() == 42.0)
    assert np.all(tbuf.numpy() == np.arange(N * C))


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_undefined_oob_gm2l1_leaves_scratch(devname):
    dev = dev_(devname)
    tbuf = dev.gm_array(np.arange(10, dtype=np.float32))
    index = np.zeros((16, 8), np.int32)
    index[5, 5] = 10
    ibuf = dev.gm_array(index)
    sbuf = dev.gm_full((128,), "float32", 3.0)
    dst = _mat_tile("float32", 16, 8)

    @pto.kernel
    def k():
        pto.MGATHER(
            dst,
            pto.GlobalTensor(tbuf, (1, 1, 1, 1, 10)),
            pto.GlobalTensor(ibuf, (1, 1, 1, 16, 8)),
            coalesce="elem",
            scratch=pto.GlobalTensor(sbuf, (1, 1, 1, 1, 128)),
        )

    with pytest.raises(pto.OutOfBoundsError):
        dev.run(k)
    assert np.all(sbuf.numpy() == 3.0)


# -- D4 empty table, D3 capacities, a5 pitch ----------------------------------------------
@pytest.mark.parametrize("target", list(TARGET_DEV))
@pytest.mark.parametrize("oob", POLICIES)
@pytest.mark.parametrize("mode", ["row", "elem"])
def test_empty_table_gathers_zeros(target, oob, mode):
    C = 8
    shape = (1, 4) if mode == "row" else (4, C)
    index = np.array([0, 1, 5, -1] * (1 if mode == "row" else C), np.int32).reshape(shape)
    dst, idx = (
        pto.Tile("Vec", "float32", 4, C),
        pto.Tile("Vec", "int32", 1 if mode == "row" else 4, 8, valid=shape),
    )
    table = np.full(16, 5.0, np.float32)  # a non-empty buffer seen through an empty view
    run = run_ub(
        TARGET_DEV[target], table, index, dst, idx, gshape=(1, 1, 1, 0, C), coalesce=mode, oob=oob
    )
    assert np.all(run.tile(dst) == 0)


@pytest.mark.parametrize("target", list(TARGET_DEV))
@pytest.mark.parametrize("oob", ["clamp", "wrap"])
def test_row_capacity_differs_by_target(target, oob):
    C = 8
    table = rng(16).standard_normal((8, C)).astype(np.float32)  # shape (1,1,2,4,C), packed
    index = np.array([[5, 7, 3, 9]], np.int32)
    cap = 8 if target == "a2a3" else 4  # D3
    dst, idx = pto.Tile("Vec", "float32", 4, C), pto.Tile("Vec", "int32", 1, 8, valid=(1, 4))
    if target == "cpu":  # the CPU form only takes Shape<1, 1, 1, TableRows, RowWidth> tables
        with pytest.raises(pto.ConstraintError) as e:
            run_ub(TARGET_DEV[target], table, index, dst, idx, gshape=(1, 1, 2, 4, C), oob=oob)
        assert e.value.rule == "table-shape" and "Shape<1, 1, 1, TableRows" in str(e.value)
        return
    run = run_ub(TARGET_DEV[target], table, index, dst, idx, gshape=(1, 1, 2, 4, C), oob=oob)
    k, ok = ref_policy(index[0], cap, oob)
    assert np.array_equal(run.tile(dst), table[k])
    expected_rows = {("a2a3", "clamp"): [5, 7, 3, 7], ("a2a3", "wrap"): [5, 7, 3, 1]}.get(
        (target, oob), [3, 3, 3, 3] if oob == "clamp" else [1, 3, 3, 1]
    )
    assert list(k) == expected_rows


@pytest.mark.parametrize("target", list(TARGET_DEV))
def test_row_pitch_a5_is_valid_cols(target):
    N, W, C = 12, 16, 8
    buf = rng(17).standard_normal((N, W)).astype(np.float32)
    index = np.array([[0, 3, 11, 7, 5, 2, 1, 10]], np.int32)
    dst, idx = pto.Tile("Vec", "float32", 8, C), pto.Tile("Vec", "int32", 1, 8)
    run = run_ub(
        TARGET_DEV[target], buf, index, dst, idx, gshape=(1, 1, 1, N, C), gstride=(1, 1, 1, W, 1)
    )
    rows = buf.reshape(-1)[: N * C].reshape(N, C) if target == "a5" else buf[:, :C]
    assert np.array_equal(run.tile(dst), rows[index[0]])


def test_cpu_row_column_step_is_stride4():
    N, C = 6, 8
    buf = rng(18).standard_normal(N * 2 * C).astype(np.float32)
    index = np.array([[4, 1, 5, 0]], np.int32)
    dst, idx = pto.Tile("Vec", "float32", 4, C), pto.Tile("Vec", "int32", 1, 8, valid=(1, 4))
    run = run_ub("cpu", buf, index, dst, idx, gshape=(1, 1, 1, N, C), gstride=(1, 1, 1, 2 * C, 2))
    rows = buf.reshape(N, 2 * C)[:, ::2]
    assert np.array_equal(run.tile(dst), rows[index[0]])


def test_cpu_row_index_rowmajor_rx1_in_wider_tile_rejected():
    """cpu reads a Row index linearly (idx.data[r], as the CPU simulator): an [R, 1] index
    inside an R x 8 RowMajor tile would read row 0's columns, so it is rejected."""
    N, C, R = 10, 8, 4
    table = rng(19).standard_normal((N, C)).astype(np.float32)
    index = np.array([[7], [2], [9], [0]], np.int32)
    dst, idx = pto.Tile("Vec", "float32", R, C), pto.Tile("Vec", "int32", R, 8, valid=(R, 1))
    with pytest.raises(pto.ConstraintError) as ei:
        run_ub("cpu", table, index, dst, idx, gshape=(1, 1, 1, N, C))
    assert ei.value.rule == "index-layout-row"


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_only_valid_region_written(devname):
    N, C = 10, 16
    table = rng(20).standard_normal((N, 8)).astype(np.float32)
    index = np.array([[1, 2, 3]], np.int32)
    dst = pto.Tile("Vec", "float32", 4, C, valid=(3, 8))
    idx = pto.Tile("Vec", "int32", 1, 8, valid=(1, 3))
    run = run_ub(devname, table, index, dst, idx, gshape=(1, 1, 1, N, 8), oob="zero")
    storage = run.tile_storage(dst).reshape(4, C)
    assert np.array_equal(storage[:3, :8], table[[1, 2, 3]])
    assert bits(storage[:, 8:]) == bits(poison(4 * 8, np.float32).reshape(4, 8))
    assert bits(storage[3]) == bits(poison(C, np.float32))


def test_a5_colmajor_dst_and_index_layout_free_elem():
    R, C, N = 8, 16, 20
    table = rng(21).standard_normal((N, C)).astype(np.float32)
    index = rng(22).integers(0, N, (R, 1)).astype(np.int32)
    dst = pto.Tile("Vec", "float32", R, C, "ColMajor")
    idx = pto.Tile("Vec", "int32", R, 1, "ColMajor")
    run = run_ub("950pr", table, index, dst, idx, gshape=(1, 1, 1, N, C), idx_colmajor=True)
    assert np.array_equal(run.tile(dst), table[index[:, 0]])
    # Elem with a ColMajor index under a RowMajor destination
    eidx = rng(23).integers(0, N * C, (R, C)).astype(np.int32)
    dst2, idx2 = pto.Tile("Vec", "float32", R, C), pto.Tile("Vec", "int32", R, C, "ColMajor")
    run = run_ub(
        "950pr", table, eidx, dst2, idx2, gshape=(1, 1, 1, N, C), idx_colmajor=True, coalesce="elem"
    )
    assert np.array_equal(run.tile(dst2), table.reshape(-1)[eidx])


def test_elem_uses_raw_element_pointer_of_5d_table():
    """Elem reads table_ptr[k] (the raw element pointer, capacity = product of the shape), not
    the 5-D view walked through its strides (issue 10, item 1)."""
    buf = rng(24).standard_normal(2 * 3 * 16).astype(np.float32)
    shape, stride = (1, 1, 2, 3, 8), (96, 96, 48, 16, 1)
    index = rng(25).integers(0, 48, (2, 8)).astype(np.int32)
    for devname in ("a2", "950pr"):  # (cpu tables are Shape<1,1,1,R,W>)
        dst, idx = pto.Tile("Vec", "float32", 2, 8), pto.Tile("Vec", "int32", 2, 8)
        run = run_ub(devname, buf, index, dst, idx, gshape=shape, gstride=stride, coalesce="elem")
        assert np.array_equal(run.tile(dst), buf[index])


def test_table_offset_is_honoured():
    dev = dev_("a2")
    buf = dev.gm_array(np.arange(100, dtype=np.float32))
    index = dev.gm_array(np.array([0, 2], np.int32))
    dst, idx = pto.Tile("Vec", "float32", 2, 8), pto.Tile("Vec", "int32", 1, 8, valid=(1, 2))

    @pto.kernel
    def k():
        load_idx(idx, index)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.MGATHER(dst, pto.GlobalTensor(buf, (1, 1, 1, 5, 8), offset=20), idx)

    run = dev.run(k)
    rows = np.arange(100, dtype=np.float32)[20:60].reshape(5, 8)
    assert np.array_equal(run.tile(dst), rows[[0, 2]])


# -- a2a3 NZ tables ------------------------------------------------------------------------
def _nz_row(oob, *, dtype="half", L=64, W=32, s0=1, Rows=32, valid=(20, 32), index=None):
    c0 = 32 // np.dtype(dtype).itemsize
    table = rng(26).integers(-50, 50, (L, W)).astype(dtype)
    buf, shape = nz_table(table, c0, s0)
    R, vc = valid
    if index is None:
        index = rng(27).integers(0, L, R)
        if oob != "undefined":
            index[:4] = [L, -1, L - 1, 3 * L + 1]
    index = np.asarray(index, np.int32).reshape(1, R)
    dst = pto.Tile("Vec", dtype, Rows, W, "ColMajor", valid=(R, vc), slayout="RowMajor")
    idx = pto.Tile("Vec", "int32", 1, 8 * -(-R // 8), valid=(1, R))
    run = run_ub("a2", buf, index, dst, idx, gshape=shape, glayout="NZ", oob=oob)
    return run, dst, table, index[0], c0


@pytest.mark.parametrize("oob", POLICIES)
def test_nz_row_a2a3(oob):
    run, dst, table, index, c0 = _nz_row(oob)
    L, W = table.shape
    Rows, R = 32, len(index)
    k, ok = ref_policy(index, L, oob)
    expected_valid = ref_take(table, k, ok, table.dtype)
    assert bits(run.tile(dst)) == bits(expected_valid)
    storage = poison(Rows * W, table.dtype) if oob != "zero" else np.zeros(Rows * W, table.dtype)
    r, c = np.meshgrid(np.arange(R), np.arange(W), indexing="ij")
    storage[nz_off(r, c, Rows, c0)] = expected_valid
    assert bits(run.tile_storage(dst)) == bits(storage)  # Zero: whole tile pre-zeroed


def test_nz_row_dma_moves_every_table_column():
    """Valid cols 24 < table cols 32 <= Cols: the per-row DMA writes all 32 columns."""
    run, dst, table, index, c0 = _nz_row("clamp", valid=(20, 24))
    storage = run.tile_storage(dst)
    k, _ = ref_policy(index, 64, "clamp")
    r, c = np.meshgrid(np.arange(20), np.arange(32), indexing="ij")
    assert bits(storage[nz_off(r, c, 32, c0)]) == bits(table[k])


@pytest.mark.parametrize("oob", ["clamp", "zero"])
def test_nz_row_multi_batch_float32(oob):
    """gShape0 = 2: logical column blocks split across the outer dimension."""
    run, dst, table, index, c0 = _nz_row(
        oob, dtype="float32", L=48, W=32, s0=2, Rows=16, valid=(16, 32)
    )
    k, ok = ref_policy(index, 48, oob)
    assert bits(run.tile(dst)) == bits(ref_take(table, k, ok, table.dtype))


@pytest.mark.parametrize("oob", POLICIES)
@pytest.mark.parametrize("s0", [1, 2])
def test_nz_elem_a2a3(oob, s0):
    L, W, R, C = 32, 32, 16, 32
    table = rng(28).integers(-500, 500, (L, W)).astype(np.float32)
    buf, shape = nz_table(table, 8, s0)
    if oob == "undefined":
        index = rng(29).integers(0, L * W, (R, C))
    else:
        index = rng(29).integers(-3000, 3000, (R, C))
    index = index.astype(np.int32)
    dst = pto.Tile("Vec", "float32", R, C, "ColMajor", valid=(R, C - 5), slayout="RowMajor")
    idx = pto.Tile("Vec", "int32", R, C, valid=(R, C - 5))
    run = run_ub(
        "a2", buf, index[:, : C - 5], dst, idx, gshape=shape, glayout="NZ", coalesce="elem", oob=oob
    )
    k, ok = ref_policy(index[:, : C - 5], L * W, oob)
    assert np.array_equal(run.tile(dst), ref_take(table.reshape(-1), k, ok, np.float32))
    storage = run.tile_storage(dst)
    r, c = np.meshgrid(np.arange(R), np.arange(C - 5, C), indexing="ij")
    assert bits(storage[nz_off(r, c, R, 8)]) == bits(poison(r.size, np.float32).reshape(r.shape))


# -- dtype families ------------------------------------------------------------------------
_RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32}
_ALLOWED = {
    "cpu": [
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "half",
        "bfloat16",
        "float32",
        "float8_e4m3",
        "float8_e5m2",
    ],
    "a2a3": ["int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32"],
    "a5": [
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "half",
        "bfloat16",
        "float32",
        "float8_e4m3",
        "float8_e5m2",
        "hifloat8",
    ],
}


@pytest.mark.parametrize(("target", "dtype"), [(t, d) for t, ds in _ALLOWED.items() for d in ds])
@pytest.mark.parametrize("mode", ["row", "elem"])
def test_dtype_bits_move_exactly(target, dtype, mode):
    dt = D.dtype(dtype)
    C = 32 // dt.size_bytes
    N, R = 12, 4
    raw = rng(30).integers(0, 2 ** (8 * dt.size_bytes), (N, C), dtype=np.uint64)
    raw = raw.astype(_RAW[dt.size_bytes])
    table = raw if dt is D.hifloat8 else raw.view(dt.np)
    if mode == "row":
        index = np.array([[3, 11, 12, -1]], np.int32)
        idx = pto.Tile("Vec", "int32", 1, 8, valid=(1, R))
    else:
        index = rng(31).integers(-4, N * C + 4, (R, C)).astype(np.int32)
        idx = pto.Tile("Vec", "int32", R, max(C, 8), valid=(R, C))
    dst = pto.Tile("Vec", dtype, R, C)
    run = run_ub(
        TARGET_DEV[target],
        table,
        index,
        dst,
        idx,
        gshape=(1, 1, 1, N, C),
        table_dtype=dtype,
        coalesce=mode,
        oob="zero",
    )
    if mode == "row":
        k, ok = ref_policy(index[0], N, "zero")
        expected = ref_take(raw, k, ok, raw.dtype)
    else:
        k, ok = ref_policy(index, N * C, "zero")
        expected = ref_take(raw.reshape(-1), k, ok, raw.dtype)
    got = run.tile(dst)
    assert bits(got) == bits(expected)


def test_bfloat16_nan_payload_preserved():
    table = np.array([[0x7FC1, 0xFFFF, 0x0001, 0x8000] * 4] * 3, np.uint16).view(ml_dtypes.bfloat16)
    dst, idx = pto.Tile("Vec", "bfloat16", 2, 16), pto.Tile("Vec", "int32", 1, 8, valid=(1, 2))
    for devname in ("cpu", "a2", "950pr"):
        run = run_ub(
            devname, table, np.array([[2, 0]], np.int32), dst, idx, gshape=(1, 1, 1, 3, 16)
        )
        assert bits(run.tile(dst)) == bits(table[[2, 0]])


# -- constraints ---------------------------------------------------------------------------
def check_error(e, rule, operand, code="PTO101"):
    assert e.code == code, e
    assert e.rule == rule, e
    assert e.operand == operand, e
    assert e.instruction == "MGATHER"
    msg = str(e)
    assert "MGATHER" in msg and f"'{operand}'" in msg and f"'{rule}'" in msg
    assert "expected" in msg and "given" in msg


def attempt(
    devname, dst, idx, *, shape=(1, 1, 1, 8, 8), tdtype=None, layout="ND", scratch=None, **mg
):
    """Record and run one MGATHER; idx/scratch may be dicts describing GM tensors."""
    dev = dev_(devname)
    tdtype = tdtype or dst.dtype
    tbuf = dev.gm_zeros((max(1, int(np.prod(shape))),), tdtype)

    def gm(spec):
        if not isinstance(spec, dict):
            return spec
        shp = spec["shape"]
        return pto.GlobalTensor(
            dev.gm_zeros((int(np.prod(shp)),), spec.get("dtype", "int32")),
            shp,
            layout=spec.get("layout", "ND"),
        )

    @pto.kernel
    def k():
        kw = dict(mg)
        if scratch is not None:
            kw["scratch"] = gm(scratch)
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, shape, layout=layout), gm(idx), **kw)

    return dev.run(k)


def raw_ref(loc, dtype, rows, cols, blayout="RowMajor", slayout="NoneBox", valid=None):
    """A TileRef that bypasses the Tile constructor's own rules (to reach redundant checks)."""
    geom = TileGeom(
        TileType.parse(loc),
        D.dtype(dtype),
        rows,
        cols,
        BLayout.parse(blayout),
        SLayout.parse(slayout),
        512,
    )
    vr, vc = valid or (rows, cols)
    return TileRef(geom, vr, vc, True, PadValue.Null, Placement(0, False), "raw", -1)


def gmref(devname, shape, dtype="float32", layout="ND"):
    dev = dev_(devname)
    buf = dev.gm_zeros((max(1, int(np.prod(shape))),), dtype)
    return pto.GlobalTensor(buf, shape, layout=layout).ref()


def check_raw(devname, cls, dst, table, idx, mode="row", rule="", operand="", scratch=None):
    instr = cls(dst, table, idx, Coalesce.parse(mode), GatherOOB.Undefined, scratch=scratch)
    with pytest.raises(pto.ConstraintError) as ei:
        instr.check(dev_(devname).arch)
    check_error(ei.value, rule, operand)


ROW_IDX8 = {"shape": (1, 1, 1, 1, 8)}

# (devname, dst factory, idx factory, attempt kwargs, rule, operand, code)
CASES = [
    # operand kinds and enums
    ("a2", lambda: vec("float32", 8, 8), lambda: ROW_IDX8, {}, "index-operand", "idx", "PTO101"),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: vec("int32", 1, 16),
        {},
        "index-operand",
        "idx",
        "PTO101",
    ),
    (
        "cpu",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {"scratch": {"shape": (1, 1, 1, 1, 64), "dtype": "float32"}},
        "scratch-operand",
        "scratch",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {"gather_exec": "simt"},
        "gather-exec",
        "gather_exec",
        "PTO102",
    ),
    (
        "a2",
        lambda: pto.Tile("Left", "float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {},
        "tile-location",
        "dst",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 8, 8),
        lambda: pto.Tile("Left", "int32", 1, 8),
        {},
        "tile-location",
        "idx",
        "PTO101",
    ),
    # dtypes
    (
        "a2",
        lambda: vec("float8_e4m3", 8, 32),
        lambda: vec("int32", 1, 8),
        {"shape": (8, 32)},
        "dtype",
        "dst",
        "PTO101",
    ),
    (
        "a3",
        lambda: vec("hifloat8", 8, 32),
        lambda: vec("int32", 1, 8),
        {"shape": (8, 32)},
        "dtype",
        "dst",
        "PTO101",
    ),
    (
        "cpu",
        lambda: vec("hifloat8", 8, 32),
        lambda: vec("int32", 1, 8),
        {"shape": (8, 32)},
        "dtype",
        "dst",
        "PTO101",
    ),
    ("950pr", lambda: vec("int64", 8, 8), lambda: vec("int32", 1, 8), {}, "dtype", "dst", "PTO101"),
    (
        "cpu",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {"tdtype": "int32"},
        "same-dtype",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 8, 8),
        lambda: vec("int16", 1, 16),
        {},
        "index-dtype",
        "idx",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8),
        lambda: vec("float32", 1, 8),
        {},
        "index-dtype",
        "idx",
        "PTO101",
    ),
    # cpu layouts and shapes
    (
        "cpu",
        lambda: vec("float32", 8, 8, blayout="ColMajor"),
        lambda: vec("int32", 1, 8),
        {},
        "dst-layout",
        "dst",
        "PTO101",
    ),
    (
        "cpu",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, blayout="ColMajor"),
        {"coalesce": "elem"},
        "index-layout",
        "idx",
        "PTO101",
    ),
    (
        "cpu",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {"layout": "DN"},
        "table-layout",
        "table",
        "PTO101",
    ),
    (
        "cpu",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 2, 8),
        {},
        "index-shape-row",
        "idx",
        "PTO101",
    ),
    (
        "cpu",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, valid=(8, 7)),
        {"coalesce": "elem"},
        "index-shape-elem",
        "idx",
        "PTO101",
    ),
    (
        "cpu",
        lambda: vec("float32", 8, 8, valid=(4, 8)),
        lambda: vec("int32", 4, 8),
        {"coalesce": "elem"},
        "index-rows",
        "idx",
        "PTO101",
    ),
    # a2a3
    (
        "a2",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, blayout="ColMajor", valid=(1, 8)),
        {},
        "index-layout",
        "idx",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 16),
        {},
        "layout-pairing",
        "dst",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 16, 8),
        lambda: vec("int32", 1, 16),
        {"shape": (1, 1, 1, 16, 8), "layout": "NZ"},
        "layout-pairing",
        "dst",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {"layout": "DN"},
        "table-layout",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 16),
        {"shape": (1, 1, 1, 16, 16), "layout": "NZ"},
        "nz-shape",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 16),
        {"shape": (1, 1, 2, 8, 8), "layout": "NZ"},
        "nz-shape",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("half", 8, 16, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 8),
        {"shape": (1, 1, 1, 16, 16), "layout": "NZ"},
        "nz-dst-rows",
        "dst",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("half", 16, 16, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 16),
        {"shape": (1, 2, 1, 16, 16), "layout": "NZ"},
        "nz-table-cols",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("half", 16, 32, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 16),
        {"shape": (1, 1, 1, 16, 16), "layout": "NZ"},
        "nz-table-cols",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 8, 8, valid=(0, 8)),
        lambda: vec("int32", 1, 8, valid=(1, 0)),
        {},
        "dst-valid-nonempty",
        "dst",
        "PTO101",
    ),
    (
        "a3",
        lambda: vec("float32", 8, 8, valid=(8, 0)),
        lambda: vec("int32", 8, 8, valid=(8, 0)),
        {"coalesce": "elem"},
        "dst-valid-nonempty",
        "dst",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, valid=(8, 1)),
        {},
        "index-shape-row",
        "idx",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8, valid=(1, 7)),
        {},
        "index-shape-row",
        "idx",
        "PTO101",
    ),
    (
        "a2",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, valid=(7, 8)),
        {"coalesce": "elem"},
        "index-shape-elem",
        "idx",
        "PTO101",
    ),
    # a5
    (
        "950pr",
        lambda: vec("float32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 16),
        {},
        "dst-layout",
        "dst",
        "PTO101",
    ),
    (
        "950dt",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, slayout="RowMajor", blayout="ColMajor"),
        {"coalesce": "elem"},
        "index-layout",
        "idx",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
        lambda: vec("int32", 1, 16),
        {"shape": (1, 1, 1, 16, 8), "layout": "NZ"},
        "dst-layout",
        "dst",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {"shape": (1, 1, 1, 16, 8), "layout": "NZ"},
        "table-layout",
        "table",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8, valid=(0, 8)),
        lambda: vec("int32", 1, 8, valid=(1, 0)),
        {},
        "dst-valid-nonempty",
        "dst",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, valid=(2, 4)),
        {},
        "index-shape-row",
        "idx",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, valid=(8, 1)),
        {},
        "index-layout-row",
        "idx",
        "PTO101",
    ),
    (
        "950dt",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, valid=(1, 8), blayout="ColMajor"),
        {},
        "index-layout-row",
        "idx",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 1, 8),
        {"shape": (1, 1, 1, 8, 16)},
        "table-row-width",
        "table",
        "PTO101",
    ),
    (
        "950pr",
        lambda: vec("float32", 8, 8),
        lambda: vec("int32", 8, 8, valid=(8, 4)),
        {"coalesce": "elem"},
        "index-shape-elem",
        "idx",
        "PTO101",
    ),
    # GM -> L1
    (
        "a2",
        lambda: pto.Tile("Mat", "float32", 16, 8),
        lambda: ROW_IDX8,
        {},
        "dst-layout",
        "dst",
        "PTO101",
    ),
    (
        "950pr",
        lambda: _mat_tile("float32", 1, 8),
        lambda: ROW_IDX8,
        {},
        "nz-dst-rows",
        "dst",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: ROW_IDX8,
        {"shape": (1, 1, 1, 8, 8), "layout": "DN"},
        "table-layout",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float8_e5m2", 16, 32),
        lambda: ROW_IDX8,
        {"shape": (8, 32)},
        "dtype",
        "dst",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (1, 8), "dtype": "int16"},
        {},
        "index-dtype",
        "idx",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (1, 8), "dtype": "int32"},
        {"tdtype": "half"},
        "same-dtype",
        "table",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (1, 8)},
        {"coalesce": "elem"},
        "scratch-required",
        "scratch",
        "PTO101",
    ),
    (
        "cpu",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (16, 8)},
        {"coalesce": "elem"},
        "scratch-required",
        "scratch",
        "PTO101",
    ),
    (
        "950pr",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (16, 8)},
        {"coalesce": "elem", "scratch": {"shape": (128,), "dtype": "half"}},
        "same-dtype",
        "scratch",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (16, 8)},
        {"coalesce": "elem", "scratch": {"shape": (127,), "dtype": "float32"}},
        "scratch-size",
        "scratch",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: ROW_IDX8,
        {"scratch": {"shape": (128,), "dtype": "float32"}},
        "scratch-row",
        "scratch",
        "PTO101",
    ),
    (
        "a2",
        lambda: _mat_tile("float32", 16, 8),
        lambda: ROW_IDX8,
        {},
        "index-shape-row",
        "idx",
        "PTO101",
    ),
    (
        "950pr",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (16, 4)},
        {"coalesce": "elem", "scratch": {"shape": (128,), "dtype": "float32"}},
        "index-shape-elem",
        "idx",
        "PTO101",
    ),
    (
        "950pr",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (1, 16)},
        {"gather_exec": "simt"},
        "gather-exec",
        "gather_exec",
        "PTO102",
    ),
    (
        "a3",
        lambda: _mat_tile("float32", 16, 8),
        lambda: {"shape": (16, 8)},
        {
            "coalesce": "elem",
            "gather_exec": "simt",
            "scratch": {"shape": (128,), "dtype": "float32"},
        },
        "gather-exec",
        "gather_exec",
        "PTO102",
    ),
]


@pytest.mark.parametrize(
    ("devname", "mk_dst", "mk_idx", "kw", "rule", "operand", "code"),
    CASES,
    ids=[f"{c[0]}-{c[4]}-{i}" for i, c in enumerate(CASES)],
)
def test_constraint(devname, mk_dst, mk_idx, kw, rule, operand, code):
    kw = dict(kw)
    shape = kw.pop("shape", (1, 1, 1, 8, 8))
    with pytest.raises(pto.ConstraintError) as ei:
        attempt(devname, mk_dst(), mk_idx(), shape=shape, **kw)
    check_error(ei.value, rule, operand, code)


def test_constraint_redundant_alignment_rules():
    """Rules the Tile constructor already enforces, reached with hand-built operands."""
    idx = raw_ref("Vec", "int32", 1, 8)
    table = gmref("cpu", (1, 1, 1, 8, 3))
    check_raw(
        "cpu",
        G.MGather,
        raw_ref("Vec", "float32", 3, 3, valid=(1, 3)),
        table,
        idx,
        rule="dst-32B-aligned",
        operand="dst",
    )
    check_raw(
        "a2",
        G.MGather,
        raw_ref("Vec", "float32", 3, 3, valid=(1, 3)),
        gmref("a2", (1, 1, 1, 8, 3)),
        idx,
        rule="dst-32B-aligned",
        operand="dst",
    )
    check_raw(
        "950pr",
        G.MGather,
        raw_ref("Vec", "float32", 3, 8, "ColMajor", valid=(1, 8)),
        gmref("950pr", (1, 1, 1, 8, 8)),
        idx,
        rule="dst-32B-aligned",
        operand="dst",
    )
    nz_dst = raw_ref("Vec", "half", 16, 8, "ColMajor", "RowMajor", valid=(16, 8))
    check_raw(
        "a2",
        G.MGather,
        nz_dst,
        gmref("a2", (1, 1, 1, 16, 16), "half", "NZ"),
        raw_ref("Vec", "int32", 1, 16),
        rule="nz-dst-cols",
        operand="dst",
    )
    mat = raw_ref("Mat", "half", 16, 8, "ColMajor", "RowMajor", valid=(16, 8))
    check_raw(
        "a2",
        G.MGatherL1,
        mat,
        gmref("a2", (1, 1, 1, 8, 8), "half"),
        gmref("a2", (1, 1, 1, 1, 16), "int32"),
        rule="nz-dst-cols",
        operand="dst",
    )


def test_constraint_row_dtype_size(monkeypatch):
    """GM -> L1 Row needs sizeof(T) <= 4 (every listed dtype satisfies it; widen the list)."""
    from ptosim.targets import spec_of

    a2a3 = spec_of("a2a3").dtypes
    monkeypatch.setitem(a2a3, "MGATHER", a2a3["MGATHER"] + (D.int64,))
    dst = raw_ref("Mat", "int64", 16, 4, "ColMajor", "RowMajor")
    check_raw(
        "a2",
        G.MGatherL1,
        dst,
        gmref("a2", (1, 1, 1, 8, 4), "int64"),
        gmref("a2", (1, 1, 1, 1, 16), "int32"),
        rule="row-dtype-size",
        operand="dst",
    )


def test_kernel_errors_for_bad_arguments():
    dev = dev_("cpu")
    tbuf = dev.gm_zeros((64,), "float32")
    dst, idx = vec("float32", 8, 8), vec("int32", 1, 8)

    for bad in ({"coalesce": "rows"}, {"oob": "skip"}, {"gather_exec": "gpu"}):

        @pto.kernel
        def k(bad=bad):
            pto.MGATHER(dst, pto.GlobalTensor(tbuf, (8, 8)), idx, **bad)

        with pytest.raises(pto.KernelError):
            dev.run(k)

    @pto.kernel
    def k2():
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, (8, 8)), np.zeros(8, np.int32))

    with pytest.raises(pto.KernelError, match="MGATHER idx"):
        dev.run(k2)


def test_enum_members_and_strings_are_equivalent():
    table = rng(32).standard_normal((10, 8)).astype(np.float32)
    index = np.array([[1, 12, 3, 4, 5, 6, 7, 0]], np.int32)
    outs = []
    for kw in (
        {"coalesce": pto.Coalesce.Row, "oob": pto.GatherOOB.Zero},
        {"coalesce": "ROW", "oob": "zero"},
        {"oob": "Zero"},
    ):
        dst, idx = vec("float32", 8, 8), vec("int32", 1, 8)
        outs.append(run_ub("a2", table, index, dst, idx, gshape=(1, 1, 1, 10, 8), **kw).tile(dst))
    assert all(np.array_equal(outs[0], o) for o in outs[1:])
    assert np.all(outs[0][1] == 0)


def test_overlapping_dst_and_idx_is_a_finding():
    dev = dev_("a2")
    tbuf = dev.gm_array(np.zeros(64, np.float32))
    dst, idx = vec("float32", 8, 8), vec("int32", 1, 8)

    @pto.kernel
    def k():
        pto.TASSIGN(dst, 0)
        pto.TASSIGN(idx, 0)
        pto.TEXPANDS(idx, 0)
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, (8, 8)), idx)

    run = dev.run(k)
    assert "tile-overlap" in [f.kind for f in run.findings]


def test_table_gm_out_of_buffer_is_an_error_before_writing():
    """A Row index in range of the capacity but whose row leaves the GM buffer (a2a3 reads
    k*stride3 for k < shape0*..*shape3 with a padded stride): OutOfBoundsError, dst untouched."""
    dev = dev_("a2")
    tbuf = dev.gm_array(np.zeros(8 * 8 + 8, np.float32))
    index = dev.gm_array(np.array([0, 1, 2, 3, 4, 5, 6, 7], np.int32))
    dst, idx = vec("float32", 8, 8), vec("int32", 1, 8)
    out = dev.gm_full((8, 8), "float32", 1.0)

    @pto.kernel
    def k():
        load_idx(idx, index)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        # capacity 2*4 = 8 rows at pitch stride3 = 10: row 7 spans elements 70..77 of 72
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, (1, 1, 2, 4, 8), (72, 72, 32, 10, 1)), idx)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (8, 8)), dst)

    with pytest.raises(pto.OutOfBoundsError, match="operand 'table' would access"):
        dev.run(k)
    assert np.all(out.numpy() == 1.0)


# -- hypothesis: gather == numpy take with the policy applied -------------------------------
@settings(max_examples=60, deadline=None)
@given(
    target=st.sampled_from(list(TARGET_DEV)),
    mode=st.sampled_from(["row", "elem"]),
    oob=st.sampled_from(POLICIES),
    n_rows=st.integers(0, 12),
    C=st.sampled_from([8, 16]),
    R=st.integers(1, 8),
    idx_uint=st.booleans(),
    data=st.data(),
)
def test_property_gather_matches_numpy(target, mode, oob, n_rows, C, R, idx_uint, data):
    table = np.arange(max(n_rows, 1) * C, dtype=np.int32) * 3 + 1
    cap = n_rows if mode == "row" else n_rows * C
    count = R if mode == "row" else R * C
    if oob == "undefined" and cap > 0:
        vals = data.draw(st.lists(st.integers(0, cap - 1), min_size=count, max_size=count))
    else:
        vals = data.draw(
            st.lists(
                st.one_of(st.integers(0, 2 * cap + 2), st.integers(-(2**31), 2**31 - 1)),
                min_size=count,
                max_size=count,
            )
        )
    idx_dt = np.uint32 if idx_uint else np.int32
    raw = np.array(vals, dtype=np.int64)
    index = (raw % 2**32).astype(np.uint32).view(idx_dt)
    if mode == "row":
        index = index.reshape(1, R)
        idx = vec(idx_dt, 1, 8, valid=(1, R))
    else:
        index = index.reshape(R, C)
        idx = vec(idx_dt, R, C)
    dst = vec("int32", R, C)
    run = run_ub(
        TARGET_DEV[target],
        table,
        index,
        dst,
        idx,
        gshape=(1, 1, 1, n_rows, C),
        coalesce=mode,
        oob=oob,
    )
    size_t = target == "cpu" and not idx_uint  # cpu sign-extends an int32 index to size_t
    k, ok = ref_policy(raw.reshape(index.shape), cap, oob, size_t=size_t)
    source = table[: n_rows * C].reshape(n_rows, C) if mode == "row" else table[: n_rows * C]
    expected = ref_take(
        source, k[0] if mode == "row" else k, ok[0] if mode == "row" else ok, np.int32
    )
    assert np.array_equal(run.tile(dst), expected)


@settings(max_examples=25, deadline=None)
@given(
    oob=st.sampled_from(POLICIES),
    L16=st.integers(1, 4),
    bc=st.integers(1, 3),
    R=st.integers(1, 16),
    mode=st.sampled_from(["row", "elem"]),
    data=st.data(),
)
def test_property_nz_matches_numpy(oob, L16, bc, R, mode, data):
    L, W, c0 = L16 * 16, bc * 16, 16
    table = (np.arange(L * W, dtype=np.int64) % 30000).astype(np.int16).reshape(L, W)
    buf, shape = nz_table(table, c0)
    cap = L if mode == "row" else L * W
    count = R if mode == "row" else R * W
    hi = cap - 1 if oob == "undefined" else 3 * cap
    vals = data.draw(
        st.lists(st.integers(-5 if oob != "undefined" else 0, hi), min_size=count, max_size=count)
    )
    index = np.array(vals, np.int32).reshape((1, R) if mode == "row" else (R, W))
    Rows = 16 * -(-R // 16)
    dst = vec("int16", Rows, W, valid=(R, W), blayout="ColMajor", slayout="RowMajor")
    idx = vec("int32", 1, 16, valid=(1, R)) if mode == "row" else vec("int32", R, W)
    run = run_ub("a2", buf, index, dst, idx, gshape=shape, glayout="NZ", coalesce=mode, oob=oob)
    k, ok = ref_policy(index, cap, oob)
    if mode == "row":
        expected = ref_take(table, k[0], ok[0], np.int16)
    else:
        expected = ref_take(table.reshape(-1), k, ok, np.int16)
    assert np.array_equal(run.tile(dst), expected)


@pytest.mark.parametrize("target", list(TARGET_DEV))
@pytest.mark.parametrize("oob", ["clamp", "wrap", "zero"])
def test_gm2l1_row_capacity_and_zero_prefill(target, oob):
    """GM -> L1 Row: capacity shape0*..*shape3 on a2a3 and a5 (cpu: shape[3]); with Zero the
    NPU pre-zeroes the whole L1 tile, the cpu only the OOB rows."""
    dev = dev_(TARGET_DEV[target])
    C, R = 8, 4
    table = rng(33).standard_normal((8, C)).astype(np.float32)
    index = np.array([5, 7, 3, 9], np.int32)
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(index)
    dst = _mat_tile("float32", 16, 8, valid=(R, C))

    @pto.kernel
    def k():
        pto.MGATHER(
            dst,
            pto.GlobalTensor(tbuf, (1, 1, 2, 4, C)),
            pto.GlobalTensor(ibuf, (1, 1, 1, 1, R)),
            oob=oob,
        )

    run = dev.run(k)
    cap = 4 if target == "cpu" else 8
    kk, ok = ref_policy(index, cap, oob)
    expected = ref_take(table, kk, ok, np.float32)
    assert np.array_equal(run.tile(dst), expected)
    storage = poison(16 * 8, np.float32)
    if oob == "zero" and target != "cpu":
        storage[:] = 0
    r, c = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    storage[nz_off(r, c, 16, 8)] = expected
    assert bits(run.tile_storage(dst)) == bits(storage)
