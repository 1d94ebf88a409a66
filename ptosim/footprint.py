"""Exact byte footprints of GM accesses: the set of byte intervals a view or a DMA touches.

A strided GlobalTensor view (a column slice of a wider matrix, ``stride=(1, 1, 1, 32, 1)``) touches
one run of bytes per row, with gaps between them. The happens-before analysis needs those runs,
not their bounding range: two cores storing the left and the right half of a matrix touch
disjoint bytes although their bounding ranges overlap. Intervals are merged and sorted, so a
dense view is one interval and costs what a bounding range did.

Past ``MAX_RUNS`` intervals a footprint falls back to its bounding range (conservative: it can
only add findings, never hide one); the limit keeps one access from flooding the analysis's
interval map.
"""

from __future__ import annotations

import numpy as np

from .plan import Region

# Runs of one footprint before it falls back to the bounding range (a 65,536-row strided view).
MAX_RUNS = 1 << 16


def merged_runs(starts_bytes, length_bytes: int) -> list[tuple[int, int]]:
    """Sorted, merged ``[lo, hi)`` intervals of runs of ``length_bytes`` starting at each of
    ``starts_bytes`` (overlapping and touching runs join)."""
    s = np.unique(np.asarray(starts_bytes, dtype=np.int64).reshape(-1))
    if s.size == 0 or length_bytes <= 0:
        return []
    e = s + int(length_bytes)
    if s.size > MAX_RUNS:
        return [(int(s[0]), int(e[-1]))]
    # one length for all: the ends are sorted too, so a run starts a new interval exactly when
    # it begins past the previous run's end
    brk = np.flatnonzero(s[1:] > e[:-1]) + 1
    lo = s[np.concatenate(([0], brk))]
    hi = e[np.concatenate((brk - 1, [s.size - 1]))]
    return list(zip(lo.tolist(), hi.tolist()))


def view_runs(
    base_bytes: int, offset: int, shape, stride, size_bytes: int
) -> list[tuple[int, int]]:
    """The byte intervals of a 5-D strided view: elements ``offset + sum(i_d * stride_d)`` of
    ``size_bytes`` each, from ``base_bytes`` (the buffer's address)."""
    if any(n == 0 for n in shape):
        return []
    # dimensions that move: stride-0 (broadcast) and extent-1 dimensions add no bytes
    dims = sorted(((int(n), int(s)) for n, s in zip(shape, stride) if n > 1 and s != 0),
                  key=lambda d: abs(d[1]))  # fmt: skip
    run, i = 1, 0
    # fold the innermost dimensions that continue each other into one contiguous run
    while i < len(dims) and dims[i][1] == run:
        run *= dims[i][0]
        i += 1
    rest = dims[i:]
    count = 1
    for n, _ in rest:
        count *= n
    if count > MAX_RUNS:
        lo = offset + sum((n - 1) * s for n, s in rest if s < 0)
        hi = offset + run + sum((n - 1) * s for n, s in rest if s > 0)
        return [(base_bytes + lo * size_bytes, base_bytes + hi * size_bytes)]
    starts = np.full(1, offset, dtype=np.int64)
    for n, s in rest:
        starts = (starts[:, None] + np.arange(n, dtype=np.int64)[None, :] * s).reshape(-1)
    return merged_runs(base_bytes + starts * size_bytes, run * size_bytes)


def gm_regions(runs: list[tuple[int, int]]) -> tuple[Region, ...]:
    return tuple(Region("GM", lo, hi) for lo, hi in runs)


def bounding(regions) -> tuple[int, int]:
    """The bounding ``[lo, hi)`` of non-empty regions."""
    return min(r.start for r in regions), max(r.end for r in regions)
