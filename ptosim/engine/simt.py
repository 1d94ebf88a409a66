"""The SIMT model of the 950 vector core (DESIGN.md section 5).

A launch dim3{32, W} has W warps; warp ``w`` belongs to scheduler ``w % schedulers``. Each
scheduler is one simpy process that issues at most one ready warp instruction per
``issue_cycles`` (policy ``lrr``: loose round robin; ``gto``: greedy then oldest). A warp
instruction covers all its active lanes at once (numpy over lane addresses):

- ``alu``: ready after ``cycles``.
- ``ld_ub`` / ``st_ub``: ``ub_latency_cycles``, plus ``ub_conflict_cycles`` for each extra
  32-byte block that maps to an already-used bank group (``block % ub_bank_groups``).
- ``ld_gm``: the lanes coalesce into ``gm_sector_bytes`` sectors. The sectors queue on the
  core's GM port (``gm_bw_bytes_per_cycle``), then the data returns after
  ``gm_latency_cycles``. Other warps issue meanwhile: that is how latency is hidden. An
  ``async_load`` does not stall its warp: up to ``max_outstanding_loads`` are in flight per
  warp, and the ops marked ``uses_load`` consume their data in order (a store lands when the
  data has arrived; any other op waits for it).
- ``st_gm``: the sectors go through the same port. The warp goes on at once, and the launch
  ends when the last store has landed.
- ``atom_gm``: the core's atomic unit serialises read-modify-writes. A request holds it for its
  sectors plus ``atomic_cycles`` times the largest number of lanes that share one address, and
  requests from all warps queue on the unit.
- ``loop``: an aggregated loop (the Conflict::Last reverse scan). It keeps its scheduler
  issuing for ``cycles`` slots.

The result is deterministic for a given launch and config. Besides the cycle count, it gives
the order in which tagged GM stores land, which decides ScatterConflict::Default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import simpy

from ..config import SimtTimingConfig
from ..plan import SimtLaunch, WarpOp


@dataclass
class LaunchResult:
    """What a launch did: duration, per-issue events and the landing order of tagged stores."""

    cycles: int
    events: list[tuple] = field(default_factory=list)  # (thread, name, start, dur, args)
    store_tags: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sectors: int = 0
    gm_bytes: int = 0


class _Shared:
    """Core-wide resources shared by the schedulers: the GM port and the atomic unit."""

    def __init__(self):
        self.port_free = 0.0
        self.atomic_free = 0.0
        self.last_store = 0.0
        self.sectors = 0
        self.gm_bytes = 0
        self.store_tags: list[np.ndarray] = []


def _sectors(op: WarpOp, sector: int) -> int:
    a = np.asarray(op.addrs, dtype=np.int64)
    if a.size == 0:
        return 0
    first = a // sector
    last = (a + op.size - 1) // sector
    if np.array_equal(first, last):
        return int(np.unique(first).size)
    return int(np.unique(np.concatenate([first, last])).size)


def _ub_conflict(op: WarpOp, cfg: SimtTimingConfig) -> int:
    a = np.asarray(op.addrs, dtype=np.int64)
    if a.size == 0:
        return 0
    blocks = np.unique(a // cfg.ub_block_bytes)
    per_group = np.bincount(blocks % cfg.ub_bank_groups)
    return int(per_group.max()) - 1


def _cost(op: WarpOp, now: int, cfg: SimtTimingConfig, sh: _Shared, wp: _WarpMem):
    """(issue slots, cycles until the warp is ready again, trace args) of one warp instruction."""
    k = op.kind
    consumed = wp.consume(now) if op.uses_load else now  # when the consumed data is there
    if k == "alu":
        return cfg.issue_cycles, max(op.cycles, cfg.issue_cycles, consumed - now), {}
    if k == "loop":
        slots = max(op.cycles, cfg.issue_cycles)
        return slots, slots, {"issue_slots": slots}
    if k in ("ld_ub", "st_ub"):
        extra = _ub_conflict(op, cfg)
        latency = cfg.ub_latency_cycles + extra * cfg.ub_conflict_cycles
        info = {"bank_conflicts": extra}
        if k == "st_ub" and op.uses_load:  # a store buffer: lands when its data has arrived
            wp.done = max(wp.done, consumed + latency)
            return cfg.issue_cycles, cfg.issue_cycles, info
        return cfg.issue_cycles, max(latency, consumed - now), info
    n = _sectors(op, cfg.gm_sector_bytes)
    sh.sectors += n
    sh.gm_bytes += n * cfg.gm_sector_bytes
    transfer = n * cfg.gm_sector_bytes / cfg.gm_bw_bytes_per_cycle
    if k == "atom_gm":
        a = np.asarray(op.addrs, dtype=np.int64)
        multiplicity = int(np.unique(a, return_counts=True)[1].max()) if a.size else 0
        start = max(consumed, sh.atomic_free)
        sh.atomic_free = start + transfer + multiplicity * cfg.atomic_cycles
        sh.last_store = max(sh.last_store, sh.atomic_free + cfg.gm_latency_cycles)
        busy = int(np.ceil(sh.atomic_free - now))
        return cfg.issue_cycles, busy, {"sectors": n, "same_address_lanes": multiplicity}
    start = max(consumed, sh.port_free)
    sh.port_free = start + transfer
    done = int(np.ceil(sh.port_free - now))
    if k == "ld_gm":
        arrive = now + done + cfg.gm_latency_cycles
        if op.async_load:
            wp.issue(arrive)
            return cfg.issue_cycles, cfg.issue_cycles, {"sectors": n, "in_flight": len(wp.flight)}
        return cfg.issue_cycles, done + cfg.gm_latency_cycles, {"sectors": n}
    # st_gm: fire and forget; the launch ends when the store has landed
    sh.last_store = max(sh.last_store, sh.port_free + cfg.gm_latency_cycles)
    if op.tags is not None:
        sh.store_tags.append(np.asarray(op.tags, dtype=np.int64))
    return cfg.issue_cycles, cfg.issue_cycles, {"sectors": n}


class _WarpMem:
    """One warp's async loads: arrival times in flight (bounded) and not yet consumed."""

    def __init__(self, limit: int):
        self.limit = limit
        self.flight: list[float] = []  # arrival times of loads still in flight
        self.unconsumed: list[float] = []
        self.done = 0.0  # when the warp's deferred stores have landed

    def gate(self, now: int) -> float:
        """Earliest time another async load may issue."""
        self.flight = [t for t in self.flight if t > now]
        return self.flight[0] if len(self.flight) >= self.limit else now

    def issue(self, arrive: float) -> None:
        self.flight.append(arrive)
        self.unconsumed.append(arrive)

    def consume(self, now: int) -> float:
        return self.unconsumed.pop(0) if self.unconsumed else now


def simulate_launch(launch: SimtLaunch, cfg: SimtTimingConfig) -> LaunchResult:
    """Run the warp schedulers of one launch; times are relative to the launch start."""
    env = simpy.Environment()
    sh = _Shared()
    events: list[tuple] = []
    finish = [0]

    def scheduler(k: int, warp_ids: list[int]):
        pc = dict.fromkeys(warp_ids, 0)
        ready = dict.fromkeys(warp_ids, 0)
        mem = {w: _WarpMem(cfg.max_outstanding_loads) for w in warp_ids}
        last = -1
        thread = f"SIMT_SCHED{k}"

        def ready_at(w: int, now: int) -> float:
            op = launch.warps[w][pc[w]]
            return max(ready[w], mem[w].gate(now)) if op.async_load else ready[w]

        while True:
            live = [w for w in warp_ids if pc[w] < len(launch.warps[w])]
            if not live:
                break
            now = env.now
            at = {w: ready_at(w, now) for w in live}
            cand = [w for w in live if at[w] <= now]
            if not cand:
                yield env.timeout(int(np.ceil(min(at.values()))) - now)
                continue
            if cfg.policy == "gto":
                w = last if last in cand else cand[0]
            else:  # loose round robin: the next ready warp after the last one issued
                after = [w for w in cand if w > last]
                w = after[0] if after else cand[0]
            last = w
            op = launch.warps[w][pc[w]]
            pc[w] += 1
            slots, latency, info = _cost(op, now, cfg, sh, mem[w])
            ready[w] = now + max(slots, latency)
            finish[0] = max(finish[0], ready[w], mem[w].done)
            args = {"warp": w, "lanes": op.lanes, "op": op.kind, "latency": latency, **info}
            events.append((thread, op.label or op.kind, now, slots, args))
            yield env.timeout(slots)

    n = cfg.schedulers
    for k in range(n):
        env.process(scheduler(k, [w for w in range(launch.warp_count) if w % n == k]))
    env.run()
    end = int(np.ceil(max(finish[0], sh.last_store)))
    tags = np.concatenate(sh.store_tags) if sh.store_tags else np.zeros(0, dtype=np.int64)
    return LaunchResult(
        cfg.launch_cycles + end,
        [(t, nm, cfg.launch_cycles + s, d, a) for t, nm, s, d, a in events],
        tags,
        sh.sectors,
        sh.gm_bytes,
    )
