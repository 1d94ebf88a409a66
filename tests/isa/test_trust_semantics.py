"""Issue 10 ("Trustworthy verdicts"), semantic items for MGATHER / MSCATTER / TROWEXPAND*.

The rule: ``cpu`` reproduces the CPU simulator (except its documented bugs), the NPU devices
reproduce the NPU implementations (reference/semantics.md). Every expected value below is
computed independently (Python integers, ``math.exp``, explicit std::max formulas), never taken
from the simulator.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptosim as pto
from tests.helpers.devices import NPU_DEVICES, ONE_PER_TARGET

NPU = NPU_DEVICES
ALL = ("cpu",) + NPU
HSET = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
NP = {"float32": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def sync(src, dst):
    pto.set_flag(src, dst, pto.EVENT_ID0)
    pto.wait_flag(src, dst, pto.EVENT_ID0)


def bits(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def gather(devname, table_buf, gshape, gstride, index, *, mode, oob="undefined", idx_tile=None):
    """MGATHER into an R x 8 float32 tile (valid = index shape for Elem, (R, C) for Row)."""
    dev = pto.Device(devname)
    tbuf = dev.gm_array(table_buf)
    index = np.asarray(index, np.int32)
    colmajor = idx_tile is not None and idx_tile[2] == "ColMajor"
    ibuf = dev.gm_array(np.ascontiguousarray(index.T) if colmajor else index)
    if mode == "elem":
        valid = index.shape
    else:
        valid = (index.size, gshape[4])
    dst = pto.Tile("Vec", "float32", valid[0], 8, valid=valid)
    if idx_tile is None:
        idx = pto.Tile("Vec", "int32", index.shape[0], 8, valid=index.shape)
    else:
        idx = pto.Tile("Vec", "int32", idx_tile[0], idx_tile[1], idx_tile[2], valid=index.shape)

    @pto.kernel
    def k():
        pto.TASSIGN(dst, 0)
        pto.TASSIGN(idx, 0x1000)
        pto.TLOAD(
            idx,
            pto.GlobalTensor(ibuf, (1, 1, 1) + index.shape, layout="DN" if colmajor else "ND"),
        )
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, gshape, gstride), idx, coalesce=mode, oob=oob)

    run = dev.run(k)
    return run.tile(dst), run


def scatter(devname, table, gshape, gstride, src, index, *, mode, idx_tile=None, **policy):
    """MSCATTER a float32 source through an int32 index; returns (table buffer after, run)."""
    dev = pto.Device(devname)
    tbuf = dev.gm_array(np.asarray(table, np.float32))
    src = np.asarray(src, np.float32)
    index = np.asarray(index, np.int32)
    colmajor = idx_tile is not None and idx_tile[2] == "ColMajor"
    sbuf = dev.gm_array(src)
    ibuf = dev.gm_array(np.ascontiguousarray(index.T) if colmajor else index)
    s = pto.Tile("Vec", "float32", src.shape[0], 8, valid=src.shape)
    if idx_tile is None:
        idx = pto.Tile("Vec", "int32", index.shape[0], 8, valid=index.shape)
    else:
        idx = pto.Tile("Vec", "int32", idx_tile[0], idx_tile[1], idx_tile[2], valid=index.shape)

    @pto.kernel
    def k():
        pto.TASSIGN(s, 0)
        pto.TASSIGN(idx, 0x1000)
        pto.TLOAD(s, pto.GlobalTensor(sbuf, (1, 1, 1) + src.shape))
        pto.TLOAD(
            idx,
            pto.GlobalTensor(ibuf, (1, 1, 1) + index.shape, layout="DN" if colmajor else "ND"),
        )
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.MSCATTER(pto.GlobalTensor(tbuf, gshape, gstride), s, idx, coalesce=mode, **policy)

    run = dev.run(k)
    return tbuf.numpy(), run


# == item 1: Elem addresses the raw element pointer ==========================================
STRIDED = dict(gshape=(1, 1, 1, 3, 2), gstride=(12, 12, 12, 4, 1))  # stride[3] != shape[4]


@pytest.mark.parametrize("devname", ALL)
def test_mgather_elem_strided_table_reads_raw_elements(devname):
    buf = np.arange(12, dtype=np.float32) + 100
    got, _ = gather(devname, buf, index=[np.arange(6)], mode="elem", **STRIDED)
    np.testing.assert_array_equal(got[0], buf[:6])  # elements 0..5, not 0, 1, 4, 5, 8, 9


@pytest.mark.parametrize("devname", ("cpu", "a2", "950pr"))
def test_mgather_elem_scalar_fallback_strided(devname):
    """a5 static (1, 1) Elem is the scalar fallback: it reads table_ptr[k] too."""
    buf = np.arange(12, dtype=np.float32) + 100
    got, _ = gather(devname, buf, index=[[3]], mode="elem", **STRIDED)
    assert got[0, 0] == buf[3]  # (the strided walk would give buf[5])


@pytest.mark.parametrize("policy", [{}, {"conflict": "default"}, {"atomic": "add"}])
@pytest.mark.parametrize("devname", ALL)
def test_mscatter_elem_strided_table_writes_raw_elements(devname, policy):
    if devname == "cpu" and policy.get("conflict") == "default":
        policy = {}
    if devname in ("a2", "a3") and "conflict" in policy:
        policy = {}
    table = np.zeros(12, np.float32)
    src = np.arange(1, 7, dtype=np.float32)[None, :]
    out, _ = scatter(devname, table, src=src, index=[[5, 0, 2, 4, 1, 3]], mode="elem", **STRIDED,
                     **policy)  # fmt: skip
    want = np.zeros(12, np.float32)
    want[[5, 0, 2, 4, 1, 3]] = src[0]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("devname", ("950pr",))
def test_mscatter_elem_scalar_fallback_strided(devname):
    out, _ = scatter(devname, np.zeros(12), src=[[7.0]], index=[[3]], mode="elem", **STRIDED)
    want = np.zeros(12, np.float32)
    want[3] = 7
    np.testing.assert_array_equal(out, want)


def _gather_and_store(devname, store_first: int):
    """Block 0: MGATHER Elem reads raw elements [0, 6) of a strided table. Block 1: TSTORE writes
    elements [store_first, store_first + 6) of the same buffer (blocks are not synchronised)."""
    dev = pto.Device(devname)
    tbuf = dev.gm_array(np.arange(24, dtype=np.float32))
    ibuf = dev.gm_array(np.arange(6, dtype=np.int32)[None, :])
    obuf = dev.gm_array(np.ones((1, 6), np.float32))

    @pto.kernel
    def k():
        dst = pto.Tile("Vec", "float32", 1, 8, valid=(1, 6))
        idx = pto.Tile("Vec", "int32", 1, 8, valid=(1, 6))
        pto.TASSIGN(dst, 0)
        pto.TASSIGN(idx, 0x1000)
        if pto.get_block_idx() == 0:
            pto.TLOAD(idx, pto.GlobalTensor(ibuf, (1, 1, 1, 1, 6)))
            sync(pto.PIPE_MTE2, pto.PIPE_V)
            table = pto.GlobalTensor(tbuf, STRIDED["gshape"], STRIDED["gstride"])
            pto.MGATHER(dst, table, idx, coalesce="elem")
        else:
            pto.TLOAD(dst, pto.GlobalTensor(obuf, (1, 1, 1, 1, 6)))
            sync(pto.PIPE_MTE2, pto.PIPE_MTE3)
            pto.TSTORE(pto.GlobalTensor(tbuf, (1, 1, 1, 1, 6), offset=store_first), dst)

    return dev.run(k, block_dim=2)


@pytest.mark.parametrize("devname", ("a2", "950pr"))
def test_plan_gm_region_is_the_raw_elements(devname):
    """The timed plans declare the GM bytes the semantics read: a store to raw elements [6, 12)
    does not touch the gather (the strided walk read elements up to 9); one to [4, 10) does."""
    races = [f for f in _gather_and_store(devname, 6).findings if f.code == "F205"]
    assert races == []
    races = [f for f in _gather_and_store(devname, 4).findings if f.code == "F205"]
    assert races and "MGATHER" in races[0].message


# == item 2: TROWEXPANDEXPDIF rounding ========================================================
def _finite(dt: str, n: int):
    if dt == "float32":
        return st.lists(st.floats(-30, 30, width=32, allow_nan=False), min_size=n, max_size=n).map(
            lambda v: np.array(v, np.float32)
        )
    lim = 11.0 if dt == "half" else 30.0
    return st.lists(
        st.floats(-lim, lim, width=16 if dt == "half" else 32, allow_nan=False),
        min_size=n,
        max_size=n,
    ).map(lambda v: np.array(v, np.float32).astype(NP[dt]))


def ref_expdif(dt: str, a, b):
    """exp(a - b): the difference rounded to T (exact in float64, then one rounding), then libm
    exp (math.exp) in double, rounded once to T."""
    npdt = NP[dt]
    d = (np.asarray(a, np.float64) - np.asarray(b, np.float64)).astype(npdt).astype(np.float64)
    out = []
    for x in d.ravel():
        try:
            out.append(math.exp(float(x)))
        except OverflowError:
            out.append(math.inf)
    with np.errstate(over="ignore"):  # a double past T's range rounds to inf
        return np.array(out, np.float64).reshape(d.shape).astype(npdt)


def _run_rowexpand(devname, op, dt, full, col, *, expanded="src1", extra=()):
    dev = pto.Device(devname)
    R, C = full.shape
    b = 32 // np.dtype(NP[dt]).itemsize
    cols = -(-C // b) * b
    f = pto.Tile("Vec", dt, R, cols, valid=(R, C))
    e = pto.Tile("Vec", dt, -(-R // b) * b, 1, "ColMajor", valid=(R, 1))
    d = pto.Tile("Vec", dt, R, cols, valid=(R, C))
    fb, eb = dev.gm_array(full), dev.gm_array(np.ascontiguousarray(col.T))
    s0, s1 = (f, e) if expanded == "src1" else (e, f)

    @pto.kernel
    def k():
        pto.TASSIGN(f, 0)
        pto.TASSIGN(e, 0x4000)
        pto.TASSIGN(d, 0x8000)
        pto.TLOAD(f, pto.GlobalTensor(fb, (1, 1, 1, R, C)))
        pto.TLOAD(e, pto.GlobalTensor(eb, (1, 1, 1, R, 1), layout="DN"))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        getattr(pto, f"TROWEXPAND{op}")(d, s0, s1, *extra)

    run = dev.run(k)
    return run.tile(d), run


@pytest.mark.parametrize(
    "devname,dt",
    [("cpu", "float32"), ("cpu", "half"), ("a2", "float32"), ("a2", "half"),
     ("950pr", "float32"), ("950pr", "half"), ("950pr", "bfloat16")],
)  # fmt: skip
@HSET
@given(data=st.data())
def test_expdif_rounds_like_the_reference(devname, dt, data):
    R, C = 2, 8
    full = data.draw(_finite(dt, R * C)).reshape(R, C)
    col = data.draw(_finite(dt, R)).reshape(R, 1)
    for expanded in ("src1", "src0"):
        got, _ = _run_rowexpand(devname, "EXPDIF", dt, full, col, expanded=expanded)
        bc = np.broadcast_to(col, (R, C))
        a, b = (full, bc) if expanded == "src1" else (bc, full)
        np.testing.assert_array_equal(bits(got), bits(ref_expdif(dt, a, b)))


def test_expdif_float32_differs_from_float32_exp():
    """The point of item 2: float32 np.exp is not the double exp rounded once."""
    x = np.float32(0.3)  # exp(0.3): float32 exp and the rounded double exp differ here
    full = np.full((1, 8), x, np.float32)
    col = np.zeros((1, 1), np.float32)
    got, _ = _run_rowexpand("cpu", "EXPDIF", "float32", full, col)
    assert bits(got[0, 0]) == bits(np.float32(math.exp(float(x))))


def test_expdif_half_rounds_the_difference_first():
    a, b = np.float16(2.0), np.float16(2.0**-12)  # 2 - b is not a half: it rounds to 2.0
    assert np.float16(math.exp(2.0 - 2.0**-12)) != np.float16(math.exp(2.0))
    full = np.full((1, 16), a, np.float16)
    got, _ = _run_rowexpand("cpu", "EXPDIF", "half", full, np.full((1, 1), b, np.float16))
    assert got[0, 0] == np.float16(math.exp(2.0))


# == item 3: cpu index tiles ==================================================================
def test_cpu_mgather_row_colmajor_index():
    table = np.arange(10 * 8, dtype=np.float32).reshape(10, 8)
    index = np.array([[7], [2], [9], [0], [4], [4], [1], [3]], np.int32)
    got, _ = gather("cpu", table, (1, 1, 1, 10, 8), None, index, mode="row",
                    idx_tile=(8, 1, "ColMajor"))  # fmt: skip
    np.testing.assert_array_equal(got, table[index[:, 0]])


def test_cpu_mscatter_row_colmajor_index():
    src = np.arange(64, dtype=np.float32).reshape(8, 8)
    index = np.array([[7], [2], [9], [0], [4], [5], [1], [3]], np.int32)
    out, _ = scatter("cpu", np.zeros((10, 8)), (1, 1, 1, 10, 8), None, src, index, mode="row",
                     idx_tile=(8, 1, "ColMajor"))  # fmt: skip
    want = np.zeros((10, 8), np.float32)
    want[index[:, 0]] = src
    np.testing.assert_array_equal(out, want)


def size_t_wrap(v: int, cap: int) -> int:
    return (v % (1 << 64)) % cap


def uint32_wrap(v: int, cap: int) -> int:
    return (v % (1 << 32)) % cap


@pytest.mark.parametrize("devname", ("cpu", "a2", "950pr"))
def test_negative_index_wrap_cpu_size_t_npu_uint32(devname):
    wrap = size_t_wrap if devname == "cpu" else uint32_wrap
    assert (size_t_wrap(-1, 7), uint32_wrap(-1, 7)) == (1, 3)
    table = np.arange(7 * 8, dtype=np.float32).reshape(7, 8)
    got, _ = gather(devname, table, (1, 1, 1, 7, 8), None, [[-1]], mode="row", oob="wrap")
    np.testing.assert_array_equal(got[0], table[wrap(-1, 7)])
    out, _ = scatter(devname, np.zeros((7, 8)), (1, 1, 1, 7, 8), None, np.ones((1, 8)), [[-1]],
                     mode="row", oob="wrap")  # fmt: skip
    assert (out[wrap(-1, 7)] == 1).all() and np.count_nonzero(out) == 8


@pytest.mark.parametrize("devname", ("cpu", "a2", "950pr"))
@HSET
@given(
    values=st.lists(st.integers(-(2**31), 2**31 - 1), min_size=8, max_size=8),
    cap=st.integers(1, 60),
    oob=st.sampled_from(["clamp", "wrap", "zero"]),
)
def test_elem_index_conversion_per_target(devname, values, cap, oob):
    """Elem gather with random int32 indices: cpu converts through size_t, NPUs through
    uint32; each policy on Python integers."""
    modulus = 1 << (64 if devname == "cpu" else 32)
    table = np.arange(cap, dtype=np.float32) + 1
    got, _ = gather(devname, table, (1, 1, 1, 1, cap), None, [values], mode="elem", oob=oob)
    want = []
    for v in values:
        k = v % modulus
        if oob == "clamp":
            want.append(table[min(k, cap - 1)])
        elif oob == "wrap":
            want.append(table[k % cap])
        else:
            want.append(table[k] if k < cap else 0)
    np.testing.assert_array_equal(got[0], np.array(want, np.float32))


# == item 4: Max / Min with NaN and signed zeros ==============================================
SPECIAL = [np.nan, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5]


def std_max(a, b):  # std::max(a, b): (a < b) ? b : a
    return b if a < b else a


def std_min(a, b):  # std::min(a, b): (b < a) ? b : a
    return b if b < a else a


def ieee(op, a, b):
    """IEEE 754-2019 maximum / minimum: NaN if either is NaN, -0 < +0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    key = lambda x: (x, math.copysign(1.0, x))  # noqa: E731  (-0 sorts below +0)
    return max(a, b, key=key) if op == "MAX" else min(a, b, key=key)


def _expect(devname, op, a, b):
    if devname == "cpu":
        return (std_max if op == "MAX" else std_min)(a, b)
    return ieee(op, a, b)


@pytest.mark.parametrize("devname", ("cpu", "a2", "950pr"))
@pytest.mark.parametrize("op", ("MAX", "MIN"))
@HSET
@given(
    full=st.lists(st.sampled_from(SPECIAL), min_size=16, max_size=16),
    col=st.lists(st.sampled_from(SPECIAL), min_size=2, max_size=2),
    expanded=st.sampled_from(["src0", "src1"]),
)
def test_rowexpand_max_min_nan_signed_zero(devname, op, full, col, expanded):
    f = np.array(full, np.float32).reshape(2, 8)
    c = np.array(col, np.float32).reshape(2, 1)
    got, _ = _run_rowexpand(devname, op, "float32", f, c, expanded=expanded)
    want = np.empty((2, 8), np.float32)
    for i in range(2):
        for j in range(8):
            a, b = (f[i, j], c[i, 0]) if expanded == "src1" else (c[i, 0], f[i, j])
            want[i, j] = _expect(devname, op, float(a), float(b))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(bits(got[ok]), bits(want[ok]))  # the sign of zeros too


@pytest.mark.parametrize("devname", ("cpu", "a2", "950pr"))
@pytest.mark.parametrize("op", ("MAX", "MIN"))
def test_rowexpand_signed_zeros_both_orders(devname, op):
    """Every (src0, src1) order of (+0, -0) and (1, NaN), explicitly."""
    f = np.array([[0.0, -0.0, 1.0, np.nan] * 2, [-0.0, 0.0, np.nan, 1.0] * 2], np.float32)
    c = np.array([[-0.0], [0.0]], np.float32)
    c_nan = np.array([[np.nan], [1.0]], np.float32)
    for col in (c, c_nan):
        for expanded in ("src1", "src0"):
            got, _ = _run_rowexpand(devname, op, "float32", f, col, expanded=expanded)
            for i in range(2):
                for j in range(8):
                    a, b = (f[i, j], col[i, 0]) if expanded == "src1" else (col[i, 0], f[i, j])
                    want = np.float32(_expect(devname, op, float(a), float(b)))
                    if np.isnan(want):
                        assert np.isnan(got[i, j])
                    else:
                        assert bits(got[i, j]) == bits(want), (a, b, got[i, j], want)


@pytest.mark.parametrize("devname", ("cpu", "950pr"))
@pytest.mark.parametrize("op", ("max", "min"))
@HSET
@given(
    table=st.lists(st.sampled_from(SPECIAL), min_size=8, max_size=8),
    src=st.lists(st.sampled_from(SPECIAL), min_size=8, max_size=8),
    perm=st.permutations(range(8)),
)
def test_mscatter_max_min_nan_signed_zero(devname, op, table, src, perm):
    """Elem atomic Max/Min, one source per slot: cpu std::max(table, src), a5 IEEE."""
    t = np.array(table, np.float32)
    out, _ = scatter(devname, t[None, :], (1, 1, 1, 1, 8), None, [src], [list(perm)],
                     mode="elem", atomic=op)  # fmt: skip
    want = t.copy()
    for v, k in zip(src, perm):
        want[k] = _expect(devname, op.upper(), float(want[k]), float(v))
    out = out.reshape(-1)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(bits(out[ok]), bits(want[ok]))


# == item 6: vendor TROWEXPANDMAX shapes ======================================================
def _vendor_max(devname, *, tmp_rows=16, victim_at=None, victim_live=True, src0_after_tmp=False):
    """TROWEXPANDMAX on a valid 16x16 region of 32x32 tiles, mode 1 with a [16, 1] tmp (the
    vendor's test shapes). ``victim_at``: UB address of another tile, loaded before and stored
    after when ``victim_live``."""
    dev = pto.Device(devname)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((16, 16)).astype(np.float32)
    s = rng.standard_normal((16, 1)).astype(np.float32)
    v = rng.standard_normal((8, 8)).astype(np.float32)
    ab, sb, vb = dev.gm_array(a), dev.gm_array(np.ascontiguousarray(s.T)), dev.gm_array(v)
    vout = dev.gm_zeros((8, 8), "float32")
    src0 = pto.Tile("Vec", "float32", 32, 32, valid=(16, 16))
    dst = pto.Tile("Vec", "float32", 32, 32, valid=(16, 16))
    src1 = pto.Tile("Vec", "float32", 32, 1, "ColMajor", valid=(16, 1))
    tmp = pto.Tile("Vec", "float32", tmp_rows, 1, "ColMajor", valid=(tmp_rows, 1))
    victim = pto.Tile("Vec", "float32", 8, 8, name="victim")
    tmp_addr = 0x10000

    @pto.kernel
    def k():
        pto.TASSIGN(src0, tmp_addr + tmp.geom.size_bytes if src0_after_tmp else 0)
        pto.TASSIGN(dst, 0x4000)
        pto.TASSIGN(src1, 0x8000)
        pto.TASSIGN(tmp, tmp_addr)
        if victim_at is not None:
            pto.TASSIGN(victim, victim_at)
            if victim_live:
                pto.TLOAD(victim, pto.GlobalTensor(vb, (1, 1, 1, 8, 8)))
        pto.TLOAD(src0, pto.GlobalTensor(ab, (1, 1, 1, 16, 16)))
        pto.TLOAD(src1, pto.GlobalTensor(sb, (1, 1, 1, 16, 1), layout="DN"))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TROWEXPANDMAX(dst, src0, src1, tmp)
        if victim_at is not None and victim_live:
            sync(pto.PIPE_V, pto.PIPE_MTE3)
            pto.TSTORE(pto.GlobalTensor(vout, (1, 1, 1, 8, 8)), victim)

    run = dev.run(k)
    return run, run.tile(dst), np.maximum(a, s), vout.numpy(), v


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_vendor_16x16_in_32x32_with_16x1_tmp_runs(devname):
    run, got, want, *_ = _vendor_max(devname)
    np.testing.assert_array_equal(got, want)
    assert run.findings == []


def test_tmp_overrun_onto_live_tile_is_a_finding():
    """a2a3 vbrcb writes ceil(16/8)*256 = 512 bytes from tmp's address; tmp has 64: a live tile
    right after tmp is clobbered (the data shows it) and F204 says so."""
    run, got, want, vout, v = _vendor_max("a2", victim_at=0x10000 + 64)
    np.testing.assert_array_equal(got, want)
    f204 = [f for f in run.findings if f.code == "F204"]
    assert len(f204) == 1 and "victim" in f204[0].message and "tmp" in f204[0].message
    assert not np.array_equal(vout, v)  # the broadcast blocks overwrote the victim


def test_tmp_overrun_onto_dead_tile_is_not_a_finding():
    run, got, want, *_ = _vendor_max("a2", victim_at=0x10000 + 64, victim_live=False)
    np.testing.assert_array_equal(got, want)
    assert [f.code for f in run.findings] == []


def test_tmp_overrun_onto_an_operand_is_a_finding():
    run, got, _, *_ = _vendor_max("a2", src0_after_tmp=True)
    assert [f.code for f in run.findings if f.code == "F105"] == ["F105"]


# == item 18: 950 MSCATTER Conflict::Last costs the scattered elements ========================
def _last_run(rows, cols, R, C, index):
    src = np.arange(1, R * C + 1, dtype=np.float32).reshape(R, C)
    out, run = scatter("950pr", np.zeros((rows, cols)), (1, 1, 1, rows, cols), None, src,
                       index, mode="elem", conflict="last")  # fmt: skip
    return out, run, src


@pytest.mark.slow
def test_last_elem_big_table_work_is_proportional_to_the_scatter():
    """8x8 scatter into a 100000 x 128 table: the launch has O(scattered + warps) warp
    instructions (the per-slot lowering had 12.8M / 32 = 400000), and the result is the
    largest-source-index winner."""
    rows, cols, R, C = 100000, 128, 8, 8
    rng = np.random.default_rng(3)
    index = rng.integers(0, rows * cols, (R, C)).astype(np.int32)
    index[1, 2] = index[5, 6]  # a duplicate: the larger flat index (5, 6) wins
    out, run, src = _last_run(rows, cols, R, C, index)
    simt = [e for e in run.trace.events if e.pipe.startswith("SIMT_SCHED")]
    assert len(simt) <= 4 * R * C + 2 * 32
    want = np.zeros(rows * cols, np.float32)
    for flat in range(R * C):  # ascending: the largest flat source index lands last
        want[index.reshape(-1)[flat]] = src.reshape(-1)[flat]
    np.testing.assert_array_equal(out.reshape(-1), want)
    # the modelled reverse scan still scales with the table: every slot scans R*C entries
    scan = run.config.timing.simt.scan_iteration_cycles
    assert run.cycles >= (rows * cols // 1024) * R * C * scan


@pytest.mark.parametrize("mode", ["elem", "row"])
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.integers(1, 300),
    R=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_last_merged_scans_keep_the_modelled_cycles(monkeypatch, mode, rows, R, seed):
    """Merging idle reverse-scan iterations keeps the per-slot lowering's cycles, up to the
    latency tail of one copy (the copies of a warp may issue earlier relative to other warps'
    scans): |merged - per-slot| <= gm_latency + ub_latency."""
    import ptosim.targets.a5.memory as A5

    C = 8
    cap = rows * C if mode == "elem" else rows
    rng = np.random.default_rng(seed)
    shape = (R, C) if mode == "elem" else (1, R)
    index = rng.integers(0, cap, shape).astype(np.int32)
    cycles, outs = [], []
    for merge in (True, False):
        monkeypatch.setattr(A5, "MERGE_IDLE_SCANS", merge)  # (raises if the switch is missing)
        src = np.arange(1, R * C + 1, dtype=np.float32).reshape(R, C)
        out, run = scatter("950pr", np.zeros((rows, C)), (1, 1, 1, rows, C), None, src, index,
                           mode=mode, conflict="last")  # fmt: skip
        cycles.append(run.cycles)
        outs.append(out)
    simt = run.config.timing.simt
    assert abs(cycles[0] - cycles[1]) <= simt.gm_latency_cycles + simt.ub_latency_cycles
    np.testing.assert_array_equal(outs[0], outs[1])
