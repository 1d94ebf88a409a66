"""MGATHER: gather rows (Coalesce::Row) or elements (Coalesce::Elem) of a GM table through an
index into a UB tile (``TileType::Vec`` destination, UB index tile) or into an L1 NZ tile
(``TileType::Mat`` destination, GM index tensor). Seed 001, semantics.md 3.1.

Row:  ``dst[r, 0:C] = table[k'(idx[r]), 0:C]``;  Elem: ``dst[r, c] = table_flat[k'(idx[r, c])]``
where ``k'`` is the uint32 index remapped by the GatherOOB policy (``indexing.remap``, D2-D4).

Per target (UB destination):
- cpu: Row capacity ``shape[3]``, GM element ``k*stride[3] + c*stride[4]``. The Row index is
  read linearly, ``idx_storage[r]``, as the CPU simulator does; it accepts a [1, R] or an
  [R, 1] NoneBox index tile (RowMajor or ColMajor, as the CPU simulator and its tests do) whose
  first R storage elements are its logical vector (rule ``index-layout-row``: a RowMajor [R, 1]
  index inside a wider tile would have the reference read other elements, so it is rejected).
  Indices are converted through ``size_t`` (``indexing.index_values``, D2).
- a2a3 ND: Row capacity ``shape0*shape1*shape2*shape3``, one DMA of C contiguous elements from
  ``k*stride[3]`` per row. a2a3 NZ (table Layout::NZ, dst NZ-512 tile): Row capacity
  ``gShape2*16``; each readable row is one multi-burst DMA moving *every* logical column of the
  table (``gShape0*gShape1*C0``, checked to fit in the tile's Cols); with GatherOOB::Zero the
  whole tile (Rows*Cols) is zero-filled first. Elem capacity = logical rows x logical cols, the
  index split as ``(k // nLogicalCols, k % nLogicalCols)``.
- a5: Row capacity ``shape[3]`` and GM row pitch = valid cols (D3; table ``shape[4]`` must equal
  the valid cols, rule ``table-row-width``); the index tile is read linearly (``idx_storage[r]``),
  so a [1, R] index must be RowMajor and an [R, 1] index ColMajor. Every a5 UB MGATHER is a SIMT
  launch except the static Elem (1, 1) case (scalar fallback, same result).
- Elem everywhere: capacity = product of the five dims, and the index addresses the table's raw
  element pointer ``table_ptr[k']`` (``indexing.elem_offsets``) as every reference kernel does,
  whatever the strides (a table with stride[3] != shape[4] is *not* walked through its strides).
  NPU Row reads C contiguous GM elements (the DMA ignores ``stride[4]``).
- Only dst's valid region is written, except the a2a3 NZ Row paths above.

GM -> L1 (Mat NZ-512 destination, idx a GM GlobalTensor):
- Row reads the first R elements of the index tensor's flat view. a2a3/a5: capacity
  ``shape0*..*shape3``, row pitch ``stride[3]``, GatherOOB::Zero zero-fills the whole L1 tile
  first. cpu: its UB semantics (capacity ``shape[3]``, OOB rows zero).
- Elem reads idx at logical (r, c) of the index tensor. a2a3/a5: ``scratch[0:Rows*Cols]`` (GM) is
  zero-filled, ``scratch[(c//C0)*Rows*C0 + r*C0 + c%C0] = table_flat[k']`` for the valid region,
  then the L1 tile storage = ``scratch[0:Rows*Cols]``; GatherExec::Simt (a5 only) writes the same
  scratch. cpu ignores scratch (it writes the valid region of the L1 tile directly). Scratch is
  required for Elem on every target (so a kernel ports), and rejected for Row (it would be unused).

Every index is remapped and every GM offset bounds-checked before anything is written: an
Undefined index past the capacity is an OutOfBoundsError and leaves UB, L1 and GM untouched.

Dtypes: the seed's a2a3 UB list omits float32 but the a2a3 reference code, its GM->L1 list and
the seeds' own examples use it, so a2a3 accepts float32. cpu accepts float8_e4m3/float8_e5m2 (the
seed allows them when the CPU simulator is built for AICore). The cpu seed's ``dst.Rows ==
indexes.Rows`` rule is applied to Elem only (for Row it contradicts the seed's own [1, N] index),
and its ``Shape<1, 1, 1, TableRows, RowWidth>`` table rule is not enforced (the cpu reference does
not assert it and only reads ``shape[3]`` rows).
"""

from __future__ import annotations

import numpy as np

from ..enums import BLayout, Coalesce, GatherExec, GatherOOB, Layout, Pipe, TileType
from ..errors import KernelError
from ..findings import TILE_OVERLAP
from ..program import emit
from ..tensors import GlobalTensor, GmRef, Tile, TileRef
from .base import Arch, ExecContext, Instruction
from .data import _gm, _tile
from .indexing import (
    INDEX_DTYPES,
    elem_capacity,
    elem_offsets,
    index_values,
    linear_row_index_ok,
    nz_logical_shape,
    nz_offsets,
    read_indices,
    remap,
    require_loop_index_layout,
    row_capacity,
    row_pitch,
    validate_for_kernel,
)
from .registry import instruction
from .spec import IndexedKernel, RowColumns

_IDX_DTYPES = INDEX_DTYPES
_NZ_ROW = 16
_BLOCK = 32


def _describe(value) -> str:
    if isinstance(value, TileRef):
        return f"Tile {value.describe()}"
    if isinstance(value, GmRef):
        return f"GlobalTensor {value.describe()}"
    return type(value).__name__


class _MGatherBase(Instruction):
    """Operands and checks shared by the UB and the GM -> L1 forms."""

    opcode = "MGATHER"

    def __init__(
        self,
        dst: TileRef,
        table: GmRef,
        idx,
        coalesce: Coalesce,
        oob: GatherOOB,
        scratch: GmRef | None = None,
        gather_exec: GatherExec = GatherExec.Scalar,
    ):
        self.dst, self.table, self.idx = dst, table, idx
        self.coalesce, self.oob = coalesce, oob
        self.scratch, self.gather_exec = scratch, gather_exec

    @property
    def is_row(self) -> bool:
        return self.coalesce is Coalesce.Row

    def _common_dtypes(self, arch: Arch) -> None:
        d, g = self.dst, self.table
        self.require_dtype(
            "dst",
            d.dtype,
            arch.spec.dtypes["MGATHER"] or (),
            detail=f"MGATHER element types on {arch.target}",
        )
        self.require(
            g.dtype is d.dtype,
            "table",
            "same-dtype",
            f"{d.dtype.name} (the dtype of dst)",
            g.dtype.name,
            "GlobalTable::DType must be __gm__ T of the destination",
        )
        self.require_dtype("idx", self.idx.dtype, _IDX_DTYPES, rule="index-dtype")

    def _nonempty(self) -> None:
        vr, vc = self.dst.valid
        self.require(
            vr >= 1 and vc >= 1,
            "dst",
            "dst-valid-nonempty",
            "ValidRow >= 1 and ValidCol >= 1",
            f"valid {vr}x{vc}",
        )


class MGather(_MGatherBase):
    """MGATHER with a UB destination: ``dst`` and ``idx`` are Vec tiles (semantics.md 3.1.2-4)."""

    nominal_pipe = Pipe.PIPE_V
    reads = ("table", "idx")
    writes = ("dst",)

    def is_simt(self, arch: Arch) -> bool:
        if arch.spec.indexed.kernel is not IndexedKernel.SIMT:
            return False
        d = self.dst
        scalar = self.coalesce is Coalesce.Elem and d.static_valid and d.valid == (1, 1)
        return not scalar

    # -- checks ------------------------------------------------------------------------
    def validate(self, arch: Arch) -> None:
        d, i = self.dst, self.idx
        if not isinstance(i, TileRef):
            self.fail(
                "idx",
                "index-operand",
                "a TileType::Vec index Tile (a GlobalTensor index "
                "is the GM -> L1 form and needs a TileType::Mat destination)",
                _describe(i),
            )
        if self.scratch is not None:
            self.fail(
                "scratch",
                "scratch-operand",
                "no scratch (only the GM -> L1 Elem form with "
                "a TileType::Mat destination takes one)",
                _describe(self.scratch),
            )
        if self.gather_exec is not GatherExec.Scalar:
            self.unsupported(
                "gather_exec",
                "gather-exec",
                "GatherExec::Scalar (GatherExec::Simt exists only for the a5 GM -> L1 Elem form)",
                str(self.gather_exec),
            )
        if d.loc is not TileType.Vec:
            self.fail(
                "dst",
                "tile-location",
                "TileType::Vec (or TileType::Mat for the GM -> L1 form)",
                f"TileType::{d.loc.name}",
            )
        self.require_loc("idx", i)
        self._common_dtypes(arch)
        validate_for_kernel(self, arch.spec.indexed.kernel)

    def _validate_loop(self) -> None:
        """The CPU simulator's loop (its asserts and the seed's rules)."""
        d, g, i = self.dst, self.table, self.idx
        vr, vc = d.valid
        self.require(
            d.geom.is_nd,
            "dst",
            "dst-layout",
            "BLayout::RowMajor + SLayout::NoneBox",
            d.geom.layout_name,
        )
        require_loop_index_layout(self, i, self.is_row)
        self.require(
            g.layout is Layout.ND, "table", "table-layout", "Layout::ND", f"Layout::{g.layout.name}"
        )
        self.require(
            tuple(g.shape[:3]) == (1, 1, 1),
            "table",
            "table-shape",
            "Shape<1, 1, 1, TableRows, RowWidth>",
            list(g.shape),
        )
        self._row_aligned()
        if self.is_row:
            self.require(
                i.valid in ((1, vr), (vr, 1)),
                "idx",
                "index-shape-row",
                f"index valid shape [1, {vr}] or [{vr}, 1] (dst ValidRow = {vr})",
                f"[{i.valid_row}, {i.valid_col}]",
            )
            self.require(
                linear_row_index_ok(i, vr),
                "idx",
                "index-layout-row",
                f"an index whose first {vr} storage elements are its logical vector (a [1, R] "
                "RowMajor or [R, 1] ColMajor tile): the CPU simulator reads idx.data[r]",
                f"[{i.valid_row}, {i.valid_col}] in {i.geom.layout_name} with {i.rows}x{i.cols} "
                "storage",
            )
        else:
            self._elem_shape()
            self.require(
                i.rows == d.rows,
                "idx",
                "index-rows",
                f"indexes.Rows == dst.Rows = {d.rows}",
                i.rows,
            )

    def _validate_dma(self) -> None:
        """One DMA per row (ND or NZ table) or per element."""
        d, g, i = self.dst, self.table, self.idx
        vr, vc = d.valid
        self.require(
            i.geom.is_nd,
            "idx",
            "index-layout",
            "BLayout::RowMajor + SLayout::NoneBox (ND) whatever the table layout",
            i.geom.layout_name,
        )
        if g.layout is Layout.ND:
            self.require(
                d.geom.is_nd,
                "dst",
                "layout-pairing",
                "an ND dst tile (RowMajor + NoneBox) for a Layout::ND table",
                f"a {d.geom.layout_name} tile",
            )
        elif g.layout is Layout.NZ:
            self.require(
                d.geom.is_nz,
                "dst",
                "layout-pairing",
                "an NZ dst tile (ColMajor + SLayout::RowMajor + fractal 512) for a "
                "Layout::NZ table",
                f"a {d.geom.layout_name} tile (fractal {d.geom.fractal})",
            )
        else:
            self.fail(
                "table", "table-layout", "Layout::ND or Layout::NZ", f"Layout::{g.layout.name}"
            )
        if g.layout is Layout.NZ:
            c0 = d.dtype.c0
            self.require(
                g.shape[3] == _NZ_ROW and g.shape[4] == c0,
                "table",
                "nz-shape",
                f"shape[3] == 16 and shape[4] == {c0} (32 / sizeof(T))",
                list(g.shape),
            )
            self.require(d.cols % c0 == 0, "dst", "nz-dst-cols", f"Cols % {c0} == 0", d.cols)
            self.require(d.rows % _NZ_ROW == 0, "dst", "nz-dst-rows", "Rows % 16 == 0", d.rows)
            if self.is_row:
                ncols = nz_logical_shape(g)[1]
                self.require(
                    vc <= ncols <= d.cols,
                    "table",
                    "nz-table-cols",
                    f"dst ValidCol {vc} <= table logical cols (gShape0*gShape1*C0) <= "
                    f"dst Cols {d.cols} (each row DMA moves every table column)",
                    ncols,
                )
        self.require(
            (d.cols * d.dtype.size_bytes) % _BLOCK == 0,
            "dst",
            "dst-32B-aligned",
            "padded Cols*sizeof(T) % 32 == 0",
            f"{d.cols}*{d.dtype.size_bytes} bytes",
        )
        self._nonempty()
        if self.is_row:
            self.require(
                i.valid == (1, vr),
                "idx",
                "index-shape-row",
                f"index valid shape [1, {vr}] (dst ValidRow = {vr})",
                f"[{i.valid_row}, {i.valid_col}]",
            )
        else:
            self._elem_shape()

    def _validate_simt(self) -> None:
        """The SIMT kernel (ND tables, unboxed UB tiles, the row pitch is ValidCol)."""
        d, g, i = self.dst, self.table, self.idx
        vr, vc = d.valid
        self.require(
            not d.geom.is_boxed,
            "dst",
            "dst-layout",
            "BLayout::RowMajor or ColMajor with SLayout::NoneBox (no boxed layouts)",
            d.geom.layout_name,
        )
        self.require(
            not i.geom.is_boxed,
            "idx",
            "index-layout",
            "SLayout::NoneBox (the SIMT kernel addresses UB unboxed)",
            i.geom.layout_name,
        )
        self.require(
            g.layout is Layout.ND,
            "table",
            "table-layout",
            "Layout::ND only",
            f"Layout::{g.layout.name}",
        )
        if d.geom.is_row_major:
            self._row_aligned()
        else:
            self.require(
                (d.rows * d.dtype.size_bytes) % _BLOCK == 0,
                "dst",
                "dst-32B-aligned",
                "padded Rows*sizeof(T) % 32 == 0 (ColMajor)",
                f"{d.rows}*{d.dtype.size_bytes} bytes",
            )
        self._nonempty()
        if not self.is_row:
            self._elem_shape()
            return
        iv = i.valid
        self.require(
            iv in ((1, vr), (vr, 1)),
            "idx",
            "index-shape-row",
            f"index valid shape [1, {vr}] (RowMajor) or [{vr}, 1] (ColMajor)",
            f"[{iv[0]}, {iv[1]}]",
        )
        if vr > 1:
            want = BLayout.RowMajor if iv == (1, vr) else BLayout.ColMajor
            self.require(
                i.geom.blayout is want,
                "idx",
                "index-layout-row",
                f"BLayout::{want.name} for a [{iv[0]}, {iv[1]}] index (read linearly "
                "as idx_storage[r])",
                f"BLayout::{i.geom.blayout.name}",
            )
        self.require(
            g.shape[4] == vc,
            "table",
            "table-row-width",
            f"table shape[4] == dst ValidCol = {vc} (the a5 row pitch is ValidCol)",
            g.shape[4],
        )

    def _row_aligned(self) -> None:
        d = self.dst
        self.require(
            (d.cols * d.dtype.size_bytes) % _BLOCK == 0,
            "dst",
            "dst-32B-aligned",
            "padded Cols*sizeof(T) % 32 == 0",
            f"{d.cols}*{d.dtype.size_bytes} bytes",
        )

    def _elem_shape(self) -> None:
        d, i = self.dst, self.idx
        self.require(
            i.valid == d.valid,
            "idx",
            "index-shape-elem",
            f"index valid shape == dst valid shape [{d.valid_row}, {d.valid_col}]",
            f"[{i.valid_row}, {i.valid_col}]",
        )

    # -- semantics ---------------------------------------------------------------------
    def execute(self, ctx: ExecContext) -> None:
        d, g, rules = self.dst, self.table, ctx.spec.indexed
        vr, vc = d.valid
        self._overlap_finding(ctx)
        if vr == 0 or vc == 0:
            return
        nz = g.layout is Layout.NZ
        prefill = False
        if self.is_row:
            k, ok = remap(
                ctx,
                read_indices(ctx, self.idx, Coalesce.Row, vr, 1),
                row_capacity(rules, g),
                self.oob,
            )
            if nz:  # one multi-burst DMA per row moves every logical column of the table
                cols = np.arange(nz_logical_shape(g)[1])
                src = nz_offsets(g, k[:, None], cols[None, :])
                prefill = self.oob is GatherOOB.Zero
            else:
                cols = np.arange(vc)
                col_step = g.stride[4] if rules.row_columns is RowColumns.STRIDE else 1
                src = g.offset + k[:, None] * row_pitch(rules, g, vc) + cols[None, :] * col_step
            r = np.broadcast_to(np.arange(vr)[:, None], src.shape)
            c = np.broadcast_to(cols[None, :], src.shape)
            mask = np.broadcast_to(ok[:, None], src.shape)
        else:
            raw = read_indices(ctx, self.idx, Coalesce.Elem, vr, vc)
            src = np.zeros(raw.shape, dtype=np.int64)
            if nz:
                nrows, ncols = nz_logical_shape(g)
                k, mask = remap(ctx, raw, nrows * ncols, self.oob)
                src[mask] = nz_offsets(g, k[mask] // ncols, k[mask] % ncols)
            else:
                k, mask = remap(ctx, raw, elem_capacity(g), self.oob)
                src[mask] = elem_offsets(g, k[mask])  # table_ptr[k']
            r, c = d.geom.grid(vr, vc)
        values = np.zeros(src.shape, dtype=d.dtype.np)
        read = src[mask]
        ctx.gm_check(g, read, "table")
        values[mask] = g.storage()[read]
        store = ctx.tile_storage(d)
        if prefill:  # a2a3 NZ Row + Zero: the whole tile is zeroed, OOB rows skip their DMA
            store[:] = 0
        store[d.offsets(r, c)] = values

    def _overlap_finding(self, ctx: ExecContext) -> None:
        d, i = self.dst, self.idx
        lo, hi = d.address, d.address + d.size_bytes
        ilo, ihi = i.address, i.address + i.size_bytes
        if ilo < hi and lo < ihi:
            ctx.finding(
                TILE_OVERLAP,
                "tile-overlap",
                f"dst {d.name} UB bytes [{lo:#x}, {hi:#x}) overlap idx {i.name} "
                f"[{ilo:#x}, {ihi:#x}) (gathered data may overwrite indices not yet read); "
                "place the tiles apart",
            )


class MGatherL1(_MGatherBase):
    """MGATHER GM -> L1: ``dst`` is a TileType::Mat NZ-512 tile, ``idx`` a GM GlobalTensor
    (semantics.md 3.1.3(e) and the a5 GM -> L1 paragraph of 3.1.4)."""

    nominal_pipe = Pipe.PIPE_MTE2
    reads = ("table", "idx", "scratch")
    writes = ("dst", "scratch")

    def is_simt(self, arch: Arch) -> bool:
        simt = arch.spec.indexed.kernel is IndexedKernel.SIMT
        return simt and self.gather_exec is GatherExec.Simt

    # -- checks ------------------------------------------------------------------------
    def validate(self, arch: Arch) -> None:
        d, g, i, s = self.dst, self.table, self.idx, self.scratch
        if not isinstance(i, GmRef):
            self.fail(
                "idx",
                "index-operand",
                "a GM GlobalTensor index (a Tile index is the UB "
                "form and needs a TileType::Vec destination)",
                _describe(i),
            )
        self.require(
            d.geom.is_nz,
            "dst",
            "dst-layout",
            "an NZ tile: BLayout::ColMajor + SLayout::RowMajor + fractal 512",
            f"{d.geom.layout_name} (fractal {d.geom.fractal})",
        )
        self._common_dtypes(arch)
        c0 = d.dtype.c0
        self.require(d.cols % c0 == 0, "dst", "nz-dst-cols", f"Cols % {c0} == 0", d.cols)
        self.require(d.rows % _NZ_ROW == 0, "dst", "nz-dst-rows", "Rows % 16 == 0", d.rows)
        self.require(
            g.layout is Layout.ND, "table", "table-layout", "Layout::ND", f"Layout::{g.layout.name}"
        )
        vr, vc = d.valid
        if self.gather_exec is GatherExec.Simt:
            if arch.spec.indexed.kernel is not IndexedKernel.SIMT:
                self.unsupported(
                    "gather_exec",
                    "gather-exec",
                    "GatherExec::Scalar (GatherExec::Simt exists only on a5)",
                    str(self.gather_exec),
                )
            if self.is_row:
                self.unsupported(
                    "gather_exec",
                    "gather-exec",
                    "GatherExec::Scalar for Coalesce::Row (Simt is Elem only)",
                    str(self.gather_exec),
                )
        if self.is_row:
            self.require(
                d.dtype.size_bytes <= 4,
                "dst",
                "row-dtype-size",
                "sizeof(T) <= 4",
                d.dtype.size_bytes,
            )
            if s is not None:
                self.fail(
                    "scratch",
                    "scratch-row",
                    "no scratch for Coalesce::Row (the GM -> L1 Row form takes three operands)",
                    _describe(s),
                )
            n = i.geom.size
            self.require(
                n >= vr,
                "idx",
                "index-shape-row",
                f"an index tensor of at least dst ValidRow = {vr} elements",
                f"{n} elements (shape {list(i.shape)})",
            )
            return
        if s is None:
            self.fail(
                "scratch",
                "scratch-required",
                "a GM scratch GlobalTensor of at least "
                f"Rows*Cols = {d.numel} {d.dtype.name} elements for Coalesce::Elem",
                "scratch=None",
            )
        self.require(
            s.dtype is d.dtype,
            "scratch",
            "same-dtype",
            f"{d.dtype.name} (the dtype of dst)",
            s.dtype.name,
        )
        self.require(
            s.geom.size >= d.numel,
            "scratch",
            "scratch-size",
            f"at least Rows*Cols = {d.rows}*{d.cols} = {d.numel} elements",
            f"{s.geom.size} elements (shape {list(s.shape)})",
        )
        lr, lc = i.geom.logical_shape
        self.require(
            lr >= vr and lc >= vc,
            "idx",
            "index-shape-elem",
            f"an index tensor covering dst valid shape [{vr}, {vc}]",
            f"logical shape [{lr}, {lc}]",
        )

    # -- semantics ---------------------------------------------------------------------
    def execute(self, ctx: ExecContext) -> None:
        d, g, i = self.dst, self.table, self.idx
        rules = ctx.spec.indexed
        staged = rules.l1_staged  # the nd2nz DMA (else the UB semantics, into L1)
        vr, vc = d.valid
        idx_store = i.storage()
        if self.is_row:
            offs = i.flat_offsets(np.arange(vr))
            ctx.gm_check(i, offs, "idx")
            cap = int(np.prod(g.shape[:4], dtype=np.int64)) if staged else g.shape[3]
            k, ok = remap(ctx, index_values(rules.index_conversion, idx_store[offs]), cap, self.oob)
            cols = np.arange(vc)
            col_step = 1 if staged else g.stride[4]  # nd2nz DMA reads C contiguous
            src = g.offset + k[:, None] * g.stride[3] + cols[None, :] * col_step
            mask = np.broadcast_to(ok[:, None], src.shape)
            r, c = d.geom.grid(vr, vc)
            values = np.zeros(src.shape, dtype=d.dtype.np)
            ctx.gm_check(g, src[mask], "table")
            values[mask] = g.storage()[src[mask]]
            store = ctx.tile_storage(d)
            if staged and self.oob is GatherOOB.Zero:
                store[:] = 0  # the whole L1 tile is pre-zeroed, OOB rows skip their DMA
            store[d.offsets(r, c)] = values
            return
        r, c = d.geom.grid(vr, vc)
        offs = i.offsets(r, c)
        ctx.gm_check(i, offs, "idx")
        k, ok = remap(
            ctx, index_values(rules.index_conversion, idx_store[offs]), elem_capacity(g), self.oob
        )
        src = np.zeros(k.shape, dtype=np.int64)
        src[ok] = elem_offsets(g, k[ok])  # table_ptr[k']
        ctx.gm_check(g, src[ok], "table")
        values = np.zeros(src.shape, dtype=d.dtype.np)
        values[ok] = g.storage()[src[ok]]
        store = ctx.tile_storage(d)
        if not staged:  # the CPU reference ignores scratch
            store[d.offsets(r, c)] = values
            return
        s, n, c0 = self.scratch, d.numel, d.dtype.c0
        scratch_offs = s.offset + np.arange(n)
        ctx.gm_check(s, scratch_offs, "scratch")
        staged = np.zeros(n, dtype=d.dtype.np)
        staged[(c // c0) * d.rows * c0 + r * c0 + c % c0] = values
        s.storage()[scratch_offs] = staged
        store[:] = staged  # one bulk copy scratch -> L1


# -- the kernel-facing API ------------------------------------------------------------------
def _index_operand(value):
    if isinstance(value, Tile):
        return value.ref()
    if isinstance(value, GlobalTensor):
        return value.ref()
    raise KernelError(
        "MGATHER idx must be a pto.Tile (UB form, Vec destination) or a pto.GlobalTensor "
        f"(GM -> L1 form, Mat destination), got {type(value).__name__}"
    )


@instruction(
    family="gather / scatter",
    summary="gather table rows (Row) or elements (Elem) from GM by an index tile",
)
def MGATHER(
    dst: Tile,
    table: GlobalTensor,
    idx,
    *,
    coalesce="row",
    oob="undefined",
    scratch: GlobalTensor | None = None,
    gather_exec="scalar",
) -> None:
    """Gather table rows or elements selected by ``idx`` into ``dst``.

    Args:
        dst: destination tile: ``TileType::Vec`` (UB form) or ``TileType::Mat`` NZ (GM -> L1).
        table: the GM table (GlobalTensor).
        idx: int32/uint32 indices: a Vec Tile (UB form) or a GM GlobalTensor (GM -> L1 form).
        coalesce: ``"row"`` (default, D1) or ``"elem"`` (Coalesce member or string).
        oob: GatherOOB policy: ``"undefined"`` (default), ``"clamp"``, ``"wrap"``, ``"zero"``.
        scratch: GM workspace for the GM -> L1 Elem form (at least Rows*Cols elements of T).
        gather_exec: ``"scalar"`` or ``"simt"`` (a5 GM -> L1 Elem only).

    Raises:
        ConstraintError / UnsupportedError: a constraint of the target is violated.
        OutOfBoundsError (at run time): an Undefined index past the table capacity, or a GM
            access outside its buffer; nothing is written.
    """
    mode = Coalesce.parse(coalesce, "MGATHER coalesce")
    policy = GatherOOB.parse(oob, "MGATHER oob")
    exec_ = GatherExec.parse(gather_exec, "MGATHER gather_exec")
    d = _tile(dst, "MGATHER dst")
    t = _gm(table, "MGATHER table")
    i = _index_operand(idx)
    s = None if scratch is None else _gm(scratch, "MGATHER scratch")
    cls = MGatherL1 if d.loc is TileType.Mat else MGather
    emit(cls(d, t, i, mode, policy, scratch=s, gather_exec=exec_))
