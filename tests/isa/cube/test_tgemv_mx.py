"""The 950 MX mad in GEMV mode: TGEMV_MX (plain, bias and accumulate forms) with its one-row
operands: the A data TLOAD into a one-row ND Mat tile and TEXTRACT into a one-row Left tile, the A
scales TLOAD from a plain ND vector into a one-row ZZ Mat tile and TMOV into a one-row ScaleLeft.

Expected values come from an independent numpy formulation written here: a row vector ``a`` of
k fp8 / fp4 values times 2^(sA[k // 32] - 127), B (k x n) times 2^(sB[k // 32, j] - 127), the
product in float64 rounded once to float32 (fp8 through ml_dtypes, fp4 E2M1 / E1M2 from the OCP
tables written out by hand). The B scales go through the MX_B_NN image built by hand:
[N/16][K/64][16 columns][2].
"""

import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import PtoSimError
from tests.helpers.layout import sync
from tests.helpers.mx import FP4, b_scale_image, mx_values

FP8_CHOICES = [-2.5, -1.0, -0.375, 0.0, 0.5, 1.25, 3.0]


def _data(dt: str, shape, rng):
    return mx_values(dt, shape, rng, FP8_CHOICES)


def _gemv(a, b, sa, sb, bias=None) -> np.ndarray:
    a = a * np.repeat(np.exp2(sa.astype(np.float64) - 127), 32)
    b = b * np.repeat(np.exp2(sb.astype(np.float64) - 127), 32, axis=0)
    c = a @ b
    return (c if bias is None else c + bias).astype(np.float32)


def _run(a_dt, b_dt, k, n, *, form="plain", seed=0, sa=None, target="950pr"):
    """One TGEMV_MX kernel (``form``: plain, bias, or acc: two K halves, the second
    accumulating into the first): (the 1 x n result, the expected row)."""
    rng = np.random.default_rng(seed)
    a_img, av = _data(a_dt, (1, k), rng)
    b_img, bv = _data(b_dt, (k, n), rng)
    g = k // 32
    sa = rng.integers(123, 132, g).astype(np.uint8) if sa is None else sa
    sb = rng.integers(123, 132, (g, n)).astype(np.uint8)
    bias = rng.integers(-6, 7, n).astype(np.float32)
    dev = pto.Device(target)
    ga, gb = dev.gm_array(a_img.copy()), dev.gm_array(b_img.copy())
    gsa, gsb = dev.gm_array(sa.copy()), dev.gm_array(b_scale_image(sb, "MX_B_NN").copy())
    gbias = dev.gm_array(bias.reshape(1, n))
    out = dev.gm_zeros((1, n), "float32")
    steps = 2 if form == "acc" else 1
    kk, gg = k // steps, g // steps
    kl = 1024 if a_dt in FP4 else 512  # the Left vector in whole 512-byte fractals

    @pto.kernel(cores="cube")
    def kern(ga, gb, gsa, gsb, gbias, out):
        acc = pto.TileAcc("float32", 16, n, 1, n)
        pto.TASSIGN(acc, 0)
        for step in range(steps):
            a_mat = pto.Tile("Mat", a_dt, 1, kl, valid=(1, kk))
            b_mat = pto.TileMatNZ(b_dt, kk, n)
            sa_mat = pto.Tile("Mat", "float8_e8m0", 1, gg, "RowMajor", slayout="RowMajor",
                              fractal=32)  # fmt: skip
            sb_mat = pto.Tile("Mat", "float8_e8m0", gg, n, "ColMajor", slayout="ColMajor",
                              fractal=32)  # fmt: skip
            pto.TASSIGN(a_mat, 0)
            pto.TASSIGN(b_mat, 0x10000)
            pto.TASSIGN(sa_mat, 0x20000)
            pto.TASSIGN(sb_mat, 0x30000)
            pto.TLOAD(a_mat, pto.GlobalTensor(ga, (1, 1, 1, 1, kk), offset=step * kk, dtype=a_dt))
            pto.TLOAD(b_mat, pto.GlobalTensor(gb, (1, 1, 1, kk, n), offset=step * kk * n,
                                              dtype=b_dt))  # fmt: skip
            sa_gm = pto.GlobalTensor(gsa, (1, 1, 1, 1, gg), offset=step * gg, dtype="float8_e8m0")
            pto.TLOAD(sa_mat, sa_gm)  # a plain ND vector into the one-row ZZ tile
            sb_gm = pto.GlobalTensor(
                gsb, (1, n // 16, gg // 2, 16, 2), (n * g, g * 16, 32, 2, 1), "MX_B_NN",
                offset=step * gg * 16, dtype="float8_e8m0",
            )  # fmt: skip
            pto.TLOAD(sb_mat, sb_gm)
            if form == "bias":
                bias_mat = pto.Tile("Mat", "float32", 1, n)
                pto.TASSIGN(bias_mat, 0x40000)
                pto.TLOAD(bias_mat, pto.GlobalTensor(gbias, (1, n)))
            sync(pto.PIPE_MTE2, pto.PIPE_MTE1)
            left, right = pto.TileLeft(a_dt, 1, kl, 1, kk), pto.TileRight(b_dt, kk, n)
            sa_t = pto.Tile("ScaleLeft", "float8_e8m0", 1, gg, "RowMajor", slayout="RowMajor",
                            fractal=32)  # fmt: skip
            sb_t = pto.Tile("ScaleRight", "float8_e8m0", gg, n, "ColMajor", slayout="ColMajor",
                            fractal=32)  # fmt: skip
            for t in (left, right, sa_t, sb_t):
                pto.TASSIGN(t, 0)
            pto.TEXTRACT(left, a_mat, 0, 0)
            pto.TMOV(right, b_mat)
            pto.TMOV(sa_t, sa_mat)
            pto.TMOV(sb_t, sb_mat)
            if form == "bias":
                bias_t = pto.Tile("Bias", "float32", 1, n)
                pto.TASSIGN(bias_t, 0)
                pto.TMOV(bias_t, bias_mat)
            sync(pto.PIPE_MTE1, pto.PIPE_M)
            if form == "bias":
                pto.TGEMV_MX(acc, left, sa_t, right, sb_t, bias_t)
            elif step == 0:
                pto.TGEMV_MX(acc, left, sa_t, right, sb_t)
            else:
                pto.TGEMV_MX(acc, acc, left, sa_t, right, sb_t)
            sync(pto.PIPE_M, pto.PIPE_MTE2)
        sync(pto.PIPE_M, pto.PIPE_FIX)
        pto.TSTORE(pto.GlobalTensor(out, (1, n)), acc)

    run = dev.run(kern, ga, gb, gsa, gsb, gbias, out)
    assert not run.findings, [str(f) for f in run.findings]
    return out.numpy(), _gemv(av[0], bv, sa, sb, bias if form == "bias" else None)[None, :]


@pytest.mark.parametrize(
    "a_dt,b_dt,k,n",
    [
        ("float8_e4m3", "float8_e5m2", 256, 32),
        ("float8_e5m2", "float8_e5m2", 128, 64),
        ("float4_e1m2", "float4_e1m2", 128, 64),
        ("float4_e2m1", "float4_e1m2", 192, 64),
    ],
)  # fmt: skip
def test_tgemv_mx_is_the_scaled_row_product(a_dt, b_dt, k, n):
    got, want = _run(a_dt, b_dt, k, n, seed=5)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", ["950pr", "950dt"])
def test_tgemv_mx_bias_starts_the_sum(target):
    got, want = _run("float8_e4m3", "float8_e4m3", 64, 32, form="bias", seed=8, target=target)
    np.testing.assert_array_equal(got, want)


def test_tgemv_mx_accumulates_over_k_slices():
    got, want = _run("float8_e5m2", "float8_e4m3", 256, 64, form="acc", seed=3)
    np.testing.assert_array_equal(got, want)


def test_each_a_scale_scales_its_own_32_elements():
    # a one-row ScaleLeft is read as a plain byte vector: scale g covers K 32g..32g+31 only
    k, n = 128, 32
    base = _run("float8_e4m3", "float8_e4m3", k, n, sa=np.full(4, 127, np.uint8), seed=6)
    sa = np.full(4, 127, np.uint8)
    sa[2] = 129  # x4 on K 64..95
    got, want = _run("float8_e4m3", "float8_e4m3", k, n, sa=sa, seed=6)
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, base[0])


def test_tgemv_mx_refuses_a_left_tile_of_several_rows():
    dev = pto.Device("950pr")

    @pto.kernel(cores="cube")
    def kern():
        acc = pto.TileAcc("float32", 16, 32)
        left, right = pto.TileLeft("float8_e4m3", 16, 64), pto.TileRight("float8_e4m3", 64, 32)
        sa = pto.Tile("ScaleLeft", "float8_e8m0", 16, 2, "RowMajor", slayout="RowMajor",
                      fractal=32)  # fmt: skip
        sb = pto.Tile("ScaleRight", "float8_e8m0", 2, 32, "ColMajor", slayout="ColMajor",
                      fractal=32)  # fmt: skip
        for t in (acc, left, right, sa, sb):
            pto.TASSIGN(t, 0)
        pto.TGEMV_MX(acc, left, sa, right, sb)

    with pytest.raises(PtoSimError) as e:
        dev.run(kern)
    assert "one-row" in str(e.value) and "TGEMV_MX" in str(e.value)
