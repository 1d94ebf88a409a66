"""A2/A3 plans of the cube core's instructions (reference/cube_isa.md 1.3, 5): TLOAD into L1
with a layout conversion and TFILLPAD on L1 (MTE2), L1 -> L0A / L0B / bias table (MTE1), mad
(PIPE_M), the fixpipe out of L0C (PIPE_FIX). Costs are the vendor cost model's cube formulas
(``[timing.cube]`` of the device config, labelled ``vendor-model``); the GM -> L1 DMA uses the
MTE2 engine's costs (docs/architecture.md "Models that are estimates").

- mad: ``head + ceil(m/16) * ceil(k/C0) * ceil(n/16) * r`` cycles, r = 2 for float inputs;
  a2a3 issues m == 1 as 16 rows (the formula sees m = 16 then).
- L1 -> L0A / L0B: ``load_cbuf_to_ca/cb`` moves whole 512-byte fractals: the destination
  region's fractals x 512 bytes at the L0A / L0B rate.
- L1 -> bias table / fixpipe buffer: the bytes of the row at the BT / FB rate.
- L0C -> GM / L1: the vendor model counts ``m * n * 2`` bytes whatever the element type.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ptosim.enums import MATRIX_LAYOUTS, Pipe, TileType
from ptosim.footprint import gm_regions, merged_runs
from ptosim.isa.cube.fixpipe import AccStore, AccToMat
from ptosim.isa.cube.geometry import c0 as c0_of
from ptosim.isa.cube.load import MatFillPad, MatLoad
from ptosim.isa.cube.matmul import MatMul
from ptosim.isa.cube.move import MatToBias, MatToL0, MatToScaling
from ptosim.plan import Step, StepKind

from ..costs import ceil_div, dma_step, tile_region

FRACTAL_BYTES = 512  # one L1 / L0A / L0B fractal (CUBE_BLOCK_SIZE)


def _cube(ctx):
    cube = ctx.config.timing.cube
    if cube is None:  # a config without [timing.cube]: a programming error in the config
        raise ValueError(f"device {ctx.config.name} has no [timing.cube] costs")
    return cube


def _copy_step(ctx, pipe: Pipe, label: str, nbytes: int, rate: float, reads, writes,
               intrinsic: str, kind=StepKind.CUBE, extra: dict | None = None) -> Step:  # fmt: skip
    cube = _cube(ctx)
    args = {"intrinsic": intrinsic, "bytes": nbytes, "source": cube.source}
    args.update(extra or {})
    return Step(
        pipe, kind, max(1, ceil_div(int(nbytes * 1000), int(rate * 1000))), label,
        bytes=nbytes, reads=tuple(reads), writes=tuple(writes), args=args,
    )  # fmt: skip


def mad_cycles(ctx, m: int, k: int, n: int, dtype) -> int:
    """The vendor cost model's mad (cube_isa.md 5)."""
    cube = _cube(ctx)
    step = cube.mad_fp32_step_cycles if dtype.name == "float32" else 1
    fractals = ceil_div(m, 16) * ceil_div(k, c0_of(dtype)) * ceil_div(n, 16)
    return cube.mad_head_cycles + fractals * step


def plan_matmul(instr: MatMul, ctx) -> list[Step]:
    m, k, n = instr.mkn()
    rows = instr.rows_written(ctx.spec)
    reads = [tile_region(instr.a), tile_region(instr.b)]
    if instr.kind == "acc":
        reads.append(tile_region(instr.dst if instr.c_in is None else instr.c_in))
    if instr.bias is not None:
        reads.append(tile_region(instr.bias))
    cycles = mad_cycles(ctx, rows, k, n, instr.a.dtype)
    args = {"intrinsic": "mad", "m": rows, "k": k, "n": n, "source": _cube(ctx).source}
    return [
        Step(
            Pipe.PIPE_M, StepKind.CUBE, cycles, f"mad {rows}x{k}x{n}",
            reads=tuple(reads), writes=(tile_region(instr.dst),), args=args,
        )
    ]  # fmt: skip


def plan_l0(instr: MatToL0, ctx) -> list[Step]:
    rows, cols = instr.region(ctx)
    d = instr.dst
    elem_bits = 4 if d.dtype.packed else 8 * d.dtype.size_bytes  # fp4: two per byte
    nbytes = ceil_div(rows * cols * elem_bits // 8, FRACTAL_BYTES) * FRACTAL_BYTES
    cube = _cube(ctx)
    left = d.loc is TileType.Left
    rate = cube.l1_to_l0a_bytes_per_cycle if left else cube.l1_to_l0b_bytes_per_cycle
    name = "load_cbuf_to_" + ("ca" if left else "cb") + ("_transpose" if instr.transposes else "")
    return [
        _copy_step(ctx, Pipe.PIPE_MTE1, f"{instr.opcode} {name}", nbytes, rate,
                   [tile_region(instr.src)], [tile_region(d)], name)
    ]  # fmt: skip


def plan_bias(instr: MatToBias, ctx) -> list[Step]:
    nbytes = instr.src.cols * instr.src.dtype.size_bytes
    return [
        _copy_step(ctx, Pipe.PIPE_MTE1, "TMOV copy_cbuf_to_bt", nbytes,
                   _cube(ctx).l1_to_bt_bytes_per_cycle, [tile_region(instr.src)],
                   [tile_region(instr.dst)], "copy_cbuf_to_bt")
    ]  # fmt: skip


def plan_scaling(instr: MatToScaling, ctx) -> list[Step]:
    nbytes = instr.src.cols * instr.src.dtype.size_bytes
    return [
        _copy_step(ctx, Pipe.PIPE_FIX, "TMOV copy_cbuf_to_fbuf", nbytes,
                   _cube(ctx).l1_to_fb_bytes_per_cycle, [tile_region(instr.src)],
                   [tile_region(instr.dst)], "copy_cbuf_to_fbuf")
    ]  # fmt: skip


def plan_acc_store(instr: AccStore, ctx) -> list[Step]:
    t, g = instr.tile, instr.gm
    vr, vc = t.valid
    sz = g.dtype.size_bytes
    # the GM byte runs: one per output row (ND) or per fractal row (NZ)
    r = np.arange(vr)
    starts = g.buffer.address + g.offsets(r, np.zeros_like(r)) * sz
    run = vc * sz if g.layout.name == "ND" else g.shape[4] * sz
    if g.layout not in MATRIX_LAYOUTS:  # the 950's convolution layouts: element by element
        starts, run = g.buffer.address + np.unique(instr.gm_offsets()) * sz, sz
    elif g.layout.name != "ND":
        rr, cc = np.meshgrid(r, np.arange(0, vc, g.shape[4]), indexing="ij")
        starts = g.buffer.address + g.offsets(rr, cc).reshape(-1) * sz
    gm = gm_regions(merged_runs(starts, run))
    nbytes = vr * vc * 2  # the vendor model's count (cube_isa.md 5)
    step = _copy_step(
        ctx, Pipe.PIPE_FIX, "TSTORE copy_matrix_cc_to_gm", nbytes,
        _cube(ctx).l0c_to_gm_bytes_per_cycle, [tile_region(t)], gm, "copy_matrix_cc_to_gm",
        kind=StepKind.DMA, extra={"latency_cycles": 0, "charged_bytes": vr * vc * sz},
    )  # fmt: skip
    if instr.atomic_op is not None:
        step = replace(step, reads=step.reads + step.writes, atomic=instr.atomic_op)
    return [step]


def plan_acc_to_mat(instr: AccToMat, ctx) -> list[Step]:
    rows, cols = instr.extent(ctx.spec.cube)
    return [
        _copy_step(ctx, Pipe.PIPE_FIX, f"{instr.opcode} copy_matrix_cc_to_cbuf", rows * cols * 2,
                   _cube(ctx).l0c_to_l1_bytes_per_cycle, [tile_region(instr.src)],
                   [tile_region(instr.dst)], "copy_matrix_cc_to_cbuf")
    ]  # fmt: skip


def plan_mat_load(instr: MatLoad, ctx) -> list[Step]:
    t, g = instr.tile, instr.gm
    rows, cols = g.geom.logical_shape
    sz = t.dtype.size_bytes
    dn = instr.form.startswith("DN")
    n_burst, length = (cols, rows) if dn else (rows, cols)
    idx = np.arange(n_burst)
    offs = g.offsets(np.zeros_like(idx), idx) if dn else g.offsets(idx, np.zeros_like(idx))
    starts = g.buffer.address + offs * sz
    gm = gm_regions(merged_runs(starts, length * sz))
    name = "copy_gm_to_cbuf_multi_" + instr.form.lower()
    return [
        dma_step(Pipe.PIPE_MTE2, ctx.config.timing.mte2, f"TLOAD {name}", n_burst, length * sz,
                 gm, tile_region(t), to_ub=True, gm_starts_bytes=starts,
                 args={"intrinsic": name})
    ]  # fmt: skip


def plan_fillpad(instr: MatFillPad, ctx) -> list[Step]:
    d = instr.dst
    vr, vc = instr.src.valid
    kept = min(-(-vc // d.dtype.c0) * d.dtype.c0, d.cols)
    filled = ((d.rows - vr) * kept + d.rows * (d.cols - kept)) * d.dtype.size_bytes
    return [
        _copy_step(ctx, Pipe.PIPE_MTE2, "TFILLPAD create_cbuf_matrix", max(filled, 32),
                   _cube(ctx).l1_fill_bytes_per_cycle, [tile_region(instr.src)],
                   [tile_region(d)], "create_cbuf_matrix")
    ]  # fmt: skip


PLANS = {
    MatMul: plan_matmul,
    MatToL0: plan_l0,
    MatToBias: plan_bias,
    MatToScaling: plan_scaling,
    AccStore: plan_acc_store,
    AccToMat: plan_acc_to_mat,
    MatLoad: plan_mat_load,
    MatFillPad: plan_fillpad,
}
