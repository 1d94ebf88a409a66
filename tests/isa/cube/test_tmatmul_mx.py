"""The 950 tile-level MX matmul: TLOAD of float8_e8m0 scales in the MX GlobalTensor layouts into
L1, TMOV into ScaleLeft / ScaleRight tiles, and TMATMUL_MX (plain, bias and accumulate forms).

Expected values come from an independent numpy formulation: fp8 through ml_dtypes, fp4 E2M1 from
the OCP table written out by hand (0, 0.5, 1, 1.5, 2, 3, 4, 6; bit 3 the sign), scales as
2^(byte - 127), C = (A * sA repeated over each 32-wide K group) @ (B * sB likewise) in float64
rounded once to float32. The GM scale images are built here by hand from the logical scale
matrices, one per layout (the byte orders the library's tmatmul_mx gen_data writes):

- MX_A_ZZ: [M/16][K/64][16][2]; MX_A_ND: M x K/32 row by row; MX_A_DN: [K/64][M][2];
- MX_B_NN: [N/16][K/64][16 columns][2]; MX_B_ND: [K/64][N][2]; MX_B_DN: N x K/32 row by row.
"""

import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import PtoSimError
from tests.helpers.layout import sync
from tests.helpers.mx import a_scale_image as _a_image
from tests.helpers.mx import b_scale_image as _b_image
from tests.helpers.mx import mx_values

FP8_CHOICES = [-3.0, -1.5, -0.5, 0.0, 0.25, 1.0, 2.0, 3.5]


def _values(dt: str, shape, rng):
    return mx_values(dt, shape, rng, FP8_CHOICES)


def _expected(av, bv, sa, sb, bias=None, init=None):
    a = av * np.repeat(np.ldexp(1.0, sa.astype(np.int64) - 127), 32, axis=1)
    b = bv * np.repeat(np.ldexp(1.0, sb.astype(np.int64) - 127), 32, axis=0)
    c = a @ b
    if bias is not None:
        c = c + bias
    if init is not None:
        c = c + init
    return c.astype(np.float32)


def _gm_view(buf, layout: str, rows: int, cols: int):
    """The 5-D view pto.hpp gives TileShape2D / BaseShape2D of an MX layout."""
    shape = {
        "MX_A_ZZ": (1, rows // 16, cols // 2, 16, 2),
        "MX_A_ND": (1, 1, rows, cols // 2, 2),
        "MX_A_DN": (1, 1, cols // 2, rows, 2),
        "MX_B_NN": (1, cols // 16, rows // 2, 16, 2),
        "MX_B_ND": (1, 1, rows // 2, cols, 2),
        "MX_B_DN": (1, 1, cols, rows // 2, 2),
    }[layout]
    return pto.GlobalTensor(buf, shape, layout=layout, dtype="float8_e8m0")


def _run(a_dt, b_dt, m, k, n, a_lay="MX_A_ZZ", b_lay="MX_B_NN", *, form="plain", seed=0,
         sa=None, sb=None, target="950pr"):  # fmt: skip
    """One TMATMUL_MX through the tile path (``form``: plain, bias, or acc: two K halves, the
    second accumulating): (result, expected)."""
    rng = np.random.default_rng(seed)
    a_img, av = _values(a_dt, (m, k), rng)
    b_img, bv = _values(b_dt, (k, n), rng)
    g = k // 32
    sa = rng.integers(124, 131, (m, g)).astype(np.uint8) if sa is None else sa
    sb = rng.integers(124, 131, (g, n)).astype(np.uint8) if sb is None else sb
    bias = rng.integers(-8, 9, n).astype(np.float32)
    dev = pto.Device(target)
    ga, gb = dev.gm_array(a_img.copy()), dev.gm_array(b_img.copy())
    gsa = dev.gm_array(_a_image(sa, a_lay).copy())  # bytes, viewed as float8_e8m0
    gsb = dev.gm_array(_b_image(sb, b_lay).copy())
    gbias = dev.gm_array(bias.reshape(1, n))
    out = dev.gm_zeros((m, n), "float32")
    steps = 2 if form == "acc" else 1
    kk, gg = k // steps, g // steps

    @pto.kernel(cores="cube")
    def kern(ga, gb, gsa, gsb, gbias, out):
        acc = pto.TileAcc("float32", m, n)
        pto.TASSIGN(acc, 0)
        for step in range(steps):
            a_mat, b_mat = pto.TileMatNZ(a_dt, m, kk), pto.TileMatNZ(b_dt, kk, n)
            sa_mat = pto.Tile("Mat", "float8_e8m0", m, gg, "RowMajor", slayout="RowMajor",
                              fractal=32)  # fmt: skip
            sb_mat = pto.Tile("Mat", "float8_e8m0", gg, n, "ColMajor", slayout="ColMajor",
                              fractal=32)  # fmt: skip
            pto.TASSIGN(a_mat, 0)
            pto.TASSIGN(b_mat, 0x10000)
            pto.TASSIGN(sa_mat, 0x20000)
            pto.TASSIGN(sb_mat, 0x30000)
            a_gm = pto.GlobalTensor(ga, (1, 1, 1, m, kk), (m * k, m * k, m * k, k, 1),
                                    offset=step * kk, dtype=a_dt)  # fmt: skip
            b_gm = pto.GlobalTensor(gb, (1, 1, 1, kk, n), offset=step * kk * n, dtype=b_dt)
            pto.TLOAD(a_mat, a_gm)
            pto.TLOAD(b_mat, b_gm)
            if steps == 1:
                pto.TLOAD(sa_mat, _gm_view(gsa, a_lay, m, g))
                pto.TLOAD(sb_mat, _gm_view(gsb, b_lay, g, n))
            else:  # the ZZ / NN views of one K half: the whole view's strides, an offset
                half = step * gg * 16
                a_view = pto.GlobalTensor(gsa, (1, m // 16, gg // 2, 16, 2),
                                          (m * g, g * 16, 32, 2, 1), "MX_A_ZZ", offset=half,
                                          dtype="float8_e8m0")  # fmt: skip
                b_view = pto.GlobalTensor(gsb, (1, n // 16, gg // 2, 16, 2),
                                          (n * g, g * 16, 32, 2, 1), "MX_B_NN", offset=half,
                                          dtype="float8_e8m0")  # fmt: skip
                pto.TLOAD(sa_mat, a_view)
                pto.TLOAD(sb_mat, b_view)
            if form == "bias":
                bias_mat = pto.Tile("Mat", "float32", 1, n)
                pto.TASSIGN(bias_mat, 0x40000)
                pto.TLOAD(bias_mat, pto.GlobalTensor(gbias, (1, n)))
            sync(pto.PIPE_MTE2, pto.PIPE_MTE1)
            left, right = pto.TileLeft(a_dt, m, kk), pto.TileRight(b_dt, kk, n)
            sa_t = pto.Tile("ScaleLeft", "float8_e8m0", m, gg, "RowMajor", slayout="RowMajor",
                            fractal=32)  # fmt: skip
            sb_t = pto.Tile("ScaleRight", "float8_e8m0", gg, n, "ColMajor", slayout="ColMajor",
                            fractal=32)  # fmt: skip
            for t in (left, right, sa_t, sb_t):
                pto.TASSIGN(t, 0)
            pto.TMOV(left, a_mat)
            pto.TMOV(right, b_mat)
            pto.TMOV(sa_t, sa_mat)
            pto.TMOV(sb_t, sb_mat)
            if form == "bias":
                bias_t = pto.Tile("Bias", "float32", 1, n)
                pto.TASSIGN(bias_t, 0)
                pto.TMOV(bias_t, bias_mat)
            sync(pto.PIPE_MTE1, pto.PIPE_M)
            if form == "bias":
                pto.TMATMUL_MX(acc, left, sa_t, right, sb_t, bias_t)
            elif step == 0:
                pto.TMATMUL_MX(acc, left, sa_t, right, sb_t)
            else:
                pto.TMATMUL_MX(acc, acc, left, sa_t, right, sb_t)
            sync(pto.PIPE_M, pto.PIPE_MTE2)
        sync(pto.PIPE_M, pto.PIPE_FIX)
        pto.TSTORE(pto.GlobalTensor(out, (m, n)), acc)

    run = dev.run(kern, ga, gb, gsa, gsb, gbias, out)
    assert not run.findings
    want = _expected(av, bv, sa, sb, bias if form == "bias" else None)
    return out.numpy(), want


@pytest.mark.parametrize(
    "a_dt,b_dt,a_lay,b_lay",
    [
        ("float8_e4m3", "float8_e5m2", "MX_A_ZZ", "MX_B_NN"),
        ("float8_e5m2", "float8_e4m3", "MX_A_ND", "MX_B_ND"),
        ("float8_e4m3", "float8_e4m3", "MX_A_DN", "MX_B_DN"),
        ("float4_e2m1", "float4_e2m1", "MX_A_ZZ", "MX_B_NN"),
        ("float4_e2m1", "float4_e2m1", "MX_A_DN", "MX_B_ND"),
    ],
)  # fmt: skip
def test_tmatmul_mx_is_the_scaled_product(a_dt, b_dt, a_lay, b_lay):
    # k = 128: four scale groups, two 16 x 2 fractals per 16 rows (their order matters)
    got, want = _run(a_dt, b_dt, 32, 128, 64, a_lay, b_lay, seed=11)
    np.testing.assert_array_equal(got, want)


def test_tmatmul_mx_bias_starts_the_sum():
    got, want = _run("float8_e4m3", "float8_e5m2", 16, 64, 32, form="bias", seed=4)
    np.testing.assert_array_equal(got, want)


def test_tmatmul_mx_accumulates_over_k_slices():
    # two K halves of 64, the second TMATMUL_MX(c, c, ...) adding to the first
    got, want = _run("float8_e5m2", "float8_e4m3", 32, 128, 64, form="acc", seed=9)
    np.testing.assert_array_equal(got, want)


def test_a_scale_row_and_group_land_where_the_layout_puts_them():
    m, k = 32, 128
    sa = np.full((m, k // 32), 127, np.uint8)
    sa[17, 3] = 131  # row 17 (second row block), K 96..127 (second fractal): x16
    got, want = _run("float8_e4m3", "float8_e4m3", m, k, 32, "MX_A_ZZ", sa=sa, seed=2)
    np.testing.assert_array_equal(got, want)
    base = _run("float8_e4m3", "float8_e4m3", m, k, 32, "MX_A_ZZ",
                sa=np.full_like(sa, 127), seed=2)[0]  # fmt: skip
    changed = np.flatnonzero((got != base).any(axis=1))
    assert set(changed) <= {17}


def test_tmatmul_mx_refuses_a_target_without_the_mx_mad():
    with pytest.raises(PtoSimError) as e:
        _run("float8_e4m3", "float8_e4m3", 16, 64, 32, target="910b2")
    assert "950" in str(e.value)


@pytest.mark.parametrize("layout", ["MX_B_DN", "MX_B_ND"])
def test_b_scale_tload_moves_every_valid_column(layout):
    # a 4 x 64 NN Mat tile of valid 4 x 45: the ND / DN loads move the valid columns, an odd
    # count included; L1 byte of scale (k, n): per 16 columns a block of Rows x 16, inside it
    # the fractal of K pair k // 2, column n % 16, the pair's k % 2
    g, n, valid_n = 4, 64, 45
    sb = np.random.default_rng(3).integers(0, 255, (g, valid_n)).astype(np.uint8)
    dev = pto.Device("950pr")
    gs = dev.gm_array(_b_image(sb, layout).copy())

    @pto.kernel(cores="cube")
    def kern(gs):
        t = pto.Tile("Mat", "float8_e8m0", g, n, "ColMajor", valid=(g, valid_n),
                     slayout="ColMajor", fractal=32)  # fmt: skip
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, _gm_view(gs, layout, g, valid_n))

    l1 = dev.run(kern, gs).blocks[0].buffers["L1"].data
    k, c = np.meshgrid(np.arange(g), np.arange(valid_n), indexing="ij")
    at = (c // 16) * (g * 16) + (k // 2) * 32 + (c % 16) * 2 + k % 2
    np.testing.assert_array_equal(l1[at], sb)
