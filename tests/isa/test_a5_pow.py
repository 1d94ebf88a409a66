"""a5 TPOW(S) of half and float32: the npu/a5 vector function in float32 registers.

Expected values come from float64 ``pow`` (numpy) and C99's special-case table, not from the
model: the float32 pipeline rounds half once, so half results are the correctly rounded half of
the exact power except next to a half rounding tie; HIGH_PRECISION float32 (an extended-precision
log and exp) is within one float32 ulp of the exact power where DEFAULT (``vln``, ``vmul``,
``vexp`` each rounded) drifts by many ulps on large ``e * ln(b)``.
"""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import run_kernel, seeded, vec

SHAPE = (4, 64)


def run_pow(dt, base, exp=None, *, scalar=None, algorithm="DEFAULT", device="950pr"):
    """TPOW (or TPOWS with ``scalar``) on 950pr; dst's values."""
    src0, dst, tmp = vec(dt, *SHAPE), vec(dt, *SHAPE), vec(dt, 1, SHAPE[1])
    src1 = None if exp is None else vec(dt, *SHAPE)
    tiles = [t for t in (src0, src1, dst, tmp) if t is not None]
    loads = [(src0, base)] + ([] if exp is None else [(src1, exp)])

    def body():
        if scalar is None:
            pto.TPOW(dst, src0, src1, tmp, algorithm=algorithm)
        else:
            pto.TPOWS(dst, src0, scalar, tmp, algorithm=algorithm)

    r = run_kernel(device, tiles, loads, body)
    return np.asarray(r.tile(dst)).reshape(SHAPE)


def exact(base, exp) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.power(base.astype(np.float64), np.asarray(exp).astype(np.float64))


def ulps32(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in float32 ulps of the float32 results from the float64 values."""
    spacing = np.spacing(np.abs(want.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


@pytest.mark.parametrize("algorithm", ["DEFAULT", "HIGH_PRECISION"])
@pytest.mark.parametrize("form", ["tile", "scalar"])
def test_half_is_the_power_rounded_once(algorithm, form):
    """half goes through float32 and is rounded once: the correctly rounded half of the exact
    power wherever the exact value is not within a float32 rounding of a half tie (the half
    chain of a2a3 rounds ln, the product and exp to half and misses many)."""
    rng = seeded("a5-pow-half", algorithm, form)
    base = rng.uniform(0.1, 5.0, SHAPE).astype(np.float16)
    exp = rng.uniform(-3.0, 3.0, SHAPE).astype(np.float16)
    scalar = np.float16(2.375) if form == "scalar" else None
    got = run_pow("half", base, None if scalar is not None else exp, scalar=scalar,
                  algorithm=algorithm)  # fmt: skip
    want64 = exact(base, exp if scalar is None else scalar)
    want = want64.astype(np.float16)
    # the half neighbours of the exact value and their midpoint: skip values near a tie
    lo = np.where(want.astype(np.float64) <= want64, want, np.nextafter(want, np.float16(0)))
    hi = np.nextafter(lo, np.float16(np.inf))
    tie = (lo.astype(np.float64) + hi.astype(np.float64)) / 2
    clear = np.abs(want64 - tie) > 8 * np.spacing(np.float32(tie)).astype(np.float64)
    assert clear.sum() > 0.9 * clear.size
    np.testing.assert_array_equal(got[clear].view(np.uint16), want[clear].view(np.uint16))


def test_high_precision_float32_stays_within_one_ulp():
    """HIGH_PRECISION carries ln(b) and e * ln(b) as float32 pairs: at most 1 ulp from the
    exact power, where DEFAULT's rounded ln is multiplied by e (here e * ln(b) is 20 to 80)."""
    rng = seeded("a5-pow-hp")
    base = rng.uniform(1e3, 1e4, SHAPE).astype(np.float32)
    exp = rng.uniform(3.0, 9.0, SHAPE).astype(np.float32)
    want = exact(base, exp)
    hp = ulps32(run_pow("float32", base, exp, algorithm="HIGH_PRECISION"), want)
    default = ulps32(run_pow("float32", base, exp), want)
    assert hp.max() <= 1.0
    assert default.max() > 4.0


SPECIAL_BASES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, -2.0, 2.0, -0.5, 0.5]
SPECIAL_EXPS = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dt", ["float32", "half"])
@pytest.mark.parametrize("algorithm", ["DEFAULT", "HIGH_PRECISION"])
def test_special_operands_follow_c99_pow(dt, algorithm):
    """Zeros, infinities, NaN, 1 and -1, negative bases with integer and non-integer exponents:
    the values and signs C99 pow gives (exactly; a finite nonzero power such as (-2)^3 within
    4 ulps of T, its sign exact)."""
    T = np.float16 if dt == "half" else np.float32
    pairs = [(b, e) for b in SPECIAL_BASES for e in SPECIAL_EXPS]
    pairs += [(1.0, 0.0)] * (SHAPE[0] * SHAPE[1] - len(pairs))
    base = np.array([b for b, _ in pairs], T).reshape(SHAPE)
    exp = np.array([e for _, e in pairs], T).reshape(SHAPE)
    got = run_pow(dt, base, exp, algorithm=algorithm).astype(np.float64)
    want = exact(base, exp)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))
    rounded = ~nan & np.isfinite(want) & (want != 0) & (np.abs(want) != 1)
    np.testing.assert_array_equal(got[~nan & ~rounded], want[~nan & ~rounded])
    ulp = np.spacing(np.abs(want[rounded]).astype(T)).astype(np.float64)
    assert np.all(np.abs(got[rounded] - want[rounded]) <= 4 * ulp)
