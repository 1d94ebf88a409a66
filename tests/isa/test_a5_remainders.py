"""a5 TFMOD(S) / TREM(S): the npu/a5 vector functions, per element type and algorithm.

Expected values are computed here, element by element, from the rules the reference states:
``math.fmod`` (exact) and the floor remainder for HIGH_PRECISION (the a5 folders' goldens are
``np.fmod`` / ``%`` within 1e-7), the float32 intrinsic chain with numpy float32 scalars for
DEFAULT, rounding toward zero to half by stepping numpy's nearest half, Python integers for the
integer forms (``vmod`` keeps the divisor's sign, the 64-bit helper truncates and gives 0 for a
zero divisor).
"""

import math

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import run_kernel, seeded, vec

F32 = np.float32


def run(op, dt, a, b=None, *, scalar=None, algorithm="DEFAULT", device="950pr", in_place=False):
    """``T<op>`` on tiles loaded with ``a`` (and ``b``); returns dst's valid values."""
    R, C = a.shape
    src0 = vec(dt, R, C)
    src1 = None if b is None else vec(dt, R, C)
    dst = src0 if in_place else vec(dt, R, C)
    tmp = vec(dt, 1, C)
    tiles = [t for t in (src0, src1, dst, tmp) if t is not None]
    loads = [(src0, a)] + ([] if b is None else [(src1, b)])
    fn, kw = getattr(pto, f"T{op}"), {"algorithm": algorithm}
    rest = [tmp] if op.startswith("REM") else []

    def body():
        if scalar is None:
            fn(dst, src0, src1, *rest, **kw)
        else:
            fn(dst, src0, scalar, *rest, **kw)

    r = run_kernel(device, list(dict.fromkeys(tiles)), loads, body)
    return r, np.asarray(r.tile(dst)).reshape(R, C)


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    u = np.dtype(f"u{got.dtype.itemsize}")
    g, w = got.view(u).ravel(), want.view(u).ravel()
    bad = np.flatnonzero(g != w)
    assert bad.size == 0, f"{bad.size} differ, first at {bad[0]}: {g[bad[0]]:#x} != {w[bad[0]]:#x}"


def same_values(got, want):
    """Bits equal; any NaN matches any NaN (the reference leaves NaN payloads open)."""
    got, want = np.asarray(got), np.asarray(want)
    nan = np.isnan(want.astype(np.float64))
    assert np.array_equal(np.isnan(got.astype(np.float64)), nan)
    same_bits(np.where(nan, 0, got).astype(got.dtype), np.where(nan, 0, want).astype(got.dtype))


# -- independent references ---------------------------------------------------------------------
def exact_fmod(x: float, y: float) -> float:
    try:
        return math.fmod(x, y)
    except ValueError:  # inf or a zero divisor
        return math.nan


def hp_rem(x: float, y: float) -> F32:
    """TREM's HIGH_PRECISION result: the exact fmod, then TREM's fix-up, which adds y where the
    float32 product y * r is negative: where that product underflows to -0 the fix-up is skipped
    and the result keeps the dividend's sign (the reference's own comparison)."""
    return fix32(F32(exact_fmod(x, y)), y)


def chain32(x, y, floor: bool) -> F32:
    """vdiv, vtrc (toward zero / -inf), vmul, vsub, each a float32 operation."""
    with np.errstate(all="ignore"):
        q = F32(x) / F32(y)
        if math.isfinite(q):
            q = F32((math.floor if floor else math.trunc)(float(q)))
        return F32(x) - q * F32(y)


def fix32(r, y, T=F32):
    """TREM's sign fix-up in T: r + y where y * r < 0."""
    with np.errstate(all="ignore"):
        return T(T(r) + T(y)) if T(T(y) * T(r)) < 0 else T(r)


def half_toward_zero(v: F32) -> np.float16:
    """float32 -> half rounded toward zero: numpy's nearest half, stepped back when it is
    farther from zero than v (overflow clamps to 65504: the a5 conversion saturates)."""
    if math.isnan(v):
        return np.float16(np.nan)
    h = np.float16(min(max(float(v), -65504.0), 65504.0))
    if abs(float(h)) > abs(float(v)):
        h = np.nextafter(h, np.float16(0))
    return np.float16(h)


def table(fn, a, b):
    return [fn(float(x), float(y)) for x, y in zip(a.ravel().tolist(), b.ravel().tolist())]


def wide_float32(rng, n):
    """float32 values of every binade (subnormals included) with random signs and the IEEE
    specials first."""
    mant = rng.uniform(1, 2, n)
    exps = rng.integers(-149, 127, n)
    v = (mant * np.exp2(exps.astype(np.float64)) * rng.choice([-1.0, 1.0], n)).astype(F32)
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, 7.5, -7.5, 1e-45, 3.0, 1e30]
    v[: len(specials)] = specials
    return v


# -- HIGH_PRECISION ------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["FMOD", "REM"])
def test_high_precision_float32_is_the_exact_remainder(op):
    rng = seeded("hp", op)
    a = wide_float32(rng, 512).reshape(8, 64)
    b = wide_float32(rng, 512)
    b[:10] = [3.0, -3.0, math.inf, 2.0, math.inf, -math.inf, math.inf, 3e-39, math.nan, -3.0]
    b = b.reshape(8, 64)
    ref = exact_fmod if op == "FMOD" else hp_rem
    want = np.array(table(ref, a, b), dtype=F32).reshape(a.shape)
    _, got = run(op, "float32", a, b, algorithm="HIGH_PRECISION")
    same_values(got, want)
    # the cases the algorithm selects: -0 keeps its sign, both infinite is NaN, x mod inf
    assert got[0, 1].view(np.uint32) == np.float32(-0.0).view(np.uint32)
    assert np.isnan(got[0, 2]) and got[0, 6] == F32(-7.5 if op == "FMOD" else math.inf)


def test_high_precision_rem_skips_the_fix_up_when_the_product_underflows():
    # -4.3e-31 mod 1.15e-39: fmod is -9.4e-40; 1.15e-39 * -9.4e-40 underflows to -0, which
    # is not < 0, so the result keeps the dividend's sign (the floor remainder is 2.1e-40)
    a = np.full((1, 64), F32(-4.3155656e-31))
    b = np.full((1, 64), F32(1.153643e-39))
    _, got = run("REM", "float32", a, b, algorithm="HIGH_PRECISION")
    same_bits(got, np.full_like(a, F32(math.fmod(float(a[0, 0]), float(b[0, 0])))))
    assert got[0, 0] < 0


@pytest.mark.parametrize("op", ["FMODS", "REMS"])
def test_high_precision_scalar_forms(op):
    rng = seeded("hps", op)
    a = wide_float32(rng, 256).reshape(4, 64)
    s = F32(-2.75e-3)
    ref = exact_fmod if op == "FMODS" else hp_rem
    want = np.array([ref(float(x), float(s)) for x in a.ravel()], dtype=F32).reshape(a.shape)
    _, got = run(op, "float32", a, scalar=s, algorithm="HIGH_PRECISION")
    same_values(got, want)


def test_default_float32_is_the_rounded_chain_and_differs_from_high_precision():
    a = np.array([[1e30, -1e30, 7.5, 1e10, 123456.789, -5.5, 3.0, 1e-3] * 8], dtype=F32)
    b = np.array([[3.0, 7.0, 2.0, 0.3, 1.1, 2.5, -0.7, 3e-4] * 8], dtype=F32)
    _, default = run("FMOD", "float32", a, b)
    want = np.array(table(lambda x, y: chain32(x, y, False), a, b), dtype=F32).reshape(a.shape)
    same_values(default, want)
    _, hp = run("FMOD", "float32", a, b, algorithm="HIGH_PRECISION")
    # -1e30 mod 7: the rounded quotient loses the remainder (0), the exact one is -1
    assert default[0, 1] == 0 and hp[0, 1] == F32(math.fmod(float(F32(-1e30)), 7.0)) == -1


def test_a2a3_ignores_high_precision():
    a = np.array([[1e30, -1e30, 7.5, 1e10] * 16], dtype=F32)
    b = np.array([[3.0, 7.0, 2.0, 0.3] * 16], dtype=F32)
    _, default = run("FMOD", "float32", a, b, device="a2")
    _, hp = run("FMOD", "float32", a, b, device="a2", algorithm="HIGH_PRECISION")
    same_bits(hp, default)


# -- the DEFAULT float forms ----------------------------------------------------------------------
def test_trems_float32_has_no_sign_fix_up_and_trem_has():
    # a just below a multiple of b: the quotient rounds up to the multiple, so the chain's
    # remainder is a small negative number; TREM adds b back, TREMS keeps it (npu/a5 TRemS.hpp)
    b = np.array([1068566563], dtype=np.uint32).view(F32)[0]  # 1.3830608
    a = np.full((1, 64), np.array([1229525985], dtype=np.uint32).view(F32)[0])  # 823614.06
    chain = chain32(float(a[0, 0]), float(b), True)
    assert chain < 0  # the inputs do what the comment says
    _, rems = run("REMS", "float32", a, scalar=b)
    same_bits(rems, np.full_like(a, chain))
    _, rem = run("REM", "float32", a, np.full_like(a, b))
    same_bits(rem, np.full_like(a, fix32(chain, b)))


@pytest.mark.parametrize("op", ["FMOD", "REM", "FMODS", "REMS"])
def test_half_runs_in_float32_and_truncates_back(op):
    rng = seeded("half", op)
    a = rng.uniform(-6e4, 6e4, (4, 64)).astype(np.float16)
    b = rng.uniform(-40, 40, (4, 64)).astype(np.float16)
    a[0, :4], b[0, :4] = [2048.0, -1000.5, 0.0, 7.0], [0.1, 3.0, 0.0, -2.0]
    s = np.float16(0.3) if op.endswith("S") else None
    bb = np.full_like(a, s) if s is not None else b
    floor = op.startswith("REM")

    def ref(x, y):
        h = half_toward_zero(chain32(x, y, floor))
        return fix32(h, y, np.float16) if op == "REM" else h

    want = np.array(table(ref, a, bb), dtype=np.float16).reshape(a.shape)
    _, got = run(op, "half", a, b if s is None else None, scalar=s)
    same_values(got, want)


# -- integers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["int16", "uint16", "int32", "uint32"])
def test_integer_fmod_and_rem(dt):
    info = np.iinfo(dt)
    rng = seeded("int", dt)
    a = rng.integers(info.min, info.max, (2, 64), endpoint=True).astype(dt)
    b = rng.integers(info.min, info.max, (2, 64), endpoint=True).astype(dt)
    b[b == 0] = 7
    if info.min < 0:
        a[0, :2], b[0, :2] = info.min, -1  # INT_MIN % -1 is 0 both ways
    x, y = a.astype(object), b.astype(object)
    trunc = [abs(p) % abs(q) * (1 if p >= 0 else -1) for p, q in zip(x.ravel(), y.ravel())]
    floor = [p % q for p, q in zip(x.ravel(), y.ravel())]
    _, got = run("FMOD", dt, a, b)
    same_bits(got, np.array(trunc, dtype=dt).reshape(a.shape))
    _, got = run("REM", dt, a, b)  # vmod: the divisor's sign
    same_bits(got, np.array(floor, dtype=dt).reshape(a.shape))
    assert (trunc != floor) == (info.min < 0)  # signed data tells the two apart


def test_integer_zero_divisor_is_an_error_below_64_bits():
    a = np.full((1, 16), 5, dtype=np.int32)
    b = np.ones((1, 16), dtype=np.int32)
    b[0, 3] = 0
    with pytest.raises(pto.ExecutionError, match="division by zero"):
        run("REM", "int32", a, b)


def test_64_bit_rem_truncates_and_gives_zero_for_a_zero_divisor():
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    a = np.array([[lo, -7, 7, hi, -1000001, 999, 5, -5] * 2], dtype=np.int64)
    b = np.array([[-1, 3, -3, 0, 97, 1000, 0, 2] * 2], dtype=np.int64)
    want = np.array([[0, -1, 1, 0, -1000001 + 10309 * 97, 999, 0, -1] * 2], dtype=np.int64)
    _, got = run("REM", "int64", a, b)
    same_bits(got, want)
    _, got = run("REMS", "int64", a, scalar=-3)
    want = [abs(int(p)) % 3 * (1 if p >= 0 else -1) for p in a.ravel()]
    same_bits(got, np.array(want, dtype=np.int64).reshape(a.shape))
    u = np.array([[np.iinfo(np.uint64).max, 7, 0, 2**63 + 5] * 4], dtype=np.uint64)
    _, got = run("REMS", "uint64", u, scalar=0)
    same_bits(got, np.zeros_like(u))
    _, got = run("REM", "uint64", u, np.array([[3, 0, 2**64 - 1, 10] * 4], dtype=np.uint64))
    same_bits(got, np.array([[0, 0, 0, (2**63 + 5) % 10] * 4], dtype=np.uint64))


# -- in place and element types ---------------------------------------------------------------
def test_tfmods_in_place_reads_src_before_writing():
    a = np.full((2, 64), 7.0, dtype=F32)
    r, got = run("FMODS", "float32", a, scalar=F32(2.0), in_place=True)
    same_bits(got, np.ones_like(a))  # a2a3 broadcasts 2.0 into dst first (F105); a5 does not
    assert not [f for f in r.findings if f.code == "F105"]


def test_int8_is_refused():
    a = np.ones((1, 32), dtype=np.int8)
    with pytest.raises(pto.PtoSimError, match="dtype"):
        run("FMOD", "int8", a, a)
