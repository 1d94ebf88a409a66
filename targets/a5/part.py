"""950 (a5) plans of TPARTADD/TPARTMUL/TPARTMAX/TPARTMIN (vector_isa.md 3.22, 2.6).

The reference gives no a5 TPART body; the plan is our choice on the a5 vector-function model:

* both sources with dst's valid shape: the element-wise VF of TADD & co.
  (``elementwise._vf``: 1-D post-update loop for continuous tiles, else 2-D per row);
* otherwise one VF of per-row loops over dst's R valid rows: rows the small source covers
  load the full row and the small source's ``c`` columns (2 ``vlds`` per vector of the small
  part, 1 for the rest), apply the op to the small part (predicated, merging), and store the
  row (``vsts``); the other rows are a ``vlds`` + ``vsts`` copy of the full source. Predicated
  stores: nothing past the valid width is written.
"""

from __future__ import annotations

from ptosim.isa.vector.part import TPart, npu_split
from ptosim.plan import Step

from ..costs import ceil_div
from .elementwise import BINARY_INTRINSICS, _vf
from .vector import _row
from .vf import VectorFunction


def plan_part(instr: TPart, ctx) -> list[Step]:
    d = instr.dst
    R, C = d.valid
    op = BINARY_INTRINSICS[instr.op]
    if R == 0 or C == 0:
        return VectorFunction(ctx, d.dtype).steps()
    _, full, _, small, _ = npu_split(instr, d, instr.src0, instr.src1)
    if small.valid == d.valid:
        return _vf(ctx, op, d, [full, small])
    vf = VectorFunction(ctx, d.dtype)
    vle = vf.vl // d.dtype.size_bytes
    r, c = small.valid
    per_row, small_vecs = ceil_div(C, vle), ceil_div(c, vle)
    for i in range(R):
        both = i < r and c > 0
        info = {"path": "2d", "row": i, "elements": C, "vectors": per_row}
        reads = [_row(full, i, 0, C)] + ([_row(small, i, 0, c)] if both else [])
        loads = per_row + (small_vecs if both else 0)
        vf.op("vlds", loads, f"row {i}", reads=reads, **info)
        if both:
            vf.op(op, small_vecs, f"row {i}", **info)
        vf.op("vsts", per_row, f"row {i}", writes=(_row(d, i, 0, C),), **info)
    return vf.steps()


PLANS = {TPart: plan_part}
