"""950 (a5) plans of the unary element-wise instructions (vector_isa.md 3.8) and the math ops
of 3.23, as vector functions (vector_isa.md 2.6).

One ``__VEC_SCOPE__`` per instruction: ``vf_startup``; a scalar broadcast (``vdup``) once per
VF where the op divides by a constant (TRECIP, TRSQRT: ``1``) or uses a scalar register (the
*S forms); then, if every tile is continuous (static ``ValidCol == Cols`` for all, or all
``Rows == 1``), a 1-D post-update loop over ``ceil(R*C / VLe)`` vectors, else a 2-D loop of
``ceil(C / VLe)`` vectors per row; each vector iteration is a ``vlds`` per tile source, the op
intrinsics, and a ``vsts`` (VLe = 256 B / sizeof(T)); ``vf_drain`` last.

Intrinsics: TEXP ``vexp``, TLOG ``vln``, TSQRT ``vsqrt``, TRSQRT ``vsqrt`` + ``vdiv``, TRECIP
``vdiv``, TABS ``vabs``, TNEG ``vmuls`` (TMULS by -1), TRELU ``vrelu``, TNOT ``vnot``. The
math ops are not in our a5 sources: they are planned as the a2a3 arithmetic chain in one VF
(choice): TFMOD(S) ``vdiv, vtrc, vmul|vmuls, vsub``; TREM(S) ``vdiv, vfloor, vmul, vsub, vmul,
vcmps_lt, vadd, vsel`` (int32: a ``vcvt`` per source and one back); TPOW(S) floats ``vabs,
vln, vmul|vmuls, vexp`` plus the special-case fix-ups as ``vcmps`` + ``vsel`` pairs for
negative, zero and non-finite operands (three pairs), integers ``vmul`` per squaring step
(bit width of T for TPOW, of the scalar for TPOWS) twice; TPRELU ``vmul, vcmps_gt, vsel``.
Intrinsics without a cost entry use ``timing.vector.ops.other``.
"""

from __future__ import annotations

from ptosim.isa.vector.mathops import TMathBinary
from ptosim.isa.vector.unary import TRecip, TUnary
from ptosim.plan import Region, Step

from ..costs import ceil_div
from .vf import VectorFunction

UNARY = {
    "EXP": ("vexp",),
    "LOG": ("vln",),
    "SQRT": ("vsqrt",),
    "RSQRT": ("vsqrt", "vdiv"),
    "ABS": ("vabs",),
    "NEG": ("vmuls",),
    "RELU": ("vrelu",),
    "NOT": ("vnot",),
}


def _continuous(ref) -> bool:
    return ref.rows == 1 or (ref.static_valid and ref.valid_col == ref.cols)


def _span(ref, first: int, end: int) -> Region:
    sz = ref.dtype.size_bytes
    return Region("UB", ref.address + first * sz, ref.address + max(end, first) * sz)


def elementwise_vf(ctx, d, srcs, ops, *, scalars: int = 0) -> list[Step]:
    """The VF of an element-wise instruction over dst's valid region (module docstring)."""
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    if R == 0 or C == 0:
        return vf.steps()
    if scalars:
        vf.op("vdup", scalars, "scalar")
    vle = vf.vl // d.dtype.size_bytes
    if all(_continuous(t) for t in (d, *srcs)):
        n = ceil_div(R * C, vle)
        info = {"path": "1d", "rows": R, "elements": R * C, "vectors": n}
        for s in srcs:
            vf.op("vlds", n, s.name, reads=(_span(s, 0, R * C),), **info)
        for op in ops:
            vf.op(op, n, "all", **info)
        vf.op("vsts", n, d.name, writes=(_span(d, 0, R * C),), **info)
        return vf.steps()
    per_row = ceil_div(C, vle)
    for i in range(R):
        info = {"path": "2d", "row": i, "elements": C, "vectors": per_row}
        for s in srcs:
            row = _span(s, i * s.cols, i * s.cols + C)
            vf.op("vlds", per_row, f"row {i} {s.name}", reads=(row,), **info)
        for op in ops:
            vf.op(op, per_row, f"row {i}", **info)
        row = _span(d, i * d.cols, i * d.cols + C)
        vf.op("vsts", per_row, f"row {i} {d.name}", writes=(row,), **info)
    return vf.steps()


def plan_unary(instr: TUnary, ctx) -> list[Step]:
    ops = UNARY[instr.op]
    return elementwise_vf(ctx, instr.dst, [instr.src], ops, scalars=int(instr.op == "RSQRT"))


def plan_recip(instr: TRecip, ctx) -> list[Step]:
    return elementwise_vf(ctx, instr.dst, [instr.src], ("vdiv",), scalars=1)


def _math_ops(instr: TMathBinary) -> tuple[str, ...]:
    mul = "vmuls" if instr.src1 is None else "vmul"
    base, dt = instr.base, instr.dst.dtype
    if base == "FMOD":
        return ("vdiv", "vtrc", mul, "vsub")
    if base == "REM":
        core = ("vdiv", "vfloor", mul, "vsub", mul, "vcmps_lt", "vadd", "vsel")
        return ("vcvt",) * 2 + core + ("vcvt",) if dt.is_int else core
    if base == "POW":
        if dt.is_int:
            return ("vmul",) * (2 * instr.int_exponent_steps())
        return ("vabs", "vln", mul, "vexp") + ("vcmps", "vsel") * 3
    return ("vmul", "vcmps_gt", "vsel")  # PRELU


def plan_math(instr: TMathBinary, ctx) -> list[Step]:
    srcs = [instr.src0] + ([instr.src1] if instr.src1 is not None else [])
    scalars = int(instr.src1 is None)
    return elementwise_vf(ctx, instr.dst, srcs, _math_ops(instr), scalars=scalars)


PLANS = {TUnary: plan_unary, TRecip: plan_recip, TMathBinary: plan_math}
