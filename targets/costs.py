"""Cost formulas shared by the timed targets (A2/A3 and 950), from the device config.

- DMA instruction: ``latency_cycles + ceil(charged_bytes / bw_bytes_per_cycle)``, each burst
  charged in whole ``granule_bytes`` (the 32-byte UB block it lands in).
- Vector intrinsic: ``head + slope * repeats`` (+ ``tail`` when the vector stream drains), at
  least a floor for count-mode / partial-mask calls of the classes that have one; the A2/A3
  parameters are fitted to hardware measurements (docs/calibration.md).
- Scalar: ALU ops, loop overhead, UB loads/stores, and GM loads through a data cache model
  (hit / miss latency, LRU lines).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ptosim.config import DmaConfig, TimingConfig, VectorOpCost
from ptosim.enums import Pipe
from ptosim.memory import SPACE_OF_LOC
from ptosim.plan import Region, Step, StepKind


def dtype_name(dtype) -> str | None:
    """The name of an element type given as a DType or its name (None stays None)."""
    return dtype if dtype is None or isinstance(dtype, str) else dtype.name


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def dma_cycles(cfg: DmaConfig, n_burst: int, len_bytes: int) -> int:
    """Cycles of one DMA instruction of ``n_burst`` bursts of ``len_bytes`` each."""
    charged = n_burst * ceil_div(len_bytes, cfg.granule_bytes) * cfg.granule_bytes
    return cfg.latency_cycles + ceil_div(int(charged * 1000), int(cfg.bw_bytes_per_cycle * 1000))


def gm_requests(cfg: DmaConfig, gm_starts_bytes: np.ndarray, len_bytes: int) -> int:
    """GM requests the bursts split into at ``gm_request_bytes`` boundaries (for the trace)."""
    if len_bytes <= 0 or gm_starts_bytes.size == 0:
        return 0
    g = cfg.gm_request_bytes
    first = gm_starts_bytes // g
    last = (gm_starts_bytes + len_bytes - 1) // g
    return int(np.sum(last - first + 1))


def dma_step(
    pipe: Pipe,
    cfg: DmaConfig,
    label: str,
    n_burst: int,
    len_bytes: int,
    gm: Region | tuple[Region, ...],
    ub: Region | tuple[Region, ...],
    *,
    to_ub: bool,
    gm_starts_bytes=None,
    args: dict | None = None,
) -> Step:
    """One DMA instruction (MTE2: GM -> UB when ``to_ub``; MTE3: UB -> GM). ``gm`` and ``ub``
    are one region each or the exact byte runs of a strided transfer (the trace shows their
    bounding range)."""
    gms = gm if isinstance(gm, tuple) else (gm,)
    ubs = ub if isinstance(ub, tuple) else (ub,)
    shown = Region("GM", min(r.start for r in gms), max(r.end for r in gms)) if gms else gm
    shown_ub = Region(ubs[0].space, min(r.start for r in ubs), max(r.end for r in ubs))
    info = {"nBurst": n_burst, "lenBurst": len_bytes, "gm": str(shown), "ub": str(shown_ub)}
    # the chip's shared memory system needs the fixed latency apart from the transfer time
    # (engine/chip.py): the charged bytes move at the core's rate after the latency
    info["latency_cycles"] = cfg.latency_cycles
    info["charged_bytes"] = n_burst * ceil_div(len_bytes, cfg.granule_bytes) * cfg.granule_bytes
    if gm_starts_bytes is not None:
        info["gm_requests"] = gm_requests(cfg, np.asarray(gm_starts_bytes), len_bytes)
    if args:
        info.update(args)
    return Step(
        pipe,
        StepKind.DMA,
        dma_cycles(cfg, n_burst, len_bytes),
        label,
        bytes=n_burst * len_bytes,
        reads=gms if to_ub else ubs,
        writes=ubs if to_ub else gms,
        args=info,
    )


def vector_cost(t: TimingConfig, op: str) -> VectorOpCost:
    """The cost entry of intrinsic ``op`` (``VectorConfig.cost``: exact name, longest
    ``prefix*`` key, else ``other``)."""
    return t.vector.cost(op)


def vector_cycles(
    t: TimingConfig,
    op: str,
    repeats: int,
    *,
    last: bool = True,
    partial: bool = False,
    dtype: str | None = None,
) -> int:
    """Cycles of one vector intrinsic with ``repeats`` repeats (docs/calibration.md).

    The call issues for ``head + slope * repeats`` cycles (the slope of ``dtype``, the element
    type's name, where the class has one), at least ``partial_floor`` in count mode or under a
    partial lane mask; ``last``: the vector stream drains after it (a barrier, a handshake or
    the end of the instruction follows), which adds the pipeline latency ``tail``. Count-mode
    calls pass the repeats they really execute, ``ceil(N / E)``. For ``copy_ubuf_to_ubuf`` the
    repeats are the 32-byte blocks moved (see ``ub_copy_step``).
    """
    cost = vector_cost(t, op)
    issue = cost.head + cost.slope_for(dtype) * repeats
    if partial:
        issue = max(issue, cost.partial_floor)
    cycles = issue + (cost.tail if last else 0)
    return int(cycles + 0.5)  # round half up: a call occupies whole cycles


def vector_step(
    t: TimingConfig,
    op: str,
    repeats: int,
    label: str = "",
    *,
    last: bool = True,
    partial: bool = False,
    reads=(),
    writes=(),
    data: bool = True,
    dtype: str | None = None,
) -> Step:
    return Step(
        Pipe.PIPE_V,
        StepKind.VECTOR,
        vector_cycles(t, op, repeats, last=last, partial=partial, dtype=dtype),
        label or f"{op} x{repeats}",
        reads=tuple(reads),
        writes=tuple(writes),
        data=data,
        args={"intrinsic": op, "repeats": repeats},
    )


UB_COPY = "copy_ubuf_to_ubuf"
BLOCK_BYTES = 32


def ub_copy_step(
    t: TimingConfig,
    blocks: int,
    label: str = "",
    *,
    n_burst: int = 1,
    reads=(),
    writes=(),
    args: dict | None = None,
) -> Step:
    """One ``copy_ubuf_to_ubuf`` (PIPE_V) moving ``blocks`` 32-byte blocks in ``n_burst``
    bursts: a per-copy issue cost plus one cycle per block (the hardware, timing cases V1/V2;
    copies serialise)."""
    info = {"intrinsic": UB_COPY, "repeats": blocks, "blocks": blocks, "nBurst": n_burst}
    return Step(
        Pipe.PIPE_V,
        StepKind.VECTOR,
        vector_cycles(t, UB_COPY, blocks),
        label or f"{UB_COPY} {blocks} blocks",
        bytes=blocks * BLOCK_BYTES,
        reads=tuple(reads),
        writes=tuple(writes),
        args={**info, **(args or {})},
    )


def scalar_step(
    cycles: int,
    label: str,
    *,
    reads=(),
    writes=(),
    bytes_: int = 0,
    data: bool = True,
    args: dict | None = None,
) -> Step:
    return Step(
        Pipe.PIPE_S,
        StepKind.SCALAR,
        int(cycles),
        label,
        bytes=bytes_,
        reads=tuple(reads),
        writes=tuple(writes),
        data=data,
        args=args or {},
    )


class DataCache:
    """LRU model of the scalar unit's GM data cache (hits and misses of GM loads)."""

    def __init__(self, t: TimingConfig):
        self.line = t.scalar.dcache_line_bytes
        self.capacity = t.scalar.dcache_bytes // self.line
        self.lines: OrderedDict[int, None] = OrderedDict()
        self.hit_cycles = t.scalar.gm_load_hit_cycles
        self.miss_cycles = t.scalar.gm_load_miss_cycles

    def load_cycles(self, addresses) -> tuple[int, int]:
        """Total cycles and miss count of scalar GM loads at these byte addresses, in order."""
        total = misses = 0
        lines = self.lines
        for a in (np.asarray(addresses, dtype=np.int64) // self.line).tolist():
            if a in lines:
                lines.move_to_end(a)
                total += self.hit_cycles
            else:
                misses += 1
                total += self.miss_cycles
                lines[a] = None
                if len(lines) > self.capacity:
                    lines.popitem(last=False)
        return total, misses


def tile_region(ref) -> Region:
    """The byte range of a tile's storage in its buffer (UB, L1 for Mat tiles, L0A ...)."""
    space = SPACE_OF_LOC[ref.loc]
    return Region(space, ref.address, ref.address + ref.size_bytes)


def rows_region(ref, r0: int, n: int, c0: int, c1: int, pitch: int | None = None) -> Region:
    """UB bytes of columns [c0, c1) of rows [r0, r0 + n) of a tile, at ``pitch`` elements per
    row (default: the tile's Cols); an empty range when there are no rows or columns."""
    p = ref.cols if pitch is None else pitch
    sz = ref.dtype.size_bytes
    start = ref.address + (r0 * p + c0) * sz
    if n <= 0 or c1 <= c0:
        return Region("UB", start, start)
    return Region("UB", start, ref.address + ((r0 + n - 1) * p + c1) * sz)


def gm_region(gref, offsets) -> Region:
    """Bounding GM byte range of element offsets of a GlobalTensor operand."""
    offsets = np.asarray(offsets)
    sz = gref.dtype.size_bytes
    if offsets.size == 0:
        a = gref.byte_address(gref.offset)
        return Region("GM", a, a)
    return Region(
        "GM", gref.byte_address(int(offsets.min())), gref.byte_address(int(offsets.max())) + sz
    )


def control_step(ctx, name: str) -> Step:
    """A scalar control intrinsic (``set_atomic_*``...): one scalar op, no data access, priced
    like the other control intrinsics (the vendor cost model's 1 cycle)."""
    s = ctx.config.timing.scalar
    args = {"intrinsic": name, "cost": "control", "source": s.control_source}
    return scalar_step(s.op_cycles, name, data=False, args=args)
