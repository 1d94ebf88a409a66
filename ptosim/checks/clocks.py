"""Vector clocks of the issued steps of one core, from a logical (untimed) execution.

Components (one integer each):

- ``pipe`` (one per queue pipe): steps of that pipe known to be *complete and visible*. A pipe
  counts its own steps here (program order inside a pipe); other pipes learn it only through a
  ``set_flag`` from that pipe (it posts when all earlier work of the pipe has finished), or a
  ``pipe_barrier(PIPE_ALL)``, and transitively through later flags.
- ``done[pipe]``: what a pipe knows of the *completion* of its own earlier steps. Program order
  does not give it: two DMAs queued on one MTE pipe may be reordered by the hardware. It grows
  through ``pipe_barrier(pipe)``, ``pipe_barrier(PIPE_ALL)``, and a flag chain that leaves the
  pipe and comes back (``set_flag(MTE3, S)`` ... PIPE_S then issues more MTE3 work).
- ``issue``: PIPE_S steps in issue order. A scalar *read* completes before PIPE_S issues the next
  step (the value is needed), so issue order orders it. A scalar *write* to UB/GM is not made
  visible to another pipe by issue order; only ``set_flag(PIPE_S, X)`` / ``wait_flag`` chains
  (and ``pipe_barrier(PIPE_ALL)``) publish it. This is why the library ends its scalar bodies
  with S->V / S->MTE2 / S->MTE3 flags.

Across cores: ``ffts_cross_core_sync`` / ``wait_flag_dev`` rounds (engine/ffts.py) carry each
posting core's clock (and what it knew of other cores) to the waiting cores; the cores' queues
are executed together so a round completes only once all its posts ran (:func:`all_clocks`).

Flags count: the n-th ``wait_flag`` on (src, dst, id) consumes the n-th post (the reference cost
model's counting channels), so the pairing is structural too (:func:`flag_pairs`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from ..cores import Topology
from ..enums import QUEUE_PIPES, Pipe
from ..plan import Step, StepKind

PIPES = QUEUE_PIPES
INDEX = {p: i for i, p in enumerate(PIPES)}
N_PIPES = len(PIPES)
S = INDEX[Pipe.PIPE_S]
ISSUE = 2 * N_PIPES  # the PIPE_S issue-order component
WIDTH = 2 * N_PIPES + 1
NEVER = int(np.iinfo(np.int64).max)


def _maximum(a: list[int], b) -> list[int]:
    """Component-wise max of two clocks (plain lists: a clock has a few components, where
    numpy's per-call cost dominated the analysis of long runs)."""
    return [x if x >= y else y for x, y in zip(a, b)]


# members as module constants: Enum class attribute lookups are slow on the analysis's hot path
_PIPE_S, _PIPE_ALL = Pipe.PIPE_S, Pipe.PIPE_ALL
_BARRIER, _SET_FLAG, _WAIT_FLAG = StepKind.BARRIER, StepKind.SET_FLAG, StepKind.WAIT_FLAG
_CROSS_SET, _CROSS_WAIT = StepKind.CROSS_SET, StepKind.CROSS_WAIT


def done_index(pipe: Pipe) -> int:
    return N_PIPES + INDEX[pipe]


@dataclass
class Clocks:
    """Vector clock of every issued step (``NEVER`` for steps a deadlock kept from running),
    and the logical execution order (issued indices, in the order they ran).

    ``xk`` (cross-core knowledge) maps, per step, another core to the vector clock of that
    core's steps known complete through FFTS flags (ffts_cross_core_sync / wait_flag_dev)
    and, transitively, the flags that carried them (empty without cross-core flags)."""

    vcs: list[list[int]]
    order: list[int]
    xk: list[dict] | None = None


EMPTY: dict = {}


def merge_knowledge(a: dict, b: dict) -> dict:
    """Cross-core knowledge of both (component-wise max per core); never mutates its inputs."""
    if not b or a is b:
        return a
    if not a:
        return b
    out = dict(a)
    for core, vc in b.items():
        old = out.get(core)
        out[core] = vc if old is None or old is vc else _maximum(old, vc)
    return out


class _Ffts:
    """Logical FFTS rounds (engine/ffts.py): a round completes when every poster of the group
    posted; its payload is the merged knowledge of the posts, counted on every receiver."""

    def __init__(self, topology: Topology):
        self.topology = topology
        self.rounds: dict[tuple, dict[int, deque]] = {}
        self.sems: dict[tuple[int, int], deque] = {}

    def post(self, core: int, mode: int, flag: int, payload: dict) -> None:
        posters, receivers = self.topology.round_of(core, mode)
        queues = self.rounds.setdefault((posters, receivers, flag), {m: deque() for m in posters})
        queues[core].append(payload)
        if all(queues.values()):
            merged = EMPTY
            for m in posters:
                merged = merge_knowledge(merged, queues[m].popleft())
            for m in receivers:
                self.sems.setdefault((m, flag), deque()).append(merged)

    def ready(self, core: int, flag: int) -> bool:
        return bool(self.sems.get((core, flag)))

    def take(self, core: int, flag: int) -> dict:
        return self.sems[(core, flag)].popleft()


class _Core:
    """The logical execution of one core's pipe queues (no time in it)."""

    def __init__(self, core: int, issued: list, ffts: _Ffts):
        self.core, self.issued, self.ffts = core, issued, ffts
        n = len(issued)
        self.vcs: list[list[int] | None] = [None] * n
        self.xk: list[dict] = [EMPTY] * n
        self.order: list[int] = []
        self.pipe_vc = {p: [0] * WIDTH for p in PIPES}
        self.merged: dict = {p: None for p in PIPES}  # the last ``extra`` each pipe took in
        self.pipe_xk = {p: EMPTY for p in PIPES}
        self.queues = {p: deque() for p in PIPES if p is not _PIPE_S}
        self.posts: dict[tuple, deque] = {}
        self.published = 0  # PIPE_S count last made visible to later-issued work (PIPE_ALL)
        self.cursor = 0

    def run(self, i: int, pipe: Pipe, extra: list[int] | None, extra_xk: dict) -> None:
        k = INDEX[pipe]
        mine = self.pipe_vc[pipe]
        # a pipe's clock only grows: once it took in ``extra`` (the same object: the issue
        # clock of PIPE_S, unchanged while PIPE_S runs nothing), taking it again changes nothing
        if extra is not None and extra is not self.merged[pipe]:
            self.merged[pipe] = extra
            vc = _maximum(mine, extra)
            # what the pipe learns about itself from outside is completion knowledge
            d = N_PIPES + k
            vc[d] = max(mine[d], extra[k])
        else:
            vc = mine.copy()
        vc[k] += 1
        step: Step = self.issued[i][0]
        if pipe is _PIPE_S:
            vc[ISSUE] = vc[S]
        if step.kind is _BARRIER:  # pipe_barrier(P): every earlier P step is complete
            vc[N_PIPES + k] = vc[k]
        xk = merge_knowledge(self.pipe_xk[pipe], extra_xk)
        self.vcs[i] = vc
        self.xk[i] = xk
        self.pipe_vc[pipe] = vc
        self.pipe_xk[pipe] = xk
        self.order.append(i)
        if step.kind is _SET_FLAG:
            self.posts.setdefault(step.flag, deque()).append((vc, xk))
        elif step.kind is _CROSS_SET:
            _, mode, flag = step.flag
            self.ffts.post(self.core, mode, flag, merge_knowledge(xk, {self.core: vc}))

    def ready(self, step: Step) -> bool:
        if step.kind is _WAIT_FLAG:
            return bool(self.posts.get(step.flag))
        if step.kind is _CROSS_WAIT:
            return self.ffts.ready(self.core, step.flag[2])
        return True

    def advance(self) -> bool:
        """Run what can run now; True when something ran."""
        issued, progress, any_progress = self.issued, True, False
        while progress:
            progress = False
            while self.cursor < len(issued):  # the scalar pipe: its own steps, PIPE_ALL, issue
                step: Step = issued[self.cursor][0]
                if step.pipe is _PIPE_S:
                    if not self.ready(step):
                        break
                    extra, extra_xk = None, EMPTY
                    if step.kind is _WAIT_FLAG:
                        extra, extra_xk = self.posts[step.flag].popleft()
                    elif step.kind is _CROSS_WAIT:
                        extra_xk = self.ffts.take(self.core, step.flag[2])
                    self.run(self.cursor, _PIPE_S, extra, extra_xk)
                elif step.pipe is _PIPE_ALL:
                    if any(self.queues.values()):
                        break
                    everything = [max(c) for c in zip(*self.pipe_vc.values())]
                    for p in PIPES:  # every pipe is drained: all of its steps are complete
                        everything[N_PIPES + INDEX[p]] = everything[INDEX[p]]
                    every_xk = EMPTY
                    for p in PIPES:
                        every_xk = merge_knowledge(every_xk, self.pipe_xk[p])
                    self.run(self.cursor, _PIPE_S, everything, every_xk)
                    self.published = int(self.pipe_vc[_PIPE_S][S])
                else:
                    issue_vc = self.pipe_vc[_PIPE_S]  # clocks are never mutated: share it
                    if issue_vc[S] != self.published:
                        issue_vc = issue_vc.copy()
                        issue_vc[S] = self.published  # scalar writes are not published by issuing
                    self.queues[step.pipe].append((self.cursor, issue_vc, self.pipe_xk[_PIPE_S]))
                self.cursor += 1
                progress = True
            for pipe, q in self.queues.items():
                while q:
                    i, issue_vc, issue_xk = q[0]
                    step = issued[i][0]
                    if not self.ready(step):
                        break
                    q.popleft()
                    extra, extra_xk = issue_vc, issue_xk
                    if step.kind is _WAIT_FLAG:
                        post_vc, post_xk = self.posts[step.flag].popleft()
                        extra = _maximum(issue_vc, post_vc)
                        extra_xk = merge_knowledge(issue_xk, post_xk)
                    elif step.kind is _CROSS_WAIT:  # wait_intra_block on its own pipe
                        extra_xk = merge_knowledge(
                            issue_xk, self.ffts.take(self.core, step.flag[2])
                        )
                    self.run(i, pipe, extra, extra_xk)
                    progress = True
            any_progress |= progress
        return any_progress

    def clocks(self) -> Clocks:
        never = [NEVER] * WIDTH
        vcs = [vc if vc is not None else never for vc in self.vcs]
        return Clocks(vcs, self.order, self.xk)


def all_clocks(
    cores: list[tuple[int, list]], topology: Topology | None = None
) -> dict[int, Clocks]:
    """Logical execution of every core's queues together (FFTS flags order steps across
    cores, in the groups of ``topology``; default: a vector-only launch of the cores): core
    id -> its Clocks."""
    if topology is None:
        topology = Topology.vector(max((core for core, _ in cores), default=-1) + 1)
    ffts = _Ffts(topology)
    runners = [_Core(core, issued, ffts) for core, issued in cores]
    progress = True
    while progress:
        progress = False
        for r in runners:
            progress |= r.advance()
    return {r.core: r.clocks() for r in runners}


def vector_clocks(issued: list) -> Clocks:
    """Logical execution of the pipe queues of one core (no time in it)."""
    return all_clocks([(0, issued)])[0]


def flag_pairs(issued: list) -> dict[int, int]:
    """Counting pairing: issued index of each wait_flag -> issued index of the set it consumes
    (the n-th wait on a (src, dst, id) key takes the n-th post)."""
    sets: dict[tuple, deque] = {}
    waits: dict[tuple, list[int]] = {}
    for i, (step, _) in enumerate(issued):
        if step.kind is _SET_FLAG:
            sets.setdefault(step.flag, deque()).append(i)
        elif step.kind is _WAIT_FLAG:
            waits.setdefault(step.flag, []).append(i)
    out = {}
    for key, ws in waits.items():
        q = sets.get(key, deque())
        for w in ws:
            if not q:
                break
            out[w] = q.popleft()
    return out
