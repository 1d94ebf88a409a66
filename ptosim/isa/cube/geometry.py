"""Fractal arithmetic of the cube buffers (reference/cube_isa.md 1.2, 2.2, 3.4).

A fractal ("box") is 512 bytes in L1 / L0A / L0B: 16 rows x C0 columns (C0 = 32 / sizeof T)
inside an NZ / ZZ tile, C0 rows x 16 columns inside a ZN tile; an L0C fractal is 16 x 16
elements of 4 bytes. The tiles' element offsets are ``layout.TileGeom.offsets``; this module
builds the geometry the hardware uses where it differs from a tile's declared Rows / Cols:
a compact tile (``CompactMode.Normal``) is stored at its valid extent rounded up to fractals,
  so its stride follows the valid shape (``compact``).

A packed 4-bit tile (fp4 on the 950) fills a fractal's 32-byte rows with 64 elements, two per
byte, the lower-indexed one in the low nibble (npu/a5 TExtract.hpp: ``c0Size`` is 64 for fp4;
TLoad/TExtract halve every byte offset): its fractal is 16 x 64 (NZ, ZZ) or 64 x 16 (ZN)
elements. That is the tile's uint8 "byte geometry" with the fractal's contiguous axis (the
columns of a row-major fractal or ND tile, the rows of a column-major fractal or DN tile)
halved, element (r, c) in nibble c % 2 of byte (r, c // 2) (or r % 2 of (r // 2, c)):
``packed_axis`` and ``byte_geom``.
"""

from __future__ import annotations

from dataclasses import replace

from ...dtypes import DType, uint8
from ...enums import BLayout, CompactMode, SLayout
from ...layout import TileGeom

ACC_FRACTAL_BYTES = 1024  # one L0C fractal: 16 x 16 elements of 4 bytes (fractalCSize)
AB_FRACTAL_BYTES = 512  # one L1 / L0A / L0B fractal (fractalABSize, CUBE_BLOCK_SIZE)


def ceil_to(x: int, m: int) -> int:
    return -(-x // m) * m


def c0(dt: DType) -> int:
    """Elements of one 32-byte row of a fractal (C0): 64 for a packed 4-bit type."""
    return 64 if dt.packed else 32 // dt.size_bytes


def packed_axis(g: TileGeom) -> int:
    """The axis (0 rows, 1 columns) along which a packed tile's elements pair up in bytes."""
    if g.is_boxed:
        return 0 if g.slayout is SLayout.ColMajor else 1
    return 0 if g.blayout is BLayout.ColMajor else 1


def byte_geom(g: TileGeom) -> TileGeom:
    """The uint8 geometry of a packed tile's bytes (module doc)."""
    if packed_axis(g) == 0:
        return replace(g, dtype=uint8, rows=(g.rows + 1) // 2)
    return replace(g, dtype=uint8, cols=(g.cols + 1) // 2)


def stored(ref) -> TileGeom:
    """The geometry a tile's bytes are laid out at: its own, or for a compact tile its valid
    extent rounded up to whole fractals in both dimensions (the column-of-fractals stride of
    an NZ tile follows the valid rows, the row-of-fractals stride of a ZZ / ZN tile the valid
    columns, and the tile occupies only that extent of its buffer)."""
    g = ref.geom
    if g.compact is not CompactMode.Normal or not g.is_boxed:
        return g
    ir, ic = g.inner
    rows = min(g.rows, ceil_to(max(ref.valid_row, 1), ir))
    cols = min(g.cols, ceil_to(max(ref.valid_col, 1), ic))
    return replace(g, rows=rows, cols=cols)


def layout_text(g: TileGeom) -> str:
    return f"{g.layout_name} {g.rows}x{g.cols}"
