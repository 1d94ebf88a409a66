"""The value of a hifloat8 byte (Ascend HiF8), for the instructions that compute with it.

ptosim stores hifloat8 as opaque bytes (``dtypes.hifloat8``); the 950 cube multiplies it
(``mad`` with hifloat8 Left and Right tiles, reference/cube_isa.md 3.4), so the mad needs its
value. The format is Huawei's published HiFloat8 ("Ascend HiFloat8 Format for Deep Learning",
2024), which the a5 tmatmul test's golden generator decodes the same way:

- bit 7 is the sign; then a prefix-coded "dot" field says how many exponent bits D follow:
  ``11`` D = 4, ``10`` D = 3, ``01`` D = 2, ``001`` D = 1, ``0001`` D = 0, ``0000`` denormal;
- the exponent field (D bits) is sign-magnitude with an implicit leading one in the magnitude:
  its first bit is the exponent's sign, the other D - 1 bits follow the implicit 1, so the
  magnitudes are 8..15 (D = 4), 4..7, 2..3, 1 and 0 (D = 0, no field);
- the mantissa fills the rest (1 bit for D = 4, 2 for D = 3, 3 otherwise): value
  ``(-1)^s * 2^e * (1 + m / 2^bits)``;
- denormal (dot ``0000``): ``(-1)^s * 2^(m - 23)`` for a 3-bit m of 1..7; m = 0 is zero
  (sign 0) or NaN (sign 1);
- the largest magnitude pattern (D = 4, exponent +15, mantissa 1: 0x6F / 0xEF) is +-inf.

Encoding (``encode``, for the fixpipe's float -> hifloat8 output) rounds to the nearest value
with ties away from zero, the format's published default rounding: a magnitude at or past the
midpoint between the largest finite value (2^15) and the pattern 0x6F read as a finite number
(1.5 x 2^15) becomes infinity, below it 2^15; NaN becomes 0x80, a zero of either sign 0x00.
"""

from __future__ import annotations

import numpy as np


def _value(byte: int) -> float:
    sign = -1.0 if byte & 0x80 else 1.0
    rest = byte & 0x7F  # 7 bits: dot, exponent, mantissa
    if rest >> 5 == 0b11:
        d = 4
    elif rest >> 5 == 0b10:
        d = 3
    elif rest >> 5 == 0b01:
        d = 2
    elif rest >> 4 == 0b001:
        d = 1
    elif rest >> 3 == 0b0001:
        d = 0
    else:  # 0000: denormal
        m = rest & 0b111
        if m == 0:
            return float("nan") if sign < 0 else 0.0
        return sign * 2.0 ** (m - 23)
    dot_bits = {4: 2, 3: 2, 2: 2, 1: 3, 0: 4}[d]
    man_bits = 7 - dot_bits - d
    field = (rest >> man_bits) & ((1 << d) - 1)
    m = rest & ((1 << man_bits) - 1)
    if d == 0:
        e = 0
    else:
        magnitude = (1 << (d - 1)) | (field & ((1 << (d - 1)) - 1))
        e = -magnitude if field >> (d - 1) else magnitude
    if d == 4 and e == 15 and m == 1:
        return sign * float("inf")
    return sign * 2.0**e * (1.0 + m / (1 << man_bits))


# the largest finite magnitude (0x6E: D = 4, exponent +15, mantissa 0)
MAX_FINITE = np.float32(2.0**15)

# all 256 values (float32 holds each exactly: at most 4 significant bits, |e| <= 23)
TABLE = np.array([_value(b) for b in range(256)], dtype=np.float32)


# the non-negative finite values in increasing order with their bytes, and the pattern of
# infinity read as the finite 1.5 x 2^15 it would be (the rounding boundary to infinity)
_POS_BYTES = np.array([b for b in range(0x80) if np.isfinite(TABLE[b])], np.uint8)
_ORDER = np.argsort(TABLE[_POS_BYTES], kind="stable")
_POS_BYTES = _POS_BYTES[_ORDER]
_POS_VALUES = np.append(TABLE[_POS_BYTES].astype(np.float64), 1.5 * 2.0**15)
_POS_BYTES = np.append(_POS_BYTES, np.uint8(0x6F))


def encode(values) -> np.ndarray:
    """hifloat8 bytes of float values: nearest, ties away from zero (module doc)."""
    x = np.asarray(values, np.float64)
    mag = np.abs(x)
    hi = np.clip(np.searchsorted(_POS_VALUES, mag, side="left"), 1, len(_POS_VALUES) - 1)
    lo_v, hi_v = _POS_VALUES[hi - 1], _POS_VALUES[hi]
    pick = np.where(mag - lo_v < hi_v - mag, hi - 1, hi)  # a tie goes up: away from zero
    pick = np.where(mag == lo_v, hi - 1, pick)
    out = _POS_BYTES[pick]
    out = np.where(mag >= _POS_VALUES[-1], np.uint8(0x6F), out)  # past the end: infinity
    out = np.where((np.signbit(x)) & (out != 0), out | np.uint8(0x80), out)
    return np.where(np.isnan(x), np.uint8(0x80), out).astype(np.uint8)


def decode(bits: np.ndarray) -> np.ndarray:
    """float32 values of hifloat8 bytes (any integer array of bit patterns)."""
    return TABLE[np.asarray(bits).astype(np.uint8)]
