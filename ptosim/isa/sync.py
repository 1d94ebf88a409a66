"""Synchronisation: set_flag, wait_flag, pipe_barrier.

In program order (cpu target, functional runs) they have no effect on data; the timed engine
gives them their meaning (DESIGN.md section 4).
"""

from __future__ import annotations

from ..enums import QUEUE_PIPES, Pipe
from ..errors import KernelError
from ..program import emit
from .base import Arch, Instruction
from .registry import TARGETS, instruction

_NO_DATA = {t: () for t in TARGETS}

_FLAG_PIPES = QUEUE_PIPES


class _Flag(Instruction):
    def __init__(self, src: Pipe, dst: Pipe, event_id: int):
        self.src, self.dst, self.event_id = src, dst, event_id

    @property
    def key(self) -> tuple[Pipe, Pipe, int]:
        return self.src, self.dst, self.event_id

    def validate(self, arch: Arch) -> None:
        for operand, pipe in (("src_pipe", self.src), ("dst_pipe", self.dst)):
            self.require(
                pipe in _FLAG_PIPES, operand, "flag-pipe", "a single pipe (not PIPE_ALL)", pipe.name
            )
        self.require(
            self.src is not self.dst,
            "dst_pipe",
            "distinct-pipes",
            f"a pipe other than {self.src.name} (use pipe_barrier({self.src.name}) to "
            "order work inside one pipe)",
            self.dst.name,
        )
        self.require(
            0 <= self.event_id < arch.event_ids,
            "event_id",
            "event-id-range",
            f"0..{arch.event_ids - 1} on {arch.device}",
            self.event_id,
        )

    def execute(self, ctx) -> None:
        """No data effect."""

    def describe(self) -> str:
        return f"{self.opcode.lower()}({self.src.name}, {self.dst.name}, EVENT_ID{self.event_id})"


class SetFlag(_Flag):
    opcode = "SET_FLAG"

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.src


class WaitFlag(_Flag):
    opcode = "WAIT_FLAG"

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.dst


class PipeBarrier(Instruction):
    opcode = "PIPE_BARRIER"

    def __init__(self, pipe: Pipe):
        self.pipe = pipe

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.pipe

    def execute(self, ctx) -> None:
        """No data effect."""


def _event(event_id) -> int:
    if isinstance(event_id, str) and event_id.upper().startswith("EVENT_ID"):
        event_id = event_id[8:]
    try:
        return int(event_id)
    except (TypeError, ValueError):
        raise KernelError(f"event id must be an integer or 'EVENT_IDn', got {event_id!r}") from None


@instruction(family="synchronisation", summary="post an event from SRC to DST", dtypes=_NO_DATA)
def set_flag(src_pipe, dst_pipe, event_id) -> None:
    """Post event (src, dst, id) once all earlier ``src_pipe`` work has finished."""
    emit(
        SetFlag(
            Pipe.parse(src_pipe, "set_flag src"),
            Pipe.parse(dst_pipe, "set_flag dst"),
            _event(event_id),
        )
    )


@instruction(
    family="synchronisation", summary="block DST until the event is posted", dtypes=_NO_DATA
)
def wait_flag(src_pipe, dst_pipe, event_id) -> None:
    """Block ``dst_pipe`` until event (src, dst, id) is posted, consuming it."""
    emit(
        WaitFlag(
            Pipe.parse(src_pipe, "wait_flag src"),
            Pipe.parse(dst_pipe, "wait_flag dst"),
            _event(event_id),
        )
    )


@instruction(
    family="synchronisation", summary="drain a pipe (PIPE_ALL: every pipe)", dtypes=_NO_DATA
)
def pipe_barrier(pipe) -> None:
    """Drain ``pipe`` before later work on it (PIPE_ALL: drain every pipe)."""
    emit(PipeBarrier(Pipe.parse(pipe, "pipe_barrier")))
