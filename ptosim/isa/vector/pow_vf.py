"""TPOW(S) of a float type as the a5 vector function computes it (``pow_float32_registers``).

The a5 lowering (``npu/a5/TPow.hpp``) loads half into float32 registers (exact), computes in
float32 whatever T is, and stores back with one round to nearest even (``vcvt ROUND_R``, no
saturation). Every intrinsic rounds to float32; ``vmadd`` (``d = d * s0 + s1``), ``vmula``
(``d = d + s0 * s1``) and ``vaxpy`` (``d = d + s * c``) round once (fused, as the a5 TAXPY and
the TFmodRemHP reading in ``remainder.py``); ``vln``, ``vexp`` and ``vdiv`` are modelled
correctly rounded (their accuracy is not published).

- DEFAULT: ``vexp(vmul(e, vln(|b|)))``.
- HIGH_PRECISION: ``ln|b|`` as a (high, low) float32 pair: ``|b| = m * 2^i`` with ``m`` in
  [0.707, 1.414) (integer arithmetic on the bits), ``q = (m - 1) / (m + 1)``, a degree-4
  polynomial in ``q^2`` and the ln 2 split into a high and a low constant; then ``e * ln|b|``
  as a (high, low) pair, ``vexp(high)`` corrected by ``* (1 + low)``, overflow to +inf where
  ``high >= 88.7228390`` and 0 where ``high < -104``. Below FLT_MIN the library starts ``i`` at
  -23 without scaling ``|b|`` up (the scaled value is computed and not used); ptosim does the
  same.
- Special cases (both forms, in this order, each on the lanes the previous ones left): ``e = 0``
  or ``b = 1`` give 1; a NaN operand gives NaN (0x7fc00000); ``b`` = +-0 or +-inf gives ``b``
  with its exponent bits flipped when ``e < 0`` (+-0 <-> +-inf), with the sign kept when ``e`` is
  an odd integer (``fmaf(-2, floor(e / 2), e) == 1``) and cleared otherwise; a negative finite
  ``b`` gives NaN (0x7fc00000) for a non-integer ``e``, the magnitude negated for an odd one;
  ``b = -1`` with ``e`` = +-inf gives 1.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from .common import round_sum_once

_F = np.float32
_I = np.int32
_NAN_BITS = 0x7FC00000
_EXP_BITS = 0x7F800000  # R10_COEFF: the exponent field
_ABS_BITS = 0x7FFFFFFF  # R12_COEFF
_FLT_MIN = _F(1.175494351e-38)  # below it the log starts its exponent at -23
_SQRT_HALF = _F(0.70710678)  # the mantissa is reduced into [sqrt(1/2), sqrt(2))
_EXP_MASK = np.int32(-0x800000)  # 0xff800000: sign and exponent of the bit difference
_TWO_M23 = _F(1.19209290e-7)  # 2^-23: turns the exponent bits into the exponent
_POLY = tuple(_F(c) for c in (0.129394531, 0.141957462, 0.200015724, 0.333333254))
_LN2_HI = _F(6.93147182e-1)
_LN2_LO = _F(-1.90465421e-9)
_EXP_OVERFLOW = _F(88.7228390)  # e * ln|b| at or above it: +inf
_EXP_UNDERFLOW = _F(-104.0)  # below it: 0


def _fma(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once to float32 (the product of two float32 is exact in float64)."""
    prod = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    return round_sum_once(np.asarray(c, np.float64), prod, D.float32).astype(_F)


def _f32(x) -> np.ndarray:
    """float64 values rounded once to float32 (vln, vexp, vdiv modelled correctly rounded)."""
    return np.asarray(x, np.float64).astype(_F)


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, _F).view(_I)


def _from_bits(i: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(i, _I).view(_F)


def _log_pair(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(high, low) float32 parts of ln|b| (GetLogFExtStepOne/Two)."""
    a = np.abs(b)
    hi = np.where(a < _FLT_MIN, _F(-23.0), _F(0.0)).astype(_F)
    e = (_bits(a) - _bits(_SQRT_HALF)) & _EXP_MASK  # int32, wrapping
    m = _from_bits(_bits(a) - e)
    hi = _fma(e.astype(_F), _TWO_M23, hi)  # vcvt (exact: multiples of 2^23), vaxpy
    lo = m - _F(1.0)
    r = _F(1.0) / (m + _F(1.0))  # vadds, vdiv
    q_hi = lo * r
    t = q_hi * _F(-2.0) + lo
    q_lo = r * _fma(-lo, q_hi, t)
    s = q_hi * q_hi
    p = _fma(s, _POLY[0], _POLY[1])
    p = _fma(p, s, _POLY[2])
    p = _fma(p, s, _POLY[3])
    p = p * s
    q_hi = q_hi + q_hi
    q_lo = q_lo + q_lo
    f_hi = hi * _LN2_HI + q_hi
    f_lo = q_hi - _fma(hi, -_LN2_HI, f_hi)
    q_hi = _fma(q_hi, p, f_lo)
    q_lo = _fma(q_lo * _F(3.0), p, q_lo)
    q_lo = _fma(hi, _LN2_LO, q_lo)
    q_lo = q_lo + q_hi
    high = f_hi + q_lo
    low = (f_hi - high) + q_lo
    return high, low


def _exp_pair(high: np.ndarray, low: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``exp(e * (high + low))`` with the product as a pair (GetExpCore)."""
    p_hi = high * e
    p_lo = _fma(high, e, -p_hi)
    p_lo = _fma(low, e, p_lo)
    r = _f32(np.exp(p_hi.astype(np.float64)))
    r = _fma(p_lo, r, r)
    inf = np.where(p_hi >= 0, _F(np.inf), _F(0.0))
    return np.where((p_hi >= _EXP_OVERFLOW) | (p_hi < _EXP_UNDERFLOW), inf, r).astype(_F)


def _odd_integer(e: np.ndarray) -> np.ndarray:
    """``fmaf(-2, floor(0.5 * e), e) == 1`` (ComputeExpoOddInt)."""
    return _fma(np.floor(e * _F(0.5)), _F(-2.0), e) == _F(1.0)


def _special_cases(out: np.ndarray, b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """ProcessFloatSpecialCase over float32 lanes (module docstring)."""
    nan = _from_bits(np.array([_NAN_BITS], _I))[0]
    one = (e == 0) | (b == 1)
    is_nan = ~one & (np.isnan(b) | np.isnan(e))
    rest = ~one & ~is_nan
    odd = _odd_integer(e)
    edge = rest & ((np.abs(b) == np.inf) | (b == 0))
    flipped = np.where(e < 0, _from_bits(_bits(b) ^ _EXP_BITS), b)
    edge_val = np.where(odd, flipped, _from_bits(_bits(flipped) & _ABS_BITS))
    regular = rest & ~edge
    signed = np.where(odd, -out, out)
    signed = np.where(e != np.floor(e), nan, signed)
    res = np.where(one, _F(1.0), out)
    res = np.where(is_nan, nan, res)
    res = np.where(edge, edge_val, res)
    res = np.where(regular & (b < 0), signed, res)
    res = np.where(regular & np.isinf(e) & (b == -1), _F(1.0), res)
    return res.astype(_F)


def vf_pow(base: np.ndarray, exp: np.ndarray, dt: D.DType, *, hp: bool) -> np.ndarray:
    """TPOW(S) for float ``dt`` on a5 (module docstring); ``exp`` broadcasts for TPOWS."""
    b = base.astype(_F)
    e = np.broadcast_to(np.asarray(exp).astype(_F), b.shape)
    with np.errstate(all="ignore"):
        if hp:
            out = _exp_pair(*_log_pair(b), e)
        else:
            ln = _f32(np.log(np.abs(b).astype(np.float64)))
            out = _f32(np.exp((e * ln).astype(np.float64)))
        out = _special_cases(out, b, e)
        return out.astype(dt.np)
