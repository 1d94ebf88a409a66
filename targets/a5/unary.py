"""950 (a5) plans of the unary element-wise instructions (vector_isa.md 3.8) and the math ops
of 3.23, as vector functions (vector_isa.md 2.6).

One ``__VEC_SCOPE__`` per instruction: ``vf_startup``; a scalar broadcast (``vdup``) once per
VF where the op divides by a constant (TRECIP, TRSQRT: ``1``) or uses a scalar register (the
*S forms); then, if every tile is continuous (static ``ValidCol == Cols`` for all, or all
``Rows == 1``), a 1-D post-update loop over ``ceil(R*C / VLe)`` vectors, else a 2-D loop of
``ceil(C / VLe)`` vectors per row; each vector iteration is a ``vlds`` per tile source, the op
intrinsics, and a ``vsts`` (VLe = 256 B / sizeof(T)); ``vf_drain`` last.

Intrinsics: TEXP ``vexp``, TLOG ``vln``, TSQRT ``vsqrt``, TRSQRT ``vsqrt`` + ``vdiv``, TRECIP
``vdiv``, TABS ``vabs``, TNEG ``vmuls`` (TMULS by -1), TRELU ``vrelu``, TNOT ``vnot``.

TFMOD(S)/TREM(S), the ``npu/a5`` bodies per vector (``remainder_ops``): float32 ``vdiv, vtrc,
vmul|vmuls, vsub`` (TREM adds ``vmul, vcmps_lt, vadd, vsel``); half the same in float32 for the
even and the odd lanes (a ``vcvt`` per source and one back each) and a ``vor``; 16/32-bit
integers ``vdiv, vmul|vmuls, vsub`` (FMOD) or ``vmod`` (REM); 64-bit TREM(S) costed as ``vdiv,
vmul, vsub, vcmp, vsel`` on 64-bit lanes (an estimate: the Int64Div long division is not
itemised); float32 ``HIGH_PRECISION`` the TFmodRemHP sequence (``hp_ops``, 117 intrinsics for
FMOD). The S forms broadcast the scalar once (``vdup``).

TPOW(S) (npu/a5/TPow.hpp, ``pow_ops``): floats ``vabs, vln, vmul, vexp`` (HIGH_PRECISION: the
49 intrinsics of its extended log and exp) plus the 36 of the special-case pass, half with a
``vcvt`` in and a ``vcvt`` + ``vpack`` out; integers six intrinsics per squaring step, as many
steps as the bits of T widened to at least 16 (TPOWS too), and the 0/1 fix-up. TPRELU is not in
our a5 sources: planned as the a2a3 chain in one VF (choice), ``vmul, vcmps_gt, vsel``.
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


_SIGN_BIT = ("vdup", "vshrs", "vand", "vcvt")  # GetSignBit
_SIGN_FIX = ("vmul", "vcmps_lt", "vadd", "vsel")  # TREM: add b where b * r < 0


def hp_ops(fmod: bool) -> tuple[str, ...]:
    """The intrinsics of TFmodRemHP per vector (npu/a5/custom/TFmodRemHp.hpp)."""
    ops = ["vdup", "vabs", "vabs"]
    for step in range(11, 1, -1):  # SolveScale: two scalings above step 5
        ops += ["vmuls"] * (2 if step > 5 else 1) + ["vdiv", "vtrc", "vmins", "vneg", "vmula"]
    ops += ["vcmps_le", "vmuls", "vsel", "vmuls", "vsel", "vdiv", "vtrc", "vneg", "vmula"]
    ops += [*_SIGN_BIT, "vmul", "vadd"]  # step 1's signbit fix
    ops += [*_SIGN_BIT, "vmuls", "vadds", "vmul"]  # a's sign
    ops += ["vcmps_le", "vmuls", "vsel", "vmuls", "vsel"]  # undo the subnormal scaling
    ops += ["vcmps_eq", "vsel"] * 2 + ["vcmps_eq"] * 2 + ["por"] * 2 + ["pand", "vsel"]
    ops += ["vcmps_eq"] * 2 + ["por", "vcmps_ne", "vcmps_ne", "vcmp_ne", "pnot", "por"]
    ops += ["pand", "pand", "vsel"]  # SolveExceptionScenarios
    return tuple(ops) + (() if fmod else _SIGN_FIX)


def remainder_ops(instr: TMathBinary) -> tuple[str, ...]:
    """The intrinsics per vector of a5 TFMOD(S)/TREM(S) (module docstring)."""
    mul = "vmuls" if instr.src1 is None else "vmul"
    fmod, dt = instr.base == "FMOD", instr.dst.dtype
    fix = () if fmod or instr.src1 is None else _SIGN_FIX
    if dt.is_int:
        if fmod:
            return ("vdiv", mul, "vsub")
        return ("vdiv", "vmul", "vsub", "vcmp", "vsel") if dt.size_bytes == 8 else ("vmod",)
    if instr.algorithm == "HIGH_PRECISION" and dt.size_bytes == 4:
        return hp_ops(fmod)
    chain = ("vdiv", "vtrc", mul, "vsub")
    if dt.size_bytes == 4:
        return chain + fix
    part = ("vcvt", "vcvt") + chain + ("vcvt",)  # one half of the lanes in float32
    return part + part + ("vor",) + fix


# npu/a5/TPow.hpp per vector: ProcessFloatSpecialCase, the high-precision log (steps one and
# two) and exp, and one squaring step of the integer loop (its count: the bits of the widened T)
_POW_SPECIAL = (
    ("vcmps_eq", "vcmps_eq", "por", "vdup", "pnot", "vcmp_ne", "vcmp_ne", "por", "vdup", "pxor")
    + ("vand", "vcmps_eq", "vcmps_eq", "por", "vcmps_lt", "vxor", "vsel", "vand")
    + ("vmuls", "vtrc", "vmadd", "vcmps_eq", "vsel", "vsel", "pxor", "vneg", "vsel", "vtrc")
    + ("vcmp_ne", "vdup", "vcmps_lt", "vsel", "vand", "vcmps_eq", "vcmps_eq", "vdup")
)  # fmt: skip
_POW_HP_LOG = (
    ("vabs", "vcmps_lt", "vmuls", "vsel", "vsub", "vand", "vsub", "vcvt", "vaxpy", "vadds")
    + ("vadds", "vdiv", "vmul", "vmuls", "vadd", "vneg", "vmadd", "vmul", "vmul", "vaxpy")
    + ("vmadd", "vmadd", "vmul", "vadd", "vadd", "vmuls", "vadd", "vaxpy", "vsub", "vmadd")
    + ("vmuls", "vmula", "vaxpy", "vadd", "vadd", "vsub", "vadd")
)  # fmt: skip
_POW_HP_EXP = ("vmul", "vneg", "vmula", "vmula", "vexp", "vmula", "vcmps_ge", "vdup")
_POW_HP_EXP += ("vcmps_ge", "vcmps_lt", "por", "vsel")
_POW_INT_STEP = ("vand", "vcmps_eq", "vmul", "vsel", "vshrs", "vmul")


def pow_ops(instr: TMathBinary) -> tuple[str, ...]:
    """The intrinsics per vector of a5 TPOW(S) (npu/a5/TPow.hpp)."""
    dt = instr.dst.dtype
    if dt.is_int:
        widened_bits = 8 * max(2, dt.size_bytes)
        return _POW_INT_STEP * widened_bits + ("vcmps_eq", "vcmps_eq", "por", "vsel")
    cvt = ("vcvt", "vcvt", "vpack") if dt.size_bytes == 2 else ()  # half in and out
    if instr.algorithm == "HIGH_PRECISION":
        core = _POW_HP_LOG + _POW_HP_EXP
    else:
        core = ("vabs", "vln", "vmul", "vexp")
    return cvt + core + _POW_SPECIAL


def _math_ops(instr: TMathBinary) -> tuple[str, ...]:
    base = instr.base
    if base in ("FMOD", "REM"):
        return remainder_ops(instr)
    if base == "POW":
        return pow_ops(instr)
    return ("vmul", "vcmps_gt", "vsel")  # PRELU


def plan_math(instr: TMathBinary, ctx) -> list[Step]:
    srcs = [instr.src0] + ([instr.src1] if instr.src1 is not None else [])
    scalars = int(instr.src1 is None)
    return elementwise_vf(ctx, instr.dst, srcs, _math_ops(instr), scalars=scalars)


PLANS = {TUnary: plan_unary, TRecip: plan_recip, TMathBinary: plan_math}
