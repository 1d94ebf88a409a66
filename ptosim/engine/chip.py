"""The chip's shared memory system: GM bandwidth shared by every core of a launch, and GM lines
that serialise the cores hitting them (docs/architecture.md, "The chip's memory system").

Bandwidth: a *reservation calendar*. Time is cut into windows of ``window_cycles``; each window
holds ``gm_bw_bytes_per_cycle x window_cycles`` bytes of chip traffic. A transfer starting at
``t`` (after its fixed latency) books its bytes window by window, at most at its own per-core
rate in each window and at most what the window has left; it ends when its last byte is booked.
Transfers book in the order the engine starts them (simpy's deterministic event order), so the
result is deterministic. A transfer that never met a full window keeps exactly its planned
cycles: one core on an idle chip (rate below the chip limit) is unchanged. The cost of a
booking is the number of windows it spans (its duration / ``window_cycles``), independent of
the number of cores or transfers so far (a dict lookup per window).

Same-address serialisation: GM is cut into ``same_address_bytes`` lines; a transfer from one
core that touches a line another core used last waits until that line is free, and every
access holds its lines for ``same_address_cycles``. A core's own successive accesses do not
serialise on the line (single-core timing is the calibrated one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..config import ChipConfig


@dataclass
class CoreTraffic:
    """GM bytes one core moved and the cycles its transfers were active (for bandwidth)."""

    bytes: int = 0
    busy_cycles: int = 0
    throttled: int = 0  # transfers the chip limit slowed down
    serialised: int = 0  # transfers that waited for a GM line another core held


@dataclass
class ChipMemory:
    cfg: ChipConfig
    used: dict[int, float] = field(default_factory=dict)  # window -> bytes booked
    lines: dict[int, tuple[int, int]] = field(default_factory=dict)  # line -> (core, free at)
    traffic: dict[int, CoreTraffic] = field(default_factory=dict)
    first: int | None = None  # the first transfer's start
    last: int = 0  # the last transfer's end
    cores: int = 0  # cores of the launch (1: no other core can hold a line; 0: unknown)

    @property
    def window_bytes(self) -> float:
        return self.cfg.gm_bw_bytes_per_cycle * self.cfg.window_cycles

    def _line_wait(self, core: int, now: int, gm: list[tuple[int, int]]) -> int:
        """Cycles the transfer waits for GM lines last used by another core; books the lines."""
        size, hold = self.cfg.same_address_bytes, self.cfg.same_address_cycles
        spans = [(lo // size, (hi - 1) // size + 1) for lo, hi in gm if hi > lo]
        ready = now
        for a, b in spans:
            for line in range(a, b):
                owner = self.lines.get(line)
                if owner is not None and owner[0] != core:
                    ready = max(ready, owner[1])
        for a, b in spans:
            for line in range(a, b):
                self.lines[line] = (core, ready + hold)
        return ready - now

    def transfer(
        self,
        core: int,
        now: int,
        planned_cycles: int,
        latency_cycles: int,
        nbytes: int,
        gm=(),
    ) -> int:
        """Cycles of a GM transfer of ``nbytes`` starting at ``now``, planned (one core, idle
        chip) as ``planned_cycles`` = ``latency_cycles`` + the transfer at the core's rate.
        ``gm``: the dense GM byte ranges it touches (for same-address serialisation)."""
        cycles = self._transfer(core, now, planned_cycles, latency_cycles, nbytes, gm)
        self.first = now if self.first is None else min(self.first, now)
        self.last = max(self.last, now + cycles)
        return cycles

    def _transfer(self, core, now, planned_cycles, latency_cycles, nbytes, gm) -> int:
        t = self.traffic.setdefault(core, CoreTraffic())
        t.bytes += nbytes
        wait = self._line_wait(core, now, gm) if gm and self.cores != 1 else 0
        if wait:
            t.serialised += 1
        move = planned_cycles - latency_cycles
        if nbytes <= 0 or move <= 0:
            t.busy_cycles += planned_cycles + wait
            return planned_cycles + wait
        rate = nbytes / move  # the core's own rate (bytes per cycle)
        w_cycles = self.cfg.window_cycles
        cap = self.window_bytes
        start = now + wait + latency_cycles
        clock = float(start)
        left = float(nbytes)
        limited = False
        while left > 1e-9:
            w = int(clock // w_cycles)
            w_end = (w + 1) * w_cycles
            want = min(left, rate * (w_end - clock))
            have = cap - self.used.get(w, 0.0)
            take = max(0.0, min(want, have))
            if take < want:
                limited = True
            if take > 0:
                self.used[w] = self.used.get(w, 0.0) + take
            left -= take
            clock = clock + take / rate if left <= 1e-9 else float(w_end)
        cycles = planned_cycles + wait
        if limited:
            cycles = max(cycles, math.ceil(clock - now - 1e-9))
            t.throttled += 1
        t.busy_cycles += cycles
        return cycles

    def lane(self) -> list[tuple[int, int, float]]:
        """The chip-level lane: (window start cycle, window cycles, bytes booked), in time
        order (windows with traffic only)."""
        w = self.cfg.window_cycles
        return [(k * w, w, b) for k, b in sorted(self.used.items()) if b > 0]

    def lane_runs(self) -> list[tuple[int, int, float]]:
        """The lane with consecutive windows of equal traffic merged: (start, cycles, bytes)."""
        out: list[list] = []
        for start, cycles, nbytes in self.lane():
            if (
                out
                and out[-1][0] + out[-1][1] == start
                and out[-1][2] / out[-1][1] == (nbytes / cycles)
            ):
                out[-1][1] += cycles
                out[-1][2] += nbytes
            else:
                out.append([start, cycles, nbytes])
        return [tuple(r) for r in out]

    @property
    def total_bytes(self) -> int:
        return sum(t.bytes for t in self.traffic.values())

    def achieved(self, run_cycles: int) -> dict:
        """Chip-level achieved bandwidth (bytes per cycle): over the run, over the span GM was
        in use, and the busiest window; and the configured limit."""
        total = self.total_bytes
        span = self.last - self.first if self.first is not None else 0
        peak = max((b for _, _, b in self.lane()), default=0.0) / self.cfg.window_cycles
        return {
            "bytes": total,
            "run": total / run_cycles if run_cycles else 0.0,
            "span": total / span if span else 0.0,
            "peak_window": peak,
            "limit": self.cfg.gm_bw_bytes_per_cycle,
        }
