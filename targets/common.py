"""Plans shared by the timed targets: synchronisation instructions and TASSIGN."""

from __future__ import annotations

from ptosim.enums import Pipe
from ptosim.errors import UnsupportedError
from ptosim.isa.data import TAssign
from ptosim.isa.sync import (
    FftsCrossCoreSync,
    PipeBarrier,
    SetFlag,
    SetIntraBlock,
    WaitFlag,
    WaitFlagDev,
    WaitIntraBlock,
)
from ptosim.plan import (
    Deferred,
    Step,
    StepKind,
    cross_set_step,
    cross_wait_step,
    merge_steps,
    set_flag_step,
    wait_flag_step,
)
from ptosim.tensors import GmRef, TileRef

# Plans of one run are memoised by instruction signature (``PLAN_CACHE``; False: plan every
# instruction). A plan is a pure function of the instruction's operands and the config, except
# the data-dependent ones: the indexed instructions of these modules, and any plan with a
# Deferred part, a Step.resolve or a SIMT launch, are never cached.
PLAN_CACHE = True
_UNCACHED_MODULES = ("ptosim.isa.gather", "ptosim.isa.scatter", "ptosim.isa.tscatter")
_NOT_OPERANDS = ("position", "source", "_arch", "_bursts")
_PLAN_CACHE_SIZE = 4096  # plans per core before the cache starts over
_SIMT = StepKind.SIMT  # (Enum class attribute lookups are slow)
# the synchronisation instructions: their plan depends on their plain operands only
_SYNC_TYPES = frozenset(
    (SetFlag, WaitFlag, PipeBarrier, FftsCrossCoreSync, WaitFlagDev, SetIntraBlock, WaitIntraBlock)
)

# The vector intrinsics of each TROWEXPAND* op (EXPDIF = exp(src0 - src1): a sub, then an exp).
ROWEXPAND_INTRINSICS = {
    "MAX": ("vmax",),
    "MIN": ("vmin",),
    "ADD": ("vadd",),
    "SUB": ("vsub",),
    "MUL": ("vmul",),
    "DIV": ("vdiv",),
    "EXPDIF": ("vsub", "vexp"),
}


def address_step(s, label: str) -> Step:
    """An address constant set in a register (TASSIGN, a view): one scalar op, priced like a
    control intrinsic (the vendor cost model's 1 cycle), no data."""
    return Step(
        Pipe.PIPE_S,
        StepKind.SCALAR,
        s.op_cycles,
        label,
        data=False,
        args={"cost": "control", "source": s.control_source},
    )


def plan_sync(instr, ctx) -> list[Step] | None:
    """Steps of set_flag / wait_flag / pipe_barrier / TASSIGN, or None for other instructions."""
    s = ctx.config.timing.scalar
    if isinstance(instr, SetFlag):
        return [
            set_flag_step(instr.src, instr.dst, instr.event_id, s.flag_cycles, instr.describe())
        ]
    if isinstance(instr, WaitFlag):
        return [
            wait_flag_step(instr.src, instr.dst, instr.event_id, s.flag_cycles, instr.describe())
        ]
    if isinstance(instr, PipeBarrier):
        return [
            Step(
                instr.pipe,
                StepKind.BARRIER,
                s.barrier_cycles,
                f"pipe_barrier({instr.pipe.name})",
                data=False,
            )
        ]
    if isinstance(instr, FftsCrossCoreSync):
        return [cross_set_step(instr, s.flag_cycles)]
    if isinstance(instr, WaitFlagDev):
        return [cross_wait_step(instr, s.flag_cycles)]
    if isinstance(instr, TAssign):  # an address constant in a register
        return [address_step(s, "TASSIGN")]
    return None


def dispatch(target: str, device_family: str, plans: dict, instr, ctx) -> list:
    """The plan of ``instr``: the shared sync plans, else ``plans[type(instr)]``.

    Raises:
        UnsupportedError: the instruction has no plan on this target (never a silent
            zero-cost step).
    """
    if type(instr) in _SYNC_TYPES and PLAN_CACHE:  # one plan per flag / pipe / config
        key = (type(instr), *[v for k, v in vars(instr).items() if k not in _NOT_OPERANDS])
        cache = _plan_cache(ctx)
        steps = cache.get(key)
        if steps is None:
            steps = cache[key] = plan_sync(instr, ctx)
        return list(steps)
    steps = plan_sync(instr, ctx)
    if steps is not None:
        return steps
    fn = plans.get(type(instr))
    if fn is None:
        raise UnsupportedError(
            instr.opcode, "instruction", f"{target}-plan",
            f"an instruction with a timing plan for {device_family}", instr.opcode,
            target=target, position=instr.position, source=instr.source,
        )  # fmt: skip
    cache = _plan_cache(ctx) if PLAN_CACHE else None
    key = _plan_key(instr, cache) if cache is not None else None
    if key is None:
        return _merged(fn(instr, ctx), ctx.config.timing.scalar.issue_cycles)
    try:
        steps = cache.get(key)
    except TypeError:  # an unhashable operand (a list, an array): plan it every time
        return _merged(fn(instr, ctx), ctx.config.timing.scalar.issue_cycles)
    if steps is None:
        steps = _merged(fn(instr, ctx), ctx.config.timing.scalar.issue_cycles)
        if all(_static(st) for st in steps):
            if len(cache) > _PLAN_CACHE_SIZE:  # operands that never repeat (GM offsets)
                cache.clear()
                cache["config"] = ctx.config
            cache[key] = steps
    return list(steps)


def _plan_key(instr, cache: dict) -> tuple | None:
    """The signature of ``instr``'s plan: its type and operands (tile operands with their
    resolved addresses), or None when it is not cacheable. An instruction with GM operands is
    keyed from the second time its GM views (buffer, offset) occur: a loop that walks GM
    (new offsets every iteration) never repeats them, and hashing its operands in full cost
    more than planning."""
    if type(instr).__module__ in _UNCACHED_MODULES:
        return None
    ops = [(name, value) for name, value in vars(instr).items() if name not in _NOT_OPERANDS]
    gm = tuple((id(v.buffer), v.offset) for _, v in ops if type(v) is GmRef)
    if gm:
        seen = cache.get("gm_seen")
        if seen is None:
            seen = cache["gm_seen"] = set()
        sig = (type(instr), gm)
        if sig not in seen:
            seen.add(sig)
            return None
    items = tuple(
        (name, value, value.address if type(value) is TileRef else None) for name, value in ops
    )
    return (type(instr), items)


def _plan_cache(ctx) -> dict:
    """The plan cache of ``ctx`` for its current config."""
    cache = getattr(ctx, "plan_cache", None)
    if cache is None or cache.get("config") is not ctx.config:
        cache = ctx.plan_cache = {"config": ctx.config}
    return cache


def _static(st) -> bool:
    return type(st) is Step and st.resolve is None and st.kind is not _SIMT


def _merged(steps: list, issue_cycles: int) -> list:
    """``steps`` with runs of same-pipe steps merged (plan.merge_steps: same cycles, far fewer
    engine events), also in the parts a Deferred builds later."""
    out = merge_steps(steps, issue_cycles)
    for k, st in enumerate(out):
        if isinstance(st, Deferred):
            out[k] = Deferred(_merging(st.build, issue_cycles), st.label)
    return out


def _merging(build, issue_cycles: int):
    def merged_build(ctx) -> list:
        return _merged(build(ctx), issue_cycles)

    return merged_build
