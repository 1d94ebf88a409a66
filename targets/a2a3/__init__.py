"""Atlas A2/A3 target: its behaviour spec (``SPEC``, spec.py) and the lowering plans for the
vector core (scalar pipe S driving MTE2/MTE3 DMAs, vector pipe V), costs from
``configs/a2.toml`` / ``a3.toml``."""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

from ..common import dispatch
from .spec import SPEC
from .timing_sources import USES as TIMING_USES

# Every module of this package that defines PLANS (instruction class -> plan function) adds
# them; a new instruction family is one new module, nothing to register here.
PLANS: dict = {}
for _info in sorted(iter_modules(__path__), key=lambda m: m.name):
    PLANS.update(getattr(import_module(f"{__name__}.{_info.name}"), "PLANS", {}))


__all__ = ["PLANS", "SPEC", "TIMING_USES", "plan"]


def plan(instr, ctx) -> list:
    """The steps of ``instr`` on an A2/A3 vector core (UnsupportedError if it has none)."""
    return dispatch("a2a3", "A2/A3", PLANS, instr, ctx)
