"""Program-order execution without timing: the untimed (cpu) target runs each instruction's
reference semantics in program order, a whole recorded program or one instruction at a time
as a session's body records it."""

from __future__ import annotations

from .errors import ExecutionError, PtoSimError
from .isa.base import ExecContext


def execute(program, ctx: ExecContext) -> None:
    """Run the program's instructions in program order (no timing)."""
    for instr in program:
        execute_one(instr, ctx)


def execute_one(instr, ctx: ExecContext) -> None:
    """Run one instruction's semantics now (program order, no timing)."""
    ctx.instr = instr
    try:
        instr.execute(ctx)
    except PtoSimError:
        raise
    except Exception as exc:  # an internal failure still names the instruction
        raise ExecutionError(
            f"{instr.label} ({instr.source}): internal error while executing: {exc!r}"
        ) from exc
    ctx.instr = None
