"""Packed 4-bit elements in a tile's bytes, and the values of int4 and fp4 nibbles.

A packed dtype (``DType.bits == 4``) holds two elements per byte: the element of even column
``2k`` in the low nibble, ``2k + 1`` in the high nibble (pto/common/type.hpp keeps an int4b_t in
the low nibble; the a2a3 tcvt test packs "low nibble first"). The C++ element type is one byte, so
a Rows x Cols tile is Rows x Cols bytes; which of those bytes a row's nibbles fill is the
target's rule (``LayoutRules.nibbles``):

- ``ROW_PITCH``: row r starts at byte ``r * Cols`` (the tile's row stride counted in the
  one-byte C++ elements) and its Cols elements fill its first Cols / 2 bytes: a2a3, whose
  vconv_f162s4 / vconv_s42f16 take the tile's row stride in bytes and pack 128 elements into
  64 bytes per repeat (a2a3/TCvt.hpp repeat configuration).

  Element (r, c) of a RowMajor tile is the nibble ``c % 2`` of the byte at element offset
  ``(r, c // 2)``: the row-major offset arithmetic of ``TileRef.offsets`` gives that byte.
- ``FLAT``: the elements follow each other two per byte, element offset ``k`` (r * Cols + c for
  RowMajor) in byte ``k // 2``: fp4 on a5, whose conversions and DMA count columns in nibbles
  and halve every byte offset (npu/a5 TCvt.hpp, common.hpp GetByteSize), and on cpu (its tiles
  and GlobalTensors read and write fp4 element k in nibble k % 2 of byte k // 2).
- ``UNPACKED``: one element per byte, in its low nibble: int4b_t on cpu (the simulator's
  int4b_t is a one-byte struct; ``int4b_t(v)`` stores ``v & 0xF``).

fp4 (float4_e2m1x2_t, float4_e1m2x2_t; OCP MX): bit 3 the sign, then the exponent and mantissa
fields, bias 1, no infinity or NaN; exponent field 0 is subnormal (``m * 2^(1 - bias) / 2^M``).
"""

from __future__ import annotations

import numpy as np


def byte_offsets(
    ref, r: np.ndarray, c: np.ndarray, placement: str
) -> tuple[np.ndarray, np.ndarray]:
    """The storage byte of each element (r, c) of packed tile ``ref`` and whether it is the
    high nibble, for a ``placement`` (``"row-pitch"``, ``"flat"``, ``"unpacked"``: module
    doc)."""
    c = np.asarray(c)
    if placement == "flat":
        k = ref.offsets(r, c)
        return k // 2, (k % 2) == 1
    if placement == "unpacked":
        k = ref.offsets(r, c)
        return k, np.zeros(np.shape(k), dtype=bool)
    return ref.offsets(r, c // 2), (c % 2) == 1


def read(storage: np.ndarray, ref, r: np.ndarray, c: np.ndarray, placement: str) -> np.ndarray:
    """The 4-bit fields (uint8 in 0..15) of elements (r, c) of packed tile ``ref``."""
    at, high = byte_offsets(ref, r, c, placement)
    b = storage[at]
    return np.where(high, b >> 4, b & 0x0F).astype(np.uint8)


def write(
    storage: np.ndarray, ref, r: np.ndarray, c: np.ndarray, fields: np.ndarray, placement: str
) -> None:
    """Store 4-bit ``fields`` into elements (r, c) of packed tile ``ref``; the other nibble of
    each byte keeps its value (an odd valid column count leaves the last high nibble alone),
    except ``"unpacked"``, where the element is the whole byte (its high nibble 0, as
    ``int4b_t(value)`` stores it)."""
    at, high = byte_offsets(ref, r, c, placement)
    at, high = np.broadcast_to(at, np.shape(fields)), np.broadcast_to(high, np.shape(fields))
    f = np.asarray(fields, dtype=np.uint8) & 0x0F
    if placement == "unpacked":
        storage[at] = f
        return
    lo = ~high
    # the low nibbles first, then the high ones: each pass writes every byte at most once
    storage[at[lo]] = (storage[at[lo]] & 0xF0) | f[lo]
    storage[at[high]] = (storage[at[high]] & 0x0F) | (f[high] << 4)


def int4_values(fields: np.ndarray) -> np.ndarray:
    """The int4b_t values (int8, -8..7) of 4-bit fields: two's complement, bit 3 the sign."""
    f = np.asarray(fields, dtype=np.int16) & 0x0F
    return np.where(f >= 8, f - 16, f).astype(np.int8)


def int4_fields(values: np.ndarray) -> np.ndarray:
    """The 4-bit fields of int4 values in -8..7 (the low four bits of two's complement)."""
    return (np.asarray(values, dtype=np.int16) & 0x0F).astype(np.uint8)


def pack_bytes(fields: np.ndarray) -> np.ndarray:
    """Bytes of a flat even-length sequence of 4-bit fields, the first of each pair low."""
    f = np.asarray(fields, dtype=np.uint8).reshape(-1, 2) & 0x0F
    return (f[:, 0] | (f[:, 1] << 4)).astype(np.uint8)


def unpack_bytes(data: np.ndarray) -> np.ndarray:
    """The 4-bit fields of bytes, low nibble first (inverse of ``pack_bytes``)."""
    b = np.asarray(data, dtype=np.uint8).ravel()
    return np.stack([b & 0x0F, b >> 4], axis=1).ravel()


# (exponent bits, mantissa bits) of the fp4 formats, by ptosim dtype name; bias 1 for both
FLOAT4_FIELDS = {"float4_e2m1": (2, 1), "float4_e1m2": (1, 2)}


def float4_table(name: str) -> np.ndarray:
    """The 16 values (float64) of an fp4 format's fields, from its definition."""
    e_bits, m_bits = FLOAT4_FIELDS[name]
    out = []
    for f in range(16):
        e, m = (f >> m_bits) & ((1 << e_bits) - 1), f & ((1 << m_bits) - 1)
        mag = m / (1 << m_bits) if e == 0 else (1 + m / (1 << m_bits)) * 2.0 ** (e - 1)
        out.append(-mag if f & 0x8 else mag)
    return np.array(out, dtype=np.float64)


def float4_format(name: str) -> tuple[int, int, float]:
    """(precision bits incl. the implicit one, minimum normal exponent, max finite) of an fp4
    format: the parameters ``convert.round_float`` rounds with."""
    _, m_bits = FLOAT4_FIELDS[name]
    return m_bits + 1, 0, float(float4_table(name)[7])


def float4_fields(values: np.ndarray, name: str) -> np.ndarray:
    """The fields of values that the fp4 format holds exactly (already rounded; NaN -> +0,
    a choice: the format has no NaN); the sign of a zero is kept."""
    x = np.asarray(values, dtype=np.float64)
    table = float4_table(name)[:8]
    mag = np.where(np.isnan(x), 0.0, np.abs(x))
    code = np.searchsorted(table, mag).astype(np.uint8)
    return np.where(np.signbit(x) & ~np.isnan(x), code | 0x8, code).astype(np.uint8)


def float4_fields_truncating(values: np.ndarray, name: str) -> np.ndarray:
    """The fields the cpu simulator stores for values converted to an fp4 type (its MX type's
    constructor from a double): the exponent is the value's binary exponent plus the bias,
    reduced modulo 2^E (so a value past the format's range wraps around), the mantissa its top M
    bits (truncation); below the normal range the mantissa with its leading one is shifted right
    by 1 - exponent; zero and double subnormals give field 0 (a negative zero too). inf and NaN
    take their exponent field of all ones plus the bias, and the top mantissa bits."""
    e_bits, m_bits = FLOAT4_FIELDS[name]
    x = np.asarray(values, dtype=np.float64)
    bits = x.view(np.uint64)
    sign = (bits >> np.uint64(63)).astype(np.int64)
    biased = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    top = ((bits & np.uint64((1 << 52) - 1)) >> np.uint64(52 - m_bits)).astype(np.int64)
    exp = biased - 1023 + 1  # the bias of both fp4 formats is 1
    shift = 1 - exp
    below = exp < 0
    shifted = np.where(shift >= 8, 0, (top | (1 << m_bits)) >> np.clip(shift, 0, 7))
    man = np.where(below, shifted, top)
    exp = np.where(below, 0, exp)
    field = (sign << (e_bits + m_bits)) | ((exp & ((1 << e_bits) - 1)) << m_bits)
    field = field | (man & ((1 << m_bits) - 1))
    return np.where((biased == 0) | (x == 0), 0, field & 0xF).astype(np.uint8)
