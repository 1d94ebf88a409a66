"""A2/A3 plans of the data-movement instructions: TLOAD/TSTORE as DMA instructions (one per
outer block, nBurst x lenBurst, semantics.md 3.5), TMOV as a UB->UB copy, TEXPANDS as
vector_dup repeats."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ptosim.enums import AtomicType, Layout, Pipe
from ptosim.footprint import bounding, gm_regions, merged_runs
from ptosim.isa.data import TExpandS, TLoad, TMov, TStore, tmov_copied_elements
from ptosim.plan import Region, Step

from ..costs import (
    BLOCK_BYTES,
    ceil_div,
    control_step,
    dma_step,
    tile_region,
    ub_copy_step,
    vector_step,
)
from .scatter import ATOMIC_TYPE


def _dma_groups(instr, ctx) -> tuple[list[np.ndarray], int]:
    """Burst start offsets (GM elements) per DMA instruction, and the burst length.

    A2/A3 issues one DMA instruction per (shape0, shape1, shape2) block (ND: shape3 bursts, DN:
    shape4 bursts) and per shape0 for NZ (shape1 bursts). The 950 DMA loops over shape1 and
    shape2 in hardware (the loop registers the reference a5 TLOAD/TSTORE set), so it issues one
    DMA instruction per shape0 for every layout."""
    g = instr.dma_gm(ctx.spec.dma)  # the view as the DMA walks it
    b = instr.bursts(ctx.spec.dma)
    s0, s1, s2, s3, s4 = g.shape
    per_dma = s1 if g.layout is Layout.NZ else (s4 if g.layout is Layout.DN else s3)
    if ctx.target == "a5" and g.layout is not Layout.NZ:
        per_dma *= s1 * s2
    n = max(per_dma, 1)
    groups = [b.gm_start[i : i + n] for i in range(0, b.gm_start.size, n)]
    return groups, b.length


# A transfer's plan depends on its GM address only through the GM byte ranges of its DMAs (and
# their text in the trace args) and, through the GM request count, on the address modulo
# gm_request_bytes: the plan of one shape is computed once and moved to each address. Values
# hold the objects keyed by id (so that an id is never reused while its key lives).
_MOVABLE: dict[tuple, tuple] = {}


def plan_transfer(instr, ctx) -> list[Step]:
    """TLOAD (MTE2) / TSTORE (MTE3): one DMA per outer-dimension block."""
    if getattr(instr, "atomic", AtomicType.AtomicNone) is AtomicType.AtomicAdd:
        return _atomic_store(instr, ctx, _plan_or_move(instr, ctx))
    return _plan_or_move(instr, ctx)


def _atomic_store(instr, ctx, dmas: list[Step]) -> list[Step]:
    """TSTORE<AtomicAdd>: ``set_atomic_<type>; set_atomic_add`` before the DMAs and
    ``set_atomic_none`` after, scalar control intrinsics (semantics.md 3.5); each DMA reads the
    GM it adds into. An atomic DMA costs what a plain one does (no public atomic throughput;
    timing.md 5 lists it among the estimates, the same choice as MSCATTER Add)."""
    kind = ATOMIC_TYPE[instr.tile.dtype.name]
    added = [
        replace(
            st, reads=st.reads + st.writes, args=dict(st.args, atomic="add"), atomic=instr.atomic_op
        )
        for st in dmas
    ]
    return [
        control_step(ctx, f"set_atomic_{kind}"),
        control_step(ctx, "set_atomic_add"),
        *added,
        control_step(ctx, "set_atomic_none"),
    ]


def _plan_or_move(instr, ctx) -> list[Step]:
    load = isinstance(instr, TLoad)
    t, g = instr.tile, instr.gm
    timing = ctx.config.timing
    cfg = timing.mte2 if load else timing.mte3
    base = g.byte_address(g.offset)
    key = (type(instr), ctx.target, id(cfg), id(t.geom), t.address, t.valid_row, t.valid_col, t.pad,
           id(g.dtype), g.geom.shape, g.geom.stride, g.geom.layout,
           base % cfg.gm_request_bytes)  # fmt: skip
    hit = _MOVABLE.get(key)
    if hit is not None and hit[0] is cfg and hit[1] is t.geom and hit[2] is g.dtype:
        return _moved(hit[4], base - hit[3], load)
    steps = _plan_transfer(instr, ctx, load, cfg)
    if len(_MOVABLE) >= 1024:
        _MOVABLE.clear()
    _MOVABLE[key] = (cfg, t.geom, g.dtype, base, steps)
    return list(steps)


def _moved(steps: list[Step], delta: int, load: bool) -> list[Step]:
    """``steps`` (DMA steps of ``dma_step``) with their GM range moved by ``delta`` bytes."""
    if delta == 0:
        return list(steps)
    out = []
    for st in steps:
        old = st.reads if load else st.writes
        gm = tuple(Region("GM", r.start + delta, r.end + delta) for r in old)
        args = dict(st.args)
        args["gm"] = str(Region("GM", *bounding(gm)))
        out.append(
            Step(
                st.pipe, st.kind, st.cycles, st.label, bytes=st.bytes,
                reads=gm if load else st.reads, writes=st.writes if load else gm,
                args=args,
            )
        )  # fmt: skip
    return out


def _plan_transfer(instr, ctx, load: bool, cfg) -> list[Step]:
    t, g = instr.tile, instr.gm
    pipe = Pipe.PIPE_MTE2 if load else Pipe.PIPE_MTE3
    groups, length = _dma_groups(instr, ctx)
    sz = t.dtype.size_bytes
    space = tile_region(t).space
    # the UB (L1) bytes each DMA moves: its bursts' rows (and a TLOAD's row padding), not the
    # whole tile: a partial-valid tile placed inside a wider buffer (the library's flash
    # attention loads 128 of a 256-column tile's columns at a column offset) touches only
    # those runs, and its unused storage may overlap the next tile (bursts past the tile's end
    # are moved too, as execute() does)
    b = instr.bursts(ctx.spec.dma)
    ub_run_bytes = (length + (b.pad if load else 0)) * sz
    steps = []
    first = 0
    for n, starts in enumerate(groups):
        gm_bytes = g.buffer.address + starts * sz
        # the exact bytes of the bursts (a strided view touches one run per row, footprint.py)
        gm = gm_regions(merged_runs(gm_bytes, max(length, 1) * sz))
        tile_starts = b.tile_start[first : first + starts.size]
        first += starts.size
        ub = tuple(
            Region(space, lo, hi)
            for lo, hi in merged_runs(t.address + tile_starts * sz, max(ub_run_bytes, sz))
        )
        steps.append(
            dma_step(
                pipe,
                cfg,
                f"{instr.opcode} DMA {n}",
                int(starts.size),
                length * sz,
                gm,
                ub or (Region(space, t.address, t.address),),
                to_ub=load,
                gm_starts_bytes=gm_bytes,
            )
        )
    return steps


def tmov_copies(d, s) -> tuple[int, int]:
    """(copies, 32-byte blocks per copy) of ``TMovToVec``, the reference a2a3 lowering, for
    any layout (it reads only Rows, Cols and the valid shapes): one copy of ``Cols x validRow``
    elements when dst's static ValidCol is its Cols or the copied valid width is, else one copy
    per valid row of the blocks covering ``validCol`` (so a partial-valid ColMajor TMOV is a
    copy per valid row, as measured: 63 x (5 + 16) cycles)."""
    rows = min(d.valid_row, s.valid_row)
    cols = min(d.valid_col, s.valid_col)
    sz = d.dtype.size_bytes
    same_pitch = d.cols == s.cols or d.rows == 1
    whole_rows = (d.static_valid and d.valid_col == d.cols) or cols == d.cols
    if same_pitch and whole_rows:
        return 1, ceil_div(d.cols * rows * sz, BLOCK_BYTES)
    return rows, ceil_div(cols * sz, BLOCK_BYTES)


def plan_tmov(instr: TMov, ctx) -> list[Step]:
    """``copy_ubuf_to_ubuf`` on PIPE_V (``TMovToVec``), as ``tmov_copies`` counts them. Each
    copy costs its issue plus one cycle per 32-byte block, and copies serialise (timing.md V1,
    V2). The bytes each copy touches: the rows of an ND tile; the valid region through the
    layout for DN/NZ tiles (D16), all of it on the one copy or spread over the per-row copies."""
    d, s = instr.dst, instr.src
    t = ctx.config.timing
    rows, cols = tmov_copied_elements(d, s)
    if rows == 0 or cols == 0:
        return []
    copies, blocks = tmov_copies(d, s)
    sz = d.dtype.size_bytes
    if d.geom.layout_name == s.geom.layout_name and not d.geom.is_nd:
        # DN/NZ: the valid region through the layout (D16)
        reads, writes = (tile_region(s),), (tile_region(d),)
        if copies == 1:
            return [ub_copy_step(t, blocks, reads=reads, writes=writes)]
        return [
            ub_copy_step(
                t, blocks, f"copy_ubuf_to_ubuf row {r}", reads=reads, writes=writes,
                args={"row": r},
            )
            for r in range(copies)
        ]  # fmt: skip
    if copies == 1:  # whole rows: one copy, one burst
        n = rows * cols * sz
        return [
            ub_copy_step(
                t,
                blocks,
                reads=(Region("UB", s.address, s.address + n),),
                writes=(Region("UB", d.address, d.address + n),),
            )
        ]
    row_bytes = blocks * BLOCK_BYTES
    pitch = d.cols * sz
    return [
        ub_copy_step(
            t,
            blocks,
            f"copy_ubuf_to_ubuf row {r}",
            reads=(Region("UB", s.address + r * pitch, s.address + r * pitch + row_bytes),),
            writes=(Region("UB", d.address + r * pitch, d.address + r * pitch + row_bytes),),
            args={"row": r},
        )
        for r in range(rows)
    ]


def plan_texpands(instr: TExpandS, ctx) -> list[Step]:
    d = instr.dst
    t = ctx.config.timing
    nbytes = d.valid_row * d.cols * d.dtype.size_bytes
    repeats = max(1, ceil_div(nbytes, t.vector.repeat_bytes))
    return [vector_step(t, "vector_dup", repeats, writes=(tile_region(d),))]


PLANS = {TLoad: plan_transfer, TStore: plan_transfer, TMov: plan_tmov, TExpandS: plan_texpands}
