"""Fixes as edits of source lines, applied to recorded programs.

A kernel line runs many times (a loop body, every block), and a patch of the file changes every
run of it. A ``LineEdit`` says the same on a recorded program: it acts on every instruction
recorded from its source line (``file.py:57``, the instruction's ``source``). So the repaired
program is the program the patched file would record, which lets the cause search
(checks/causes.py) test a repair without touching the file, and ``Device.run`` run it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ..enums import Pipe
from ..isa.sync import PipeBarrier, SetFlag, WaitFlag
from ..program import Program


@dataclass(frozen=True)
class LineEdit:
    """One edit of a kernel source line.

    Attributes:
        action: ``"insert"`` a new sync call, ``"delete"`` the sync call of ``op`` at ``line``,
            or ``"retarget"`` it (give it ``src``/``dst``/``event_id``).
        op: ``"set_flag"``, ``"wait_flag"`` or ``"pipe_barrier"``.
        where: ``"before"`` / ``"after"`` the statement at ``line`` (insert), else ``"at"``.
        line: ``file:line`` of the anchor statement (an instruction's ``source``).
        src, dst, event_id: the flag; pipe: the barrier's pipe.
    """

    action: str
    op: str
    where: str
    line: str
    src: str | None = None
    dst: str | None = None
    event_id: int | None = None
    pipe: str | None = None
    changes: tuple[str, ...] = ()  # retarget: the arguments it changes ("src", "dst", "event_id")

    def call(self) -> str:
        """The sync call this edit writes (ISA spelling)."""
        if self.op == "pipe_barrier":
            return f"pipe_barrier({self.pipe})"
        return f"{self.op}({self.src}, {self.dst}, EVENT_ID{self.event_id})"

    def describe(self) -> str:
        if self.action == "insert":
            return f"insert {self.call()} {self.where} {self.line}"
        if self.action == "delete":
            return f"delete the {self.op} at {self.line}"
        return f"make the {self.op} at {self.line} {self.call()}"


def _flag_classes():
    return {"set_flag": SetFlag, "wait_flag": WaitFlag, "pipe_barrier": PipeBarrier}


def _new(edit: LineEdit, arch, source: str):
    classes = _flag_classes()
    if edit.op == "pipe_barrier":
        instr = classes["pipe_barrier"](Pipe[edit.pipe])
    else:
        instr = classes[edit.op](Pipe[edit.src], Pipe[edit.dst], edit.event_id)
    instr._arch = arch
    instr.source = source
    return instr


def _runs(instrs: list, line: str) -> list[tuple[int, int]]:
    """(first, last) list indices of each maximal run of consecutive instructions from
    ``line`` (a loop body's line runs once per iteration)."""
    out, start = [], None
    for n, instr in enumerate(instrs):
        if instr.source == line:
            if start is None:
                start = n
        elif start is not None:
            out.append((start, n - 1))
            start = None
    if start is not None:
        out.append((start, len(instrs) - 1))
    return out


def apply_line_edits(program, edits) -> tuple[object, list[int | None]]:
    """A copy of ``program`` with ``edits`` applied at every instruction of their lines, and
    for each new position the original position it came from (None for an inserted call).
    The original instructions are not changed (the copy holds shallow copies)."""
    classes = _flag_classes()
    instrs = list(program)
    drop: set[int] = set()
    change: dict[int, LineEdit] = {}
    before: dict[int, list[LineEdit]] = {}
    after: dict[int, list[LineEdit]] = {}
    for e in edits:
        if e.action in ("delete", "retarget"):
            cls = classes[e.op]
            for n, instr in enumerate(instrs):
                if instr.source == e.line and type(instr) is cls:
                    (drop.add(n) if e.action == "delete" else change.__setitem__(n, e))
            continue
        for first, last in _runs(instrs, e.line):
            if e.where == "before":
                before.setdefault(first, []).append(e)
            else:
                after.setdefault(last, []).append(e)
    out: list = []
    origin: list[int | None] = []
    arch = program.arch
    for n, instr in enumerate(instrs):
        for e in before.get(n, ()):
            out.append(_new(e, arch, f"fix before {e.line}"))
            origin.append(None)
        if n not in drop:
            clone = copy.copy(instr)
            e = change.get(n)
            if e is not None:
                clone.src = Pipe[e.src] if "src" in e.changes else clone.src
                clone.dst = Pipe[e.dst] if "dst" in e.changes else clone.dst
                clone.event_id = e.event_id if "event_id" in e.changes else clone.event_id
            out.append(clone)
            origin.append(instr.position)
        for e in after.get(n, ()):
            out.append(_new(e, arch, f"fix after {e.line}"))
            origin.append(None)
    for n, instr in enumerate(out):
        instr.position = n
    fixed = Program(
        program.kernel_name,
        program.arch,
        program.block_idx,
        program.block_num,
        program.dyn_ubuf_size,
        out,
    )
    fixed.tile_names = program.tile_names
    fixed.max_steps = program.max_steps
    return fixed, origin
