"""A2/A3 plans of the row and column reductions (vector_isa.md 3.5, 3.17; timing.md V15-V18).

Each plan emits the reference lowering's intrinsic sequence through ``VecStream``; E =
256/sizeof(T) elements per repeat, B = 32/sizeof(T) per block, (R, C) = src's valid shape.

Row reductions, half/float32 SUM/MAX/MIN (``vcadd``/``vcmax``/``vcmin`` = RED, ``vadd``/``vmax``/
``vmin`` = OP, ``vcgadd``/``vcgmax``/``vcgmin`` = GRP), a ``pipe_barrier(PIPE_V)`` after each call:
* special static shapes (float32, DN dst, 64x128 / 32x256 / 16x512 / 8x1024): GRP over the
  tile into tmp, one OP per level halving the blocks per row, a final GRP into dst;
* C == E: one count-mode RED over R*E elements; C < E: RED with a C-lane mask, rows as repeats
  (<= 255 per call);
* C > E: [C < 2E: ``copy_ubuf_to_ubuf`` of chunk 0 into tmp], SUM: ``n//2`` count-mode OPs
  ``tmp[k] = src[2k] + src[2k+1]`` (+ one for an odd last chunk), MAX/MIN: one OP of chunks 0
  and 1; the remainder (mask r lanes, rows as repeats); SUM: the chunk tree (one OP per pair,
  one per odd leftover), MAX/MIN: one OP per further chunk; a final count-mode RED over tmp.
Per-row block scheme (int16/int32 SUM/MAX/MIN, TROWPROD of every dtype): per row
``vector_dup`` of the identity over B lanes, one count-mode OP (vmul for PROD) per 32-byte
block, then ``V->S``, the scalar lane combine (B x (loop + UB load + op) + one UB store),
``S->V``.
TROWARGMAX/MIN (choice; the exact reference sequence is not in our notes): one chunk, index
only: ``vcmax``/``vcmin`` in index mode with rows as repeats straight into dst (the library's
path, no tmp); otherwise per 256-byte chunk one ``vcmax``/``vcmin`` in index mode with rows as
repeats into tmp (value, index pairs); one chunk: ``vreducev2`` splits the pairs into dst; more
chunks: ``V->S``, a scalar compare per row and chunk, ``S->V``.

Column reductions: TCOLSUM copies row 0 to dst (``copy_ubuf_to_ubuf`` of ceil(C*size/32)
blocks; ``repeats`` = blocks), then per row a count-mode ``vadd`` of C elements + barrier;
binary TCOLSUM: the level-wise tree of count-mode ``vadd``s (one barrier per level batch, one
after each odd-leftover add), then the copy of tmp row 0; TCOLMAX/MIN/PROD: the copy, then
per row one count-mode OP over the first floor(C/E)*E columns + barrier, then per row one
masked single-repeat OP for the C mod E tail + barrier. TCOLARGMAX/MIN (choice): ``vector_dup``
of 0 into dst_idx and the copy of row 0 into tmp; per further row a ``vcmpv_gt``/``vcmpv_lt``
of C elements, barrier, ``vsel`` of the row index and ``vmax``/``vmin`` of tmp, barrier; the
copy of tmp into dst_val (value form).
"""

from __future__ import annotations

from ptosim.enums import Pipe
from ptosim.isa.vector.reduce import (
    TColArg,
    TColReduce,
    TRowArg,
    TRowReduce,
    a2a3_blocks_path,
    special_shape,
)
from ptosim.plan import Region

from ..costs import ceil_div, rows_region
from .vec import BLOCK_BYTES, REPEAT_BYTES, REPEAT_MAX, Chunk, VecStream

RED = {"SUM": "vcadd", "MAX": "vcmax", "MIN": "vcmin"}
GRP = {"SUM": "vcgadd", "MAX": "vcgmax", "MIN": "vcgmin"}
OP = {"SUM": "vadd", "MAX": "vmax", "MIN": "vmin", "PROD": "vmul"}
COPY = "copy_ubuf_to_ubuf"


def column_region(ref, R: int) -> Region:
    """Element (i, 0) of rows [0, R): a DN column is contiguous, an ND tile at its Cols."""
    return rows_region(ref, 0, R, 0, 1, 1 if not ref.geom.is_row_major else ref.cols)


def count(n_elems: int, E: int) -> Chunk:
    """A count-mode call over ``n_elems`` elements."""
    return Chunk(ceil_div(n_elems, E), E, True, count=n_elems, per_repeat=E)


def norm(repeats: int, lanes: int, E: int) -> Chunk:
    """A norm-mode call of ``repeats`` repeats with a ``lanes``-wide mask."""
    return Chunk(repeats, lanes, per_repeat=E)


def copy_call(vs: VecStream, dst: Region, src: Region, blocks: int, E: int, label: str):
    """``copy_ubuf_to_ubuf`` of ``blocks`` 32-byte blocks (its repeats = blocks)."""
    vs.call(COPY, norm(blocks, E, E), reads=(src,), writes=(dst,), label=label, blocks=blocks)


# -- row reductions ---------------------------------------------------------------------------
def _row_float(vs: VecStream, instr: TRowReduce) -> None:
    s, d, t, op = instr.src, instr.dst, instr.tmp, instr.op
    R, C = s.valid
    E = REPEAT_BYTES // s.dtype.size_bytes
    red, elt = RED[op], OP[op]
    dst = column_region(d, R)
    src_all = rows_region(s, 0, R, 0, C)
    if special_shape(s, d):
        vals = R * C // 8
        tmp_all = rows_region(t, 0, 1, 0, vals, vals)
        vs.call(GRP[op], norm(R * C // E, E, E), reads=(src_all,), writes=(tmp_all,))
        vs.barrier()
        blocks = C // 64
        while blocks > 1:
            blocks //= 2
            n = R * blocks * 8
            vs.call(elt, norm(ceil_div(n, E), E, E), reads=(tmp_all,), writes=(tmp_all,))
            vs.barrier()
        vs.call(GRP[op], norm(R * 8 // E, E, E), reads=(tmp_all,), writes=(dst,))
        vs.barrier()
        return
    if C <= E:
        if C == E:
            vs.call(red, count(R * E, E), reads=(src_all,), writes=(dst,))
            vs.barrier()
            return
        for r0 in range(0, R, REPEAT_MAX):
            n = min(REPEAT_MAX, R - r0)
            vs.call(
                red,
                norm(n, C, E),
                reads=(rows_region(s, r0, n, 0, C),),
                writes=(rows_region(d, r0, n, 0, 1, 1 if not d.geom.is_row_major else d.cols),),
            )
            vs.barrier()
        return
    n, r = divmod(C, E)

    def chunk(ref, k, w=E):
        return rows_region(ref, 0, R, k * E, k * E + w)

    if n == 1:
        copy_call(vs, chunk(t, 0), chunk(s, 0), R * 8, E, "chunk 0 -> tmp")
        vs.barrier()
    if op == "SUM":
        for k in range(n // 2):
            reads = (chunk(s, 2 * k), chunk(s, 2 * k + 1))
            vs.call(elt, count(R * E, E), reads=reads, writes=(chunk(t, k),))
            vs.barrier()
        if n % 2 and n > 1:
            reads = (chunk(t, 0), chunk(s, n - 1))
            vs.call(elt, count(R * E, E), reads=reads, writes=(chunk(t, 0),))
            vs.barrier()
    elif n >= 2:
        vs.call(elt, count(R * E, E), reads=(chunk(s, 0), chunk(s, 1)), writes=(chunk(t, 0),))
        vs.barrier()
    if r:
        for r0 in range(0, R, REPEAT_MAX):
            m = min(REPEAT_MAX, R - r0)
            reads = (rows_region(t, r0, m, 0, r), rows_region(s, r0, m, n * E, C))
            vs.call(elt, norm(m, r, E), reads=reads, writes=(rows_region(t, r0, m, 0, r),))
            vs.barrier()
    if op == "SUM":
        m = max(1, n // 2)
        while m > 1:
            h = m // 2
            for k in range(h):
                reads = (chunk(t, 2 * k), chunk(t, 2 * k + 1))
                vs.call(elt, count(R * E, E), reads=reads, writes=(chunk(t, k),))
                vs.barrier()
            if m % 2:
                reads = (chunk(t, h - 1), chunk(t, m - 1))
                vs.call(elt, count(R * E, E), reads=reads, writes=(chunk(t, h - 1),))
                vs.barrier()
            m = h
    else:
        for k in range(2, n):
            reads = (chunk(t, 0), chunk(s, k))
            vs.call(elt, count(R * E, E), reads=reads, writes=(chunk(t, 0),))
            vs.barrier()
    vs.call(red, count(R * E, E), reads=(chunk(t, 0),), writes=(dst,))
    vs.barrier()


def _row_blocks(vs: VecStream, instr: TRowReduce, ctx) -> None:
    """Per row: vector_dup, one OP per 32-byte block, V->S, the scalar lane combine, S->V."""
    s, d, t = instr.src, instr.dst, instr.tmp
    R, C = s.valid
    sz = s.dtype.size_bytes
    E, B = REPEAT_BYTES // sz, BLOCK_BYTES // sz
    sc = ctx.config.timing.scalar
    lanes = rows_region(t, 0, 1, 0, B)
    pitch = 1 if not d.geom.is_row_major else d.cols
    per_row = B * (sc.loop_cycles + sc.ub_load_cycles + sc.op_cycles) + sc.ub_store_cycles
    for i in range(R):
        vs.call("vector_dup", count(B, E), writes=(lanes,), label=f"vector_dup row {i}")
        vs.barrier()
        for b0 in range(0, C, B):
            w = min(B, C - b0)
            reads = (lanes, rows_region(s, i, 1, b0, b0 + w))
            vs.call(OP[instr.op], count(w, E), reads=reads, writes=(rows_region(t, 0, 1, 0, w),))
            vs.barrier()
        vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
        vs.scalar(
            per_row,
            f"row {i} lane combine",
            reads=(lanes,),
            writes=(rows_region(d, i, 1, 0, 1, pitch),),
            row=i,
            lanes=B,
        )
        vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)


def row_reduce_ends_with_v_barrier(instr) -> bool:
    """The float row reductions (_row_float) end with pipe_barrier(PIPE_V) after their last
    vector write; the integer ones (_row_blocks) end with the scalar combine's S->V handshake."""
    return isinstance(instr, TRowReduce) and not a2a3_blocks_path(instr.op, instr.src.dtype)


def plan_row_reduce(instr: TRowReduce, ctx):
    vs = VecStream(ctx, instr.src.dtype)
    if a2a3_blocks_path(instr.op, instr.src.dtype):
        _row_blocks(vs, instr, ctx)
    else:
        _row_float(vs, instr)
    return vs.steps()


def plan_row_arg(instr: TRowArg, ctx):
    s, t = instr.src, instr.tmp
    R, C = s.valid
    E = REPEAT_BYTES // s.dtype.size_bytes
    red = "vcmax" if instr.op == "MAX" else "vcmin"
    chunks = ceil_div(C, E)
    pairs = rows_region(t, 0, 1, 0, 2 * R * chunks, 2 * R * chunks)
    outs = [instr.dst_idx] + ([instr.dst_val] if instr.dst_val is not None else [])
    dsts = tuple(column_region(o, R) for o in outs)
    vs = VecStream(ctx, instr.src.dtype)
    if chunks == 1 and instr.dst_val is None:  # index mode straight into dst: no tmp
        for r0 in range(0, R, REPEAT_MAX):
            n = min(REPEAT_MAX, R - r0)
            reads = (rows_region(s, r0, n, 0, C),)
            vs.call(red, norm(n, C, E), reads=reads, writes=dsts, mode="index")
            vs.barrier()
        return vs.steps()
    for k in range(chunks):
        w = min(E, C - k * E)
        for r0 in range(0, R, REPEAT_MAX):
            n = min(REPEAT_MAX, R - r0)
            reads = (rows_region(s, r0, n, k * E, k * E + w),)
            vs.call(red, norm(n, w, E), reads=reads, writes=(pairs,), mode="index", column_chunk=k)
            vs.barrier()
    if chunks == 1:
        vs.call("vreducev2", norm(ceil_div(2 * R, E), E, E), reads=(pairs,), writes=dsts)
        vs.barrier()
        return vs.steps()
    sc = ctx.config.timing.scalar
    per_row = chunks * (sc.loop_cycles + 2 * sc.ub_load_cycles + sc.op_cycles)
    vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
    vs.scalar(
        R * (per_row + len(outs) * sc.ub_store_cycles),
        f"combine {chunks} chunks x {R} rows",
        reads=(pairs,),
        writes=dsts,
    )
    vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
    return vs.steps()


# -- column reductions ------------------------------------------------------------------------
def _blocks(C: int, sz: int) -> int:
    return ceil_div(C * sz, BLOCK_BYTES)


def plan_col_reduce(instr: TColReduce, ctx):
    s, d, t, op = instr.src, instr.dst, instr.tmp, instr.op
    R, C = s.valid
    vs = VecStream(ctx, instr.src.dtype)
    if R == 0 or C == 0:
        return vs.steps()
    sz = s.dtype.size_bytes
    E = REPEAT_BYTES // sz
    nb = _blocks(C, sz)
    dst_row = rows_region(d, 0, 1, 0, nb * BLOCK_BYTES // sz)
    if instr.binary:
        if R == 1:
            copy_call(vs, dst_row, rows_region(s, 0, 1, 0, C), nb, E, "src row 0 -> dst")
            return vs.steps()
        for k in range(R // 2):
            reads = (rows_region(s, 2 * k, 1, 0, C), rows_region(s, 2 * k + 1, 1, 0, C))
            vs.call("vadd", count(C, E), reads=reads, writes=(rows_region(t, k, 1, 0, C),))
        vs.barrier()
        if R % 2:
            reads = (rows_region(t, 0, 1, 0, C), rows_region(s, R - 1, 1, 0, C))
            vs.call("vadd", count(C, E), reads=reads, writes=(rows_region(t, 0, 1, 0, C),))
            vs.barrier()
        cnt = R // 2
        while cnt > 1:
            h = cnt // 2
            for k in range(h):
                reads = (rows_region(t, 2 * k, 1, 0, C), rows_region(t, 2 * k + 1, 1, 0, C))
                vs.call("vadd", count(C, E), reads=reads, writes=(rows_region(t, k, 1, 0, C),))
            vs.barrier()
            if cnt % 2:
                reads = (rows_region(t, 0, 1, 0, C), rows_region(t, cnt - 1, 1, 0, C))
                vs.call("vadd", count(C, E), reads=reads, writes=(rows_region(t, 0, 1, 0, C),))
                vs.barrier()
            cnt = h
        copy_call(vs, dst_row, rows_region(t, 0, 1, 0, C), nb, E, "tmp row 0 -> dst")
        return vs.steps()
    copy_call(vs, dst_row, rows_region(s, 0, 1, 0, C), nb, E, "src row 0 -> dst")
    vs.barrier()
    elt = OP[op]
    if op == "SUM":
        spans = [(0, C, True)]
    else:
        head = C // E * E
        spans = [(0, head, True)] if head else []
        if C % E:
            spans.append((head, C, False))
    for c0, c1, counted in spans:
        for i in range(1, R):
            call = count(c1 - c0, E) if counted else norm(1, c1 - c0, E)
            reads = (rows_region(d, 0, 1, c0, c1), rows_region(s, i, 1, c0, c1))
            vs.call(elt, call, reads=reads, writes=(rows_region(d, 0, 1, c0, c1),), row=i)
            vs.barrier()
    return vs.steps()


def plan_col_arg(instr: TColArg, ctx):
    s, t = instr.src, instr.tmp
    R, C = s.valid
    vs = VecStream(ctx, instr.src.dtype)
    if R == 0 or C == 0:
        return vs.steps()
    sz = s.dtype.size_bytes
    E = REPEAT_BYTES // max(sz, instr.dst_idx.dtype.size_bytes)
    # the lowering's scratch from tmp's address (it may run past a small tmp tile)
    cur = Region("UB", t.address, t.address + instr.scratch_elements() * sz)
    idx = rows_region(instr.dst_idx, 0, 1, 0, C)
    vs.call("vector_dup", count(C, E), writes=(idx,), label="vector_dup index 0")
    copy_call(vs, cur, rows_region(s, 0, 1, 0, C), _blocks(C, sz), E, "src row 0 -> tmp")
    vs.barrier()
    cmp = "vcmpv_gt" if instr.op == "MAX" else "vcmpv_lt"
    for i in range(1, R):
        row = rows_region(s, i, 1, 0, C)
        vs.call(cmp, count(C, E), reads=(row, cur), row=i)
        vs.barrier()
        vs.call("vsel", count(C, E), reads=(idx,), writes=(idx,), row=i)
        vs.call(OP[instr.op], count(C, E), reads=(row, cur), writes=(cur,), row=i)
        vs.barrier()
    if instr.dst_val is not None:
        dv = rows_region(instr.dst_val, 0, 1, 0, C)
        copy_call(vs, dv, cur, _blocks(C, sz), E, "tmp -> dst_val")
    return vs.steps()


PLANS = {
    TRowReduce: plan_row_reduce,
    TRowArg: plan_row_arg,
    TColReduce: plan_col_reduce,
    TColArg: plan_col_arg,
}
