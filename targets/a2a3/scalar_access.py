"""A2/A3 plans of the scalar accesses GetValue / SetValue: one PIPE_S step each.

Costs (configs/a2.toml, a3.toml ``[timing.scalar]``, each an estimate there: no public figure):
a UB load ``ub_load_cycles``, a UB store ``ub_store_cycles``, a GM load through the core's
data cache model (``gm_load_hit_cycles`` / ``gm_load_miss_cycles``, the same LRU cache the
Elem-mode gather and scatter plans use), a GM store ``gm_store_cycles`` (it retires into a
write buffer; the cache model is not updated by stores).
"""

from __future__ import annotations

from ptosim.isa.scalar_access import GetValueInstr, SetValueInstr
from ptosim.plan import Region

from ..costs import scalar_step
from .gather import dcache


def plan_get_value(instr: GetValueInstr, ctx) -> list:
    s = ctx.config.timing.scalar
    space, start, end = instr.byte_range()
    args = {"index": instr.index}
    if space == "GM":
        cycles, misses = dcache(ctx).load_cycles([start])
        args.update(gm_loads=1, gm_misses=misses)
        label = "GetValue GM load"
    else:
        cycles = s.ub_load_cycles
        label = "GetValue UB load"
    return [
        scalar_step(
            cycles, label, reads=(Region(space, start, end),), bytes_=end - start, args=args
        )
    ]


def plan_set_value(instr: SetValueInstr, ctx) -> list:
    """One store step per element (a batch of C++ raw writes: ``count`` stores in order, as
    many as separate SetValues would issue)."""
    s = ctx.config.timing.scalar
    space, start, end = instr.byte_range()
    cycles = s.gm_store_cycles if space == "GM" else s.ub_store_cycles
    size = (end - start) // instr.count
    return [
        scalar_step(
            cycles,
            f"SetValue {space} store",
            writes=(Region(space, at, at + size),),
            bytes_=size,
            args={"index": instr.index + k},
        )
        for k, at in enumerate(range(start, end, size))
    ]


PLANS = {GetValueInstr: plan_get_value, SetValueInstr: plan_set_value}
