"""A2/A3 plans of MGATHER (semantics.md 3.1.3 and the flag chains of 4.3).

Every kernel is driven from the scalar pipe S. The plan is data dependent: it reads the index
(UB tile or, for GM -> L1, GM tensor) from ``ctx`` as the scalar unit finds it when the
instruction is issued, remaps it with the OOB policy (an Undefined index past the capacity is
planned as if clamped in range; execution raises the real error), and emits:

* Row, ND table (``MGatherRowImpl``): ``V->S, MTE3->S``; per row one scalar step (index UB load,
  remap, GM and UB address arithmetic) then one MTE2 DMA ``nBurst=1, lenBurst=C*sizeof(T)`` from
  ``table + k'*stride3`` to ``dst + r*Cols``; a GatherOOB::Zero row that is out of range does the
  branch and C scalar zero stores instead; ``S->MTE2, MTE2->V, MTE2->MTE3, S->V, S->MTE3``.
* Row, NZ table (``MGatherRowNzImpl``): same chains; with Zero, scalar zero stores of the whole
  tile first (one step per storage row of Cols elements); per readable logical row and per
  ``i < gShape0`` one DMA of ``nBurst=gShape1`` bursts of 32 B (``C0*sizeof(T)``).
* Elem, ND / NZ (``MGatherElemImpl`` / ``MGatherElemNzImpl``): ``V->S, MTE3->S, MTE2->S``; the
  scalar loop (per element: loop, index UB load, remap, address arithmetic, GM load through the
  data cache at the element's real GM byte address, UB store) grouped in one step per row (ND)
  or per (column block, row) segment of the NZ walk; ``S->V, S->MTE2, S->MTE3``.
* GM -> L1 (``MGatherL1``, cube core): Row: with Zero, one ``create_cbuf_matrix`` prefill on
  MTE2; per row a scalar step (index GM load through the data cache, remap, addresses) and one
  MTE2 ``copy_gm_to_cbuf_multi_nd2nz`` of C elements; final ``S->MTE2``. Elem: scalar zero fill
  of the GM scratch (one step per Cols elements), the scalar gather into the scratch (per row:
  index and table GM loads through the data cache, GM store), the ``dcci`` loop over the
  scratch's 64 B lines and ``dsb``, ``S->MTE2``, then one MTE2 ``copy_gm_to_cbuf`` of
  ``Rows*Cols*sizeof(T)`` bytes.

Scalar operation counts (each costs ``scalar.op_cycles``): remap Undefined 0, Clamp / Wrap /
Zero 1 (compare-select, modulo, compare-branch); Row address arithmetic 2 (GM source, UB
destination), plus 2 for the NZ block split; Elem ND address arithmetic 2; Elem NZ 12 (the
``k / nLogicalCols`` split, ``MGatherNZGmOffset`` and the NZ UB offset).

Cost parameters the model lacks (the closest existing one is used, see the report): GM -> L1
DMA (uses ``mte2``), the ``create_cbuf_matrix`` fill (uses the ``mte2`` DMA formula), the
``dcci`` per line (``op_cycles``) and ``dsb`` (``barrier_cycles``).
"""

from __future__ import annotations

import numpy as np

from ptosim.enums import Coalesce, GatherOOB, Layout, Pipe
from ptosim.errors import PtoSimError
from ptosim.isa.gather import MGather, MGatherL1
from ptosim.isa.indexing import (
    elem_capacity,
    elem_offsets,
    nz_logical_shape,
    nz_offsets,
    read_indices,
    remap,
    row_capacity,
)
from ptosim.plan import Deferred, Region, Step, StepKind, handshake

from ..costs import DataCache, dma_cycles, dma_step, gm_region, scalar_step, tile_region

S, V, MTE2, MTE3 = Pipe.PIPE_S, Pipe.PIPE_V, Pipe.PIPE_MTE2, Pipe.PIPE_MTE3

# scalar ALU operations per index remap (compare-select / modulo / compare-branch)
REMAP_OPS = {"Undefined": 0, "Clamp": 1, "Wrap": 1, "Zero": 1, "Skip": 1}
ROW_ADDR_OPS = 2  # GM source (table + k*stride3) and UB destination (dst + r*Cols)
NZ_ROW_SPLIT_OPS = 2  # k / 16 and k % 16 of the NZ row DMA addresses
ELEM_ADDR_OPS = 2  # GM element address and UB destination address
ELEM_NZ_ADDR_OPS = 12  # k / nCols, k % nCols, MGatherNZGmOffset (8), NZ UB offset (2)
L1_SCRATCH_ADDR_OPS = 4  # (c/C0)*Rows*C0 + r*C0 + c%C0 into the GM scratch

ROW_GATHER_CHAIN = {
    "prologue": ((V, S), (MTE3, S)),
    "epilogue": ((S, MTE2), (MTE2, V), (MTE2, MTE3), (S, V), (S, MTE3)),
}
ELEM_GATHER_CHAIN = {
    "prologue": ((V, S), (MTE3, S), (MTE2, S)),
    "epilogue": ((S, V), (S, MTE2), (S, MTE3)),
}


# -- helpers shared with scatter.py ---------------------------------------------------------
def flags(ctx, pairs, phase: str) -> list[Step]:
    """``PtoSetWaitFlag<src, dst>()`` for each pair, with trace args."""
    cycles = ctx.config.timing.scalar.flag_cycles
    steps = []
    for src, dst in pairs:
        for st in handshake(src, dst, cycles):
            st.args = {"src": src.name, "dst": dst.name, "event_id": 0, "phase": phase}
            steps.append(st)
    return steps


def dcache(ctx) -> DataCache:
    """The core's scalar data cache (persists across the instructions of a run)."""
    return ctx.plan_state.setdefault("dcache", DataCache(ctx.config.timing))


def plan_remap(ctx, k: np.ndarray, cap: int, oob) -> tuple[np.ndarray, np.ndarray]:
    """``indexing.remap`` at plan time: an Undefined index past the capacity is planned as if
    clamped in range (execution raises the OutOfBoundsError when it happens)."""
    try:
        return remap(ctx, k, cap, oob)
    except PtoSimError:
        return np.minimum(k, max(cap - 1, 0)), np.ones(np.shape(k), dtype=bool)


def remap_cycles(ctx, oob) -> int:
    return REMAP_OPS[oob.name] * ctx.config.timing.scalar.op_cycles


def elem_region(ref, first: int, count: int) -> Region:
    """Bytes of ``count`` storage elements of a tile from storage offset ``first``."""
    base = tile_region(ref)
    sz = ref.dtype.size_bytes
    return Region(base.space, base.start + first * sz, base.start + (first + count) * sz)


def gm_addresses(gref, offsets) -> np.ndarray:
    """GM byte addresses of buffer element offsets."""
    return gref.buffer.address + np.asarray(offsets, dtype=np.int64) * gref.dtype.size_bytes


def nz_row_dmas(g, tile, k: int, r: int):
    """(i, GM burst start offsets, UB storage offset) of the ``i < gShape0`` DMAs of NZ
    logical row k landing in tile row r: bursts ``j < gShape1`` of C0 elements, GM pitch
    gStride1, UB pitch Rows*C0 (``ubGap = Rows - 1`` blocks)."""
    s0, s1 = g.shape[0], g.shape[1]
    st = g.stride
    c0 = tile.dtype.c0
    out = []
    for i in range(s0):
        base = g.offset + i * st[0] + (k // 16) * st[2] + (k % 16) * st[3]
        starts = base + np.arange(s1, dtype=np.int64) * st[1]
        out.append((i, starts, i * s1 * tile.rows * c0 + r * c0))
    return out


def nz_dma_ub_region(tile, ub_first: int, n_burst: int) -> Region:
    """Bounding UB bytes of an NZ row DMA: bursts of C0 elements every Rows*C0 elements."""
    c0 = tile.dtype.c0
    return elem_region(tile, ub_first, (n_burst - 1) * tile.rows * c0 + c0)


# -- UB destination -------------------------------------------------------------------------
def _row_nd_body(instr: MGather, ctx, k, ok) -> list[Step]:
    t = ctx.config.timing
    s = t.scalar
    d, g, x = instr.dst, instr.table, instr.idx
    vr, vc = d.valid
    sz = d.dtype.size_bytes
    head = s.loop_cycles + s.ub_load_cycles + remap_cycles(ctx, instr.oob)
    steps: list[Step] = []
    for r in range(vr):
        kr = int(k[r])
        idx_reg = elem_region(x, r, 1)
        if not ok[r]:  # GatherOOB::Zero: scalar zero stores instead of the DMA
            steps.append(
                scalar_step(
                    head + vc * (s.loop_cycles + s.ub_store_cycles),
                    f"row {r} zero (OOB)",
                    reads=(idx_reg,),
                    writes=(elem_region(d, r * d.cols, vc),),
                    bytes_=vc * sz,
                    args={"row": r, "index": kr, "oob": True, "elements": vc, "ub_stores": vc},
                )
            )
            continue
        steps.append(
            scalar_step(
                head + ROW_ADDR_OPS * s.op_cycles,
                f"row {r} index",
                reads=(idx_reg,),
                args={"row": r, "index": kr, "elements": 1},
            )
        )
        offs = g.offset + kr * g.stride[3] + np.arange(vc, dtype=np.int64)
        start = g.offset + kr * g.stride[3]
        steps.append(
            dma_step(
                MTE2,
                t.mte2,
                f"row {r} copy_gm_to_ubuf",
                1,
                vc * sz,
                gm_region(g, offs),
                elem_region(d, r * d.cols, vc),
                to_ub=True,
                gm_starts_bytes=gm_addresses(g, [start]),
                args={"row": r, "index": kr},
            )
        )
    return steps


def _row_nz_body(instr: MGather, ctx, k, ok) -> list[Step]:
    t = ctx.config.timing
    s = t.scalar
    d, g, x = instr.dst, instr.table, instr.idx
    vr = d.valid_row
    sz = d.dtype.size_bytes
    c0 = d.dtype.c0
    s0, s1 = g.shape[0], g.shape[1]
    steps: list[Step] = []
    if instr.oob is GatherOOB.Zero:  # scalar zero fill of the whole tile (Rows*Cols)
        for i in range(d.rows):
            steps.append(
                scalar_step(
                    d.cols * (s.loop_cycles + s.ub_store_cycles),
                    f"zero fill {i}",
                    writes=(elem_region(d, i * d.cols, d.cols),),
                    bytes_=d.cols * sz,
                    args={"chunk": i, "elements": d.cols, "ub_stores": d.cols},
                )
            )
    head = s.loop_cycles + s.ub_load_cycles + remap_cycles(ctx, instr.oob)
    for r in range(vr):
        kr = int(k[r])
        idx_reg = elem_region(x, r, 1)
        if not ok[r]:
            steps.append(
                scalar_step(
                    head,
                    f"row {r} skip (OOB)",
                    reads=(idx_reg,),
                    args={"row": r, "index": kr, "oob": True, "elements": 1},
                )
            )
            continue
        addr = (NZ_ROW_SPLIT_OPS + ROW_ADDR_OPS * s0) * s.op_cycles + (s0 - 1) * s.loop_cycles
        steps.append(
            scalar_step(
                head + addr,
                f"row {r} index",
                reads=(idx_reg,),
                args={"row": r, "index": kr, "elements": 1, "dmas": s0},
            )
        )
        for i, starts, ub_first in nz_row_dmas(g, d, kr, r):
            offs = (starts[:, None] + np.arange(c0)).reshape(-1)
            steps.append(
                dma_step(
                    MTE2,
                    t.mte2,
                    f"row {r} copy_gm_to_ubuf {i}",
                    s1,
                    c0 * sz,
                    gm_region(g, offs),
                    nz_dma_ub_region(d, ub_first, s1),
                    to_ub=True,
                    gm_starts_bytes=gm_addresses(g, starts),
                    args={
                        "row": r,
                        "index": kr,
                        "i": i,
                        "ubGap": d.rows - 1,
                        "gmGap": (g.stride[1] - c0) * sz,
                    },
                )
            )
    return steps


def _elem_body(instr: MGather, ctx) -> list[Step]:
    t = ctx.config.timing
    s = t.scalar
    d, g, x = instr.dst, instr.table, instr.idx
    vr, vc = d.valid
    sz = d.dtype.size_bytes
    raw = read_indices(ctx, x, Coalesce.Elem, vr, vc)
    nz = g.layout is Layout.NZ
    if nz:
        nrows, ncols = nz_logical_shape(g)
        k, ok = plan_remap(ctx, raw, nrows * ncols, instr.oob)
        src = nz_offsets(g, k // max(ncols, 1), k % max(ncols, 1))
    else:
        k, ok = plan_remap(ctx, raw, elem_capacity(g), instr.oob)
        src = np.zeros(k.shape, dtype=np.int64)
        src[ok] = elem_offsets(g, k[ok])
    addr_ops = ELEM_NZ_ADDR_OPS if nz else ELEM_ADDR_OPS
    per_elem = (
        s.loop_cycles
        + s.ub_load_cycles
        + s.ub_store_cycles
        + remap_cycles(ctx, instr.oob)
        + addr_ops * s.op_cycles
    )
    cache = dcache(ctx)
    segs = elem_segments(vr, vc, d.dtype.c0, nz)
    steps: list[Step] = []
    for b, r, c_lo, c_hi in segs:
        n = c_hi - c_lo
        sel = ok[r, c_lo:c_hi]
        offs = src[r, c_lo:c_hi][sel]
        load, misses = cache.load_cycles(gm_addresses(g, offs))
        first = int(d.offsets(r, c_lo))
        reads = [elem_region(x, int(x.offsets(r, c_lo)), n)]
        if offs.size:
            reads.append(gm_region(g, offs))
        label = f"row {r}" if b is None else f"block {b} row {r}"
        args = {
            "row": r,
            "elements": n,
            "ub_loads": n,
            "gm_loads": int(offs.size),
            "gm_misses": misses,
            "ub_stores": n,
            "oob_zero": int(n - offs.size),
        }
        if b is not None:
            args["block"] = b
        steps.append(
            scalar_step(
                n * per_elem + load,
                f"{label} gather",
                reads=reads,
                writes=(elem_region(d, first, n),),
                bytes_=int(offs.size) * sz,
                args=args,
            )
        )
    return steps


def elem_segments(vr: int, vc: int, c0: int, nz: bool) -> list[tuple]:
    """The (block, row, col_lo, col_hi) pieces of an Elem scalar walk: ND row by row; NZ block
    column (C0 wide) -> row -> column inside the block, as the reference kernels walk."""
    if nz:
        return [(b, r, b * c0, min(vc, (b + 1) * c0)) for b in range(-(-vc // c0))
                for r in range(vr)]  # fmt: skip
    return [(None, r, 0, vc) for r in range(vr)]


def plan_mgather(instr: MGather, ctx) -> list:
    """MGATHER with a UB destination (Row ND / Row NZ / Elem ND / Elem NZ).

    The scalar unit reads the index tile after the prologue waits, so the data-dependent body
    is a Deferred part built when the scalar pipe gets there.
    """
    chain = ROW_GATHER_CHAIN if instr.is_row else ELEM_GATHER_CHAIN

    def body(ctx) -> list[Step]:
        if instr.is_row:
            d, g = instr.dst, instr.table
            raw = read_indices(ctx, instr.idx, Coalesce.Row, d.valid_row, 1)
            k, ok = plan_remap(ctx, raw, row_capacity(ctx.spec.indexed, g), instr.oob)
            steps = (_row_nz_body if g.layout is Layout.NZ else _row_nd_body)(instr, ctx, k, ok)
        else:
            steps = _elem_body(instr, ctx)
        return steps + flags(ctx, chain["epilogue"], "epilogue")

    return flags(ctx, chain["prologue"], "prologue") + [Deferred(body, "index loop")]


# -- GM -> L1 --------------------------------------------------------------------------------
def _gm_take(gref, offs) -> np.ndarray:
    """Index values at GM element offsets (clipped into the buffer: the plan may see offsets
    that execution rejects)."""
    store = gref.storage()
    offs = np.clip(np.asarray(offs, dtype=np.int64), 0, max(store.size - 1, 0))
    if store.size == 0:
        return np.zeros(offs.shape, dtype=np.int64)
    return store[offs].astype(np.int64) & 0xFFFFFFFF


def _l1_row(instr: MGatherL1, ctx) -> list[Step]:
    t = ctx.config.timing
    s = t.scalar
    d, g, x = instr.dst, instr.table, instr.idx
    vr, vc = d.valid
    sz = d.dtype.size_bytes
    l1 = tile_region(d)
    steps: list[Step] = []
    if instr.oob is GatherOOB.Zero:  # pto_create_cbuf_matrix: zero the whole L1 tile
        nbytes = d.numel * sz
        steps.append(
            Step(
                MTE2,
                StepKind.DMA,
                dma_cycles(t.mte2, 1, nbytes),
                "create_cbuf_matrix zero",
                bytes=nbytes,
                writes=(l1,),
                args={
                    "bytes": nbytes,
                    "repeat": (d.rows << 16) | (d.cols // d.dtype.c0),
                    "l1": str(l1),
                },
            )
        )
    ioffs = x.flat_offsets(np.arange(vr))
    cap = int(np.prod(g.shape[:4], dtype=np.int64))
    k, ok = plan_remap(ctx, _gm_take(x, ioffs), cap, instr.oob)
    cache = dcache(ctx)
    head = s.loop_cycles + remap_cycles(ctx, instr.oob)
    c0 = d.dtype.c0
    for r in range(vr):
        kr = int(k[r])
        load, misses = cache.load_cycles(gm_addresses(x, ioffs[r : r + 1]))
        idx_reg = gm_region(x, ioffs[r : r + 1])
        if not ok[r]:
            steps.append(
                scalar_step(
                    head + load,
                    f"row {r} skip (OOB)",
                    reads=(idx_reg,),
                    args={"row": r, "index": kr, "oob": True, "gm_loads": 1, "gm_misses": misses},
                )
            )
            continue
        steps.append(
            scalar_step(
                head + load + ROW_ADDR_OPS * s.op_cycles,
                f"row {r} index",
                reads=(idx_reg,),
                args={"row": r, "index": kr, "gm_loads": 1, "gm_misses": misses},
            )
        )
        start = g.offset + kr * g.stride[3]
        offs = start + np.arange(vc, dtype=np.int64)
        steps.append(
            dma_step(
                MTE2,
                t.mte2,
                f"row {r} copy_gm_to_cbuf_multi_nd2nz",
                1,
                vc * sz,
                gm_region(g, offs),
                nz_dma_ub_region(d, r * c0, -(-vc // c0)),
                to_ub=True,
                gm_starts_bytes=gm_addresses(g, [start]),
                args={
                    "row": r,
                    "index": kr,
                    "nd2nz": True,
                    "dValue": vc,
                    "srcDValue": g.stride[3],
                    "dstNzC0Stride": d.rows,
                },
            )
        )
    return steps + flags(ctx, ((S, MTE2),), "epilogue")


def _l1_elem(instr: MGatherL1, ctx) -> list[Step]:
    t = ctx.config.timing
    s = t.scalar
    d, g, x, sc = instr.dst, instr.table, instr.idx, instr.scratch
    vr, vc = d.valid
    sz = d.dtype.size_bytes
    c0 = d.dtype.c0
    steps: list[Step] = []
    for i in range(d.rows):  # zero fill scratch[0 : Rows*Cols)
        offs = sc.offset + i * d.cols + np.arange(d.cols, dtype=np.int64)
        steps.append(
            scalar_step(
                d.cols * (s.loop_cycles + s.gm_store_cycles),
                f"scratch zero fill {i}",
                writes=(gm_region(sc, offs),),
                bytes_=d.cols * sz,
                args={"chunk": i, "elements": d.cols, "gm_stores": d.cols},
            )
        )
    r_grid, c_grid = np.meshgrid(np.arange(vr), np.arange(vc), indexing="ij")
    ioffs = x.offsets(r_grid, c_grid)
    k, ok = plan_remap(ctx, _gm_take(x, ioffs), elem_capacity(g), instr.oob)
    src = np.zeros(k.shape, dtype=np.int64)
    if ok.any():
        src[ok] = elem_offsets(g, k[ok])
    dst_offs = sc.offset + (c_grid // c0) * d.rows * c0 + r_grid * c0 + c_grid % c0
    cache = dcache(ctx)
    per_elem = (
        s.loop_cycles
        + remap_cycles(ctx, instr.oob)
        + s.gm_store_cycles
        + (ELEM_ADDR_OPS + L1_SCRATCH_ADDR_OPS) * s.op_cycles
    )
    for r in range(vr):
        sel = ok[r]
        hits = int(sel.sum())
        # per element: the index GM load, then the table GM load (when in range), in order
        addrs = np.stack([gm_addresses(x, ioffs[r]), gm_addresses(g, src[r])], axis=1)
        seq = addrs.reshape(-1)
        keep = np.stack([np.ones(vc, dtype=bool), sel], axis=1).reshape(-1)
        load, misses = cache.load_cycles(seq[keep])
        reads = [gm_region(x, ioffs[r])]
        if sel.any():
            reads.append(gm_region(g, src[r][sel]))
        steps.append(
            scalar_step(
                vc * per_elem + load,
                f"row {r} gather to scratch",
                reads=reads,
                writes=(gm_region(sc, dst_offs[r]),),
                bytes_=vc * sz,
                args={
                    "row": r,
                    "elements": vc,
                    "gm_loads": vc + hits,
                    "gm_misses": misses,
                    "gm_stores": vc,
                    "oob_zero": vc - hits,
                },
            )
        )
    nbytes = d.numel * sz
    lines = -(-nbytes // s.dcache_line_bytes)
    scr = gm_region(sc, sc.offset + np.arange(d.numel, dtype=np.int64))
    steps.append(
        scalar_step(
            lines * (s.loop_cycles + s.op_cycles) + s.barrier_cycles,
            "dcci + dsb(DDR)",
            writes=(scr,),
            args={"lines": lines, "line_bytes": s.dcache_line_bytes},
        )
    )
    steps += flags(ctx, ((S, MTE2),), "epilogue")
    steps.append(
        dma_step(
            MTE2,
            t.mte2,
            "copy_gm_to_cbuf",
            1,
            nbytes,
            scr,
            tile_region(d),
            to_ub=True,
            gm_starts_bytes=gm_addresses(sc, [sc.offset]),
            args={"bytes": nbytes},
        )
    )
    return steps


def plan_mgather_l1(instr: MGatherL1, ctx) -> list[Step]:
    """MGATHER GM -> L1 (Mat NZ destination, GM index)."""
    return _l1_row(instr, ctx) if instr.is_row else _l1_elem(instr, ctx)


PLANS = {MGather: plan_mgather, MGatherL1: plan_mgather_l1}
