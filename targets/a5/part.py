"""950 (a5) plans of TPARTADD/TPARTMUL/TPARTMAX/TPARTMIN (vector_isa.md 3.22, 2.6).

The reference gives no a5 TPART body; the plan is our choice on the a5 vector-function model:

* both sources with dst's valid shape: the element-wise VF of TADD & co.
  (``elementwise._vf``: 1-D post-update loop for continuous tiles, else 2-D per row);
* otherwise one VF of per-row loops over dst's R valid rows: rows the small source covers
  load the full row and the small source's ``c`` columns (2 ``vlds`` per vector of the small
  part, 1 for the rest), apply the op to the small part (predicated, merging), and store the
  row (``vsts``); the other rows are a ``vlds`` + ``vsts`` copy of the full source. Predicated
  stores: nothing past the valid width is written.

TPARTARG<MAX|MIN> (npu/a5/TPartArgBinOps.hpp): one VF; per row the small source covers and VL
chunk of its columns: ``vlds`` of both values and of the full source's, ``vcmp``, ``vsel``,
``vmov`` (merge into the full row), ``vsts``; the same for the indices (two vectors per value
vector when the index is wider); the full source's other chunks and rows are ``vlds`` +
``vsts`` copies of values and indices.
"""

from __future__ import annotations

from ptosim.isa.vector.part import TPart, TPartArg, npu_split
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


def plan_part_arg(instr: TPartArg, ctx) -> list[Step]:
    dv, di = instr.dst_val, instr.dst_idx
    R, C = dv.valid
    vf = VectorFunction(ctx, dv.dtype)
    if R == 0 or C == 0:
        return vf.steps()
    _, full, sn, small, _ = npu_split(instr, dv, instr.src0_val, instr.src1_val)
    full_idx = instr.src1_idx if sn == "src0" else instr.src0_idx
    small_idx = instr.src0_idx if sn == "src0" else instr.src1_idx
    vle = vf.vl // dv.dtype.size_bytes
    wide = max(1, di.dtype.size_bytes // dv.dtype.size_bytes)  # index vectors per value vector
    r, c = small.valid
    per_row, small_vecs = ceil_div(C, vle), ceil_div(c, vle)
    for i in range(R):
        both = small_vecs if i < r else 0
        info = {"row": i, "elements": C, "vectors": per_row}
        reads = [_row(full, i, 0, C), _row(full_idx, i, 0, C)]
        if both:
            reads += [_row(small, i, 0, c), _row(small_idx, i, 0, c)]
        loads = (per_row + both) * (1 + wide) + both * (1 + wide)
        vf.op("vlds", loads, f"row {i}", reads=reads, **info)
        if both:
            vf.op("vcmp", both, f"row {i}", **info)
            vf.op("vsel", both * (1 + wide), f"row {i}", **info)
            vf.op("vmov", both * (1 + wide), f"row {i} merge", **info)
        writes = (_row(dv, i, 0, C), _row(di, i, 0, C))
        vf.op("vsts", per_row * (1 + wide), f"row {i}", writes=writes, **info)
    return vf.steps()


PLANS = {TPart: plan_part, TPartArg: plan_part_arg}
