"""A2/A3 plans of the unary element-wise instructions (vector_isa.md 3.8) and the math ops
TFMOD/TFMODS/TREM/TREMS/TPOW/TPOWS/TPRELU (3.23).

Unary (skeleton C of vector_isa.md 2.5, ``elementwise_chunks("unary", [dst, src])``): one
intrinsic per call of the skeleton: ``vexp``, ``vln``, ``vsqrt``, ``vrsqrt``, ``vabs``,
``vrelu``, ``vnot``. TNEG is ``TMULS(dst, src, -1)``: skeleton B with ``vmuls``. TNOT runs on
16-bit lanes: the tiles are planned as uint16 tiles of ``Cols*sizeof(T)/2`` columns and
``ceil(C*sizeof(T)/2)`` valid lanes per row (1-byte types: odd widths write one padding byte).
The 3-operand TRSQRT takes its high-precision path: count mode, ``vector_dup(tmp, 1.0)`` over
one block, per row ``vsqrt(dst_row, src_row)``, one ``pipe_barrier(PIPE_V)``, per row
``vdiv(dst_row, tmp, dst_row)``. TRECIP = ``TDIVS(dst, 1, src)``: floats ``vector_dup(dst, 1)``
over the skeleton-B calls, ``pipe_barrier(PIPE_V)``, ``vdiv(dst, dst, src)`` over the same
calls; integers a scalar loop on PIPE_S between the library's V->S and S->V handshakes.

Math ops (3.23), per row in count mode with ``pipe_barrier(PIPE_V)`` after every step:
TFMOD ``vdiv, vconv_f322f32z, vmul, vsub``; TFMODS ``vector_dup`` of the scalar, then the same
chain with ``vmuls``; TREM/TREMS ``vdiv, vconv_f322f32f, vmul, vsub, vmul, vcmpvs_lt, vadd,
vsel`` (int32 adds ``vconv_s322f32`` for both sources first and ``vconv_f322s32r`` last;
TREMS a ``vector_dup`` first); TPOW/TPOWS float ``vabs, vln, vmul|vmuls, vexp`` (the
magnitude, into tmp) then the scalar fix-up pass on PIPE_S between V<->S handshakes, one
UB load/compare/store per element; integer TPOW/TPOWS are a scalar loop (exponentiation by
squaring: about log2 of the largest exponent multiplications per element); TPRELU ``vmul``,
``vcmpvs_gt``, ``vsel`` over the skeleton-A calls with a barrier between stages. Which
intrinsic sequence the math ops use beyond the reference's summary (3.23) is our reading;
costs come from ``timing.vector.ops`` (``other`` for intrinsics without an entry).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptosim import dtypes as D
from ptosim.enums import Pipe
from ptosim.isa.vector.mathops import TMathBinary
from ptosim.isa.vector.unary import TRecip, TUnary

from ..costs import ceil_div, tile_region
from .reduce import row_reduce_ends_with_v_barrier
from .vec import REPEAT_BYTES, Chunk, VecStream, elementwise_chunks

# The intrinsic of the one-call-per-chunk unary ops (skeleton C; TNEG is TMULS, skeleton B).
INTRINSIC = {
    "EXP": "vexp",
    "LOG": "vln",
    "SQRT": "vsqrt",
    "RSQRT": "vrsqrt",
    "ABS": "vabs",
    "RELU": "vrelu",
    "NOT": "vnot",
    "NEG": "vmuls",
}


@dataclass(frozen=True)
class _Lanes16:
    """A tile seen as 16-bit lanes (B82B16Trait / B322B16Trait), for the skeleton."""

    address: int
    rows: int
    cols: int
    static_valid: bool
    valid_col: int
    dtype: D.DType = D.uint16


def _as_lanes16(ref, C: int) -> _Lanes16:
    sz = ref.dtype.size_bytes
    return _Lanes16(
        ref.address, ref.rows, ref.cols * sz // 2, ref.static_valid, ceil_div(C * sz, 2)
    )


def _per_row(R: int, C: int, E: int) -> list[Chunk]:
    """Count mode, one call per row over its C elements."""
    return [Chunk(ceil_div(C, E), E, True, row=r, rows=1, cols=C, per_repeat=E) for r in range(R)]


def _calls(vs: VecStream, op: str, chunks, reads, writes, **args) -> None:
    for ch in chunks:
        vs.call(
            op,
            ch,
            reads=[ch.region(t) for t in reads],
            writes=[ch.region(t) for t in writes],
            **args,
        )


def plan_unary(instr: TUnary, ctx) -> list:
    d, s = instr.dst, instr.src
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    op = INTRINSIC[instr.op]
    if instr.a2a3_chain():
        _rsqrt_high_precision(vs, instr, R, C)
    elif instr.op == "NOT":
        dl, sl = _as_lanes16(d, C), _as_lanes16(s, C)
        _calls(vs, op, elementwise_chunks("unary", [dl, sl], R, dl.valid_col), [sl], [dl])
    else:
        skeleton = "scalar" if instr.op == "NEG" else "unary"
        _calls(vs, op, elementwise_chunks(skeleton, [d, s], R, C), [s], [d])
    return vs.steps()


def _rsqrt_high_precision(vs: VecStream, instr: TUnary, R: int, C: int) -> None:
    d, s, t = instr.dst, instr.src, instr.tmp
    if R == 0 or C == 0:
        return
    E = REPEAT_BYTES // d.dtype.size_bytes
    B = d.dtype.c0
    block = Chunk(1, B, True, first=0, count=B, per_repeat=E)
    vs.call("vector_dup", block, writes=[block.region(t)], label="vector_dup tmp 1.0")
    rows = _per_row(R, C, E)
    _calls(vs, "vsqrt", rows, [s], [d])
    vs.barrier()
    for ch in rows:
        vs.call("vdiv", ch, reads=[block.region(t), ch.region(d)], writes=[ch.region(d)])


def _scalar_loop(vs: VecStream, ctx, srcs, d, R: int, C: int, per_elem: int, label: str):
    """The library's V->S handshake, one scalar step per row, then S->V."""
    if R == 0 or C == 0:
        return
    vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
    sz = d.dtype.size_bytes
    for r in range(R):
        ch = Chunk(0, 0, row=r, rows=1, cols=C)
        vs.scalar(
            C * per_elem,
            f"{label} row {r}",
            reads=[ch.region(t) for t in srcs],
            writes=[ch.region(d)],
            row=r,
            elements=C,
            bytes=C * sz * (len(srcs) + 1),
        )
    vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)


def _per_elem(ctx, loads: int, ops: int) -> int:
    s = ctx.config.timing.scalar
    return s.loop_cycles + loads * s.ub_load_cycles + ops * s.op_cycles + s.ub_store_cycles


def plan_recip(instr: TRecip, ctx) -> list:
    d, s = instr.dst, instr.src
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    if d.dtype.is_int:
        _scalar_loop(vs, ctx, [s], d, R, C, _per_elem(ctx, 1, 1), "1/src")
        return vs.steps()
    chunks = elementwise_chunks("scalar", [d, s], R, C)
    _calls(vs, "vector_dup", chunks, [], [d], scalar=1)
    if chunks:
        vs.barrier()
    _calls(vs, "vdiv", chunks, [d, s], [d])
    return vs.steps()


# -- 3.23 -------------------------------------------------------------------------------------
def _chain(vs: VecStream, rows, stages) -> None:
    """Per row, each (intrinsic, reads, writes) stage followed by pipe_barrier(PIPE_V)."""
    for ch in rows:
        for op, reads, writes in stages:
            vs.call(
                op, ch, reads=[ch.region(t) for t in reads], writes=[ch.region(t) for t in writes]
            )
            vs.barrier()


def plan_math(instr: TMathBinary, ctx) -> list:
    op = instr.op
    d, a = instr.dst, instr.src0
    b = instr.src1  # None for the scalar forms
    t = instr.tmp
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    dt = d.dtype
    E = REPEAT_BYTES // dt.size_bytes
    if R == 0 or C == 0:
        return vs.steps()
    rows = _per_row(R, C, E)
    bsrc = [b] if b is not None else []
    mul = "vmul" if b is not None else "vmuls"
    if op in ("FMOD", "FMODS"):
        if b is None:
            _calls(vs, "vector_dup", rows, [], [d], scalar=instr.scalar_value)
            vs.barrier()
            div_reads = [a, d]
        else:
            div_reads = [a, b]
        _chain(
            vs,
            rows,
            [
                ("vdiv", div_reads, [d]),
                ("vconv_f322f32z", [d], [d]),
                (mul, [d] + bsrc, [d]),
                ("vsub", [a, d], [d]),
            ],
        )
    elif op in ("REM", "REMS"):
        q = [t] if t is not None else [d]
        stages = []
        if b is None:
            stages.append(("vector_dup", [], q))
        if dt.is_int:
            stages += [("vconv_s322f32", [a], q), ("vconv_s322f32", bsrc or q, q)]
        stages += [
            ("vdiv", [a] + (bsrc or q), q),
            ("vconv_f322f32f", q, q),
            (mul, q + bsrc, q),
            ("vsub", [a] + q, [d]),
            (mul, [d] + bsrc, q),
            ("vcmpvs_lt", q, q),
            ("vadd", [d] + bsrc, q),
            ("vsel", q + [d], [d]),
        ]
        if dt.is_int:
            stages.append(("vconv_f322s32r", [d], [d]))
        _chain(vs, rows, stages)
    elif op in ("POW", "POWS"):
        srcs = [a] + bsrc
        if dt.is_int:
            per = _per_elem(ctx, len(srcs), 2 * instr.int_exponent_steps())
            _scalar_loop(vs, ctx, srcs, d, R, C, per, "pow")
            return vs.steps()
        m = [t] if t is not None else [d]
        _chain(
            vs,
            rows,
            [("vabs", [a], m), ("vln", m, m), (mul, m + bsrc, m), ("vexp", m, m)],
        )
        _scalar_loop(vs, ctx, srcs + m, d, R, C, _per_elem(ctx, len(srcs) + 1, 3), "pow fix-up")
    elif op == "PRELU":
        chunks = elementwise_chunks("binary", [d, a, b], R, C)
        _calls(vs, "vmul", chunks, [a, b], [d])
        vs.barrier()
        mask = tile_region(t)  # the compare mask (and the TSEL scratch row) in tmp
        for ch in chunks:
            vs.call("vcmpvs_gt", ch, reads=[ch.region(a)], writes=[mask])
        vs.barrier()
        for ch in chunks:
            vs.call("vsel", ch, reads=[mask, ch.region(a), ch.region(d)], writes=[ch.region(d)])
    return vs.steps()


PLANS = {TUnary: plan_unary, TRecip: plan_recip, TMathBinary: plan_math}


def ends_with_v_barrier(instr) -> bool:
    """Whether the instruction's lowering ends with ``pipe_barrier(PIPE_V)`` after its last
    vector write (plan_math's per-stage chain: TFMOD(S), TREM(S), float TPOW(S); the float row
    reductions TROWSUM/TROWMAX/TROWMIN), so the next
    vector instruction needs no barrier of its own to read its result. The cpu target's
    structural view takes the A2/A3 vector-barrier rule (checks/hazards.py) and this fact
    with it."""
    if row_reduce_ends_with_v_barrier(instr):
        return True
    if not isinstance(instr, TMathBinary):
        return False
    if instr.op in ("FMOD", "FMODS", "REM", "REMS"):
        return True
    return instr.op in ("POW", "POWS") and not instr.dst.dtype.is_int
