"""Fix suggestions that stay right when all of them are applied together, and applying them.

A race between instruction F (pipe P) and a later instruction G (pipe Q) is fixed by a
``set_flag(P, Q, id)`` right after F and a ``wait_flag(P, Q, id)`` right before G. Flags count:
the new wait consumes the new post only if, on (P, Q, id), as many posts are issued before the new
set as waits before the new wait (:meth:`FlagBook.balanced`). The book holds the program's own
sets and waits (user and library chains) *and* every suggestion made so far in the run, so the
ids chosen for one run never disturb each other's pairing. Preference: the id already chosen for
the same source lines (a loop body gets one id, not one per iteration), then an id the pair uses
nowhere, then any balanced id; when no id is balanced, ``pipe_barrier(PIPE_ALL)`` before G.

:func:`apply_fixes` performs the edits of a list of findings on a recorded program (a new
Program with renumbered positions), so tests can re-run it.
"""

from __future__ import annotations

import copy
from bisect import bisect_left, bisect_right, insort
from collections import defaultdict

from ..enums import Pipe
from ..findings import Edit, Finding
from ..isa.sync import PipeBarrier, SetFlag, WaitFlag, WaitFlagDev, WaitIntraBlock
from ..plan import StepKind
from .lineedits import apply_line_edits


class FlagBook:
    """Kernel positions of every set and wait per (src, dst, id), plus suggested ones.

    Inserted flags sit between kernel positions: after #k is ``k + 0.5``, before #k is
    ``k - 0.5`` (ties keep the order of the suggestions, which :func:`apply_fixes` keeps too).
    """

    def __init__(self, issued: list, event_ids: int):
        self.event_ids = event_ids
        self.sets: dict[tuple, list[float]] = defaultdict(list)
        self.waits: dict[tuple, list[float]] = defaultdict(list)
        for step, instr in issued:
            if step.kind is StepKind.SET_FLAG:
                self.sets[step.flag].append(instr.position)
            elif step.kind is StepKind.WAIT_FLAG:
                self.waits[step.flag].append(instr.position)
        self.by_lines: dict[tuple, int] = {}

    def balanced(self, key: tuple, set_at: float, wait_at: float) -> bool:
        return bisect_right(self.sets[key], set_at) == bisect_right(self.waits[key], wait_at)

    def unused(self, key: tuple) -> bool:
        return not self.sets[key] and not self.waits[key]

    def choose(self, src: Pipe, dst: Pipe, first: int, second: int, lines: tuple) -> int | None:
        """A balanced event id for a new pair after #first / before #second (recorded)."""
        set_at, wait_at = first + 0.5, second - 0.5
        cands = []
        if (src, dst, *lines) in self.by_lines:
            cands.append(self.by_lines[(src, dst, *lines)])
        cands += [e for e in range(self.event_ids) if self.unused((src, dst, e))]
        cands += range(self.event_ids)
        for e in cands:
            key = (src, dst, e)
            if self.balanced(key, set_at, wait_at):
                insort(self.sets[key], set_at)
                insort(self.waits[key], wait_at)
                self.by_lines[(src, dst, *lines)] = e
                return e
        return None

    def waits_between(self, key: tuple, lo: float, hi: float) -> int:
        """Waits of ``key`` at positions in [lo, hi)."""
        w = self.waits[key]
        return bisect_left(w, hi) - bisect_left(w, lo)

    def move_wait(self, key: tuple, old: float, new: float) -> None:
        w = self.waits[key]
        w.pop(bisect_left(w, old))
        insort(w, new)


def insert_pair(src: Pipe, dst: Pipe, eid: int, first, second) -> tuple[Edit, ...]:
    return (
        Edit("insert", "set_flag", "after", first.position, first.source, src.name, dst.name, eid),
        Edit("insert", "wait_flag", "before", second.position, second.source, src.name, dst.name,
             eid),
    )  # fmt: skip


def barrier_before(instr, pipe: Pipe = Pipe.PIPE_ALL) -> tuple[Edit, ...]:
    return (Edit("insert", "pipe_barrier", "before", instr.position, instr.source, pipe=pipe.name),)


def apply_fixes(program, findings: list[Finding]):
    """A copy of ``program`` with every fix of ``findings`` applied (positions renumbered);
    ``program`` itself is not changed. ``Device.run`` runs the result.

    A cause's ``patch`` (edits of source lines, checks/lineedits.py) acts on every instruction
    recorded from its lines, as the patched file would; the other findings' ``fix`` edits act
    on kernel positions. Inserted instructions keep the order of the findings at one anchor; a
    moved wait_flag leaves its place and goes to its anchor.
    """
    line_edits = [e for f in findings for e in f.patch]
    program = _apply_positions(program, [f for f in findings if not f.patch])
    if line_edits:
        program, _ = apply_line_edits(program, line_edits)
    return program


def _apply_positions(program, findings: list[Finding]):
    before: dict[int, list] = defaultdict(list)
    after: dict[int, list] = defaultdict(list)
    moved: set[int] = set()
    by_pos = {i.position: i for i in program}
    retarget: dict[int, int] = {}
    for f in findings:
        for e in f.fix:
            if e.action == "retarget":
                retarget[e.position] = e.event_id
                continue
            if e.action == "move":
                moved.add(e.position)
                new = _clone_flag(by_pos[e.position])
            elif e.op == "pipe_barrier":
                new = PipeBarrier(Pipe[e.pipe])
            elif e.op == "wait_flag_dev":
                new = WaitFlagDev(e.event_id)
            elif e.op == "wait_intra_block":
                new = WaitIntraBlock(Pipe[e.pipe], e.event_id)
            else:
                cls = SetFlag if e.op == "set_flag" else WaitFlag
                new = cls(Pipe[e.src], Pipe[e.dst], e.event_id)
            new.source = f"fix of {f.code}"
            (before if e.where == "before" else after)[e.anchor].append(new)
    out: list = []
    for instr in program:
        out += before.get(instr.position, [])
        if instr.position in moved:
            pass
        elif instr.position in retarget:
            clone = _clone_flag(instr)
            clone.event_id = retarget[instr.position]
            clone.source = instr.source
            out.append(clone)
        else:
            out.append(copy.copy(instr))  # positions are renumbered: never the original's
        out += after.get(instr.position, [])
    return program.with_instructions(out)


def _clone_flag(instr):
    clone = type(instr)(instr.src, instr.dst, instr.event_id)
    clone._arch = instr._arch
    return clone
