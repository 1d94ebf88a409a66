"""The 950 MX mad (mad_mx) with its scale loads (load_cbuf_to_ca_mx / _cb_mx) and fp4 cube tiles.

Expected values come from an independent numpy formulation: fp4 values from the OCP MX tables
written out by hand (E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6; E1M2: 0, 0.25 ... 1.75; bit 3 the sign),
fp8 through ml_dtypes, e8m0 scales built by hand as 2^(byte - 127), and
C = (A * sA repeated over each 32-wide K group) @ (B * sB likewise) in float64. The inputs keep
every sum exact in float32, so the order of the sum does not matter. The scales go through L1
in the 16 x 2 fractal order npu/a5 TExtract.hpp gives them (A: ZZ, B: B transposed in ZZ),
built here by hand from the logical scale matrices.
"""

import ml_dtypes
import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import PtoSimError
from ptosim.isa.cube import mx
from tests.helpers.layout import sync

E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
E1M2 = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]
FP4 = {"float4_e2m1": E2M1, "float4_e1m2": E1M2}


def _fp4_values(fields: np.ndarray, name: str) -> np.ndarray:
    mags = np.array(FP4[name])
    return np.where(fields & 8, -1.0, 1.0) * mags[fields & 7]


def _pack(fields: np.ndarray) -> np.ndarray:
    """Pairs of 4-bit fields along the last axis into bytes, the first in the low nibble."""
    return (fields[..., 0::2] | (fields[..., 1::2] << 4)).astype(np.uint8)


def _zz_fractals(scales: np.ndarray) -> np.ndarray:
    """A rows x groups scale matrix as 16 x 2 fractals in ZZ order (row blocks, then the
    fractals of a row block left to right, each fractal row by row)."""
    rows, groups = scales.shape
    f = scales.reshape(rows // 16, 16, groups // 2, 2).transpose(0, 2, 1, 3)
    return f.reshape(-1).astype(np.uint8)


def _inputs(a_dt: str, b_dt: str, m: int, k: int, n: int, seed: int):
    """(A data, B data, A values, B values): fp4 as fields, fp8 as their bytes."""
    rng = np.random.default_rng(seed)
    out = []
    for dt, shape in ((a_dt, (m, k)), (b_dt, (k, n))):
        if dt in FP4:
            fields = rng.integers(0, 16, shape).astype(np.uint8)
            out.append((fields, _fp4_values(fields, dt)))
        else:
            npdt = {"float8_e4m3": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}
            vals = rng.choice([-3.0, -1.5, -0.5, 0.0, 0.25, 1.0, 2.0, 3.5], shape)
            out.append((vals.astype(npdt[dt]), vals))
    (a, av), (b, bv) = out
    return a, b, av, bv


def _golden(av, bv, sa_bytes, sb_bytes):
    sa = np.ldexp(1.0, sa_bytes.astype(np.int64) - 127)
    sb = np.ldexp(1.0, sb_bytes.astype(np.int64) - 127)
    sa = np.where(sa_bytes == 0xFF, np.nan, sa)
    sb = np.where(sb_bytes == 0xFF, np.nan, sb)
    a = av * np.repeat(sa, 32, axis=1)
    b = bv * np.repeat(sb, 32, axis=0)
    return (a @ b).astype(np.float32)


def _scale_left(rows: int, groups: int) -> pto.Tile:
    """A TileLeftScale: 16 x 2 fractals, ZZ."""
    return pto.Tile("ScaleLeft", "float8_e8m0", rows, groups, "RowMajor", slayout="RowMajor",
                    fractal=32)  # fmt: skip


def _scale_right(groups: int, cols: int) -> pto.Tile:
    """A TileRightScale: 2 x 16 fractals, column-major (NN)."""
    return pto.Tile("ScaleRight", "float8_e8m0", groups, cols, "ColMajor", slayout="ColMajor",
                    fractal=32)  # fmt: skip


def _run(a_dt, b_dt, m, k, n, *, a_dn=False, b_nd=False, seed=0, sa=None, sb=None):
    """A (m x k) and B (k x n) through L1 (A: ND -> NZ, or DN -> ZN with a_dn; B: DN -> ZN, or
    ND -> NZ with b_nd), TMOV into Left / Right (transposing from ZN / NZ), the scales through
    L1 into the scale areas, one mad_mx, TSTORE: (result, golden)."""
    a, b, av, bv = _inputs(a_dt, b_dt, m, k, n, seed)
    rng = np.random.default_rng(seed + 1)
    g = k // 32
    sa = rng.integers(125, 130, (m, g)).astype(np.uint8) if sa is None else sa
    sb = rng.integers(125, 130, (g, n)).astype(np.uint8) if sb is None else sb
    packed = {a_dt in FP4, b_dt in FP4} == {True}
    # GM images: A row-major (ND) or column-major (DN), B column-major (DN) or row-major (ND);
    # fp4 fields packed two per byte along the contiguous dimension
    a_img = a.T if a_dn else a
    b_img = b if b_nd else b.T
    if packed:
        a_img, b_img = _pack(np.ascontiguousarray(a_img)), _pack(np.ascontiguousarray(b_img))
    dev = pto.Device("950pr")
    ga = dev.gm_array(np.ascontiguousarray(a_img).view(np.uint8))
    gb = dev.gm_array(np.ascontiguousarray(b_img).view(np.uint8))
    scales = np.concatenate([_zz_fractals(sa), _zz_fractals(np.ascontiguousarray(sb.T))])
    gs = dev.gm_array(scales.reshape(1, -1))
    out = dev.gm_zeros((m, n), "float32")
    na, nb = m * g, n * g  # scale bytes of A and B

    @pto.kernel(cores="cube")
    def kern(ga, gb, gs, out):
        if a_dn:
            a_mat = pto.Tile("Mat", a_dt, m, k, "RowMajor", slayout="ColMajor")
            a_gm = pto.GlobalTensor(ga, (1, 1, 1, m, k), (m * k, m * k, m * k, 1, m), "DN",
                                    dtype=a_dt)  # fmt: skip
        else:
            a_mat = pto.TileMatNZ(a_dt, m, k)
            a_gm = pto.GlobalTensor(ga, (1, 1, 1, m, k), dtype=a_dt)
        if b_nd:
            b_mat = pto.TileMatNZ(b_dt, k, n)
            b_gm = pto.GlobalTensor(gb, (1, 1, 1, k, n), dtype=b_dt)
        else:
            b_mat = pto.Tile("Mat", b_dt, k, n, "RowMajor", slayout="ColMajor")
            b_gm = pto.GlobalTensor(gb, (1, 1, 1, k, n), (k * n, k * n, k * n, 1, k), "DN",
                                    dtype=b_dt)  # fmt: skip
        s_mat = pto.Tile("Mat", "uint8", 1, na + nb)
        pto.TASSIGN(a_mat, 0)
        pto.TASSIGN(b_mat, 0x10000)
        pto.TASSIGN(s_mat, 0x20000)
        pto.TLOAD(a_mat, a_gm)
        pto.TLOAD(b_mat, b_gm)
        pto.TLOAD(s_mat, pto.GlobalTensor(gs, (1, na + nb)))
        sync(pto.PIPE_MTE2, pto.PIPE_MTE1)
        left, right = pto.TileLeft(a_dt, m, k), pto.TileRight(b_dt, k, n)
        pto.TASSIGN(left, 0x1000)
        pto.TASSIGN(right, 0x2000)
        pto.TMOV(left, a_mat)
        pto.TMOV(right, b_mat)
        # the scale rows: A's fractals at L1 0x20000, B's after them; the scale areas at the
        # data addresses >> 4 (0x100, 0x200)
        sa_src, sb_src = pto.Tile("Mat", "uint8", 1, na), pto.Tile("Mat", "uint8", 1, nb)
        pto.TASSIGN(sa_src, 0x20000)
        pto.TASSIGN(sb_src, 0x20000 + na)
        sa_row = pto.Tile("ScaleLeft", "uint8", 1, na)
        sb_row = pto.Tile("ScaleRight", "uint8", 1, nb)
        pto.TASSIGN(sa_row, 0x100)
        pto.TASSIGN(sb_row, 0x200)
        mx.load_scales("load_cbuf_to_ca_mx", sa_row, sa_src, 0, 0, m // 16, g // 2, g // 2, g // 2)
        mx.load_scales("load_cbuf_to_cb_mx", sb_row, sb_src, 0, 0, n // 16, g // 2, g // 2, g // 2)
        sync(pto.PIPE_MTE1, pto.PIPE_M)
        sa_t, sb_t = _scale_left(m, g), _scale_right(g, n)
        pto.TASSIGN(sa_t, 0x100)
        pto.TASSIGN(sb_t, 0x200)
        acc = pto.TileAcc("float32", m, n)
        mx.mad_mx(acc, left, sa_t, right, sb_t)
        sync(pto.PIPE_M, pto.PIPE_FIX)
        pto.TSTORE(pto.GlobalTensor(out, (m, n)), acc)

    run = dev.run(kern, ga, gb, gs, out)
    assert not run.findings
    return out.numpy(), _golden(av, bv, sa, sb)


@pytest.mark.parametrize(
    "a_dt,b_dt",
    [("float4_e2m1", "float4_e2m1"), ("float4_e1m2", "float4_e2m1"),
     ("float8_e4m3", "float8_e5m2"), ("float8_e5m2", "float8_e5m2")],
)  # fmt: skip
def test_mad_mx_is_the_scaled_product(a_dt, b_dt):
    # k = 128: four scale groups, two scale fractals per 16 rows (their ZZ order matters)
    got, want = _run(a_dt, b_dt, 32, 128, 48, seed=3)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(FP4))
def test_mad_mx_fp4_through_transposing_moves(name):
    # A DN -> ZN Mat -> Left (transposed fractal by fractal), B ND -> NZ Mat -> Right
    got, want = _run(name, name, 64, 128, 64, a_dn=True, b_nd=True, seed=5)
    np.testing.assert_array_equal(got, want)


def test_a_scale_selects_its_row_and_k_group():
    m, k, n = 16, 128, 16
    sa = np.full((m, k // 32), 127, np.uint8)
    sb = np.full((k // 32, n), 127, np.uint8)
    sa[5, 2] = 130  # row 5, K 64..95 scaled by 8
    sb[3, 9] = 0xFF  # column 9, K 96..127: NaN
    got, want = _run("float4_e2m1", "float4_e2m1", m, k, n, seed=7, sa=sa, sb=sb)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[:, 9]).all() and not np.isnan(np.delete(got, 9, axis=1)).any()


def test_mad_mx_refuses_an_fp4_by_fp8_pair():
    dev = pto.Device("950pr")

    @pto.kernel(cores="cube")
    def kern():
        a, b = pto.TileLeft("float4_e2m1", 16, 64), pto.TileRight("float8_e4m3", 64, 16)
        mx.mad_mx(pto.TileAcc("float32", 16, 16), a, _scale_left(16, 2), b, _scale_right(2, 16))

    with pytest.raises(PtoSimError) as e:
        dev.run(kern)
    assert "dtype-pair" in str(e.value) and "mad_mx" in str(e.value)


def test_the_scale_areas_exist_on_the_950_only():
    assert dict(pto.Device("950pr").arch_of("aic", "cube").buffers)["L0A_MX"] == 4096
    assert "L0A_MX" not in dict(pto.Device("a2").arch_of("aic", "cube").buffers)
