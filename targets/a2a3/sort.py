"""A2/A3 plans of TSORT32 and TMRGSORT (vector_isa.md 3.16).

- TSORT32: one ``vbitsort`` per valid row, repeat = valid columns / 32 (32 elements per repeat);
  the 4-operand form with a partial last block goes through tmp (``_plan_sort32_padded``).
- TMRGSORT: one ``vmrgsort4`` merging the 2-4 lists (one list-repeat); the blockLen form
  repeats it once per group of 4 blocks.
THISTOGRAM has no a2a3 form (UnsupportedError at record time).
"""

from __future__ import annotations

from ptosim.isa.vector.sort import SORT_BLOCK, TMrgSort, TSort32, record_elems
from ptosim.plan import Region

from ..costs import tile_region
from .layout import rows_chunk, rows_region
from .vec import VecStream

COPY = "copy_ubuf_to_ubuf"


def _plan_sort32_padded(instr: TSort32, ctx) -> list:
    """The 4-operand form with a partial last block: per row ``copy_ubuf_to_ubuf`` into tmp,
    ``vector_dup`` of the pads, ``vbitsort`` of the padded blocks (rows over 8160 elements:
    the whole blocks from src first, only the last block through tmp), barriers between."""
    d, s, x, t = instr.dst, instr.src, instr.idx, instr.tmp
    R, C = s.valid
    vs = VecStream(ctx, d.dtype)
    rec, sz = record_elems(d.dtype), d.dtype.size_bytes
    n = C // SORT_BLOCK
    first = instr.first_block_via_tmp(ctx.arch)
    copied_blocks = -(-(C - first * SORT_BLOCK) * sz // 32)
    tmp = Region("UB", t.address, t.address + (n + 1 - first) * SORT_BLOCK * sz)
    sort = rows_chunk(n + 1 - first, SORT_BLOCK, SORT_BLOCK, count_mode=False)
    for i in range(R):
        row = d.address + i * d.cols * sz
        dst = (Region("UB", row, row + (n + 1) * SORT_BLOCK * rec * sz),)
        idx = rows_region(x, i, 1, 0, C)
        if first:
            src = rows_region(s, i, 1, 0, n * SORT_BLOCK)
            whole = rows_chunk(n, SORT_BLOCK, SORT_BLOCK, count_mode=False)
            vs.call("vbitsort", whole, reads=(src, idx), writes=dst, label=f"vbitsort row {i}")
            vs.barrier()
        copy = rows_chunk(copied_blocks, 1, 1, count_mode=False)
        src = rows_region(s, i, 1, first * SORT_BLOCK, C)
        vs.call(COPY, copy, reads=(src,), writes=(tmp,), label=f"{COPY} row {i}")
        vs.barrier()
        pads = rows_chunk(1, SORT_BLOCK - C % SORT_BLOCK, 256 // sz, count_mode=False)
        vs.call("vector_dup", pads, writes=(tmp,), label=f"vector_dup pads row {i}")
        vs.barrier()
        vs.call("vbitsort", sort, reads=(tmp, idx), writes=dst, label=f"vbitsort row {i} (tmp)")
        vs.barrier()
    return vs.steps()


def plan_sort32(instr: TSort32, ctx) -> list:
    d, s, x = instr.dst, instr.src, instr.idx
    R, C = s.valid
    if instr.padded_tail(ctx.arch):
        return _plan_sort32_padded(instr, ctx)
    vs = VecStream(ctx, d.dtype)
    rec = record_elems(d.dtype)
    for i in range(R):
        reps = C // SORT_BLOCK
        vs.call(
            "vbitsort",
            rows_chunk(reps, SORT_BLOCK, SORT_BLOCK, count_mode=False),
            reads=(rows_region(s, i, 1, 0, C), rows_region(x, i, 1, 0, C)),
            writes=(rows_region(d, i, 1, 0, C * rec),),
            label=f"vbitsort row {i} x{reps}",
        )
    return vs.steps()


def plan_mrgsort(instr: TMrgSort, ctx) -> list:
    vs = VecStream(ctx, instr.dst.dtype)
    L = instr.block_len
    reps = 1 if L is None else max(1, instr.srcs[0].valid_col // (4 * L))
    vs.call(
        "vmrgsort4",
        rows_chunk(reps, 4, 4, count_mode=False),
        reads=tuple(tile_region(s) for s in instr.srcs),
        writes=(tile_region(instr.dst),),
        label=f"vmrgsort4 {len(instr.srcs)} lists x{reps}",
        lists=len(instr.srcs),
    )
    return vs.steps()


PLANS = {TSort32: plan_sort32, TMrgSort: plan_mrgsort}
