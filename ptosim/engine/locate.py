"""Where the instructions a finding names sit in a timed run: per (core, kernel position) the
bytes each pipe touched, and the time it first ran there.

Findings carry kernel positions only. Drawing a finding on the right pipe threads of the trace,
and telling whether a race involves the data a failing instruction read, both need the core and
the pipe of the steps that touch the bytes in question. This module finds them from the steps
each core issued (their byte regions) and the trace (their times). It never decides whether two
accesses are ordered: that is the happens-before analysis (``ptosim.checks.hazards``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..enums import Pipe
from ..findings import CROSS_CORE
from ..plan import Region, merge_ranges
from ..program import Program
from ..trace import FindingMark, FindingSide, Trace


@dataclass(frozen=True, slots=True)
class Touch:
    """Merged bytes one instruction read or wrote in one space from one pipe of one core."""

    core: int
    pipe: Pipe
    region: Region
    writes: bool


def overlap(a: Region, b: Region) -> Region | None:
    lo, hi = max(a.start, b.start), min(a.end, b.end)
    return Region(a.space, lo, hi) if a.space == b.space and lo < hi else None


class RunIndex:
    """The issued steps and the trace of a (possibly unfinished) timed run, by instruction.

    Args:
        cores: (core id, issued [step, instruction] list) per core.
        programs: the program of each core (labels of instructions that never issued).
        trace: the run's trace (first start time of each instruction on each pipe).
        end_time: the cycle the run stopped at (the time of sides that never ran).
    """

    def __init__(
        self, cores: list[tuple[int, list]], programs: list[Program], trace: Trace, end_time: int
    ):
        self.end_time = end_time
        self.core_ids = [core for core, _ in cores]
        self.programs = dict(zip(self.core_ids, programs))
        self.first_pipe: dict[tuple[int, int], Pipe] = {}
        grouped: dict[tuple, list[tuple[int, int]]] = {}
        for core, issued in cores:
            for step, instr in issued:
                pipe = Pipe.PIPE_S if step.pipe is Pipe.PIPE_ALL else step.pipe
                self.first_pipe.setdefault((core, instr.position), pipe)
                for writes, regions in ((False, step.reads), (True, step.writes)):
                    for reg in regions:
                        key = (core, instr.position, pipe, reg.space, writes)
                        grouped.setdefault(key, []).append((reg.start, reg.end))
        self.touches: dict[tuple[int, int], list[Touch]] = {}
        for (core, pos, pipe, space, writes), ranges in grouped.items():
            for lo, hi in merge_ranges(ranges):
                self.touches.setdefault((core, pos), []).append(
                    Touch(core, pipe, Region(space, lo, hi), writes)
                )
        self.starts: dict[tuple[int, int, str], int] = {}
        self.first_start: dict[tuple[int, int], tuple[int, str]] = {}
        for e in trace.events:
            key = (e.core, e.instr, e.pipe)
            if key not in self.starts or e.start < self.starts[key]:
                self.starts[key] = e.start
            first = self.first_start.get((e.core, e.instr))
            if first is None or e.start < first[0]:
                self.first_start[(e.core, e.instr)] = (e.start, e.pipe)

    # -- bytes --------------------------------------------------------------------------------
    def conflicts(
        self, a: tuple[int, int], b: tuple[int, int]
    ) -> list[tuple[Touch, Touch, Region]]:
        """Pairs of touches of instruction ``a`` and ``b`` (each a (core, position)) on
        overlapping bytes, one of them a write; on one core only from different pipes (a pipe
        is in order)."""
        out = []
        for ta in self.touches.get(a, ()):
            for tb in self.touches.get(b, ()):
                if not (ta.writes or tb.writes) or (ta.core == tb.core and ta.pipe is tb.pipe):
                    continue
                span = overlap(ta.region, tb.region)
                if span is not None:
                    out.append((ta, tb, span))
        return out

    # -- sides of a finding ---------------------------------------------------------------------
    def side(self, core: int, pos: int, pipe: str | None = None) -> FindingSide:
        """The side of instruction ``pos`` on ``core``: on ``pipe`` (else the pipe of its first
        data access, else of its first step), at its first start there (else at the end)."""
        if pipe is None:
            data = self.touches.get((core, pos))
            first = self.first_pipe.get((core, pos))
            if data:
                pipe = data[0].pipe.name
            elif first is not None:
                pipe = first.name
            elif (core, pos) in self.first_start:
                pipe = self.first_start[(core, pos)][1]
            else:
                pipe = self._instr(core, pos).nominal_pipe.name
        time = self.starts.get((core, pos, pipe))
        if time is None:
            time = self.first_start.get((core, pos), (self.end_time, ""))[0]
        return FindingSide(core, pipe, time, pos, self._instr(core, pos).label)

    def _instr(self, core: int, pos: int):
        return self.programs[core].instructions[pos]

    def _conflict_sides(self, a: int, b: int, cross: bool, hint: int | None, taken: set):
        cores = sorted(self.core_ids, key=lambda c: c != hint)
        pairs = (
            [(c1, c2) for c1 in cores for c2 in cores if c1 != c2]
            if cross
            else [(c, c) for c in cores]
        )
        for c1, c2 in sorted(pairs, key=lambda cc: cc in taken):
            found = self.conflicts((c1, a), (c2, b))
            if found:
                ta, tb, _ = found[0]
                return [self.side(c1, a, ta.pipe.name), self.side(c2, b, tb.pipe.name)]
        return None

    def mark(self, finding, core: int | None = None, taken: frozenset = frozenset()) -> FindingMark:
        """Place ``finding`` (``core``: the core that reported it, when known). Two
        instructions touching the same bytes are placed on the pipes (and, for a cross-core
        race, the cores) that touch them; anything else on each instruction's first data pipe.
        Core placements in ``taken`` (used by an identical finding) are tried last."""
        positions = list(dict.fromkeys(finding.instructions))
        sides = None
        if len(finding.instructions) == 2:
            a, b = finding.instructions
            cross = finding.code == CROSS_CORE.code  # its sides are on two cores
            sides = self._conflict_sides(a, b, cross, core, taken)
        if sides is None:
            free = [c for c in self.core_ids if (c,) * len(positions) not in taken]
            where = core if core is not None else (free or self.core_ids)[0]
            sides = []
            for pos in positions:
                issued_on = [c for c in self.core_ids if (c, pos) in self.first_pipe]
                c = where if where in issued_on or not issued_on else issued_on[0]
                sides.append(self.side(c, pos))
        sides.sort(key=lambda s: s.time)  # stable: ties keep the finding's order
        return FindingMark(finding, sides)

    def mark_all(self, reported: list[tuple]) -> list[FindingMark]:
        """Place (finding, reporting core or None) pairs. The analysis reports a race once per
        core with the same text; identical findings therefore go to distinct cores."""
        taken: dict[tuple, set] = {}
        out = []
        for finding, core in reported:
            used = taken.setdefault(
                (finding.code, finding.kind, finding.message, finding.instructions), set()
            )
            mark = self.mark(finding, core, frozenset(used))
            used.add(tuple(s.core for s in mark.sides))
            out.append(mark)
        return out
