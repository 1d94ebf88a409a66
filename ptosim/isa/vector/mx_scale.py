"""The number formats of TQUANT's MX forms: shared exponents, group scalings and the fp8 / fp4
encodings (no tiles here; ``mxquant.py`` applies them to a tile's groups of 32 elements).

Shared exponent (an E8M0 byte: the power ``2^(e - 127)``, 0xFF NaN) of a group from its largest
magnitude ``m`` (an f32 value; for 16-bit sources the bf16 / fp16 value widened exactly):

- ``OCP`` (the OCP MX rule): with ``E`` the biased exponent field of ``m`` (f32 and bf16 share
  it), ``e = E - emax`` when ``E > emax``, else 0, where ``emax`` is the largest exponent of the
  element format (8 for E4M3, 2 for E2M1); a NaN ``m`` gives 0xFF. An infinite ``m`` has
  ``E = 255`` (0xF7 for E4M3).
- ``NV`` (round the descale up): ``d = m * f32(1 / fmt_max)`` in f32 (fmt_max 448 for E4M3, 6 for
  E2M1); ``m == 0`` gives 0; ``e`` is d's exponent field, plus one when its mantissa is not zero,
  except for exponent field 0xFE (kept) and for a subnormal ``d`` whose mantissa is at most half
  (0x400000: exponent 0); an infinite ``d`` gives 0xFE, a NaN one 0xFF.

The scaling the group's elements are multiplied by is ``2^(127 - e)`` (an f32 power of two;
``e == 0`` gives 2^127), NaN for ``e == 0xFF``, and ``2^-127`` for NV's ``e == 0xFE``.

Encodings: E4M3 (OCP "FN": no infinity, 0x7F / 0xFF NaN, largest 448) takes the scaled value
clamped to +-448 and rounded to nearest, ties to even; NaN gives 0x7F. E2M1 (bias 1, values
0, 0.5, 1, 1.5, 2, 3, 4, 6) rounds the magnitude to nearest, ties to the even code, saturating at
6, and keeps the sign bit (so -0 and a negative value rounding to 0 give 0x8); NaN gives 0x7,
+-inf 0x7 / 0xF.

Sources: npu/a5 TQuant.hpp (the OCP / NV exponent extraction, the descale multipliers, the
E2M1 rounding) and its test's golden generator; cpu/TQuant.hpp (the same rules in scalar code).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = [
    "E4M3_MAX",
    "E2M1_MAX",
    "EMAX",
    "FORMAT_MAX",
    "shared_exponent",
    "group_scaling",
    "encode_e4m3",
    "encode_e2m1",
    "bf16_bits",
    "bf16_round",
]

E4M3_MAX = 448.0
E2M1_MAX = 6.0
# the largest unbiased exponent of the element format, by TQUANT quant form
EMAX = {"MXFP8": 8, "MXFP4_E2M1": 2}
FORMAT_MAX = {"MXFP8": E4M3_MAX, "MXFP4_E2M1": E2M1_MAX}
_NAN_E8M0 = 0xFF
_NV_INF_E8M0 = 0xFE


def _fields(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    return ((bits >> 23) & 0xFF).astype(np.int64), (bits & 0x7FFFFF).astype(np.int64)


def shared_exponent(max_abs: np.ndarray, quant: str, scale_alg: str) -> np.ndarray:
    """The E8M0 byte of each group from its largest magnitude (module doc)."""
    m = np.asarray(max_abs, dtype=np.float32)
    if scale_alg == "OCP":
        exp, man = _fields(m)
        e = np.where(exp > EMAX[quant], exp - EMAX[quant], 0)
        return np.where((exp == 0xFF) & (man != 0), _NAN_E8M0, e).astype(np.uint8)
    with np.errstate(all="ignore"):
        descale = m * np.float32(1.0 / FORMAT_MAX[quant])
    exp, man = _fields(descale)
    up = (man > 0) & (exp != 0xFE) & ~((exp == 0) & (man <= 0x400000))
    e = exp + up
    e = np.where(exp == 0xFF, np.where(man == 0, _NV_INF_E8M0, _NAN_E8M0), e)
    return np.where(m == 0, 0, e).astype(np.uint8)


def group_scaling(e8m0: np.ndarray, scale_alg: str) -> np.ndarray:
    """The f32 multiplier of each group's elements (module doc)."""
    e = np.asarray(e8m0, dtype=np.int64)
    s = ((254 - e).clip(0, 254) << 23).astype(np.uint32).view(np.float32)
    s = np.where(s == 0, np.float32(2.0**-127), s)
    if scale_alg == "NV":
        s = np.where(e == _NV_INF_E8M0, np.float32(2.0**-127), s)
    return np.where(e == _NAN_E8M0, np.float32(np.nan), s).astype(np.float32)


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """The bf16 bit pattern of f32 values by truncation (the vector unit's ROUND_Z narrowing,
    which keeps infinities; NaN patterns keep their top bits, so they stay NaN)."""
    return (np.asarray(values, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_round(values: np.ndarray) -> np.ndarray:
    """f32 values rounded to bf16, to nearest, ties to even (as f32)."""
    return np.asarray(values, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def encode_e4m3(values: np.ndarray) -> np.ndarray:
    """E4M3 bytes of f32 values: clamped to +-448, rounded to nearest even (a negative value
    rounding to zero gives 0x80); NaN 0x7F."""
    v = np.asarray(values, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        clipped = np.clip(v, -E4M3_MAX, E4M3_MAX)
    codes = clipped.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    return np.where(np.isnan(v), np.uint8(0x7F), codes).astype(np.uint8)


def encode_e2m1(values: np.ndarray) -> np.ndarray:
    """E2M1 4-bit codes (uint8 0..15) of f32 values (module doc)."""
    v = np.asarray(values, dtype=np.float32)
    mag = np.abs(v).astype(np.float64)
    with np.errstate(invalid="ignore"):
        # steps of 0.5 below 2, 1 in [2, 4), 2 from 4: the code counts the steps, each band
        # starting at the code of its lower bound (0, 4, 6)
        code = np.where(
            mag < 2.0,
            np.rint(mag * 2.0),
            np.where(mag < 4.0, np.rint(mag) + 2.0, np.rint(mag / 2.0) + 4.0),
        )
    code = np.where(np.isnan(mag), 7.0, np.minimum(code, 7.0))
    sign = np.where(np.signbit(v) & ~np.isnan(v), 0x8, 0)
    return (code.astype(np.uint8) | sign).astype(np.uint8)
