"""A2/A3 plans of the data-movement instructions: TLOAD/TSTORE as DMA instructions (one per
outer block, nBurst x lenBurst, semantics.md 3.5), TMOV as a UB->UB copy, TEXPANDS as
vector_dup repeats."""

from __future__ import annotations

import numpy as np

from ptosim.enums import Layout, Pipe
from ptosim.isa.data import TExpandS, TLoad, TMov, TStore, dma_bursts, tmov_copied_elements
from ptosim.plan import Step, StepKind

from ..costs import ceil_div, dma_step, gm_region, tile_region, vector_step


def _dma_groups(instr, ctx) -> tuple[list[np.ndarray], int]:
    """Burst start offsets (GM elements) per DMA instruction, and the burst length."""
    t, g = instr.tile, instr.gm
    b = dma_bursts(ctx.target, t, g, load=isinstance(instr, TLoad))
    s0, s1, s2, s3, s4 = g.shape
    per_dma = s1 if g.layout is Layout.NZ else (s4 if g.layout is Layout.DN else s3)
    n = max(per_dma, 1)
    groups = [b.gm_start[i : i + n] for i in range(0, b.gm_start.size, n)]
    return groups, b.length


def plan_transfer(instr, ctx) -> list[Step]:
    """TLOAD (MTE2) / TSTORE (MTE3): one DMA per outer-dimension block."""
    load = isinstance(instr, TLoad)
    t, g = instr.tile, instr.gm
    timing = ctx.config.timing
    cfg = timing.mte2 if load else timing.mte3
    pipe = Pipe.PIPE_MTE2 if load else Pipe.PIPE_MTE3
    groups, length = _dma_groups(instr, ctx)
    sz = t.dtype.size_bytes
    ub = tile_region(t)
    steps = []
    for n, starts in enumerate(groups):
        offs = (starts[:, None] + np.arange(max(length, 1))).reshape(-1)
        gm = gm_region(g, offs)
        gm_bytes = g.buffer.address + starts * sz
        steps.append(
            dma_step(
                pipe,
                cfg,
                f"{instr.opcode} DMA {n}",
                int(starts.size),
                length * sz,
                gm,
                ub,
                to_ub=load,
                gm_starts_bytes=gm_bytes,
            )
        )
    return steps


def plan_tmov(instr: TMov, ctx) -> list[Step]:
    d = instr.dst
    rows, cols = tmov_copied_elements(d, instr.src)
    nbytes = rows * cols * d.dtype.size_bytes
    bw = ctx.config.timing.vector.ub_copy_bw_bytes_per_cycle
    head = ctx.config.timing.vector.ops["vcopy"].head
    return [
        Step(
            Pipe.PIPE_V,
            StepKind.VECTOR,
            head + ceil_div(nbytes, int(bw)),
            f"copy_ubuf_to_ubuf {nbytes} B",
            bytes=nbytes,
            reads=(tile_region(instr.src),),
            writes=(tile_region(d),),
            args={"bytes": nbytes},
        )
    ]


def plan_texpands(instr: TExpandS, ctx) -> list[Step]:
    d = instr.dst
    t = ctx.config.timing
    nbytes = d.valid_row * d.cols * d.dtype.size_bytes
    repeats = max(1, ceil_div(nbytes, t.vector.repeat_bytes))
    return [vector_step(t, "vector_dup", repeats, writes=(tile_region(d),))]


PLANS = {TLoad: plan_transfer, TStore: plan_transfer, TMov: plan_tmov, TExpandS: plan_texpands}
