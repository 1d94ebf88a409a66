"""TFMOD(S) and TREM(S) as one a5 vector function computes them (``Remainder.VF_REGISTERS``).

The a5 lowering (``npu/a5`` TFMod.hpp, TFModS.hpp, TRem.hpp, TRemS.hpp, custom/TFmodRemHp.hpp,
Int64Div.hpp) works on registers: every source is loaded before dst is stored, so an aliased
dst changes nothing and the S forms broadcast the scalar into a register (``vdup``), not into
dst. Every intrinsic rounds its result to the register's type (nearest even):

- float32, DEFAULT: ``q = vdiv(a, b)``, ``vtrc`` toward zero (FMOD) or toward -inf (REM),
  ``p = vmul(q, b)``, ``r = vsub(a, p)``. TREM then adds b where ``vmul(b, r) < 0``; TREMS does
  not (its a5 body has no sign fix-up).
- half: each half goes to float32 (exact), the float32 chain above runs, and the float32 result
  is converted back toward zero with saturation (``vcvt ROUND_Z RS_ENABLE``: +-inf becomes
  +-65504). TREM's sign fix-up then runs in half (``vmul``, ``vadd`` rounded to half).
- 16/32-bit integers: FMOD is ``vdiv`` (truncating), ``vmul``, ``vsub`` wrapping in T (the C
  remainder); REM is ``vmod``, whose result has the divisor's sign (the remainder the reference
  documents, and the library's ``%`` goldens). A zero divisor raises ExecutionError (the
  hardware's result is not published).
- 64-bit integers (TREM, TREMS): ``a - (a / b) * b`` with the Int64Div quotient (truncating, so
  the dividend's sign; ``INT64_MIN / -1`` wraps), and 0 where the divisor is 0.
- float32 with ``HIGH_PRECISION`` (``TFmodRemHP``): the remainder of ``|a|`` by ``|b|`` is
  reduced in 11 steps by ``|b|`` scaled by 2^120 ... 2^24, 1 (``SCALE_STEPS``): per step
  ``B = |b| * s1 * s2`` (rounded, may overflow), ``k = vtrc(y / B)``, ``B = min(B, FLT_MAX)``,
  ``y = y - k * B`` as one fused ``vmula`` (rounded once); the last step scales a subnormal or
  zero ``|b|`` (``<= FLT_MIN``) and y by 2^24 first and ends with ``y += signbit(y) * B``. Then
  y gets a's sign (``* (1 - 2 * signbit(a))``), the 2^24 scaling is undone, and the special
  cases are selected: ``b = +-inf`` gives a, both infinite give NaN (0x7fc00000), ``a = +-0``
  with b neither zero nor NaN gives a. TREM(S) then adds b where ``b * y < 0`` (a product that
  underflows to -0 skips it: the result keeps a's sign). The steps round toward zero for FMOD
  and toward -inf for REM. ``vmula`` fused is our reading, and the one the folders support:
  fused, the algorithm gives exactly ``fmod`` (the a5 folders' golden, compared within 1e-7) on
  float32 inputs of every binade; with the product rounded first it misses ~10% of them. A NaN
  the arithmetic produces is numpy's (its sign and payload are not specified by the reference).
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from .common import round_sum_once, round_to
from .convert import round_float
from .unary import trunc_divmod

_F = np.float32
# (scale1, scale2) of TFmodRemHP's steps 11 .. 1: the divisor is multiplied by both (steps over
# 5 only by the second as well); FLT_MAX clamps the product after the quotient is taken
SCALE_STEPS = tuple(
    (2.0**s1, 2.0**s2)
    for s1, s2 in (
        (120, 120), (120, 96), (120, 72), (120, 48), (120, 24),  # steps 11 .. 7
        (120, 0), (96, 0), (72, 0), (48, 0), (24, 0), (24, 0),  # steps 6 .. 1
    )
)  # fmt: skip
_FLT_MAX = _F(3.4028235e38)
_SUBNORMAL_LIMIT = _F(1.1754944e-38)  # FLT_MIN: "<=" selects subnormals, zeros and FLT_MIN
_NAN = np.array([0x7FC00000], dtype=np.uint32).view(_F)[0]


def _sign_bit(x: np.ndarray) -> np.ndarray:
    """1.0 where x's sign bit is set, else 0.0 (vshrs 31, vand 1, vcvt)."""
    return ((x.astype(_F).view(np.uint32) >> 31) & 1).astype(_F)


def _fma(k: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y + k * b`` rounded once to float32 (vmula)."""
    prod = k.astype(np.float64) * b.astype(np.float64)  # exact: 24 + 24 bits
    return round_sum_once(y.astype(np.float64), prod, D.float32)


def high_precision(a: np.ndarray, b: np.ndarray, *, floor: bool) -> np.ndarray:
    """TFmodRemHP on float32 arrays (module docstring); ``floor``: the REM form."""
    step = np.floor if floor else np.trunc
    a, b = a.astype(_F), b.astype(_F)
    with np.errstate(all="ignore"):
        y, s = np.abs(a), np.abs(b)
        for n, (s1, s2) in zip(range(11, 1, -1), SCALE_STEPS):
            big = s * _F(s1)
            if n > 5:
                big = big * _F(s2)
            k = step(y / big)
            y = _fma(-k, np.minimum(big, _FLT_MAX), y)
        up = _F(SCALE_STEPS[-1][0])  # the last step: 2^24 for a tiny divisor
        tiny = s <= _SUBNORMAL_LIMIT
        big = np.where(tiny, s * up, s)
        y = np.where(tiny, y * up, y)
        y = _fma(-step(y / big), big, y)
        y = y + _sign_bit(y) * big
        y = y * (_sign_bit(a) * _F(-2.0) + _F(1.0))
        y = np.where(tiny, y * _F(2.0**-24), y)
        y = np.where(np.isinf(b), a, y)
        y = np.where(np.isinf(a) & np.isinf(b), _NAN, y)
        y = np.where((a == 0) & (b != 0) & ~np.isnan(b), a, y)
        if floor:
            y = np.where(b * y < 0, y + b, y)
    return y.astype(_F)


def _float32_chain(a: np.ndarray, b: np.ndarray, *, floor: bool) -> np.ndarray:
    """vdiv, vtrc (toward zero or -inf), vmul, vsub in float32."""
    with np.errstate(all="ignore"):
        q = (np.floor if floor else np.trunc)(a / b)
        return a - q * b


def _sign_fix(r: np.ndarray, b: np.ndarray, dt: D.DType) -> np.ndarray:
    """TREM's fix-up in T: where ``vmul(b, r) < 0``, ``vadd(r, b)``."""
    r64, b64 = r.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        neg = round_to(b64 * r64, dt) < 0
        return np.where(neg, round_to(r64 + b64, dt), r).astype(dt.np)


def _float(a, b, dt: D.DType, *, floor: bool, fix: bool, hp: bool) -> np.ndarray:
    if dt is D.float32:
        if hp:
            return high_precision(a, b, floor=floor)
        r = _float32_chain(a.astype(_F), b.astype(_F), floor=floor)
        return _sign_fix(r, b, dt) if fix else r
    # half: through float32, back toward zero with saturation
    r = _float32_chain(a.astype(_F), b.astype(_F), floor=floor)
    r = round_float(r.astype(np.float64), D.half, "trunc", saturate=True).astype(np.float16)
    return _sign_fix(r, b, dt) if fix else r


def _int64_rem(a: np.ndarray, b: np.ndarray, dt: D.DType) -> np.ndarray:
    """Int64Rem: truncating remainder, 0 where the divisor is 0."""
    zero = b == 0
    _, r = trunc_divmod(a, np.where(zero, 1, b).astype(dt.np), dt)
    return np.where(zero, 0, r).astype(dt.np)


def vf_fmod(a: np.ndarray, b: np.ndarray, dt: D.DType, *, hp: bool) -> np.ndarray:
    """TFMOD / TFMODS (b: the tile or the broadcast scalar); integer divisors are nonzero."""
    if dt.is_int:
        return trunc_divmod(a, b, dt)[1]
    return _float(a, b, dt, floor=False, fix=False, hp=hp)


def vf_rem(a: np.ndarray, b: np.ndarray, dt: D.DType, *, hp: bool, scalar: bool) -> np.ndarray:
    """TREM / TREMS (``scalar``: no sign fix-up on the DEFAULT float paths)."""
    if dt.is_int:
        if dt.size_bytes == 8:
            return _int64_rem(a, b, dt)
        return np.mod(a.astype(np.int64), b.astype(np.int64)).astype(dt.np)  # vmod
    return _float(a, b, dt, floor=True, fix=not scalar, hp=hp)
