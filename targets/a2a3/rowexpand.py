"""A2/A3 plans of TROWEXPAND and TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF} (semantics.md 3.4).

Binary family (``TRowExpandBin``), pure V work, no set/wait flags inside (semantics.md 4.3);
``bs = 32/sizeof(T)`` elements per block, ``epr = 256/sizeof(T)`` elements per repeat, ``R, C`` =
dst's valid shape, F = the full operand, E = the expanded one:

* Mode 1 (E ColMajor, one scalar per row): ``vbrcb`` broadcasts E into one 32-byte block per row
  (``ceil(n/8)`` repeats for n rows) in the hidden scratch ``UB[184 KiB, ...)`` (3-operand form)
  or the tmp tile (4-operand form); ``pipe_barrier(PIPE_V)``; then the op with the blocks as the
  second source. Mode 2 (E RowMajor, one block per row): the op directly.
* Count vs norm mode: ``useCount = DstRowStride/bs > 255 or FRowStride/bs > 255 or C/epr > R``.
  Count mode: one intrinsic per row, ``ceil(C/epr)`` repeats (count mask: partial floor). Norm
  mode: rows are repeats (one call covers the n <= 255 rows of a chunk); a row narrower than one
  repeat (``DstRowStride < epr`` or ``FRowStride < epr``) takes a single call with a C-lane mask;
  else ``C // epr`` full-mask calls plus one tail call with a ``C % epr``-lane mask.
* R >= 256: chunks of 240 rows (mode 1, vbrcb 30 repeats) or 255 rows (mode 2), each chunk
  between ``pipe_barrier(PIPE_V)`` steps.
* Intrinsics: vmax, vmin, vadd, vsub, vmul, vdiv; EXPDIF is vsub then vexp on the same lanes.

TROWEXPAND (plain broadcast, vector_isa.md 3.6): the general path is count mode with, per row,
a V->S handshake, a scalar read of ``src[i, 0]``, an S->V handshake and a ``vector_dup`` of the
row (timing.md V3 measures it); only static full b16/b32 tiles with dst ``[M, 32/sizeof T]`` and
a ``[1, M]`` row or ``[M, 1]`` ColMajor column source take the ``vbrcb`` fast path.

Vector tails: an intrinsic pays its ``tail`` when the vector stream drains, i.e. on the last
intrinsic of the instruction and on an intrinsic directly followed by ``pipe_barrier(PIPE_V)``
or a handshake (costs: targets/costs.py, docs/calibration.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ptosim.enums import Pipe
from ptosim.isa.rowexpand import (
    CHUNK_ROWS,
    CHUNK_THRESHOLD,
    REPEAT_BYTES,
    TRowExpand,
    TRowExpandBinary,
)
from ptosim.plan import Region, Step, StepKind

from ..common import ROWEXPAND_INTRINSICS
from ..costs import ceil_div, rows_region, vector_step
from .vec import Chunk, VecStream

REPEAT_MAX = 255  # repeat count / repeat stride fields are 8 bits
ROWS_PER_VBRCB_REPEAT = 8  # one vbrcb repeat: 8 elements -> 8 blocks of 32 bytes

_INTRINSICS = ROWEXPAND_INTRINSICS


def _rows_region(ref, r0: int, n: int, cols: int, pitch: int | None = None) -> Region:
    """UB bytes of rows [r0, r0 + n), ``cols`` elements each, at ``pitch`` elements per row."""
    return rows_region(ref, r0, n, 0, cols, ref.cols if pitch is None else pitch)


_BARRIER = "barrier"


class _Spec(NamedTuple):
    """One vector intrinsic to emit (its tail is decided once the sequence is known)."""

    op: str
    repeats: int
    label: str
    partial: bool
    reads: tuple
    writes: tuple
    args: dict


class _Calls:
    """The row-expand op calls (count or norm mode) of one instruction, as step specs."""

    def __init__(self, ctx, intrinsics, dst, full, full_pitch: int, R: int, C: int):
        t = ctx.config.timing
        self.intrinsics = intrinsics
        self.dst, self.full, self.full_pitch = dst, full, full_pitch
        self.C = C
        sz = dst.dtype.size_bytes
        self.bs, self.epr = 32 // sz, t.vector.repeat_bytes // sz
        stride_too_big = max(dst.cols, full_pitch) // self.bs > REPEAT_MAX
        self.count = stride_too_big or C // self.epr > R
        self.narrow = dst.cols < self.epr or full_pitch < self.epr

    def _emit(
        self,
        out: list,
        r0: int,
        n: int,
        c0: int,
        c1: int,
        blocks: Region,
        *,
        label: str,
        repeats: int,
        partial: bool,
        args: dict,
    ) -> None:
        """One call (two for EXPDIF) over columns [c0, c1) of rows [r0, r0 + n)."""
        reads = (blocks,)
        if self.full is not None:
            reads = (rows_region(self.full, r0, n, c0, c1, self.full_pitch), blocks)
        writes = (rows_region(self.dst, r0, n, c0, c1, self.dst.cols),)
        mask = "count" if self.count else ("partial" if partial else "full")
        info = {"lanes": c1 - c0, "mask": mask, **args}
        for op in self.intrinsics:
            out.append(_Spec(op, repeats, f"{op} {label}", partial, reads, writes, info))

    def chunk(self, r0: int, n: int, block_src) -> list[_Spec]:
        """Specs for rows [r0, r0 + n); ``block_src(r0, n)`` = the region of their blocks."""
        C, epr, out = self.C, self.epr, []
        if n <= 0 or C <= 0:
            return out
        if self.count:  # one intrinsic per row, the count mask covers C elements
            reps = ceil_div(C, epr)
            for i in range(r0, r0 + n):
                self._emit(
                    out,
                    i,
                    1,
                    0,
                    C,
                    block_src(i, 1),
                    label=f"row {i} x{reps}",
                    repeats=reps,
                    partial=True,
                    args={"row": i, "elements": C},
                )
            return out
        blocks = block_src(r0, n)  # norm mode: the rows are the repeats
        info = {"rows": n, "first_row": r0}
        if self.narrow:
            self._emit(
                out,
                r0,
                n,
                0,
                C,
                blocks,
                label=f"rows {r0}+{n} x{n}",
                repeats=n,
                partial=epr > C,
                args={**info, "elements": C},
            )
            return out
        full_calls, tail = divmod(C, epr)
        for c0 in range(0, full_calls * epr, epr):
            self._emit(
                out,
                r0,
                n,
                c0,
                c0 + epr,
                blocks,
                label=f"rows {r0}+{n} cols {c0}+ x{n}",
                repeats=n,
                partial=False,
                args={**info, "first_col": c0},
            )
        if tail:
            c0 = full_calls * epr
            self._emit(
                out,
                r0,
                n,
                c0,
                C,
                blocks,
                label=f"rows {r0}+{n} cols {c0}+ x{n}",
                repeats=n,
                partial=True,
                args={**info, "first_col": c0},
            )
        return out


def _vbrcb_reads(e, r0: int, reps: int) -> Region:
    """vbrcb reads whole repeats of 8 elements of the packed vector ``e`` from row ``r0``."""
    sz = e.dtype.size_bytes
    return Region("UB", e.address + r0 * sz, e.address + (r0 + reps * ROWS_PER_VBRCB_REPEAT) * sz)


def _plan_rows(ctx, calls: _Calls, R: int, block_src, vbrcb=None) -> list[Step]:
    """The chunk loop: [vbrcb, barrier,] op calls; each chunk between barriers when R >= 256.

    ``vbrcb(r0, reps)`` -> (read region, write region) of a chunk's vbrcb (mode 1), or None.
    """
    t = ctx.config.timing
    mode1 = vbrcb is not None
    chunked = R >= CHUNK_THRESHOLD
    size = (CHUNK_ROWS if mode1 else REPEAT_MAX) if chunked else R
    specs: list = []
    for r0 in range(0, R, size):
        n = min(size, R - r0)
        if chunked:
            specs.append(_BARRIER)
        if mode1:
            reps = ceil_div(n, ROWS_PER_VBRCB_REPEAT)
            reads, writes = vbrcb(r0, reps)
            info = {"rows": n, "first_row": r0, "blocks": reps * ROWS_PER_VBRCB_REPEAT}
            specs += [
                _Spec(
                    "vbrcb", reps, f"vbrcb rows {r0}+{n} x{reps}", False, (reads,), (writes,), info
                ),
                _BARRIER,
            ]
        specs += calls.chunk(r0, n, block_src)
        if chunked:
            specs.append(_BARRIER)
    steps: list[Step] = []
    last_vec = max((k for k, sp in enumerate(specs) if sp is not _BARRIER), default=-1)
    for k, sp in enumerate(specs):
        if sp is _BARRIER:
            steps.append(
                Step(
                    Pipe.PIPE_V,
                    StepKind.BARRIER,
                    t.scalar.barrier_cycles,
                    "pipe_barrier(PIPE_V)",
                    data=False,
                )
            )
            continue
        drains = k == last_vec or (k + 1 < len(specs) and specs[k + 1] is _BARRIER)
        step = vector_step(
            t,
            sp.op,
            sp.repeats,
            sp.label,
            last=drains,
            partial=sp.partial,
            reads=sp.reads,
            writes=sp.writes,
        )
        step.args.update(sp.args)
        steps.append(step)
    return steps


def plan_rowexpand_binary(instr: TRowExpandBinary, ctx) -> list[Step]:
    d = instr.dst
    R, C = d.valid
    if R == 0:
        return []
    f_name, e_name = instr.roles(ctx.arch)
    f, e = getattr(instr, f_name), getattr(instr, e_name)
    bs = d.dtype.c0
    calls = _Calls(ctx, _INTRINSICS[instr.op], d, f, f.cols, R, C)
    if e.geom.is_row_major:  # mode 2: E rows at pitch bs (D9)
        return _plan_rows(ctx, calls, R, lambda r0, n: _rows_region(e, r0, n, bs, bs))
    # mode 1: blocks in the hidden scratch (3 operands) or the tmp tile (4 operands); every
    # chunk's blocks start at the buffer base
    base = ctx.spec.broadcast.hidden_scratch[0] if instr.tmp is None else instr.tmp.address
    chunk_rows = CHUNK_ROWS if R >= CHUNK_THRESHOLD else R

    def vbrcb(r0, reps):
        return _vbrcb_reads(e, r0, reps), Region("UB", base, base + reps * REPEAT_BYTES)

    def block_src(r0, n):
        k = r0 % chunk_rows
        return Region("UB", base + k * 32, base + (k + n) * 32)

    return _plan_rows(ctx, calls, R, block_src, vbrcb)


VBRCB_REPEATS_MAX = 254  # the fast path splits its vbrcb into calls of <= 254 repeats


def _fast_path(d, s) -> bool:
    """The vbrcb fast path of TROWEXPAND (vector_isa.md 3.6): static full b16/b32 tiles, dst
    ``[M, 32/sizeof T]`` and src one ``[1, M]`` RowMajor row or one ``[M, 1]`` ColMajor column."""
    sz = d.dtype.size_bytes
    full = all(t.static_valid and t.valid == (t.rows, t.cols) for t in (d, s))
    m = d.rows
    src_ok = (s.geom.is_row_major and (s.rows, s.cols) == (1, m)) or (
        not s.geom.is_row_major and (s.rows, s.cols) == (m, 1)
    )
    return sz in (2, 4) and full and d.cols * sz == 32 and src_ok


def plan_rowexpand(instr: TRowExpand, ctx) -> list[Step]:
    """TROWEXPAND: the vbrcb fast path for the static shapes it covers; otherwise the general
    path (vector_isa.md 3.6, timing.md V3): count mode, and per row a V->S handshake, a scalar
    read of ``src[i, 0]``, an S->V handshake and one count-mode ``vector_dup`` of the row."""
    d, s = instr.dst, instr.src
    R, C = d.valid
    if R == 0 or C == 0:
        return []
    if _fast_path(d, s):
        return _plan_vbrcb(ctx, d, s)
    t = ctx.config.timing
    sz = d.dtype.size_bytes
    lanes = max(sz, 2)  # 1-byte types go through 16-bit lanes: ceil(C/2) lanes
    n = ceil_div(C * sz, lanes)
    per_repeat = t.vector.repeat_bytes // lanes
    c_written = n * lanes // sz  # an odd 1-byte width writes one padding byte
    src_at = s.address + s.offsets(np.arange(R), np.zeros(R, dtype=np.int64)) * s.dtype.size_bytes
    stream = VecStream(ctx, d.dtype)
    for i in range(R):
        stream.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
        a = int(src_at[i])
        stream.scalar(
            t.scalar.ub_load_cycles,
            f"read src[{i}, 0]",
            reads=(Region("UB", a, a + s.dtype.size_bytes),),
            row=i,
        )
        stream.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
        chunk = Chunk(ceil_div(n, per_repeat), per_repeat, True, row=i, rows=1, cols=c_written)
        stream.call(
            "vector_dup",
            chunk,
            writes=(rows_region(d, i, 1, 0, min(c_written, d.cols), d.cols),),
            label=f"vector_dup row {i} x{chunk.repeats}",
            row=i,
            elements=C,
        )
    return stream.steps()


def _plan_vbrcb(ctx, d, s) -> list[Step]:
    """vbrcb of the whole source: 8 elements -> 8 blocks (one dst row each) per repeat."""
    t = ctx.config.timing
    M, sz = d.rows, d.dtype.size_bytes
    reps = ceil_div(M, ROWS_PER_VBRCB_REPEAT)
    steps = []
    for k0 in range(0, reps, VBRCB_REPEATS_MAX):
        k = min(VBRCB_REPEATS_MAX, reps - k0)
        r0 = k0 * ROWS_PER_VBRCB_REPEAT
        r1 = min(M, r0 + k * ROWS_PER_VBRCB_REPEAT)
        steps.append(
            vector_step(
                t,
                "vbrcb",
                k,
                f"vbrcb rows {r0}+{r1 - r0} x{k}",
                last=k0 + k == reps,
                reads=(Region("UB", s.address + r0 * sz, s.address + r1 * sz),),
                writes=(_rows_region(d, r0, r1 - r0, d.cols),),
            )
        )
        steps[-1].args.update(rows=r1 - r0, first_row=r0)
    return steps


PLANS = {TRowExpandBinary: plan_rowexpand_binary, TRowExpand: plan_rowexpand}
