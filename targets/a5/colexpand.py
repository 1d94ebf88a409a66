"""950 (a5) plans of TCOLEXPAND and TCOLEXPAND<OP> (vector_isa.md 2.6, 3.18): one vector
function; the row vector is loaded once per VL chunk of columns (``vlds``), then per row the
full operand's chunks are loaded, combined (``vadd`` ... ; EXPDIF ``vsub`` + ``vexp``) and
stored (``vsts``); the plain TCOLEXPAND only stores the loaded row vector into every row."""

from __future__ import annotations

from ptosim.isa.vector.colexpand import TColExpand, TColExpandBinary

from ..common import ROWEXPAND_INTRINSICS
from ..costs import ceil_div
from ..costs import rows_region as region
from .vf import VectorFunction


def _plan(ctx, d, full, rowv, ops):
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    if R == 0 or C == 0:
        return vf.steps()
    chunks = ceil_div(C * d.dtype.size_bytes, vf.vl)
    vf.op("vlds", chunks, "row vector", reads=(region(rowv, 0, 1, 0, C),))
    for i in range(R):
        info = {"row": i, "elements": C, "vectors": chunks}
        if full is not None:
            vf.op("vlds", chunks, f"row {i} full", reads=(region(full, i, 1, 0, C),), **info)
        for op in ops:
            vf.op(op, chunks, f"row {i}", **info)
        vf.op("vsts", chunks, f"row {i}", writes=(region(d, i, 1, 0, C),), **info)
    return vf.steps()


def plan_colexpand(instr: TColExpand, ctx):
    return _plan(ctx, instr.dst, None, instr.src, ())


def plan_colexpand_binary(instr: TColExpandBinary, ctx):
    f_name, r_name = instr.roles(ctx.arch)
    ops = ROWEXPAND_INTRINSICS[instr.op]
    return _plan(ctx, instr.dst, getattr(instr, f_name), getattr(instr, r_name), ops)


PLANS = {TColExpand: plan_colexpand, TColExpandBinary: plan_colexpand_binary}
