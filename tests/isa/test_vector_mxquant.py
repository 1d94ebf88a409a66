"""TQUANT's MX forms (MXFP8 E4M3, MXFP4 E2M1, shared E8M0 exponents) against an independent
formulation: exponents from ``math.frexp``, E4M3 / E2M1 codes by a nearest-value search over
tables built here from the formats' definitions (sign, exponent, mantissa fields), fp4 nibbles
packed by hand. Per target where the reference implementations differ (NaN in a group, the sign
of a rounded-away negative value, the pad columns of a 16-bit source)."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import ConstraintError, UnsupportedError
from ptosim.isa.vector import mx_scale as M

GROUP = 32
FMT = {"MXFP8": (8, 448.0), "MXFP4_E2M1": (2, 6.0)}  # (emax, largest value), OCP MX spec


# -- the independent formulation -------------------------------------------------------------
def _e4m3_table() -> dict[int, float]:
    """code -> value of every non-NaN E4M3 (FN) code: bias 7, subnormals m * 2^-9."""
    out = {}
    for code in range(256):
        e, m = (code >> 3) & 0xF, code & 0x7
        if e == 0xF and m == 0x7:
            continue
        mag = m * 2.0**-9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        out[code] = -mag if code & 0x80 else mag
    return out


E4M3 = _e4m3_table()
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]  # magnitudes of codes 0..7 (bias 1, 1 mantissa bit)


def want_e4m3(v: float, *, keep_zero_sign: bool, nv_small_sign: bool = False) -> int:
    """Nearest code to v clamped to +-448; ties to the even code; +0 / -0: v's sign
    (``keep_zero_sign``) or the lower code (0x00), except NV below 2^-10 (sign kept)."""
    if math.isnan(v):
        return 0x7F
    if nv_small_sign and abs(v) < 2.0**-10:
        return 0x80 if math.copysign(1, v) < 0 else 0x00
    c = min(max(v, -448.0), 448.0)
    best = min(abs(val - c) for val in E4M3.values())
    cands = [k for k, val in E4M3.items() if abs(val - c) == best]
    even = [k for k in cands if k % 2 == 0] or cands
    if len(even) > 1 and keep_zero_sign:  # +0 and -0
        return 0x80 if math.copysign(1, v) < 0 else 0x00
    return min(even)


def want_e2m1(v: float) -> int:
    if math.isnan(v):
        return 0x7
    sign = 0x8 if math.copysign(1, v) < 0 else 0
    a = abs(v)
    if a >= 6.0:
        return sign | 7
    best = min(abs(g - a) for g in E2M1)
    cands = [k for k, g in enumerate(E2M1) if abs(g - a) == best]
    return sign | min(k for k in cands if k % 2 == 0) if len(cands) > 1 else sign | cands[0]


def want_exponent(m: float, quant: str, alg: str) -> int:
    emax, fmax = FMT[quant]
    if math.isnan(m):
        return 0xFF
    if alg == "OCP":
        if math.isinf(m):
            return 255 - emax
        if m < 2.0**-126:  # zero or f32 subnormal: exponent field 0
            return 0
        _, ex = math.frexp(m)  # m = f * 2^ex, f in [0.5, 1)
        return max(ex - 1 + 127 - emax, 0)
    if m == 0:
        return 0
    d = float(np.float32(m) * np.float32(1.0 / fmax))  # the descale, in f32 by definition
    if math.isinf(d):
        return 0xFE
    f, ex = math.frexp(d)
    up = ex - 1 if f == 0.5 else ex  # ceil(log2 d)
    return min(max(up + 127, 0), 254)


def want_scaling(e: int) -> float:
    return math.nan if e == 0xFF else 2.0 ** (127 - e)


def bf16(v: np.ndarray) -> np.ndarray:
    return np.asarray(v, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def pack(codes: list[int]) -> np.ndarray:
    """Two 4-bit codes per byte, the even element in the low nibble."""
    return np.array([codes[i] | (codes[i + 1] << 4) for i in range(0, len(codes), 2)], np.uint8)


# -- running the instruction ------------------------------------------------------------------
SRC_NP = {"float32": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def run_mx(dev, x, sdt, quant, alg, *, valid_col=None, pad=None, exp_rows=None, zz=False):
    """TQUANT of x (R x C) on ``dev``; returns (result, tiles). ``pad``: values loaded into the
    pad columns first (a full-width load, then the valid width set by a second tile view)."""
    R, C = x.shape
    vc = C if valid_col is None else valid_col
    G = C // GROUP
    src = pto.Tile("Vec", sdt, R, C, valid=(R, vc))
    full = pto.Tile("Vec", sdt, R, C)
    dst = pto.Tile("Vec", "int8" if quant == "MXFP8" else "float4_e2m1", R, C)
    exp = pto.Tile("Vec", "uint8", exp_rows or R, max(32, G))
    mx = pto.Tile("Vec", sdt, 1, max(16, -(-R * G // 16) * 16))
    sc = pto.Tile("Vec", sdt, 1, max(16, -(-R * G // 16) * 16))
    ezz = pto.Tile("Vec", "uint8", 1, 32 * max(1, -(-R * G // 32))) if zz else None
    device = pto.Device(dev)
    data = x if pad is None else np.where(np.arange(C) < vc, x, pad).astype(x.dtype)
    buf = device.gm_array(np.ascontiguousarray(data))

    @pto.kernel
    def k():
        for n, t in enumerate([src, dst, exp, mx, sc] + ([ezz] if zz else [])):
            pto.TASSIGN(t, 0x8000 * n)
        pto.TASSIGN(full, 0)
        pto.TLOAD(full, pto.GlobalTensor(buf, (1, 1, 1, R, C)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.TQUANT(dst, src, exp=exp, group_max=mx, scaling=sc, exp_zz=ezz, quant=quant,
                   scale_alg=alg)  # fmt: skip

    return device.run(k), (full, dst, exp, mx, sc, ezz)


def expected(x32: np.ndarray, quant, alg, *, round_bf16, keep_zero_sign, skip_nan):
    """(exp bytes, dst codes) per element of the R x C input (f32 values), groups of 32."""
    R, C = x32.shape
    exps, codes = [], []
    for g in x32.reshape(-1, GROUP):
        mags = [abs(float(v)) for v in g]
        if skip_nan:
            mags = [0.0 if math.isnan(a) else a for a in mags]
        m = math.nan if any(math.isnan(a) for a in mags) else max(mags)
        e = want_exponent(m, quant, alg)
        s = np.float32(want_scaling(e))
        v = (g * s).astype(np.float32)
        if round_bf16:
            v = bf16(v)
        exps.append(e)
        for val in v.tolist():
            if quant == "MXFP8":
                nv_sign = alg == "NV" and not keep_zero_sign
                codes.append(want_e4m3(val, keep_zero_sign=keep_zero_sign, nv_small_sign=nv_sign))
            else:
                codes.append(want_e2m1(val))
    return np.array(exps, np.uint8).reshape(R, C // GROUP), codes


def sample(R, C, sdt, seed):
    """Magnitudes spread over many binades, a few exact ties and format boundaries per group."""
    rng = np.random.default_rng(seed)
    lo, hi = (-20, 14) if sdt == "half" else (-60, 60)
    x = rng.uniform(1, 2, (R, C)) * 2.0 ** rng.integers(lo, hi, (R, C))
    x *= np.where(rng.random((R, C)) < 0.5, -1, 1)
    x[:, 3] = 0.0
    x[:, 5] = -0.0
    x[0, 7:12] = [448.0, -449.0, 6.0, 2.5, 0.25]
    x[-1, GROUP : GROUP * 2] = 2.0 ** rng.integers(-3, 3, GROUP)  # a group of powers of two
    return x.astype(SRC_NP[sdt])


CASES = [
    ("MXFP8", "float32"), ("MXFP8", "half"), ("MXFP8", "bfloat16"),
    ("MXFP4_E2M1", "half"), ("MXFP4_E2M1", "bfloat16"),
]  # fmt: skip
ROUNDS_BF16 = {"950pr": ("MXFP8", "MXFP4_E2M1"), "cpu": ("MXFP4_E2M1",)}


@pytest.mark.parametrize("dev", ["950pr", "cpu"])
@pytest.mark.parametrize("alg", ["OCP", "NV"])
@pytest.mark.parametrize("quant,sdt", CASES)
def test_tquant_mx_matches_independent_formulation(dev, alg, quant, sdt):
    R, C = 3, 96
    x = sample(R, C, sdt, seed=CASES.index((quant, sdt)) * 2 + (alg == "NV"))
    r, (_, dst, exp, *_rest) = run_mx(dev, x, sdt, quant, alg)
    x32 = x.astype(np.float32)
    want_exp, codes = expected(
        x32, quant, alg,
        round_bf16=sdt == "bfloat16" and quant in ROUNDS_BF16[dev],
        keep_zero_sign=dev == "950pr", skip_nan=False,
    )  # fmt: skip
    np.testing.assert_array_equal(r.tile(exp)[:R, : C // GROUP], want_exp)
    raw = r.tile_storage(dst).view(np.uint8)
    if quant == "MXFP8":
        np.testing.assert_array_equal(raw[: R * C], np.array(codes, np.uint8))
    else:
        np.testing.assert_array_equal(raw[: R * C // 2], pack(codes))


def test_exponent_rules_by_hand():
    """A few exponents worked out on paper (OCP MX: floor(log2 m) - emax + 127; NV: the
    descale m / fmt_max rounded up to a power of two)."""
    m = np.array([1.0, 448.0, 449.0, 2.0**-130, 0.0, np.inf, np.nan], np.float32)
    assert M.shared_exponent(m, "MXFP8", "OCP").tolist() == [119, 127, 127, 0, 0, 247, 255]
    assert M.shared_exponent(m, "MXFP4_E2M1", "OCP").tolist() == [125, 133, 133, 0, 0, 253, 255]
    # NV: 448 / 448 = 1 -> 127; 449 / 448 just above 1 -> 128; 1 / 448 in [2^-9, 2^-8) -> 119
    assert M.shared_exponent(m, "MXFP8", "NV").tolist() == [119, 127, 128, 0, 0, 254, 255]
    assert M.group_scaling(np.array([0, 127, 254, 255]), "NV").tolist()[:3] == [
        2.0**127, 1.0, 2.0**-127,
    ]  # fmt: skip


def test_format_helpers_match_tables():
    rng = np.random.default_rng(5)
    v = (rng.standard_normal(4000) * 2.0 ** rng.integers(-12, 10, 4000)).astype(np.float32)
    ties = [E4M3[k] / 2 + E4M3[k + 1] / 2 for k in range(1, 0x7E)]  # every midpoint
    v = np.concatenate([v, np.array(ties + [-t for t in ties], np.float32)])
    v = np.concatenate([v, np.array([0.0, -0.0, 2.0**-10, -(2.0**-10), 500, -np.inf], np.float32)])
    got = M.encode_e4m3(v).tolist()
    assert got == [want_e4m3(float(a), keep_zero_sign=True) for a in v]
    w = np.concatenate([v, np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0], np.float32)])
    assert M.encode_e2m1(w).tolist() == [want_e2m1(float(a)) for a in w]


def test_fp4_nibble_order_by_hand():
    """Group scaling 1 (m = 6, OCP: exponent 127): values land on codes unchanged; the even
    element is the low nibble."""
    x = np.zeros((1, 32), np.float16)
    x[0, :4] = [6.0, 0.5, -1.5, 3.0]  # codes 7, 1, 0xB, 5
    r, (_, dst, exp, *_rest) = run_mx("950pr", x, "half", "MXFP4_E2M1", "OCP")
    assert r.tile(exp)[0, 0] == 127
    got = r.tile_storage(dst)[:2]
    assert got.tolist() == [0x17, 0x5B]


@pytest.mark.parametrize("dev,want_exp", [("950pr", 0xFF), ("cpu", 127)])
def test_nan_in_a_group(dev, want_exp):
    """a5: the vmax reduction lets a NaN through (exponent 0xFF, every element NaN 0x7F); cpu:
    the running std::max skips it (the others quantise, the NaN element gives 0x7F)."""
    x = np.full((1, 32), 1.0, np.float32)
    x[0, 0], x[0, 1] = np.nan, 448.0
    r, (_, dst, exp, *_rest) = run_mx(dev, x, "float32", "MXFP8", "OCP")
    assert r.tile(exp)[0, 0] == want_exp
    got = r.tile(dst).view(np.uint8)[0]
    if dev == "950pr":
        assert set(got.tolist()) == {0x7F}
    else:
        assert got[0] == 0x7F and got[1] == 0x7E and got[2] == 0x38  # 448, 1.0 (e=7, m=0)


@pytest.mark.parametrize("dev,want", [("950pr", 0x80), ("cpu", 0x00)])
def test_negative_value_rounding_to_zero(dev, want):
    """-2^-12 with scaling 1 (m = 256: OCP exponent 127) is below half the smallest E4M3
    subnormal (2^-10): a5's conversion keeps the sign (0x80); the cpu simulator's nearest-code
    search takes the lower code of the +0 / -0 tie (0x00)."""
    x = np.zeros((1, 32), np.float32)
    x[0, 0], x[0, 1] = 256.0, -(2.0**-12)
    r, (_, dst, exp, *_rest) = run_mx(dev, x, "float32", "MXFP8", "OCP")
    assert r.tile(exp)[0, 0] == 127
    assert r.tile(dst).view(np.uint8)[0, 1] == want


@pytest.mark.parametrize("dev", ["950pr", "cpu"])
def test_pad_columns_of_a_16bit_source(dev):
    """valid_col 16 of 32: a5 zeroes the pad columns of a 16-bit source in place first (its
    ZeroPadSourceTile), so a large pad value does not set the exponent; cpu reads them."""
    x = np.ones((1, 32), np.float16)
    r, (full, dst, exp, *_rest) = run_mx(dev, x, "half", "MXFP8", "OCP", valid_col=16,
                                         pad=np.float16(1024.0))  # fmt: skip
    e = r.tile(exp)[0, 0]
    if dev == "950pr":
        assert e == 127 - 8 and (r.tile(full)[0, 16:] == 0).all()
    else:
        assert e == 127 + 10 - 8 and (r.tile(full)[0, 16:] == 1024).all()


def test_cpu_nz_exponents_reordered():
    """exp_zz: blocks of 16 rows x 2 groups, each block row-major. Group (r, g) holds
    2^(r + g % 4), so its exponent 127 - 8 + r + g % 4 names its position."""
    R, C = 16, 1024
    G = C // GROUP
    x = np.repeat(2.0 ** (np.arange(R)[:, None] + np.arange(G)[None, :] % 4), GROUP, axis=1)
    r, (_, dst, exp, mx, sc, ezz) = run_mx("cpu", x.astype(np.float32), "float32", "MXFP8",
                                           "OCP", zz=True)  # fmt: skip
    e = [[119 + row + g % 4 for g in range(G)] for row in range(R)]
    want = [e[q][p * 2 + d] for p in range(G // 2) for q in range(16) for d in range(2)]
    assert r.tile_storage(ezz)[: R * G].tolist() == want


def test_a2_has_no_mx_form():
    x = np.ones((1, 32), np.float32)
    with pytest.raises(UnsupportedError, match="mx-quant"):
        run_mx("a2", x, "float32", "MXFP8", "OCP")


def test_refusals_name_the_rule():
    src = pto.Tile("Vec", "float32", 1, 48)
    dst = pto.Tile("Vec", "int8", 1, 64)
    side = pto.Tile("Vec", "float32", 1, 16)
    exp = pto.Tile("Vec", "uint8", 1, 32)

    @pto.kernel
    def k():
        for n, t in enumerate([src, dst, side, exp]):
            pto.TASSIGN(t, 0x1000 * n)
        pto.TQUANT(dst, src, exp=exp, group_max=side, scaling=side, quant="MXFP8")

    with pytest.raises(ConstraintError, match="group-cols"):
        pto.Device("cpu").run(k)
    fp4_src = pto.Tile("Vec", "float32", 1, 64)
    fp4 = pto.Tile("Vec", "float4_e2m1", 1, 64)

    @pto.kernel
    def k2():
        for n, t in enumerate([fp4_src, fp4, side, exp]):
            pto.TASSIGN(t, 0x1000 * n)
        pto.TQUANT(fp4, fp4_src, exp=exp, group_max=side, scaling=side, quant="MXFP4_E2M1")

    with pytest.raises(ConstraintError, match="dtype"):  # a5: MXFP4 from f16 / bf16 only
        pto.Device("950pr").run(k2)
