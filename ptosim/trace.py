"""Trace records of a timed run: one event per step, flows from set_flag to the wait it
released, wait records for the critical-path summary, and where each finding sits. Writers live
in ``trace_io``."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

PIPE_ORDER = ("PIPE_S", "PIPE_V", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_M", "PIPE_FIX")


def lane_id(pipe: str) -> int:
    """Trace thread id of a pipe lane: the pipes in PIPE_ORDER, the SIMT schedulers from 100,
    any other lane from 200 by a stable (process-independent) hash of its name. Also the order
    in which summaries list lanes."""
    if pipe in PIPE_ORDER:
        return PIPE_ORDER.index(pipe)
    if pipe.startswith("SIMT_SCHED"):
        return 100 + int(pipe[len("SIMT_SCHED") :])
    return 200 + zlib.crc32(pipe.encode()) % 1000  # str hash() is salted per process


@dataclass(slots=True)
class TraceEvent:
    """A completed step: [start, start + dur) on one pipe of one core."""

    core: int
    pipe: str  # "PIPE_S", "PIPE_MTE2", ... (or "SIMT_SCHED0" ...)
    name: str
    start: int
    dur: int
    kind: str  # StepKind value
    instr: int  # kernel position of the instruction (-1: none)
    opcode: str
    bytes: int = 0
    args: dict = field(default_factory=dict)


@dataclass(slots=True)
class FlowEvent:
    """A set_flag post consumed by a wait_flag (a flow arrow in the trace), or the
    ffts_cross_core_sync post that completed the round a wait_flag_dev waited for (``set_core``
    the posting core, ``key`` ("FFTS", "FFTS", flag))."""

    core: int  # the waiting core
    key: tuple[str, str, int]
    set_pipe: str
    set_time: int
    set_instr: int
    wait_pipe: str
    wait_time: int
    wait_instr: int
    set_core: int = -1  # the posting core of a cross-core flow; -1: ``core``

    @property
    def source_core(self) -> int:
        return self.core if self.set_core < 0 else self.set_core


@dataclass(slots=True)
class WaitRecord:
    """A pipe blocked on a flag (or a PIPE_ALL barrier) from ``start`` to ``end``."""

    core: int
    pipe: str
    instr: int
    opcode: str
    what: str  # "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)" or "pipe_barrier(PIPE_ALL)"
    start: int
    end: int
    released_by: int = -1  # kernel position of the set_flag that released it


@dataclass(slots=True)
class FindingSide:
    """One side of a finding: the instruction, and the core, pipe and time where it touches the
    bytes (or the flag) the finding is about."""

    core: int
    pipe: str
    time: int
    instr: int  # kernel position
    label: str  # "TLOAD #0"


@dataclass(slots=True)
class FindingMark:
    """A finding placed in the trace: ``sides`` in time order (a flow arrow links them)."""

    finding: object  # ptosim.findings.Finding
    sides: list[FindingSide]


@dataclass
class Trace:
    """Everything a timed run recorded."""

    events: list[TraceEvent] = field(default_factory=list)
    flows: list[FlowEvent] = field(default_factory=list)
    waits: list[WaitRecord] = field(default_factory=list)
    findings: list[FindingMark] = field(default_factory=list)
    stopped: str | None = None  # why the run stopped early (the deadlock report), else None
    chip: object | None = None  # engine.chip.ChipMemory: the chip's shared GM traffic and lane
    # a launch of more blocks than cores: block -> engine.waves.Placement (core, wave, start)
    waves: dict = field(default_factory=dict)
