"""Ascend 950PR/950DT target: its behaviour spec (``SPEC``, spec.py); SIMT launches for
MGATHER/MSCATTER (warp programs run by the warp-scheduler model of ptosim.engine.simt),
vector-register loops for TSCATTER/TROWEXPAND*, DMA with 128-byte GM granularity; costs from
``configs/950pr.toml`` / ``950dt.toml``."""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

from ptosim.isa.data import TLoad, TStore

from ..a2a3.data import plan_transfer
from ..common import dispatch
from .spec import SPEC
from .timing_sources import USES as TIMING_USES

# TLOAD/TSTORE share the A2/A3 DMA plan (with the 950 config); every module of this package
# that defines PLANS adds them, so a new instruction family is one new module.
PLANS: dict = {TLoad: plan_transfer, TStore: plan_transfer}
for _info in sorted(iter_modules(__path__), key=lambda m: m.name):
    PLANS.update(getattr(import_module(f"{__name__}.{_info.name}"), "PLANS", {}))


__all__ = ["PLANS", "SPEC", "TIMING_USES", "plan"]


def plan(instr, ctx) -> list:
    """The steps of ``instr`` on a 950 vector core (UnsupportedError if it has none)."""
    return dispatch("a5", "950", PLANS, instr, ctx)
