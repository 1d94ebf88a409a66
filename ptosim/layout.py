"""Geometry: element offsets inside tiles (ND RowMajor/ColMajor, boxed NZ/ZN/ZZ/NN fractals)
and logical (row, col) -> element offsets inside GM tensors (ND, DN, NZ).

All offset functions are vectorised over numpy index arrays and return int64 element offsets.
Formulas follow the reference implementation's data model (reference/semantics.md section 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .dtypes import DType
from .enums import MX_LAYOUTS, BLayout, CompactMode, Layout, SLayout, TileType

FRACTAL_NZ_ROW = 16
BLOCK_BYTES = 32


@dataclass(frozen=True)
class TileGeom:
    """Static geometry of a tile: location, dtype, padded shape and storage layout."""

    loc: TileType
    dtype: DType
    rows: int
    cols: int
    blayout: BLayout = BLayout.RowMajor
    slayout: SLayout = SLayout.NoneBox
    fractal: int = 512
    # a cube tile stored at its valid extent (L0 strides follow the valid shape, ptosim/isa/cube)
    compact: CompactMode = CompactMode.Null

    @property
    def numel(self) -> int:
        return self.rows * self.cols

    @property
    def size_bytes(self) -> int:
        return self.numel * self.dtype.size_bytes

    @property
    def is_row_major(self) -> bool:
        return self.blayout is BLayout.RowMajor

    @property
    def is_boxed(self) -> bool:
        return self.slayout is not SLayout.NoneBox

    @property
    def is_nz(self) -> bool:
        """ColMajor + SLayout::RowMajor boxes of 512 bytes (the NZ fractal tile)."""
        return (
            self.blayout is BLayout.ColMajor
            and self.slayout is SLayout.RowMajor
            and self.fractal == 512
        )

    @property
    def is_nd(self) -> bool:
        return self.blayout is BLayout.RowMajor and self.slayout is SLayout.NoneBox

    @property
    def inner(self) -> tuple[int, int]:
        """(InnerRows, InnerCols) of one fractal box; (1, 1) when unboxed."""
        if not self.is_boxed:
            return 1, 1
        if self.fractal == 1024:
            return 16, 16
        if self.fractal == 32:
            return (16, 2) if self.slayout is SLayout.RowMajor else (2, 16)
        c0 = self.dtype.c0
        return (FRACTAL_NZ_ROW, c0) if self.slayout is SLayout.RowMajor else (c0, FRACTAL_NZ_ROW)

    @property
    def layout_name(self) -> str:
        names = {
            (BLayout.RowMajor, SLayout.NoneBox): "ND",
            (BLayout.ColMajor, SLayout.NoneBox): "DN",
            (BLayout.ColMajor, SLayout.RowMajor): "NZ",
            (BLayout.RowMajor, SLayout.ColMajor): "ZN",
            (BLayout.RowMajor, SLayout.RowMajor): "ZZ",
            (BLayout.ColMajor, SLayout.ColMajor): "NN",
        }
        return names[(self.blayout, self.slayout)]

    def layout_problems(self) -> list[tuple[str, str, str]]:
        """Static tile rules violated by this geometry, as (rule, expected, given) triples."""
        out = []
        sz = self.dtype.size_bytes
        if self.rows <= 0 or self.cols <= 0:
            out.append(("positive-shape", "Rows > 0 and Cols > 0", f"{self.rows}x{self.cols}"))
            return out
        if self.fractal not in (512, 1024, 32):
            out.append(("fractal-size", "SFractalSize in {512, 1024, 32}", str(self.fractal)))
            return out
        if not self.is_boxed:
            if self.is_row_major and (self.cols * sz) % BLOCK_BYTES:
                out.append(
                    ("row-32B-aligned", "Cols*sizeof(T) % 32 == 0", f"{self.cols}*{sz} bytes")
                )
            if not self.is_row_major and (self.rows * sz) % BLOCK_BYTES:
                out.append(
                    ("col-32B-aligned", "Rows*sizeof(T) % 32 == 0", f"{self.rows}*{sz} bytes")
                )
        else:
            ir, ic = self.inner
            if self.cols % ic:
                out.append(("fractal-cols", f"Cols % {ic} == 0", str(self.cols)))
            exempt = self.loc is TileType.Vec or self.fractal == 32 or self.rows == 1
            if not exempt and self.rows % ir:
                out.append(("fractal-rows", f"Rows % {ir} == 0", str(self.rows)))
        return out

    def offsets(self, r, c) -> np.ndarray:
        """Storage element offsets of logical positions (r, c) (numpy broadcasting)."""
        r = np.asarray(r, dtype=np.int64)
        c = np.asarray(c, dtype=np.int64)
        if not self.is_boxed:
            return r * self.cols + c if self.is_row_major else c * self.rows + r
        ir, ic = self.inner
        inumel = ir * ic
        br, i_r, bc, i_c = r // ir, r % ir, c // ic, c % ic
        if self.blayout is BLayout.ColMajor:  # N-major blocks: column of boxes first
            base = bc * self.rows * ic + br * inumel
        else:  # Z-major blocks: row of boxes first
            base = br * self.cols * ir + bc * inumel
        if self.slayout is SLayout.RowMajor:
            return base + i_r * ic + i_c
        return base + i_c * ir + i_r

    def grid(self, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """Index arrays (r, c) of shape (rows, cols) for the top-left rows x cols block."""
        return np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")


def packed_strides(shape: tuple[int, ...], layout: Layout) -> tuple[int, ...]:
    """Strides (elements) of a densely packed tensor of this 5-D shape and layout."""
    s0, s1, s2, s3, s4 = shape
    if layout is Layout.DN:
        # Column-major inside the last two dims: consecutive rows are adjacent.
        return (s1 * s2 * s3 * s4, s2 * s3 * s4, s3 * s4, 1, s3)
    return (s1 * s2 * s3 * s4, s2 * s3 * s4, s3 * s4, s4, 1)


@dataclass(frozen=True)
class GmGeom:
    """5-D shape/stride (elements) and layout of a GlobalTensor, relative to its base."""

    shape: tuple[int, int, int, int, int]
    stride: tuple[int, int, int, int, int]
    layout: Layout = Layout.ND

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # the GlobalTensor checked that it fits int64

    @property
    def extent(self) -> int:
        """Number of elements from the base to one past the highest addressed element."""
        if self.size == 0:
            return 0
        return 1 + sum((s - 1) * st for s, st in zip(self.shape, self.stride))

    @property
    def logical_shape(self) -> tuple[int, int]:
        """(rows, cols) of the 2-D view a tile sees."""
        s0, s1, s2, s3, s4 = self.shape
        if self.layout in MX_LAYOUTS:
            return _MX_SHAPE[self.layout](s0, s1, s2, s3, s4)
        if self.layout is Layout.DN:
            return s3, s0 * s1 * s2 * s4
        if self.layout is Layout.NZ:
            return s2 * s3, s0 * s1 * s4
        return s0 * s1 * s2 * s3, s4

    def offsets(self, r, c) -> np.ndarray:
        """Element offsets of logical positions (r, c) (CPU MapTileIndicesToGlobalOffset)."""
        r = np.asarray(r, dtype=np.int64)
        c = np.asarray(c, dtype=np.int64)
        s0, s1, s2, s3, s4 = self.shape
        if self.layout in MX_LAYOUTS:
            i0, i1, i2, i3, i4 = _MX_INDEX[self.layout](r, c, s0, s1, s2, s3, s4)
        elif self.layout is Layout.DN:
            i3, i4 = r, c % s4
            i2 = (c // s4) % s2
            i1 = (c // (s4 * s2)) % s1
            i0 = c // (s1 * s2 * s4)
        elif self.layout is Layout.NZ:
            oc = c // s4
            i0, i1 = oc // s1, oc % s1
            i2, i3, i4 = r // s3, r % s3, c % s4
        else:
            i4, i3 = c, r % s3
            i2 = (r // s3) % s2
            i1 = (r // (s3 * s2)) % s1
            i0 = r // (s1 * s2 * s3)
        st = self.stride
        return i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3] + i4 * st[4]

    def flat_offsets(self, k) -> np.ndarray:
        """Element offsets of flat (row-major over the 5 dims) indices k."""
        k = np.asarray(k, dtype=np.int64)
        out = np.zeros_like(k)
        rem = k
        for dim in range(4, -1, -1):
            n = self.shape[dim]
            out = out + (rem % n) * self.stride[dim]
            rem = rem // n
        return out


# The MX scale views (the 950 TMATMUL_MX's scales, pto.hpp of the C++ front end): the logical
# matrix is A's M x K/32 (MX_A_*) or B's K/32 x N (MX_B_*); dim 4 holds the two scales of one
# row of A / column of B that are adjacent along K. ZZ: [s0][M/16][K/64][16][2] (16 x 2
# fractals, row blocks first); NN: [s0][N/16][K/64][16][2] (per 16 columns of B); A ND:
# [K/64 pairs of a row][2] row by row; A DN: [K/64][M][2]; B ND: [K/64][N][2]; B DN: [N][K/64][2].
# s0 (and s1 of the ND / DN views, 1 in the library) stacks further rows of A / columns of B.
_MX_SHAPE = {
    Layout.MX_A_ZZ: lambda s0, s1, s2, s3, s4: (s0 * s1 * s3, s2 * s4),
    Layout.MX_A_ND: lambda s0, s1, s2, s3, s4: (s0 * s1 * s2, s3 * s4),
    Layout.MX_A_DN: lambda s0, s1, s2, s3, s4: (s0 * s1 * s3, s2 * s4),
    Layout.MX_B_NN: lambda s0, s1, s2, s3, s4: (s2 * s4, s0 * s1 * s3),
    Layout.MX_B_ND: lambda s0, s1, s2, s3, s4: (s2 * s4, s0 * s1 * s3),
    Layout.MX_B_DN: lambda s0, s1, s2, s3, s4: (s3 * s4, s0 * s1 * s2),
}


def _split(x, s1, inner):
    """(i0, i1, i_inner) of x over [s0][s1][inner]."""
    return x // (s1 * inner), (x // inner) % s1, x % inner


def _mx_a_blocks(r, c, s0, s1, s2, s3, s4):
    """MX_A_ZZ and MX_A_DN: rows over dims 0, 1, 3, the K pairs in dim 2."""
    i0, i1, i3 = _split(r, s1, s3)
    return i0, i1, c // s4, i3, c % s4


def _mx_a_nd(r, c, s0, s1, s2, s3, s4):
    i0, i1, i2 = _split(r, s1, s2)
    return i0, i1, i2, c // s4, c % s4


def _mx_b_blocks(r, c, s0, s1, s2, s3, s4):
    """MX_B_NN and MX_B_ND: columns over dims 0, 1, 3, the K pairs in dim 2."""
    i0, i1, i3 = _split(c, s1, s3)
    return i0, i1, r // s4, i3, r % s4


def _mx_b_dn(r, c, s0, s1, s2, s3, s4):
    i0, i1, i2 = _split(c, s1, s2)
    return i0, i1, i2, r // s4, r % s4


_MX_INDEX = {
    Layout.MX_A_ZZ: _mx_a_blocks, Layout.MX_A_ND: _mx_a_nd, Layout.MX_A_DN: _mx_a_blocks,
    Layout.MX_B_NN: _mx_b_blocks, Layout.MX_B_ND: _mx_b_blocks, Layout.MX_B_DN: _mx_b_dn,
}  # fmt: skip
