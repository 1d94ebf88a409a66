"""An interval map over one memory space: disjoint byte segments, each with its own state.

The race check keeps, per segment, the last write, the first read since that write and the last
read of every (core, pipe) (the shadow memory of dynamic race detectors such as FastTrack; the
first read is kept because a missing wait belongs before the earliest unordered reader, not the
latest). An access then looks only at
the segments it overlaps instead of at every earlier access, which makes the analysis
O(n log n) in the number of accesses (plus the segments each access covers).
"""

from __future__ import annotations

from bisect import bisect_right


class IntervalMap:
    """Disjoint, sorted segments [start, end) with a mutable state dict each (its values are
    lists, copied when a segment splits)."""

    def __init__(self):
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.states: list[dict] = []

    def _split(self, at: int) -> None:
        """Make ``at`` a segment boundary if it falls strictly inside a segment."""
        i = bisect_right(self.starts, at) - 1
        if i >= 0 and self.starts[i] < at < self.ends[i]:
            self.starts.insert(i + 1, at)
            self.ends.insert(i + 1, self.ends[i])
            # each half gets its own copy of every entry: a later access to one half must not
            # show in the other (the entries are the mutable [last write, ...] lists of the race
            # check; a shallow copy made a write to one half look like a write to both)
            self.states.insert(i + 1, {k: list(v) for k, v in self.states[i].items()})
            self.ends[i] = at

    def cover(self, lo: int, hi: int) -> list[tuple[int, int, dict]]:
        """The segments exactly covering [lo, hi), created (empty) where there were none."""
        if hi <= lo:
            return []
        self._split(lo)
        self._split(hi)
        out = []
        i = bisect_right(self.starts, lo) - 1
        if i < 0 or self.ends[i] <= lo:
            i += 1
        pos = lo
        while pos < hi:
            if i < len(self.starts) and self.starts[i] == pos:
                out.append((self.starts[i], self.ends[i], self.states[i]))
                pos = self.ends[i]
                i += 1
                continue
            gap_end = self.starts[i] if i < len(self.starts) else hi
            gap_end = min(gap_end, hi)
            state: dict = {}
            self.starts.insert(i, pos)
            self.ends.insert(i, gap_end)
            self.states.insert(i, state)
            out.append((pos, gap_end, state))
            pos = gap_end
            i += 1
        return out
