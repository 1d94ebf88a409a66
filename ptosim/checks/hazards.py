"""Happens-before hazard analysis of a run (DESIGN.md section 4, issue "trustworthy verdicts").

The analysis uses the steps each core issued, in the scalar pipe's issue order, and never their
simulated times, so a race the timing happened to hide is still reported. The ordering relations
and the vector clocks are described in :mod:`ptosim.checks.clocks`; in short: program order inside
a pipe, issue order from PIPE_S for scalar reads, counting set_flag -> wait_flag pairs, and
pipe barriers. A scalar *write* reaches another pipe only through a flag chain from PIPE_S.

Findings:

- F203 race: two pipes of one core access overlapping UB/L1/GM bytes, one writes, nothing orders
  them. One finding per pair of instructions, with a fix (:mod:`ptosim.checks.fixes`).
- F206 DMA reorder: two DMAs of one MTE pipe write overlapping GM with no barrier between them.
- F207 vector order: a vector instruction reads (or overwrites) UB an earlier vector instruction
  writes with no pipe_barrier(PIPE_V) between them (a2a3 and cpu; the A2/A3 pipe is pipelined).
- F205 cross-core race: two cores access overlapping GM, one writes, and no FFTS flag chain
  (ffts_cross_core_sync / wait_flag_dev, SyncAll) orders them. Hardware atomics of the same op
  commute and never race (MSCATTER Row Add on a2a3, every a5 atomic).
- F201 unconsumed set, F202 event misuse (:mod:`ptosim.checks.flags`).

Cost: the accesses are swept once, in a logical execution order, over an interval map per memory
space holding the last write and last read of every (core, pipe) per byte segment
(:mod:`ptosim.checks.intervals`), so the work is O(n log n) in the number of accesses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cores import INTRA_ID_RULE, Topology
from ..enums import Pipe
from ..findings import CROSS_CORE, DMA_REORDER, RACE, VECTOR_ORDER, Edit, Finding
from ..isa.sync import WaitFlag
from ..plan import Region, StepKind, merge_ranges
from . import clocks as C
from .fifo import no_split_message, no_split_pushes
from .fixes import FlagBook, barrier_before, insert_pair
from .flags import cross_stuck, cross_unconsumed, flag_findings, stuck_findings
from .intervals import IntervalMap

# Pipes whose queue may complete two DMAs out of order (same-pipe GM ordering needs a barrier).
DMA_PIPES = (Pipe.PIPE_MTE1, Pipe.PIPE_MTE2, Pipe.PIPE_MTE3, Pipe.PIPE_FIX)
_PIPE_S, _PIPE_ALL, _PIPE_V = Pipe.PIPE_S, Pipe.PIPE_ALL, Pipe.PIPE_V  # (Enum lookups are slow)
_BARRIER = StepKind.BARRIER
# Targets whose vector pipe needs pipe_barrier(PIPE_V) between dependent instructions
VECTOR_BARRIER_TARGETS = ("a2a3", "cpu")


@dataclass(eq=False, slots=True)
class Access:
    """What one instruction does on one pipe to one memory space: merged byte ranges, and the
    vector clocks of its first and last step there."""

    core: int
    instr: object
    pipe: Pipe
    space: str
    writes: bool
    atomic: str | None = None  # the hardware atomic op (commutes with the same op)
    ranges: list[tuple[int, int]] = field(default_factory=list)
    first_vc: list[int] | None = None
    last_vc: list[int] | None = None
    first_xk: dict | None = None  # cross-core knowledge at its first step (clocks.Clocks.xk)
    first_issue: int = 0
    rank: int = 0  # place of its first step in the logical execution


@dataclass
class CoreView:
    """One core's issued steps, clocks, accesses, and per (position, pipe) first/last vcs."""

    core: int
    issued: list
    clocks: C.Clocks
    accesses: list[Access]
    spans: dict[tuple, tuple[list[int], list[int]]]
    target: str
    set_wait: dict | None = None  # issued index of a set -> of the wait that consumes it


def core_view(core: int, issued: list, target: str, clocks: C.Clocks | None = None) -> CoreView:
    if clocks is None:
        clocks = C.vector_clocks(issued)
    vcs = clocks.vcs
    xks = clocks.xk or [C.EMPTY] * len(issued)
    rank = [len(issued) * 2] * len(issued)  # a list: numpy item access is slow per step
    for r, i in enumerate(clocks.order):
        rank[i] = r
    never = [i for i in range(len(issued)) if rank[i] >= len(issued) * 2]
    for r, i in enumerate(never):  # steps a deadlock kept from running come last
        rank[i] = len(clocks.order) + r
    table: dict[tuple, Access] = {}
    spans: dict[tuple, tuple] = {}
    # PIPE_V accesses of one instruction are kept apart per stage between its own
    # pipe_barrier(PIPE_V) steps (TROWEXPAND*'s broadcast, then its compute): the same-pipe
    # rule (F207) needs to know which stage wrote or read which bytes
    stages: dict[int, int] = {}
    for i, (step, instr) in enumerate(issued):
        pipe = _PIPE_S if step.pipe is _PIPE_ALL else step.pipe
        key = (instr.position, pipe)
        vc = vcs[i]
        span = spans.get(key)
        spans[key] = (vc, vc) if span is None else (span[0], vc)
        if pipe is _PIPE_V and step.kind is _BARRIER:
            stages[instr.position] = stages.get(instr.position, 0) + 1
        if not step.reads and not step.writes:
            continue
        atomic = step.atomic  # set by the plan (the cpu's: structural.py); same op: commute
        stage = stages.get(instr.position, 0) if pipe is _PIPE_V else 0
        for writes, regions in ((False, step.reads), (True, step.writes)):
            for reg in regions:
                k = (instr.position, pipe, reg.space, writes, atomic, stage)
                acc = table.get(k)
                if acc is None:
                    acc = table[k] = Access(
                        core, instr, pipe, reg.space, writes, atomic,
                        first_vc=vcs[i], first_xk=xks[i], first_issue=i, rank=rank[i],
                    )  # fmt: skip
                acc.ranges.append((reg.start, reg.end))
                acc.last_vc = vcs[i]
    accs = []
    for a in table.values():
        a.ranges = merge_ranges(a.ranges)
        if a.ranges:
            accs.append(a)
    return CoreView(core, issued, clocks, accs, spans, target)


def _component(a: Access) -> int:
    """The clock component that carries ``a`` to other pipes: a scalar read is ordered by issue
    order, a scalar write only by a flag chain from PIPE_S."""
    if a.pipe is _PIPE_S and not a.writes:
        return C.ISSUE
    return C.INDEX[a.pipe]


def happens_before(a: Access, b: Access) -> bool:
    if a.pipe is b.pipe:
        if a.pipe is _PIPE_S:
            return True  # the scalar unit is in order and synchronous
        # another step of the same queue: ordered only once a's completion is known
        return bool(a.last_vc[C.INDEX[a.pipe]] <= b.first_vc[C.done_index(a.pipe)])
    k = _component(a)
    return bool(a.last_vc[k] <= b.first_vc[k])


def cross_happens_before(a: Access, b: Access) -> bool:
    """``a`` (one core) completes before ``b`` (another core) starts: an FFTS flag chain
    carried a clock of ``a``'s core that counts ``a`` to ``b``'s core."""
    know = b.first_xk.get(a.core) if b.first_xk else None
    if know is None:
        return False
    k = _component(a)
    return bool(a.last_vc[k] <= know[k])


def _commute(a: Access, b: Access) -> bool:
    return a.atomic is not None and a.atomic == b.atomic


def _label(instr) -> str:
    return f"{instr.label}" + (f" ({instr.source})" if instr.source else "")


@dataclass
class _Pair:
    first: Access  # the earlier instruction in program order
    second: Access
    lo: int
    hi: int

    @property
    def kind(self) -> str:
        a, b = self.first, self.second
        return "WAW" if a.writes and b.writes else ("RAW" if a.writes else "WAR")


def _sweep(views: list[CoreView], owner_of=None):
    """Yield (kind, a, b, lo, hi) for every conflict the sweep finds: ``"race"`` (same core,
    different pipes, unordered), ``"reorder"`` (same DMA pipe, GM, unordered) and ``"cross"``
    (different cores). ``a`` was swept before ``b``."""
    maps: dict[object, IntervalMap] = {}
    for view in views:
        for b in sorted(view.accesses, key=lambda a: (a.rank, a.writes)):
            # GM is shared by the cores; UB and L1 are per core (``owner_of``: the core whose
            # buffer it is, when cores reach each other's)
            if b.space == "GM":
                key = "GM"
            else:
                key = (b.space, b.core) if owner_of is None else owner_of(b.core, b.space)
            imap = maps.setdefault(key, IntervalMap())
            mine = (b.core, b.pipe)
            for lo, hi in b.ranges:
                for s_lo, s_hi, state in imap.cover(lo, hi):
                    for owner, (lw, fr, lr) in state.items():
                        for a in (lw, fr, lr if lr is not fr else None) if b.writes else (lw,):
                            if a is None or a.instr is b.instr and a.core == b.core:
                                continue
                            if not (a.writes or b.writes) or _commute(a, b):
                                continue
                            if owner[0] != b.core:
                                if not (cross_happens_before(a, b) or cross_happens_before(b, a)):
                                    yield "cross", a, b, s_lo, s_hi
                            elif owner != mine:
                                if not happens_before(a, b):
                                    yield "race", a, b, s_lo, s_hi
                            elif (
                                b.space == "GM" and b.pipe in DMA_PIPES and a.writes and b.writes
                                and not happens_before(a, b)
                            ):  # fmt: skip
                                yield "reorder", a, b, s_lo, s_hi
                            elif (
                                b.pipe is _PIPE_V and b.space == "UB" and a.writes
                                and view.target in VECTOR_BARRIER_TARGETS
                                and not happens_before(a, b)
                            ):  # fmt: skip
                                yield "vorder", a, b, s_lo, s_hi
                    entry = state.get(mine)
                    if entry is None:
                        entry = state[mine] = [None, None, None]
                    if b.writes:
                        entry[0], entry[1] = b, None
                    else:
                        entry[2] = b
                        if entry[1] is None:
                            entry[1] = b


def analyse(
    cores: list[tuple[int, list]],
    event_ids: int,
    *,
    target: str = "",
    flag_depth: int | None = None,
    complete: bool = True,
    notes: dict | None = None,
    topology: Topology | None = None,
    shared_l1: bool = False,
) -> list[Finding]:
    """Every happens-before finding of a run. ``cores`` holds (core id, issued steps) pairs;
    ``complete`` is False for the partial record of a run that stopped early (no F201 then).
    ``notes``, when given, receives ``id(finding) -> core`` (for checks/causes.py);
    ``topology``: the launch's cores (ptosim/cores.py; default a vector-only launch);
    ``shared_l1``: the vector cores of a mixed launch reach their cube core's L1 and the cube
    core their UBs (950, ``CubeRules.onchip_cv_paths``): such accesses are keyed by the owner."""
    if topology is None:
        topology = Topology.vector(max((core for core, _ in cores), default=-1) + 1)
    clocks = C.all_clocks(cores, topology)  # together: FFTS flags order steps across cores
    views = [core_view(core, issued, target, clocks[core]) for core, issued in cores]
    findings: list[Finding] = []
    races: dict[tuple, list[_Pair]] = {}
    reorders: dict[tuple, _Pair] = {}
    crosses: dict[tuple, _Pair] = {}
    owner_of = topology.memory_owner if shared_l1 else None
    for kind, a, b, lo, hi in _sweep(views, owner_of):
        first, second = (a, b) if a.instr.position <= b.instr.position else (b, a)
        if kind == "cross":
            first, second = (a, b) if a.core < b.core else (b, a)
            key = (first.core, second.core, first.instr.position, second.instr.position)
            _widen(crosses, key, first, second, lo, hi)
        elif kind in ("reorder", "vorder"):
            key = (kind, a.core, first.instr.position, second.instr.position)
            _widen(reorders, key, first, second, lo, hi)
        else:
            key = (a.core, first.instr.position, second.instr.position)
            group = races.setdefault(key, [])
            for p in group:
                if p.first is first and p.second is second:
                    p.lo, p.hi = min(p.lo, lo), max(p.hi, hi)
                    break
            else:
                group.append(_Pair(first, second, lo, hi))
    by_core = {v.core: v for v in views}
    books: dict[int, FlagBook] = {}  # built for the cores with races only
    moved: set[tuple] = set()
    for view in views:
        findings += _noted(notes, view.core, stuck_findings(view))
    findings += cross_stuck(views, topology)
    for view in views:
        findings += _noted(notes, view.core, flag_findings(view, event_ids, flag_depth, complete))
    if complete:
        findings += cross_unconsumed(cores, topology)
    for (core, _, _), group in sorted(races.items(), key=lambda kv: kv[0]):
        if core not in books:
            books[core] = FlagBook(by_core[core].issued, event_ids)
        findings += _noted(notes, core, [_race_finding(group, by_core[core], books[core], moved)])
    for key, pair in reorders.items():
        found = _reorder_finding(pair) if key[0] == "reorder" else _vorder_finding(pair)
        findings += _noted(notes, key[1], [found])
    for pair in _implied_dropped(crosses.values()):
        findings.append(_cross_finding(pair, topology))
    return findings


def _oriented(p: _Pair) -> tuple[Access, Access]:
    """The two accesses of a cross-core race in the order a fix puts them: the write first
    when only one of them writes (the hand-over a missing flag most often breaks), else by
    core."""
    a, b = p.first, p.second
    return (b, a) if b.writes and not a.writes else (a, b)


def _implied_dropped(pairs) -> list[_Pair]:
    """Cross-core races minus those the fix of another one orders too: of one write racing
    several reads of one core, only the reads no other such read precedes on that core (the
    wait before the first orders the later ones); of several writes of one core racing one
    read, only the last write (the post after it follows the earlier ones)."""
    pairs = list(pairs)
    ordered = [_oriented(p) for p in pairs]
    by_x: dict[int, list] = {}  # id(first access) -> the hand-over pairs it starts
    by_y: dict[int, list] = {}
    for p, (x, y) in zip(pairs, ordered, strict=True):
        if x.writes != y.writes:  # one write, one read: the oriented hand-over
            by_x.setdefault(id(x), []).append((p, x, y))
            by_y.setdefault(id(y), []).append((p, x, y))
    keep = []
    for p, (x, y) in zip(pairs, ordered, strict=True):
        implied = x.writes != y.writes and (
            # the wait before an earlier read y2 of y's core orders y too
            any(q is not p and y2.core == y.core and happens_before(y2, y)
                for q, _, y2 in by_x.get(id(x), ()))
            # the post after a later write x2 of x's core follows x too
            or any(q is not p and x2.core == x.core and happens_before(x, x2)
                   for q, x2, _ in by_y.get(id(y), ()))
        )  # fmt: skip
        if not implied:
            keep.append(p)
    return keep


def _noted(notes: dict | None, core: int, found: list[Finding]) -> list[Finding]:
    if notes is not None:
        for f in found:
            notes[id(f)] = core
    return found


def _widen(table: dict, key: tuple, first: Access, second: Access, lo: int, hi: int) -> None:
    p = table.get(key)
    if p is None:
        table[key] = _Pair(first, second, lo, hi)
    else:
        p.lo, p.hi = min(p.lo, lo), max(p.hi, hi)


def _verb(a: Access) -> str:
    return "writes" if a.writes else "reads"


def _covers_first(view: CoreView, pipe: Pipe, group: list[_Pair]) -> bool:
    """A set_flag on ``pipe`` right after the first instruction orders all its racing accesses."""
    span = view.spans.get((group[0].first.instr.position, pipe))
    if span is None:
        return False
    last = span[1]
    for p in group:
        a = p.first
        if a.pipe is pipe or (a.pipe is Pipe.PIPE_S and not a.writes):
            continue
        k = _component(a)
        if last[k] < a.last_vc[k]:
            return False
    return True


def _covers_second(view: CoreView, pipe: Pipe, group: list[_Pair]) -> bool:
    """A wait_flag on ``pipe`` right before the second instruction orders all its accesses."""
    if pipe is Pipe.PIPE_S:
        return True  # a wait on PIPE_S holds back the issue of everything after it
    span = view.spans.get((group[0].second.instr.position, pipe))
    if span is None:
        return False
    k = C.INDEX[pipe]
    return all(p.second.pipe is pipe or p.second.first_vc[k] >= span[0][k] for p in group)


def _lines(first, second) -> tuple:
    return (first.source, second.source)


def _loop_carried(first, second) -> bool:
    """The second instruction's source line is not below the first's in the same file: in the
    source the wait would come before the set (a dependency carried around a loop)."""
    a, b = first.source, second.source
    if not a or not b or ":" not in a or ":" not in b:
        return False
    fa, la = a.rsplit(":", 1)
    fb, lb = b.rsplit(":", 1)
    return fa == fb and la.isdigit() and lb.isdigit() and int(lb) <= int(la)


def _late_wait(view: CoreView, book: FlagBook, moved: set, p: _Pair, src: Pipe, dst: Pipe):
    """A user wait_flag(src, dst, id) after the second instruction that consumes a post set
    after the first one: moving it before the second instruction orders the pair."""
    issued, vcs = view.issued, view.clocks.vcs
    f_pos, g_pos = p.first.instr.position, p.second.instr.position
    k = _component(p.first)
    if view.set_wait is None:
        view.set_wait = {s: w for w, s in C.flag_pairs(issued).items()}
    pairs = view.set_wait
    g_span = view.spans.get((g_pos, dst))
    for s, (step, instr) in enumerate(issued):
        if step.kind is not StepKind.SET_FLAG or step.flag[:2] != (src, dst):
            continue
        if not f_pos <= instr.position < g_pos or vcs[s][k] < p.first.last_vc[k]:
            continue
        w = pairs.get(s)
        if w is None:
            continue
        wstep, winstr = issued[w]
        if not isinstance(winstr, WaitFlag) or winstr.position <= g_pos:
            continue
        if (view.core, winstr.position) in moved:
            continue
        key = step.flag
        if book.waits_between(key, g_pos - 0.5, winstr.position) > 0:
            continue  # another wait of the event sits in between: moving would re-pair them
        if g_span is not None and vcs[s][C.INDEX[dst]] >= g_span[0][C.INDEX[dst]]:
            continue  # the set depends on the second instruction: moving would deadlock
        return instr, winstr, key
    return None


def _race_finding(group: list[_Pair], view: CoreView, book: FlagBook, moved: set) -> Finding:
    first_i, second_i = group[0].first.instr, group[0].second.instr
    # candidates: the instruction's nominal pipe first (V for TSCATTER, as the library's Event
    # table has it), then the pipes of the racing accesses
    firsts = list(dict.fromkeys([first_i.nominal_pipe] + [p.first.pipe for p in group]))
    seconds = list(dict.fromkeys([second_i.nominal_pipe] + [p.second.pipe for p in group]))
    src = next((q for q in firsts if _covers_first(view, q, group)), None)
    dst = next((q for q in seconds if _covers_second(view, q, group)), None)
    primary = next(
        (p for p in group if p.first.pipe is src and p.second.pipe is dst),
        next((p for p in group if p.first.pipe is src), group[0]),
    )
    if src is None:
        src = primary.first.pipe
    if dst is None:
        dst = primary.second.pipe
    a, b = primary.first, primary.second
    span = Region(a.space, primary.lo, primary.hi)
    msg = (
        f"{primary.kind} race on {span}: {_label(a.instr)} {_verb(a)} it on {a.pipe.name} and "
        f"{_label(b.instr)} {_verb(b)} it on {b.pipe.name}, and nothing orders them"
    )

    def pair_text(p: _Pair) -> str:
        return (
            f"{p.first.instr.label} {_verb(p.first)} {Region(p.first.space, p.lo, p.hi)} on "
            f"{p.first.pipe.name}, {p.second.instr.label} {_verb(p.second)} it on "
            f"{p.second.pipe.name}"
        )

    # the accesses of one instruction's stages (F207's split) may repeat the same pair: once
    others = dict.fromkeys(pair_text(p) for p in group if p is not primary)
    others.pop(pair_text(primary), None)
    if others:
        msg += " (also " + "; ".join(others) + ")"
    late = _late_wait(view, book, moved, primary, src, dst)
    if late is not None:
        set_instr, wait_instr, key = late
        moved.add((view.core, wait_instr.position))
        book.move_wait(key, wait_instr.position, second_i.position - 0.5)
        fix = (
            Edit("move", "wait_flag", "before", second_i.position, second_i.source,
                 key[0].name, key[1].name, key[2], position=wait_instr.position),
        )  # fmt: skip
        msg += (
            f"; fix: move the wait for EVENT_ID{key[2]}, wait_flag({key[0].name}, "
            f"{key[1].name}, EVENT_ID{key[2]}) at {_label(wait_instr)}, before "
            f"{second_i.label}: it consumes the post of {_label(set_instr)} after "
            f"{first_i.label}, but only after {second_i.label} has run"
        )
    else:
        eid = book.choose(src, dst, first_i.position, second_i.position, _lines(first_i, second_i))
        if eid is None:
            fix = barrier_before(second_i)
            msg += (
                f"; fix: pipe_barrier(PIPE_ALL) before {second_i.label} (every event id of "
                f"({src.name}, {dst.name}) is in use there)"
            )
        else:
            fix = insert_pair(src, dst, eid, first_i, second_i)
            msg += (
                f"; fix: set_flag({src.name}, {dst.name}, EVENT_ID{eid}) after {first_i.label} "
                f"and wait_flag({src.name}, {dst.name}, EVENT_ID{eid}) before {second_i.label}"
            )
            if _loop_carried(first_i, second_i):
                msg += (
                    f"; in the source loop the wait comes first, so prime it with set_flag("
                    f"{src.name}, {dst.name}, EVENT_ID{eid}) once before the loop and drain it "
                    f"with wait_flag({src.name}, {dst.name}, EVENT_ID{eid}) once after the loop"
                )
    return RACE.make(
        f"race-{primary.kind.lower()}",
        msg,
        (first_i.position, second_i.position),
        fix,
    )


def _reorder_finding(p: _Pair) -> Finding:
    a, b = p.first, p.second
    pipe = a.pipe
    return DMA_REORDER.make(
        "dma-reorder",
        f"WAW on {Region(a.space, p.lo, p.hi)}: {_label(a.instr)} and {_label(b.instr)} both "
        f"write it on {pipe.name}, whose DMAs may complete out of order, and nothing orders "
        f"them; fix: pipe_barrier({pipe.name}) before {b.instr.label}",
        (a.instr.position, b.instr.position),
        barrier_before(b.instr, pipe),
    )


def _vorder_finding(p: _Pair) -> Finding:
    a, b = p.first, p.second
    kind = "vector-waw" if b.writes else "vector-raw"
    what = "overwrites" if b.writes else "reads"
    return VECTOR_ORDER.make(
        kind,
        f"{_label(b.instr)} {what} {Region('UB', p.lo, p.hi)}, which {_label(a.instr)} writes, "
        "with no pipe_barrier(PIPE_V) between them: the vector pipe is pipelined and does not "
        "wait for a write before a later read; fix: pipe_barrier(PIPE_V) before "
        f"{b.instr.label}",
        (a.instr.position, b.instr.position),
        barrier_before(b.instr, Pipe.PIPE_V),
    )


def _cross_finding(p: _Pair, topology: Topology) -> Finding:
    a, b = p.first, p.second
    ca, cb = topology.names([a.core], "core"), topology.names([b.core], "core")
    if no_split_pushes(a.instr, b.instr):
        return CROSS_CORE.make(
            "fifo-no-split-push",
            no_split_message(
                f"{ca} {_label(a.instr)}",
                f"{cb} {_label(b.instr)}",
                Region("GM", p.lo, p.hi),
                a.instr.fifo.pipe,
            ),  # fmt: skip
            (a.instr.position, b.instr.position),
        )
    if a.space == "GM":
        where, fix = str(Region("GM", p.lo, p.hi)), _cross_fix(p, topology)
    else:  # 950: one core's buffer, reached by another core of its AI core
        base, owner = topology.memory_owner(a.core, a.space)
        where = f"{Region(base, p.lo, p.hi)} of {topology.names([owner], 'core')}"
        fix = _intra_fix(p, topology)
    return CROSS_CORE.make(
        "cross-core-race",
        f"{ca} {_label(a.instr)} and {cb} {_label(b.instr)} both touch {where} and one of "
        "them writes it (not as a hardware atomic), and no cross-core flag orders them: " + fix,
        (a.instr.position, b.instr.position),
    )


def _intra_fix(p: _Pair, topology: Topology) -> str:
    """The fix of a 950 race on one core's buffer between the cube core and a vector core of
    its AI core: an intra-block flag after the first access and a wait before the second, in
    the ids each side writes (the cube core sends F + 16 k to reach AIVk; AIVk's F arrives at
    the cube core as F + 16 k)."""
    a, b = _oriented(p)
    roles = topology.roles
    generic = (
        "fix: an intra-block flag: set_intra_block(pipe, id) after the access that must go "
        f"first and wait_intra_block(pipe, id) before the other ({INTRA_ID_RULE})"
    )
    if not (0 <= a.core < len(roles) and 0 <= b.core < len(roles)):
        return generic
    ra, rb = roles[a.core], roles[b.core]
    if ra.block != rb.block or ra.is_cube == rb.is_cube:
        return generic
    k = (rb if ra.is_cube else ra).subblock
    sent, waited = ("F + 16", "F") if ra.is_cube else ("F", "F + 16")
    if k == 0:
        sent = waited = "F"
    return (
        f"fix: set_intra_block({a.pipe.name}, {sent}) on {ra.label} after {a.instr.label}, "
        f"and wait_intra_block({b.pipe.name}, {waited}) on {rb.label} before "
        f"{b.instr.label}, F an id (0-15) the kernel uses for nothing else ({INTRA_ID_RULE})"
    )


def _cross_fix(p: _Pair, topology: Topology) -> str:
    """The fix of a cross-core race: between the cube core and a vector core of one AI core, the
    mode-2 hand-over (a cube post counts on both vector cores' flags; a cube wait needs a post
    from each); otherwise the generic advice."""
    a, b = _oriented(p)
    roles = topology.roles
    if 0 <= a.core < len(roles) and 0 <= b.core < len(roles):
        ra, rb = roles[a.core], roles[b.core]
        if ra.block == rb.block and ra.is_cube != rb.is_cube:
            both = "" if ra.is_cube else " (and the same post from the other vector core)"
            return (
                f"fix: ffts_cross_core_sync({a.pipe.name}, ffts_config(2, F)) on {ra.label} "
                f"after {a.instr.label}{both}, and wait_flag_dev(F) on {rb.label} before "
                f"{b.instr.label}, F a flag id (0-15) the kernel uses for nothing else"
            )
    return (
        "give each block its own GM slice, or order them with ffts_cross_core_sync / "
        "wait_flag_dev (or SyncAll) between the two accesses"
    )
