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
from .lineedits import LineEdit, apply_line_edits

MAX_ROUNDS = 6
MAX_CANDIDATES = 40
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
            prog = st.programs[st.core_of(f)] if st.core_of(f) < len(st.programs) else None
            if prog is None:
                continue
            for edits, kind, text in self._for(f, prog, st):
                key = tuple(edits)
                if edits and key not in seen and all(_real(e.line) for e in edits):
                    seen.add(key)
                    out.append((edits, kind, text, f))
            if len(out) >= MAX_CANDIDATES:
                break
        return out[:MAX_CANDIDATES]

    def _for(self, f: Finding, prog, st: _State):
        ins = prog.instructions
        at = [ins[p] for p in f.instructions if p < len(ins)]
        if not at:
            return
        if f.code == _NEVER and f.kind == "wait-never-posted":
            yield from self._never_posted(at, prog)
        elif f.code == _NEVER and f.kind == "wait-before-post":
            w, s = at[0], at[1]
            yield (
                [_delete(w), _insert(w, "after", s.source)],
                "wait-before-post",
                f"{_label(w)} waits for the post of {_label(s)}, which comes after it",
            )
        elif f.code == _UNCONSUMED and f.kind == "flag-unconsumed":
            yield from self._unconsumed(at[0], prog, st)
            yield from self._from_fix(f, prog)  # its own: the drain at the end of the kernel
        elif f.code == _REUSED:
            yield from self._reused(f, at, prog)
        elif f.code in (_RACE, _REORDER, _VORDER, _MISUSE):
            yield from self._from_fix(f, prog)

    def _never_posted(self, at, prog):
        w = at[0]
        key = _key(w)
        if len(at) > 1 and _real(at[1].source):
            p = at[1]
            yield (
                [_insert(w, "after", p.source, op="set_flag")],
                "missing-set",
                f"{_label(w)} waits for {_key_text(key)}, which nothing posts; the work it "
                f"waits for is {_label(p)}",
            )
        for d in _dangling(prog):
            dk = _key(d)
            if dk == key or sum(a != b for a, b in zip(dk, key)) != 1:
                continue
            text = f"{_label(d)} posts {_key_text(dk)} but {_label(w)} waits for {_key_text(key)}"
            yield ([_retarget(d, key)], "wrong-event", text)
            yield ([_retarget(w, dk)], "wrong-event", text)
        yield ([_delete(w)], "stray-wait", f"{_label(w)} waits for a post nothing makes")

    def _unconsumed(self, d, prog, st: _State):
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
        if consumers:
            g_pos, p_pos = min(consumers)
            g, producer = ins[g_pos], ins[p_pos]
            anchor = _hoist(prog, g)
            yield (
                [_insert(d, "before", anchor.source, op="wait_flag")],
                "missing-wait",
                f"{_label(producer)} on {key[0].name} produces what {_label(g)} on "
                f"{key[1].name} uses; {_label(d)} posts {_key_text(key)} after it, but nothing "
                f"waits for it before {g.label}",
            )
        for w in _stuck_waits(prog, st):
            wk = _key(w)
            if sum(a != b for a, b in zip(wk, key)) == 1:
                text = f"{_label(d)} posts {_key_text(key)} but {_label(w)} waits for " + (
                    _key_text(wk)
                )
                yield ([_retarget(d, wk)], "wrong-event", text)
                yield ([_retarget(w, key)], "wrong-event", text)
        yield ([_delete(d)], "stray-set", f"{_label(d)} posts {_key_text(key)}, never waited")

    def _reused(self, f: Finding, at, prog):
        b = at[1]  # at[0]: the earlier set (named in the seed message)
        w = at[2] if len(at) > 2 else None
        key = _key(b)
        used = {i.event_id for i in prog.instructions if _is_flag(i) and _key(i)[:2] == key[:2]}
        free = [e for e in range(self.event_ids) if e not in used]
        text = f.message.split("; fix:")[0]  # both sets, the wait, the reference's rule
        if free and w is not None:
            new = (key[0], key[1], free[0])
            yield ([_retarget(b, new), _retarget(w, new)], "reused-event", text)
        for e in range(self.event_ids):
            if e != key[2]:
                yield ([_retarget(b, (key[0], key[1], e))], "reused-event", text)
        yield ([_delete(b)], "reused-event", text)

    def _from_fix(self, f: Finding, prog):
        ins = prog.instructions
        if f.code in (_REORDER, _VORDER) and f.fix and f.fix[0].op == "pipe_barrier":
            # the barrier right after the first writer: where such a barrier usually stands
            # (and the same order for every later reader)
            first = ins[min(f.instructions)]
            pipe = f.fix[0].pipe
            if _real(first.source):
                yield (
                    [LineEdit("insert", "pipe_barrier", "after", first.source, pipe=pipe)],
                    f.kind,
                    f"{f.message.split('; fix:')[0]}; fix: pipe_barrier({pipe}) after "
                    f"{_label(first)}",
                )
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
            line = anchor.source
            if e.where == "before" and e.op == "wait_flag":
                line = _hoist(prog, anchor).source
            edits.append(LineEdit("insert", e.op, e.where, line, e.src, e.dst, e.event_id, e.pipe))
        if f.code == _RACE:
            yield from self._wrong_pair(f, prog)
        kind, text = OWN, f.message  # the finding's own fix, as edits of its lines
        if f.code == _RACE and any(e.op == "set_flag" for e in edits):
            # one id for every run of the lines: a free one of the pair, if any
            pair = next(e for e in edits if e.op == "set_flag")
            names = (pair.src, pair.dst)
            used = {
                i.event_id
                for i in prog.instructions
                if _is_flag(i) and (i.src.name, i.dst.name) == names
            }
            free = [e for e in range(self.event_ids) if e not in used]
            if free and free[0] != pair.event_id:
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


def _retarget(instr, key) -> LineEdit:
    """Give the flag at ``instr``'s line ``key`` (``changes`` names what differs)."""
    src, dst, eid = key
    changes = tuple(
        name
        for name, new, old in (("src", src, instr.src), ("dst", dst, instr.dst),
                               ("event_id", eid, instr.event_id))
        if new != old
    )  # fmt: skip
    return LineEdit("retarget", _op(instr), "at", instr.source, src.name, dst.name, eid,
                    changes=changes)  # fmt: skip


def _insert(flag, where: str, line: str, op: str | None = None) -> LineEdit:
    src, dst, eid = _key(flag)
    return LineEdit("insert", op or _op(flag), where, line, src.name, dst.name, eid)


def _hoist(prog, instr):
    """``instr``, or the first of the wait_flags right before it: a missing wait goes there
    (next to the waits it joins), the same place for every wait that pipe needs."""
    ins = prog.instructions
    n = instr.position
    while n > 0 and ins[n - 1].opcode == "WAIT_FLAG" and _real(ins[n - 1].source):
        n -= 1
    return ins[n]


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
