"""Data effects at simulated time: an instruction samples its inputs when its first data step
starts and commits its outputs when its last data step ends (DESIGN.md section 3).

``begin`` runs the instruction's reference semantics against the memories as they are at that
moment, records the bytes it changed, and puts the old bytes back; ``commit`` writes the recorded
bytes. Other pipes therefore see the old contents until the commit, which is what makes a kernel
with a missing flag read stale data. Limitation: a write that stores the value already present is
not recorded (it cannot change what anyone reads unless another pipe writes the same bytes in
between, a race the hazard checker reports).

A hardware atomic (:func:`hardware_atomic`) is not a snapshot: two cores adding into one table
at overlapping times must both land. Its commit therefore applies the instruction again to the GM
as it is at commit time, with the UB contents sampled when it began (its inputs), so the update
accumulates onto whatever other cores committed in between instead of overwriting it.
"""

from __future__ import annotations

import numpy as np

from ..enums import TileType
from ..isa.base import ExecContext, Instruction
from ..tensors import GmRef, TileRef


def hardware_atomic(instr: Instruction, target: str) -> bool:
    """True when ``instr`` updates GM with a hardware atomic: an MSCATTER with an atomic op,
    except the a2a3 Elem form (its scalar unit reads, adds and writes through the data cache,
    which is not atomic across cores). The cpu target is judged like a2a3 (the portable view)."""
    op = getattr(instr, "atomic", None)
    if op is None or op.name == "None":
        return False
    elem = getattr(getattr(instr, "coalesce", None), "name", "") == "Elem"
    return not (elem and target in ("a2a3", "cpu"))


class PendingWrites:
    """The bytes one instruction changed, waiting to be committed (or, for a hardware atomic,
    the instruction to apply again at commit time)."""

    __slots__ = ("changes", "replay")

    def __init__(self):
        self.changes: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.replay = None

    def commit(self) -> None:
        for target, where, values in self.changes:
            target[where] = values
        if self.replay is not None:
            self.replay()


def _replay(instr: Instruction, ctx: ExecContext):
    """Apply ``instr`` at commit time to the current GM, reading the UB sampled now."""
    sampled = ctx.ub.data.copy()

    def replay() -> None:
        live, findings = ctx.ub.data, ctx.findings
        ctx.ub.data, ctx.findings, ctx.instr = sampled, [], instr
        try:
            instr.execute(ctx)  # same inputs as at begin: findings were reported then
        finally:
            ctx.ub.data, ctx.findings, ctx.instr = live, findings, None

    return replay


def _written_arrays(instr: Instruction, ctx: ExecContext) -> list[np.ndarray]:
    arrays: list[np.ndarray] = []
    seen: set[int] = set()
    for name in instr.writes:
        value = getattr(instr, name, None)
        if isinstance(value, TileRef):
            arr = ctx.l1.data if value.loc is TileType.Mat else ctx.ub.data
        elif isinstance(value, GmRef):
            arr = value.buffer.data
        else:
            continue
        if id(arr) not in seen:
            seen.add(id(arr))
            arrays.append(arr)
    return arrays


def begin(instr: Instruction, ctx: ExecContext) -> PendingWrites:
    """Execute ``instr`` on the current memories and hold back its writes."""
    arrays = _written_arrays(instr, ctx)
    before = [a.copy() for a in arrays]
    ctx.instr = instr
    try:
        instr.execute(ctx)
    except Exception:
        for a, old in zip(arrays, before):
            a[:] = old
        raise
    finally:
        ctx.instr = None
    pending = PendingWrites()
    atomic = hardware_atomic(instr, ctx.target)
    for a, old in zip(arrays, before):
        where = np.flatnonzero(a != old)
        if where.size:
            if not atomic:
                pending.changes.append((a, where, a[where].copy()))
            a[where] = old[where]
    if atomic:
        pending.replay = _replay(instr, ctx)
    return pending
