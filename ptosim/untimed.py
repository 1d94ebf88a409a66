"""Program-order execution without timing: the untimed (cpu) target runs each instruction's
reference semantics in program order, a whole recorded program or one instruction at a time
as a session's body records it.

The cores of a launch take turns at their cross-core flags (``execute_cores``): a core runs
until a ``wait_flag_dev`` whose round has not completed, then the next core runs, so data a
core hands to another through GM (a cube core's result for the vector cores, a vector core's
tile for the cube) is there when the waiting core reads it, as on the devices. A wait that no
core will ever complete does not stop the run (the cpu target has no time to deadlock in): once
no core can move, the first blocked one goes on past its wait.
"""

from __future__ import annotations

from collections import deque

from .cores import Topology
from .errors import ExecutionError, PtoSimError
from .isa.base import ExecContext
from .isa.sync import FftsCrossCoreSync, WaitFlagDev


def execute(program, ctx: ExecContext) -> None:
    """Run the program's instructions in program order (no timing)."""
    for instr in program:
        execute_one(instr, ctx)


def execute_one(instr, ctx: ExecContext) -> None:
    """Run one instruction's semantics now (program order, no timing)."""
    ctx.instr = instr
    try:
        instr.execute(ctx)
    except PtoSimError:
        raise
    except Exception as exc:  # an internal failure still names the instruction
        raise ExecutionError(
            f"{instr.label} ({instr.source}): internal error while executing: {exc!r}"
        ) from exc
    ctx.instr = None


class _Rounds:
    """Completed FFTS rounds per (core, flag), counted as the engine's FFTS unit counts them."""

    def __init__(self, topology: Topology):
        self.topology = topology
        self.pending: dict[tuple, dict[int, int]] = {}
        self.sems: dict[tuple[int, int], int] = {}

    def post(self, core: int, mode: int, flag: int) -> None:
        posters, receivers = self.topology.round_of(core, mode)
        counts = self.pending.setdefault((posters, receivers, flag), dict.fromkeys(posters, 0))
        counts[core] += 1
        if all(counts.values()):
            for m in posters:
                counts[m] -= 1
            for m in receivers:
                self.sems[(m, flag)] = self.sems.get((m, flag), 0) + 1

    def take(self, core: int, flag: int) -> bool:
        n = self.sems.get((core, flag), 0)
        if n:
            self.sems[(core, flag)] = n - 1
        return bool(n)


def execute_cores(programs: list, ctxs: list, topology: Topology, progress=None) -> None:
    """Run every core's recorded program in program order, the cores taking turns at their
    cross-core waits (see the module docstring)."""
    rounds = _Rounds(topology)
    cursors = [0] * len(programs)
    ready = deque(range(len(programs)))
    blocked: list[int] = []
    while ready or blocked:
        if not ready:  # nothing can move: the first blocked core goes past its wait
            core = blocked.pop(0)
            cursors[core] += 1
            ready.append(core)
            continue
        core = ready.popleft()
        program, ctx = programs[core], ctxs[core]
        instrs = program.instructions
        n = cursors[core]
        while n < len(instrs):
            instr = instrs[n]
            if isinstance(instr, WaitFlagDev) and not rounds.take(core, instr.flag_id):
                break
            execute_one(instr, ctx)
            if isinstance(instr, FftsCrossCoreSync):
                rounds.post(core, instr.mode, instr.flag_id)
                ready.extend(blocked)  # a round may have completed for one of them
                blocked.clear()
            n += 1
        cursors[core] = n
        if n < len(instrs):
            blocked.append(core)
        elif progress is not None:
            progress(len(program), len(program))
