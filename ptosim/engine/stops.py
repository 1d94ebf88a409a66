"""When a timed run stops early: the race-first error of a failing instruction, and the deadlock
error that keeps the run's other findings and its partial result.

A kernel with a missing flag often fails before it finishes: the stale UB poison (0xFFFFFFFF)
read as an index is out of bounds, and the instruction raises. The index is only the symptom;
the defect is the missing flag. So the happens-before analysis runs on the steps issued up to the
failure (plus the failing instruction's own planned steps), and a race on data the failing
instruction read is reported first, the original error kept as the cause.
"""

from __future__ import annotations

from ..errors import (
    ConstraintError,
    DeadlockError,
    KernelError,
    PtoSimError,
    RaceFailureError,
    UnsupportedError,
)
from ..findings import CROSS_CORE, RACE, Finding
from ..memory import SPACE_OF_LOC
from ..plan import Region, Step, StepKind
from ..tensors import TileRef
from .core import Failure, Simulation
from .locate import RunIndex, Touch, overlap

# the analysis' races (one core, across cores)
RACES = (RACE.code, CROSS_CORE.code)


def _tile_region(ref: TileRef) -> Region:
    return Region(SPACE_OF_LOC[ref.loc], ref.address, ref.address + ref.size_bytes)


def failing_steps(failure: Failure, cores) -> list:
    """Steps to analyse after the issued ones: the failing instruction's planned, unissued
    steps; and, when none of its issued or planned steps reads anything (its planning raised),
    one structural step on the pipe that was planning it (PIPE_S) reading every tile operand
    it reads."""
    instr = failure.instr
    extra = list(failure.work)
    core = next(c for c in cores if c.core == failure.core)
    mine = [st for st, i in core.issued if i is instr] + [st for st, _ in extra]
    if any(st.reads for st in mine):
        return extra
    tiles = instr.tile_operands()
    reads = tuple(_tile_region(tiles[n]) for n in instr.reads if n in tiles)
    if reads:
        pipe = failure.pipe
        extra.append([Step(pipe, StepKind.SCALAR, 0, "failed", reads=reads, data=False), instr])
    return extra


def _operand(instr, span: Region) -> str:
    """The operand of ``instr`` whose bytes hold ``span`` ("operand 'idx'"), else "data"."""
    for name, ref in instr.tile_operands().items():
        if name in instr.reads and overlap(_tile_region(ref), span):
            return f"operand '{name}'"
    for name, ref in instr.gm_operands().items():
        buf = ref.buffer
        if name in instr.reads and overlap(
            Region("GM", buf.address, buf.address + buf.nbytes), span
        ):
            return f"operand '{name}'"
    return "data"


def _label(instr) -> str:
    return instr.label + (f" ({instr.source})" if instr.source else "")


def _reads_raced(index: RunIndex, failure: Failure, finding: Finding):
    """(failing read, racing write, bytes) when ``finding`` is a race in which the failing
    instruction reads bytes the other side writes, else None."""
    pos = failure.instr.position
    if finding.code not in RACES or pos not in finding.instructions:
        return None
    others = [p for p in finding.instructions if p != pos] or [pos]
    same = finding.code == RACES[0]
    cores = [failure.core] if same else [c for c in index.core_ids if c != failure.core]
    for other in others:
        for core in cores:
            for mine, theirs, span in index.conflicts((failure.core, pos), (core, other)):
                if not mine.writes and theirs.writes:
                    return mine, theirs, span
    return None


def race_first_error(
    sim: Simulation, programs: list, findings: list[Finding], extra: list
) -> RaceFailureError | None:
    """The error to raise for ``sim.failure`` when the analysis of what was issued so far
    (``findings``, computed with ``extra`` appended to the failing core's steps) finds a race on
    data the failing instruction read; None when there is none (the original error stands)."""
    failure = sim.failure
    original = failure.error
    if failure.instr is None or not isinstance(original, PtoSimError):
        return None
    if isinstance(original, (UnsupportedError, ConstraintError, KernelError)):
        return None  # static: no data the instruction read could have caused it
    if original.__cause__ is not None and not isinstance(original.__cause__, PtoSimError):
        return None  # an internal error of ptosim: report it as such, never blame the kernel
    issued = [(c.core, c.issued + (extra if c.core == failure.core else [])) for c in sim.cores]
    index = RunIndex(issued, programs, sim.trace, sim.cycles)
    hits = []
    for f in findings:
        hit = _reads_raced(index, failure, f)
        if hit is not None:
            hits.append((f, *hit))
    if not hits:
        return None
    instr = failure.instr
    f, mine, theirs, span = hits[0]
    other = index.programs[theirs.core].instructions[_other_position(f, instr.position)]
    text = (
        f"{_operand(instr, span)} read by {_label(instr)} on {mine.pipe.name} races "
        f"{_label(other)} on {theirs.pipe.name}{_missing_order(instr, mine, other, theirs)}; {f}"
    )
    if len(hits) > 1:
        text += f" (and {len(hits) - 1} more race(s) on data it read, see .findings)"
    text += f". The race is the defect: the data it left made {instr.label} fail: {original}"
    races = [h[0] for h in hits]
    rest = [g for g in findings if all(g is not r for r in races)]
    return RaceFailureError(text, original, races + rest)


def _other_position(f: Finding, pos: int) -> int:
    others = [p for p in f.instructions if p != pos]
    return others[0] if others else pos


def _missing_order(instr, mine: Touch, other, theirs: Touch) -> str:
    """The flag pair that would order the two sides (earlier instruction's pipe first)."""
    if mine.core != theirs.core:
        return f" of core {theirs.core} (blocks are not synchronised with each other)"
    first, then = (theirs, mine) if other.position < instr.position else (mine, theirs)
    src, dst = first.pipe.name, then.pipe.name
    return f": missing set_flag({src}, {dst}) / wait_flag({src}, {dst})"


def deadlock_error(sim: Simulation, partial) -> DeadlockError:
    """The DeadlockError of ``sim``, naming the run's other findings and carrying them and the
    partial RunResult (``partial_run``: its trace goes up to the stuck state)."""
    text = sim.deadlock
    if partial.findings:
        text += f"; other findings ({len(partial.findings)}): " + "; ".join(
            str(f) for f in partial.findings
        )
    err = DeadlockError(text)
    err.findings = list(partial.findings)
    err.partial_run = partial
    return err
