"""Fractal arithmetic of the cube buffers (reference/cube_isa.md 1.2, 2.2, 3.4).

A fractal ("box") is 512 bytes in L1 / L0A / L0B: 16 rows x C0 columns (C0 = 32 / sizeof T)
inside an NZ / ZZ tile, C0 rows x 16 columns inside a ZN tile; an L0C fractal is 16 x 16
elements of 4 bytes. The tiles' element offsets are ``layout.TileGeom.offsets``; this module
builds the geometry the hardware uses where it differs from a tile's declared Rows / Cols:
a compact tile (``CompactMode.Normal``) is stored at its valid extent rounded up to fractals,
  so its stride follows the valid shape (``compact``).
"""

from __future__ import annotations

from dataclasses import replace

from ...dtypes import DType
from ...enums import CompactMode
from ...layout import TileGeom

ACC_FRACTAL_BYTES = 1024  # one L0C fractal: 16 x 16 elements of 4 bytes (fractalCSize)
AB_FRACTAL_BYTES = 512  # one L1 / L0A / L0B fractal (fractalABSize, CUBE_BLOCK_SIZE)


def ceil_to(x: int, m: int) -> int:
    return -(-x // m) * m


def c0(dt: DType) -> int:
    """Elements of one 32-byte row of a fractal (C0)."""
    return 32 // dt.size_bytes


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
