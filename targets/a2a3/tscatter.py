"""A2/A3 plans of TSCATTER (semantics.md 3.3 and the flag chain of 4.3).

Index mode ``TSCATTER(dst, src, idx)`` (``TScatterImpl``):

1. ``InitUBBuffer``: one count-mode ``vector_dup`` of zero over the whole dst tile
   (``Rows*Cols*sizeof(T)`` bytes, so ``ceil(bytes/256)`` repeats; count mode pays the
   partial-mask floor), then ``PtoSetWaitFlag<V, S>``.
2. The scalar loop ``dst[idx[i*IdxCols + j]] = src[i*SrcCols + j]`` over the index tile's valid
   region, one scalar step per index row; per element: loop overhead, the index UB load, the
   address arithmetic, the source UB load and the UB store.
3. ``PtoSetWaitFlag<S, V>``.

Mask mode, ``P1111``: ``TMOV_IMPL`` (the TMOV plan of ``data.py``). Other patterns: the same zero
fill and ``V -> S``, then

* ``SCATTER_ROW``: a scalar loop per source row (UB load, ``times*j + pos`` address, UB store);
* ``SCATTER_COL``: one counter-mode ``vcopy`` per source row into dst row ``times*i + pos``,
  copying ``validCol`` elements as int32 (4-byte T) or int16 (otherwise, as the reference does,
  semantics.md 8.17), so ``ceil(validCol*copy_size/256)`` repeats;

and ``S -> V`` last.

Vector tails: an intrinsic pays its ``tail`` when the vector stream drains, i.e. on the last
intrinsic of the instruction and on an intrinsic directly followed by a ``set_flag`` from V (the
zero fill before ``V -> S``), since that flag posts only once V has drained.
"""

from __future__ import annotations

import numpy as np

from ptosim.enums import MaskPattern, Pipe, ScatterAxis
from ptosim.isa.tscatter import TScatterIndex, TScatterMask
from ptosim.plan import Deferred, Region, Step, handshake

from ..costs import ceil_div, scalar_step, tile_region, vector_step
from .data import plan_tmov

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def _row_region(ref, row: int, first_col: int, end_col: int) -> Region:
    """UB bytes of elements [first_col, end_col) of storage row ``row`` (i*Cols + j)."""
    sz = ref.dtype.size_bytes
    base = ref.address + row * ref.cols * sz
    return Region("UB", base + first_col * sz, base + end_col * sz)


def _zero_fill(instr, ctx) -> list[Step]:
    """``InitUBBuffer``: count-mode vector_dup over Rows*Cols elements, then V -> S."""
    t = ctx.config.timing
    d = instr.dst
    nbytes = d.numel * d.dtype.size_bytes
    repeats = max(1, ceil_div(nbytes, t.vector.repeat_bytes))
    step = vector_step(
        t,
        "vector_dup",
        repeats,
        f"zero fill vector_dup x{repeats}",
        partial=True,
        writes=(tile_region(d),),
    )
    step.bytes = nbytes
    step.args.update({"bytes": nbytes, "mask": "count", "elements": d.numel})
    return [step, *handshake(Pipe.PIPE_V, Pipe.PIPE_S, t.scalar.flag_cycles)]


def plan_tscatter_index(instr: TScatterIndex, ctx) -> list:
    """Zero fill and V->S, then the scalar loop, built when the scalar pipe has passed the V->S
    wait (it reads the index values then)."""
    return _zero_fill(instr, ctx) + [Deferred(lambda c: _index_loop(instr, c), "index loop")]


def _index_loop(instr: TScatterIndex, ctx) -> list[Step]:
    t = ctx.config.timing
    s = t.scalar
    d, src, x = instr.dst, instr.src, instr.idx
    ri, ci = x.valid
    steps: list[Step] = []
    per_elem = s.loop_cycles + 2 * s.ub_load_cycles + s.op_cycles + s.ub_store_cycles
    sz = d.dtype.size_bytes
    if ri and ci:
        # the index values as the scalar unit will read them (memory at issue time), for the
        # regions of the scattered stores
        raw = ctx.tile_storage(x).reshape(x.rows, x.cols)[:ri, :ci]
        flat = np.ascontiguousarray(raw).view(_UNSIGNED[x.dtype.size_bytes]).astype(np.int64)
        lo, hi = flat.min(axis=1), flat.max(axis=1)
        for i in range(ri):
            w = Region("UB", d.address + int(lo[i]) * sz, d.address + (int(hi[i]) + 1) * sz)
            steps.append(
                scalar_step(
                    ci * per_elem,
                    f"scatter row {i}",
                    reads=(_row_region(x, i, 0, ci), _row_region(src, i, 0, ci)),
                    writes=(w,),
                    bytes_=ci * (x.dtype.size_bytes + 2 * sz),
                    args={"row": i, "elements": ci, "ub_loads": 2 * ci, "ub_stores": ci},
                )
            )
    steps += handshake(Pipe.PIPE_S, Pipe.PIPE_V, s.flag_cycles)
    return steps


def plan_tscatter_mask(instr: TScatterMask, ctx) -> list[Step]:
    if instr.mask is MaskPattern.P1111:
        return plan_tmov(instr, ctx)  # TSCATTER<P1111> is TMOV_IMPL
    t = ctx.config.timing
    s = t.scalar
    d, src = instr.dst, instr.src
    times, pos = instr.mask.times, instr.mask.pos
    vr, vc = src.valid
    sz = d.dtype.size_bytes
    steps = _zero_fill(instr, ctx)
    if instr.axis is ScatterAxis.SCATTER_ROW:
        per_elem = s.loop_cycles + s.ub_load_cycles + s.op_cycles + s.ub_store_cycles
        if vc:
            for i in range(vr):
                w = _row_region(d, i, pos, times * (vc - 1) + pos + 1)
                steps.append(
                    scalar_step(
                        vc * per_elem,
                        f"scatter row {i}",
                        reads=(_row_region(src, i, 0, vc),),
                        writes=(w,),
                        bytes_=2 * vc * sz,
                        args={"row": i, "elements": vc, "times": times, "pos": pos},
                    )
                )
    elif vc:
        copy_size = 4 if sz == 4 else 2  # vcopy as int32 for b32, int16 otherwise
        repeats = max(1, ceil_div(vc * copy_size, t.vector.repeat_bytes))
        for i in range(vr):
            row = times * i + pos
            step = vector_step(
                t,
                "vcopy",
                repeats,
                f"vcopy row {i} -> {row}",
                last=i == vr - 1,
                partial=True,
                reads=(_row_region(src, i, 0, vc),),
                writes=(_row_region(d, row, 0, vc),),
            )
            step.bytes = vc * sz
            step.args.update({"src_row": i, "dst_row": row, "elements": vc, "mask": "count"})
            steps.append(step)
    steps += handshake(Pipe.PIPE_S, Pipe.PIPE_V, s.flag_cycles)
    return steps


PLANS = {TScatterIndex: plan_tscatter_index, TScatterMask: plan_tscatter_mask}
