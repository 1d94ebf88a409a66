"""950 (a5) plans of MGATHER and MSCATTER (semantics.md 3.1.4 and 3.2.4, DESIGN.md section 5).

Every UB MGATHER / MSCATTER except the static (1, 1) Elem case is one SIMT launch dim3{32, W}
on the vector core: one ``Step(PIPE_V, SIMT)`` whose ``resolve`` runs when PIPE_V starts it
(after the caller's MTE2 -> V wait). It reads the index tile then, builds the warp programs of
the reference kernel's per-lane mapping with numpy (one ``WarpOp`` per warp instruction, lanes =
the active lanes, addresses = real UB / GM byte addresses) and runs the engine's warp-scheduler
model (``ctx.simulate_launch``); the warp issues become the trace events of the ``SIMT_SCHED*``
threads. Registers per thread: 127 / 64 / 32 / 16 for up to 256 / 512 / 1024 /
2048 threads (timing.md 4).

Warp programs (an index past the capacity under Undefined is planned clamped, as on a2a3;
execution raises the real error):

* MGATHER Row (``simt_mgather_row_kernel``, W = rowWarps * warpsPerRow): per warp, per row of
  its grid-stride row loop: ``ld_ub`` idx[row] (all 32 lanes, one address), ``alu`` (remap),
  then per column chunk of its column segment: ``ld_gm`` table[k*C + col] (coalesced) and
  ``st_ub`` dst (a GatherOOB::Zero row out of range only stores the zeros).
* MGATHER Elem (``simt_mgather_elem_kernel``, flat grid-stride): per iteration ``ld_ub`` idx
  (per-lane tile offsets), ``alu``, ``ld_gm`` table[k'] (Zero lanes out of range inactive),
  ``st_ub`` dst.
* MSCATTER Row / Elem, not Last: Row per row ``ld_ub`` idx + ``alu``, then per column chunk
  ``ld_ub`` src + ``st_gm`` (or ``atom_gm`` for Add/Max/Min); Elem per iteration ``ld_ub`` src,
  ``ld_ub`` idx, ``alu``, ``st_gm`` / ``atom_gm``. A skipped row / lane stores nothing. Store
  tags = the flat source index r*C + c.
* MSCATTER Conflict::Last (Atomic None): slot-centric kernels, W from tableRows (Row) or
  tableSize (Elem); lanes own slots s = tid, tid + 1024, ...; per slot iteration ONE ``loop``
  op for the reverse scan, then for the lanes that found a winner the copies: Row C x (``ld_ub``
  src, ``st_gm``), Elem one ``ld_ub`` + ``st_gm``. Untouched slots store nothing. A run of
  consecutive iterations of a warp in which no lane wins is one ``loop`` op (their issue slots
  summed), so building and simulating the launch costs the scattered units plus the warps, not
  the table size; the scheduler time is unchanged, only the placement of the copies relative to
  other warps' scans may shift (by at most a copy's latency tail). The scan costs
  (max over active lanes of the scan length until the first match, R*C / R when none) x
  ``simt.scan_iteration_cycles`` issue slots: one iteration = an idx UB load, a remap and a
  compare, each counted as one dependent ALU-latency instruction (estimate: no public figure).
* ScatterConflict::Default (Atomic None): the landing order of the tagged stores
  (``LaunchResult.store_tags``) is handed to the instruction (``MScatter.simt_store_order``),
  whose execution then keeps, per destination, the store that lands last (D6).

Scalar fallback (static Elem (1, 1), ``MGatherScalarImpl`` / ``MScatterScalarImpl``): ``V->S``,
one scalar step (index UB load, remap, address arithmetic, then the GM load through the data
cache + UB store, or the source UB load + GM store; an atomic op adds the GM load and the
operation), ``S->V``.

GM -> L1 (``MGatherL1``): Row and Elem Scalar are the A2/A3 plans (targets/a2a3/gather.py),
Row preceded by the one ``set_mte2_nz_para`` control op. GatherExec::Simt Elem: one SIMT launch
over the whole padded NZ tile (``total = Rows*Cols``; per iteration ``ld_gm`` idx of the lanes
inside the valid region, ``alu``, ``ld_gm`` table, ``st_gm`` scratch[off]); ``V->S``; the
``dcci`` loop over the scratch lines and ``dsb``; ``S->MTE2`` (the intra-block hand-over to the
cube side); one MTE2 ``copy_gm_to_cbuf`` of ``Rows*Cols*sizeof(T)`` bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ptosim.enums import Coalesce, GatherExec, Pipe, ScatterAtomicOp, ScatterConflict
from ptosim.isa.gather import MGather, MGatherL1
from ptosim.isa.indexing import elem_capacity, elem_offsets, read_indices, row_capacity
from ptosim.isa.scatter import MScatter
from ptosim.plan import Deferred, Region, SimtLaunch, Step, StepKind, WarpOp

from ..a2a3.gather import (
    ELEM_ADDR_OPS,
    _gm_take,
    dcache,
    elem_region,
    flags,
    gm_addresses,
    plan_remap,
    remap_cycles,
)
from ..a2a3.gather import plan_mgather_l1 as a2a3_plan_mgather_l1
from ..a2a3.scatter import ADD_OPS
from ..costs import ceil_div, dma_step, gm_region, scalar_step, tile_region

S, V, MTE2 = Pipe.PIPE_S, Pipe.PIPE_V, Pipe.PIPE_MTE2
NONE = ScatterAtomicOp.None_
WARP_SIZE = 32
MAX_WARPS = 32
MAX_THREADS = 1024  # the slot stride of the Conflict::Last kernels
REGISTERS = ((256, 127), (512, 64), (1024, 32), (2048, 16))  # threads -> registers per thread


def registers_per_thread(threads: int) -> int:
    """Registers per thread of a launch of ``threads`` threads (timing.md 4)."""
    for limit, regs in REGISTERS:
        if threads <= limit:
            return regs
    return REGISTERS[-1][1]


# -- launch shapes (semantics.md 3.1.4 / 3.2.4) ----------------------------------------------
def row_launch_shape(rows: int, cols: int) -> tuple[int, int]:
    """(rowWarps, warpsPerRow) of the Row kernels."""
    row_warps = 1 if rows == 0 else min(rows, MAX_WARPS)
    per_row = max(1, min(MAX_WARPS // row_warps, ceil_div(cols, WARP_SIZE)))
    return row_warps, per_row


def flat_warps(total: int) -> int:
    """W of the flat grid-stride kernels (Elem) and of the slot-centric Last kernels."""
    return 1 if total == 0 else min(ceil_div(total, WARP_SIZE), MAX_WARPS)


def _row_chunks(cols: int, col_seg: int, per_row: int) -> list[np.ndarray]:
    """Columns of each column-loop iteration of the lanes of column segment ``col_seg``."""
    out = []
    start = col_seg * WARP_SIZE
    while start < cols:
        out.append(np.arange(start, min(start + WARP_SIZE, cols), dtype=np.int64))
        start += per_row * WARP_SIZE
    return out


def _flat_slices(total: int, warps: int, stride: int):
    """(warp id, slice of flat ids) of each grid-stride iteration: ids tid, tid + stride, ..."""
    for ty in range(warps):
        for base in range(ty * WARP_SIZE, total, stride):
            yield ty, slice(base, min(base + WARP_SIZE, total))


# -- warp instructions ------------------------------------------------------------------------
def _mem(
    kind: str, addrs, size: int, label: str, tags=None, *, async_load=False, uses_load=False
) -> WarpOp:
    a = np.asarray(addrs, dtype=np.int64)
    return WarpOp(
        kind,
        int(a.size),
        a,
        size,
        label=label,
        tags=tags,
        async_load=async_load,
        uses_load=uses_load,
    )


def _alu(cfg, lanes: int, label: str) -> WarpOp:
    return WarpOp("alu", int(lanes), cycles=cfg.alu_cycles, label=label)


def _ub(ref, offsets) -> np.ndarray:
    """UB byte addresses of storage offsets of a tile."""
    return ref.address + np.asarray(offsets, dtype=np.int64) * ref.dtype.size_bytes


def _gm(gref, offsets) -> np.ndarray:
    """GM byte addresses of buffer element offsets of a GlobalTensor operand."""
    return gref.byte_address(np.asarray(offsets, dtype=np.int64))


def _gm_read_region(gref, chunks) -> tuple[Region, ...]:
    offs = [np.asarray(c, dtype=np.int64).reshape(-1) for c in chunks]
    offs = np.concatenate(offs) if offs else np.zeros(0, dtype=np.int64)
    return (gm_region(gref, offs),) if offs.size else ()


@dataclass
class Built:
    """A launch built from the memory at resolve time, with what the step reports."""

    launch: SimtLaunch
    bytes: int  # GM payload bytes (active lanes x element size)
    reads: tuple
    writes: tuple
    args: dict
    done: Callable[[object], None] | None = None  # receives the LaunchResult


def simt_step(label: str, build: Callable, reads=(), writes=(), atomic=None) -> Step:
    """The SIMT launch on PIPE_V; ``build(ctx) -> Built`` runs when PIPE_V starts it.
    ``atomic``: the op of its atomic GM updates (Step.atomic), None for plain stores."""

    def resolve(ctx) -> Step:
        b = build(ctx)
        res = ctx.simulate_launch(b.launch, ctx.config.timing.simt)
        if b.done is not None:
            b.done(res)
        w = b.launch.warp_count
        args = {
            "warps": w,
            "threads": WARP_SIZE * w,
            "registers_per_thread": b.launch.registers_per_thread,
            "sectors": res.sectors,
            "gm_sector_bytes": res.gm_bytes,
            **b.args,
        }
        return Step(
            V,
            StepKind.SIMT,
            res.cycles,
            label,
            bytes=b.bytes,
            reads=b.reads,
            writes=b.writes,
            args=args,
            sub=tuple(res.events),
            atomic=atomic,
        )

    return Step(
        V, StepKind.SIMT, 0, label, reads=tuple(reads), writes=tuple(writes), resolve=resolve,
        atomic=atomic,
    )  # fmt: skip


def _launch(warps: list[list[WarpOp]], label: str) -> SimtLaunch:
    return SimtLaunch(warps, label, registers_per_thread(WARP_SIZE * len(warps)))


# -- MGATHER, UB destination ------------------------------------------------------------------
def _gather_row(instr: MGather, ctx) -> Built:
    cfg = ctx.config.timing.simt
    d, g, x = instr.dst, instr.table, instr.idx
    R, C = d.valid
    sz, isz = d.dtype.size_bytes, x.dtype.size_bytes
    raw = read_indices(ctx, x, Coalesce.Row, R, 1)
    k, ok = plan_remap(ctx, raw, row_capacity(ctx.spec.indexed, g), instr.oob)
    k = np.asarray(k, dtype=np.int64)
    row_warps, per_row = row_launch_shape(R, C)
    warps: list[list[WarpOp]] = [[] for _ in range(row_warps * per_row)]
    gm_offs = []
    for ty, prog in enumerate(warps):
        chunks = _row_chunks(C, ty // row_warps, per_row)
        rows = np.arange(ty % row_warps, R, row_warps, dtype=np.int64)
        if not rows.size:
            continue
        # the addresses of all rows x chunk columns of this warp at once (one numpy pass)
        cols = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
        bounds = np.cumsum([0] + [c.size for c in chunks])
        dst_ub = _ub(d, d.offsets(rows[:, None], cols[None, :]))
        offs = g.offset + k[rows][:, None] * C + cols[None, :]
        table_gm = _gm(g, offs)
        for n, row in enumerate(rows.tolist()):
            kr, hit = int(k[row]), bool(ok[row])
            idx_ub = np.full(WARP_SIZE, x.address + row * isz, dtype=np.int64)
            prog.append(WarpOp("ld_ub", WARP_SIZE, idx_ub, isz, label="ld idx"))
            prog.append(_alu(cfg, WARP_SIZE, "remap"))
            if hit:
                gm_offs.append(offs[n])
            for j in range(len(chunks)):
                lo, hi = bounds[j], bounds[j + 1]
                if hit:
                    prog.append(
                        WarpOp(
                            "ld_gm",
                            int(hi - lo),
                            table_gm[n, lo:hi],
                            sz,
                            label=f"ld table row {kr}",
                            async_load=True,
                        )
                    )
                prog.append(
                    WarpOp(
                        "st_ub",
                        int(hi - lo),
                        dst_ub[n, lo:hi],
                        sz,
                        label=f"st dst row {row}",
                        uses_load=hit,
                    )
                )
    n = sum(o.size for o in gm_offs)
    return Built(
        _launch(warps, "simt_mgather_row_kernel"),
        n * sz,
        (elem_region(x, 0, R),) + _gm_read_region(g, gm_offs),
        (tile_region(d),),
        {"kernel": "simt_mgather_row_kernel", "rowWarps": row_warps, "warpsPerRow": per_row},
    )


def _gather_elem(instr: MGather, ctx) -> Built:
    cfg = ctx.config.timing.simt
    d, g, x = instr.dst, instr.table, instr.idx
    R, C = d.valid
    total = R * C
    sz, isz = d.dtype.size_bytes, x.dtype.size_bytes
    raw = read_indices(ctx, x, Coalesce.Elem, R, C).reshape(-1)
    k, ok = plan_remap(ctx, raw, elem_capacity(g), instr.oob)
    i = np.arange(total, dtype=np.int64)
    r, c = (i, i * 0) if C == 1 else (i // max(C, 1), i % max(C, 1))
    idx_ub, dst_ub = _ub(x, x.offsets(r, c)), _ub(d, d.offsets(r, c))
    src = np.zeros(total, dtype=np.int64)
    if ok.any():
        src[ok] = elem_offsets(g, k[ok])
    table_gm = _gm(g, src)
    w = flat_warps(total)
    warps: list[list[WarpOp]] = [[] for _ in range(w)]
    for ty, sl in _flat_slices(total, w, WARP_SIZE * w):
        prog = warps[ty]
        prog.append(_mem("ld_ub", idx_ub[sl], isz, "ld idx"))
        prog.append(_alu(cfg, sl.stop - sl.start, "remap"))
        m = ok[sl]
        if m.any():
            prog.append(_mem("ld_gm", table_gm[sl][m], sz, "ld table", async_load=True))
        prog.append(_mem("st_ub", dst_ub[sl], sz, "st dst", uses_load=bool(m.any())))
    n = int(ok.sum())
    return Built(
        _launch(warps, "simt_mgather_elem_kernel"),
        n * sz,
        (tile_region(x),) + _gm_read_region(g, [src[ok]]),
        (tile_region(d),),
        {"kernel": "simt_mgather_elem_kernel"},
    )


def _gather_scalar(instr: MGather, ctx) -> list:
    """MGatherScalarImpl (static Elem (1, 1)): V->S, one scalar step, S->V."""
    d, g, x = instr.dst, instr.table, instr.idx

    def body(ctx) -> list:
        s = ctx.config.timing.scalar
        raw = read_indices(ctx, x, Coalesce.Elem, 1, 1).reshape(-1)
        k, ok = plan_remap(ctx, raw, elem_capacity(g), instr.oob)
        cycles = (
            s.ub_load_cycles
            + remap_cycles(ctx, instr.oob)
            + ELEM_ADDR_OPS * s.op_cycles
            + s.ub_store_cycles
        )
        reads = [elem_region(x, int(x.offsets(0, 0)), 1)]
        misses = loads = 0
        if ok[0]:
            off = elem_offsets(g, k[:1])
            load, misses = dcache(ctx).load_cycles(gm_addresses(g, off))
            cycles += load
            loads = 1
            reads.append(gm_region(g, off))
        step = scalar_step(
            cycles,
            "scalar gather",
            reads=reads,
            writes=(elem_region(d, int(d.offsets(0, 0)), 1),),
            bytes_=loads * d.dtype.size_bytes,
            args={"index": int(k[0]), "gm_loads": loads, "gm_misses": misses, "ub_stores": 1},
        )
        return [step] + flags(ctx, ((S, V),), "epilogue")

    return flags(ctx, ((V, S),), "prologue") + [Deferred(body, "scalar fallback")]


def plan_mgather(instr: MGather, ctx) -> list:
    """MGATHER with a UB destination on a 950 vector core."""
    if not instr.is_simt(ctx.arch):
        return _gather_scalar(instr, ctx)
    build = _gather_row if instr.is_row else _gather_elem
    d, x = instr.dst, instr.idx
    return [
        simt_step(
            "MGATHER row SIMT" if instr.is_row else "MGATHER elem SIMT",
            lambda c: build(instr, c),
            reads=(tile_region(x),),
            writes=(tile_region(d),),
        )
    ]


# -- MGATHER, GM -> L1 ------------------------------------------------------------------------
def _l1_simt_build(instr: MGatherL1, ctx) -> Built:
    cfg = ctx.config.timing.simt
    d, g, x, sc = instr.dst, instr.table, instr.idx, instr.scratch
    R, C = d.valid
    c0, rows = d.dtype.c0, d.rows
    sz, isz = d.dtype.size_bytes, x.dtype.size_bytes
    total = d.numel
    off = np.arange(total, dtype=np.int64)
    r = (off % (rows * c0)) // c0
    c = (off // (rows * c0)) * c0 + off % c0
    valid = (r < R) & (c < C)
    ioffs = np.zeros(total, dtype=np.int64)
    ioffs[valid] = x.offsets(r[valid], c[valid])
    k, ok = plan_remap(ctx, _gm_take(x, ioffs), elem_capacity(g), instr.oob)
    ok &= valid
    src = np.zeros(total, dtype=np.int64)
    if ok.any():
        src[ok] = elem_offsets(g, k[ok])
    idx_gm, table_gm = _gm(x, ioffs), _gm(g, src)
    scratch_gm = _gm(sc, sc.offset + off)
    w = flat_warps(total)
    warps: list[list[WarpOp]] = [[] for _ in range(w)]
    for ty, sl in _flat_slices(total, w, WARP_SIZE * w):
        prog = warps[ty]
        v = valid[sl]
        if v.any():
            prog.append(_mem("ld_gm", idx_gm[sl][v], isz, "ld idx"))
        prog.append(_alu(cfg, sl.stop - sl.start, "remap"))
        m = ok[sl]
        if m.any():
            prog.append(_mem("ld_gm", table_gm[sl][m], sz, "ld table", async_load=True))
        prog.append(_mem("st_gm", scratch_gm[sl], sz, "st scratch", uses_load=bool(m.any())))
    n_loads = int(valid.sum()) * isz + int(ok.sum()) * sz
    return Built(
        _launch(warps, "MGATHER GM->L1 SIMT staging"),
        n_loads + total * sz,
        _gm_read_region(x, [ioffs[valid]]) + _gm_read_region(g, [src[ok]]),
        (gm_region(sc, sc.offset + off),),
        {"kernel": "simt_mgather_gm2l1_elem", "total": total},
    )


def plan_mgather_l1(instr: MGatherL1, ctx) -> list:
    """MGATHER GM -> L1 on a5: the A2/A3 Row / Elem Scalar plans, or the SIMT staging."""
    s = ctx.config.timing.scalar
    if instr.is_row:
        nz_para = scalar_step(
            s.op_cycles, "set_mte2_nz_para", data=False, args={"intrinsic": "set_mte2_nz_para"}
        )
        return [nz_para] + a2a3_plan_mgather_l1(instr, ctx)
    if instr.gather_exec is not GatherExec.Simt:
        return a2a3_plan_mgather_l1(instr, ctx)
    d, sc = instr.dst, instr.scratch
    nbytes = d.numel * d.dtype.size_bytes
    scratch = gm_region(sc, sc.offset + np.arange(d.numel, dtype=np.int64))
    lines = ceil_div(nbytes, s.dcache_line_bytes)
    steps = [simt_step("MGATHER GM->L1 SIMT", lambda c: _l1_simt_build(instr, c))]
    steps += flags(ctx, ((V, S),), "epilogue")
    steps.append(
        scalar_step(
            lines * (s.loop_cycles + s.op_cycles) + s.barrier_cycles,
            "dcci + dsb(DDR)",
            writes=(scratch,),
            args={"lines": lines, "line_bytes": s.dcache_line_bytes},
        )
    )
    steps += flags(ctx, ((S, MTE2),), "epilogue")  # set_intra_block / wait_intra_block
    steps.append(
        dma_step(
            MTE2,
            ctx.config.timing.mte2,
            "copy_gm_to_cbuf_align_v2",
            1,
            nbytes,
            scratch,
            tile_region(d),
            to_ub=True,
            gm_starts_bytes=gm_addresses(sc, [sc.offset]),
            args={"bytes": nbytes},
        )
    )
    return steps


# -- MSCATTER ---------------------------------------------------------------------------------
def _store_kind(instr: MScatter) -> str:
    return "st_gm" if instr.atomic is NONE else "atom_gm"


def _tracks_order(instr: MScatter, ctx) -> bool:
    """Conflict::Default with plain stores: the schedule decides the winner (D6)."""
    return instr.atomic is NONE and instr.effective_conflict(ctx.arch) is ScatterConflict.Default


def _order_sink(instr: MScatter, ctx):
    if not _tracks_order(instr, ctx):
        return None

    def done(res) -> None:
        instr.simt_store_order = res.store_tags

    return done


def _scatter_row(instr: MScatter, ctx) -> Built:
    cfg = ctx.config.timing.simt
    s, g, x = instr.src, instr.table, instr.idx
    R, C = s.valid
    sz, isz = s.dtype.size_bytes, x.dtype.size_bytes
    raw = read_indices(ctx, x, Coalesce.Row, R, 0)
    k, ok = plan_remap(ctx, raw, row_capacity(ctx.spec.indexed, g), instr.oob)
    kind = _store_kind(instr)
    tagged = kind == "st_gm"
    row_warps, per_row = row_launch_shape(R, C)
    warps: list[list[WarpOp]] = [[] for _ in range(row_warps * per_row)]
    gm_offs = []
    for ty, prog in enumerate(warps):
        chunks = _row_chunks(C, ty // row_warps, per_row)
        for row in range(ty % row_warps, R, row_warps):
            prog.append(_mem("ld_ub", np.full(WARP_SIZE, x.address + row * isz), isz, "ld idx"))
            prog.append(_alu(cfg, WARP_SIZE, "remap"))
            if not ok[row]:  # ScatterOOB::Skip: the whole row (warp-uniform branch)
                continue
            kr = int(k[row])
            for cols in chunks:
                prog.append(_mem("ld_ub", _ub(s, s.offsets(row, cols)), sz, f"ld src row {row}"))
                offs = g.offset + kr * C + cols
                gm_offs.append(offs)
                tags = row * C + cols if tagged else None
                prog.append(_mem(kind, _gm(g, offs), sz, f"{kind} table row {kr}", tags))
    n = sum(o.size for o in gm_offs)
    writes = _gm_read_region(g, gm_offs)
    return Built(
        _launch(warps, "simt_mscatter_row_kernel"),
        n * sz,
        (elem_region(x, 0, R), tile_region(s)) + (writes if kind == "atom_gm" else ()),
        writes,
        {"kernel": "simt_mscatter_row_kernel", "rowWarps": row_warps, "warpsPerRow": per_row},
        _order_sink(instr, ctx),
    )


def _scatter_elem(instr: MScatter, ctx) -> Built:
    cfg = ctx.config.timing.simt
    s, g, x = instr.src, instr.table, instr.idx
    R, C = s.valid
    total = R * C
    sz, isz = s.dtype.size_bytes, x.dtype.size_bytes
    raw = read_indices(ctx, x, Coalesce.Elem, R, C).reshape(-1)
    k, ok = plan_remap(ctx, raw, elem_capacity(g), instr.oob)
    i = np.arange(total, dtype=np.int64)
    r, c = (i, i * 0) if C == 1 else (i // max(C, 1), i % max(C, 1))
    src_ub, idx_ub = _ub(s, s.offsets(r, c)), _ub(x, x.offsets(r, c))
    dst = np.zeros(total, dtype=np.int64)
    if ok.any():
        dst[ok] = elem_offsets(g, k[ok])
    table_gm = _gm(g, dst)
    kind = _store_kind(instr)
    w = flat_warps(total)
    warps: list[list[WarpOp]] = [[] for _ in range(w)]
    for ty, sl in _flat_slices(total, w, WARP_SIZE * w):
        prog = warps[ty]
        lanes = sl.stop - sl.start
        prog.append(_mem("ld_ub", src_ub[sl], sz, "ld src"))
        prog.append(_mem("ld_ub", idx_ub[sl], isz, "ld idx"))
        prog.append(_alu(cfg, lanes, "remap"))
        m = ok[sl]
        if m.any():
            tags = i[sl][m] if kind == "st_gm" else None
            prog.append(_mem(kind, table_gm[sl][m], sz, kind, tags))
    writes = _gm_read_region(g, [dst[ok]])
    return Built(
        _launch(warps, "simt_mscatter_elem_kernel"),
        int(ok.sum()) * sz,
        (tile_region(x), tile_region(s)) + (writes if kind == "atom_gm" else ()),
        writes,
        {"kernel": "simt_mscatter_elem_kernel"},
        _order_sink(instr, ctx),
    )


def _last_winners(k, ok, units: int) -> tuple[np.ndarray, np.ndarray]:
    """(written slots ascending, the largest source unit -- row or flat index -- landing on
    each). Work proportional to the scattered units, not to the table."""
    live = np.flatnonzero(ok)
    if live.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    slot = np.asarray(k, dtype=np.int64)[live]
    order = np.lexsort((live, slot))  # by slot, then by unit
    slot, unit = slot[order], live[order]
    last = np.ones(slot.size, dtype=bool)
    last[:-1] = slot[1:] != slot[:-1]
    return slot[last], unit[last]


# Merge the reverse scans of consecutive slot iterations of a warp in which no lane finds a
# winner into one ``loop`` op (their issue slots add up). The per-slot lowering has one op per
# iteration, O(tableSize / 32) ops; tests turn this off to compare with it.
MERGE_IDLE_SCANS = True


def _scatter_last(instr: MScatter, ctx) -> Built:
    """The slot-centric Conflict::Last kernels (Row and Elem).

    Lanes own slots ``s = tid + 1024*j`` (iteration j of warp ``ty`` covers slots
    ``j*1024 + ty*32 + lane``). An iteration's reverse scan lasts, in issue slots, the longest
    scan of its lanes: ``units`` (R or R*C) when a lane finds no winner, else ``units - winner``;
    then the lanes that won copy. Only the iterations holding a written slot are built one by
    one; the runs of idle iterations between them (a lane with no winner scans everything) are
    one ``loop`` op each, so the work is proportional to the scattered units plus the warps.
    """
    cfg = ctx.config.timing.simt
    s, g, x = instr.src, instr.table, instr.idx
    R, C = s.valid
    sz = s.dtype.size_bytes
    row = instr.coalesce is Coalesce.Row
    if row:
        slots = row_capacity(ctx.spec.indexed, g)
        raw = read_indices(ctx, x, Coalesce.Row, R, 0)
        units = R
    else:
        slots = elem_capacity(g)
        raw = read_indices(ctx, x, Coalesce.Elem, R, C).reshape(-1)
        units = R * C
    k, ok = plan_remap(ctx, raw, slots, instr.oob)
    won_slot, won_unit = _last_winners(k, ok, units)
    per_iter = cfg.scan_iteration_cycles
    idle_slots = max(units * per_iter, cfg.issue_cycles)  # issue slots of an idle iteration
    w = flat_warps(slots)
    warps: list[list[WarpOp]] = [[] for _ in range(w)]
    gm_offs = []
    # the iteration and warp of every written slot; a stable sort keeps slots ascending
    it_of, ty_of = won_slot // MAX_THREADS, (won_slot % MAX_THREADS) // WARP_SIZE
    by_warp = np.lexsort((it_of, ty_of))

    def idle(prog, ty: int, j0: int, j1: int) -> None:
        """Iterations [j0, j1) of warp ty, none of which finds a winner."""
        n = j1 - j0
        if n <= 0:
            return
        lanes = min(WARP_SIZE, slots - (j0 * MAX_THREADS + ty * WARP_SIZE))
        if not MERGE_IDLE_SCANS:
            for j in range(j0, j1):
                lanes = min(WARP_SIZE, slots - (j * MAX_THREADS + ty * WARP_SIZE))
                prog.append(WarpOp("loop", lanes, cycles=units * per_iter, label="reverse scan"))
            return
        label = "reverse scan" if n == 1 else f"reverse scan x{n} (idle)"
        prog.append(WarpOp("loop", lanes, cycles=n * idle_slots, label=label))

    groups = np.split(by_warp, np.flatnonzero(np.diff(ty_of[by_warp])) + 1) if by_warp.size else []
    busy = {int(ty_of[gr[0]]): gr for gr in groups}
    for ty in range(w):
        prog = warps[ty]
        first = ty * WARP_SIZE
        n_iter = 0 if first >= slots else -(-(slots - first) // MAX_THREADS)
        done = 0
        sel = busy.get(ty, np.zeros(0, dtype=np.int64))
        iters = it_of[sel]
        for part in np.split(sel, np.flatnonzero(np.diff(iters)) + 1) if sel.size else []:
            j = int(it_of[part[0]])
            idle(prog, ty, done, j)
            base = j * MAX_THREADS + first
            lanes = min(WARP_SIZE, slots - base)
            won, wu = won_slot[part], won_unit[part]
            scan = units if won.size < lanes else int((units - wu).max())
            prog.append(WarpOp("loop", lanes, cycles=scan * per_iter, label="reverse scan"))
            if row:  # each lane copies its winner's C columns, one column per instruction
                cols = np.arange(C, dtype=np.int64)
                src_ub = _ub(s, s.offsets(wu[:, None], cols[None, :])).T.copy()
                offs = (g.offset + won[:, None] * C + cols[None, :]).T.copy()
                table_gm = _gm(g, offs)
                gm_offs.append(offs)
                n = won.size
                for col in range(C):
                    prog.append(WarpOp("ld_ub", n, src_ub[col], sz, label="ld src"))
                    prog.append(WarpOp("st_gm", n, table_gm[col], sz, label="st table"))
            else:
                r, c = (wu, wu * 0) if C == 1 else (wu // C, wu % C)
                prog.append(_mem("ld_ub", _ub(s, s.offsets(r, c)), sz, "ld src"))
                offs = elem_offsets(g, won)
                gm_offs.append(offs)
                prog.append(_mem("st_gm", _gm(g, offs), sz, "st table"))
            done = j + 1
        idle(prog, ty, done, n_iter)
    name = "simt_mscatter_row_last_kernel" if row else "simt_mscatter_elem_last_kernel"
    n = sum(o.size for o in gm_offs)
    if won_slot.size < slots:
        max_scan = units
    else:
        max_scan = int((units - won_unit).max()) if won_unit.size else 0
    return Built(
        _launch(warps, name),
        n * sz,
        (tile_region(x), tile_region(s)),
        _gm_read_region(g, gm_offs),
        {
            "kernel": name,
            "slots": slots,
            "written_slots": int(won_slot.size),
            "max_scan": max_scan,
            "scan_cycles_per_iteration": per_iter,
        },
    )


def _scatter_scalar(instr: MScatter, ctx) -> list:
    """MScatterScalarImpl (static Elem (1, 1)): V->S, one scalar store / atomic, S->V."""
    src, g, x = instr.src, instr.table, instr.idx

    def body(ctx) -> list:
        s = ctx.config.timing.scalar
        raw = read_indices(ctx, x, Coalesce.Elem, 1, 1).reshape(-1)
        k, ok = plan_remap(ctx, raw, elem_capacity(g), instr.oob)
        cycles = s.ub_load_cycles + remap_cycles(ctx, instr.oob)
        reads = [elem_region(x, int(x.offsets(0, 0)), 1)]
        writes = []
        args = {"index": int(k[0]), "gm_stores": 0}
        if ok[0]:
            off = elem_offsets(g, k[:1])
            region = gm_region(g, off)
            cycles += s.ub_load_cycles + ELEM_ADDR_OPS * s.op_cycles + s.gm_store_cycles
            reads.append(elem_region(src, int(src.offsets(0, 0)), 1))
            if instr.atomic is not NONE:  # read-modify-write through the data cache
                load, misses = dcache(ctx).load_cycles(gm_addresses(g, off))
                cycles += load + ADD_OPS.get(src.dtype.name, 1) * s.op_cycles
                reads.append(region)
                args.update(gm_loads=1, gm_misses=misses, atomic=instr.atomic.name)
            writes.append(region)
            args["gm_stores"] = 1
        step = scalar_step(
            cycles,
            "scalar scatter",
            reads=reads,
            writes=writes,
            bytes_=args["gm_stores"] * src.dtype.size_bytes,
            args=args,
        )
        step.atomic = instr.atomic_op  # a5 performs every MSCATTER atomic op atomically
        return [step] + flags(ctx, ((S, V),), "epilogue")

    return flags(ctx, ((V, S),), "prologue") + [Deferred(body, "scalar fallback")]


def plan_mscatter(instr: MScatter, ctx) -> list:
    """MSCATTER on a 950 vector core."""
    if instr.is_scalar_fallback():
        return _scatter_scalar(instr, ctx)
    last = instr.atomic is NONE and instr.effective_conflict(ctx.arch) is ScatterConflict.Last
    if last:
        build = _scatter_last
    else:
        build = _scatter_row if instr.coalesce is Coalesce.Row else _scatter_elem
    mode = "row" if instr.coalesce is Coalesce.Row else "elem"
    label = f"MSCATTER {mode}{' last' if last else ''} SIMT"
    return [
        simt_step(
            label,
            lambda c: build(instr, c),
            reads=(tile_region(instr.idx), tile_region(instr.src)),
            atomic=instr.atomic_op,
        )
    ]


PLANS = {MGather: plan_mgather, MGatherL1: plan_mgather_l1, MScatter: plan_mscatter}
