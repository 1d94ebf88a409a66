"""The fixpipe's quantisation (reference/cube_isa.md 3.5, 3.6): an Acc value
scaled by a 64-bit quant word, from the ``preQuantScalar`` operand (scalar quantisation, one word
for the tile) or from a Scaling tile in the fixpipe buffer (vector quantisation, one word per
output column: TSTORE_FP, TMOV_FP, TEXTRACT_FP, TINSERT_FP).

The word's fields, as the library's test goldens decode them (a2a3 tstore_acc2gm and
tmov_acc2mat gen_data.py; a5 tstore_acc2gm ``extract_quant_params``, the 950's QUANT_PRE) and its
kernels build them:

- bits [31:13]: the scale M1, a float with 1 sign, 8 exponent and 10 mantissa bits (the float32
  bits with the low 13 dropped);
- bits [35:32]: N, the shift of the int32 -> int16 mode (a right shift by N + 1);
- bits [45:37]: a 9-bit offset added after the int8 scaling;
- bit 46: 1 = signed int8 output range, 0 = unsigned.

Per output type (the mode the library derives from the dtype pair, a2a3/common.hpp and a5
GetScalarPreQuantModeGm / GetVectorPreQuantModeGm; which pairs a target has:
``CubeRules.quant_pairs``):

- int8 / uint8 (``QF322B8_PRE`` from float, ``REQ8`` from int32): ``x * M1`` in float32, rounded
  to the nearest integer (ties to even, as numpy's ``round`` in the goldens), saturated to
  [-256, 255], plus the offset, saturated to [-128, 127] (sign bit set) or [0, 255];
- half (``DEQF16`` from int32, ``QF322F16_PRE`` from float): ``x * M1`` in float32 saturated to
  the finite half range, then rounded to half;
- bfloat16 (``QF322BF16_PRE``): ``x * M1`` in float32 rounded to bfloat16, saturated finite;
- float8_e4m3 (950): as half, saturated to the type's largest finite value (448);
- float (950): ``x * M1`` in float32;
- hifloat8 (950): ``x * M1`` in float32 rounded to nearest, ties away from zero, as the HiF8
  format converts (``ptosim/hifloat8.py`` ``encode``; the library's golden converts the same
  way), no saturation (past 1.25 x 2^15 it is infinity);
- int16 (``SHIFTS322S16``, int32 only): ``x >> (N + 1)`` (arithmetic) saturated to int16.

NaN in a float accumulator quantised to an integer type gives 0 (not published; ptosim's choice,
so that the result is deterministic).
"""

from __future__ import annotations

import numpy as np

from ... import hifloat8
from ...dtypes import DType
from ...dtypes import dtype as as_dtype

FB_ADDRESS_UNIT_BYTES = 128  # the FPC register holds the Scaling tile's address in 128 B units


def decode(words: np.ndarray):
    """(scale float32, shift int, offset int, signed bool) arrays of quant words (uint64)."""
    w = np.asarray(words, dtype=np.uint64)
    scale = (w & np.uint64(0xFFFFE000)).astype(np.uint32).view(np.float32)
    shift = ((w >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64)
    offset = ((w >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
    signed = ((w >> np.uint64(46)) & np.uint64(1)).astype(bool)
    return scale, shift, offset, signed


def _saturate_float(x: np.ndarray, dst_np) -> np.ndarray:
    hi = float(np.finfo(dst_np).max)
    return np.clip(x, -hi, hi).astype(dst_np)


def quantise(values: np.ndarray, words: np.ndarray, dst: DType) -> np.ndarray:
    """The Acc ``values`` (rows x cols, float32 or int32) through the quant ``words`` (one, or
    one per column), converted to ``dst`` (module docstring)."""
    scale, shift, offset, signed = decode(np.broadcast_to(words, values.shape[-1:]))
    dst_np = dst.np
    if dst.name == "int16":
        wide = values.astype(np.int64) >> (shift + 1)
        return np.clip(wide, -32768, 32767).astype(np.int16)
    scaled = values.astype(np.float32) * scale  # float32 product, as the goldens compute it
    if dst.name in ("int8", "uint8"):
        r = np.rint(np.nan_to_num(scaled, nan=0.0, posinf=np.inf, neginf=-np.inf))
        r = np.clip(r, -256, 255).astype(np.int64) + offset
        lo = np.where(signed, -128, 0)
        hi = np.where(signed, 127, 255)
        return np.clip(r, lo, hi).astype(np.int64).astype(dst_np)
    if dst.name == "float32":
        return scaled
    if dst.name == "hifloat8":  # the format's own rounding, no clamp
        return hifloat8.encode(scaled)
    if dst.name == "bfloat16":
        return _saturate_float(scaled.astype(as_dtype("bfloat16").np).astype(np.float32), dst_np)
    return _saturate_float(scaled, dst_np)
