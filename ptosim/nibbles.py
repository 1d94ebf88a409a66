"""Packed 4-bit elements in a tile's bytes, and the values of int4 nibbles.

A packed dtype (``DType.bits == 4``) holds two elements per byte: the element of even column
``2k`` in the low nibble, ``2k + 1`` in the high nibble (pto/common/type.hpp keeps an int4b_t in
the low nibble; the a2a3 tcvt test packs "low nibble first"). The C++ element type is one byte, so
a Rows x Cols tile is Rows x Cols bytes; which of those bytes a row's nibbles fill is the
target's rule (``LayoutRules.nibbles``):

- ``ROW_PITCH``: row r starts at byte ``r * Cols`` (the tile's row stride counted in the
  one-byte C++ elements) and its Cols elements fill its first Cols / 2 bytes: a2a3, whose
  vconv_f162s4 / vconv_s42f16 take the tile's row stride in bytes and pack 128 elements into
  64 bytes per repeat (a2a3/TCvt.hpp repeat configuration).

Element (r, c) of a RowMajor tile is then the nibble ``c % 2`` of the byte at element offset
``(r, c // 2)``: the row-major offset arithmetic of ``TileRef.offsets`` gives that byte.
"""

from __future__ import annotations

import numpy as np


def byte_offsets(ref, r: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The storage byte of each element (r, c) of packed tile ``ref`` and whether it is the
    high nibble (odd column)."""
    c = np.asarray(c)
    return ref.offsets(r, c // 2), (c % 2) == 1


def read(storage: np.ndarray, ref, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The 4-bit fields (uint8 in 0..15) of elements (r, c) of packed tile ``ref``."""
    at, high = byte_offsets(ref, r, c)
    b = storage[at]
    return np.where(high, b >> 4, b & 0x0F).astype(np.uint8)


def write(storage: np.ndarray, ref, r: np.ndarray, c: np.ndarray, fields: np.ndarray) -> None:
    """Store 4-bit ``fields`` into elements (r, c) of packed tile ``ref``; the other nibble of
    each byte keeps its value (an odd valid column count leaves the last high nibble alone)."""
    at, high = byte_offsets(ref, r, c)
    at, high = np.broadcast_to(at, np.shape(fields)), np.broadcast_to(high, np.shape(fields))
    f = np.asarray(fields, dtype=np.uint8) & 0x0F
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
