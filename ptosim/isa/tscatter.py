"""TSCATTER: UB -> UB scatter inside the vector core (index mode and mask mode).

Index mode ``TSCATTER(dst, src, idx)`` (reference/semantics.md 3.3.1, DESIGN.md D5/D6):

* Iteration covers the **index** tile's valid region ``(Ri, Ci)`` in row-major order and does
  ``dst_flat[idx[i, j]] = src[i, j]``, where ``dst_flat`` is the raw storage of ``dst``
  (``Rows*Cols`` elements, padding included): the index is a flat element offset, whatever the
  layout of ``dst``.
* Index values are read as unsigned integers of their own width (int16 ``-1`` is 65535, a
  negative int32 is a huge offset), on every target (D2).
* a2a3/a5 zero the whole destination tile (``Rows*Cols`` elements) first; cpu does not (the
  reference CPU test pre-zeroes with TEXPANDS).
* An index ``>= Rows*Cols`` is a finding (``F102 index-outside-tile``, naming the tiles the write
  lands on) and the element is written where hardware puts it: at the tile's UB address
  ``+ idx*sizeof(T)``. An index past the end of UB raises OutOfBoundsError and leaves UB exactly
  as it was (the a2a3/a5 zero fill is undone).
* Duplicates (D6): cpu and a2a3 run a sequential loop, so the last writer in row-major order
  wins. a5 issues one ``vscatter`` per (row, batch of ``256/sizeof(U)`` lanes) with ``U`` = u32
  for 4-byte indices and u16 otherwise: later batches/rows win, and inside one vscatter the
  numerically lowest lane wins.
* a5 8-byte ``T`` (int64/uint64, with 4-byte indices) uses the same element-offset semantics. Its
  kernel computes the lane mask once from ``Ci`` (one 64-lane vector per row), so wider rows would
  be silently truncated: ptosim rejects ``Ci > 64`` there (rule ``a5-b64-valid-col``).
* Choice: the index tile's valid region must lie inside the source tile's valid region (rule
  ``index-valid-shape``); otherwise the kernels read source data that is not valid (or outside
  the source tile).
* Choice: the a2a3/a5 kernels address ``src``/``idx`` as ``i*Cols + j`` (row-major storage), so
  ptosim requires RowMajor ND tiles for all three operands there (rule ``row-major``). The cpu
  addresses ``src``/``idx`` through the tile layout (any layout).
* cpu constraints: the reference CPU code only requires an integral index type. ptosim accepts
  any index dtype of integer kind (8 to 64 bits), any element type (bit copies) and no size
  pairing (so the seed example ``float`` + ``uint16`` runs on cpu), but still requires Vec tiles
  and ``dst`` dtype == ``src`` dtype, as the specification states.
* Values are sampled before any scattered write (after the a2a3/a5 zero fill, which the
  hardware performs first); a kernel whose ``dst`` storage overlaps ``src``/``idx`` gets a
  ``F105 tile-overlap`` finding.

Mask mode ``TSCATTER(dst, src, mask=P, axis=A)`` (semantics.md 3.3.2), ``times``/``pos`` from
MaskPattern:

* SCATTER_ROW: ``dst.valid == (src.valid_row, src.valid_col*times)``;
  ``dst[i, times*j + pos] = src[i, j]``, the other elements of the expanded region are 0.
* SCATTER_COL: ``dst.valid == (src.valid_row*times, src.valid_col)``;
  ``dst[times*i + pos, :] = src[i, :]``, the other rows are 0.
* The shape rules are checked on every target and follow the code (dst = src x times; the a5
  doc text is reversed).
* P1111 is TMOV (same valid shapes; on a2a3 also the same Rows x Cols, since TMOV_IMPL
  static-asserts it) and executes exactly like TMOV on the target (no zero fill).
* Zero fill: a2a3/a5 zero the whole dst tile first; cpu writes only the dst valid region (zeros at
  the unselected positions), the padding keeps its contents.
* cpu SCATTER_ROW follows the reference cursor: the selected destination elements take source
  elements from a running ``(sR, sC)`` cursor that wraps at the source's padded width
  ``SrcTile::Cols``, i.e. element ``k = i*src.valid_col + j`` of the stream is the source element
  at logical ``(k // Cols, k % Cols)``. When ``src.valid_col == Cols`` this is the formula above;
  when it is narrower, the cpu reads source padding (a2a3/a5 follow the formula).
* cpu requires 16- or 32-bit element types and RowMajor tiles; a2a3/a5 require ND tiles (their
  kernels use ``i*RowStride + j``). a2a3 SCATTER_COL with 1-byte types: the reference copies with
  an int16 ``vcopy`` of ``validCol`` elements (semantics.md 8.17, untested there); ptosim follows
  the documented formula instead.
"""

from __future__ import annotations

import numpy as np

from ..enums import MaskPattern, Pipe, ScatterAxis
from ..errors import KernelError, OutOfBoundsError
from ..findings import INDEX_OUTSIDE_TILE, TILE_OVERLAP
from ..program import emit
from ..tensors import Tile, TileRef
from .base import Arch, ExecContext, Instruction
from .data import TMov, _tile
from .registry import instruction
from .spec import Addressing, ScatterOrder, TMovCopy

_VL_BYTES = 256  # the vector length of a vscatter target (a5 CCE_VL)
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _last_writer(targets: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For writes applied in ``order`` (positions into ``targets``), the destination of each
    distinct target and the position whose write survives (the last one in that order)."""
    seq = targets[order][::-1]
    uniq, first_in_reversed = np.unique(seq, return_index=True)
    return uniq, order[len(order) - 1 - first_in_reversed]


def _span(ref: TileRef) -> tuple[int, int]:
    return ref.address, ref.address + ref.size_bytes


class _TScatter(Instruction):
    opcode = "TSCATTER"
    nominal_pipe = Pipe.PIPE_V
    writes = ("dst",)

    dst: TileRef
    src: TileRef

    def _check_valid_within(self, names: tuple[str, ...]) -> None:
        for name in names:
            ref: TileRef = getattr(self, name)
            self.require(
                ref.valid_row <= ref.rows and ref.valid_col <= ref.cols,
                name,
                "valid-within-shape",
                f"ValidRow <= {ref.rows} and ValidCol <= {ref.cols}",
                f"valid {ref.valid_row}x{ref.valid_col}",
            )

    def _overlap_finding(self, ctx: ExecContext, names: tuple[str, ...]) -> None:
        d = self.dst
        lo, hi = _span(d)
        for name in names:
            ref: TileRef = getattr(self, name)
            if ctx.memory_of(ref) is not ctx.memory_of(d):
                continue
            rlo, rhi = _span(ref)
            if rlo < hi and lo < rhi:
                what = (
                    "the whole destination tile is zeroed before it is read"
                    if ctx.spec.tscatter.zero_fills_dst
                    else "scattered writes may clobber it"
                )
                ctx.finding(
                    TILE_OVERLAP,
                    "tile-overlap",
                    f"dst {d.name} UB bytes [{lo:#x}, {hi:#x}) overlap {name} {ref.name} "
                    f"[{rlo:#x}, {rhi:#x}) ({what}); place the tiles apart",
                )


class TScatterIndex(_TScatter):
    """TSCATTER(dst, src, idx): ``dst_flat[idx[i, j]] = src[i, j]`` over idx's valid region."""

    reads = ("src", "idx")

    def __init__(self, dst: TileRef, src: TileRef, idx: TileRef):
        self.dst, self.src, self.idx = dst, src, idx

    def validate(self, arch: Arch) -> None:
        d, s, x = self.dst, self.src, self.idx
        rules = arch.spec.tscatter
        for name, ref in (("dst", d), ("src", s), ("idx", x)):
            self.require_loc(name, ref)
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src", s)
        allowed = rules.index_size_pairs
        if allowed is None:
            self.require_dtype(
                "idx", x.dtype, rules.index_dtypes, "index-dtype", "the index type must be integral"
            )
        else:
            self.require_dtype("idx", x.dtype, rules.index_dtypes, "index-dtype")
            pair = (d.dtype.size_bytes, x.dtype.size_bytes)
            if pair not in allowed:
                want = next(i for t, i in allowed if t == pair[0])
                self.fail(
                    "idx",
                    "index-dtype-size",
                    f"a {want}-byte index type for a {pair[0]}-byte element type "
                    f"((sizeof T, sizeof TIdx) in {list(allowed)})",
                    f"{x.dtype.name} ({pair[1]} bytes) with {d.dtype.name}",
                )
        if rules.addressing is Addressing.ROW_STRIDE:
            for name, ref in (("dst", d), ("src", s), ("idx", x)):
                self.require(
                    ref.geom.is_nd,
                    name,
                    "row-major",
                    "a RowMajor ND tile (the kernel addresses i*Cols + j)",
                    f"a {ref.geom.layout_name} tile",
                )
        self._check_valid_within(("dst", "src", "idx"))
        self.require(
            x.valid_row <= s.valid_row and x.valid_col <= s.valid_col,
            "idx",
            "index-valid-shape",
            f"idx valid region inside src valid region {s.valid_row}x{s.valid_col}",
            f"{x.valid_row}x{x.valid_col}",
        )
        lanes = rules.b64_max_index_cols
        if lanes is not None and d.dtype.size_bytes == 8:
            self.require(
                x.valid_col <= lanes,
                "idx",
                "a5-b64-valid-col",
                f"ValidCol <= {lanes} (the 8-byte kernel scatters one vector of {lanes} lanes "
                "per row)",
                x.valid_col,
            )

    def execute(self, ctx: ExecContext) -> None:
        d, s, x = self.dst, self.src, self.idx
        rules = ctx.spec.tscatter
        ri, ci = x.valid
        self._overlap_finding(ctx, ("src", "idx"))
        if ri == 0 or ci == 0:
            if rules.zero_fills_dst:
                ctx.tile_storage(d)[:] = 0
            return
        storage = ctx.tile_storage(d)
        zero_fill = rules.zero_fills_dst
        backup = storage.copy() if zero_fill else None
        if zero_fill:  # InitUBBuffer / vector zero fill of Rows*Cols elements, before any read
            storage[:] = 0
        try:
            r, c = x.geom.grid(ri, ci)
            raw = ctx.tile_storage(x)[x.offsets(r, c)].reshape(-1)
            values = ctx.tile_storage(s)[s.offsets(r, c)].reshape(-1)
            flat = raw.view(_UNSIGNED[x.dtype.size_bytes]).astype(np.uint64)
            mem = ctx.memory_from(d)
            top = int(flat.max())
            if top >= mem.size:
                k = int(np.argmax(flat >= mem.size))
                raise OutOfBoundsError(
                    f"{self.label} ({self.source}): idx[{k // ci}, {k % ci}] = {int(flat[k])} "
                    f"addresses {d.dtype.name} element {int(flat[k])} from dst tile {d.name} at UB "
                    f"{d.address:#x}, past the end of UB ({ctx.memory_of(d).size_bytes} bytes, "
                    f"{mem.size} elements from the tile); nothing was written"
                )
        except BaseException:
            if backup is not None:
                storage[:] = backup
            raise
        flat = flat.astype(np.int64)
        outside = flat >= d.numel
        if outside.any():
            self._outside_finding(ctx, flat, outside, ci)
        n = flat.size
        if rules.duplicate_order is ScatterOrder.VSCATTER_LANES:
            # one vscatter per (row, batch); later vscatters win, inside one the lowest lane
            lanes = _VL_BYTES // (4 if x.dtype.size_bytes == 4 else 2)
            jj = np.tile(np.arange(ci), ri)
            ii = np.repeat(np.arange(ri), ci)
            batches = -(-ci // lanes)
            seq = ii * batches + jj // lanes
            priority = seq * lanes + (lanes - 1 - jj % lanes)
            order = np.argsort(priority, kind="stable")
        else:
            order = np.arange(n)
        dest, winner = _last_writer(flat, order)
        mem[dest] = values[winner]

    def _outside_finding(self, ctx, flat, outside, ci) -> None:
        d = self.dst
        sz = d.dtype.size_bytes
        k = int(np.argmax(outside))
        bad = np.unique(flat[outside])
        starts = d.address + bad * sz
        hit = []
        for slot in ctx.tiles:
            if slot.placement is d.placement or slot.loc is not d.loc:
                continue
            lo = slot.placement.address
            if lo is None:
                continue
            hi = lo + slot.size_bytes
            if np.any((starts < hi) & (starts + sz > lo)):
                hit.append(slot.name)
        lands = (
            f"overwriting tile(s) {', '.join(hit)}" if hit else "outside every tile of the kernel"
        )
        ctx.finding(
            INDEX_OUTSIDE_TILE,
            "index-outside-tile",
            f"{int(outside.sum())} index value(s) address past dst tile {d.name} "
            f"({d.numel} elements): first idx[{k // ci}, {k % ci}] = {int(flat[k])}, largest "
            f"{int(bad[-1])}; written to UB bytes [{int(starts[0]):#x}, "
            f"{int(starts[-1]) + sz:#x}) (tile address + idx*{sz}), {lands}. Keep indices "
            f"below Rows*Cols = {d.numel}",
        )


class TScatterMask(_TScatter):
    """TSCATTER<mask, axis>(dst, src): interleave src with zeros along columns or rows."""

    reads = ("src",)

    def __init__(self, dst: TileRef, src: TileRef, mask: MaskPattern, axis: ScatterAxis):
        self.dst, self.src, self.mask, self.axis = dst, src, mask, axis

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        rules = arch.spec.tscatter
        row_stride = rules.addressing is Addressing.ROW_STRIDE
        self.require_loc("dst", d)
        self.require_loc("src", s)
        if row_stride:
            self.require_dtype("dst", d.dtype, rules.mask_dtypes)
        else:  # the reference loop's static assert is on src
            self.require_dtype(
                "src",
                s.dtype,
                rules.mask_dtypes,
                "dtype",
                "src element type must be 16 or 32-bit wide",
            )
        self.require_same_dtype("dst", d, "src", s)
        self.require(
            isinstance(self.mask, MaskPattern)
            and MaskPattern.P0101.value <= self.mask.value <= MaskPattern.P1111.value,
            "mask",
            "mask-pattern",
            "a MaskPattern in P0101..P1111",
            self.mask,
        )
        self.require(
            isinstance(self.axis, ScatterAxis),
            "axis",
            "scatter-axis",
            "ScatterAxis::SCATTER_ROW or SCATTER_COL",
            self.axis,
        )
        for name, ref in (("dst", d), ("src", s)):
            if row_stride:
                ok, want = ref.geom.is_nd, "a RowMajor ND tile (the kernel addresses i*Cols + j)"
            else:
                ok, want = ref.geom.is_row_major, "a RowMajor tile"
            self.require(ok, name, "row-major", want, f"a {ref.geom.layout_name} tile")
        self._check_valid_within(("dst", "src"))
        t = self.mask.times
        if self.mask is MaskPattern.P1111:
            self.require(
                d.valid == s.valid,
                "dst",
                "same-valid-shape",
                f"valid {s.valid_row}x{s.valid_col} (P1111 is TMOV)",
                f"{d.valid_row}x{d.valid_col}",
            )
            self.require(
                d.geom.layout_name == s.geom.layout_name,
                "src",
                "same-layout",
                f"{d.geom.layout_name} (P1111 is TMOV)",
                s.geom.layout_name,
            )
            if arch.spec.dma.tmov is TMovCopy.UB_BLOCKS:
                self.require(
                    (d.rows, d.cols) == (s.rows, s.cols),
                    "src",
                    "same-shape",
                    f"{d.rows}x{d.cols} (P1111 is TMOV, which needs equal tile shapes)",
                    f"{s.rows}x{s.cols}",
                )
            return
        if self.axis is ScatterAxis.SCATTER_ROW:
            self.require(
                d.valid_row == s.valid_row,
                "dst",
                "same-valid-row",
                f"ValidRow == src ValidRow {s.valid_row}",
                d.valid_row,
            )
            self.require(
                d.valid_col == s.valid_col * t,
                "dst",
                "expanded-valid-col",
                f"ValidCol == src ValidCol {s.valid_col} x {t} ({self.mask}) = {s.valid_col * t}",
                d.valid_col,
            )
        else:
            self.require(
                d.valid_col == s.valid_col,
                "dst",
                "same-valid-col",
                f"ValidCol == src ValidCol {s.valid_col}",
                d.valid_col,
            )
            self.require(
                d.valid_row == s.valid_row * t,
                "dst",
                "expanded-valid-row",
                f"ValidRow == src ValidRow {s.valid_row} x {t} ({self.mask}) = {s.valid_row * t}",
                d.valid_row,
            )

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        self._overlap_finding(ctx, ("src",))
        if self.mask is MaskPattern.P1111:
            TMov(d, s).execute(ctx)  # TSCATTER<P1111> is TMOV_IMPL on every target
            return
        t, pos = self.mask.times, self.mask.pos
        vr, vc = s.valid
        row_axis = self.axis is ScatterAxis.SCATTER_ROW
        rules = ctx.spec.tscatter
        if rules.mask_row_cursor and row_axis:
            # running (sR, sC) cursor over the source, wrapping at the padded width Cols
            k = np.arange(vr * vc, dtype=np.int64)
            values = ctx.tile_storage(s)[s.offsets(k // s.cols, k % s.cols)].reshape(vr, vc)
        else:
            if rules.zero_fills_dst:
                ctx.tile_storage(d)[:] = 0  # whole tile, before the source is read
            values = ctx.tile_read(s)
        if row_axis:
            out = np.zeros((vr, vc * t), dtype=d.dtype.np)
            out[:, pos::t] = values
        else:
            out = np.zeros((vr * t, vc), dtype=d.dtype.np)
            out[pos::t, :] = values
        ctx.tile_write(d, out, *out.shape)


# -- the kernel-facing API ------------------------------------------------------------------
def _axis(value) -> ScatterAxis:
    if isinstance(value, str) and value.strip().lower() in ("row", "col"):
        value = "SCATTER_" + value.strip().upper()
    return ScatterAxis.parse(value, "TSCATTER axis")


@instruction(
    family="gather / scatter", summary="UB -> UB scatter by an index tile or a mask pattern"
)
def TSCATTER(dst: Tile, src: Tile, idx: Tile | None = None, *, mask=None, axis=None) -> None:
    """Scatter ``src`` into ``dst`` inside UB (pipe V).

    Index mode ``TSCATTER(dst, src, idx)``: ``dst_flat[idx[i, j]] = src[i, j]`` for the valid
    region of ``idx`` (flat element offsets into dst's Rows*Cols storage).

    Mask mode ``TSCATTER(dst, src, mask="P1010", axis="SCATTER_ROW")``: interleave src with
    zeros (``dst[i, times*j + pos] = src[i, j]`` for SCATTER_ROW, rows for SCATTER_COL).
    ``mask``/``axis`` accept the enum member or its name; without ``idx`` and ``mask`` the
    pattern is P1111 (TMOV), as in C++.

    Raises:
        KernelError: both ``idx`` and ``mask`` (or ``axis``) given, or a bad argument.
        ConstraintError: a constraint of the target is violated (at record time).
        OutOfBoundsError: an index addresses past the end of UB (at run time).
    """
    d = _tile(dst, "TSCATTER dst")
    s = _tile(src, "TSCATTER src")
    if idx is not None:
        if isinstance(idx, (str, MaskPattern)):
            raise KernelError(
                f"TSCATTER: idx must be a pto.Tile; pass a mask pattern as mask={idx!r}"
            )
        if mask is not None or axis is not None:
            raise KernelError(
                "TSCATTER: give either an index tile (index mode) or mask=/axis= (mask mode), "
                f"not both (idx={idx!r}, mask={mask!r}, axis={axis!r})"
            )
        emit(TScatterIndex(d, s, _tile(idx, "TSCATTER idx")))
        return
    pattern = MaskPattern.parse(MaskPattern.P1111 if mask is None else mask, "TSCATTER mask")
    emit(TScatterMask(d, s, pattern, _axis(ScatterAxis.SCATTER_ROW if axis is None else axis)))
