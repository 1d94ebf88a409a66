"""A2/A3 plans of TCOLEXPAND and TCOLEXPAND<OP> (vector_isa.md 3.18).

* TCOLEXPAND: one ``copy_ubuf_to_ubuf`` per dst row of ceil(C*size/32) blocks from src row 0
  (repeats = blocks), no barriers.
* TCOLEXPAND<OP>: dst continuous (static ValidCol == Cols, or Rows == 1) -> norm mode with the
  rows as repeats (<= 255 per call, row vector repeat stride 0): one C-lane call when both the
  dst and the full operand rows are narrower than E, else floor(C/E) full calls plus one masked
  tail call; otherwise count mode, one call per row (count C). EXPDIF is ``vsub``,
  ``pipe_barrier(PIPE_V)``, ``vexp`` in each step.
"""

from __future__ import annotations

from ptosim.isa.vector.colexpand import TColExpand, TColExpandBinary, padded_cols

from ..common import ROWEXPAND_INTRINSICS
from ..costs import rows_region as region
from .reduce import copy_call, count, norm
from .vec import REPEAT_BYTES, REPEAT_MAX, VecStream


def plan_colexpand(instr: TColExpand, ctx):
    d, s = instr.dst, instr.src
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    sz = d.dtype.size_bytes
    E = REPEAT_BYTES // sz
    end = padded_cols(d, C)
    for i in range(R if C else 0):
        copy_call(
            vs, region(d, i, 1, 0, end), region(s, 0, 1, 0, end), end * sz // 32, E, f"row {i}"
        )
    return vs.steps()


def plan_colexpand_binary(instr: TColExpandBinary, ctx):
    d = instr.dst
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return vs.steps()
    f_name, r_name = instr.roles(ctx.arch)
    f, rv = getattr(instr, f_name), getattr(instr, r_name)
    E = REPEAT_BYTES // d.dtype.size_bytes
    ops = ROWEXPAND_INTRINSICS[instr.op]

    def emit(call, r0, n, c0, c1):
        reads = (region(f, r0, n, c0, c1), region(rv, 0, 1, c0, c1))
        writes = (region(d, r0, n, c0, c1),)
        for k, op in enumerate(ops):
            if k:
                vs.barrier()
            vs.call(op, call, reads=reads, writes=writes, first_row=r0, first_col=c0)

    continuous = (d.static_valid and d.valid_col == d.cols) or d.rows == 1
    if not continuous:
        for i in range(R):
            emit(count(C, E), i, 1, 0, C)
        return vs.steps()
    for r0 in range(0, R, REPEAT_MAX):
        n = min(REPEAT_MAX, R - r0)
        if d.cols < E and f.cols < E:
            emit(norm(n, C, E), r0, n, 0, C)
            continue
        head, tail = divmod(C, E)
        for k in range(head):
            emit(norm(n, E, E), r0, n, k * E, (k + 1) * E)
        if tail:
            emit(norm(n, tail, E), r0, n, head * E, C)
    return vs.steps()


PLANS = {TColExpand: plan_colexpand, TColExpandBinary: plan_colexpand_binary}
