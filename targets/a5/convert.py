"""950 (a5) plan of TCVT (vector_isa.md 3.7, 2.6).

One ``__VEC_SCOPE__``: a 1-D post-update loop when both tiles are continuous (static
``ValidCol == Cols`` or ``Rows == 1``), else a 2-D loop per row. One iteration handles one vector
of the wider element type (``256 / max(sizeof S, sizeof D)`` elements): ``vlds`` of the source,
``vcvt``, ``vsts`` of the destination (the part/pack moves of a size change are folded into the
``vcvt`` step: their cost is not separately known). The saturation and rounding are fields of
``vcvt`` (no control intrinsics); ``tmp`` is ignored.
"""

from __future__ import annotations

from ptosim.isa.vector.convert import TCvt
from ptosim.isa.vector.quant import TCi, TDequant, TQuant
from ptosim.plan import Region, Step

from ..costs import ceil_div
from .vf import VectorFunction


def _continuous(ref) -> bool:
    return ref.rows == 1 or (ref.static_valid and ref.valid_col == ref.cols)


def _rows(ref, r0: int, n: int, cols: int) -> Region:
    sz = ref.dtype.size_bytes
    start = ref.address + r0 * ref.cols * sz
    if n <= 0 or cols <= 0:
        return Region("UB", start, start)
    return Region("UB", start, start + ((n - 1) * ref.cols + cols) * sz)


def plan_tcvt(instr: TCvt, ctx) -> list[Step]:
    d, s = instr.dst, instr.src
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    per_vec = vf.vl // max(d.dtype.size_bytes, s.dtype.size_bytes)
    if R == 0 or C == 0:
        return vf.steps()
    info = {"pair": f"{s.dtype.name}->{d.dtype.name}", "elements": C}
    if _continuous(d) and _continuous(s):
        n = ceil_div(R * C, per_vec)
        info.update(path="1d", rows=R, vectors=n)
        vf.op("vlds", n, "src", reads=(_rows(s, 0, R, C),), **info)
        vf.op("vcvt", n, "rows", **info)
        vf.op("vsts", n, "dst", writes=(_rows(d, 0, R, C),), **info)
        return vf.steps()
    n = ceil_div(C, per_vec)
    for i in range(R):
        row = {**info, "path": "2d", "row": i, "vectors": n}
        vf.op("vlds", n, f"row {i} src", reads=(_rows(s, i, 1, C),), **row)
        vf.op("vcvt", n, f"row {i}", **row)
        vf.op("vsts", n, f"row {i} dst", writes=(_rows(d, i, 1, C),), **row)
    return vf.steps()


PLANS = {TCvt: plan_tcvt}


# -- TQUANT / TDEQUANT / TCI ----------------------------------------------------------------
def _per_row(ctx, d, src, ops: tuple[str, ...], *, params=0) -> list[Step]:
    """Per row: ``params`` broadcast loads, ``vlds`` src, the ops, ``vsts`` dst (a vector =
    256 bytes of the wider type)."""
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    per_vec = vf.vl // max(d.dtype.size_bytes, src.dtype.size_bytes)
    n = ceil_div(C, per_vec)
    for i in range(R if C > 0 else 0):
        info = {"row": i, "elements": C, "vectors": n}
        if params:
            vf.op("vbr", params, f"row {i} params", **info)
        vf.op("vlds", n, f"row {i} src", reads=(_rows(src, i, 1, C),), **info)
        for op in ops:
            vf.op(op, n, f"row {i}", **info)
        vf.op("vsts", n, f"row {i} dst", writes=(_rows(d, i, 1, C),), **info)
    return vf.steps()


def plan_tquant(instr: TQuant, ctx) -> list[Step]:
    asym = instr.quant == "INT8_ASYM"
    ops = ("vmul", "vadd", "vcvt") if asym else ("vmul", "vcvt")
    return _per_row(ctx, instr.dst, instr.src, ops, params=2 if asym else 1)


def plan_tdequant(instr: TDequant, ctx) -> list[Step]:
    return _per_row(ctx, instr.dst, instr.src, ("vcvt", "vsub", "vmul"), params=2)


def plan_tci(instr: TCi, ctx) -> list[Step]:
    d = instr.dst
    C = d.valid_col if d.valid_row else 0
    vf = VectorFunction(ctx, d.dtype)
    n = ceil_div(C, vf.vl // d.dtype.size_bytes)
    vf.op("vci", n, "indices", elements=C)
    vf.op("vsts", n, "dst", writes=(_rows(d, 0, 1, C),), elements=C)
    return vf.steps()


PLANS.update({TQuant: plan_tquant, TDequant: plan_tdequant, TCi: plan_tci})
