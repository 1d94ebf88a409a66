"""A2/A3 plan of TCVT (vector_isa.md 3.7, 2.4, 2.7).

Repeat structure (``a2a3/TCvt.hpp``): ``E = 256 / max(sizeof S, sizeof D)`` elements per repeat
(the wider type fills 8 blocks); over dst's valid ``R x C``:

* head: for each row, one call with ``C // E`` full repeats (split at 255 per call) -- per row
  even for a continuous tile (timing.md V19: fp32 -> fp16 4x64 issues
  ``vconv_f322f16r`` with 1 repeat, then 3 more);
* tail: when ``C % E``, a ``C % E``-lane mask and one call with repeat = R rows (<= 255 rows per
  call), repeat strides = the row pitches in blocks.

Around it, with NeedSetCtrl: ``get_ctrl``/``set_ctrl`` (CTRL bit 59 per the saturation) before
and ``set_ctrl`` (restore) after, control intrinsics of one issue each (scalar steps). i32 -> f16
is ``set_deqscale(1.0)``, ``pipe_barrier(PIPE_V)``, ``vconv_deq``. The two-step tmp paths (sat OFF
with a tmp tile): f32 -> i16 / f16 -> i16 = ``vconv_<s>2s32<m>`` into tmp, barrier,
``vconv_s322s16``; f16 -> i8 = per row, per chunk of <= 64 elements: ``vconv_f162s32<m>``,
``vconv_s322s16``, ``vand`` (0x00FF), ``vconv_s162f16``, ``vconv_f162s8z``, a barrier after each.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptosim import dtypes as D
from ptosim.enums import Pipe
from ptosim.isa.vector.convert import TCvt
from ptosim.isa.vector.quant import TCi, TDequant, TQuant
from ptosim.plan import Region, Step

from ..costs import ceil_div, vector_step
from .vec import REPEAT_BYTES, REPEAT_MAX, Chunk, VecStream

_CHUNK_F16_I8 = 64  # the f16 -> i8 two-step path works in chunks of <= 64 elements per row


def cvt_chunks(R: int, C: int, E: int) -> list[Chunk]:
    """The calls of one conversion pass over ``R x C`` (module doc: per-row head, row tail)."""
    out: list[Chunk] = []
    if R <= 0 or C <= 0:
        return out
    head, tail = divmod(C, E)
    for r in range(R):
        for k0 in range(0, head, REPEAT_MAX):
            k = min(REPEAT_MAX, head - k0)
            out.append(Chunk(k, E, row=r, rows=1, col=k0 * E, cols=k * E, per_repeat=E))
    if tail:
        for r0 in range(0, R, REPEAT_MAX):
            n = min(REPEAT_MAX, R - r0)
            out.append(Chunk(n, tail, row=r0, rows=n, col=head * E, cols=tail, per_repeat=E))
    return out


@dataclass(frozen=True)
class _I32View:
    """tmp seen as an int32 buffer with rows of ``cols`` elements (the intermediates)."""

    address: int
    cols: int
    dtype: D.DType = D.int32


def _ctrl(ctx, label: str) -> Step:
    """A control intrinsic (get_ctrl, set_ctrl, set_deqscale): no data, no repeats; costed as
    ``timing.vector.ops[name]`` (the cce model charges 1; ``other`` until calibrated)."""
    name = label.split("(")[0]
    return vector_step(ctx.config.timing, name, 0, label, last=False, data=False)


def _pass(st: VecStream, op: str, chunks, src, dst, **args) -> None:
    for ch in chunks:
        st.call(
            op,
            ch,
            reads=(ch.region(src),),
            writes=(ch.region(dst),),
            label=f"{op} rows {ch.row}+{max(ch.rows, 1)} x{ch.repeats}",
            **args,
        )


def plan_tcvt(instr: TCvt, ctx) -> list:
    conv = instr.conv or instr.conversion(ctx.spec.convert)
    d, s = instr.dst, instr.src
    R, C = d.valid
    st = VecStream(ctx, d.dtype)
    before: list[Step] = []
    if instr.need_set_ctrl:
        before += [
            _ctrl(ctx, "get_ctrl()"),
            _ctrl(ctx, f"set_ctrl(sat {'ON' if conv.sat else 'OFF'})"),
        ]
    wide = REPEAT_BYTES // max(s.dtype.size_bytes, d.dtype.size_bytes)
    info = {"pair": f"{s.dtype.name}->{d.dtype.name}", "rows": R, "cols": C}
    if conv.two_step:
        tmp = _I32View(instr.tmp.address, C)
        mode_suffix = conv.intrinsic[-1] if conv.intrinsic[-1] in "rafczo" else "z"
        src_short = "f32" if s.dtype.size_bytes == 4 else "f16"
        first = f"vconv_{src_short}2s32{mode_suffix}"
        e32 = REPEAT_BYTES // 4
        if d.dtype.size_bytes == 2:
            _pass(st, first, cvt_chunks(R, C, e32), s, tmp, **info)
            st.barrier()
            _pass(st, "vconv_s322s16", cvt_chunks(R, C, e32), tmp, d, **info)
        else:  # f16 -> i8 through i32, i16 (wrap), vand 0x00FF, f16, then i8
            for r in range(R):
                for c0 in range(0, C, _CHUNK_F16_I8):
                    n = min(_CHUNK_F16_I8, C - c0)
                    ch = Chunk(1, n, row=r, rows=1, col=c0, cols=n, per_repeat=e32)
                    for op, a, b in (
                        (first, s, tmp),
                        ("vconv_s322s16", tmp, tmp),
                        ("vand", tmp, tmp),
                        ("vconv_s162f16", tmp, tmp),
                        ("vconv_f162s8z", tmp, d),
                    ):
                        st.call(
                            op,
                            ch,
                            reads=(ch.region(a),),
                            writes=(ch.region(b),),
                            label=f"{op} row {r} cols {c0}+{n}",
                            **info,
                        )
                        st.barrier()
    else:
        if conv.intrinsic == "vconv_deq":
            before.append(_ctrl(ctx, "set_deqscale(1.0)"))
            st.barrier()
        _pass(st, conv.intrinsic, cvt_chunks(R, C, wide), s, d, **info)
    after = [_ctrl(ctx, "set_ctrl(restore)")] if instr.need_set_ctrl else []
    return before + st.steps() + after


PLANS = {TCvt: plan_tcvt}


# -- TQUANT / TDEQUANT / TCI (vector_isa.md 3.15, 3.21) ----------------------------------------
def _rows_region(ref, R: int, C: int, pitch_elems: int | None = None, size: int | None = None):
    sz = ref.dtype.size_bytes if size is None else size
    p = ref.cols if pitch_elems is None else pitch_elems
    end = ref.address + ((R - 1) * p + C) * sz if R and C else ref.address
    return Region("UB", ref.address, end)


def plan_tquant(instr: TQuant, ctx) -> list:
    """TROWEXPANDMUL(src, src, scale, tmp) [, TROWEXPANDADD(src, src, offset, tmp)] (vbrcb of the
    per-row parameter into tmp, barrier, the op per row-repeat), then TCVT f32->i32 into tmp,
    i32->f16 into src, f16->i8/u8 into dst, a barrier after each step."""
    d, s, t = instr.dst, instr.src, instr.tmp
    R, C = d.valid
    st = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return st.steps()
    params = [("vmul", instr.scale)]
    if instr.quant == "INT8_ASYM":
        params.append(("vadd", instr.offset))
    for op, p in params:
        st.call(
            "vbrcb",
            Chunk(ceil_div(R, 8), 8, per_repeat=8),
            reads=(Region("UB", p.address, p.address + R * 4),),
            writes=(Region("UB", t.address, t.address + ceil_div(R, 8) * 256),),
        )
        st.barrier()
        _pass(st, op, cvt_chunks(R, C, 64), s, s)
        st.barrier()
    tmp32 = _I32View(t.address, s.cols)
    half = _HalfView(s.address, s.cols)
    for op, a, b, e in (
        ("vconv_f322s32r", s, tmp32, 64),
        ("vconv_s322f16r", tmp32, half, 64),
        ("vconv_f162s8r" if d.dtype is D.int8 else "vconv_f162u8r", half, d, 128),
    ):
        _pass(st, op, cvt_chunks(R, C, e), a, b)
        st.barrier()
    return st.steps()


@dataclass(frozen=True)
class _HalfView:
    address: int
    cols: int
    dtype: D.DType = D.half


def plan_tdequant(instr: TDequant, ctx) -> list:
    d, s = instr.dst, instr.src
    R, C = d.valid
    st = VecStream(ctx, d.dtype)
    if R == 0 or C == 0:
        return st.steps()
    if s.dtype is D.int8:  # s8 -> f16 (in dst's bytes) -> f32
        half = _HalfView(d.address, d.cols)
        _pass(st, "vconv_s82f16", cvt_chunks(R, C, 128), s, half)
        st.barrier()
        _pass(st, "vconv_f162f32", cvt_chunks(R, C, 64), half, d)
    else:
        _pass(st, "vconv_s162f32", cvt_chunks(R, C, 64), s, d)
    st.barrier()
    t = ctx.config.timing.scalar
    for i in range(R):
        st.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
        for p in (instr.offset, instr.scale):
            at = p.address + i * p.cols * 4
            st.scalar(t.ub_load_cycles, f"load row {i} param", reads=(Region("UB", at, at + 4),))
        st.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
        ch = Chunk(ceil_div(C, 64), 64, True, row=i, rows=1, col=0, cols=C, per_repeat=64)
        for op in ("vadds", "vmuls"):
            st.call(op, ch, reads=(ch.region(d),), writes=(ch.region(d),), label=f"{op} row {i}")
            st.barrier()
    return st.steps()


def plan_tci(instr: TCi, ctx) -> list:
    d = instr.dst
    C = d.valid_col if d.valid_row else 0
    st = VecStream(ctx, d.dtype)
    t = ctx.config.timing.scalar
    if C == 0:
        return st.steps()
    if instr.tmp is None:  # a scalar loop writing UB directly
        st.scalar(
            C * (t.ub_store_cycles + t.loop_cycles),
            f"scalar loop x{C}",
            writes=(_rows_region(d, 1, C),),
            elements=C,
        )
        return st.steps()
    E = REPEAT_BYTES // d.dtype.size_bytes
    tmp_reg = Region("UB", instr.tmp.address, instr.tmp.address + instr.tmp.size_bytes)
    conv = "vconv_f322s32r" if d.dtype.size_bytes == 4 else "vconv_f162s16r"
    for op in ("vector_dup", "vcgadd", "vbrcb", "vadd", conv):
        st.call(op, Chunk(1, E, per_repeat=E), reads=(tmp_reg,), writes=(tmp_reg,))
        st.barrier()
    ch = Chunk(ceil_div(C, E), E, True, first=0, count=C, per_repeat=E)
    st.call("vadds", ch, reads=(tmp_reg,), writes=(_rows_region(d, 1, C),))
    return st.steps()


PLANS.update({TQuant: plan_tquant, TDequant: plan_tdequant, TCi: plan_tci})
