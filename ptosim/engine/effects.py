"""Data effects at simulated time: an instruction samples its inputs when its first data step
starts and commits its outputs when its last data step ends (DESIGN.md section 3).

``begin`` runs the instruction's reference semantics against the memories as they are at that
moment, records the bytes it changed, and puts the old bytes back; ``commit`` writes the recorded
bytes. Other pipes therefore see the old contents until the commit, which is what makes a kernel
with a missing flag read stale data. Limitation: a write that stores the value already present is
not recorded (it cannot change what anyone reads unless another pipe writes the same bytes in
between, a race the hazard checker reports).
"""

from __future__ import annotations

import numpy as np

from ..enums import TileType
from ..isa.base import ExecContext, Instruction
from ..tensors import GmRef, TileRef


class PendingWrites:
    """The bytes one instruction changed, waiting to be committed."""

    __slots__ = ("changes",)

    def __init__(self):
        self.changes: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def commit(self) -> None:
        for target, where, values in self.changes:
            target[where] = values


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
    for a, old in zip(arrays, before):
        where = np.flatnonzero(a != old)
        if where.size:
            pending.changes.append((a, where, a[where].copy()))
            a[where] = old[where]
    return pending
