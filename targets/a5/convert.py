"""950 (a5) plan of TCVT (vector_isa.md 3.7, 2.6).

One ``__VEC_SCOPE__``: a 1-D post-update loop when both tiles are continuous (static
``ValidCol == Cols`` or ``Rows == 1``), else a 2-D loop per row. One iteration handles one vector
of the wider element type (``256 / max(sizeof S, sizeof D)`` elements): ``vlds`` of the source,
``vcvt``, ``vsts`` of the destination (the part/pack moves of a size change are folded into the
``vcvt`` step: their cost is not separately known). The saturation and rounding are fields of
``vcvt`` (no control intrinsics); ``tmp`` is ignored.
"""

from __future__ import annotations

from ptosim.isa.tmov_zz import TMovNdToZz
from ptosim.isa.vector.convert import TCvt
from ptosim.isa.vector.mxquant import GROUP, TQuantMx
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


def _flat(ref, size_bytes: int) -> Region:
    return Region("UB", ref.address, ref.address + size_bytes)


def plan_tquant_mx(instr: TQuantMx, ctx) -> list[Step]:
    """npu/a5 TQuant.hpp's three passes over valid_row x Cols source elements, one vector of
    the source type per step: the group maxima (``vlds``, ``vabs``, ``vmax``, ``vcmax``, stored),
    the exponents and scalings (``vand``, ``vsub``, ``vsel`` per vector of groups), then
    ``vmul`` and ``vcvt`` into dst. The zero-pad pass of 16-bit sources is not priced (an
    estimate: its cost is not separately known)."""
    s, d = instr.src, instr.dst
    n_elem = s.valid_row * s.cols
    groups = n_elem // GROUP
    vf = VectorFunction(ctx, s.dtype)
    vectors = ceil_div(n_elem * s.dtype.size_bytes, vf.vl)
    group_vectors = ceil_div(groups * s.dtype.size_bytes, vf.vl)
    info = {"elements": n_elem, "groups": groups}
    src = _flat(s, n_elem * s.dtype.size_bytes)
    side = groups * s.dtype.size_bytes
    vf.op("vlds", vectors, "src (max)", reads=(src,), **info)
    for op in ("vabs", "vmax", "vcmax"):
        vf.op(op, vectors, "group max", **info)
    vf.op("vsts", group_vectors, "group max", writes=(_flat(instr.group_max, side),), **info)
    for op in ("vand", "vsub", "vsel"):
        vf.op(op, group_vectors, "exponent", **info)
    exp_bytes = groups if instr.exp.rows == 1 else instr.exp.rows * instr.exp.cols
    vf.op("vsts", group_vectors, "exp", writes=(_flat(instr.exp, exp_bytes),), **info)
    vf.op("vsts", group_vectors, "scaling", writes=(_flat(instr.scaling, side),), **info)
    vf.op("vlds", vectors, "src (quantise)", reads=(src,), **info)
    vf.op("vmul", vectors, "scale", **info)
    vf.op("vcvt", vectors, "encode", **info)
    dst_bytes = n_elem // 2 if d.dtype.bits == 4 else n_elem
    vf.op("vsts", ceil_div(dst_bytes, vf.vl), "dst", writes=(_flat(d, dst_bytes),), **info)
    return vf.steps()


def plan_tmov_nd_to_zz(instr: TMovNdToZz, ctx) -> list[Step]:
    """npu/a5 TMov.hpp TMovNdTo2Zz: the index tables (``vci``, ``vmuls``, stores into tmp), the
    zeroing of the source rows up to the 16-row boundary (not priced: at most one ``vsts``),
    then per vector of 8 boxes ``vlds`` of the offsets, ``vadd``, ``vgather2``, ``vsts``."""
    d = instr.dst
    R, G = d.valid
    boxes = -(-R // 16) * (G // 2)
    vf = VectorFunction(ctx, "uint16")
    vectors = ceil_div(boxes, 8)
    info = {"boxes": boxes}
    vf.op("vci", 1 + ceil_div(R, 16), "index tables", **info)
    vf.op("vmuls", 1, "index tables", **info)
    vf.op("vsts", 2 + ceil_div(R, 16), "index tables", writes=(_flat(instr.tmp, 2 * (boxes + 32)),))
    vf.op("vlds", vectors + 1, "offsets", **info)
    vf.op("vadd", vectors, "indices", **info)
    vf.op("vgather2", vectors, "gather", reads=(_flat(instr.src, -(-R // 16) * 16 * G),), **info)
    vf.op("vsts", vectors, "dst", writes=(_flat(d, boxes * 32),), **info)
    return vf.steps()


PLANS.update(
    {
        TQuant: plan_tquant,
        TQuantMx: plan_tquant_mx,
        TDequant: plan_tdequant,
        TCi: plan_tci,
        TMovNdToZz: plan_tmov_nd_to_zz,
    }
)
