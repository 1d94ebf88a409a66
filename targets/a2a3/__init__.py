"""Atlas A2/A3 target: lowering plans for the vector core (scalar pipe S driving MTE2/MTE3 DMAs,
vector pipe V), costs from ``configs/a2.toml`` / ``a3.toml``."""

from __future__ import annotations

from ptosim.errors import UnsupportedError
from ptosim.plan import Step

from ..common import plan_sync
from . import data, gather, rowexpand, scatter, tscatter

PLANS: dict = {}
for _module in (data, gather, scatter, tscatter, rowexpand):
    PLANS.update(_module.PLANS)


def plan(instr, ctx) -> list[Step]:
    """The steps of ``instr`` on an A2/A3 vector core.

    Raises:
        UnsupportedError: the instruction has no A2/A3 plan.
    """
    steps = plan_sync(instr, ctx)
    if steps is not None:
        return steps
    fn = PLANS.get(type(instr))
    if fn is None:
        raise UnsupportedError(
            instr.opcode,
            "instruction",
            "a2a3-plan",
            "an instruction with an A2/A3 timing plan",
            instr.opcode,
            target="a2a3",
            position=instr.position,
            source=instr.source,
        )
    return fn(instr, ctx)
