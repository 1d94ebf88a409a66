"""Data effects at simulated time: an instruction samples its inputs when its first data step
starts and commits its outputs when its last data step ends (DESIGN.md section 3).

``begin`` runs the instruction's reference semantics against the memories as they are at that
moment, records the bytes it changed, and puts the old bytes back; ``commit`` writes the recorded
bytes. Other pipes therefore see the old contents until the commit, which is what makes a kernel
with a missing flag read stale data. Limitation: a write that stores the value already present is
not recorded (it cannot change what anyone reads unless another pipe writes the same bytes in
between, a race the hazard checker reports).

Write footprint. ``begin`` snapshots only the bytes the instruction can write, so its cost is
the size of what it touches, not of the memories (a long kernel's cost grows linearly with its
length). The footprint is observed, not declared: with a :class:`TrackedScratchpad` UB / L1 and
a :class:`TrackedContext`, every view an instruction takes of a memory it writes (a tile's
storage, ``memory_from``, a scratch area: all go through ``Scratchpad.typed``) and every GM
element range it bounds-checks in a buffer it writes (``ExecContext.gm_check``, which every GM
access calls before it touches anything) is copied the first time it is taken, before anything
can be written through it. Bytes outside those views cannot change. With plain memories
(contexts built by hand) the whole written memories are copied, as before. ``CHECK_FOOTPRINT``
(or the environment variable ``PTOSIM_CHECK_FOOTPRINT=1``) also copies every memory and raises
when a byte outside the footprint changed: the test suite's guard against an instruction that
writes past the views it took.

A hardware atomic (an instruction whose plan marks a step ``atomic``, ``plan.Step``) is not a
snapshot: two cores adding into one table at overlapping times must both land. Its commit
therefore applies the instruction again to the GM as it is at commit time, with the UB contents
sampled when it began (its inputs), so the update accumulates onto whatever other cores
committed in between instead of overwriting it.
"""

from __future__ import annotations

import os

import numpy as np

from ..isa.base import ExecContext, Instruction
from ..memory import SPACE_OF_LOC, Scratchpad
from ..tensors import GmRef, TileRef

# Verify on every instruction that no byte outside its footprint changed (slow: copies every
# memory). Tests turn it on; so does PTOSIM_CHECK_FOOTPRINT=1.
CHECK_FOOTPRINT = os.environ.get("PTOSIM_CHECK_FOOTPRINT", "") not in ("", "0")


class FootprintError(AssertionError):
    """An instruction changed a byte outside the views it took (an engine or ISA bug)."""


class Footprint:
    """The byte spans an executing instruction took of the memories it writes, each with its
    bytes as they were before the instruction ran."""

    __slots__ = ("written", "spans")

    def __init__(self, written: list[np.ndarray]):
        self.written = {id(a) for a in written}
        self.spans: list[tuple[np.ndarray, int, int, np.ndarray]] = []  # array, lo, hi, old

    def touch(self, arr: np.ndarray, lo: int, hi: int) -> None:
        """Snapshot bytes [lo, hi) of ``arr`` unless already held (or ``arr`` is not written)."""
        if hi <= lo or id(arr) not in self.written:
            return
        for a, l0, h0, _ in self.spans:
            if a is arr and l0 <= lo and hi <= h0:
                return
        old = arr[lo:hi].copy()
        for a, l0, h0, o in self.spans:  # bytes held already: their copy is the original
            if a is arr and l0 < hi and lo < h0:
                s, e = max(l0, lo), min(h0, hi)
                old[s - lo : e - lo] = o[s - l0 : e - l0]
        self.spans.append((arr, lo, hi, old))

    def restore(self) -> None:
        for a, lo, hi, old in reversed(self.spans):
            a[lo:hi] = old


class TrackedScratchpad(Scratchpad):
    """An on-chip buffer (UB, L1, L0A ...) whose views are recorded in the active footprint
    (see the module docstring)."""

    footprint: Footprint | None = None

    def typed(self, address, dt, count=None, *, what=""):
        view = super().typed(address, dt, count, what=what)
        if self.footprint is not None:
            self.footprint.touch(self.data, address, address + view.nbytes)
        return view


class TrackedContext(ExecContext):
    """An ExecContext that records the GM ranges an instruction bounds-checks."""

    footprint: Footprint | None = None

    def gm_check(self, ref: GmRef, offsets, operand: str, *, read: bool = False) -> None:
        # raises before anything is recorded; the bounds stay inside the buffer
        bounds = self._gm_bounds(ref, offsets, operand, read)
        fp = self.footprint
        if fp is not None and bounds is not None:
            size = ref.dtype.size_bytes
            fp.touch(ref.buffer.data, bounds[0] * size, (bounds[1] + 1) * size)


class PendingWrites:
    """The bytes one instruction changed, waiting to be committed (or, for a hardware atomic,
    the instruction to apply again at commit time)."""

    __slots__ = ("changes", "replay")

    def __init__(self):
        # (memory, first byte, the span's new bytes, which of them changed)
        self.changes: list[tuple[np.ndarray, int, np.ndarray, np.ndarray]] = []
        self.replay = None

    def commit(self) -> None:
        for target, lo, values, changed in self.changes:
            # only the changed bytes: another pipe may have written the others meanwhile
            np.copyto(target[lo : lo + values.size], values, where=changed)
        if self.replay is not None:
            self.replay()


def _replay(instr: Instruction, ctx: ExecContext):
    """Apply ``instr`` at commit time to the current GM, reading the on-chip buffers sampled
    now (its inputs: UB, or L0C for a fixpipe store)."""
    read = {
        SPACE_OF_LOC[v.loc]
        for v in (getattr(instr, name, None) for name in instr.reads)
        if isinstance(v, TileRef)
    }
    mems = [ctx.buffers[space] for space in sorted(read)]
    sampled = [m.data.copy() for m in mems]

    def replay() -> None:
        live, findings = [m.data for m in mems], ctx.findings
        for mem, data in zip(mems, sampled):
            mem.data = data
        ctx.findings, ctx.instr = [], instr
        try:
            instr.execute(ctx)  # same inputs as at begin: findings were reported then
        finally:
            for mem, data in zip(mems, live):
                mem.data = data
            ctx.findings, ctx.instr = findings, None

    return replay


def _written_arrays(instr: Instruction, ctx: ExecContext) -> list[np.ndarray]:
    arrays: list[np.ndarray] = []
    seen: set[int] = set()
    for name in instr.writes:
        value = getattr(instr, name, None)
        if isinstance(value, TileRef):
            arr = ctx.buffers[SPACE_OF_LOC[value.loc]].data
        elif isinstance(value, GmRef):
            arr = value.buffer.data
        else:
            continue
        if id(arr) not in seen:
            seen.add(id(arr))
            arrays.append(arr)
    for space in instr.written_spaces:  # raw copies into another core's buffer
        arr = ctx.buffers[space].data
        if id(arr) not in seen:
            seen.add(id(arr))
            arrays.append(arr)
    return arrays


def _tracked(ctx: ExecContext) -> bool:
    return isinstance(ctx, TrackedContext) and all(
        isinstance(m, TrackedScratchpad) for m in ctx.buffers.values()
    )


def _set_footprint(ctx: ExecContext, fp: Footprint | None) -> None:
    ctx.footprint = fp
    for mem in ctx.buffers.values():
        mem.footprint = fp


def _all_memories(ctx: ExecContext) -> list[np.ndarray]:
    return [m.data for m in ctx.buffers.values()] + [b.data for b in ctx.gm.buffers]


def _check_inside(instr: Instruction, fp: Footprint, full: list) -> None:
    """Raise FootprintError when a byte outside ``fp`` changed (``full``: (array, copy))."""
    for arr, old in full:
        changed = np.flatnonzero(arr != old)
        if not changed.size:
            continue
        inside = np.zeros(changed.size, dtype=bool)
        for a, lo, hi, _ in fp.spans:
            if a is arr:
                inside |= (changed >= lo) & (changed < hi)
        if not inside.all():
            byte = int(changed[~inside][0])
            raise FootprintError(
                f"{instr.label}: changed byte {byte:#x} of a {arr.size}-byte memory outside "
                f"its write footprint {[(lo, hi) for a, lo, hi, _ in fp.spans if a is arr]}"
            )


def begin(instr: Instruction, ctx: ExecContext, atomic: bool = False) -> PendingWrites:
    """Execute ``instr`` on the current memories and hold back its writes; ``atomic`` (its plan
    has an atomic step): apply it again at commit time instead (see the module docstring)."""
    written = _written_arrays(instr, ctx)
    fp = Footprint(written)
    tracked = _tracked(ctx)
    if not tracked:  # plain memories: the whole written memories are the footprint
        for a in written:
            fp.touch(a, 0, a.size)
    full = [(a, a.copy()) for a in _all_memories(ctx)] if CHECK_FOOTPRINT else []
    ctx.instr = instr
    if tracked:
        _set_footprint(ctx, fp)
    try:
        instr.execute(ctx)
        if full:
            _check_inside(instr, fp, full)
    except Exception:
        fp.restore()
        for a, old in full:
            a[:] = old
        raise
    finally:
        ctx.instr = None
        if tracked:
            _set_footprint(ctx, None)
    pending = PendingWrites()
    for a, lo, hi, old in fp.spans:
        view = a[lo:hi]
        changed = view != old
        if changed.any():
            if not atomic:
                pending.changes.append((a, lo, view.copy(), changed))
            view[:] = old  # the other bytes equal ``old`` already
    if atomic:
        pending.replay = _replay(instr, ctx)
    return pending
