"""Plans shared by the timed targets: synchronisation instructions and TASSIGN."""

from __future__ import annotations

from ptosim.enums import Pipe
from ptosim.errors import UnsupportedError
from ptosim.isa.data import TAssign
from ptosim.isa.sync import PipeBarrier, SetFlag, WaitFlag
from ptosim.plan import Deferred, Step, StepKind, merge_steps, set_flag_step, wait_flag_step

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
    if isinstance(instr, TAssign):  # an address constant in a register
        return [Step(Pipe.PIPE_S, StepKind.SCALAR, s.op_cycles, "TASSIGN", data=False)]
    return None


def dispatch(target: str, device_family: str, plans: dict, instr, ctx) -> list:
    """The plan of ``instr``: the shared sync plans, else ``plans[type(instr)]``.

    Raises:
        UnsupportedError: the instruction has no plan on this target (never a silent
            zero-cost step).
    """
    steps = plan_sync(instr, ctx)
    if steps is not None:
        return steps
    fn = plans.get(type(instr))
    if fn is None:
        raise UnsupportedError(
            instr.opcode, "instruction", f"{target}-plan",
            f"an instruction with an {device_family} timing plan", instr.opcode,
            target=target, position=instr.position, source=instr.source,
        )  # fmt: skip
    return _merged(fn(instr, ctx), ctx.config.timing.scalar.issue_cycles)


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
