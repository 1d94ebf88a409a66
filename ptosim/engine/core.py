"""The discrete-event engine: one in-order simpy process per pipe per core, counting flags,
data effects at simulated time, deadlock detection. It schedules steps; it never looks at
opcodes (DESIGN.md section 2)."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import simpy

from ..cores import Topology
from ..enums import QUEUE_PIPES, Pipe
from ..errors import ExecutionError, PtoSimError
from ..findings import FLAG_UNCONSUMED, Finding
from ..isa.base import ExecContext, Instruction
from ..plan import Deferred, Region, Step, StepKind
from ..program import Program
from ..trace import FlowEvent, Trace, TraceEvent, WaitRecord
from . import effects
from .chip import ChipMemory
from .ffts import Ffts, Post
from .waves import Waves

PIPES = QUEUE_PIPES
# step kinds the hot path tests, as module constants (cheaper than StepKind.X lookups)
_WAIT_FLAG, _CROSS_WAIT, _SET_FLAG = StepKind.WAIT_FLAG, StepKind.CROSS_WAIT, StepKind.SET_FLAG
_CROSS_SET, _DMA, _SIMT = StepKind.CROSS_SET, StepKind.DMA, StepKind.SIMT
_PIPE_S, _PIPE_ALL = Pipe.PIPE_S, Pipe.PIPE_ALL


_FLAG_NAMES: dict[tuple, tuple[str, str, int]] = {}  # flag key -> its names in a FlowEvent


def flag_text(key) -> str:
    src, dst, event_id = key
    return f"({src.name}, {dst.name}, EVENT_ID{event_id})"


@dataclass(slots=True)
class InstrState:
    """Progress of one instruction: its data window and timing."""

    instr: Instruction
    data_steps: int
    deferred: int = 0  # Deferred plan parts not expanded yet (the commit waits for them)
    atomic: bool = False  # a planned step updates GM atomically (Step.atomic): replay at commit
    began: bool = False
    pending: effects.PendingWrites | None = None
    start: int | None = None
    end: int = 0
    bytes: int = 0


@dataclass
class Failure:
    """The first error a pipe process raised: it stopped the whole simulation."""

    error: BaseException
    core: int
    instr: Instruction | None  # the instruction being planned or executed, when known
    pipe: Pipe  # the pipe that was planning (PIPE_S) or executing it
    work: list  # steps of ``instr`` planned but not issued yet ([step, instr] entries)


@dataclass(slots=True)
class PipeState:
    pipe: Pipe
    queue: deque = field(default_factory=deque)
    wakeup: simpy.Event | None = None
    busy: bool = False
    blocked: str | None = None  # what the pipe is stuck on, for deadlock reports
    blocked_instr: Instruction | None = None
    blocked_key: tuple | None = None  # the (src, dst, id) flag a blocked wait_flag waits for
    blocked_since: int = 0
    busy_cycles: int = 0
    first: int | None = None
    last: int = 0


class CoreEngine:
    """One core: its pipes, flag counters and the instructions in flight."""

    def __init__(
        self,
        env: simpy.Environment,
        core: int,
        program: Program,
        ctx: ExecContext,
        planner: Callable[[Instruction, ExecContext], list[Step]],
        issue_cycles: int,
        trace: Trace,
        failure: list[Failure],
        abort: simpy.Event,
        progress=None,
        chip: ChipMemory | None = None,
        ffts: Ffts | None = None,
        waves: Waves | None = None,
    ):
        self.env = env
        self.waves = waves  # None: the launch fits the device (no block waits for a core)
        self.released = False  # told ``waves`` that this core program is done
        self.chip = chip
        self.ffts = ffts
        self.abort = abort
        self.progress = progress
        self.core = core
        self.label = program.core_role.label  # "core 3", or "block 1 AIV0" (ptosim/cores.py)
        self.program = program
        self.ctx = ctx
        self.planner = planner
        self.issue_cycles = issue_cycles
        self.trace = trace
        self.pipes = {p: PipeState(p) for p in PIPES}
        self.counts: dict[tuple, int] = {}
        self.posts: dict[tuple, deque] = {}  # key -> deque of (time, instr position, pipe)
        self.waiters: dict[tuple, simpy.Event] = {}
        self.idle_event = env.event()
        self.scalar_done = False
        self.states: list[InstrState] = []
        self.issued: list[list] = []  # [step, instruction] in the order PIPE_S issued them
        self.failure = failure
        # (instruction, pipe) whose planning or execution raised; set by _call
        self.failing: tuple[Instruction, Pipe] | None = None
        self.issuing: tuple[Instruction, deque] | None = None  # PIPE_S's unissued work
        for p in PIPES:
            if p is not Pipe.PIPE_S:
                env.process(self._guard(self._pipe_proc(self.pipes[p])))
        env.process(self._guard(self._scalar_proc()))

    def _guard(self, gen):
        """Run a process; an exception stops the whole simulation and is re-raised intact
        by ``simulate`` (simpy would otherwise rebuild it from its args)."""
        try:
            yield from gen
        except BaseException as exc:  # noqa: BLE001 - handed over to simulate()
            instr, pipe = self.failing or (None, Pipe.PIPE_S)
            self.failure.append(Failure(exc, self.core, instr, pipe, self._unissued(instr)))
            if not self.abort.triggered:
                self.abort.succeed()

    def _unissued(self, instr: Instruction | None) -> list:
        """The planned, unissued steps of the failing instruction, up to its first Deferred
        part (a Deferred part may hold the waits that order the steps after it)."""
        if instr is None or self.issuing is None or self.issuing[0] is not instr:
            return []
        out = []
        for step in self.issuing[1]:
            if isinstance(step, Deferred):
                break
            out.append([step, instr])
        return out

    # -- processes ------------------------------------------------------------------------
    def _scalar_proc(self):
        s = self.pipes[Pipe.PIPE_S]
        if self.waves is not None:
            yield from self._wait_for_core()
        # a session program grows while it runs: its length is not known up front
        total = None if getattr(self.program, "growing", False) else len(self.program)
        for n, instr in enumerate(self.program):
            if self.progress is not None and n % 256 == 0:
                self.progress(n, total)
            work = deque(self._plan(instr))
            state = InstrState(instr, *_counts(work))
            self.states.append(state)
            self.issuing = (instr, work)
            while work:
                step = work.popleft()
                if isinstance(step, Deferred):
                    more = self._plan(instr, step.build)
                    data, deferred, atomic = _counts(more)
                    if atomic and not state.atomic:
                        if state.began:  # its writes were snapshotted as a plain store's
                            raise ExecutionError(
                                f"{instr.label} ({instr.source}): internal error: its plan "
                                "marks a step atomic after the data window opened"
                            )
                        state.atomic = True
                    state.data_steps += data
                    state.deferred += deferred - 1
                    work.extendleft(reversed(more))
                    self._maybe_commit(state)
                    continue
                entry = [step, instr]  # resolved in place when the step starts (SIMT launches)
                self.issued.append(entry)
                if step.pipe is _PIPE_S:
                    yield from self._run(s, entry, state)
                elif step.pipe is _PIPE_ALL:
                    yield from self._drain_all(s, entry, state)
                else:
                    if self.issue_cycles:
                        self._mark_busy(s, self.env.now, self.issue_cycles)
                        yield self.env.timeout(self.issue_cycles)
                    target = self.pipes[step.pipe]
                    target.queue.append((entry, state))
                    if target.wakeup is not None and not target.wakeup.triggered:
                        target.wakeup.succeed()
                    if step.parts and self.issue_cycles:  # a merged step: issue its other parts
                        more = self.issue_cycles * (len(step.parts) - 1)
                        self._mark_busy(s, self.env.now, more)
                        yield self.env.timeout(more)
        self.scalar_done = True
        self._notify_idle()

    def _wait_for_core(self):
        """A block of a later wave: wait until the block scheduler gives it a core (waves.py);
        the wait is a PIPE_S stall in the trace."""
        block = self.program.core_role.block
        gate = self.waves.gate(block)
        if gate is None:
            return
        yield gate
        where = self.waves.placements[block]
        first = next(iter(self.program.instructions), None)  # a session may have none yet
        self.trace.waits.append(
            WaitRecord(
                self.core,
                "PIPE_S",
                first.position if first is not None else -1,
                first.opcode if first is not None else "",
                f"waiting for a free core: wave {where.wave} on core {where.core}, freed when "
                f"block {where.after_block} ended",
                0,
                self.env.now,
            )
        )

    def _pipe_proc(self, ps: PipeState):
        while True:
            if not ps.queue:
                ps.busy = False
                self._notify_idle()
                ps.wakeup = self.env.event()
                yield ps.wakeup
                ps.wakeup = None
                continue
            ps.busy = True
            entry, state = ps.queue.popleft()
            yield from self._run(ps, entry, state)

    # -- steps ----------------------------------------------------------------------------
    def _plan(self, instr: Instruction, build=None) -> list:
        self.ctx.instr = instr
        try:
            if build is not None:
                return self._call(instr, _PIPE_S, "planning", build, self.ctx)
            return self._call(instr, _PIPE_S, "planning", self.planner, instr, self.ctx)
        finally:
            self.ctx.instr = None

    def _mark_busy(self, ps: PipeState, start: int, cycles: int) -> None:
        ps.busy_cycles += cycles
        if ps.first is None:
            ps.first = start
        ps.last = max(ps.last, start + cycles)

    def _run(self, ps: PipeState, entry: list, state: InstrState):
        """Execute one issued step on ``ps``: a wait blocks first; a set posts at its end."""
        env = self.env
        step = entry[0]
        kind = step.kind
        if kind is _WAIT_FLAG:
            yield from self._wait(ps, step, state)
        elif kind is _CROSS_WAIT:
            yield from self._cross_wait(ps, step, state)
        if step.resolve is not None:
            self.ctx.instr = state.instr
            try:
                step = self._call(state.instr, ps.pipe, "planning", step.resolve, self.ctx)
                entry[0] = step
            finally:
                self.ctx.instr = None
        if step.data and not state.began:
            state.began = True
            state.pending = self._begin(state.instr, ps.pipe, state.atomic)
        start = env.now
        if self.chip is None or (kind is not _DMA and kind is not _SIMT):
            cycles, args = step.cycles, step.args  # no shared GM involved (_chip_cycles)
        else:
            cycles, args = self._chip_cycles(step, start)
        if cycles:
            yield env.timeout(cycles)
        end = env.now
        if kind is _SET_FLAG:
            self._post(ps, step, state, start)
        elif kind is _CROSS_SET:
            _, mode, flag = step.flag
            self.ffts.post(
                self.core, mode, flag, Post(start, self.core, state.instr.position, ps.pipe.name)
            )
        ps.busy_cycles += end - start  # _mark_busy, inline on the hot path
        if ps.first is None:
            ps.first = start
        if end > ps.last:
            ps.last = end
        if state.start is None:
            state.start = start
        if end > state.end:
            state.end = end
        state.bytes += step.bytes
        instr = state.instr
        core, position, opcode = self.core, instr.position, instr.opcode
        pipe_name = ps.pipe._name_  # the plain attribute (Enum.name is a slower descriptor)
        events = self.trace.events
        if not step.parts:
            events.append(
                TraceEvent(
                    core, pipe_name, step.label, start, end - start, kind._value_, position,
                    opcode, step.bytes, args,  # args: with the chip's stretch
                )
            )  # fmt: skip
        else:  # a merged step: one slice per part, back to back (plan.merge_steps)
            at = start
            append = events.append
            for part in step.parts:
                cycles = part.cycles
                append(
                    TraceEvent(
                        core, pipe_name, part.label, at, cycles, part.kind._value_, position,
                        opcode, part.bytes, part.args,
                    )
                )  # fmt: skip
                at += cycles
        for thread, name, offset, cycles, args in step.sub:
            events.append(
                TraceEvent(
                    self.core,
                    thread,
                    name,
                    start + offset,
                    cycles,
                    "warp",
                    instr.position,
                    instr.opcode,
                    0,
                    args,
                )
            )
        if step.data:
            state.data_steps -= 1
            self._maybe_commit(state)

    def _chip_cycles(self, step: Step, start: int) -> tuple[int, dict]:
        """The step's cycles with the chip's shared GM (engine/chip.py): a DMA or a SIMT launch
        that touches GM books its bytes; the planned cycles when there is no chip model."""
        chip = self.chip
        if chip is None or step.kind not in (_DMA, _SIMT):
            return step.cycles, step.args
        args = step.args
        if step.kind is _SIMT:  # approximately: its GM sectors spread over the launch
            nbytes = int(args.get("gm_sector_bytes", 0))
            if not nbytes:
                return step.cycles, args
            cycles = chip.transfer(self.core, start, step.cycles, 0, nbytes)
        else:
            gm = [r for r in (*step.reads, *step.writes) if r.space == "GM"]
            if not gm:
                return step.cycles, args
            nbytes = int(args.get("charged_bytes", step.bytes))
            # same-address lines only for dense transfers: a strided DMA's bounding range
            # would claim lines it never touches (its exact runs are judged by that range too)
            if len(gm) > 1:
                gm = [Region("GM", min(r.start for r in gm), max(r.end for r in gm))]
            dense = [(r.start, r.end) for r in gm if r.end - r.start <= 2 * max(step.bytes, 1)]
            latency = int(args.get("latency_cycles", 0))
            cycles = chip.transfer(self.core, start, step.cycles, latency, nbytes, dense)
        if cycles != step.cycles:
            args = {**args, "planned_cycles": step.cycles}
        return cycles, args

    @staticmethod
    def _maybe_commit(state: InstrState) -> None:
        if state.data_steps == 0 and state.deferred == 0 and state.pending is not None:
            state.pending.commit()
            state.pending = None

    def _begin(self, instr: Instruction, pipe: Pipe, atomic: bool) -> effects.PendingWrites:
        return self._call(instr, pipe, "executing", effects.begin, instr, self.ctx, atomic)

    def _call(self, instr: Instruction, pipe: Pipe, doing: str, fn, *args):
        """Call ``fn`` for ``instr`` on ``pipe``; an unexpected exception becomes an
        ExecutionError naming the instruction. Either way (instr, pipe) is remembered as the
        failing one (simulate reports it)."""
        try:
            return fn(*args)
        except PtoSimError:
            self.failing = (instr, pipe)
            raise
        except Exception as exc:
            self.failing = (instr, pipe)
            raise ExecutionError(
                f"{instr.label} ({instr.source}): internal error while {doing}: {exc!r}"
            ) from exc

    def _post(self, ps: PipeState, step: Step, state: InstrState, slice_start: int) -> None:
        key = step.flag
        self.counts[key] = self.counts.get(key, 0) + 1
        posts = self.posts.get(key)
        if posts is None:
            posts = self.posts[key] = deque()
        posts.append((slice_start, state.instr.position, ps.pipe._name_))
        if self.waiters:
            waiter = self.waiters.pop(key, None)
            if waiter is not None and not waiter.triggered:
                waiter.succeed()

    def _wait(self, ps: PipeState, step: Step, state: InstrState):
        key = step.flag
        t0 = self.env.now
        if self.counts.get(key, 0) == 0:
            ps.blocked = f"wait_flag{flag_text(key)}"
            ps.blocked_instr = state.instr
            ps.blocked_key = key
            ps.blocked_since = t0
            ev = self.env.event()
            self.waiters[key] = ev
            self._notify_idle()
            yield ev
            ps.blocked = None
            ps.blocked_instr = None
            ps.blocked_key = None
        self.counts[key] -= 1
        set_time, set_instr, set_pipe = self.posts[key].popleft()
        names = _FLAG_NAMES.get(key)
        if names is None:
            names = _FLAG_NAMES[key] = (key[0].name, key[1].name, key[2])
        self.trace.flows.append(
            FlowEvent(
                self.core,
                names,
                set_pipe,
                set_time,
                set_instr,
                ps.pipe._name_,
                self.env.now,
                state.instr.position,
            )
        )
        if self.env.now > t0:
            self.trace.waits.append(
                WaitRecord(
                    self.core,
                    ps.pipe.name,
                    state.instr.position,
                    state.instr.opcode,
                    f"wait_flag{flag_text(key)}",
                    t0,
                    self.env.now,
                    set_instr,
                )
            )

    def _cross_wait(self, ps: PipeState, step: Step, state: InstrState):
        """wait_flag_dev: block until a round of the core's FFTS flag completed."""
        flag = step.flag[2]
        t0 = self.env.now
        ps.blocked = step.label  # wait_flag_dev(flag N) or wait_intra_block(PIPE, id)
        ps.blocked_instr = state.instr
        ps.blocked_key = step.flag
        ps.blocked_since = t0
        posts = yield from self.ffts.wait(self.core, flag)
        ps.blocked = None
        ps.blocked_instr = None
        ps.blocked_key = None
        last = max(posts, key=lambda p: (p.time, p.core))  # the post that completed the round
        self.trace.flows.append(
            FlowEvent(
                self.core, ("FFTS", "FFTS", flag), last.pipe, last.time, last.instr,
                ps.pipe.name, self.env.now, state.instr.position, set_core=last.core,
            )
        )  # fmt: skip
        if self.env.now > t0:
            self.trace.waits.append(
                WaitRecord(
                    self.core,
                    ps.pipe.name,
                    state.instr.position,
                    state.instr.opcode,
                    f"{step.label} (released by {self.ffts.topology.names([last.core], 'core')})",
                    t0,
                    self.env.now,
                    last.instr,
                )
            )

    def _all_idle(self) -> bool:
        return all(
            not ps.busy and not ps.queue for p, ps in self.pipes.items() if p is not Pipe.PIPE_S
        )

    def _notify_idle(self) -> None:
        # only a waiting pipe_barrier(PIPE_ALL) needs the wake-up; an event nobody waits on
        # would be a no-op in simpy's queue (it cannot gain a waiter once triggered: waiters
        # take the current idle_event), so keep it for the next waiter instead
        ev = self.idle_event
        if ev.callbacks and not ev.triggered:
            ev.succeed()
            self.idle_event = self.env.event()
        if self.waves is not None and self.scalar_done and not self.released and self._all_idle():
            self.released = True  # the block's core may go to the next waiting block
            self.waves.finished(self.program.core_role.block)

    def _drain_all(self, s: PipeState, entry: list, state: InstrState):
        step = entry[0]
        t0 = self.env.now
        while not self._all_idle():
            s.blocked = "pipe_barrier(PIPE_ALL)"
            s.blocked_instr = state.instr
            s.blocked_since = t0
            yield self.idle_event
        s.blocked = None
        s.blocked_instr = None
        if self.env.now > t0:
            self.trace.waits.append(
                WaitRecord(
                    self.core,
                    "PIPE_S",
                    state.instr.position,
                    state.instr.opcode,
                    "pipe_barrier(PIPE_ALL)",
                    t0,
                    self.env.now,
                )
            )
        yield from self._run(
            s, [Step(Pipe.PIPE_S, StepKind.BARRIER, step.cycles, step.label, data=False)], state
        )

    # -- end of run -----------------------------------------------------------------------
    def stuck(self) -> list[str]:
        """Why this core cannot finish (empty when it finished)."""
        out = []
        for p, ps in self.pipes.items():
            if ps.blocked:
                i = ps.blocked_instr
                where = f"{i.label} ({i.source})" if i is not None else "?"
                extra = ""
                if ps.blocked.startswith(("wait_flag_dev", "wait_intra_block")):
                    extra = ": " + self.ffts.missing(self.core, ps.blocked_key[2])
                elif ps.blocked.startswith("wait_flag"):
                    extra = (
                        f": no set_flag{ps.blocked[9:]} is pending and no queued or "
                        "unissued work will post it" + self._other_ids_pending(ps.blocked_key)
                    )
                n = sum(len(e[0].parts) or 1 for e, _ in ps.queue)  # plan steps, merged or not
                queued = f"; {n} more step(s) queued behind it" if ps.queue else ""
                out.append(
                    f"{self.label} {p.name} blocked in {ps.blocked} of {where}{extra}{queued}"
                )
        gate = self.waves.gate(self.program.core_role.block) if self.waves is not None else None
        if gate is not None and not gate.triggered:
            return [f"{self.label} {self.waves.why_waiting(self.program.core_role.block)}"]
        if not self.scalar_done and not self.pipes[Pipe.PIPE_S].blocked:
            out.append(f"{self.label} PIPE_S did not finish issuing the program")
        return out

    def stuck_waits(self) -> list[WaitRecord]:
        """The waits still blocked when the run stopped (up to now): a deadlocked trace shows
        where each pipe hangs."""
        now = int(self.env.now)
        return [
            WaitRecord(
                self.core,
                p.name,
                ps.blocked_instr.position,
                ps.blocked_instr.opcode,
                f"{ps.blocked} (never released: deadlock)",
                ps.blocked_since,
                now,
            )
            for p, ps in self.pipes.items()
            if ps.blocked and ps.blocked_instr is not None
        ]

    def _other_ids_pending(self, key) -> str:
        """A wait stuck on one event id while the same pipe pair has posts on another id: most
        likely a mistyped id, so say so next to the deadlock."""
        if key is None:
            return ""
        other = [k for k, n in self.counts.items() if n > 0 and k[:2] == key[:2] and k != key]
        if not other:
            return ""
        posts = ", ".join(
            f"set_flag{flag_text(k)} by #{self.posts[k][-1][1]}" for k in sorted(other, key=str)
        )
        return f" ({posts} is pending unconsumed: a mistyped event id?)"

    def leftovers(self, deadlocked: bool = False) -> list[Finding]:
        """Findings for posts nobody consumed (by the deadlock, when the run deadlocked)."""
        out = []
        for key, n in self.counts.items():
            if n > 0:
                posts = list(self.posts.get(key, ()))[-n:]
                who = ", ".join(f"#{pos}" for _, pos, _ in posts)
                never = "never waited before the deadlock" if deadlocked else "never waited"
                out.append(
                    FLAG_UNCONSUMED.make(
                        "flag-unconsumed",
                        f"{self.label}: set_flag{flag_text(key)} posted by {who} was {never} "
                        f"({n} post(s) left); add the matching wait_flag{flag_text(key)} or drop "
                        "the set_flag",
                        tuple(pos for _, pos, _ in posts),
                    )
                )
        return out


def _counts(work) -> tuple[int, int, bool]:
    """(data steps, Deferred parts, whether a step is atomic) of a plan."""
    data = deferred = 0
    atomic = False
    for st in work:
        if type(st) is Step:
            data += st.data
            if st.atomic is not None:
                atomic = True
        elif isinstance(st, Deferred):
            deferred += 1
        elif isinstance(st, Step):
            data += st.data
            atomic = atomic or st.atomic is not None
    return data, deferred, atomic


@dataclass
class Simulation:
    """What ``simulate`` recorded, finished or not.

    Attributes:
        cycles: the cycle the run ended (or stopped) at.
        cores: the core engines (their ``issued`` steps feed the hazard analysis).
        trace, states: the trace and per-instruction timing so far.
        failure: the first error a pipe raised (it stopped the run), else None.
        stuck: why pipes could not finish (a deadlock), else empty.
        leftovers: (core, finding) for posts nobody consumed (finished or deadlocked runs).
    """

    cycles: int
    cores: list[CoreEngine]
    trace: Trace
    states: list[InstrState]
    failure: Failure | None = None
    stuck: list[str] = field(default_factory=list)
    leftovers: list[tuple[int, Finding]] = field(default_factory=list)
    chip: ChipMemory | None = None  # the shared GM model (its traffic and lane)
    waves: Waves | None = None  # the block scheduler of a launch larger than the device

    @property
    def deadlock(self) -> str | None:
        """The deadlock report, or None."""
        if not self.stuck:
            return None
        return f"deadlock at cycle {self.cycles}: " + "; ".join(self.stuck)


def _chip(ctxs: list[ExecContext]) -> ChipMemory | None:
    """The chip's shared memory model of the device config ([timing.chip]), if any."""
    config = getattr(ctxs[0], "config", None) if ctxs else None
    timing = getattr(config, "timing", None)
    chip = getattr(timing, "chip", None)
    return ChipMemory(chip) if chip is not None else None


def simulate(
    programs: list[Program],
    ctxs: list[ExecContext],
    planner,
    issue_cycles: int,
    progress=None,
    device_cores: int | None = None,
) -> Simulation:
    """Run every core's program concurrently until it finishes, deadlocks or fails.

    ``device_cores``: how many blocks the device runs at once; a launch of more blocks runs in waves
    (engine/waves.py). None: every block at once.

    A PtoSimError raised by planning or executing a step stops the run and is returned in
    ``failure`` with the steps issued so far, so the caller can analyse them; a deadlock is
    returned in ``stuck``. Any other exception (a bug) propagates.
    """
    env = simpy.Environment()
    trace = Trace()
    failure: list[Failure] = []
    abort = env.event()
    chip = _chip(ctxs)
    if chip is not None:
        chip.cores = len(programs)  # one core: no same-address serialisation to track
    trace.chip = chip
    ffts = Ffts(env, Topology([p.core_role for p in programs]))
    blocks = [p.core_role.block for p in programs]
    waves = None
    if device_cores is not None and len(set(blocks)) > device_cores:
        waves = Waves(env, blocks, device_cores)
        trace.waves = waves.placements  # filled in as blocks start
    cores = [
        CoreEngine(
            env, i, prog, ctx, planner, issue_cycles, trace, failure, abort, progress, chip, ffts,
            waves,
        )
        for i, (prog, ctx) in enumerate(zip(programs, ctxs))
    ]  # fmt: skip
    # simpy raises RuntimeError when no event is left before ``abort``: the normal end of a
    # run (or a deadlock, diagnosed below)
    with contextlib.suppress(RuntimeError):
        env.run(until=abort)
    states = [s for c in cores for s in c.states]
    sim = Simulation(int(env.now), cores, trace, states, chip=chip, waves=waves)
    if failure:
        if not isinstance(failure[0].error, PtoSimError):
            raise failure[0].error
        sim.failure = failure[0]
        return sim
    sim.stuck = [line for c in cores for line in c.stuck()]
    if sim.stuck:
        trace.waits += [w for c in cores for w in c.stuck_waits()]
    if sim.stuck:  # a finished run's unconsumed posts are F201 of the analysis
        sim.leftovers = [(c.core, f) for c in cores for f in c.leftovers(deadlocked=True)]
    return sim
