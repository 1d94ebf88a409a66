"""950 (a5) plans of the row and column reductions (vector_isa.md 2.6, 3.5, 3.17).

One vector function each (``vf_startup`` ... ``vf_drain``), VLe = 256/sizeof(T) lanes:
* TROW<OP>: ``vdup`` of the accumulator's identity, then per row: ``vlds`` of its
  ceil(C/VLe) chunks, one in-register reduction per chunk (``vcadd``/``vcmax``/``vcmin``; PROD
  has no cross-lane product intrinsic in our notes: choice, log2(VLe) ``vmul`` per chunk for its
  lane tree), one ``vadd``/``vmax``/``vmin``/``vmul`` per chunk into the accumulator, one
  ``vsts`` of lane 0. TROWSUM int16 widens in vcadd (no extra intrinsic).
* TCOL<OP>: per VL chunk of columns: ``vlds`` of its R rows, R-1 OPs (the pairwise order of
  reduce_order.a5_col), one ``vsts``. Binary TCOLSUM: per chunk and tree level, ``vlds`` of the
  level's inputs, its ``vadd``s, ``vsts`` of its outputs into tmp, ``mem_bar(VST_VLD)`` (the
  next level re-reads tmp); then ``vlds`` of tmp row 0 and ``vsts`` to dst.
* TROWARG<MAX|MIN> (npu/a5/TRowReduceIdx.hpp): per row ``vdup`` of the identity and two ``vbr``
  (index, offset), per VL chunk ``vlds``, ``vcmax``/``vcmin`` (value and index), the
  deinterleave of the pair (``vdintlv``, priced as ``vintlv``: no figure of its own), ``vadd``
  of the chunk offset, ``vcmp``, two ``vsel``, ``vadds`` of the next offset; ``vsts`` of the
  index (and of the value).
* TCOLARG<MAX|MIN> (npu/a5/TColReduceIdx.hpp): per VL chunk of columns two ``vdup``, ``vlds``
  of row 0, then per further row ``vadds`` (row counter), ``vlds``, ``vcmp``, two ``vsel``;
  ``vsts`` of the indices (and of the values).
"""

from __future__ import annotations

from ptosim.isa.vector.reduce import TColArg, TColReduce, TRowArg, TRowReduce

from ..costs import ceil_div
from ..costs import rows_region as region
from .vf import VectorFunction

RED = {"SUM": "vcadd", "MAX": "vcmax", "MIN": "vcmin"}
OP = {"SUM": "vadd", "MAX": "vmax", "MIN": "vmin", "PROD": "vmul"}


def plan_row_reduce(instr: TRowReduce, ctx):
    s, d, op = instr.src, instr.dst, instr.op
    R, C = s.valid
    vf = VectorFunction(ctx, s.dtype)
    vle = vf.vl // s.dtype.size_bytes
    chunks = ceil_div(C, vle)
    pitch = 1 if not d.geom.is_row_major else d.cols
    vf.op("vdup", 1, "accumulator identity")
    for i in range(R):
        info = {"row": i, "elements": C, "vectors": chunks}
        vf.op("vlds", chunks, f"row {i}", reads=(region(s, i, 1, 0, C),), **info)
        if op == "PROD":
            vf.op("vmul", chunks * (vle.bit_length() - 1), f"row {i} lane tree", **info)
        else:
            vf.op(RED[op], chunks, f"row {i}", **info)
        vf.op(OP[op], chunks, f"row {i} accumulate", **info)
        vf.op("vsts", 1, f"row {i}", writes=(region(d, i, 1, 0, 1, pitch),), **info)
    return vf.steps()


def plan_col_reduce(instr: TColReduce, ctx):
    s, d, t, op = instr.src, instr.dst, instr.tmp, instr.op
    R, C = s.valid
    vf = VectorFunction(ctx, s.dtype)
    if R == 0 or C == 0:
        return vf.steps()
    vle = vf.vl // s.dtype.size_bytes
    for c0 in range(0, C, vle):
        c1 = min(C, c0 + vle)
        info = {"first_col": c0, "elements": c1 - c0}
        out = region(d, 0, 1, c0, c1)
        if not instr.binary:
            vf.op("vlds", R, f"cols {c0}+ rows", reads=(region(s, 0, R, c0, c1),), **info)
            vf.op(OP[op], R - 1, f"cols {c0}+", **info)
            vf.op("vsts", 1, f"cols {c0}+", writes=(out,), **info)
            continue
        cnt, src, first = R, s, True
        while cnt > 1:
            h = cnt // 2
            adds = h + (cnt % 2)
            vf.op("vlds", cnt, f"cols {c0}+ level {cnt}", reads=(region(src, 0, cnt, c0, c1),))
            vf.op("vadd", adds, f"cols {c0}+ level {cnt}", **info)
            vf.op("vsts", h, f"cols {c0}+ level {cnt}", writes=(region(t, 0, h, c0, c1),))
            vf.mem_bar("VST_VLD")
            cnt, src, first = h, t, False
        vf.op("vlds", 1, f"cols {c0}+ result", reads=(region(s if first else t, 0, 1, c0, c1),))
        vf.op("vsts", 1, f"cols {c0}+ result", writes=(out,), **info)
    return vf.steps()


def plan_row_arg(instr: TRowArg, ctx):
    s, di, dv = instr.src, instr.dst_idx, instr.dst_val
    R, C = s.valid
    vf = VectorFunction(ctx, s.dtype)
    chunks = ceil_div(C, vf.vl // s.dtype.size_bytes)
    outs = [di] + ([dv] if dv is not None else [])
    for i in range(R):
        info = {"row": i, "elements": C, "vectors": chunks}
        vf.op("vdup", 1, f"row {i} identity", **info)
        vf.op("vbr", 2, f"row {i} index, offset", **info)
        vf.op("vlds", chunks, f"row {i}", reads=(region(s, i, 1, 0, C),), **info)
        vf.op(RED[instr.op], chunks, f"row {i}", **info)
        vf.op("vintlv", chunks, f"row {i} split value, index", **info)
        vf.op("vadd", chunks, f"row {i} chunk offset", **info)
        vf.op("vcmp", chunks, f"row {i} compare", **info)
        vf.op("vsel", 2 * chunks, f"row {i} keep", **info)
        vf.op("vadds", chunks, f"row {i} next offset", **info)
        for out in outs:
            pitch = 1 if not out.geom.is_row_major else out.cols
            vf.op("vsts", 1, f"row {i}", writes=(region(out, i, 1, 0, 1, pitch),), **info)
    return vf.steps()


def plan_col_arg(instr: TColArg, ctx):
    s, di, dv = instr.src, instr.dst_idx, instr.dst_val
    R, C = s.valid
    vf = VectorFunction(ctx, s.dtype)
    if R == 0 or C == 0:
        return vf.steps()
    vle = vf.vl // s.dtype.size_bytes
    for c0 in range(0, C, vle):
        c1 = min(C, c0 + vle)
        info = {"first_col": c0, "elements": c1 - c0}
        vf.op("vdup", 2, f"cols {c0}+ indices", **info)
        vf.op("vlds", R, f"cols {c0}+ rows", reads=(region(s, 0, R, c0, c1),), **info)
        vf.op("vadds", R - 1, f"cols {c0}+ row counter", **info)
        vf.op("vcmp", R - 1, f"cols {c0}+ compare", **info)
        vf.op("vsel", 2 * (R - 1), f"cols {c0}+ keep", **info)
        for out in [di] + ([dv] if dv is not None else []):
            vf.op("vsts", 1, f"cols {c0}+", writes=(region(out, 0, 1, c0, c1),), **info)
    return vf.steps()


PLANS = {
    TRowReduce: plan_row_reduce,
    TColReduce: plan_col_reduce,
    TRowArg: plan_row_arg,
    TColArg: plan_col_arg,
}
