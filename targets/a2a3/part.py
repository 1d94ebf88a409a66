"""A2/A3 plans of TPARTADD/TPARTMUL/TPARTMAX/TPARTMIN (vector_isa.md 3.22, skeleton A of 2.5).

The lowering (``a2a3/TPartOp.hpp``) knows one full source (dst's valid shape) and one small
source inside it (``part.npu_split``; src0 and src1 swapped when src0 is the small one):

* rows-smaller (the small source has dst's valid columns C): ``vadd/vmul/vmax/vmin(dst, full,
  small)`` over the small source's r rows and C columns, planned with skeleton A
  (``elementwise_chunks("binary")``: count mode per row or the row-repeat form), then the
  ``copy_ubuf_to_ubuf`` of the remaining ``R - r`` rows of the full source: one copy of whole
  rows when dst and the full source have the same Cols, else one copy per row;
* cols-smaller: ``copy_ubuf_to_ubuf`` of the full source's R rows into dst, ``pipe_barrier(V)``,
  then ``op(dst, small, dst)`` over the small region (skeleton A).

TPARTARG<MAX|MIN> (``a2a3/TPartArgOp.hpp``) has the same two stages, with two copies (values,
indices) and, for the op, per row and 256-byte repeat of values: ``vcmp_ge`` / ``vcmp_le``
(src0 against src1), ``pipe_barrier(V)``, ``vsel`` of the values, ``vsel`` of the indices,
``pipe_barrier(V)``: the full repeats first (every row), then the masked last repeat (every
row).

Copy costs: ``copy_ubuf_to_ubuf`` charged by its 32-byte blocks (``costs.vector_cycles``).
"""

from __future__ import annotations

from ptosim.isa.vector.part import TPart, TPartArg, npu_split
from ptosim.plan import Region, Step

from ..costs import ceil_div
from .elementwise import BINARY_INTRINSICS
from .vec import BLOCK_BYTES, REPEAT_BYTES, Chunk, VecStream, elementwise_chunks

UB_COPY = "copy_ubuf_to_ubuf"


def _rows_region(ref, r0: int, r1: int, nbytes: int) -> Region:
    """Rows [r0, r1) of ``ref``, ``nbytes`` from each row start."""
    pitch = ref.cols * ref.dtype.size_bytes
    return Region("UB", ref.address + r0 * pitch, ref.address + (r1 - 1) * pitch + nbytes)


def _copy_rows(vs: VecStream, d, full, r0: int, r1: int, C: int) -> None:
    """The copy_ubuf_to_ubuf of rows [r0, r1) (``TPartOp.hpp``): one copy of ``Cols x rows``
    elements when both tiles have the same Cols, else one copy per row of the blocks covering
    C elements (each copy pays its issue)."""
    if r1 <= r0:
        return
    sz = d.dtype.size_bytes
    if d.cols == full.cols:  # whole rows, their padding columns too
        spans = [(r0, r1, ceil_div(d.cols * (r1 - r0) * sz, BLOCK_BYTES))]
        per_row = d.cols * sz
    else:
        spans = [(r, r + 1, ceil_div(C * sz, BLOCK_BYTES)) for r in range(r0, r1)]
        per_row = ceil_div(C * sz, BLOCK_BYTES) * BLOCK_BYTES
    for a, b, blocks in spans:
        vs.call(
            UB_COPY,
            Chunk(blocks, 1, per_repeat=1),
            reads=[_rows_region(full, a, b, per_row)],
            writes=[_rows_region(d, a, b, per_row)],
            label=f"{UB_COPY} rows {a}..{b - 1} ({blocks} blocks)",
            blocks=blocks,
            nBurst=1,
        )


def _op(vs: VecStream, intrinsic: str, out, ins, R: int, C: int) -> None:
    for ch in elementwise_chunks("binary", [out, *ins], R, C):
        vs.call(
            intrinsic,
            ch,
            reads=[ch.region(t) for t in ins],
            writes=[ch.region(out)],
            label=f"{intrinsic} x{ch.repeats}",
        )


def plan_part(instr: TPart, ctx) -> list[Step]:
    d = instr.dst
    R, C = d.valid
    vs = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return []
    _, full, _, small, path = npu_split(instr, d, instr.src0, instr.src1)
    r, c = small.valid
    intrinsic = BINARY_INTRINSICS[instr.op]
    if path == "rows":
        _op(vs, intrinsic, d, [full, small], r, C)
        _copy_rows(vs, d, full, r, R, C)
    else:
        _copy_rows(vs, d, full, 0, R, C)
        vs.barrier()
        _op(vs, intrinsic, d, [small, d], r, c)
    return vs.steps()


def _vsel_pairs(vs: VecStream, instr: TPartArg, rows: int, cols: int) -> None:
    """The op stage of TPARTARG: one ``vcmp`` + two ``vsel`` per row and value repeat."""
    dv, di = instr.dst_val, instr.dst_idx
    E = REPEAT_BYTES // dv.dtype.size_bytes
    cmp = "vcmp_ge" if instr.op == "MAX" else "vcmp_le"
    full, rest = divmod(cols, E)
    chunks = [(k * E, E) for k in range(full)] + ([(full * E, rest)] if rest else [])
    for c0, n in chunks:
        for r in range(rows):
            ch = Chunk(1, n, row=r, rows=1, col=c0, cols=n, per_repeat=E)
            srcs = [ch.region(instr.src0_val), ch.region(instr.src1_val)]
            vs.call(cmp, ch, reads=srcs, label=f"{cmp} row {r} col {c0}")
            vs.barrier()
            vs.call("vsel", ch, reads=srcs, writes=[ch.region(dv)], label=f"vsel row {r}")
            idx = [ch.region(instr.src0_idx), ch.region(instr.src1_idx)]
            vs.call("vsel", ch, reads=idx, writes=[ch.region(di)], label=f"vsel idx row {r}")
            vs.barrier()


def plan_part_arg(instr: TPartArg, ctx) -> list[Step]:
    dv, di = instr.dst_val, instr.dst_idx
    R, C = dv.valid
    vs = VecStream(ctx, dv.dtype)
    if R == 0 or C == 0:
        return []
    _, full, sn, small, path = npu_split(instr, dv, instr.src0_val, instr.src1_val)
    full_idx = instr.src1_idx if sn == "src0" else instr.src0_idx
    r, c = small.valid
    if path == "rows":
        _vsel_pairs(vs, instr, r, C)
        _copy_rows(vs, dv, full, r, R, C)
        _copy_rows(vs, di, full_idx, r, R, C)
    else:
        _copy_rows(vs, dv, full, 0, R, C)
        _copy_rows(vs, di, full_idx, 0, R, C)
        _vsel_pairs(vs, instr, r, c)
    return vs.steps()


PLANS = {TPart: plan_part, TPartArg: plan_part_arg}
