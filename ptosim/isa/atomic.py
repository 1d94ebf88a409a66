"""Atomic read-modify-write updates of GM (MSCATTER with an atomic op, TSTORE AtomicAdd): one
definition of the arithmetic (D12) and of the order repeated offsets are updated in."""

from __future__ import annotations

import numpy as np

from ..dtypes import DType
from ..enums import ScatterAtomicOp
from .maxmin import maxmin
from .spec import MaxMin


def _combine(
    op: ScatterAtomicOp, dt: DType, cur: np.ndarray, val: np.ndarray, rule: MaxMin
) -> np.ndarray:
    """One atomic read-modify-write step ``cur op val`` with D12 arithmetic, in dtype ``dt``.

    Max/Min: ``maxmin`` under the target's ``rule``, the table value as the first operand."""
    wide = np.float32 if dt.is_float else np.int64
    a, b = cur.astype(wide), val.astype(wide)
    if op is ScatterAtomicOp.Add:
        # float: half/bf16/fp8 add in float32, one RNE rounding per step;
        # int: wraps on the cast back (two's complement truncation)
        out = a + b
    else:
        out = maxmin(rule, "MAX" if op is ScatterAtomicOp.Max else "MIN", a, b)
    return out.astype(dt.np)


def atomic_update(
    store: np.ndarray, offs: np.ndarray, vals: np.ndarray, op: ScatterAtomicOp, dt: DType,
    rule: MaxMin,
) -> None:  # fmt: skip
    """``store[offs] = store[offs] op vals`` element by element in order (flat arrays): an offset
    that repeats is updated once per occurrence (the n-th writes of every slot together)."""
    rank = _occurrence_rank(offs)
    for step in range(int(rank.max(initial=-1)) + 1):
        sel = rank == step
        o = offs[sel]
        store[o] = _combine(op, dt, store[o], vals[sel], rule)


def _occurrence_rank(offsets: np.ndarray) -> np.ndarray:
    """For each entry, how many earlier entries share its offset (0 for the first one)."""
    n = offsets.size
    order = np.argsort(offsets, kind="stable")
    srt = offsets[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = srt[1:] != srt[:-1]
    pos = np.arange(n)
    first = np.maximum.accumulate(np.where(starts, pos, 0))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = pos - first
    return rank
