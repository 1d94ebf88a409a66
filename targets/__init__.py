"""Targets: the device families ptosim simulates.

Each target family is one package here, named after the family (``cpu``, ``a2a3``, ``a5``):
it exports ``SPEC``, its behaviour spec (``ptosim.isa.spec.TargetSpec``: dtype tables, NaN and
max/min rules, mask formats, rounding, the forms it refuses ...), and a timed family also
``plan``, the lowering of the timed engine (DMA bursts, scalar steps, vector repeats, SIMT
launches), and ``TIMING_USES``, the cost entries each instruction's lowering uses. A device
config (``configs/*.toml``) names its family in ``target``. A new target is a new package plus
a config; nothing here lists the families.
"""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

from ptosim.isa.spec import TargetSpec


def _package(target: str):
    return import_module(f"{__name__}.{target}")


def spec_of(target: str) -> TargetSpec:
    """The behaviour spec of the target family ``target`` (KeyError if there is none)."""
    try:
        return _package(target).SPEC
    except ModuleNotFoundError:
        raise KeyError(f"no target family {target!r} (no package targets/{target})") from None


def specs() -> list[TargetSpec]:
    """Every target family's spec: the untimed reference first, then the others by name."""
    found = [spec_of(m.name) for m in iter_modules(__path__) if m.ispkg]
    return sorted(found, key=lambda s: (s.timed, s.name))


def planner(target: str):
    """The plan function of a timed target family, or None for an untimed one (cpu)."""
    return getattr(_package(target), "plan", None)


def v_settled(target: str):
    """For the structural (cpu) view: a predicate telling the instructions whose lowering ends
    with pipe_barrier(PIPE_V) (the A2/A3 fact, with the A2/A3 vector-barrier rule cpu uses)."""
    return import_module(f"{__name__}.a2a3.unary").ends_with_v_barrier


def timing_uses(target: str) -> dict[str, tuple[str, ...]]:
    """Instruction name -> the cost entries its lowering uses on a timed target family (its
    package's ``TIMING_USES``; empty for an untimed one): what ``ptosim instructions -v``
    labels with their sources."""
    return getattr(_package(target), "TIMING_USES", {})
