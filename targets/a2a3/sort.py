"""A2/A3 plans of TSORT32 and TMRGSORT (vector_isa.md 3.16).

- TSORT32: one ``vbitsort`` per valid row, repeat = valid columns / 32 (32 elements per repeat).
- TMRGSORT: one ``vmrgsort4`` merging the 2-4 lists (one list-repeat).
THISTOGRAM has no a2a3 form (UnsupportedError at record time).
"""

from __future__ import annotations

from ptosim.isa.vector.sort import SORT_BLOCK, TMrgSort, TSort32, record_elems

from ..costs import tile_region
from .layout import rows_chunk, rows_region
from .vec import VecStream


def plan_sort32(instr: TSort32, ctx) -> list:
    d, s, x = instr.dst, instr.src, instr.idx
    R, C = s.valid
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
    vs.call(
        "vmrgsort4",
        rows_chunk(1, 4, 4, count_mode=False),
        reads=tuple(tile_region(s) for s in instr.srcs),
        writes=(tile_region(instr.dst),),
        label=f"vmrgsort4 {len(instr.srcs)} lists x1",
        lists=len(instr.srcs),
    )
    return vs.steps()


PLANS = {TSort32: plan_sort32, TMrgSort: plan_mrgsort}
