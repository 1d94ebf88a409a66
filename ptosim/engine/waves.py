"""Blocks in waves: a launch of more blocks than the device has cores.

The hardware's block scheduler starts the first ``cores`` blocks at once; every later block waits
until a core frees up and starts on the first core that does, in block-index order (the library's
appendix on cluster ids, docs/reference/pto-cvid-cluster-id-mapping.md, calls this SIMD
over-subscription). A block frees its core when every core program of the block (one on a
vector-only launch; the AIC and both AIVs of a mixed one) has issued its last instruction and all
its pipes are idle.

``Waves`` is that scheduler on the engine's clock. It changes nothing for a launch that fits the
device (no block waits: the engine runs exactly as before). A later block starts with fresh
on-chip memories, as every block of a run does (docs/decisions.md: UB and L1 start filled with
0xFF); what the previous block left in the core's buffers is not modelled.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import simpy


@dataclass(frozen=True)
class Placement:
    """Where and when a block ran: its physical ``core`` (0 .. cores-1), its ``wave`` (1 for the
    blocks that started at once, else one more than the wave of the block it followed on that
    core), the cycle it started, and the block it followed (-1: none)."""

    core: int
    wave: int
    start_cycle: int
    after_block: int = -1


class Waves:
    """The block scheduler of one launch (see the module docstring).

    Args:
        env: the engine's simpy environment.
        blocks: the block of every core program of the launch, in engine order.
        cores: how many blocks the device runs at once (vector cores, or AI cores of a cube or
            mixed launch).
    """

    def __init__(self, env: simpy.Environment, blocks: list[int], cores: int):
        self.env = env
        self.cores = cores
        order = sorted(set(blocks))
        self._left = {b: blocks.count(b) for b in order}  # core programs still running
        self.placements: dict[int, Placement] = {}
        self._gates: dict[int, simpy.Event] = {}
        self._waiting: deque[int] = deque()
        for n, b in enumerate(order):
            if n < cores:
                self.placements[b] = Placement(n, 1, 0)
            else:
                self._gates[b] = env.event()
                self._waiting.append(b)

    @property
    def count(self) -> int:
        """The number of waves so far."""
        return max((p.wave for p in self.placements.values()), default=0)

    def gate(self, block: int) -> simpy.Event | None:
        """The event a core program of ``block`` waits for before it issues anything, or None
        when the block started with the launch."""
        return self._gates.get(block)

    def finished(self, block: int) -> None:
        """One core program of ``block`` is done; when it was the last, the block's core goes to
        the first waiting block."""
        self._left[block] -= 1
        if self._left[block] or not self._waiting:
            return
        freed = self.placements[block]
        nxt = self._waiting.popleft()
        self.placements[nxt] = Placement(freed.core, freed.wave + 1, int(self.env.now), block)
        self._gates[nxt].succeed()

    def why_waiting(self, block: int) -> str:
        """Why a block never started (a deadlocked run): every core stayed busy."""
        return (
            f"never started: all {self.cores} cores stayed busy with blocks that did not finish "
            f"(block {block} waited for a free core)"
        )
