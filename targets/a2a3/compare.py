"""A2/A3 plans of TCMP, TCMPS, TSEL, TSELS (vector_isa.md 3.19, 3.20, 2.7).

* TCMP / TCMPS: per row, ``ceil(C/E)`` full-mask repeats of ``vcmpv_<mode>`` (``vcmpvs_<mode>``
  for TCMPS), at most 240 repeats per call; each repeat writes ``E/8`` mask bytes at
  ``dst + i*dst.Cols``. int32 always issues ``_eq``; NE issues ``_eq``, then after all rows
  ``pipe_barrier(PIPE_V)`` and one count-mode ``vnot`` over the ``R*dst.Cols`` mask bytes
  (16-bit lanes). The TCMPS tile form first loads ``src1[0]`` on PIPE_S after the V->S, MTE1->S
  and MTE2->S handshakes.
* TSEL: count mode, per row: ``vector_dup`` of the mask row into tmp, barrier,
  ``set_cmpmask(tmp)``, barrier, ``vsel`` (TENSOR_TENSOR) with count = C.
* TSELS: the scalar stored into tmp[0] on PIPE_S, S->V handshake, ``set_cmpmask(tmp)``,
  barrier, then per row one count-mode ``vsel`` (TENSOR_SCALAR) with the mask row.
"""

from __future__ import annotations

from ptosim.enums import Pipe
from ptosim.isa.vector.compare import CHUNK_REPEATS, REPEAT_BYTES, TCmp, TCmpS, TSel, TSelS
from ptosim.plan import Region

from ..costs import ceil_div, scalar_step
from .vec import Chunk, VecStream


def _span(ref, first_byte: int, n_bytes: int) -> Region:
    start = ref.address + first_byte
    return Region("UB", start, start + max(n_bytes, 0))


def plan_cmp(instr, ctx) -> list:
    d, s0, s1 = instr.dst, instr.src0, instr.src1
    R, C = s0.valid
    st = VecStream(ctx, d.dtype)
    sz = s0.dtype.size_bytes
    E = REPEAT_BYTES // sz
    mode = instr.effective_mode(ctx.arch)
    mode = "EQ" if mode == "NE" else mode
    op = ("vcmpvs_" if instr.opcode == "TCMPS" else "vcmpv_") + mode.lower()
    if instr.opcode == "TCMPS" and s1 is not None:  # scalar load of src1[0]
        for src in (Pipe.PIPE_V, Pipe.PIPE_MTE1, Pipe.PIPE_MTE2):
            st.handshake(src, Pipe.PIPE_S)
        st.scalar(
            ctx.config.timing.scalar.ub_load_cycles,
            "load src1[0]",
            reads=(_span(s1, 0, s1.dtype.size_bytes),),
        )
    pitch = d.cols * d.dtype.size_bytes
    reps_row = ceil_div(C, E) if C > 0 else 0
    for i in range(R):
        for k0 in range(0, reps_row, CHUNK_REPEATS):
            k = min(CHUNK_REPEATS, reps_row - k0)
            ch = Chunk(k, E, row=i, rows=1, col=k0 * E, cols=k * E, per_repeat=E)
            reads = [_span(s0, (i * s0.cols + k0 * E) * sz, k * E * sz)]
            if s1 is not None and instr.opcode == "TCMP":
                reads.append(_span(s1, (i * s1.cols + k0 * E) * sz, k * E * sz))
            st.call(
                op,
                ch,
                reads=reads,
                writes=(_span(d, i * pitch + k0 * E // 8, k * E // 8),),
                label=f"{op} row {i} x{k}",
                row=i,
            )
    if instr.cmp_mode == "NE" and R > 0 and C > 0:
        st.barrier()
        n = R * pitch // 2  # bytes as 16-bit lanes
        ch = Chunk(ceil_div(n, 128), 128, True, first=0, count=n, per_repeat=128)
        st.call("vnot", ch, reads=(_span(d, 0, R * pitch),), writes=(_span(d, 0, R * pitch),))
    return st.steps()


def _control(st: VecStream, name: str, reads=()) -> None:
    """A control intrinsic (set_cmpmask): no repeats."""
    st.call(name, Chunk(0, 0), reads=reads, label=name)


def plan_tsel(instr: TSel, ctx) -> list:
    d, m, tmp = instr.dst, instr.mask, instr.tmp
    R, C = d.valid
    st = VecStream(ctx, d.dtype)
    sz = d.dtype.size_bytes
    E = REPEAT_BYTES // sz
    mpitch = m.cols * m.dtype.size_bytes
    tmp_reg = _span(tmp, 0, 32) if tmp is not None else None
    for i in range(R if C > 0 else 0):
        mrow = _span(m, i * mpitch, ceil_div(C, 8))
        dup = Chunk(1, 8, per_repeat=64)
        st.call("vector_dup", dup, reads=(mrow,), writes=(tmp_reg,) if tmp_reg else (), row=i)
        st.barrier()
        _control(st, "set_cmpmask", reads=(tmp_reg,) if tmp_reg else ())
        st.barrier()
        ch = Chunk(ceil_div(C, E), E, True, row=i, rows=1, col=0, cols=C, per_repeat=E)
        st.call(
            "vsel",
            ch,
            reads=(ch.region(instr.src0), ch.region(instr.src1)),
            writes=(ch.region(d),),
            label=f"vsel row {i}",
            row=i,
        )
    return st.steps()


def plan_tsels(instr: TSelS, ctx) -> list:
    d, m, tmp = instr.dst, instr.mask, instr.tmp
    R, C = d.valid
    st = VecStream(ctx, d.dtype)
    E = REPEAT_BYTES // d.dtype.size_bytes
    tmp_reg = _span(tmp, 0, d.dtype.size_bytes) if tmp is not None else None
    # The scalar store only fills tmp: not the instruction's data window (which the vsel opens;
    # it must see the sources the kernel's own flags order before PIPE_V).
    store = scalar_step(
        ctx.config.timing.scalar.ub_store_cycles,
        "store scalar -> tmp[0]",
        writes=(tmp_reg,) if tmp_reg else (),
        data=False,
    )
    st.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
    _control(st, "set_cmpmask", reads=(tmp_reg,) if tmp_reg else ())
    st.barrier()
    mpitch = m.cols * m.dtype.size_bytes
    for i in range(R if C > 0 else 0):
        ch = Chunk(ceil_div(C, E), E, True, row=i, rows=1, col=0, cols=C, per_repeat=E)
        st.call(
            "vsel",
            ch,
            reads=(ch.region(instr.src0), _span(m, i * mpitch, ceil_div(C, 8))),
            writes=(ch.region(d),),
            label=f"vsel row {i}",
            row=i,
        )
    return [store] + st.steps()


PLANS = {TCmp: plan_cmp, TCmpS: plan_cmp, TSel: plan_tsel, TSelS: plan_tsels}
