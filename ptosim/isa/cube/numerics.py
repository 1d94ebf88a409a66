"""The arithmetic of one ``mad`` (decision D18 of docs/decisions.md).

- Integer inputs (int8): exact products summed in int32 with two's-complement wrap-around (the
  int32 accumulator of every target).
- Float inputs, the CPU simulator (``sequential``): inputs widened to float, then one fused
  multiply-add per k in the order 0..K-1 from the start value (``std::fma`` on floats: one
  rounding per step), as cpu/TMatmul.hpp does; a value added afterwards (cIn of TMATMUL_ACC,
  the bias of TMATMUL_BIAS) is one more float addition.
- Float inputs, the NPU: the order and rounding inside the cube are not published
  (reference/cube_isa.md 3.4 "uncertain"). The library's goldens are ``np.matmul`` of the inputs
  widened to float32 (gen_data.py of the tmatmul folders), i.e. an accurate float sum; ptosim
  takes the sum of the exact products in float64, added to the start value (the accumulator
  for TMATMUL_ACC, the bias for TMATMUL_BIAS) and rounded once to float32.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType


def fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``fmaf(a, b, c)`` elementwise, correctly rounded: the float products are exact in
    float64, the float64 sum is rounded to odd (TwoSum error) so that the final rounding to
    float32 is the single rounding of the exact value (53 >= 24 + 2 bits)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    s = p + c64
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)
    even = (s.view(np.int64) & 1) == 0
    fix = (err != 0) & even & np.isfinite(s)
    if fix.any():
        s = np.where(fix, np.nextafter(s, s + err), s)
    return s.astype(np.float32)


def mad_sum(a, b, acc: DType, init=None, after=None, *, sequential: bool) -> np.ndarray:
    """``init + a @ b`` (then ``+ after``) in the accumulator type ``acc`` (module doc)."""
    rows, n = a.shape[0], b.shape[1]
    if acc.kind == "int":
        out = a.astype(np.int64) @ b.astype(np.int64)
        for extra in (init, after):
            if extra is not None:
                out = out + np.asarray(extra).astype(np.int64)
        return out.astype(np.int32)  # two's-complement wrap of the int32 accumulator
    if not sequential:
        out = a.astype(np.float64) @ b.astype(np.float64)
        if init is not None:
            out = out + np.asarray(init).astype(np.float64)
        out = out.astype(np.float32)
        if after is not None:
            out = (out.astype(np.float64) + np.asarray(after).astype(np.float64)).astype(np.float32)
        return out
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    out = (
        np.zeros((rows, n), np.float32)
        if init is None
        else np.array(np.broadcast_to(init, (rows, n)), np.float32)
    )
    for kk in range(a32.shape[1]):
        out = fma_f32(a32[:, kk : kk + 1], b32[kk : kk + 1, :], out)
    if after is not None:  # a float addition of two floats (float64 then float: exact rounding)
        out = (out.astype(np.float64) + np.asarray(after).astype(np.float64)).astype(np.float32)
    return out


def round_hf32(x: np.ndarray, mode: str, mantissa_bits: int = 11) -> np.ndarray:
    """float32 -> the cube's TF32 / HF32 input format (8-bit exponent, ``mantissa_bits``-bit
    mantissa: 11 on a2a3, 10 on a5), kept in float32: the low ``23 - mantissa_bits`` mantissa
    bits dropped with ``CAST_RINT`` (ties to even) or ``CAST_ROUND`` (ties away from zero),
    subnormals flushed to signed zero, NaN / inf kept (reference/cube_isa.md 3.4; the rounding
    the a2a3 tmatmul golden applies)."""
    drop = 23 - mantissa_bits
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    exp = (bits >> 23) & 0xFF
    low = np.uint64((1 << drop) - 1)
    half = np.uint64(1 << (drop - 1))
    lost = bits & low
    keep = bits & ~low
    if mode == "CAST_RINT":
        up = (lost > half) | ((lost == half) & (((bits >> drop) & 1) == 1))
    else:
        up = lost >= half
    out = keep + np.where(up, np.uint64(1 << drop), np.uint64(0))  # a carry bumps the exponent
    out = np.where(exp == 0, bits & np.uint64(0x80000000), out)  # subnormals -> signed zero
    out = np.where(exp == 0xFF, bits, out)
    return out.astype(np.uint32).view(np.float32)
