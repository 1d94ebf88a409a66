"""950 (a5) plans of TSORT32 and TMRGSORT (estimates), and of
THISTOGRAM (the npu/a5 THistogram.hpp loop, ``plan_histogram``).

One vector function each: TSORT32 loads the scores and indices of every valid row (``vlds``),
sorts each 32-element block (``vbitsort``) and stores the records (``vsts``); TMRGSORT loads the
lists, merges them (``vmrgsort4``, one call) and stores the result.
"""

from __future__ import annotations

from ptosim.isa.vector.sort import SORT_BLOCK, THistogram, TMrgSort, TSort32, record_elems

from ..a2a3.layout import rows_region, ub_copy_step
from ..costs import ceil_div, tile_region
from .vf import VectorFunction


def _plan_sort32_padded(instr: TSort32, ctx) -> list:
    """npu/a5/TSort32.hpp, 4 operands, a partial last block: per row ``copy_ubuf_to_ubuf`` of
    the row (or of its tail block, rows over 8160 bytes) into tmp, a vector function padding
    the last block (``vlds``, ``vdup``, ``vsts``), ``vbitsort`` of the blocks (estimates)."""
    d, s, x, t = instr.dst, instr.src, instr.idx, instr.tmp
    R, C = s.valid
    sz = s.dtype.size_bytes
    first = instr.first_block_via_tmp(ctx.arch)
    blocks = ceil_div(C, SORT_BLOCK)
    tmp = rows_region(t, 0, 1, 0, (blocks - first) * SORT_BLOCK)
    steps = []
    for i in range(R):
        copied = (C - first * SORT_BLOCK) * sz
        src = rows_region(s, i, 1, first * SORT_BLOCK, C)
        steps.append(ub_copy_step(ctx, copied, "TSORT32", (src,), (tmp,)))
        vf = VectorFunction(ctx, d.dtype)
        vf.op("vlds", 1, "last block", reads=(tmp,))
        vf.op("vdup", 1, "pads")
        vf.op("vsts", 1, "padded block", writes=(tmp,))
        steps += vf.steps()
    records = rows_region(d, 0, R, 0, blocks * SORT_BLOCK * record_elems(d.dtype))
    vf = VectorFunction(ctx, d.dtype)
    vf.op("vbitsort", R * blocks, "blocks", reads=(tmp, rows_region(x, 0, R, 0, C)),
          writes=(records,))  # fmt: skip
    return steps + vf.steps()


def plan_sort32(instr: TSort32, ctx) -> list:
    d, s, x = instr.dst, instr.src, instr.idx
    R, C = s.valid
    if instr.padded_tail(ctx.arch):
        return _plan_sort32_padded(instr, ctx)
    vf = VectorFunction(ctx, d.dtype)
    sz = s.dtype.size_bytes
    loads = R * (ceil_div(C * sz, vf.vl) + ceil_div(C * 4, vf.vl))
    vf.op("vlds", loads, "scores and indices",
          reads=(rows_region(s, 0, R, 0, C), rows_region(x, 0, R, 0, C)))  # fmt: skip
    vf.op("vbitsort", R * (C // SORT_BLOCK), "blocks")
    out = C * record_elems(d.dtype)
    vf.op("vsts", R * ceil_div(C * 8, vf.vl), "records", writes=(rows_region(d, 0, R, 0, out),))
    return vf.steps()


def plan_mrgsort(instr: TMrgSort, ctx) -> list:
    vf = VectorFunction(ctx, instr.dst.dtype)
    n = sum(ceil_div(s.valid_col * 4, vf.vl) for s in instr.srcs)
    vf.op("vlds", n, "lists", reads=tuple(tile_region(s) for s in instr.srcs))
    vf.op("vmrgsort4", 1, "merge")
    vf.op("vsts", n, "merged", writes=(tile_region(instr.dst),))
    return vf.steps()


def plan_histogram(instr: THistogram, ctx) -> list:
    """npu/a5 THistogram.hpp per row: the filter bytes (``vlds`` broadcast), then per 256
    elements a deinterleaving load of src (``vlds``, two for uint32 plus two ``vdintlv``), the
    filter compares (``vcmp_eq``), two ``chistv2`` (bins 0-127, 128-255), four ``vcvt`` and four
    ``vadd`` into the 32-bit counts; two interleaving stores of the 256 counts."""
    d, s = instr.dst, instr.src
    R, C = s.valid
    vf = VectorFunction(ctx, d.dtype)
    n = R * ceil_div(C, 256)
    wide = s.dtype.size_bytes == 4
    filters = 1 if not wide and instr.byte == 0 else (3 - instr.byte if wide else 0)
    vf.op("vlds", R * max(filters, 1), "filter bytes", reads=(tile_region(instr.idx),))
    vf.op("vlds", n * (2 if wide else 1), "src", reads=(rows_region(s, 0, R, 0, C),))
    vf.op("vdintlv", n * 2 if wide else 0, "bytes")
    vf.op("vcmp_eq", n * filters, "filters")
    vf.op("chistv2", n * 2, "bins")
    vf.op("vcvt", n * 4, "counts to 32 bits")
    vf.op("vadd", n * 4, "accumulate")
    vf.op("vsts", R * 2, "bins", writes=(rows_region(d, 0, R, 0, 256),))
    return vf.steps()


PLANS = {TSort32: plan_sort32, TMrgSort: plan_mrgsort, THistogram: plan_histogram}
