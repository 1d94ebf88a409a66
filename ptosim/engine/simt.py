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

Speed (the model is the one above; the cycles are the same as a per-issue simpy model's):

- The address statistics of every memory op of the launch (sectors, bank conflicts, atomic
  multiplicity) are computed up front in a few vectorised numpy passes over all lanes
  (:func:`launch_stats`), not with ``np.unique`` per warp issue.
- A warp's next issue time only changes when that warp issues (its async-load gate is the
  arrival of the load that frees a slot, known at issue), so it is kept per warp and updated
  then; picking a warp compares the stored times instead of recomputing gates.
- The schedulers are plain generators driven by a small event heap ordered like simpy's queue
  (time, priority, insertion order), so they interleave exactly as simpy processes would.
- The schedule is a pure function of the config, of what the schedulers read of each warp op
  (kind, lanes, cycles, async_load, uses_load, whether it has store tags) and of the launch
  statistics. Launches with the same such signature (the 256 Row gathers of an embedding differ
  only in their row ids) reuse the first one's schedule (:data:`MEMO`); the event names (op
  labels) and the store tags are taken from the new launch's ops, in the memoised order.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..config import SimtTimingConfig
from ..plan import SimtLaunch, WarpOp

_GM_KINDS = ("ld_gm", "st_gm", "atom_gm")
_UB_KINDS = ("ld_ub", "st_ub")
_URGENT, _NORMAL = 0, 1  # simpy's event priorities: process start, then timeouts


@dataclass
class LaunchResult:
    """What a launch did: duration, per-issue events and the landing order of tagged stores."""

    cycles: int
    events: list[tuple] = field(default_factory=list)  # (thread, name, start, dur, args)
    store_tags: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sectors: int = 0
    gm_bytes: int = 0


@dataclass
class LaunchStats:
    """Per memory op of a launch (ops numbered warp by warp, in program order): GM sectors
    touched, extra UB bank-group conflicts and the most lanes sharing one address."""

    sectors: list[int]
    bank_conflicts: list[int]
    same_address: list[int]


class _Shared:
    """Core-wide resources shared by the schedulers: the GM port and the atomic unit."""

    def __init__(self):
        self.port_free = 0.0
        self.atomic_free = 0.0
        self.last_store = 0.0
        self.sectors = 0
        self.gm_bytes = 0
        self.tag_ops: list[int] = []  # launch op numbers of the tagged stores, landing order


def _runs(op_ids: np.ndarray, keys: np.ndarray):
    """Sort (op, key) pairs; return the sorted ops, keys and a mask of each run's first pair."""
    order = None
    if op_ids.size:
        lo, span = int(keys.min()), int(keys.max()) - int(keys.min()) + 1
        if (int(op_ids.max()) + 1) * span < 2**62:  # one int64 key: same order as lexsort
            order = np.argsort(op_ids * span + (keys - lo), kind="stable")
    if order is None:
        order = np.lexsort((keys, op_ids))
    o, k = op_ids[order], keys[order]
    first = np.ones(o.size, dtype=bool)
    first[1:] = (o[1:] != o[:-1]) | (k[1:] != k[:-1])
    return o, k, first


def _distinct(op_ids: np.ndarray, keys: np.ndarray, n_ops: int) -> np.ndarray:
    """Number of distinct keys per op."""
    if op_ids.size == 0:
        return np.zeros(n_ops, dtype=np.int64)
    o, _, first = _runs(op_ids, keys)
    return np.bincount(o[first], minlength=n_ops)


def _max_run(op_ids: np.ndarray, keys: np.ndarray, n_ops: int) -> np.ndarray:
    """Per op, the largest number of pairs sharing one key (0 for an op without pairs)."""
    out = np.zeros(n_ops, dtype=np.int64)
    if op_ids.size == 0:
        return out
    o, _, first = _runs(op_ids, keys)
    starts = np.flatnonzero(first)
    lengths = np.diff(np.append(starts, o.size))
    np.maximum.at(out, o[starts], lengths)
    return out


def _lanes(ops: list[WarpOp], kinds: tuple[str, ...]):
    """(op index per lane, lane byte address, op size per lane) of the ops of ``kinds``."""
    sel = [i for i, op in enumerate(ops) if op.kind in kinds and op.addrs is not None]
    arrays = [np.asarray(ops[i].addrs, dtype=np.int64).reshape(-1) for i in sel]
    if not arrays:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    counts = np.fromiter((a.size for a in arrays), dtype=np.int64, count=len(arrays))
    ids = np.repeat(np.asarray(sel, dtype=np.int64), counts)
    sizes = np.repeat(np.fromiter((ops[i].size for i in sel), np.int64, len(sel)), counts)
    return ids, np.concatenate(arrays), sizes


def _matrix(ops: list[WarpOp], kinds: tuple[str, ...]):
    """(op indices, lane addresses as one row per op, op sizes) of the ops of ``kinds`` when
    they all have the same number of lanes (the usual launch), else None."""
    sel = [i for i, op in enumerate(ops) if op.kind in kinds and op.addrs is not None]
    if not sel:
        return None
    arrays = [ops[i].addrs for i in sel]
    counts = [a.size if type(a) is np.ndarray else np.size(a) for a in arrays]
    width = counts[0]
    if width == 0 or counts.count(width) != len(counts):
        return None
    rows = np.concatenate(arrays, axis=None).astype(np.int64, copy=False)
    rows = rows.reshape(len(sel), width)
    sizes = np.fromiter((ops[i].size for i in sel), np.int64, len(sel))
    return np.asarray(sel, dtype=np.int64), rows, sizes


def _distinct_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row sorted, and the mask of its first occurrences (distinct keys per row)."""
    s = np.sort(keys, axis=1)
    first = np.ones(s.shape, dtype=bool)
    first[:, 1:] = s[:, 1:] != s[:, :-1]
    return s, first


def launch_stats(ops: list[WarpOp], cfg: SimtTimingConfig) -> LaunchStats:
    """The address statistics of every op of a launch, in a few vectorised passes (row-wise
    when the ops of a kind have equal lane counts; the same numbers either way)."""
    n = len(ops)
    sector = cfg.gm_sector_bytes
    atomic = [i for i, op in enumerate(ops) if op.kind == "atom_gm"]
    same = np.zeros(n, dtype=np.int64)
    gm = None if atomic else _matrix(ops, _GM_KINDS)
    if gm is not None:  # GM: the sectors of each lane's first and last byte, distinct per op
        sel, a, size = gm
        ends = (a + (size - 1)[:, None]) // sector
        _, first = _distinct_rows(np.concatenate([a // sector, ends], axis=1))
        sectors = np.zeros(n, dtype=np.int64)
        sectors[sel] = first.sum(axis=1)
    else:
        ids, a, size = _lanes(ops, _GM_KINDS)
        sectors = _distinct(
            np.concatenate([ids, ids]), np.concatenate([a // sector, (a + size - 1) // sector]), n
        )
        if atomic:
            keep = np.isin(ids, atomic)
            same = _max_run(ids[keep], a[keep], n)
    # UB: distinct 32-byte blocks per op, then the fullest bank group
    conflicts = np.zeros(n, dtype=np.int64)
    groups = cfg.ub_bank_groups
    ub = _matrix(ops, _UB_KINDS)
    if ub is not None:
        sel, a, _ = ub
        blocks, first = _distinct_rows(a // cfg.ub_block_bytes)
        row = np.broadcast_to(np.arange(sel.size)[:, None], blocks.shape)
        per_group = np.bincount(
            (row * groups + blocks % groups)[first], minlength=sel.size * groups
        ).reshape(sel.size, groups)
        conflicts[sel] = np.maximum(per_group.max(axis=1) - 1, 0)
    else:
        ids, a, _ = _lanes(ops, _UB_KINDS)
        if ids.size:
            o, blocks, first = _runs(ids, a // cfg.ub_block_bytes)
            o, blocks = o[first], blocks[first]
            conflicts = np.maximum(_max_run(o, blocks % groups, n) - 1, 0)
    return LaunchStats(sectors.tolist(), conflicts.tolist(), same.tolist())


class _WarpMem:
    """One warp's async loads: arrival times in flight (bounded) and not yet consumed. Arrivals
    are appended in time order (the GM port frees in order), so both are FIFO queues."""

    def __init__(self, limit: int):
        self.limit = limit
        self.flight: deque[float] = deque()  # arrival times of loads still in flight
        self.unconsumed: deque[float] = deque()
        self.done = 0.0  # when the warp's deferred stores have landed

    def gate(self) -> float:
        """Earliest time another async load may issue (when one in flight has arrived)."""
        return self.flight[0] if len(self.flight) >= self.limit else -math.inf

    def issue(self, arrive: float, now: int) -> None:
        flight = self.flight
        while flight and flight[0] <= now:  # landed
            flight.popleft()
        flight.append(arrive)
        self.unconsumed.append(arrive)

    def consume(self, now: int) -> float:
        return self.unconsumed.popleft() if self.unconsumed else now


def _cost(op: WarpOp, i: int, now: int, cfg: SimtTimingConfig, st, sh: _Shared, wp: _WarpMem):
    """(issue slots, cycles until the warp is ready again, trace args) of warp instruction
    ``op`` (number ``i`` of the launch)."""
    k = op.kind
    consumed = wp.consume(now) if op.uses_load else now  # when the consumed data is there
    if k == "alu":
        return cfg.issue_cycles, max(op.cycles, cfg.issue_cycles, consumed - now), {}
    if k == "loop":
        slots = max(op.cycles, cfg.issue_cycles)
        return slots, slots, {"issue_slots": slots}
    if k in _UB_KINDS:
        extra = st.bank_conflicts[i]
        latency = cfg.ub_latency_cycles + extra * cfg.ub_conflict_cycles
        info = {"bank_conflicts": extra}
        if k == "st_ub" and op.uses_load:  # a store buffer: lands when its data has arrived
            wp.done = max(wp.done, consumed + latency)
            return cfg.issue_cycles, cfg.issue_cycles, info
        return cfg.issue_cycles, max(latency, consumed - now), info
    n = st.sectors[i]
    sh.sectors += n
    sh.gm_bytes += n * cfg.gm_sector_bytes
    transfer = n * cfg.gm_sector_bytes / cfg.gm_bw_bytes_per_cycle
    if k == "atom_gm":
        multiplicity = st.same_address[i]
        start = max(consumed, sh.atomic_free)
        sh.atomic_free = start + transfer + multiplicity * cfg.atomic_cycles
        sh.last_store = max(sh.last_store, sh.atomic_free + cfg.gm_latency_cycles)
        busy = math.ceil(sh.atomic_free - now)
        return cfg.issue_cycles, busy, {"sectors": n, "same_address_lanes": multiplicity}
    start = max(consumed, sh.port_free)
    sh.port_free = start + transfer
    done = math.ceil(sh.port_free - now)
    if k == "ld_gm":
        arrive = now + done + cfg.gm_latency_cycles
        if op.async_load:
            wp.issue(arrive, now)
            return cfg.issue_cycles, cfg.issue_cycles, {"sectors": n, "in_flight": len(wp.flight)}
        return cfg.issue_cycles, done + cfg.gm_latency_cycles, {"sectors": n}
    # st_gm: fire and forget; the launch ends when the store has landed
    sh.last_store = max(sh.last_store, sh.port_free + cfg.gm_latency_cycles)
    if op.tags is not None:
        sh.tag_ops.append(i)
    return cfg.issue_cycles, cfg.issue_cycles, {"sectors": n}


# Schedules by launch signature (see the module docstring), most recently used last.
MEMO = True
_MEMO: dict[tuple, tuple[LaunchResult, list[int]]] = {}
_MEMO_SIZE = 64


def _signature(launch: SimtLaunch, st: LaunchStats, cfg: SimtTimingConfig) -> tuple:
    """Everything the schedule depends on (addresses only through the statistics; labels only
    name the events)."""
    ops = tuple(
        tuple(
            (op.kind, op.lanes, op.cycles, op.async_load, op.uses_load, op.tags is None)
            for op in prog
        )
        for prog in launch.warps
    )
    return cfg, ops, tuple(st.sectors), tuple(st.bank_conflicts), tuple(st.same_address)


def simulate_launch(launch: SimtLaunch, cfg: SimtTimingConfig) -> LaunchResult:
    """Run the warp schedulers of one launch; times are relative to the launch start."""
    all_ops = [op for prog in launch.warps for op in prog]
    st = launch_stats(all_ops, cfg)
    key = _signature(launch, st, cfg) if MEMO else None
    hit = _MEMO.pop(key, None) if MEMO else None
    if hit is None:
        hit = _schedule(launch, st, cfg)
    if MEMO:
        _MEMO[key] = hit  # (re)inserted last: the most recently used
        if len(_MEMO) > _MEMO_SIZE:
            del _MEMO[next(iter(_MEMO))]
    res, tag_ops = hit
    tags = [np.asarray(all_ops[i].tags, dtype=np.int64) for i in tag_ops]
    names = [op.label or op.kind for op in all_ops]
    return LaunchResult(
        res.cycles,
        [(t, names[i], s, d, a) for t, i, s, d, a in res.events],
        np.concatenate(tags) if tags else np.zeros(0, dtype=np.int64),
        res.sectors,
        res.gm_bytes,
    )


def _schedule(
    launch: SimtLaunch, st: LaunchStats, cfg: SimtTimingConfig
) -> tuple[LaunchResult, list[int]]:
    """The schedule of a launch: its result (events named by launch op number, no store tags)
    and the launch op numbers of its tagged stores in landing order."""
    warps = launch.warps
    base = [0]
    for prog in warps:
        base.append(base[-1] + len(prog))
    sh = _Shared()
    events: list[tuple] = []
    finish = [0]
    clock = [0]  # the current time of the event loop below

    def scheduler(k: int, warp_ids: list[int]):
        """Yields the cycles to wait before its next decision, like a simpy process."""
        pc = dict.fromkeys(warp_ids, 0)
        ready = dict.fromkeys(warp_ids, 0)
        at = dict.fromkeys(warp_ids, 0)  # next possible issue time, updated when w issues
        mem = {w: _WarpMem(cfg.max_outstanding_loads) for w in warp_ids}
        live = [w for w in warp_ids if warps[w]]  # ascending warp ids
        last = -1
        thread = f"SIMT_SCHED{k}"
        gto = cfg.policy == "gto"
        while live:
            now = clock[0]
            w = None
            if gto and last in live and at[last] <= now:
                w = last
            else:  # lrr: the next ready warp after the last one issued; gto: the oldest
                first = None
                for c in live:
                    if at[c] <= now:
                        if first is None:
                            first = c
                            if gto:
                                break
                        if c > last:
                            w = c
                            break
                if w is None:
                    w = first
            if w is None:
                yield math.ceil(min(at[c] for c in live)) - now
                continue
            last = w
            prog = warps[w]
            i = pc[w]
            op = prog[i]
            pc[w] = i + 1
            wp = mem[w]
            slots, latency, info = _cost(op, base[w] + i, now, cfg, st, sh, wp)
            ready[w] = now + max(slots, latency)
            finish[0] = max(finish[0], ready[w], wp.done)
            if i + 1 < len(prog):
                at[w] = max(ready[w], wp.gate()) if prog[i + 1].async_load else ready[w]
            else:
                live.remove(w)
            args = {"warp": w, "lanes": op.lanes, "op": op.kind, "latency": latency, **info}
            events.append((thread, base[w] + i, now, slots, args))
            yield slots

    n = cfg.schedulers
    procs = [scheduler(k, [w for w in range(launch.warp_count) if w % n == k]) for k in range(n)]
    # simpy's queue order: (time, priority, insertion order); every process starts at 0
    queue = [(0, _URGENT, k, k) for k in range(n)]
    seq = n
    while queue:
        t, _, _, k = heapq.heappop(queue)
        clock[0] = t
        delay = next(procs[k], None)
        if delay is not None:
            heapq.heappush(queue, (t + delay, _NORMAL, seq, k))
            seq += 1
    end = math.ceil(max(finish[0], sh.last_store))
    res = LaunchResult(
        cfg.launch_cycles + end,
        [(t, nm, cfg.launch_cycles + s, d, a) for t, nm, s, d, a in events],
        np.zeros(0, dtype=np.int64),
        sh.sectors,
        sh.gm_bytes,
    )
    return res, sh.tag_ops
