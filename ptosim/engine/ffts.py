"""Cross-core flags of a launch (the FFTS unit): ``ffts_cross_core_sync`` posts and
``wait_flag_dev`` waits (ptosim/isa/sync.py).

A post of mode ``m`` and flag ``f`` from core ``c`` joins the current round of ``f`` in the
group of ``c`` (mode 0: every core of the launch; mode 1: blocks ``2g`` and ``2g + 1``). When
every core of the group has posted, the round completes: each member's semaphore ``f`` counts
one, and one ``wait_flag_dev(f)`` on that core consumes it. A wait on a zero semaphore blocks
the core's issue (PIPE_S) until a round completes; with no round to come the run ends in a
deadlock naming the cores.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import simpy


@dataclass
class Post:
    time: int
    core: int
    instr: int  # kernel position of the ffts_cross_core_sync
    pipe: str


def group(core: int, mode: int, n_cores: int) -> tuple[int, ...]:
    """The cores of ``core``'s FFTS group in ``mode``."""
    if mode == 0:
        return tuple(range(n_cores))
    return (core & ~1, core | 1)  # the two vector cores of one AI-core group


@dataclass
class Ffts:
    env: simpy.Environment
    n_cores: int
    rounds: dict[tuple, dict[int, deque]] = field(default_factory=dict)  # (members, flag)
    sems: dict[tuple[int, int], deque] = field(default_factory=dict)  # (core, flag) -> rounds
    waiters: dict[tuple[int, int], simpy.Event] = field(default_factory=dict)

    def post(self, core: int, mode: int, flag: int, post: Post) -> None:
        members = group(core, mode, self.n_cores)
        queues = self.rounds.setdefault((members, flag), {m: deque() for m in members})
        queues[core].append(post)
        if not all(queues.values()):
            return
        done = [queues[m].popleft() for m in members]
        for m in members:
            self.sems.setdefault((m, flag), deque()).append(done)
            waiter = self.waiters.pop((m, flag), None)
            if waiter is not None and not waiter.triggered:
                waiter.succeed()

    def wait(self, core: int, flag: int):
        """Generator: block until a round of ``flag`` completed for ``core``; returns the
        round's posts."""
        key = (core, flag)
        while not self.sems.get(key):
            ev = self.env.event()
            self.waiters[key] = ev
            yield ev
        return self.sems[key].popleft()

    def missing(self, core: int, flag: int) -> str:
        """Why ``core``'s wait on ``flag`` never returns: the cores whose posts are missing."""
        partial = []
        for (members, f), queues in sorted(self.rounds.items()):
            if f != flag or core not in members or not any(queues.values()):
                continue
            absent = [m for m in members if not queues[m]]
            partial.append(
                f"the round of cores {_cores(members)} lacks ffts_cross_core_sync(flag "
                f"{flag}) from core(s) {_cores(absent)}"
                + ("" if all(m < self.n_cores for m in absent) else " (not launched)")
            )
        if partial:
            return "; ".join(partial)
        return f"no core posted ffts_cross_core_sync(flag {flag}) to core {core}'s group"


def _cores(cores) -> str:
    return ", ".join(str(c) for c in cores)
