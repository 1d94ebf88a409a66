"""950 (a5) plans of the vector-function instructions: TMOV, TEXPANDS, TSCATTER (index and
mask mode) and the TROWEXPAND family (semantics.md 3.3.1, 3.3.2, 3.4, 3.6).

Every instruction is one ``__VEC_SCOPE__``: a ``vf_startup`` step first, a ``vf_drain`` step
last, the register-level intrinsics in between, all on PIPE_V and without set/wait flags (the
caller orders the pipes: ``TLOAD; MTE2->V; op; V->MTE3; TSTORE``, semantics.md 4.3). The data
window runs from the first intrinsic (inputs sampled) to the end of ``vf_drain`` (the stores
have retired; outputs committed). ``mem_bar`` costs ``scalar.barrier_cycles`` (no 950 figure).

Cost of one intrinsic (targets/costs.vector_cycles): ``head + slope * n (+ tail)`` where ``n``
is the number of 256-byte vectors it handles. A loop of identical intrinsics is one step per
intrinsic kind: per row for the row loops (the loop restarts per row and pays its ``head``
again), per instruction for the flat loops (zero fill, TMOV, TEXPANDS, the 1-D row-expand path).
Tails are paid where the vector stream drains: on the last intrinsic of the scope and on the
stores before a ``mem_bar`` (the barrier waits for them to land). Predicates are free on a5 (no
count/norm mask modes), so the A2/A3 partial-mask floor does not apply.

* TMOV: ``vlds`` + ``vsts`` per VL chunk of the copied region (``min(valid)``); whole-row
  (contiguous) copies are chunked flat, others per line (row of ND, column of DN).
* TEXPANDS: one ``vdup`` then one ``vsts`` per VL chunk of the valid region.
* TSCATTER index: zero fill (``vdup`` + ``ceil(Numel / (256/sizeof T))`` ``vsts``), then
  ``mem_bar(VST_VLD)``, ``mem_bar(VST_VST)``; per index row, per batch of ``256/sizeof(U)``
  lanes (U = u32 for 4-byte indices, else u16): ``vlds`` src, ``vlds`` idx, ``vscatter`` (one
  ``vlds`` step of 2 x batches vectors and one ``vscatter`` step per row). 8-byte T
  (Int64Scatter): zero ``2*Numel`` u32 words; per row one de-interleaving ``vlds`` (2 vectors:
  low and high words), one idx ``vlds``, two ``vadd`` for ``wordIdx = idx + idx`` and
  ``highIdx = wordIdx + 1`` (choice: the index arithmetic is costed as vadd), two ``vscatter``.
  The scattered bytes of a row are found when its ``vscatter`` starts on PIPE_V (Step.resolve
  reads the index tile then), as the write region of that step.
* TSCATTER mask: the same zero fill and mem_bars; SCATTER_ROW: per source row, per 256-byte
  source chunk ``vlds``, ``vintlv`` with a zero register (1 for x2, 2 for x4; no config entry:
  the ``other`` cost), ``times`` ``vsts``; SCATTER_COL: per source row chunked ``vlds``/``vsts``
  into dst row ``times*i + pos``. P1111 is the TMOV plan.
* TROWEXPAND<OP>: the 1-D path (dst ``Cols < 256/sizeof(T)`` and contiguous, ``one_d``) runs
  one flat loop over ``R*ceil(C/VLe)`` vectors: per vector ``vlds`` of F, the E load (mode 1: an
  unaligned ``vlds`` + ``vdup`` of the lowest lane, reading ``E + i*E.Cols``; mode 2: a ``vlds``
  BLK of the 32-byte block ``E + i*bs``), the op, ``vsts``. The 2-D path runs per row: the E
  load (mode 1: ``vbr`` broadcast load of ``E[i]``; mode 2: ``vlds`` BLK), then per VL chunk
  ``vlds`` F, the op, ``vsts``. Ops: vmax, vmin, vadd, vsub, vmul, vdiv; EXPDIF is vsub + vexp.
  No vbrcb and no pipe_barrier on a5, so modes 1 and 2 cost about the same. The tmp operand is
  ignored. TROWEXPAND (plain broadcast, no a5 kernel in our sources; choice): the same loops
  without F and the op: the broadcast load of ``src[i, 0]`` (``vbr``) and the ``vsts``.
"""

from __future__ import annotations

import numpy as np

from ptosim.enums import MaskPattern, ScatterAxis
from ptosim.isa.data import TExpandS, TMov
from ptosim.isa.rowexpand import TRowExpand, TRowExpandBinary
from ptosim.isa.tscatter import TScatterIndex, TScatterMask
from ptosim.plan import Region, Step

from ..common import ROWEXPAND_INTRINSICS
from ..costs import ceil_div, tile_region
from .vf import VectorFunction

_INTRINSICS = ROWEXPAND_INTRINSICS
_UNSIGNED = {2: np.uint16, 4: np.uint32}


# -- regions --------------------------------------------------------------------------------
def _span(ref, first: int, end: int) -> Region:
    """UB bytes of storage elements [first, end) of a tile."""
    sz = ref.dtype.size_bytes
    start = ref.address + first * sz
    return Region("UB", start, ref.address + max(end, first) * sz)


def _row(ref, row: int, first_col: int, end_col: int, pitch: int | None = None) -> Region:
    """UB bytes of columns [first_col, end_col) of row ``row`` at ``pitch`` elements per row."""
    p = ref.cols if pitch is None else pitch
    return _span(ref, row * p + first_col, row * p + end_col)


def _rows(ref, n: int, cols: int, pitch: int | None = None) -> Region:
    """UB bytes of the first ``cols`` elements of rows [0, n) at ``pitch`` elements per row."""
    p = ref.cols if pitch is None else pitch
    if n <= 0 or cols <= 0:
        return _span(ref, 0, 0)
    return _span(ref, 0, (n - 1) * p + cols)


def _zero_fill(vf: VectorFunction, d, words: int, word_bytes: int) -> None:
    """Broadcast 0 into a register, store it over ``words`` elements, then the mem_bars."""
    per_vec = vf.vl // word_bytes
    vf.op("vdup", 1, "zero")
    vf.op(
        "vsts",
        ceil_div(words, per_vec),
        "zero fill",
        writes=(tile_region(d),),
        elements=words,
        element_bytes=word_bytes,
    )
    vf.mem_bar("VST_VLD")
    vf.mem_bar("VST_VST")


def _lines(ref, rows: int, cols: int) -> tuple[int, int, bool]:
    """(lines, elements per line, contiguous) of the top-left rows x cols of a tile's storage:
    rows of an ND tile, columns of a DN tile; a boxed tile is copied as one flat span."""
    g = ref.geom
    if g.is_boxed:
        return 1, ref.numel, True
    if g.is_row_major:
        return rows, cols, cols == ref.cols or rows <= 1
    return cols, rows, rows == ref.rows or cols <= 1


def _chunked(vf: VectorFunction, rows: int, cols: int, *refs) -> tuple[int, int]:
    """(vectors, lines) covering the top-left rows x cols of the tiles ``refs`` (same layout):
    one flat run when the region is contiguous in all of them, else per line."""
    sz = refs[0].dtype.size_bytes
    shapes = [_lines(ref, rows, cols) for ref in refs]
    n_lines, per_line, _ = shapes[0]
    if n_lines == 0 or per_line == 0:
        return 0, 0
    if all(contiguous for _, _, contiguous in shapes):
        return ceil_div(n_lines * per_line * sz, vf.vl), n_lines
    return n_lines * ceil_div(per_line * sz, vf.vl), n_lines


def _extent(ref, rows: int, cols: int) -> Region:
    """The bytes spanned by the top-left rows x cols of a tile (its storage for boxed tiles)."""
    n_lines, per_line, _ = _lines(ref, rows, cols)
    if ref.geom.is_boxed:
        return tile_region(ref)
    pitch = ref.cols if ref.geom.is_row_major else ref.rows
    return _rows(ref, n_lines, per_line, pitch)


# -- TMOV / TEXPANDS ------------------------------------------------------------------------
def plan_tmov(instr, ctx) -> list[Step]:
    """TMOV (and TSCATTER<P1111>): ``vlds`` + ``vsts`` per VL chunk of the copied region."""
    d, s = instr.dst, instr.src
    rows, cols = min(d.valid_row, s.valid_row), min(d.valid_col, s.valid_col)
    vf = VectorFunction(ctx, d.dtype)
    n, lines = _chunked(vf, rows, cols, s, d)
    info = {"rows": rows, "cols": cols, "lines": lines}
    vf.op("vlds", n, "src", reads=(_extent(s, rows, cols),), **info)
    vf.op("vsts", n, "dst", writes=(_extent(d, rows, cols),), **info)
    return vf.steps()


def plan_texpands(instr: TExpandS, ctx) -> list[Step]:
    d = instr.dst
    rows, cols = d.valid
    vf = VectorFunction(ctx, d.dtype)
    n, lines = _chunked(vf, rows, cols, d)
    if n:
        vf.op("vdup", 1, "scalar")
    vf.op("vsts", n, "fill", writes=(_extent(d, rows, cols),), rows=rows, cols=cols, lines=lines)
    return vf.steps()


# -- TSCATTER -------------------------------------------------------------------------------
def _scattered(d, x, i: int, ci: int, scale: int = 1, extra: int = 0):
    """Write region of row ``i``'s vscatter, from the index values in memory when it starts."""
    sz = d.dtype.size_bytes // scale

    def fill(ctx) -> tuple[Region, ...]:
        raw = ctx.tile_storage(x)[i * x.cols : i * x.cols + ci]
        flat = np.ascontiguousarray(raw).view(_UNSIGNED[x.dtype.size_bytes]).astype(np.int64)
        lo, hi = int(flat.min()) * scale, int(flat.max()) * scale + extra
        return (Region("UB", d.address + lo * sz, d.address + (hi + 1) * sz),)

    return fill


def plan_tscatter_index(instr: TScatterIndex, ctx) -> list[Step]:
    d, src, x = instr.dst, instr.src, instr.idx
    ri, ci = x.valid
    sz = d.dtype.size_bytes
    vf = VectorFunction(ctx, d.dtype)
    if sz == 8:  # Int64Scatter: u32 words, one vector of 64 index lanes per row
        _zero_fill(vf, d, 2 * d.numel, 4)
        for i in range(ri if ci else 0):
            reads = (_row(src, i, 0, ci), _row(x, i, 0, ci))
            vf.op("vlds", 2, f"row {i} deinterleave src", reads=reads[:1], row=i, elements=ci)
            vf.op("vlds", 1, f"row {i} idx", reads=reads[1:], row=i, elements=ci)
            vf.op("vadd", 2, f"row {i} word index", row=i)
            vf.op(
                "vscatter",
                2,
                f"row {i}",
                writes=(tile_region(d),),
                resolve=_scattered(d, x, i, ci, scale=2, extra=1),
                row=i,
                elements=ci,
                lanes=vf.vl // 4,
            )
        return vf.steps()
    _zero_fill(vf, d, d.numel, sz)
    lanes = vf.vl // (4 if x.dtype.size_bytes == 4 else 2)
    batches = ceil_div(ci, lanes)
    for i in range(ri if ci else 0):
        vf.op(
            "vlds",
            2 * batches,
            f"row {i} src+idx",
            reads=(_row(src, i, 0, ci), _row(x, i, 0, ci)),
            row=i,
            elements=ci,
            batches=batches,
        )
        vf.op(
            "vscatter",
            batches,
            f"row {i}",
            writes=(tile_region(d),),
            resolve=_scattered(d, x, i, ci),
            row=i,
            elements=ci,
            lanes=lanes,
        )
    return vf.steps()


def plan_tscatter_mask(instr: TScatterMask, ctx) -> list[Step]:
    if instr.mask is MaskPattern.P1111:
        return plan_tmov(instr, ctx)  # TSCATTER<P1111> is TMOV_IMPL
    d, src = instr.dst, instr.src
    times, pos = instr.mask.times, instr.mask.pos
    vr, vc = src.valid
    sz = d.dtype.size_bytes
    vf = VectorFunction(ctx, d.dtype)
    _zero_fill(vf, d, d.numel, sz)
    chunks = ceil_div(vc * sz, vf.vl)
    rows = vr if chunks else 0
    if instr.axis is ScatterAxis.SCATTER_ROW:
        intlv = 1 if times == 2 else 2
        for i in range(rows):
            info = {"row": i, "chunks": chunks, "times": times}
            vf.op("vlds", chunks, f"row {i}", reads=(_row(src, i, 0, vc),), **info)
            vf.op("vintlv", intlv * chunks, f"row {i}", **info)
            vf.op(
                "vsts",
                times * chunks,
                f"row {i}",
                writes=(_row(d, i, 0, min(d.cols, times * chunks * vf.vl // sz)),),
                **info,
            )
    else:
        for i in range(rows):
            row = times * i + pos
            info = {"src_row": i, "dst_row": row, "chunks": chunks}
            vf.op("vlds", chunks, f"row {i}", reads=(_row(src, i, 0, vc),), **info)
            vf.op("vsts", chunks, f"row {i} -> {row}", writes=(_row(d, row, 0, vc),), **info)
    return vf.steps()


# -- TROWEXPAND* ----------------------------------------------------------------------------
def _one_d(d) -> bool:
    """The flattened 1-D path: dst Cols < 256/sizeof(T) and contiguous."""
    contiguous = (d.static_valid and d.valid_col == d.cols) or d.rows == 1
    return d.cols * d.dtype.size_bytes < 256 and contiguous


def _rowexpand(
    ctx, d, full, e, e_pitch: int | None, mode: int, intrinsics: tuple, one_d: bool
) -> list[Step]:
    """The row-expand loops; ``full`` None for the plain TROWEXPAND; ``e`` the expanded operand
    (mode 1: one element per row; mode 2: one 32-byte block per row) at ``e_pitch`` elements
    per row (None: a boxed tile, its whole storage is the read region)."""
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    vle = vf.vl // d.dtype.size_bytes
    per_row = ceil_div(C, vle)
    e_cols = 1 if mode == 1 else d.dtype.c0
    path = "1d" if one_d else "2d"
    if R == 0 or per_row == 0:
        return vf.steps()
    if one_d:
        n = R * per_row
        info = {"path": path, "mode": mode, "rows": R, "elements": C, "vectors": n}
        e_reg = tile_region(e) if e_pitch is None else _rows(e, R, e_cols, e_pitch)
        if full is not None:
            vf.op("vlds", n, "full", reads=(_rows(full, R, C),), **info)
        if full is not None and mode == 1:  # unaligned load + vdup of the lowest lane
            vf.op("vlds", n, "expanded (unaligned)", reads=(e_reg,), **info)
            vf.op("vdup", n, "expanded lane 0", **info)
        elif mode == 1:
            vf.op("vbr", n, "expanded", reads=(e_reg,), **info)
        else:
            vf.op("vlds", n, "expanded (BLK)", reads=(e_reg,), **info)
        for op in intrinsics:
            vf.op(op, n, "rows", **info)
        vf.op("vsts", n, "dst", writes=(_rows(d, R, C),), **info)
        return vf.steps()
    for i in range(R):
        info = {"path": path, "mode": mode, "row": i, "elements": C, "vectors": per_row}
        e_reg = tile_region(e) if e_pitch is None else _row(e, i, 0, e_cols, e_pitch)
        if mode == 1:
            vf.op("vbr", 1, f"row {i} expanded", reads=(e_reg,), **info)
        else:
            vf.op("vlds", 1, f"row {i} expanded (BLK)", reads=(e_reg,), **info)
        if full is not None:
            vf.op("vlds", per_row, f"row {i} full", reads=(_row(full, i, 0, C),), **info)
        for op in intrinsics:
            vf.op(op, per_row, f"row {i}", **info)
        vf.op("vsts", per_row, f"row {i}", writes=(_row(d, i, 0, C),), **info)
    return vf.steps()


def plan_rowexpand_binary(instr: TRowExpandBinary, ctx) -> list[Step]:
    d = instr.dst
    f_name, e_name = instr.roles(ctx.arch)
    f, e = getattr(instr, f_name), getattr(instr, e_name)
    one_d = instr.one_d()
    if e.geom.is_row_major:  # mode 2: the block of row i at E + i*bs (D9)
        mode, pitch = 2, d.dtype.c0
    else:  # mode 1: E[i], or E + i*E.Cols on the 1-D path (semantics.md 3.4)
        mode, pitch = 1, (e.cols if one_d else 1)
    return _rowexpand(ctx, d, f, e, pitch, mode, _INTRINSICS[instr.op], one_d)


def plan_rowexpand(instr: TRowExpand, ctx) -> list[Step]:
    s = instr.src
    # src(i, 0): row pitch Cols when RowMajor, 1 for a ColMajor vector; boxed: the whole tile
    pitch = None if s.geom.is_boxed else (s.cols if s.geom.is_row_major else 1)
    return _rowexpand(ctx, instr.dst, None, s, pitch, 1, (), _one_d(instr.dst))


PLANS = {
    TMov: plan_tmov,
    TExpandS: plan_texpands,
    TScatterIndex: plan_tscatter_index,
    TScatterMask: plan_tscatter_mask,
    TRowExpandBinary: plan_rowexpand_binary,
    TRowExpand: plan_rowexpand,
}
