"""Where a repair goes in the source, and which event it writes (for checks/causes.py).

A recorded instruction knows the line that emitted it (``source``) and, when that line is in a
helper function, the kernel lines that called the helper (``sites``, outermost first). A repair
between two instructions belongs in the function both are written in: a wait_flag missing
before a helper's vector work goes before the *call* of the helper in the kernel body (where
the kernel's other flags are), not inside the helper, which other kernels may call too; a
barrier between two instructions of one helper goes inside it.

A call inserted or changed in a loop needs the loop's event, not a constant: the id of a
double-buffered loop alternates with the buffer. :class:`Lines` finds, for a line that runs
``n`` times, the kernel's flag lines that also run ``n`` times in the same function (their
calls pair run by run) with an id that varies; copying such a line's event argument
(``LineEdit.event_like``) writes the expression the loop needs.
"""

from __future__ import annotations

from ..isa.sync import SetFlag, WaitFlag
from .lineedits import runs


def chain(instr) -> tuple[str, ...]:
    """The kernel lines of ``instr``, outermost first: the kernel body's line, ..., its own."""
    return tuple(instr.sites) + (instr.source,)


def common_line(instr, other) -> str:
    """The line of ``instr`` in the deepest function ``instr`` and ``other`` are both written
    in (same calls down to it): where a repair between the two goes."""
    a, b = chain(instr), chain(other)
    d = 0
    while d + 1 < len(a) and d + 1 < len(b) and a[d] == b[d]:
        d += 1
    return a[d]


def _line_number(line: str) -> int:
    num = line.rpartition(":")[2]
    return int(num) if num.isdigit() else 0


def _real(source) -> bool:
    """A kernel line (not a call a fix inserted)."""
    return bool(source) and not source.startswith("fix ")


class Lines:
    """The flag lines of one recorded program: their calls' ids and where they are written."""

    def __init__(self, program):
        self.instrs = list(program)
        self.ids: dict[str, list[int]] = {}
        self.pairs: dict[str, tuple] = {}  # line -> (src, dst) of its first call
        self.scope: dict[str, tuple] = {}  # line -> the sites of its calls (its function)
        for i in self.instrs:
            if isinstance(i, (SetFlag, WaitFlag)) and _real(i.source):
                self.ids.setdefault(i.source, []).append(i.event_id)
                self.pairs.setdefault(i.source, (i.src, i.dst))
                self.scope.setdefault(i.source, tuple(i.sites))
        self._runs: dict[str, int] = {}

    def runs(self, line: str) -> int:
        """How many times ``line`` runs (maximal runs of its instructions)."""
        if line not in self._runs:
            self._runs[line] = len(runs(self.instrs, line))
        return self._runs[line]

    def likes(self, line: str, scope: tuple, pair: tuple) -> list[tuple[str, int]]:
        """(flag line, its first id) whose event a call at ``line`` may copy: written in the
        same function (``scope``: the sites of ``line``'s instructions), as many runs as
        ``line``, an id that varies between runs; one per distinct id sequence, the lines of
        ``pair`` (src, dst) first, then the nearest."""
        count = self.runs(line)
        if count < 2:
            return []
        here = _line_number(line)
        out: dict[tuple, tuple] = {}
        for other, ids in self.ids.items():
            if len(ids) != count or len(set(ids)) < 2 or self.scope[other] != scope:
                continue
            rank = (self.pairs[other] != pair, abs(_line_number(other) - here), other)
            seq = tuple(ids)
            if seq not in out or rank < out[seq][0]:
                out[seq] = (rank, other, ids[0])
        return [(other, first) for _, other, first in sorted(out.values())]

    def scope_of(self, line: str, instr) -> tuple:
        """The sites of ``line`` as seen from ``instr`` (a line of ``instr``'s chain): the
        calls down to the function ``line`` is written in."""
        c = chain(instr)
        return c[: c.index(line)] if line in c else tuple(instr.sites)
