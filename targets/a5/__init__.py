"""Ascend 950PR/950DT target: SIMT launches for MGATHER/MSCATTER (warp programs run by the
warp-scheduler model of ptosim.engine.simt), vector-register loops for TSCATTER/TROWEXPAND*,
DMA with 128-byte GM granularity; costs from ``configs/950pr.toml`` / ``950dt.toml``."""

from __future__ import annotations

from ptosim.errors import UnsupportedError
from ptosim.isa.data import TLoad, TStore

from ..a2a3.data import plan_transfer
from ..common import plan_sync
from . import memory, vector

PLANS: dict = {TLoad: plan_transfer, TStore: plan_transfer}
for _module in (memory, vector):
    PLANS.update(_module.PLANS)


def plan(instr, ctx) -> list:
    """The steps of ``instr`` on a 950 vector core.

    Raises:
        UnsupportedError: the instruction has no 950 plan.
    """
    steps = plan_sync(instr, ctx)
    if steps is not None:
        return steps
    fn = PLANS.get(type(instr))
    if fn is None:
        raise UnsupportedError(
            instr.opcode,
            "instruction",
            "a5-plan",
            "an instruction with a 950 timing plan",
            instr.opcode,
            target="a5",
            position=instr.position,
            source=instr.source,
        )
    return fn(instr, ctx)
