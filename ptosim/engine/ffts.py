"""Cross-core flags of a launch (the FFTS unit): ``ffts_cross_core_sync`` posts and
``wait_flag_dev`` waits (ptosim/isa/sync.py).

A post of mode ``m`` and flag ``f`` from core ``c`` joins the current round of ``f`` of the
posters of ``c``'s group (``cores.Topology.round_of``: mode 0 every core of its kind, mode 1 the
two vector cores of one AI core, mode 2 the cube core and the vector cores of one AI core).
When every poster has posted, the round completes: each *receiver*'s semaphore ``f`` counts one,
and one ``wait_flag_dev(f)`` on that core consumes it. A wait on a zero semaphore blocks the
core's issue (PIPE_S) until a round completes; with no round to come the run ends in a deadlock
naming the cores.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import simpy

from ..cores import Topology


@dataclass
class Post:
    time: int
    core: int
    instr: int  # kernel position of the ffts_cross_core_sync
    pipe: str


@dataclass
class Ffts:
    env: simpy.Environment
    topology: Topology
    # (posters, receivers, flag) -> poster -> its posts not yet in a completed round
    rounds: dict[tuple, dict[int, deque]] = field(default_factory=dict)
    sems: dict[tuple[int, int], deque] = field(default_factory=dict)  # (core, flag) -> rounds
    waiters: dict[tuple[int, int], simpy.Event] = field(default_factory=dict)

    def post(self, core: int, mode: int, flag: int, post: Post) -> None:
        posters, receivers = self.topology.round_of(core, mode)
        key = (posters, receivers, flag)
        queues = self.rounds.get(key)
        if queues is None:
            queues = self.rounds[key] = {m: deque() for m in posters}
        queues[core].append(post)
        if not all(queues.values()):
            return
        done = [queues[m].popleft() for m in posters]
        for m in receivers:
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
        n = len(self.topology)
        for (posters, receivers, f), queues in sorted(self.rounds.items()):
            if f != flag or core not in receivers or not any(queues.values()):
                continue
            absent = [m for m in posters if not queues[m]]
            partial.append(
                f"the round of {self.topology.names(posters)} lacks ffts_cross_core_sync(flag "
                f"{flag}) from {self.topology.names(absent, 'core(s)')}"
                + ("" if all(m < n for m in absent) else " (not launched)")
            )
        if partial:
            return "; ".join(partial)
        intra = self.topology.intra_missing(core, flag)
        if intra is not None:
            return intra
        mode = self.topology.likely_mode(core)
        posters = self.topology.posters_to(core, mode)
        return (
            f"no core posted ffts_cross_core_sync(flag {flag}) to "
            f"{self.topology.names([core], 'core')}'s group (in mode {mode}: "
            f"{self.topology.names(posters, 'core(s)')})"
        )
