"""A2/A3 plans of MSCATTER (semantics.md 3.2.3 and the flag chains of 4.3).

Driven from the scalar pipe S; the index tile is read from ``ctx`` as the scalar unit finds it
at issue time and remapped with the ScatterOOB policy (an Undefined index past the capacity is
planned as if clamped in range; execution raises the real error).

* Row, ND / NZ (``MScatterRowImpl`` / ``MScatterRowNzImpl``), ScatterAtomicOp::None:
  ``V->S, MTE2->S, S->MTE3``; per row a scalar step (index UB load, remap, address arithmetic);
  per written row one MTE3 DMA ``nBurst=1, lenBurst=C*sizeof(T)`` (NZ: per ``i < gShape0`` one
  DMA of ``gShape1`` bursts of 32 B) followed by ``MTE3->S``: the scalar unit waits for every
  row's DMA to complete, which serialises the rows (last writer wins); ``MTE3->V, MTE3->MTE2``.
* Row, Add: ``V->S, MTE2->S``, the scalar ``set_atomic_<T>`` and ``set_atomic_add``,
  ``S->MTE3``; the row DMAs back to back without per-row waits; ``MTE3->S``,
  ``set_atomic_none``, ``S->V, S->MTE2``, then ``MTE3->V, MTE3->MTE2``.
* Elem, ND / NZ (``MScatterElemImpl`` / ``MScatterElemNzImpl``): ``V->S, MTE2->S, MTE3->S``;
  the scalar loop, one step per row (ND) or per (column block, row) segment of the NZ walk; per
  element: loop, index UB load, remap, and for a written element the source UB load, address
  arithmetic and GM store (Add: GM load through the data cache at the element's real GM byte
  address, the add, GM store); ``S->V, S->MTE2, S->MTE3``.

A skipped (ScatterOOB::Skip) row or element costs its loop step, index load and branch, but no
DMA or store. Scalar op counts as in ``gather.py``; the Add read-modify-write costs
``ADD_OPS[dtype]`` ALU operations (float32/int32 one add; int8/int16 add and truncate; half
convert-add-convert; bfloat16 widen, add, round-to-nearest-even and narrow). An atomic-add DMA
costs the same as a plain one (no public atomic throughput; see the report).
"""

from __future__ import annotations

import numpy as np

from ptosim.enums import Coalesce, Layout, Pipe, ScatterAtomicOp
from ptosim.isa.indexing import (
    elem_capacity,
    elem_offsets,
    nz_logical_shape,
    nz_offsets,
    read_indices,
    row_capacity,
)
from ptosim.isa.scatter import MScatter
from ptosim.plan import Deferred, Step

from ..costs import control_step, dma_step, gm_region, scalar_step
from .gather import (
    ELEM_ADDR_OPS,
    ELEM_NZ_ADDR_OPS,
    NZ_ROW_SPLIT_OPS,
    ROW_ADDR_OPS,
    dcache,
    elem_region,
    elem_segments,
    flags,
    gm_addresses,
    nz_dma_ub_region,
    nz_row_dmas,
    plan_remap,
    remap_cycles,
)

S, V, MTE2, MTE3 = Pipe.PIPE_S, Pipe.PIPE_V, Pipe.PIPE_MTE2, Pipe.PIPE_MTE3
ADD = ScatterAtomicOp.Add

ADD_OPS = {"float32": 1, "int32": 1, "int16": 2, "int8": 2, "half": 3, "bfloat16": 5}
ATOMIC_TYPE = {
    "float32": "f32",
    "half": "f16",
    "bfloat16": "bf16",
    "int32": "s32",
    "int16": "s16",
    "int8": "s8",
}

ROW_NONE_CHAIN = {
    "prologue": ((V, S), (MTE2, S), (S, MTE3)),
    "row": ((MTE3, S),),
    "epilogue": ((MTE3, V), (MTE3, MTE2)),
}
ROW_ADD_CHAIN = {
    "prologue": ((V, S), (MTE2, S), (S, MTE3)),
    "epilogue": ((MTE3, S), (S, V), (S, MTE2), (MTE3, V), (MTE3, MTE2)),
}
ELEM_CHAIN = {
    "prologue": ((V, S), (MTE2, S), (MTE3, S)),
    "epilogue": ((S, V), (S, MTE2), (S, MTE3)),
}


def _scatter_dma(
    ctx, instr: MScatter, label: str, n_burst: int, len_bytes: int, gm, ub, starts, args: dict
) -> Step:
    step = dma_step(
        MTE3,
        ctx.config.timing.mte3,
        label,
        n_burst,
        len_bytes,
        gm,
        ub,
        to_ub=False,
        gm_starts_bytes=gm_addresses(instr.table, starts),
        args=args,
    )
    if instr.atomic is ADD:  # an atomic-add DMA: read-modify-write of the table in GM
        step.reads = step.reads + (gm,)
        step.args["atomic"] = "add"
        step.atomic = instr.atomic_op
    return step


def _row(instr: MScatter, ctx) -> list:
    chain = ROW_ADD_CHAIN if instr.atomic is ADD else ROW_NONE_CHAIN
    return flags(ctx, chain["prologue"][:2], "prologue") + [
        Deferred(lambda c: _row_body(instr, c), "row loop")
    ]


def _row_body(instr: MScatter, ctx) -> list[Step]:
    """Everything after the V->S, MTE2->S prologue waits (the scalar unit reads idx here)."""
    t = ctx.config.timing
    s = t.scalar
    src, g, x = instr.src, instr.table, instr.idx
    vr, vc = src.valid
    sz = src.dtype.size_bytes
    add = instr.atomic is ADD
    nz = g.layout is Layout.NZ
    raw = read_indices(ctx, x, Coalesce.Row, vr, 0)
    k, ok = plan_remap(ctx, raw, row_capacity(ctx.spec.indexed, g), instr.oob)
    chain = ROW_ADD_CHAIN if add else ROW_NONE_CHAIN
    steps: list[Step] = []
    if add:
        steps += [
            control_step(ctx, f"set_atomic_{ATOMIC_TYPE[src.dtype.name]}"),
            control_step(ctx, "set_atomic_add"),
        ]
    steps += flags(ctx, chain["prologue"][2:], "prologue")
    head = s.loop_cycles + s.ub_load_cycles + remap_cycles(ctx, instr.oob)
    s0, s1 = g.shape[0], g.shape[1]
    c0 = src.dtype.c0
    for r in range(vr):
        kr = int(k[r])
        idx_reg = elem_region(x, r, 1)
        if not ok[r]:  # ScatterOOB::Skip: the branch, no DMA
            steps.append(
                scalar_step(
                    head,
                    f"row {r} skip (OOB)",
                    reads=(idx_reg,),
                    args={"row": r, "index": kr, "oob": True, "elements": 1},
                )
            )
            continue
        if nz:
            addr = (NZ_ROW_SPLIT_OPS + ROW_ADDR_OPS * s0) * s.op_cycles + (s0 - 1) * s.loop_cycles
        else:
            addr = ROW_ADDR_OPS * s.op_cycles
        steps.append(
            scalar_step(
                head + addr,
                f"row {r} index",
                reads=(idx_reg,),
                args={"row": r, "index": kr, "elements": 1, "dmas": s0 if nz else 1},
            )
        )
        if nz:
            for i, starts, ub_first in nz_row_dmas(g, src, kr, r):
                offs = (starts[:, None] + np.arange(c0)).reshape(-1)
                steps.append(
                    _scatter_dma(
                        ctx,
                        instr,
                        f"row {r} copy_ubuf_to_gm {i}",
                        s1,
                        c0 * sz,
                        gm_region(g, offs),
                        nz_dma_ub_region(src, ub_first, s1),
                        starts,
                        {
                            "row": r,
                            "index": kr,
                            "i": i,
                            "ubGap": src.rows - 1,
                            "gmGap": (g.stride[1] - c0) * sz,
                        },
                    )
                )
        else:
            start = g.offset + kr * g.stride[3]
            offs = start + np.arange(vc, dtype=np.int64)
            steps.append(
                _scatter_dma(
                    ctx,
                    instr,
                    f"row {r} copy_ubuf_to_gm",
                    1,
                    vc * sz,
                    gm_region(g, offs),
                    elem_region(src, r * src.cols, vc),
                    [start],
                    {"row": r, "index": kr},
                )
            )
        if not add:  # the per-row serialisation: wait for this row's DMA to complete
            steps += flags(ctx, chain["row"], f"row {r}")
    if add:
        steps += flags(ctx, chain["epilogue"][:1], "epilogue")
        steps.append(control_step(ctx, "set_atomic_none"))
        steps += flags(ctx, chain["epilogue"][1:], "epilogue")
    else:
        steps += flags(ctx, chain["epilogue"], "epilogue")
    return steps


def _elem(instr: MScatter, ctx) -> list:
    return flags(ctx, ELEM_CHAIN["prologue"], "prologue") + [
        Deferred(lambda c: _elem_body(instr, c), "element loop")
    ]


def _elem_body(instr: MScatter, ctx) -> list[Step]:
    """Everything after the V->S, MTE2->S, MTE3->S prologue waits."""
    t = ctx.config.timing
    s = t.scalar
    src, g, x = instr.src, instr.table, instr.idx
    vr, vc = src.valid
    sz = src.dtype.size_bytes
    add = instr.atomic is ADD
    nz = g.layout is Layout.NZ
    raw = read_indices(ctx, x, Coalesce.Elem, vr, vc)
    if nz:
        nrows, ncols = nz_logical_shape(g)
        k, ok = plan_remap(ctx, raw, nrows * ncols, instr.oob)
        dst = nz_offsets(g, k // max(ncols, 1), k % max(ncols, 1))
    else:
        k, ok = plan_remap(ctx, raw, elem_capacity(g), instr.oob)
        dst = np.zeros(k.shape, dtype=np.int64)
        if ok.any():
            dst[ok] = elem_offsets(g, k[ok])
    addr_ops = ELEM_NZ_ADDR_OPS if nz else ELEM_ADDR_OPS
    per_elem = s.loop_cycles + s.ub_load_cycles + remap_cycles(ctx, instr.oob)
    per_write = s.ub_load_cycles + addr_ops * s.op_cycles + s.gm_store_cycles
    if add:
        per_write += ADD_OPS[src.dtype.name] * s.op_cycles
    cache = dcache(ctx)
    segs = elem_segments(vr, vc, src.dtype.c0, nz)
    steps: list[Step] = []
    for b, r, c_lo, c_hi in segs:
        n = c_hi - c_lo
        sel = ok[r, c_lo:c_hi]
        offs = dst[r, c_lo:c_hi][sel]
        w = int(offs.size)
        load, misses = cache.load_cycles(gm_addresses(g, offs)) if add else (0, 0)
        reads = [
            elem_region(x, int(x.offsets(r, c_lo)), n),
            elem_region(src, int(src.offsets(r, c_lo)), n),
        ]
        writes = []
        if w:
            writes.append(gm_region(g, offs))
            if add:
                reads.append(writes[0])
        label = f"row {r}" if b is None else f"block {b} row {r}"
        args = {"row": r, "elements": n, "ub_loads": n + w, "gm_stores": w, "skipped": n - w}
        if add:
            args.update({"gm_loads": w, "gm_misses": misses, "atomic": "add"})
        if b is not None:
            args["block"] = b
        steps.append(
            scalar_step(
                n * per_elem + w * per_write + load,
                f"{label} scatter",
                reads=reads,
                writes=writes,
                bytes_=w * sz,
                args=args,
            )
        )
    return steps + flags(ctx, ELEM_CHAIN["epilogue"], "epilogue")


def plan_mscatter(instr: MScatter, ctx) -> list[Step]:
    """MSCATTER on an A2/A3 vector core (Row / Elem, ND / NZ, None / Add)."""
    return _row(instr, ctx) if instr.coalesce is Coalesce.Row else _elem(instr, ctx)


PLANS = {MScatter: plan_mscatter}
