"""A2/A3 plans of the layout / fill / gather family (vector_isa.md 3.1, 3.2, 3.11-3.14).

Each plan follows the reference lowering's intrinsic sequence (names, repeats, count/norm mode,
barriers, V<->S handshakes). Count-mode calls carry the repeat argument the library passes
(row counts for TFILLPAD, ``ceil(n/E)`` where it passes 0 and the hardware runs the count) and
pay the partial-mask floor. UB -> UB ``copy_ubuf_to_ubuf`` costs its ``copy_ubuf_to_ubuf``
entry (``other`` until calibrated) plus the bytes at ``ub_copy_bw_bytes_per_cycle``.

- TRESHAPE / TSUBVIEW: an address constant in a register (PIPE_S), like TASSIGN.
- TFILLPAD: (1) ``vcopy`` count mode, repeat = rows (<= 255 per call) of whole src rows;
  (2) pads differ: one masked ``vector_dup`` with repeat = Rs (b16/b32), or a V->S handshake and
  a scalar loop of UB stores (1-byte types; no S->V flag in the reference, so none here);
  (3) ``vector_dup`` count mode over row 0's columns [Cb, Cols), ``pipe_barrier(PIPE_V)``
  (choice: the vcopy reads that segment), ``vcopy`` of it to rows 1..Rs-1 (repeat = Rs-1, source
  repeat stride 0); (4) ``vector_dup`` count mode over rows [Rs, Rd).
- TTRANS: scalar path = V->S, one UB load and store per element, S->V. Vector path: per column
  sub-tile (32 bytes of columns) the VA registers are programmed on PIPE_S (32 addresses,
  ``set_va_reg_sb``), then ``scatter_vnchwconv_b{8,16,32}`` with repeat = floor(R/Y) (b8: 4
  calls), then the row tail (R mod Y rows) the same way with repeat 1; ``pipe_barrier(PIPE_V)``;
  one ``copy_ubuf_to_ubuf`` of C bursts of ceil(R*size/32) blocks from tmp to dst.
- TTRI: per row ``vector_dup`` (count C), barrier, ``vector_dup`` of the second value over its
  lanes (when there are any), barrier.
- TEXTRACT ND: a statically 1x1 dst is one scalar copy between V->S and S->V; else one
  ``copy_ubuf_to_ubuf`` of the 32-byte-aligned part (one burst when the valid width equals both
  row strides), then the tail with a count-mode ``vcopy`` on 16-bit lanes, repeat = rows
  (<= 255 per call). NZ: the valid region's fractal blocks in one ``copy_ubuf_to_ubuf``.
- TGATHER index: per row, count mode: ``vmuls`` (idx * sizeof T into dst's row for b32, tmp's
  row for b16), ``pipe_barrier(PIPE_V)``, ``vgather``. The gathered addresses are read from
  the offsets when the vgather step starts (Step.resolve), so hazards see the real bytes.
  Mask ROW: one ``vreducev2`` per <= 255 rows; mask COL: one count-mode ``vcopy`` per dst row.
- TGATHERB: one ``vgatherb`` per dst row (repeat = its 256-byte chunks).
"""

from __future__ import annotations

import numpy as np

from ptosim.enums import Pipe
from ptosim.isa.vector.layout import (
    TExtract,
    TFillPad,
    TTrans,
    TTri,
    _is_nd,
    block_round,
)
from ptosim.isa.vector.tgather import TGather, TGatherB, TGatherCmp, TGatherMask
from ptosim.isa.vector.views import TReshape, TSubView
from ptosim.plan import Region, Step

from ..common import address_step
from ..costs import BLOCK_BYTES, ceil_div, rows_region, tile_region
from ..costs import ub_copy_step as copy_blocks
from .vec import REPEAT_MAX, Chunk, VecStream

BLOCK = 32


def ub_copy_step(ctx, nbytes: int, label: str, reads=(), writes=(), **args) -> Step:
    """One ``copy_ubuf_to_ubuf`` on PIPE_V of ``nbytes`` (whole 32-byte blocks; the calibrated
    per-copy plus per-block cost of ``costs.ub_copy_step``)."""
    return copy_blocks(
        ctx.config.timing,
        ceil_div(nbytes, BLOCK_BYTES),
        f"copy_ubuf_to_ubuf {label} {nbytes} B",
        reads=reads,
        writes=writes,
        args=args,
    )


def count_chunk(n: int, E: int) -> Chunk:
    """A count-mode call over ``n`` elements (``ceil(n/E)`` repeats run)."""
    return Chunk(ceil_div(n, E), E, True, count=n, per_repeat=E)


def rows_chunk(repeats: int, lanes: int, E: int, *, count_mode: bool) -> Chunk:
    return Chunk(repeats, lanes, count_mode, per_repeat=E)


def scalar_copy_cycles(ctx, n: int) -> int:
    s = ctx.config.timing.scalar
    return n * (s.ub_load_cycles + s.ub_store_cycles + s.loop_cycles)


# -- views ------------------------------------------------------------------------------------
def plan_view(instr, ctx) -> list[Step]:
    """An address in a register: no data moves."""
    return [address_step(ctx.config.timing.scalar, instr.opcode)]


# -- TFILLPAD ---------------------------------------------------------------------------------
def plan_fillpad(instr: TFillPad, ctx) -> list[Step]:
    d, s = instr.dst, instr.src
    Rs, Cs = s.valid
    Rd, sz = d.valid_row, d.dtype.size_bytes
    E = ctx.config.timing.vector.repeat_bytes // sz
    vs = VecStream(ctx, d.dtype)
    if instr.mode != "InPlace":
        for r0 in range(0, Rs, REPEAT_MAX):
            n = min(REPEAT_MAX, Rs - r0)
            vs.call(
                "vcopy",
                rows_chunk(n, E, E, count_mode=True),
                reads=(rows_region(s, r0, n, 0, s.cols),),
                writes=(rows_region(d, r0, n, 0, s.cols),),
                label=f"vcopy rows {r0}+{n} x{n}",
                elements=s.cols,
            )
    cb = block_round(Cs, sz)
    if instr.pads_differ() and Rs and cb > Cs:
        reg = rows_region(d, 0, Rs, Cs, cb)
        if sz == 1:
            vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
            vs.scalar(scalar_copy_cycles(ctx, Rs * (cb - Cs)), "TFILLPAD pad bytes", writes=(reg,))
        else:
            for r0 in range(0, Rs, REPEAT_MAX):
                n = min(REPEAT_MAX, Rs - r0)
                vs.call(
                    "vector_dup",
                    rows_chunk(n, cb - Cs, E, count_mode=False),
                    writes=(rows_region(d, r0, n, Cs, cb),),
                    label=f"vector_dup partial block rows {r0}+{n} x{n}",
                )
    if Rs and d.cols > cb:
        vs.call(
            "vector_dup",
            count_chunk(d.cols - cb, E),
            writes=(rows_region(d, 0, 1, cb, d.cols),),
            label="vector_dup row 0 pad",
        )
        if Rs > 1:
            vs.barrier()
            for r0 in range(1, Rs, REPEAT_MAX):
                n = min(REPEAT_MAX, Rs - r0)
                vs.call(
                    "vcopy",
                    rows_chunk(n, d.cols - cb, E, count_mode=True),
                    reads=(rows_region(d, 0, 1, cb, d.cols),),
                    writes=(rows_region(d, r0, n, cb, d.cols),),
                    label=f"vcopy pad rows {r0}+{n} x{n}",
                )
    if Rd > Rs:
        vs.call(
            "vector_dup",
            count_chunk((Rd - Rs) * d.cols, E),
            writes=(rows_region(d, Rs, Rd - Rs, 0, d.cols),),
            label=f"vector_dup rows {Rs}..{Rd}",
        )
    return vs.steps()


# -- TTRANS -----------------------------------------------------------------------------------
def plan_trans(instr: TTrans, ctx) -> list[Step]:
    d, s, t = instr.dst, instr.src, instr.tmp
    R, C = s.valid
    sz = s.dtype.size_bytes
    vs = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return []
    if instr.a2a3_scalar():
        vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
        vs.scalar(
            scalar_copy_cycles(ctx, R * C),
            "TTRANS scalar transpose",
            reads=(rows_region(s, 0, R, 0, C),),
            writes=(rows_region(d, 0, C, 0, R),),
        )
        vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
        return vs.steps()
    Y, B = instr.group_rows(), BLOCK // sz
    ts = instr.tmp_stride()
    op = f"scatter_vnchwconv_b{8 * sz}"
    calls = 4 if sz == 1 else 1
    va = 32 * ctx.config.timing.scalar.op_cycles
    E = ctx.config.timing.vector.repeat_bytes // sz
    for c0 in range(0, C, B):
        c1 = min(C, c0 + B)
        for r0, reps in ((0, R // Y), ((R // Y) * Y, 1 if R % Y else 0)):
            if reps == 0:
                continue
            n = min(R - r0, reps * Y)
            vs.scalar(va, f"set_va_reg_sb cols {c0}+ rows {r0}+")
            for _ in range(calls):
                vs.call(
                    op,
                    rows_chunk(reps, E, E, count_mode=False),
                    reads=(rows_region(s, r0, n, c0, c1),),
                    writes=(rows_region(t, c0, c1 - c0, r0, r0 + n, ts),),
                    label=f"{op} cols {c0}+ rows {r0}+ x{reps}",
                )
    vs.barrier()
    steps = vs.steps()
    for st in steps:  # address registers only: no data is touched
        if st.label.startswith("set_va_reg_sb"):
            st.data = False
    nb = block_round(R, sz)
    steps.append(
        ub_copy_step(
            ctx,
            C * nb * sz,
            "tmp -> dst",
            reads=(rows_region(t, 0, C, 0, nb, ts),),
            writes=(rows_region(d, 0, C, 0, nb),),
            nBurst=C,
            lenBurst=nb * sz,
        )
    )
    return steps


# -- TTRI -------------------------------------------------------------------------------------
def plan_tri(instr: TTri, ctx) -> list[Step]:
    d = instr.dst
    R, C = d.valid
    E = ctx.config.timing.vector.repeat_bytes // d.dtype.size_bytes
    vs = VecStream(ctx, d.dtype)
    if C == 0:
        return []
    for i in range(R):
        vs.call("vector_dup", count_chunk(C, E), writes=(rows_region(d, i, 1, 0, C),))
        vs.barrier()
        _, n = instr.ones_per_row(i)
        if n > 0:
            vs.call("vector_dup", count_chunk(n, E), writes=(rows_region(d, i, 1, 0, n),))
            vs.barrier()
    return vs.steps()


# -- TEXTRACT ---------------------------------------------------------------------------------
def plan_extract(instr: TExtract, ctx) -> list[Step]:
    d, s = instr.dst, instr.src
    R, C = d.valid
    r0, c0 = instr.index_row, instr.index_col
    sz = d.dtype.size_bytes
    if R == 0 or C == 0:
        return []
    vs = VecStream(ctx, d.dtype)
    src_reg = rows_region(s, r0, R, c0, c0 + C) if _is_nd(s) else tile_region(s)
    dst_reg = rows_region(d, 0, R, 0, C) if _is_nd(d) else tile_region(d)
    if instr.a2a3_scalar():
        vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
        vs.scalar(scalar_copy_cycles(ctx, 1), "TEXTRACT scalar copy", reads=(src_reg,),
                  writes=(dst_reg,))  # fmt: skip
        vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
        return vs.steps()
    if not _is_nd(d):  # NZ: fractal blocks
        return [ub_copy_step(ctx, R * C * sz, "NZ blocks", (src_reg,), (dst_reg,))]
    aligned = (C * sz) // BLOCK * BLOCK
    steps: list[Step] = []
    if aligned:
        one = C == s.cols == d.cols
        steps.append(
            ub_copy_step(
                ctx,
                R * aligned,
                "aligned part",
                (rows_region(s, r0, R, c0, c0 + aligned // sz),),
                (rows_region(d, 0, R, 0, aligned // sz),),
                nBurst=1 if one else R,
                lenBurst=R * aligned if one else aligned,
            )
        )
    tail = C * sz - aligned
    if tail // 2:
        E16 = ctx.config.timing.vector.repeat_bytes // 2
        ca = aligned // sz
        for q0 in range(0, R, REPEAT_MAX):
            n = min(REPEAT_MAX, R - q0)
            vs.call(
                "vcopy",
                rows_chunk(n, tail // 2, E16, count_mode=True),
                reads=(rows_region(s, r0 + q0, n, c0 + ca, c0 + C),),
                writes=(rows_region(d, q0, n, ca, C),),
                label=f"vcopy tail rows {q0}+{n} x{n}",
            )
    return steps + vs.steps()


# -- TGATHER ----------------------------------------------------------------------------------
def plan_gather(instr: TGather, ctx) -> list[Step]:
    d, s0, idx, t = instr.dst, instr.src0, instr.idx, instr.tmp
    R, C = d.valid
    sz = d.dtype.size_bytes
    rb = ctx.config.timing.vector.repeat_bytes
    vs = VecStream(ctx, d.dtype)
    for i in range(R):
        off_ref = d if sz == 4 else t
        off_reg = rows_region(off_ref, i, 1, 0, C, d.cols) if sz == 4 else _off_region(t, d, i, C)
        vs.call(
            "vmuls",
            count_chunk(C, rb // 4),
            reads=(rows_region(idx, i, 1, 0, C),),
            writes=(off_reg,),
            label=f"vmuls row {i}",
        )
        vs.barrier()
        vs.call(
            "vgather",
            count_chunk(C, rb // sz),
            reads=(off_reg, tile_region(s0)),
            writes=(rows_region(d, i, 1, 0, C),),
            label=f"vgather row {i}",
        )
    return _resolve_gathers(vs.steps(), instr)


def _off_region(t, d, i: int, C: int) -> Region:
    """Row i of the int32 offsets in tmp, at dst's row pitch (Cols elements of 4 bytes)."""
    start = t.address + i * d.cols * 4
    return Region("UB", start, start + C * 4)


def _resolve_gathers(steps: list[Step], instr: TGather) -> list[Step]:
    """The bytes each vgather reads are known when it starts: read them from its offsets."""
    rows = iter(range(instr.dst.valid_row))
    for st in steps:
        if st.args.get("intrinsic") == "vgather":
            st.resolve = _gather_resolver(st, instr, next(rows))
    return steps


def _gather_resolver(step: Step, instr: TGather, row: int):
    def resolve(ctx) -> Step:
        sz = instr.dst.dtype.size_bytes
        offs = instr.byte_offsets(ctx, row)
        base = instr.src0.address
        reads = tuple(Region("UB", base + int(o), base + int(o) + sz) for o in np.unique(offs))
        return Step(
            step.pipe,
            step.kind,
            step.cycles,
            step.label,
            bytes=step.bytes,
            reads=(step.reads[0],) + _merge(reads),
            writes=step.writes,
            args=step.args,
        )

    return resolve


def _merge(regions: tuple[Region, ...]) -> tuple[Region, ...]:
    out: list[Region] = []
    for r in sorted(regions, key=lambda x: x.start):
        if out and r.start <= out[-1].end:
            out[-1] = Region("UB", out[-1].start, max(out[-1].end, r.end))
        else:
            out.append(r)
    return tuple(out)


def plan_gather_mask(instr: TGatherMask, ctx) -> list[Step]:
    d, s = instr.dst, instr.src
    sz = d.dtype.size_bytes
    E = ctx.config.timing.vector.repeat_bytes // sz
    vs = VecStream(ctx, d.dtype)
    if instr.axis == "GATHER_ROW":
        R, C = s.valid
        n_out = instr.row_count(ctx.arch)
        for r0 in range(0, R, REPEAT_MAX):
            n = min(REPEAT_MAX, R - r0)
            first = r0 * n_out
            vs.call(
                "vreducev2",
                rows_chunk(n, min(C, E), E, count_mode=True),
                reads=(rows_region(s, r0, n, 0, C),),
                writes=(_flat(d, first, first + n * n_out),),
                label=f"vreducev2 {instr.mask.name} rows {r0}+{n} x{n}",
            )
    else:
        R, C = d.valid
        for i in range(R):
            r = instr.src_row(i)
            vs.call(
                "vcopy",
                count_chunk(C, E),
                reads=(rows_region(s, r, 1, 0, C),),
                writes=(rows_region(d, i, 1, 0, C),),
                label=f"vcopy row {i} <- src row {r}",
            )
    return vs.steps()


def _flat(ref, first: int, end: int) -> Region:
    sz = ref.dtype.size_bytes
    return Region("UB", ref.address + first * sz, ref.address + end * sz)


def plan_gatherb(instr: TGatherB, ctx) -> list[Step]:
    d, s, off = instr.dst, instr.src, instr.offset
    R, C = d.valid
    sz = d.dtype.size_bytes
    rb = ctx.config.timing.vector.repeat_bytes
    vs = VecStream(ctx, d.dtype)
    for i in range(R):
        vs.call(
            "vgatherb",
            rows_chunk(ceil_div(C * sz, rb), rb // sz, rb // sz, count_mode=False),
            reads=(rows_region(off, i, 1, 0, C * sz // BLOCK), tile_region(s)),
            writes=(rows_region(d, i, 1, 0, C),),
            label=f"vgatherb row {i}",
        )
    return vs.steps()


def plan_gather_cmp(instr: TGatherCmp, ctx) -> list[Step]:
    """a2a3/TGather.hpp, compare form: the scalar index ramp (one UB store per element of src0's
    tile), S->V, the k conversion (``vconv_*``; int32: a scalar copy per row), then per row a
    V->S / scalar load of k / S->V and ``vcmpvs_<mode>`` over the row's repeats, a barrier, and
    per row a count-mode ``vreducev2`` of C elements and the scalar store of its count."""
    d, s, k, c, t = instr.dst, instr.src0, instr.k_value, instr.cdst, instr.tmp
    R, C = s.valid
    sc = ctx.config.timing.scalar
    vs = VecStream(ctx, s.dtype)
    tmp = Region("UB", t.address, t.address + t.rows * t.cols + s.rows * s.cols * 4 + 256)
    n = s.rows * s.cols
    # the ramp reads no operand: its step does not open the data window (which the vector
    # steps after the kernel's MTE2 -> V flag do)
    vs.scalar(n * (sc.ub_store_cycles + sc.loop_cycles), f"index ramp {n}", writes=(tmp,),
              data=False)  # fmt: skip
    vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
    E = 256 // s.dtype.size_bytes
    if s.dtype.is_int:
        vs.scalar(s.rows * (sc.ub_load_cycles + sc.ub_store_cycles), "k copy",
                  reads=(tile_region(k),), writes=(tmp,), data=False)  # fmt: skip
    else:
        cvt = "vconv_s322f32" if s.dtype.size_bytes == 4 else "vconv_s162f16"
        vs.call(cvt, Chunk(ceil_div(R, E), E, per_repeat=E), reads=(tile_region(k),),
                writes=(tmp,), label=f"{cvt} k")  # fmt: skip
    op = f"vcmpvs_{instr.cmp_mode.lower()}"
    for i in range(R):
        vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
        vs.scalar(sc.ub_load_cycles, f"k row {i}", reads=(tmp,))
        vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
        row = rows_region(s, i, 1, 0, C)
        repeats = Chunk(ceil_div(C, E), E, per_repeat=E)
        vs.call(op, repeats, reads=(row,), writes=(tmp,), label=f"{op} row {i}")
    vs.barrier()
    for i in range(R):
        out = rows_region(d, i, 1, 0, C, d.cols)
        vs.call(
            "vreducev2", count_chunk(C, 64), reads=(tmp,), writes=(out,), label=f"vreducev2 {i}"
        )
        vs.scalar(sc.ub_store_cycles, f"count row {i}", writes=(tile_region(c),))
    return vs.steps()


PLANS = {
    TGatherCmp: plan_gather_cmp,
    TReshape: plan_view,
    TSubView: plan_view,
    TFillPad: plan_fillpad,
    TTrans: plan_trans,
    TTri: plan_tri,
    TExtract: plan_extract,
    TGather: plan_gather,
    TGatherMask: plan_gather_mask,
    TGatherB: plan_gatherb,
}
