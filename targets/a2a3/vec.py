"""The A2/A3 vector-instruction vocabulary shared by every vector plan (vector_isa.md 2.4, 2.5).

One *call* is one vector intrinsic (``vadd``, ``vcadd``, ``vconv_f322f16`` ...) with its repeat
count: ``E = 256/sizeof(T)`` elements per repeat, the repeat field is 8 bits (at most 255 per
call, so a longer norm-mode run is split), a norm-mode call may carry a partial lane mask, and
a count-mode call (``set_mask_count``) processes ``N`` consecutive elements in ``ceil(N/E)``
repeats. ``VecStream`` collects the calls, ``pipe_barrier(PIPE_V)`` steps, scalar steps and the
library's V<->S handshakes of one instruction in program order and turns them into steps: an
intrinsic pays its ``tail`` (the drain of the vector stream) when it is the last vector call of
the instruction or directly followed by a barrier or a handshake.

``elementwise_chunks`` reproduces the three lowering skeletons of the reference a2a3 library
(vector_isa.md 2.5): (A) tile-tile binary ``TBinOp``, (B) tile-scalar ``TBinSOp``, (C) unary
``TUnaryOp``. It returns which elements each call covers, so every plan built on it has the
reference's intrinsic count, repeats, masks and modes, and byte regions per call.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ptosim.enums import Pipe
from ptosim.plan import Region, Step, StepKind, handshake

from ..costs import ceil_div, dtype_name, scalar_step, vector_step

REPEAT_BYTES = 256
BLOCK_BYTES = 32
REPEAT_MAX = 255  # repeat count and repeat stride are 8-bit fields


@dataclass(frozen=True)
class Chunk:
    """The elements one call covers.

    Flat (``rows == 0``): elements ``[first, first + count)`` of every operand's storage,
    contiguous (a continuous tile). 2-D: rows ``[row, row + rows)`` and columns
    ``[col, col + cols)`` of every operand, each at its own row pitch (its Cols).
    ``repeats``: the repeat count of the call; ``lanes``: the norm-mode lane mask width (E for
    a full mask); ``count_mode``: a count-mode call over ``count`` elements (flat) or ``cols``
    elements (one row).
    """

    repeats: int
    lanes: int
    count_mode: bool = False
    first: int = 0
    count: int = 0
    row: int = 0
    rows: int = 0
    col: int = 0
    cols: int = 0
    per_repeat: int = 0  # E of the call's dtype: a narrower lane mask is a partial mask

    @property
    def partial(self) -> bool:
        return self.count_mode or self.lanes < self.per_repeat

    def region(self, ref, pitch: int | None = None) -> Region:
        """UB bytes of ``ref`` this call touches (rows at ``pitch`` elements, default Cols)."""
        sz = ref.dtype.size_bytes
        if self.rows == 0:
            start = ref.address + self.first * sz
            return Region("UB", start, start + self.count * sz)
        p = ref.cols if pitch is None else pitch
        start = ref.address + (self.row * p + self.col) * sz
        end = ref.address + ((self.row + self.rows - 1) * p + self.col + self.cols) * sz
        return Region("UB", start, end)


def _flat(R: int, C: int, E: int, first: int = 0) -> list[Chunk]:
    """Norm mode over ``R*C`` contiguous elements: full repeats (<= 255 per call) then one
    masked repeat for the rest."""
    n = R * C
    out, done = [], 0
    full = n // E
    while full > 0:
        reps = min(full, REPEAT_MAX)
        out.append(Chunk(reps, E, first=first + done, count=reps * E))
        done += reps * E
        full -= reps
    if n - done:
        out.append(Chunk(1, n - done, first=first + done, count=n - done))
    return out


def _count_flat(R: int, C: int, E: int) -> list[Chunk]:
    n = R * C
    return [Chunk(ceil_div(n, E), E, True, first=0, count=n)] if n else []


def _continuous(R: int, C: int, Cols: int, E: int, *, tile_rows: int) -> list[Chunk]:
    """Skeleton step 2: the tile is one run of ``R*C`` elements."""
    if R * C == 0:
        return []
    if (Cols > E and Cols % E) or ceil_div(tile_rows * Cols, E) > REPEAT_MAX:
        return _count_flat(R, C, E)
    return _flat(R, C, E)


def _head_per_row(R: int, C: int, E: int) -> list[Chunk]:
    """Per row, the ``C // E`` full repeats of the row in calls of <= 255 repeats."""
    out: list[Chunk] = []
    head = C // E
    for r in range(R):
        for k0 in range(0, head, REPEAT_MAX):
            k = min(REPEAT_MAX, head - k0)
            out.append(Chunk(k, E, row=r, rows=1, col=k0 * E, cols=k * E))
    return out


def _tail_rows(R: int, C: int, E: int, B: int, pitches: list[int]) -> list[Chunk]:
    """The masked tail column chunk (``C % E`` lanes): rows as repeats (<= 255 per call), or
    one single-repeat call per row when a repeat stride does not fit 8 bits."""
    head, tail = divmod(C, E)
    if not tail:
        return []
    if max(pitches) // B <= REPEAT_MAX:
        return [
            Chunk(min(REPEAT_MAX, R - r0), tail, row=r0, rows=min(REPEAT_MAX, R - r0),
                  col=head * E, cols=tail)
            for r0 in range(0, R, REPEAT_MAX)
        ]  # fmt: skip
    return [Chunk(1, tail, row=r, rows=1, col=head * E, cols=tail) for r in range(R)]


def _row_repeat(
    R: int, C: int, E: int, B: int, pitches: list[int], tile_rows: int | None = None
) -> list[Chunk]:
    """The row-repeat form: with static ``Rows <= 255`` and every repeat stride ``Cols/B <=
    255``, one call per E-wide column chunk with the rows as repeats, then the masked tail
    chunk the same way; otherwise (and always for tiles of different shapes, ``tile_rows``
    None) the head per row (``_head_per_row``) and the tail as ``_tail_rows``."""
    if tile_rows is not None and tile_rows <= REPEAT_MAX and max(pitches) // B <= REPEAT_MAX:
        head = C // E
        out = [Chunk(R, E, row=0, rows=R, col=k * E, cols=E) for k in range(head)]
        return out + _tail_rows(R, C, E, B, pitches)
    return _head_per_row(R, C, E) + _tail_rows(R, C, E, B, pitches)


def _two_d(R: int, C: int, E: int, B: int, tile_rows: int, pitches: list[int]) -> list[Chunk]:
    """Skeleton step 3 (partial valid width): per-row count mode, per-row full repeats, or the
    row-repeat form."""
    n = pitches[0] // E
    if n > 1 and tile_rows * n < 4:
        return [Chunk(ceil_div(C, E), E, True, row=r, rows=1, cols=C) for r in range(R)]
    if tile_rows < n + 1:
        if C % E:
            return [Chunk(ceil_div(C, E), E, True, row=r, rows=1, cols=C) for r in range(R)]
        out = []
        for r in range(R):
            for k0 in range(0, C // E, REPEAT_MAX):
                k = min(REPEAT_MAX, C // E - k0)
                out.append(Chunk(k, E, row=r, rows=1, col=k0 * E, cols=k * E))
        return out
    return _row_repeat(R, C, E, B, pitches, tile_rows)


def _static_continuous(ref) -> bool:
    return ref.rows == 1 or (ref.static_valid and ref.valid_col == ref.cols)


def elementwise_chunks(skeleton: str, tiles: list, R: int, C: int) -> list[Chunk]:
    """The calls of one element-wise instruction over the valid region ``R x C``.

    Args:
        skeleton: ``"binary"`` (A), ``"scalar"`` (B) or ``"unary"`` (C).
        tiles: the tile operands, dst first (their dtype sets E; their Cols the row pitches).
        R, C: the valid shape iterated (dst's).
    """
    if R <= 0 or C <= 0:
        return []
    sz = max(t.dtype.size_bytes for t in tiles)
    E = REPEAT_BYTES // sz
    return [replace(c, per_repeat=E) for c in _skeleton(skeleton, tiles, R, C, sz)]


def _skeleton(skeleton: str, tiles: list, R: int, C: int, sz: int) -> list[Chunk]:
    E, B = REPEAT_BYTES // sz, BLOCK_BYTES // sz
    d = tiles[0]
    pitches = [t.cols for t in tiles]
    same_type = all((t.rows, t.cols) == (d.rows, d.cols) for t in tiles)
    continuous = all(_static_continuous(t) for t in tiles)
    if skeleton == "binary":
        if same_type and d.rows <= REPEAT_MAX and d.cols < E:  # small tile: one masked call
            return [Chunk(R, C, row=0, rows=R, col=0, cols=C)]
        if same_type and continuous:
            return _continuous(R, C, d.cols, E, tile_rows=d.rows)
        if same_type and (d.cols == C or R == 1):  # the runtime re-check
            return _continuous(R, C, d.cols, E, tile_rows=R)
        if not same_type:
            return _row_repeat(R, C, E, B, pitches) if R > 1 else _flat(1, C, E)
        return _two_d(R, C, E, B, d.rows, pitches)
    if skeleton == "scalar":
        # tiles narrower than E take the row-repeat form even when continuous (no small-tile
        # case; timing.md V10: a 256x16 fp32 TMULS is 255 + 1 masked repeats)
        if continuous and same_type and d.cols >= E:
            return _continuous(R, C, d.cols, E, tile_rows=d.rows)
        return _two_d(R, C, E, B, d.rows, pitches)
    if skeleton == "unary":
        if continuous:  # the count-mode test uses the static tile shape (Rows*Cols)
            if ceil_div(d.rows * d.cols, E) > REPEAT_MAX:
                return _count_flat(R, C, E)
            return _flat(R, C, E)
        if same_type and (d.cols == C or R == 1):
            return _flat(R, C, E) if ceil_div(R * C, E) <= REPEAT_MAX else _count_flat(R, C, E)
        return _two_d(R, C, E, B, d.rows, pitches)
    raise ValueError(f"unknown skeleton {skeleton!r}")


@dataclass
class VecStream:
    """The vector calls, barriers and scalar work of one a2a3 instruction, in program order.

    ``dtype``: the element type the calls work on (a DType or its name; per call ``dtype=``
    overrides it): some cost classes charge a repeat by element type (docs/calibration.md).
    """

    ctx: object
    dtype: object = None
    items: list = field(default_factory=list)

    def call(
        self, op: str, chunk: Chunk, *, reads=(), writes=(), label: str = "", dtype=None, **args
    ) -> None:
        """One intrinsic call covering ``chunk`` (regions: the bytes it reads and writes)."""
        mask = "count" if chunk.count_mode else ("partial" if chunk.partial else "full")
        dt = dtype_name(self.dtype if dtype is None else dtype)
        self.items.append(
            ("call", op, chunk, tuple(reads), tuple(writes), label, {"mask": mask, **args}, dt)
        )

    def barrier(self) -> None:
        """``pipe_barrier(PIPE_V)`` between dependent vector stages."""
        self.items.append(("barrier",))

    def handshake(self, src: Pipe, dst: Pipe) -> None:
        """The library's ``set_flag/wait_flag(src, dst, EVENT_ID0)`` pair."""
        self.items.append(("flags", src, dst))

    def scalar(self, cycles: int, label: str, *, reads=(), writes=(), data=True, **args) -> None:
        """Scalar-unit work on PIPE_S (a UB load, a combine loop, a store). ``data=False``: a
        step that reads nothing the instruction's semantics need (it may run before the loads
        the kernel's flags order for the vector steps; the data window opens later)."""
        if not data:
            args = {**args, "_data": False}
        self.items.append(("scalar", int(cycles), label, tuple(reads), tuple(writes), args))

    def steps(self) -> list[Step]:
        t = self.ctx.config.timing
        out: list[Step] = []
        items = self.items
        for k, it in enumerate(items):
            kind = it[0]
            if kind == "barrier":
                out.append(
                    Step(
                        Pipe.PIPE_V,
                        StepKind.BARRIER,
                        t.scalar.barrier_cycles,
                        "pipe_barrier(PIPE_V)",
                        data=False,
                    )
                )
            elif kind == "flags":
                out += handshake(it[1], it[2], t.scalar.flag_cycles)
            elif kind == "scalar":
                _, cycles, label, reads, writes, args = it
                data = args.get("_data", True)
                args = {k: v for k, v in args.items() if k != "_data"}
                out.append(
                    scalar_step(cycles, label, reads=reads, writes=writes, data=data, args=args)
                )
            else:
                _, op, ch, reads, writes, label, args, dt = it
                nxt = next((x for x in items[k + 1 :] if x[0] != "scalar"), None)
                drains = nxt is None or nxt[0] != "call"
                step = vector_step(
                    t,
                    op,
                    ch.repeats,
                    label or f"{op} x{ch.repeats}",
                    last=drains,
                    partial=ch.partial,
                    reads=reads,
                    writes=writes,
                    dtype=dt,
                )
                step.args.update(args, lanes=ch.lanes, count_mode=ch.count_mode)
                out.append(step)
        return out
