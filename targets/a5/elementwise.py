"""950 (a5) plans of the element-wise tile-tile and tile-scalar instructions (vector_isa.md
2.6, 3.3, 3.4).

Each instruction is one vector function (``VectorFunction``: vf_startup, loops, vf_drain) on
PIPE_V, no flags or barriers inside. When every tile is continuous (a static valid width equal
to Cols for all of them, or all with Rows == 1) the body is the **1-D** post-update loop over
``ceil(R*C / VLe)`` vectors (VLe = 256 B / sizeof(T)); otherwise the **2-D** loop: per row,
``ceil(C / VLe)`` vectors (one loop step per row: the loop restarts per row and pays its head
again).

Per vector: tile-tile = 2 ``vlds`` + the op + 1 ``vsts`` (vadd, vsub, vmul, vdiv, vmax, vmin,
vand, vor, vxor, vshl, vshr; TXOR ignores tmp); tile-scalar = 1 ``vlds`` + the op + 1 ``vsts``
(vadds, vmuls, vmaxs, vmins, vlrelu take the scalar register; TSUBS is vadds of the negated
scalar). Choices (no a5 kernel text in our sources for them): TDIVS, TANDS, TORS, TXORS, TSHLS
and TSHRS broadcast the scalar once per VF (``vdup``) and use the tile-tile intrinsic (vdiv,
vand, vor, vxor, vshl, vshr); TAXPY loads dst too (2 ``vlds`` + vaxpy + vsts per vector; the
float32 <- half form counts vectors of float32 dst). 64-bit types (the ``Int64Binary`` helper
loops) are costed as 32 lanes per vector.
"""

from __future__ import annotations

from ptosim.isa.vector.binary import TBinary
from ptosim.isa.vector.scalar import TAxpy, TBinaryScalar
from ptosim.plan import Step

from ..costs import ceil_div
from .vector import _row, _rows
from .vf import VectorFunction

BINARY_INTRINSICS = {
    "ADD": "vadd",
    "SUB": "vsub",
    "MUL": "vmul",
    "DIV": "vdiv",
    "MAX": "vmax",
    "MIN": "vmin",
    "AND": "vand",
    "OR": "vor",
    "XOR": "vxor",
    "SHL": "vshl",
    "SHR": "vshr",
}
# tile-scalar: (intrinsic, needs the scalar broadcast into a vector register by vdup)
SCALAR_INTRINSICS = {
    "TADDS": ("vadds", False),
    "TSUBS": ("vadds", False),
    "TMULS": ("vmuls", False),
    "TMAXS": ("vmaxs", False),
    "TMINS": ("vmins", False),
    "TLRELU": ("vlrelu", False),
    "TDIVS": ("vdiv", True),
    "TANDS": ("vand", True),
    "TORS": ("vor", True),
    "TXORS": ("vxor", True),
    "TSHLS": ("vshl", True),
    "TSHRS": ("vshr", True),
}


def one_d(tiles) -> bool:
    """The 1-D post-update path: all tiles statically continuous, or all single-row."""
    return all(t.static_valid and t.valid_col == t.cols for t in tiles) or all(
        t.rows == 1 for t in tiles
    )


def _vf(ctx, op: str, d, ins, *, dup: bool = False) -> list[Step]:
    """The loops of one element-wise VF: ``len(ins)`` vlds, ``op``, vsts per vector."""
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    if R == 0 or C == 0:
        return vf.steps()
    vle = vf.vl // d.dtype.size_bytes
    if dup:
        vf.op("vdup", 1, "scalar")
    if one_d([d, *ins]):
        n = ceil_div(R * C, vle)
        info = {"path": "1d", "rows": R, "elements": R * C, "vectors": n}
        vf.op("vlds", len(ins) * n, "src", reads=[_rows(t, R, C) for t in ins], **info)
        vf.op(op, n, "all", **info)
        vf.op("vsts", n, "dst", writes=(_rows(d, R, C),), **info)
        return vf.steps()
    per_row = ceil_div(C, vle)
    for i in range(R):
        info = {"path": "2d", "row": i, "elements": C, "vectors": per_row}
        reads = [_row(t, i, 0, C) for t in ins]
        vf.op("vlds", len(ins) * per_row, f"row {i}", reads=reads, **info)
        vf.op(op, per_row, f"row {i}", **info)
        vf.op("vsts", per_row, f"row {i}", writes=(_row(d, i, 0, C),), **info)
    return vf.steps()


def plan_binary(instr: TBinary, ctx) -> list[Step]:
    return _vf(ctx, BINARY_INTRINSICS[instr.op], instr.dst, [instr.src0, instr.src1])


def plan_scalar(instr: TBinaryScalar, ctx) -> list[Step]:
    op, dup = SCALAR_INTRINSICS[instr.name]
    return _vf(ctx, op, instr.dst, [instr.src], dup=dup)


def plan_axpy(instr: TAxpy, ctx) -> list[Step]:
    return _vf(ctx, "vaxpy", instr.dst, [instr.src, instr.dst])


PLANS = {TBinary: plan_binary, TBinaryScalar: plan_scalar, TAxpy: plan_axpy}
