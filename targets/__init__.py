"""Targets: the device families ptosim simulates.

Each target family maps a set of devices (``configs/*.toml``) onto the per-target semantic rules
of the instructions (DESIGN.md section 6). The lowering plans of the timed engine (DMA bursts,
scalar steps, vector repeats, SIMT launches) will live in one sub-package per target.
"""

FAMILIES = {
    "cpu": "reference semantics of the PTO CPU simulator, program order, no timing",
    "a2a3": "Atlas A2/A3 vector core: scalar pipe S, MTE2 GM->UB, MTE3 UB->GM, vector pipe V",
    "a5": "Ascend 950PR/950DT vector core: SIMT launches dim3{32, W} and vector-register loops",
}


def planner(target: str):
    """The plan function of a timed target family, or None for the untimed cpu target."""
    if target == "a2a3":
        from . import a2a3

        return a2a3.plan
    if target == "a5":
        from . import a5

        return a5.plan
    return None


def timing_uses(target: str) -> dict[str, tuple[str, ...]]:
    """Instruction name -> the cost entries its lowering uses on a timed target family (empty
    for the untimed cpu target): what ``ptosim instructions -v`` labels with their sources."""
    if target == "a2a3":
        from .a2a3.timing_sources import USES

        return USES
    if target == "a5":
        from .a5.timing_sources import USES

        return USES
    return {}
