"""A2/A3 plans of the element-wise tile-tile and tile-scalar instructions (vector_isa.md 3.3,
3.4), on the skeletons of ``vec.py`` (2.5 A for tile-tile, B for tile-scalar, C for vnot).

Tile-tile (``TBinary``):

* TADD/TSUB/TMUL/TDIV/TMAX/TMIN: skeleton A with vadd/vsub/vmul/vdiv/vmax/vmin.
* TAND/TOR: skeleton A with vand/vor on 16-bit lanes: the tiles are seen as uint16 tiles of
  ``Cols*sizeof(T)/2`` columns and ``ceil(C*sizeof(T)/2)`` valid lanes (a 1-byte tile with an
  odd C writes one padding byte per row, as the semantics model).
* TXOR: ``vor(tmp, src0, src1)``, barrier, ``vand(dst, src0, src1)``, barrier, ``vnot(dst,
  dst)`` (skeleton C), barrier, ``vand(dst, dst, tmp)``, all on 16-bit lanes.
* TSHL/TSHR: a scalar loop: ``set/wait_flag(V, S)``, one PIPE_S step per row (per element two
  UB loads, the shift, a UB store and the loop branch; each step declares the row bytes it
  reads and writes, so the hazard checker sees the scalar UB writes), ``set/wait_flag(S, V)``.

Tile-scalar (``TBinaryScalar``, ``TAxpy``):

* TADDS/TSUBS (vadds, the negated scalar)/TMULS/TMAXS/TMINS/TLRELU/TSHLS/TSHRS and same-type
  TAXPY: skeleton B with vadds/vmuls/vmaxs/vmins/vlrelu/vshl/vshr/vaxpy.
* TDIVS float: ``src / s`` in place is one vmuls pass (reciprocal); otherwise (and ``s / src``)
  ``vector_dup`` of the scalar into dst (same chunks), barrier, ``vdiv``. Integer TDIVS: the
  scalar loop above (one UB load per element).
* TANDS/TORS: TEXPANDS(dst, s) as count-mode ``vector_dup`` on 16-bit lanes (one call over
  the whole run for a continuous tile or a single row, else one call per row), barrier, then
  ``vand/vor(dst, src, dst)`` on 16-bit lanes (skeleton A). TXORS: TORS(tmp, src, s), barrier,
  TANDS(dst, src, s), barrier, vnot(dst, dst), barrier, vand(dst, dst, tmp).
* TAXPY float32 <- half: vaxpy with E = 64 (8 dst blocks, 4 src blocks per repeat): per row in
  count mode when a repeat stride (dst Cols/8, src Cols/16 blocks) exceeds 255 or C/64 > R,
  else rows as repeats (<= 255 per call) per 64-column chunk, then the masked tail chunk.
  (Choice: the TEXPANDS "fills R*C consecutive elements" quirk of vector_isa.md 3.10 is not
  modelled inside TANDS/TORS/TXORS; the dup covers the valid region, like the semantics.)

Costs: ``targets/costs.vector_cycles`` (head + slope x repeats, tail where the stream drains,
the partial-mask floor for count mode and partial masks); scalar steps from ``timing.scalar``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ptosim import dtypes as D
from ptosim.enums import Pipe
from ptosim.isa.vector.binary import BITWISE, SHIFTS, TBinary
from ptosim.isa.vector.scalar import TAxpy, TBinaryScalar
from ptosim.plan import Region, Step

from ..costs import ceil_div
from .vec import REPEAT_BYTES, REPEAT_MAX, Chunk, VecStream, elementwise_chunks

BINARY_INTRINSICS = {
    "ADD": "vadd",
    "SUB": "vsub",
    "MUL": "vmul",
    "DIV": "vdiv",
    "MAX": "vmax",
    "MIN": "vmin",
    "AND": "vand",
    "OR": "vor",
}
SCALAR_INTRINSICS = {
    "TADDS": "vadds",
    "TSUBS": "vadds",  # the scalar negated through float (isa/vector/scalar.py)
    "TMULS": "vmuls",
    "TMAXS": "vmaxs",
    "TMINS": "vmins",
    "TLRELU": "vlrelu",
    "TSHLS": "vshl",
    "TSHRS": "vshr",
}


@dataclass(frozen=True)
class Lanes16:
    """A 1/2/4-byte tile seen as a uint16 tile (the a2a3 bitwise ops run on 16-bit lanes)."""

    address: int
    rows: int
    cols: int
    valid_col: int
    static_valid: bool
    dtype: D.DType = D.uint16


def lanes16(ref, C: int) -> tuple[Lanes16, int]:
    """``ref`` as 16-bit lanes and the lane count of a valid width C."""
    sz = ref.dtype.size_bytes
    lanes = ceil_div(C * sz, 2)
    vc = ceil_div(ref.valid_col * sz, 2)
    return Lanes16(ref.address, ref.rows, ref.cols * sz // 2, vc, ref.static_valid), lanes


def _calls(vs: VecStream, op: str, skeleton: str, out, ins, R: int, C: int) -> None:
    """One intrinsic over the chunks of ``skeleton`` (``out`` first, then the sources)."""
    for ch in elementwise_chunks(skeleton, [out, *ins], R, C):
        vs.call(
            op,
            ch,
            reads=[ch.region(t) for t in ins],
            writes=[ch.region(out)],
            label=f"{op} x{ch.repeats}",
        )


def _dup16(vs: VecStream, t16: Lanes16, R: int, lanes: int) -> None:
    """TEXPANDS on 16-bit lanes: count-mode vector_dup over the run, or per row."""
    E = REPEAT_BYTES // 2
    continuous = t16.rows == 1 or (t16.static_valid and t16.valid_col == t16.cols) or R == 1
    if continuous:
        chunks = [Chunk(ceil_div(R * lanes, E), E, True, count=R * lanes, per_repeat=E)]
    else:
        chunks = [
            Chunk(ceil_div(lanes, E), E, True, row=r, rows=1, cols=lanes, per_repeat=E)
            for r in range(R)
        ]
    for ch in chunks:
        vs.call("vector_dup", ch, writes=[ch.region(t16)], label=f"vector_dup x{ch.repeats}")


def _row_bytes(ref, r: int, C: int) -> Region:
    sz = ref.dtype.size_bytes
    start = ref.address + r * ref.cols * sz
    return Region("UB", start, start + C * sz)


def _scalar_loop(vs: VecStream, ctx, label: str, out, ins, R: int, C: int) -> None:
    """The library's scalar element loop between V->S and S->V handshakes, one step per row."""
    s = ctx.config.timing.scalar
    per_element = len(ins) * s.ub_load_cycles + s.op_cycles + s.ub_store_cycles + s.loop_cycles
    vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
    for r in range(R):
        vs.scalar(
            C * per_element + s.loop_cycles,
            f"{label} row {r}",
            reads=[_row_bytes(t, r, C) for t in ins],
            writes=[_row_bytes(out, r, C)],
            row=r,
            elements=C,
        )
    vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)


def _bitwise(vs: VecStream, op: str, d, s0, s1, tmp, R: int, C: int) -> None:
    """TAND/TOR/TXOR on 16-bit lanes; ``s1`` None = the scalar forms (dup into dst/tmp)."""
    d16, lanes = lanes16(d, C)
    a16 = lanes16(s0, C)[0]
    if op == "XOR":
        t16 = lanes16(tmp, C)[0]
        if s1 is None:  # TORS(tmp, src, s); TANDS(dst, src, s)
            _bitwise(vs, "OR", tmp, s0, None, None, R, C)
            vs.barrier()
            _bitwise(vs, "AND", d, s0, None, None, R, C)
        else:
            b16 = lanes16(s1, C)[0]
            _calls(vs, "vor", "binary", t16, [a16, b16], R, lanes)
            vs.barrier()
            _calls(vs, "vand", "binary", d16, [a16, b16], R, lanes)
        vs.barrier()
        _calls(vs, "vnot", "unary", d16, [d16], R, lanes)
        vs.barrier()
        _calls(vs, "vand", "binary", d16, [d16, t16], R, lanes)
        return
    if s1 is None:  # TEXPANDS(dst, s); barrier; TAND/TOR(dst, src, dst)
        _dup16(vs, d16, R, lanes)
        vs.barrier()
        b16 = d16
    else:
        b16 = lanes16(s1, C)[0]
    _calls(vs, BINARY_INTRINSICS[op], "binary", d16, [a16, b16], R, lanes)


def plan_binary(instr: TBinary, ctx) -> list[Step]:
    d, s0, s1 = instr.dst, instr.src0, instr.src1
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return []
    if instr.op in SHIFTS:
        _scalar_loop(vs, ctx, instr.opcode, d, [s0, s1], R, C)
    elif instr.op in BITWISE:
        _bitwise(vs, instr.op, d, s0, s1, instr.tmp, R, C)
    else:
        _calls(vs, BINARY_INTRINSICS[instr.op], "binary", d, [s0, s1], R, C)
    return vs.steps()


def plan_scalar(instr: TBinaryScalar, ctx) -> list[Step]:
    d, s = instr.dst, instr.src
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return []
    if instr.op == "DIV":
        path = instr.a2a3_path()
        if path == "scalar":
            _scalar_loop(vs, ctx, instr.opcode, d, [s], R, C)
        elif path == "vmuls":  # in place src / s: multiply by the rounded reciprocal
            _calls(vs, "vmuls", "scalar", d, [s], R, C)
        else:  # vector_dup(dst, s); barrier; vdiv(dst, src, dst) or vdiv(dst, dst, src)
            _calls(vs, "vector_dup", "scalar", d, [], R, C)
            vs.barrier()
            _calls(vs, "vdiv", "scalar", d, [d, s] if instr.reverse else [s, d], R, C)
    elif instr.op in BITWISE:
        _bitwise(vs, instr.op, d, s, None, instr.tmp, R, C)
    else:
        _calls(vs, SCALAR_INTRINSICS[instr.name], "scalar", d, [s], R, C)
    return vs.steps()


def _axpy_mixed_chunks(d, s, R: int, C: int) -> list[Chunk]:
    """vaxpy float32 <- half: per-row count mode, or rows as repeats per 64-column chunk."""
    E = REPEAT_BYTES // d.dtype.size_bytes
    count = d.cols // d.dtype.c0 > REPEAT_MAX or s.cols // s.dtype.c0 > REPEAT_MAX or C // E > R
    if count:
        return [
            Chunk(ceil_div(C, E), E, True, row=r, rows=1, cols=C, per_repeat=E) for r in range(R)
        ]
    out = []
    head, tail = divmod(C, E)
    for r0 in range(0, R, REPEAT_MAX):
        n = min(REPEAT_MAX, R - r0)
        out += [Chunk(n, E, row=r0, rows=n, col=k * E, cols=E) for k in range(head)]
        if tail:
            out.append(Chunk(n, tail, row=r0, rows=n, col=head * E, cols=tail))
    return [replace(c, per_repeat=E) for c in out]


def plan_axpy(instr: TAxpy, ctx) -> list[Step]:
    d, s = instr.dst, instr.src
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return []
    if not instr.mixed:
        _calls(vs, "vaxpy", "scalar", d, [s, d], R, C)
        return vs.steps()
    for ch in _axpy_mixed_chunks(d, s, R, C):
        vs.call(
            "vaxpy",
            ch,
            reads=[ch.region(s), ch.region(d)],
            writes=[ch.region(d)],
            label=f"vaxpy x{ch.repeats}",
        )
    return vs.steps()


PLANS = {TBinary: plan_binary, TBinaryScalar: plan_scalar, TAxpy: plan_axpy}
