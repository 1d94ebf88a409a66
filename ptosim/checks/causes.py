"""Causes first: one primary finding per defect, with the findings it causes beneath it.

One missing ``wait_flag`` in a loop shows as dozens of races (every iteration, every reader), a
left-over post and sometimes a hang; none of them alone says where the wait belongs. This module
finds the defect the way a reviewer would confirm it: for each synchronisation finding it builds
a few candidate repairs of source lines (checks/lineedits.py: insert the missing set or wait,
correct an event id or pipe, delete a stray set, add a barrier), applies each to every block's
program as a patch of the file would, and re-runs the structural analysis (the cpu view:
each instruction on its nominal pipe, checks/structural.py). The repair that removes the most
findings is the cause; the findings it removes are its consequences. The search then goes on
from the repaired programs, so the repairs of one run are chosen together (their event ids
cannot collide, and applied together they are what was verified).

Ranking: causes in the order they were found (the repair removing most findings first), then
the findings no repair explained, in their own order.

Cost: nothing for a run without synchronisation findings; otherwise at most ``MAX_ROUNDS``
rounds of at most ``MAX_CANDIDATES`` structural analyses (each O(n log n) in the accesses).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from .. import findings
from ..enums import Pipe
from ..findings import Edit, Finding
from .lineedits import LineEdit, apply_line_edits, on_line
from .placement import Lines, chain, common_line
from .structural import operand_regions

MAX_ROUNDS = 6
MAX_CANDIDATES = 40
# A primed set a wait misses is tried next to this many of the nearest flag lines before it
PRIME_LINES = 3
# Beyond this many instructions (all blocks) a run keeps its findings as they are (the search
# would cost seconds per candidate).
MAX_INSTRUCTIONS = 60_000
_F = findings
SYNC = tuple(c.code for c in (_F.FLAG_UNCONSUMED, _F.FLAG_MISUSE, _F.RACE, _F.CROSS_CORE,
                              _F.DMA_REORDER, _F.VECTOR_ORDER, _F.FLAG_REUSED,
                              _F.FLAG_NEVER_POSTED))  # fmt: skip
_ORDER = {"retarget": 0, "move": 1, "insert": 2, "delete": 3}  # ties: restore before removing
OWN = "own"  # a candidate that is the seed finding's own fix
_PRIORITY = {_F.FLAG_NEVER_POSTED.code: 0, _F.FLAG_REUSED.code: 1, _F.FLAG_MISUSE.code: 2,
             _F.FLAG_UNCONSUMED.code: 3}  # fmt: skip
_RACE, _REORDER, _VORDER = _F.RACE.code, _F.DMA_REORDER.code, _F.VECTOR_ORDER.code
_NEVER, _REUSED = _F.FLAG_NEVER_POSTED.code, _F.FLAG_REUSED.code
_UNCONSUMED, _MISUSE = _F.FLAG_UNCONSUMED.code, _F.FLAG_MISUSE.code


def _label(instr) -> str:
    return f"{instr.label}" + (f" ({instr.source})" if instr.source else "")


def _real(source) -> bool:
    """A kernel line (not a call a fix inserted)."""
    return bool(source) and not source.startswith("fix ")


class _State:
    """Programs of every block with the repairs chosen so far, and their structural findings."""

    def __init__(self, programs, origins, analyse_fn):
        self.programs = programs
        self.origins = origins  # per block: new position -> original position (None: inserted)
        self.notes: dict = {}
        self.findings = analyse_fn(programs, self.notes)
        self._lines: dict[int, Lines] = {}

    def lines(self, core: int) -> Lines:
        """The flag lines of block ``core``'s program (built when a candidate needs them)."""
        if core not in self._lines:
            self._lines[core] = Lines(self.programs[core])
        return self._lines[core]

    def ident(self, f: Finding) -> tuple:
        """A finding's identity across repairs: its code, kind, core and original positions."""
        core = self.notes.get(id(f), 0)
        origin = self.origins[core] if core < len(self.origins) else self.origins[0]
        return (f.code, f.kind, core, tuple(origin[p] if p < len(origin) else None
                                            for p in f.instructions))  # fmt: skip

    def core_of(self, f: Finding) -> int:
        return self.notes.get(id(f), 0)


class _Search:
    def __init__(self, programs, analyse_fn, event_ids: int):
        self.analyse_fn = analyse_fn
        self.event_ids = event_ids
        self.base = programs

    def state(self, edits: list[LineEdit]) -> _State:
        progs, origins = [], []
        for p in self.base:
            fixed, origin = apply_line_edits(p, edits)
            progs.append(fixed)
            origins.append(origin)
        return _State(progs, origins, self.analyse_fn)

    # -- candidates ---------------------------------------------------------------------------
    def candidates(self, st: _State) -> list[tuple[list[LineEdit], str, str, Finding]]:
        """(edits, kind, explanation, seed finding) for the sync findings of ``st``."""
        out: list = []
        seen: set = set()
        pairs: set = set()
        # the flag defects first (they name the sync lines themselves), then the hazards; one
        # race per pair of source lines (a loop's iterations share one repair)
        ordered = sorted(
            (f for f in st.findings if f.code in SYNC), key=lambda f: _PRIORITY.get(f.code, 9)
        )
        for f in ordered:
            if f.code in (_RACE, _REORDER, _VORDER):
                ins = st.programs[st.core_of(f)].instructions if st.programs else []
                lines = tuple(ins[p].source for p in f.instructions if p < len(ins))
                if (f.code, f.kind, lines) in pairs:
                    continue
                pairs.add((f.code, f.kind, lines))
            core = st.core_of(f)
            if core >= len(st.programs):
                continue
            for edits, kind, text in self._for(f, st.programs[core], st.lines(core), st):
                key = tuple(edits)
                if edits and key not in seen and all(_real(e.line) for e in edits):
                    seen.add(key)
                    out.append((edits, kind, text, f))
            if len(out) >= MAX_CANDIDATES:
                break
        return out[:MAX_CANDIDATES]

    def _for(self, f: Finding, prog, lines: Lines, st: _State):
        ins = prog.instructions
        at = [ins[p] for p in f.instructions if p < len(ins)]
        if not at:
            return
        if f.code == _NEVER and f.kind == "wait-never-posted":
            yield from self._never_posted(at, prog, lines)
        elif f.code == _NEVER and f.kind == "wait-before-post":
            yield from self._before_post(at[0], at[1], prog, lines)
        elif f.code == _UNCONSUMED and f.kind == "flag-unconsumed":
            yield from self._unconsumed(at[0], prog, lines, st)
            yield from self._from_fix(f, prog, lines)  # its own: the drain at the kernel's end
            yield from self._drain(at[0], prog, lines)  # the same, among the other drains
            yield from self._paired(at[0], lines)
        elif f.code == _REUSED:
            yield from self._reused(f, at, prog, lines)
        elif f.code in (_RACE, _REORDER, _VORDER, _MISUSE):
            yield from self._from_fix(f, prog, lines)

    def _events(self, lines: Lines, line: str, scope: tuple, key: tuple):
        """(event id, line it copies or None) for a call of ``key`` at ``line``: each loop
        expression that fits (checks/placement.py), then the constant id."""
        out = [(first, like) for like, first in lines.likes(line, scope, key[:2])]
        return out + [(key[2], None)]

    def _never_posted(self, at, prog, lines: Lines):
        w = at[0]
        key = _key(w)
        if len(at) > 1 and _real(at[1].source):
            p = at[1]
            line = common_line(p, w)
            text = (
                f"{_label(w)} waits for {_key_text(key)}, which nothing posts; the work it "
                f"waits for is {_label(p)}"
            )
            for eid, like in self._events(lines, line, lines.scope_of(line, p), key):
                yield ([_insert(key, "after", line, "set_flag", eid, like)], "missing-set", text)
            # right before the wait (its set-then-wait), when the work's line runs more often
            # than the wait's (the last run of a loop body the wait follows)
            for eid, like in self._events(lines, w.source, tuple(w.sites), key):
                yield ([_insert(key, "before", w.source, "set_flag", eid, like)], "missing-set",
                       text)  # fmt: skip
        yield from self._prime(w, prog, lines)
        for d in _dangling(prog):
            text = f"{_label(d)} posts {_key_text(_key(d))} but {_label(w)} waits for " + (
                _key_text(key)
            )
            yield from self._mismatch(d, w, lines, text)
        yield ([_delete(w)], "stray-wait", f"{_label(w)} waits for a post nothing makes")

    def _before_post(self, w, s, prog, lines: Lines):
        key = _key(w)
        text = f"{_label(w)} waits for the post of {_label(s)}, which comes after it"
        yield from self._prime(w, prog, lines)
        line = s.source
        for eid, like in self._events(lines, line, tuple(s.sites), key):
            if like is None or lines.ids.get(w.source) == lines.ids.get(like):
                yield (
                    [_delete(w), _insert(key, "after", line, "wait_flag", eid, like)],
                    "wait-before-post",
                    text,
                )

    def _prime(self, w, prog, lines: Lines):
        """The set a wait's first run misses, before it: next to the nearest flag lines that
        run wholly before it (a loop's primed "buffer free" event belongs before the loop)."""
        ins = prog.instructions
        if any(i.source == w.source for i in ins[: w.position]):
            return  # not the line's first run: its set is missing in the loop, not before it
        last: dict[str, int] = {}
        for i in ins[: w.position]:
            if _is_flag(i) and _real(i.source):
                last[i.source] = i.position
        later = {i.source for i in ins[w.position :] if _is_flag(i)}
        near = sorted((p, line) for line, p in last.items() if line not in later)[-PRIME_LINES:]
        key = _key(w)
        text = f"{_label(w)} waits for {_key_text(key)}, which nothing posts before it"
        for _, line in reversed(near):
            scope = lines.scope.get(line, ())
            for eid, like in self._events(lines, line, scope, key):
                for where in ("after", "before"):
                    yield ([_insert(key, where, line, "set_flag", eid, like)], "missing-set", text)

    def _mismatch(self, s, w, lines: Lines, text: str):
        """A set ``s`` and a wait ``w`` meant for each other that differ in one pipe or in the
        event: correct one of them (a loop's event is copied from the other's line)."""
        ks, kw = _key(s), _key(w)
        pipes = sum(a != b for a, b in zip(ks[:2], kw[:2]))
        if pipes == 1:
            # the pipe pair the kernel's other flag lines use is the likely right one: that
            # side's correction first (both fix the count; ties go to the first)
            others = [p for line, p in lines.pairs.items() if line not in (s.source, w.source)]
            edits = [[_retarget(s, kw[:2] + (ks[2],))], [_retarget(w, ks[:2] + (kw[2],))]]
            if others.count(ks[:2]) > others.count(kw[:2]):
                edits.reverse()
            for e in edits:
                yield (e, "wrong-pipe-pair", text)
            return
        if pipes or ks[2] == kw[2]:
            return
        for a, b in ((w, s), (s, w)):  # give a the event of b
            ids_a, ids_b = lines.ids.get(a.source, []), lines.ids.get(b.source, [])
            if len(ids_a) == len(ids_b) and len(set(ids_b)) > 1:
                yield ([_retarget(a, _key(a)[:2] + (ids_b[0],), b.source)], "wrong-event", text)
        yield ([_retarget(s, kw)], "wrong-event", text)
        yield ([_retarget(w, ks)], "wrong-event", text)

    def _unconsumed(self, d, prog, lines: Lines, st: _State):
        key = _key(d)
        ins = prog.instructions
        # the first instruction after the set that works on the destination pipe and reads
        # or writes what the pipes share: where the missing wait belongs
        consumers = []
        for f in st.findings:
            if f.code == _RACE and f.fix:
                pipes = {(e.src, e.dst) for e in f.fix if e.src}
                if (key[0].name, key[1].name) in pipes or not pipes:
                    g = max(f.instructions)
                    if g > d.position:
                        consumers.append((g, min(f.instructions)))
        # right after the set, in the set's own function: the set-then-wait of one handshake;
        # first when nothing but flags lies between the set and the consumer's statement (the
        # same program point), else only when it explains more (a race reports the last
        # unordered reader of a pipe, so an earlier one may need the wait too)
        paired = list(self._paired(d, lines))
        if not consumers:  # ordered some other way (another event): the set's own reader
            consumers = _data_reader(ins, d)
        if consumers:
            g_pos, p_pos = min(consumers)
            g, producer = ins[g_pos], ins[p_pos]
            where, line, scope = _wait_spot(prog, g, d)
            text = (
                f"{_label(producer)} on {key[0].name} produces what {_label(g)} on "
                f"{key[1].name} uses; {_label(d)} posts {_key_text(key)} after it, but nothing "
                f"waits for it before {g.label}"
            )
            start = g.position
            while start > 0 and on_line(ins[start - 1], line):
                start -= 1  # the first instruction of the consumer's statement
            adjacent = where == "before" and all(_is_flag(i) for i in ins[d.position + 1 : start])
            paired = [(edits, kind, text) for edits, kind, _ in paired]
            if adjacent:
                yield from paired
            for eid, like in self._events(lines, line, scope, key):
                yield ([_insert(key, where, line, "wait_flag", eid, like)], "missing-wait", text)
            if not adjacent:
                yield from paired
        for w in _stuck_waits(prog, st) + _partners(d, prog):
            text = f"{_label(d)} posts {_key_text(key)} but {_label(w)} waits for " + (
                _key_text(_key(w))
            )
            yield from self._mismatch(d, w, lines, text)
        yield ([_delete(d)], "stray-set", f"{_label(d)} posts {_key_text(key)}, never waited")

    def _paired(self, d, lines: Lines):
        """A wait right after set ``d``, in the set's own function (a set-then-wait)."""
        key = _key(d)
        text = f"{_label(d)} posts {_key_text(key)}, but nothing waits for it"
        for eid, like in self._events(lines, d.source, tuple(d.sites), key):
            yield ([_insert(key, "after", d.source, "wait_flag", eid, like)], "missing-wait", text)

    def _drain(self, d, prog, lines: Lines):
        """The wait that drains a primed event at the end of the kernel, among the kernel's
        other drain waits in the order of the events' first sets (the prime's order)."""
        ins = prog.instructions
        key = _key(d)
        last = ins[-1]
        line = common_line(last, d)
        first_set: dict[tuple, int] = {}
        for i in ins:
            if i.opcode == "SET_FLAG":
                first_set.setdefault((i.src, i.dst), i.position)
        mine = first_set.get(key[:2], d.position)
        spot = ("after", line)
        n = len(ins) - 1
        while n >= 0 and ins[n].opcode == "WAIT_FLAG" and _real(ins[n].source):
            if first_set.get((ins[n].src, ins[n].dst), -1) > mine:
                spot = ("before", common_line(ins[n], d))
            n -= 1
        text = (
            f"{_label(d)} posts {_key_text(key)}, never waited: drain it at the end of the kernel"
        )
        where, line = spot
        for eid, like in self._events(lines, line, lines.scope_of(line, last), key):
            yield ([_insert(key, where, line, "wait_flag", eid, like)], "missing-wait", text)

    def _reused(self, f: Finding, at, prog, lines: Lines):
        b = at[1]  # at[0]: the earlier set (named in the seed message)
        w = at[2] if len(at) > 2 else None
        key = _key(b)
        used = {i.event_id for i in prog.instructions if _is_flag(i) and _key(i)[:2] == key[:2]}
        free = [e for e in range(self.event_ids) if e not in used]
        text = f.message.split("; fix:")[0]  # both sets, the wait, the reference's rule
        for w2 in _partners(at[0], prog):
            yield from self._mismatch(at[0], w2, lines, text)
        for eid, like in self._events(lines, b.source, tuple(b.sites), key):
            if like is not None:
                yield ([_retarget(b, key[:2] + (eid,), like)], "reused-event", text)
        if free and w is not None:
            new = (key[0], key[1], free[0])
            yield ([_retarget(b, new), _retarget(w, new)], "reused-event", text)
        for e in range(self.event_ids):
            if e != key[2]:
                yield ([_retarget(b, (key[0], key[1], e))], "reused-event", text)
        yield ([_delete(b)], "reused-event", text)

    def _from_fix(self, f: Finding, prog, lines: Lines):
        ins = prog.instructions
        if f.code in (_REORDER, _VORDER) and f.fix and f.fix[0].op == "pipe_barrier":
            # the barrier right after the first writer: where such a barrier usually stands
            # (and the same order for every later reader)
            first, second = ins[min(f.instructions)], ins[max(f.instructions)]
            pipe = f.fix[0].pipe
            if _real(first.source):
                yield (
                    [LineEdit("insert", "pipe_barrier", "after", common_line(first, second),
                              pipe=pipe)],
                    f.kind,
                    f"{f.message.split('; fix:')[0]}; fix: pipe_barrier({pipe}) after "
                    f"{_label(first)}",
                )  # fmt: skip
        pair = [ins[p] for p in f.instructions if p < len(ins)]
        edits: list[LineEdit] = []
        for e in f.fix:
            anchor = ins[e.anchor] if e.anchor < len(ins) else None
            if anchor is None:
                return
            if e.action == "retarget":
                target = ins[e.position]
                edits.append(_retarget(target, (target.src, target.dst, e.event_id)))
                continue
            if e.action == "move":
                moved = ins[e.position]
                edits.append(_delete(moved))
            other = next((i for i in pair if i is not anchor), anchor)
            line = common_line(anchor, other)
            edits.append(LineEdit("insert", e.op, e.where, line, e.src, e.dst, e.event_id, e.pipe))
        if f.code == _RACE:
            yield from self._wrong_pair(f, prog)
            yield from self._loop_pair(edits, prog, lines, f.message.split("; fix:")[0])
        kind, text = OWN, f.message  # the finding's own fix, as edits of its lines
        if f.code == _RACE and any(e.op == "set_flag" for e in edits):
            # one id for every run of the lines: a free one of the pair, if any
            pair_edit = next(e for e in edits if e.op == "set_flag")
            names = (pair_edit.src, pair_edit.dst)
            used = {
                i.event_id
                for i in prog.instructions
                if _is_flag(i) and (i.src.name, i.dst.name) == names
            }
            free = [e for e in range(self.event_ids) if e not in used]
            if free and free[0] != pair_edit.event_id:
                edits = [replace(e, event_id=free[0]) if e.src else e for e in edits]
                kind, text = "missing-handshake", f.message.split("; fix:")[0]
        yield (edits, kind, text)

    def _wrong_pair(self, f: Finding, prog):
        """A set/wait pair of the kernel between the race's two instructions on the wrong
        pipe pair (one pipe differs from the race's): give both the race's pipes."""
        pipes = [(e.src, e.dst) for e in f.fix if e.src]
        if not pipes:
            return
        src, dst = pipes[0]
        first, second = min(f.instructions), max(f.instructions)
        ins = prog.instructions[first + 1 : second]
        for s in ins:
            if s.opcode != "SET_FLAG" or not _real(s.source):
                continue
            if (s.src.name == src) == (s.dst.name == dst):
                continue  # the right pair (or nothing in common)
            for w in ins:
                if w.opcode == "WAIT_FLAG" and _key(w) == _key(s) and w.position > s.position:
                    key = (Pipe[src], Pipe[dst], s.event_id)
                    yield (
                        [_retarget(s, key), _retarget(w, key)],
                        "wrong-pipe-pair",
                        f"{_label(s)} and {_label(w)} order {s.src.name} -> {s.dst.name}, "
                        f"but {_label(prog.instructions[first])} and "
                        f"{_label(prog.instructions[second])} need {src} -> {dst}",
                    )
                    break

    def _loop_pair(self, edits: list[LineEdit], prog, lines: Lines, text: str):
        """A race's new set/wait pair with the event of a loop line running as often as
        both of its lines (a pair in a double-buffered loop alternates its ids too)."""
        new = [e for e in edits if e.action == "insert" and e.op in ("set_flag", "wait_flag")]
        if len(new) != 2 or len(edits) != 2:
            return
        s, w = new
        key = (Pipe[s.src], Pipe[s.dst], s.event_id)
        first = next((i for i in prog.instructions if on_line(i, s.line)), None)
        if first is None:
            return
        scope = lines.scope_of(s.line, first)
        for like, eid in lines.likes(s.line, scope, key[:2]):
            if lines.runs(w.line) == lines.runs(s.line):
                yield (
                    [replace(s, event_id=eid, event_like=like),
                     replace(w, event_id=eid, event_like=like)],
                    "missing-handshake",
                    text,
                )  # fmt: skip

    # -- search -------------------------------------------------------------------------------
    def run(self) -> tuple[list[tuple], _State]:
        chosen: list[LineEdit] = []
        causes: list[tuple] = []
        st = self.state([])
        base = st
        for _ in range(MAX_ROUNDS):
            now = Counter(st.ident(f) for f in st.findings if f.code in SYNC)
            if not now:
                break
            best = None
            for edits, kind, text, seed in self.candidates(st):
                trial = self.state(chosen + edits)
                after = Counter(trial.ident(f) for f in trial.findings)
                gone = now - after
                new = after - now
                score = (sum(gone.values()) - 2 * sum(new.values()), -_ORDER[edits[0].action])
                if sum(gone.values()) == 0 or (best is not None and score <= best[0]):
                    continue
                best = (score, edits, kind, text, seed, gone, trial)
            if best is None or best[0][0] <= 0:
                break
            _, edits, kind, text, seed, gone, trial = best
            chosen += edits
            causes.append((edits, kind, text, st.ident(seed), gone))
            st = trial
        return causes, base


def _position_fix(edits, program) -> tuple:
    """The inserts of ``edits`` as position edits of ``program`` (the first run of each
    anchor line), for ``apply_fixes`` callers that read ``Finding.fix``; empty when an edit is
    not an insert."""
    ins = list(program)
    out = []
    for e in edits:
        if e.action != "insert":
            return ()
        runs = [i for i in ins if i.source == e.line]
        if not runs:
            return ()
        anchor = runs[0]
        if e.where == "after":  # the end of the first run of the line
            n = anchor.position
            while n + 1 < len(ins) and ins[n + 1].source == e.line:
                n += 1
            anchor = ins[n]
        out.append(Edit("insert", e.op, e.where, anchor.position, anchor.source, e.src, e.dst,
                        e.event_id, e.pipe))  # fmt: skip
    return tuple(out)


def _same_calls(fix, edits) -> bool:
    """The position-level ``fix`` makes the same calls as the line ``edits`` (a move is a
    delete and an insert)."""

    def calls(items) -> list:
        out = []
        for e in items:
            if e.action == "delete":
                out.append(("delete", e.op, "", "", -1, ""))
            else:
                eid = -1 if e.event_id is None else e.event_id
                out.append((e.action, e.op, e.src or "", e.dst or "", eid, e.pipe or ""))
        return sorted(out)

    mine = [replace(e, action="insert") if e.action == "move" else e for e in fix]
    mine += [replace(e, action="delete") for e in fix if e.action == "move"]
    return calls(mine) == calls(edits)


def _is_flag(instr) -> bool:
    return hasattr(instr, "event_id") and hasattr(instr, "src") and hasattr(instr, "dst")


def _op(instr) -> str:
    return "set_flag" if instr.opcode == "SET_FLAG" else "wait_flag"


def _key(instr) -> tuple:
    return (instr.src, instr.dst, instr.event_id)


def _key_text(key) -> str:
    src, dst, eid = key
    return f"({src.name}, {dst.name}, EVENT_ID{eid})"


def _delete(instr) -> LineEdit:
    return LineEdit("delete", _op(instr), "at", instr.source)


def _retarget(instr, key, like: str | None = None) -> LineEdit:
    """Give the flag at ``instr``'s line ``key`` (``changes`` names what differs); ``like``:
    the event is the one of that line, run by run."""
    src, dst, eid = key
    changes = tuple(
        name
        for name, new, old in (("src", src, instr.src), ("dst", dst, instr.dst),
                               ("event_id", eid, instr.event_id))
        if new != old or (name == "event_id" and like is not None)
    )  # fmt: skip
    return LineEdit("retarget", _op(instr), "at", instr.source, src.name, dst.name, eid,
                    changes=changes, event_like=like)  # fmt: skip


def _insert(key, where: str, line: str, op: str, eid: int, like: str | None = None) -> LineEdit:
    src, dst, _ = key
    return LineEdit("insert", op, where, line, src.name, dst.name, eid, event_like=like)


def _wait_spot(prog, g, d) -> tuple[str, str, tuple]:
    """Where a missing wait for ``d``'s post goes before ``g``: (where, line, its sites). In the
    function both are written in, right before ``g``'s statement; but when the block of flag
    calls just before it holds a set of the same pipe pair (the post this wait consumes), right
    after that set, as kernels pair a set with its wait."""
    line = common_line(g, d)
    ins = prog.instructions
    n = g.position
    while n > 0 and on_line(ins[n - 1], line):
        n -= 1  # the first instruction the statement at ``line`` records
    scope = tuple(chain(ins[n])[: chain(ins[n]).index(line)]) if line in chain(ins[n]) else ()
    k = n - 1
    while k >= 0 and _is_flag(ins[k]) and _real(ins[k].source):
        i = ins[k]
        if i.opcode == "SET_FLAG" and (i.src, i.dst) == (d.src, d.dst) and i.sites == scope:
            return "after", i.source, scope
        k -= 1
    return "before", line, scope


def _dangling(prog) -> list:
    """The kernel's set_flags with more posts than waits on their event (program order)."""
    sets: dict[tuple, list] = {}
    waits: dict[tuple, int] = {}
    for i in prog.instructions:
        if i.opcode == "SET_FLAG":
            sets.setdefault(_key(i), []).append(i)
        elif i.opcode == "WAIT_FLAG":
            waits[_key(i)] = waits.get(_key(i), 0) + 1
    out, lines = [], set()
    for key, ss in sets.items():
        for s in ss[waits.get(key, 0) :]:
            if s.source not in lines:
                lines.add(s.source)
                out.append(s)
    return out


def _partners(d, prog) -> list:
    """The waits that may be meant for set ``d``'s posts with one pipe wrong: a wait (first of
    its line) on ``d``'s event whose pipe pair differs from ``d``'s in one pipe, of a pair that
    is waited more often than posted. A wait right after a set of its own pair (the usual
    set-then-wait of one handshake) comes last: it is likely right as it is."""
    ins = prog.instructions
    count: Counter = Counter()
    for i in ins:
        if _is_flag(i):
            count[_key(i)] += 1 if i.opcode == "WAIT_FLAG" else -1
    kd, seen, out = _key(d), set(), []
    for n, i in enumerate(ins):
        if i.opcode != "WAIT_FLAG" or not _real(i.source) or i.source in seen:
            continue
        ki = _key(i)
        if ki[2] != kd[2] or sum(a != b for a, b in zip(ki[:2], kd[:2])) != 1 or count[ki] <= 0:
            continue
        seen.add(i.source)
        paired = n > 0 and ins[n - 1].opcode == "SET_FLAG" and _key(ins[n - 1]) == ki
        out.append((paired, n, i))
    return [i for _, _, i in sorted(out, key=lambda t: t[:2])]


def _data_reader(ins, d) -> list[tuple[int, int]]:
    """[(reader, producer)] positions: the first instruction on ``d``'s destination pipe after
    set ``d`` that touches the on-chip bytes the last instruction on its source pipe before it
    writes (what the set was posted for); empty when there is none."""
    producer = next(
        (i for i in reversed(ins[: d.position]) if not _is_flag(i) and i.nominal_pipe == d.src),
        None,
    )
    if producer is None:
        return []
    wrote = [r for r in operand_regions(producer, producer.writes) if r.space != "GM"]
    for g in ins[d.position + 1 :]:
        if _is_flag(g) or g.nominal_pipe != d.dst:
            continue
        for r in operand_regions(g, tuple(g.reads) + tuple(g.writes)):
            if any(w.space == r.space and w.start < r.end and r.start < w.end for w in wrote):
                return [(g.position, producer.position)]
    return []


def _stuck_waits(prog, st: _State) -> list:
    ins = prog.instructions
    return [ins[f.instructions[0]] for f in st.findings if f.kind == "wait-never-posted"]


def group(findings: list[Finding], programs, analyse_fn, event_ids: int) -> list[Finding]:
    """``findings`` of a run as causes first (see the module doc). ``analyse_fn(programs,
    notes)`` is the structural analysis of repaired programs (filling ``notes``: finding id ->
    core)."""
    if not any(f.code in SYNC for f in findings):
        return findings
    if sum(len(p) for p in programs) > MAX_INSTRUCTIONS:
        return findings
    search = _Search(programs, analyse_fn, event_ids)
    causes, base = search.run()
    if not causes:
        return findings
    # the run's findings (the target's view) matched to the structural ones they equal
    by_ident: dict[tuple, list[Finding]] = {}
    for f in base.findings:
        by_ident.setdefault(base.ident(f), []).append(f)
    run_ident: dict[int, tuple] = {}
    for f in findings:
        for core in range(len(programs)):
            ident = (f.code, f.kind, core, tuple(f.instructions))
            if ident in by_ident:
                run_ident[id(f)] = ident
                break
    out: list[Finding] = []
    used: set[int] = set()
    for edits, kind, text, seed_ident, gone in causes:
        members = [f for f in findings if run_ident.get(id(f)) in gone]
        seed = next((f for f in members if run_ident[id(f)] == seed_ident), None)
        if seed is None:
            seed = next(iter(by_ident.get(seed_ident, [])), None)
        if seed is None:
            continue
        rest = tuple(f for f in members if f is not seed)
        used.update(id(f) for f in members)
        if kind == OWN and _same_calls(seed.fix, edits):
            # the finding and its fix stand as they are; the rest hangs below
            out.append(replace(seed, patch=tuple(edits), consequences=rest))
            continue
        if kind == OWN:  # its own kind of fix, with the ids chosen with the other causes
            kind, text = seed.kind, seed.message.split("; fix:")[0]
        message = (
            text if "; fix:" in text else f"{text}; fix: " + "; ".join(e.describe() for e in edits)
        )
        fix = _position_fix(edits, programs[0])
        out.append(
            replace(seed, kind=kind, message=message, fix=fix, patch=tuple(edits),
                    consequences=rest)
        )  # fmt: skip
    out += [f for f in findings if id(f) not in used]
    return out
