"""GM -> L1 with a layout change: TLOAD of an ND GlobalTensor into an NZ Mat tile (ND2NZ) or of
a DN one into a ZN tile (DN2ZN), on the cube core's MTE2; and TFILLPAD on a Mat tile
(reference/cube_isa.md 3.1, 3.9). The same-layout loads (ND2ND, DN2DN, NZ2NZ) are the DMA
bursts of ``isa/data.py``.

ND2NZ moves the GlobalTensor's ``shape[3] x shape[4]`` matrix (nValue rows of dValue
elements; DN2ZN the mirror) into the tile at logical (r, c). What the NPU's DMA writes in a
fractal beyond the moved rows / columns is not published (cube_isa.md 3.1 "uncertain"), except
that on a2a3 and 950 the C0 block a moved row (ND2NZ) or column (DN2ZN) ends in is zero-filled
to its end (``zero_c0_tail``); ptosim leaves the other bytes as they were, and kernels that
need zeros there call TFILLPAD on the Mat tile, as the library's do. The CPU simulator fills
every other element with the pad value (0 for Null), as for a Vec tile.

A packed 4-bit tile (fp4 on the 950) moves as its bytes: the npu/a5 TLOAD halves every byte
offset and count of the contiguous dimension (common.hpp GetByteSize), so ND2NZ of fp4 is ND2NZ
of the uint8 views with the columns halved, DN2ZN the same with the rows halved
(``byte_views``; geometry.py has the fp4 fractal).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...dtypes import uint8
from ...enums import Layout, PadValue, Pipe, TileType
from ...layout import GmGeom
from ...tensors import GmRef, TileRef
from ..base import Arch, ExecContext
from ..spec import DmaTransfer
from .common import NZ, ZN, CubeInstruction, read_block, write_block
from .geometry import byte_geom, ceil_to, packed_axis
from .geometry import c0 as c0_of

# the layout conversions of TLOAD into L1 this module performs: (GM layout, tile layout) -> name
CONVERSIONS = {(Layout.ND, NZ): "ND2NZ", (Layout.DN, ZN): "DN2ZN", (Layout.DN, NZ): "DN2NZ"}


def conversion_of(tile: TileRef, gm: GmRef) -> str | None:
    """The name of a converting TLOAD into a Mat tile (``ND2NZ`` ...), None for the others."""
    if tile.loc is not TileType.Mat:
        return None
    return CONVERSIONS.get((gm.layout, (tile.geom.blayout, tile.geom.slayout)))


def byte_views(t: TileRef, g: GmRef) -> tuple[TileRef, GmRef]:
    """The uint8 views a packed tile's converting TLOAD moves (module doc): the tile's byte
    geometry and the GlobalTensor with its contiguous dimension (4 for ND, 3 for DN) halved
    and every other stride and the offset in bytes. A view whose elements do not pair up in
    whole bytes (an odd extent, stride or offset) is returned as given: MatLoad refuses it."""
    if not t.dtype.packed:
        return t, g
    axis = packed_axis(t.geom)
    inner = 3 if g.layout is Layout.DN else 4
    if (axis == 0) != (inner == 3):
        return t, g
    outer = [(n, st) for k, (n, st) in enumerate(zip(g.shape, g.stride)) if k != inner]
    extent = t.rows if axis == 0 else t.cols
    odd = any(n > 1 and st % 2 for n, st in outer) or g.offset % 2 or extent % 2
    if odd or g.shape[inner] % 2 or (g.shape[inner] > 1 and g.stride[inner] != 1):
        return t, g
    if axis == 0:
        tile = replace(t, geom=byte_geom(t.geom), valid_row=(t.valid_row + 1) // 2)
    else:
        tile = replace(t, geom=byte_geom(t.geom), valid_col=(t.valid_col + 1) // 2)
    shape = list(g.shape)
    shape[inner] //= 2
    stride = [st // 2 if n > 1 else 1 for n, st in zip(g.shape, g.stride)]
    stride[inner] = 1
    return tile, GmRef(g.buffer, uint8, GmGeom(tuple(shape), tuple(stride), g.layout),
                       g.offset // 2)  # fmt: skip


class MatLoad(CubeInstruction):
    """TLOAD(mat, gm) converting ND -> NZ or DN -> ZN."""

    opcode = "TLOAD"
    nominal_pipe = Pipe.PIPE_MTE2
    reads = ("gm",)
    writes = ("tile",)

    def __init__(self, tile: TileRef, gm: GmRef):
        self.tile, self.gm = tile, gm
        self.form = conversion_of(tile, gm)

    def validate(self, arch: Arch) -> None:
        t, g = self.tile, self.gm
        allowed = arch.spec.cube.tload_mat
        self.require_kind("tile", t, TileType.Mat)
        self.require_element_dtype("tile", t, arch)
        self.require_same_dtype("tile", t, "gm", g)
        self.require(  # a packed load that moves as bytes was rewritten (byte_views)
            not t.dtype.packed, "tile", "packed-bytes", "a 4-bit tile and GlobalTensor whose "
            "elements pair up in bytes along the contiguous dimension (even extents, strides "
            "and offset)", f"{t.geom.layout_name} {t.rows}x{t.cols}, GM shape {list(g.shape)} "
            f"stride {list(g.stride)} offset {g.offset}",
        )  # fmt: skip
        self.require(
            "any" in allowed or self.form in allowed, "tile", "layout-pairing",
            " / ".join(sorted(allowed)), self.form,
        )  # fmt: skip
        s0, s1, s2, s3, s4 = g.shape
        rows, cols = g.geom.logical_shape
        exact = arch.spec.dma.transfer is DmaTransfer.EXACT_ELEMENTS
        if not exact:  # tload_common.hpp ND2NZ / DN2ZN (cube_isa.md 3.1)
            self.require(
                (s0, s1, s2) == (1, 1, 1), "gm", "two-dim", "shape[0..2] == 1 (a 2-D matrix)",
                list(g.shape),
            )  # fmt: skip
            self.require(t.geom.fractal == 512, "tile", "fractal-size", "SFractalSize 512",
                         t.geom.fractal)  # fmt: skip
            dn = g.layout is Layout.DN
            n_value, d_value = (s4, s3) if dn else (s3, s4)
            dim = ("Cols", t.cols) if dn else ("Rows", t.rows)
            self.require(dim[1] <= 16384, "tile", "mat-rows", f"{dim[0]} <= 16384", dim[1])
            self.require(1 <= n_value <= 16384, "gm", "nvalue", "1 <= nValue <= 16384", n_value)
            self.require(1 <= d_value <= 65535, "gm", "dvalue", "1 <= dValue <= 65535", d_value)
            stride = g.stride[4] if dn else g.stride[3]
            self.require(
                1 <= stride <= 65535, "gm", "src-stride", "1 <= row stride <= 65535", stride
            )
            inner = g.stride[3] if dn else g.stride[4]
            if d_value > 1:
                self.require(inner == 1, "gm", "gm-inner-stride", "contiguous rows", inner)
        else:
            self.require(
                t.valid == (rows, cols), "tile", "valid-shape",
                f"valid == the GlobalTensor's {rows}x{cols}", t.valid,
            )  # fmt: skip
        self.require(
            rows <= t.rows and cols <= t.cols, "tile", "dma-within-tile",
            f"the {rows}x{cols} matrix inside Rows x Cols {t.rows}x{t.cols}",
            f"{t.rows}x{t.cols}",
        )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        t, g = self.tile, self.gm
        rows, cols = g.geom.logical_shape
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        offs = g.offsets(r, c)
        ctx.gm_check(g, offs, "gm", read=True)  # D21: a read past the allocation proceeds
        vals = g.read(offs)
        if ctx.spec.dma.transfer is DmaTransfer.EXACT_ELEMENTS:  # D8: the whole tile first
            pad = 0 if isinstance(t.pad, PadValue) else t.pad
            write_block(ctx, t, np.full((t.rows, t.cols), pad, dtype=t.dtype.np))
        write_block(ctx, t, vals)
        if ctx.spec.cube.nd2nz_zero_c0_tail and self.form in ("ND2NZ", "DN2ZN"):
            self.zero_c0_tail(ctx, rows, cols)

    def zero_c0_tail(self, ctx: ExecContext, rows: int, cols: int) -> None:
        """The a2a3 and 950 DMA writes whole 32-byte C0 blocks: ND2NZ zeros the columns from
        dValue to the next multiple of C0 in every moved row, DN2ZN the rows from dValue to the
        next multiple of C0 in every moved column (the library's a2a3 tload_gm2mat goldens have
        zeros there, and its kernel fills nothing; its a5 tmatmul_mx kernels rely on it)."""
        t = self.tile
        c0 = t.dtype.c0
        if self.form == "ND2NZ":
            end = min(ceil_to(cols, c0), t.cols)
            if end > cols:
                write_block(ctx, t, np.zeros((rows, end - cols), t.dtype.np), c0=cols)
        else:
            end = min(ceil_to(rows, c0), t.rows)
            if end > rows:
                write_block(ctx, t, np.zeros((end - rows, cols), t.dtype.np), r0=rows)


class MatFillPad(CubeInstruction):
    """TFILLPAD(dst, src) on an NZ Mat tile (``create_cbuf_matrix``): zero the rows past
    validRow in the column blocks up to validCol rounded to C0, and every column block after.
    The fill value is 0 whatever the PadValue (cube_isa.md 3.9). It runs on MTE2: the library's
    kernels order it after their TLOAD and before MTE1 with the same MTE2 -> MTE1 flag (the
    vendor cost model's key is L1_FILL; its pipe is not published)."""

    opcode = "TFILLPAD"
    nominal_pipe = Pipe.PIPE_MTE2
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef):
        self.dst, self.src = dst, src

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_kind("dst", d, TileType.Mat)
        self.require_kind("src", s, TileType.Mat)
        self.require_same_dtype("dst", d, "src", s)
        self.require_layout("dst", d, NZ, detail="TFILLPAD on L1")
        self.require(
            (d.rows, d.cols) == (s.rows, s.cols), "src", "same-shape", f"{d.rows}x{d.cols}",
            f"{s.rows}x{s.cols}",
        )  # fmt: skip
        self.require(
            d.dtype.size_bytes in (1, 2, 4), "dst", "dtype-size", "1, 2 or 4 bytes",
            d.dtype.size_bytes,
        )  # fmt: skip
        ok = isinstance(d.pad, PadValue) and d.pad in (PadValue.Zero, PadValue.Null)
        self.require(ok, "dst", "pad-value", "PadValue Zero or Null", str(d.pad))

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        vr, vc = s.valid
        if s.placement is not d.placement and s.address != d.address:
            write_block(ctx, d, read_block(ctx, s, min(vr, d.rows), min(vc, d.cols)))
        zero = np.zeros((), d.dtype.np)
        cols_kept = min(ceil_to(vc, c0_of(d.dtype)), d.cols)  # fp4: 64 (a5 TFillPad_cube)
        if vr < d.rows and cols_kept:
            write_block(ctx, d, np.full((d.rows - vr, cols_kept), zero), r0=vr)
        if cols_kept < d.cols:
            write_block(ctx, d, np.full((d.rows, d.cols - cols_kept), zero), c0=cols_kept)
