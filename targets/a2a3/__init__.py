"""Atlas A2/A3 target: lowering plans for the vector core (scalar pipe S driving MTE2/MTE3 DMAs,
vector pipe V), costs from ``configs/a2.toml`` / ``a3.toml``."""

from __future__ import annotations

from ..common import dispatch
from . import data, gather, rowexpand, scatter, tscatter

PLANS: dict = {}
for _module in (data, gather, scatter, tscatter, rowexpand):
    PLANS.update(_module.PLANS)


def plan(instr, ctx) -> list:
    """The steps of ``instr`` on an A2/A3 vector core (UnsupportedError if it has none)."""
    return dispatch("a2a3", "A2/A3", PLANS, instr, ctx)
