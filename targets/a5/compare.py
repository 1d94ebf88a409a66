"""950 (a5) plans of TCMP, TCMPS, TSEL, TSELS (vector_isa.md 3.19, 3.20, 2.6).

One ``__VEC_SCOPE__`` with a loop per row: TCMP/TCMPS ``vlds`` of src0 (and src1 for TCMP; the
TCMPS tile form loads src1's first element once, broadcast), ``vcmp`` (``vcmps`` for the scalar
form, the scalar broadcast once with ``vdup``), and ``psts`` of the predicate bits (one store
per 128 elements, 256 for 1-byte data; 4-byte data are compared in 64-lane halves, so 2
compares per store). TSEL/TSELS: per row ``plds`` of the mask bits, ``vlds`` of the source(s),
``vsel``, ``vsts``, one per vector of 256 bytes.
"""

from __future__ import annotations

from ptosim.isa.vector.compare import TCmp, TCmpS, TSel, TSelS
from ptosim.plan import Region, Step

from ..costs import ceil_div
from .vf import VectorFunction


def _row(ref, i: int, n_bytes: int, pitch_bytes: int | None = None) -> Region:
    p = ref.cols * ref.dtype.size_bytes if pitch_bytes is None else pitch_bytes
    start = ref.address + i * p
    return Region("UB", start, start + n_bytes)


def plan_cmp(instr, ctx) -> list[Step]:
    d, s0, s1 = instr.dst, instr.src0, instr.src1
    R, C = s0.valid
    vf = VectorFunction(ctx, d.dtype)
    sz = s0.dtype.size_bytes
    vle = vf.vl // sz
    vectors = ceil_div(C, vle)
    stores = ceil_div(C, 256 if sz == 1 else 128)
    scalar = s1 is None
    # TCMPS with a tile: one broadcast vlds of src1's first element (npu/a5 TCmps)
    first = not scalar and instr.opcode == "TCMPS" and ctx.arch.spec.compare.tcmps_tile_reads_first
    if scalar:
        vf.op("vdup", 1, "scalar")
    if first:
        vf.op("vlds", 1, "src1 broadcast", reads=(_row(s1, 0, sz),))
    mask_bytes = instr.mask_bytes_per_row(ctx.arch)
    for i in range(R if C > 0 else 0):
        info = {"row": i, "elements": C, "vectors": vectors}
        vf.op("vlds", vectors, f"row {i} src0", reads=(_row(s0, i, C * sz),), **info)
        if not scalar and not first:
            vf.op("vlds", vectors, f"row {i} src1", reads=(_row(s1, i, C * sz),), **info)
        vf.op("vcmps" if scalar else "vcmp", vectors, f"row {i}", **info)
        vf.op("psts", stores, f"row {i} mask", writes=(_row(d, i, mask_bytes),))
    return vf.steps()


def plan_sel(instr, ctx) -> list[Step]:
    d, m = instr.dst, instr.mask
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    sz = d.dtype.size_bytes
    vectors = ceil_div(C, vf.vl // sz)
    if instr.opcode == "TSELS":
        vf.op("vdup", 1, "scalar")
    for i in range(R if C > 0 else 0):
        info = {"row": i, "elements": C, "vectors": vectors}
        vf.op("plds", vectors, f"row {i} mask", reads=(_row(m, i, ceil_div(C, 8)),), **info)
        vf.op("vlds", vectors, f"row {i} src0", reads=(_row(instr.src0, i, C * sz),), **info)
        if instr.src1 is not None:
            vf.op("vlds", vectors, f"row {i} src1", reads=(_row(instr.src1, i, C * sz),), **info)
        vf.op("vsel", vectors, f"row {i}", **info)
        vf.op("vsts", vectors, f"row {i} dst", writes=(_row(d, i, C * sz),), **info)
    return vf.steps()


PLANS = {TCmp: plan_cmp, TCmpS: plan_cmp, TSel: plan_sel, TSelS: plan_sel}
