"""Ascend 950PR/950DT target: SIMT launches for MGATHER/MSCATTER (warp programs run by the
warp-scheduler model of ptosim.engine.simt), vector-register loops for TSCATTER/TROWEXPAND*,
DMA with 128-byte GM granularity; costs from ``configs/950pr.toml`` / ``950dt.toml``."""

from __future__ import annotations

from ptosim.isa.data import TLoad, TStore

from ..a2a3.data import plan_transfer
from ..common import dispatch
from . import memory, vector

PLANS: dict = {TLoad: plan_transfer, TStore: plan_transfer}
for _module in (memory, vector):
    PLANS.update(_module.PLANS)


def plan(instr, ctx) -> list:
    """The steps of ``instr`` on a 950 vector core (UnsupportedError if it has none)."""
    return dispatch("a5", "950", PLANS, instr, ctx)
