"""950 plans of the cube core's instructions: the A2/A3 plans (the same intrinsics move the
same bytes: TLOAD into L1 on MTE2, L1 -> L0A / L0B / bias table on MTE1, mad on PIPE_M, the
fixpipe on PIPE_FIX; targets/a2a3/cube.py) with the 950 config's ``[timing.cube]`` figures,
which are estimates: the vendor's a5 cost model has no cube entries (reference/cube_isa.md 5),
so configs/950pr.toml carries the a2a3 model's figures labelled ``estimate``. One 950-only
plan: the L1 -> fixpipe-buffer copy of quantisation words."""

from __future__ import annotations

from ptosim.enums import Pipe
from ptosim.isa.cube.move import MatToScaling
from ptosim.plan import Step

from ..a2a3.cube import PLANS as _A2A3_PLANS
from ..a2a3.cube import _copy_step, _cube
from ..costs import tile_region


def plan_scaling(instr: MatToScaling, ctx) -> list[Step]:
    # no figure for copy_cbuf_to_fbuf in the model: its L1 -> bias-table rate (an estimate)
    nbytes = instr.dst.cols * instr.dst.dtype.size_bytes
    return [
        _copy_step(ctx, Pipe.PIPE_FIX, "TMOV copy_cbuf_to_fbuf", nbytes,
                   _cube(ctx).l1_to_bt_bytes_per_cycle, [tile_region(instr.src)],
                   [tile_region(instr.dst)], "copy_cbuf_to_fbuf")
    ]  # fmt: skip


PLANS = dict(_A2A3_PLANS) | {MatToScaling: plan_scaling}
