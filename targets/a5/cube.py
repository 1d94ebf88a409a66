"""950 plans of the cube core's instructions: the A2/A3 plans (the same intrinsics move the
same bytes: TLOAD into L1 on MTE2, L1 -> L0A / L0B / bias table on MTE1, mad on PIPE_M, the
fixpipe on PIPE_FIX; targets/a2a3/cube.py) with the 950 config's ``[timing.cube]`` figures,
which are estimates: the vendor's a5 cost model has no cube entries (reference/cube_isa.md 5),
so configs/950pr.toml carries the a2a3 model's figures labelled ``estimate``.

The raw UB <-> L1 copies between the cube core and its vector cores (ptosim/isa/cube/onchip.py)
cost their bytes at ``ub_l1_bytes_per_cycle`` (an estimate: no public figure) on the pipe the
intrinsic runs on (MTE3 on a vector core, MTE1 on the cube core).

The MX mad (ptosim/isa/cube/mx.py) costs the mad formula of its m, k, n (C0 = 64 for fp4, 32 for
fp8: the fractals it walks); its scale loads cost their 32-byte fractals at the L1 -> L0A / L0B
rate. Both are estimates: no cost model has MX entries. The tile-level forms cost the same:
TMATMUL_MX the mad_mx formula, TMOV / TEXTRACT into a ScaleLeft / ScaleRight tile its bytes at
the L1 -> L0A / L0B rate, and the TLOAD of scales into L1 the MTE2 burst model over the byte runs
it reads (estimates too)."""

from __future__ import annotations

import numpy as np

from ptosim.enums import Pipe
from ptosim.footprint import gm_regions, merged_runs
from ptosim.isa.cube.acc2vec import AccToVec
from ptosim.isa.cube.mx import (
    SCALE_FRACTAL_BYTES,
    MxMatMul,
    MxScaleLoad,
    MxScaleMove,
    MxScaleTLoad,
)
from ptosim.isa.cube.onchip import OnchipCopy
from ptosim.plan import Region, Step, StepKind, merge_ranges

from ..a2a3.cube import PLANS as _A2A3_PLANS
from ..a2a3.cube import _copy_step, _cube, mad_cycles
from ..costs import dma_step, tile_region


def _regions(space: str, ranges) -> list[Region]:
    return [Region(space, lo, hi) for lo, hi in merge_ranges(list(ranges))]


def plan_onchip_copy(instr: OnchipCopy, ctx) -> list:
    rate = _cube(ctx).ub_l1_bytes_per_cycle
    if rate is None:  # a 950 config without the figure: a programming error in the config
        raise ValueError(f"device {ctx.config.name} has no [timing.cube] ub_l1_bytes_per_cycle")
    nbytes = sum(hi - lo for lo, hi in instr.bursts("src"))
    reads = _regions(instr.src_space, instr.bursts("src"))
    writes = _regions(instr.dst_space, instr.bursts("dst"))
    return [_copy_step(ctx, instr.pipe, instr.describe(), nbytes, rate, reads, writes,
                       instr.opcode.lower())]  # fmt: skip


def plan_mx_scale_load(instr: MxScaleLoad, ctx) -> list:
    cube = _cube(ctx)
    left = instr.opcode.endswith("ca_mx")
    rate = cube.l1_to_l0a_bytes_per_cycle if left else cube.l1_to_l0b_bytes_per_cycle
    nbytes = len(instr.fractals()) * SCALE_FRACTAL_BYTES
    return [_copy_step(ctx, Pipe.PIPE_MTE1, instr.opcode, nbytes, rate,
                       [tile_region(instr.src)], [tile_region(instr.dst)], instr.opcode,
                       extra={"estimate": "no cost model has MX entries"})]  # fmt: skip


def plan_mx_scale_move(instr: MxScaleMove, ctx) -> list:
    cube = _cube(ctx)
    rate = cube.l1_to_l0a_bytes_per_cycle if instr.left else cube.l1_to_l0b_bytes_per_cycle
    intrinsic = "load_cbuf_to_ca_mx" if instr.left else "load_cbuf_to_cb_mx"
    return [_copy_step(ctx, Pipe.PIPE_MTE1, f"{instr.opcode} {intrinsic}", instr.nbytes(), rate,
                       [tile_region(instr.src)], [tile_region(instr.dst)], intrinsic,
                       extra={"estimate": "no cost model has MX entries"})]  # fmt: skip


def plan_mx_scale_tload(instr: MxScaleTLoad, ctx) -> list:
    rows, cols = instr.extent()
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    g = instr.gm
    starts = np.unique(g.buffer.address + g.offsets(r, c).ravel() * g.dtype.size_bytes)
    runs = merged_runs(starts, g.dtype.size_bytes)
    n_burst = max(1, len(runs))
    length = max(1, -(-int(starts.size) * g.dtype.size_bytes // n_burst))
    name = f"copy_gm_to_cbuf_multi_{g.layout.name.lower()}"
    return [
        dma_step(Pipe.PIPE_MTE2, ctx.config.timing.mte2, f"TLOAD {name}", n_burst, length,
                 gm_regions(runs), tile_region(instr.tile), to_ub=True,
                 args={"intrinsic": name, "estimate": "the MTE2 burst model over the scale "
                       "bytes; no cost model has MX entries"})
    ]  # fmt: skip


def plan_mx_matmul(instr: MxMatMul, ctx) -> list:
    m, k, n = instr.mkn()
    reads = [tile_region(getattr(instr, name)) for name in instr.reads]
    args = {"intrinsic": "mad_mx", "m": m, "k": k, "n": n, "source": _cube(ctx).source,
            "estimate": "the mad formula; no cost model has MX entries"}  # fmt: skip
    return [
        Step(Pipe.PIPE_M, StepKind.CUBE, mad_cycles(ctx, m, k, n, instr.a.dtype),
             f"mad_mx {m}x{k}x{n}", reads=tuple(reads), writes=(tile_region(instr.dst),),
             args=args)
    ]  # fmt: skip


def plan_acc_to_vec(instr: AccToVec, ctx) -> list:
    """The fixpipe into a vector core's UB: the L0C -> L1 figure (an estimate here: the a5
    cost model has no cube entries) over the vendor model's m x n x 2 bytes, as for Acc -> Mat;
    the checker sees the exact bytes written in each vector core's UB."""
    f = instr.fields()
    writes = []
    for space, (base, offs, size) in instr.written_bytes().items():
        writes += [Region(space, lo, hi) for lo, hi in merged_runs(base + offs * size, size)]
    return [_copy_step(ctx, Pipe.PIPE_FIX, instr.describe(), f.m * f.n * 2,
                       _cube(ctx).l0c_to_l1_bytes_per_cycle, [tile_region(instr.src)], writes,
                       "copy_matrix_cc_to_ub")]  # fmt: skip


PLANS = dict(_A2A3_PLANS)
PLANS[OnchipCopy] = plan_onchip_copy
PLANS[MxScaleLoad] = plan_mx_scale_load
PLANS[MxMatMul] = plan_mx_matmul
PLANS[MxScaleMove] = plan_mx_scale_move
PLANS[MxScaleTLoad] = plan_mx_scale_tload
PLANS[AccToVec] = plan_acc_to_vec
