"""Fixes as edits of source lines, applied to recorded programs.

A kernel line runs many times (a loop body, every block), and a patch of the file changes every
run of it. A ``LineEdit`` says the same on a recorded program: it acts on every instruction
recorded from its source line (``file.py:57``, the instruction's ``source``; for an insert also
the call of a helper function, ``Instruction.sites``: every instruction the call records). So
the repaired program is the program the patched file would record, which lets the cause search
(checks/causes.py) test a repair without touching the file, and ``Device.run`` run it.

An event id need not be a constant. In a double-buffered loop the id alternates (``ev =
EVENTS[t % 2]``), and a constant id cannot restore such a call. An edit with ``event_like``
copies the event of another sync call of the kernel instead: in the file it writes the event
argument as that line has it (``ev``); in a recorded program the k-th call it inserts (or the
k-th call it changes) takes the id of the k-th call recorded from that line. The cause search
proposes it only for a line that runs as often as the edited one, so the two pair run by run.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ..enums import Pipe
from ..isa.sync import PipeBarrier, SetFlag, WaitFlag


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
    # the ``file:line`` of a set_flag/wait_flag whose event argument this call copies (its ids
    # run by run); ``event_id`` is then the id of its first run
    event_like: str | None = None

    def event_text(self) -> str:
        if self.event_like is not None:
            return f"the event of {self.event_like}"
        return f"EVENT_ID{self.event_id}"

    def call(self) -> str:
        """The sync call this edit writes (ISA spelling)."""
        if self.op == "pipe_barrier":
            return f"pipe_barrier({self.pipe})"
        return f"{self.op}({self.src}, {self.dst}, {self.event_text()})"

    def describe(self) -> str:
        if self.action == "insert":
            return f"insert {self.call()} {self.where} {self.line}"
        if self.action == "delete":
            return f"delete the {self.op} at {self.line}"
        return f"make the {self.op} at {self.line} {self.call()}"


def _flag_classes():
    return {"set_flag": SetFlag, "wait_flag": WaitFlag, "pipe_barrier": PipeBarrier}


def _new(edit: LineEdit, arch, source: str, event_id: int | None):
    classes = _flag_classes()
    if edit.op == "pipe_barrier":
        instr = classes["pipe_barrier"](Pipe[edit.pipe])
    else:
        instr = classes[edit.op](Pipe[edit.src], Pipe[edit.dst], event_id)
    instr._arch = arch
    instr.source = source
    return instr


def on_line(instr, line: str) -> bool:
    """``instr`` was recorded from ``line``: its own line, or a call of the helper it is in."""
    return instr.source == line or line in instr.sites


def runs(instrs: list, line: str) -> list[tuple[int, int]]:
    """(first, last) list indices of each run of ``line``: each call of the statement there.
    A statement's own instructions are consecutive, and a new call starts where its first
    instruction comes again (a loop of one statement records its calls back to back); a
    helper call's run is every instruction the call records (maximal)."""
    out, start, head = [], None, None
    for n, instr in enumerate(instrs):
        if on_line(instr, line):
            own = instr.source == line
            if start is not None and own and instr.opcode == head:
                out.append((start, n - 1))
                start = None
            if start is None:
                start, head = n, (instr.opcode if own else None)
        elif start is not None:
            out.append((start, n - 1))
            start = None
    if start is not None:
        out.append((start, len(instrs) - 1))
    return out


def flag_ids(instrs: list, line: str) -> list[int]:
    """The event ids of the set_flag/wait_flag calls recorded from ``line``, in order."""
    return [i.event_id for i in instrs if i.source == line and isinstance(i, (SetFlag, WaitFlag))]


def _ids(edit: LineEdit, instrs: list, count: int, likes: dict) -> list:
    """The event id of each of ``count`` runs of ``edit``: its ``event_like`` line's ids run by
    run when that line runs ``count`` times, else its constant id."""
    if edit.event_like is not None:
        if edit.event_like not in likes:
            likes[edit.event_like] = flag_ids(instrs, edit.event_like)
        ids = likes[edit.event_like]
        if len(ids) == count:
            return ids
    return [edit.event_id] * count


def apply_line_edits(program, edits) -> tuple[object, list[int | None]]:
    """A copy of ``program`` with ``edits`` applied at every instruction of their lines, and
    for each new position the original position it came from (None for an inserted call).
    The original instructions are not changed (the copy holds shallow copies)."""
    classes = _flag_classes()
    instrs = list(program)
    likes: dict[str, list[int]] = {}
    drop: set[int] = set()
    change: dict[int, tuple[LineEdit, int | None]] = {}
    before: dict[int, list[tuple[LineEdit, int | None]]] = {}
    after: dict[int, list[tuple[LineEdit, int | None]]] = {}
    for e in edits:
        if e.action in ("delete", "retarget"):
            cls = classes[e.op]
            at = [n for n, instr in enumerate(instrs) if instr.source == e.line
                  and type(instr) is cls]  # fmt: skip
            if e.action == "delete":
                drop.update(at)
                continue
            for n, eid in zip(at, _ids(e, instrs, len(at), likes)):
                change[n] = (e, eid)
            continue
        spans = runs(instrs, e.line)
        for (first, last), eid in zip(spans, _ids(e, instrs, len(spans), likes)):
            if e.where == "before":
                before.setdefault(first, []).append((e, eid))
            else:
                after.setdefault(last, []).append((e, eid))
    out: list = []
    origin: list[int | None] = []
    arch = program.arch
    for n, instr in enumerate(instrs):
        for e, eid in before.get(n, ()):
            out.append(_new(e, arch, f"fix before {e.line}", eid))
            origin.append(None)
        if n not in drop:
            clone = copy.copy(instr)
            e, eid = change.get(n, (None, None))
            if e is not None:
                clone.src = Pipe[e.src] if "src" in e.changes else clone.src
                clone.dst = Pipe[e.dst] if "dst" in e.changes else clone.dst
                clone.event_id = eid if "event_id" in e.changes else clone.event_id
            out.append(clone)
            origin.append(instr.position)
        for e, eid in after.get(n, ()):
            out.append(_new(e, arch, f"fix after {e.line}", eid))
            origin.append(None)
    return program.with_instructions(out), origin
