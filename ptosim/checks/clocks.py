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

Flags count: the n-th ``wait_flag`` on (src, dst, id) consumes the n-th post (the reference cost
model's counting channels), so the pairing is structural too (:func:`flag_pairs`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from ..enums import QUEUE_PIPES, Pipe
from ..plan import Step, StepKind

PIPES = QUEUE_PIPES
INDEX = {p: i for i, p in enumerate(PIPES)}
N_PIPES = len(PIPES)
S = INDEX[Pipe.PIPE_S]
ISSUE = 2 * N_PIPES  # the PIPE_S issue-order component
WIDTH = 2 * N_PIPES + 1
NEVER = np.iinfo(np.int64).max


def done_index(pipe: Pipe) -> int:
    return N_PIPES + INDEX[pipe]


@dataclass
class Clocks:
    """Vector clock of every issued step (``NEVER`` for steps a deadlock kept from running),
    and the logical execution order (issued indices, in the order they ran)."""

    vcs: list[np.ndarray]
    order: list[int]


def vector_clocks(issued: list) -> Clocks:
    """Logical execution of the pipe queues of one core (no time in it)."""
    n = len(issued)
    vcs: list[np.ndarray | None] = [None] * n
    order: list[int] = []
    pipe_vc = {p: np.zeros(WIDTH, dtype=np.int64) for p in PIPES}
    queues = {p: deque() for p in PIPES if p is not Pipe.PIPE_S}
    posts: dict[tuple, deque] = {}
    published = 0  # PIPE_S count last made visible to later-issued work (PIPE_ALL)
    cursor = 0

    def run(i: int, pipe: Pipe, extra: np.ndarray | None) -> None:
        k = INDEX[pipe]
        mine = pipe_vc[pipe]
        vc = mine.copy()
        if extra is not None:
            np.maximum(vc, extra, out=vc)
            # what the pipe learns about itself from outside is completion knowledge
            d = N_PIPES + k
            vc[d] = max(mine[d], extra[k])
        vc[k] += 1
        step: Step = issued[i][0]
        if pipe is Pipe.PIPE_S:
            vc[ISSUE] = vc[S]
        if step.kind is StepKind.BARRIER:  # pipe_barrier(P): every earlier P step is complete
            vc[N_PIPES + k] = vc[k]
        vcs[i] = vc
        pipe_vc[pipe] = vc
        order.append(i)
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
                for p in PIPES:  # every pipe is drained: all of its steps are complete
                    everything[N_PIPES + INDEX[p]] = everything[INDEX[p]]
                run(cursor, Pipe.PIPE_S, everything)
                published = int(pipe_vc[Pipe.PIPE_S][S])
            else:
                issue_vc = pipe_vc[Pipe.PIPE_S].copy()
                issue_vc[S] = published  # scalar writes are not published by issuing
                queues[step.pipe].append((cursor, issue_vc))
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
    never = np.full(WIDTH, NEVER, dtype=np.int64)
    return Clocks([vc if vc is not None else never for vc in vcs], order)


def flag_pairs(issued: list) -> dict[int, int]:
    """Counting pairing: issued index of each wait_flag -> issued index of the set it consumes
    (the n-th wait on a (src, dst, id) key takes the n-th post)."""
    sets: dict[tuple, deque] = {}
    waits: dict[tuple, list[int]] = {}
    for i, (step, _) in enumerate(issued):
        if step.kind is StepKind.SET_FLAG:
            sets.setdefault(step.flag, deque()).append(i)
        elif step.kind is StepKind.WAIT_FLAG:
            waits.setdefault(step.flag, []).append(i)
    out = {}
    for key, ws in waits.items():
        q = sets.get(key, deque())
        for w in ws:
            if not q:
                break
            out[w] = q.popleft()
    return out
