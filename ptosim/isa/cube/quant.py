"""The fixpipe's quantisation: an accumulator value scaled into a narrower type on its way out
of L0C (reference/cube_isa.md 3.5, 3.6).

A quantisation word (uint64) carries, as the 950's QUANT_PRE register and the library's
goldens read it (a5 tstore_acc2gm gen_data.py ``extract_quant_params``):

- bits [31:13]: the scale, a float of 1 sign, 8 exponent and 10 mantissa bits (a float32 whose
  low 13 mantissa bits are dropped);
- bits [45:37]: a 9-bit offset added to an 8-bit integer result (two's complement: choice,
  the reference's tests leave it 0);
- bit 46: an 8-bit integer result is signed (int8, clamped to [-128, 127]) or not (uint8,
  [0, 255]).

The scalar form (``preQuantScalar``) applies one word to every element; the vector form
(``TSTORE_FP``, a Scaling tile in the fixpipe buffer) one word per output column.

Per element (the hardware's rounding is not published; these are the library goldens' steps):
``y = float32(x) * scale`` (one float32 rounding), then

- to int8 / uint8: ``y`` clamped to [-256, 255] and rounded to nearest even, plus the offset,
  clamped to the signed or unsigned 8-bit range;
- to half / bfloat16 / float8_e4m3: ``y`` clamped to the type's largest finite magnitude, then
  rounded to nearest even;
- to hifloat8: ``y`` rounded to nearest, ties away from zero, as the HiF8 format converts
  (ptosim/hifloat8.py ``encode``; the library's golden converts the same way);
- to float: ``y``.

ReLU comes after the quantisation (the CPU simulator's order; the goldens apply it last).
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ... import hifloat8
from ...dtypes import DType

SCALE_MASK = np.uint64(0xFFFFE000)  # bits [31:13]: 1 sign, 8 exponent, 10 mantissa bits


def word_fields(words) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scale float32, offset int64, signed bool) of quantisation words."""
    w = np.asarray(words).astype(np.uint64)
    scale = (w & SCALE_MASK).astype(np.uint32).view(np.float32)
    raw = ((w >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
    offset = np.where(raw >= 256, raw - 512, raw)
    signed = ((w >> np.uint64(46)) & np.uint64(1)).astype(bool)
    return scale, offset, signed


def _finite_max(dt: DType) -> float:
    return float(np.finfo(dt.np).max)


def quantise(values: np.ndarray, words, dst: DType) -> np.ndarray:
    """``values`` (float32 or int32, rows x cols) quantised with ``words`` (one word, or one
    per column) into ``dst``'s numpy type."""
    scale, offset, signed = word_fields(words)
    y = values.astype(np.float32) * scale  # float32 x float32: one rounding
    if dst.size_bytes == 1 and dst.kind in ("int", "uint"):
        t = np.rint(np.clip(y, -256, 255)).astype(np.int64) + offset
        q = np.where(signed, np.clip(t, -128, 127), np.clip(t, 0, 255))
        return (q & 0xFF).astype(np.uint8).view(dst.np)
    if dst is D.float32:
        return y
    if dst is D.hifloat8:  # the format's own rounding, no clamp (ptosim/hifloat8.py)
        return hifloat8.encode(y)
    top = _finite_max(dst)
    return np.clip(y, -top, top).astype(dst.np)


def relu_after(values: np.ndarray) -> np.ndarray:
    """ReLU on a quantised result (an 8-bit integer by its own type)."""
    return np.maximum(values, values.dtype.type(0))
