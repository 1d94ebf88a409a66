"""The lowering vocabulary: the steps a target's plan turns an instruction into.

A plan is a pure function of the instruction, the device timing config and (for data-dependent
plans such as indexed DMAs) the memory contents at the moment the scalar pipe issues it. Each
step is bound to a pipe, has a duration in integer cycles and names the byte regions it touches.
The engine schedules steps and never looks at opcodes.

Issue model (DESIGN.md section 4): the scalar pipe PIPE_S walks every plan in program order. A
step on PIPE_S runs on the scalar pipe; any other step is enqueued to its pipe's in-order queue,
which costs the scalar pipe ``issue_cycles``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .enums import Pipe


class StepKind(enum.Enum):
    SCALAR = "scalar"  # scalar-unit work: loops, address math, scalar UB/GM loads and stores
    DMA = "dma"  # one DMA instruction on MTE2/MTE3 (nBurst bursts of lenBurst bytes)
    VECTOR = "vector"  # one vector intrinsic (head + slope x repeats + tail)
    SIMT = "simt"  # a SIMT launch (950); expanded by the warp scheduler
    CUBE = "cube"  # cube-core work: a mad (PIPE_M), an L1 -> L0 / bias copy (MTE1), an L1 fill
    SET_FLAG = "set_flag"
    WAIT_FLAG = "wait_flag"
    BARRIER = "barrier"  # pipe_barrier(P): drain P (PIPE_ALL: every pipe, run by PIPE_S)
    CROSS_SET = "cross_set"  # ffts_cross_core_sync: post to the cores of a group (FFTS)
    CROSS_WAIT = "cross_wait"  # wait_flag_dev: wait for this core's FFTS flag (PIPE_S)

    __hash__ = object.__hash__  # identity, like every singleton member (hot-path dict keys)


@dataclass(frozen=True, slots=True)
class Region:
    """A byte range [start, end) of one memory space (``UB``, ``L1`` or ``GM``)."""

    space: str
    start: int
    end: int

    def overlaps(self, other: Region) -> bool:
        return self.space == other.space and self.start < other.end and other.start < self.end

    def __str__(self) -> str:
        return f"{self.space}[{self.start:#x}, {self.end:#x})"


def merge_ranges(ranges) -> list[tuple[int, int]]:
    """Sorted, non-empty, merged ``[lo, hi)`` byte ranges (touching ranges join)."""
    if type(ranges) is list and len(ranges) == 1:  # the common case: one range per access
        lo, hi = ranges[0]
        return [(lo, hi)] if hi > lo else []
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(r for r in ranges if r[1] > r[0]):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


@dataclass(slots=True)
class Step:
    """One unit of work on one pipe.

    Attributes:
        pipe: the pipe that executes it (PIPE_ALL only for a full barrier).
        kind: what it is (StepKind).
        cycles: duration in integer cycles.
        label: short text for traces (``"DMA row 3"``, ``"vmax x8"``).
        bytes: bytes moved (DMA) or touched (scalar memory steps).
        reads, writes: byte regions read and written.
        flag: (src, dst, event id) of a SET_FLAG / WAIT_FLAG step.
        data: whether the step belongs to the instruction's data window (inputs are sampled
            when the first data step starts, outputs committed when the last one ends).
        args: extra trace arguments (repeats, elements, nBurst ...).
        sub: events inside the step, shown on their own trace threads (the warp schedulers of
            a SIMT launch), with start offsets relative to the step start.
        parts: for a step ``merge_steps`` built from consecutive plan steps: those steps, in
            order. They run back to back; the engine charges the scalar pipe one issue per part
            and traces one slice per part, as if they had been issued one by one.
        resolve: for work whose cost depends on data the executing pipe reads when it starts
            (a SIMT launch reads its index tile then): called with the execution context when
            the step starts on its pipe, before the instruction's data window opens; returns the
            finished Step (same pipe and kind) with its cycles, args and sub events.
        atomic: the hardware atomic op (``"Add"``, ``"Max"``, ``"Min"``) with which this step
            updates GM, None for plain accesses. Set by the plan, which knows whether the
            target performs the instruction's form atomically across cores. The engine then
            applies the instruction's writes at commit time onto GM as it is then (other
            cores' updates meanwhile land too), and the checker lets accesses with the same
            op meet without a race. A plan marks its atomic steps before the instruction's
            data window opens (in the same plan part as its first data step, or earlier).
    """

    pipe: Pipe
    kind: StepKind
    cycles: int
    label: str
    bytes: int = 0
    reads: tuple[Region, ...] = ()
    writes: tuple[Region, ...] = ()
    flag: tuple[Pipe, Pipe, int] | None = None
    data: bool = True
    args: dict = field(default_factory=dict)
    sub: tuple = ()  # (thread, name, start offset, cycles, args) events inside the step (SIMT)
    resolve: Callable | None = None  # resolve(ctx) -> Step, called when the step starts
    parts: tuple = ()  # the plan steps a merged step stands for (merge_steps), back to back
    atomic: str | None = None  # the hardware atomic op of its GM update (see above)


# Kinds a merged step may have: one pipe's plain work. Flags, barriers (they order other work)
# and SIMT launches (resolved at their start, with sub events) stay single steps.
# DMA steps are not merged: the chip memory system books each DMA's bytes after its own
# latency (ptosim/engine/chip.py), so a merged run of DMAs would be charged one latency.
_MERGEABLE = (StepKind.SCALAR, StepKind.VECTOR)
_PIPE_S, _PIPE_ALL = Pipe.PIPE_S, Pipe.PIPE_ALL  # (Enum class attribute lookups are slow)
# False: merge_steps returns the plan unchanged (to compare merged and unmerged runs).
MERGE_STEPS = True


def _mergeable(step) -> bool:
    return (
        type(step) is Step
        and step.kind in _MERGEABLE
        and step.pipe is not _PIPE_ALL
        and step.flag is None
        and step.resolve is None
        and not step.sub
        and not step.parts
    )


def merge_steps(steps: list, issue_cycles: int) -> list:
    """The plan ``steps`` with each run of consecutive mergeable steps on one pipe (same kind,
    same ``data``, same ``atomic``) replaced by one Step: cycles and bytes summed, regions
    concatenated, and the original steps kept in ``parts`` (the engine traces one slice per
    part).

    Why the cycles cannot change: steps of one pipe run in order, so a run of parts issued back
    to back ends at the same cycle as one step of the summed cycles, provided each part but the
    last lasts at least ``issue_cycles`` (then the pipe never waits for the scalar unit to issue
    the next part; a shorter part ends a run). The engine still charges the scalar pipe one
    issue per part (``Step.parts``), enqueueing the merged step after the first. The hazard
    analysis sees the same accesses: no flag or barrier sits inside a run, so no other pipe can
    observe a point inside it, and an instruction's accesses per pipe are merged anyway.
    """
    if not MERGE_STEPS:
        return list(steps)
    out: list = []
    run: list[Step] = []

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(_merged(tuple(run)))
        run.clear()

    for step in steps:
        if not _mergeable(step):
            flush()
            out.append(step)
            continue
        if run:
            prev = run[-1]
            same = (
                prev.pipe is step.pipe
                and prev.kind is step.kind
                and prev.data == step.data
                and prev.atomic == step.atomic
            )
            if not same or (step.pipe is not _PIPE_S and prev.cycles < issue_cycles):
                flush()
        run.append(step)
    flush()
    return out


def _merged(parts: tuple[Step, ...]) -> Step:
    first = parts[0]
    return Step(
        first.pipe,
        first.kind,
        sum(p.cycles for p in parts),
        f"{first.label} .. {parts[-1].label} ({len(parts)} steps)",
        bytes=sum(p.bytes for p in parts),
        reads=_union(tuple(r for p in parts for r in p.reads)),
        writes=_union(tuple(r for p in parts for r in p.writes)),
        data=first.data,
        args={"merged": len(parts)},
        parts=parts,
        atomic=first.atomic,
    )


def _union(regions: tuple[Region, ...]) -> tuple[Region, ...]:
    """The byte union of ``regions``, merged per space (spaces in order of appearance): every
    reader of a step's regions (hazard analysis, failure location) takes their union, and a
    merged 16-row vector step otherwise carries one region per row and intrinsic. Unchanged
    when a region is empty (an empty region still says the step touches that space)."""
    if len(regions) < 2 or any(r.end <= r.start for r in regions):
        return regions
    spaces: dict[str, list[tuple[int, int]]] = {}
    for r in regions:
        spaces.setdefault(r.space, []).append((r.start, r.end))
    return tuple(Region(sp, lo, hi) for sp, rs in spaces.items() for lo, hi in merge_ranges(rs))


@dataclass(slots=True)
class Deferred:
    """The rest of a plan, built when the scalar pipe reaches this point.

    The scalar unit reads index tiles after the instruction's prologue waits (e.g. V->S,
    MTE2->S), so a data-dependent plan puts its prologue steps first and a Deferred after them:
    ``build(ctx)`` then sees the memory as the scalar unit does at that moment.
    """

    build: Callable
    label: str = "deferred"


def set_flag_step(src: Pipe, dst: Pipe, event_id: int, cycles: int, label: str = "") -> Step:
    return Step(
        src,
        StepKind.SET_FLAG,
        cycles,
        label or f"set_flag {src.name}->{dst.name}",
        flag=(src, dst, event_id),
        data=False,
    )


def wait_flag_step(src: Pipe, dst: Pipe, event_id: int, cycles: int, label: str = "") -> Step:
    return Step(
        dst,
        StepKind.WAIT_FLAG,
        cycles,
        label or f"wait_flag {src.name}->{dst.name}",
        flag=(src, dst, event_id),
        data=False,
    )


def cross_set_step(instr, cycles: int) -> Step:
    """ffts_cross_core_sync: posts FFTS flag ``(mode, flag_id)`` at the end of its pipe's work."""
    return Step(
        instr.pipe, StepKind.CROSS_SET, cycles, instr.describe(),
        flag=("FFTS", instr.mode, instr.flag_id), data=False,
    )  # fmt: skip


def cross_wait_step(instr, cycles: int) -> Step:
    """wait_flag_dev: the scalar pipe waits for this core's FFTS flag (blocks all issue);
    wait_intra_block: its own pipe waits (``nominal_pipe``)."""
    return Step(
        instr.nominal_pipe, StepKind.CROSS_WAIT, cycles, instr.describe(),
        flag=("FFTS", None, instr.flag_id), data=False,
    )  # fmt: skip


def handshake(src: Pipe, dst: Pipe, cycles: int) -> list[Step]:
    """``PtoSetWaitFlag<src, dst>()``: set then wait on EVENT_ID0, as the library emits."""
    return [set_flag_step(src, dst, 0, cycles), wait_flag_step(src, dst, 0, cycles)]


class Planner(Protocol):
    """What a target supplies: the plan of one instruction."""

    def plan(self, instr, ctx) -> list[Step | Deferred]:
        """Steps of ``instr``; ``ctx`` gives the device config and the memory at issue time."""


# -- SIMT (950) ------------------------------------------------------------------------------
@dataclass(slots=True)
class WarpOp:
    """One warp instruction, executed for all active lanes at once.

    Attributes:
        kind: ``alu`` (``cycles`` latency), ``ld_ub`` / ``st_ub`` (UB bank rules), ``ld_gm`` /
            ``st_gm`` (coalesced into GM sectors), ``atom_gm`` (atomic read-modify-write; lanes
            on one address serialise), ``loop`` (an aggregated ALU/UB loop that keeps the
            scheduler issuing for ``cycles`` slots, e.g. the Conflict::Last reverse scan).
        lanes: active lanes.
        addrs: byte addresses of the active lanes (UB or GM), for memory kinds.
        size: bytes per lane access.
        cycles: latency (alu) or issue slots (loop).
        tags: per-lane source ids of GM stores (the flat source index), so the engine can report
            which store lands last when lanes collide (ScatterConflict::Default).
        async_load: an ``ld_gm`` that does not stall the warp: up to ``max_outstanding_loads``
            such loads are in flight per warp (unrolled loops, non-blocking loads).
        uses_load: the op consumes the data of the warp's oldest unconsumed async load. A store
            (``st_ub`` / ``st_gm``) completes when that data has arrived without stalling the
            warp; any other op stalls the warp until then.
    """

    kind: str
    lanes: int
    addrs: object = None  # np.ndarray of int64 byte addresses
    size: int = 4
    cycles: int = 0
    label: str = ""
    tags: object = None  # np.ndarray of int64, same length as addrs
    async_load: bool = False
    uses_load: bool = False


@dataclass(slots=True)
class SimtLaunch:
    """A SIMT launch dim3{32, W}: the warp programs of its W warps (warp id = threadIdx.y)."""

    warps: list[list[WarpOp]]
    label: str = "simt launch"
    registers_per_thread: int = 0

    @property
    def warp_count(self) -> int:
        return len(self.warps)
