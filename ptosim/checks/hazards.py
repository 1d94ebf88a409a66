"""Happens-before hazard analysis of a timed run (DESIGN.md section 4, issue "handshake bugs").

The analysis uses the steps each core issued, in the scalar pipe's issue order, and never their
simulated times. A race that the timing happened to hide is therefore still reported. These
relations order two steps:

- program order inside one pipe (each pipe is in-order and runs one step at a time);
- issue order from PIPE_S (a scalar step completes before PIPE_S issues anything after it);
- set_flag -> wait_flag, paired by counting per (src, dst, id): the n-th wait consumes the n-th
  post;
- pipe_barrier(PIPE_ALL) (every step issued before it is complete).

Each step gets a vector clock from a logical execution of the queues with no time in it. Two
accesses are a race when they come from different pipes of one core and touch overlapping
UB/L1/GM bytes, at least one of them writes, and neither happens before the other. For each
race the finding names both instructions with their kernel position and source line, the pipes,
the overlapping bytes, the kind (RAW/WAR/WAW) and the flag pair that would order them. On GM,
accesses from different cores that overlap (one of them a write) are races too: ptosim models
no cross-core synchronisation.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..enums import QUEUE_PIPES, Pipe
from ..findings import Finding
from ..plan import Region, Step, StepKind

FLAG_REUSED = "F202"
RACE = "F203"
CROSS_CORE = "F205"
_PIPES = QUEUE_PIPES
_INDEX = {p: i for i, p in enumerate(_PIPES)}


@dataclass
class Access:
    """What one instruction does on one pipe to one memory space: merged byte ranges, and the
    vector clocks of its first and last step there."""

    core: int
    instr: object
    pipe: Pipe
    space: str
    writes: bool
    ranges: list[tuple[int, int]] = field(default_factory=list)
    first_vc: np.ndarray | None = None
    last_vc: np.ndarray | None = None
    first_issue: int = 0


def _vector_clocks(issued: list) -> list[np.ndarray]:
    """Vector clock of every issued step from a logical (untimed) execution of the queues."""
    n = len(issued)
    vcs: list[np.ndarray | None] = [None] * n
    pipe_vc = {p: np.zeros(len(_PIPES), dtype=np.int64) for p in _PIPES}
    queues = {p: deque() for p in _PIPES if p is not Pipe.PIPE_S}
    posts: dict[tuple, deque] = {}
    cursor = 0

    def run(i: int, pipe: Pipe, extra: np.ndarray | None) -> None:
        vc = pipe_vc[pipe].copy()
        if extra is not None:
            np.maximum(vc, extra, out=vc)
        vc[_INDEX[pipe]] += 1
        vcs[i] = vc
        pipe_vc[pipe] = vc
        step: Step = issued[i][0]
        if step.kind is StepKind.SET_FLAG:
            posts.setdefault(step.flag, deque()).append(vc)

    def wait_ready(step: Step) -> bool:
        return step.kind is not StepKind.WAIT_FLAG or bool(posts.get(step.flag))

    progress = True
    while progress:
        progress = False
        while cursor < n:  # the scalar pipe: its own steps, PIPE_ALL barriers and the issuing
            step: Step = issued[cursor][0]
            if step.pipe is Pipe.PIPE_S:
                if not wait_ready(step):
                    break
                extra = posts[step.flag].popleft() if step.kind is StepKind.WAIT_FLAG else None
                run(cursor, Pipe.PIPE_S, extra)
            elif step.pipe is Pipe.PIPE_ALL:
                if any(queues.values()):
                    break
                everything = np.max(np.stack(list(pipe_vc.values())), axis=0)
                run(cursor, Pipe.PIPE_S, everything)
            else:
                queues[step.pipe].append((cursor, pipe_vc[Pipe.PIPE_S].copy()))
            cursor += 1
            progress = True
        for pipe, q in queues.items():
            while q:
                i, issue_vc = q[0]
                step = issued[i][0]
                if not wait_ready(step):
                    break
                q.popleft()
                extra = issue_vc
                if step.kind is StepKind.WAIT_FLAG:
                    extra = np.maximum(issue_vc, posts[step.flag].popleft())
                run(i, pipe, extra)
                progress = True
    return [vc if vc is not None else np.full(len(_PIPES), np.iinfo(np.int64).max) for vc in vcs]


def reuse_findings(issued: list, vcs: list[np.ndarray]) -> list[Finding]:
    """An event set again before the wait that consumes its previous post is ordered before the
    new set: the two posts merge into a count, so the waits may pair with the wrong posts (the
    reference library's Event allocator asserts on this in program order)."""
    sets: dict[tuple, list[int]] = {}
    waits: dict[tuple, list[int]] = {}
    for i, (step, _) in enumerate(issued):
        if step.kind is StepKind.SET_FLAG:
            sets.setdefault(step.flag, []).append(i)
        elif step.kind is StepKind.WAIT_FLAG:
            waits.setdefault(step.flag, []).append(i)
    out = []
    for key, posts in sets.items():
        consumers = waits.get(key, [])
        unsafe = []  # (earlier set, its wait, the set that may overtake that wait)
        for n in range(1, min(len(posts), len(consumers) + 1)):
            w, s = consumers[n - 1], posts[n]
            k = _INDEX[issued[w][0].pipe]
            if vcs[w][k] > vcs[s][k]:  # the previous wait is not ordered before this set
                unsafe.append((posts[n - 1], w, s))
        if not unsafe:
            continue
        src, dst, eid = key
        first_prev, first_wait, first_set = unsafe[0]
        more = f" ({len(unsafe)} such sets in all)" if len(unsafe) > 1 else ""
        out.append(Finding(
            FLAG_REUSED, "flag-reused",
            f"{_label(issued[first_set][1])}: set_flag({src.name}, {dst.name}, EVENT_ID{eid}) "
            f"may post again before {_label(issued[first_wait][1])} has consumed the post of "
            f"{issued[first_prev][1].label}{more}; the posts merge into a count and the waits "
            "can pair with the wrong ones - use a distinct event id for each buffer, or wait "
            "before setting again",
            tuple(sorted({issued[i][1].position for u in unsafe for i in u})),
        ))  # fmt: skip
    return out


def analyse(cores: list[tuple[int, list]], event_ids: int) -> list[Finding]:
    """Every happens-before finding of a run: per core its event reuses and races, then the
    cross-core GM races. ``cores`` holds (core id, issued steps) pairs."""
    findings: list[Finding] = []
    per_core = []
    for core, issued in cores:
        vcs = _vector_clocks(issued)  # once per core, shared by every analysis below
        accs = accesses(core, issued, vcs)
        per_core.append(accs)
        findings += reuse_findings(issued, vcs)
        findings += race_findings(accs, issued, event_ids)
    if len(per_core) > 1:
        findings += cross_core_findings(per_core)
    return findings


def _happens_before(a: Access, b: Access) -> bool:
    k = _INDEX[a.pipe]
    return bool(a.last_vc[k] <= b.first_vc[k])


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(r for r in ranges if r[1] > r[0]):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> tuple[int, int] | None:
    lo = hi = None
    for alo, ahi in a:
        for blo, bhi in b:
            s, e = max(alo, blo), min(ahi, bhi)
            if s < e:
                lo = s if lo is None else min(lo, s)
                hi = e if hi is None else max(hi, e)
    return None if lo is None else (lo, hi)


def accesses(core: int, issued: list, vcs: list[np.ndarray]) -> list[Access]:
    """Per (instruction, pipe, space, read/write) accesses of one core, with vector clocks."""
    table: dict[tuple, Access] = {}
    for i, (step, instr) in enumerate(issued):
        pipe = Pipe.PIPE_S if step.pipe is Pipe.PIPE_ALL else step.pipe
        for writes, regions in ((False, step.reads), (True, step.writes)):
            for reg in regions:
                key = (instr.position, pipe, reg.space, writes)
                acc = table.get(key)
                if acc is None:
                    acc = table[key] = Access(
                        core, instr, pipe, reg.space, writes, first_vc=vcs[i], first_issue=i
                    )
                acc.ranges.append((reg.start, reg.end))
                acc.last_vc = vcs[i]
    out = list(table.values())
    for acc in out:
        acc.ranges = _merge(acc.ranges)
    return out


def _flag_ids_used(issued: list) -> dict[tuple, set]:
    used: dict[tuple, set] = {}
    for step, _ in issued:
        if step.flag is not None:
            used.setdefault(step.flag[:2], set()).add(step.flag[2])
    return used


def _label(instr) -> str:
    return f"{instr.label}" + (f" ({instr.source})" if instr.source else "")


def race_findings(accs: list[Access], issued: list, event_ids: int) -> list[Finding]:
    """Unordered conflicting accesses of one core's pipes (RAW/WAR/WAW)."""
    accs = [a for a in accs if a.ranges]
    used = _flag_ids_used(issued)
    found: dict[tuple, Finding] = {}
    by_space: dict[str, list[Access]] = {}
    for a in accs:
        by_space.setdefault(a.space, []).append(a)
    for space, group in by_space.items():
        group.sort(key=lambda a: a.first_issue)
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if a.instr is b.instr or a.pipe is b.pipe or not (a.writes or b.writes):
                    continue
                span = _overlap(a.ranges, b.ranges)
                if span is None or _happens_before(a, b) or _happens_before(b, a):
                    continue
                kind = "WAW" if a.writes and b.writes else ("RAW" if a.writes else "WAR")
                key = (a.instr.position, b.instr.position, a.pipe, b.pipe, kind)
                if key in found:
                    continue
                free = [e for e in range(event_ids) if e not in used.get((a.pipe, b.pipe), ())]
                eid = free[0] if free else 0
                verb_a = "writes" if a.writes else "reads"
                verb_b = "writes" if b.writes else "reads"
                msg = (
                    f"{kind} race on {Region(space, *span)}: {_label(a.instr)} {verb_a} it on "
                    f"{a.pipe.name} and {_label(b.instr)} {verb_b} it on {b.pipe.name}, and "
                    f"nothing orders them; fix: set_flag({a.pipe.name}, {b.pipe.name}, "
                    f"EVENT_ID{eid}) after {a.instr.label} and wait_flag({a.pipe.name}, "
                    f"{b.pipe.name}, EVENT_ID{eid}) before {b.instr.label}"
                )
                found[key] = Finding(
                    RACE, f"race-{kind.lower()}", msg, (a.instr.position, b.instr.position)
                )
    return list(found.values())


def cross_core_findings(per_core: list[list[Access]]) -> list[Finding]:
    """Overlapping GM accesses (one a write) of different cores."""
    gm = [a for accs in per_core for a in accs if a.space == "GM"]
    out: dict[tuple, Finding] = {}
    for i, a in enumerate(gm):
        for b in gm[i + 1 :]:
            if a.core == b.core or not (a.writes or b.writes):
                continue
            span = _overlap(a.ranges, b.ranges)
            if span is None:
                continue
            key = (min(a.core, b.core), max(a.core, b.core), a.instr.position, b.instr.position)
            if key in out:
                continue
            out[key] = Finding(
                CROSS_CORE,
                "cross-core-race",
                f"core {a.core} {_label(a.instr)} and core {b.core} {_label(b.instr)} both touch "
                f"{Region('GM', *span)} and one of them writes it; blocks are not synchronised "
                "with each other: give each block its own GM slice",
                (a.instr.position, b.instr.position),
            )
    return list(out.values())
