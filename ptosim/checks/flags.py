"""Findings about the events themselves: unconsumed posts (F201) and misuse (F202).

Flags count (the n-th wait on (src, dst, id) consumes the n-th post), so setting an event again
before its previous post is consumed is not wrong by itself. F202 is reported only where it
changes something:

- ``flag-library-collision``: a kernel's set_flag/wait_flag pairs with a step of an instruction's
  internal flag chain (the library's ``PtoSetWaitFlag<A, B>`` always uses EVENT_ID0), so the
  library's own wait is satisfied by the kernel's post (or the reverse). The finding names the
  instruction whose chain it is and proposes a free id for the kernel's flags.
- ``flag-depth``: with ``sync.flag_depth`` configured, a set that may post while that many earlier
  posts of the event are still unconsumed.

When reuse makes a wait pair with a different post than intended, the data it was meant to
order races: that is an F203 (with "move the wait" as its fix), not an F202.
"""

from __future__ import annotations

from bisect import bisect_right

from ..cores import Topology
from ..findings import FLAG_MISUSE, FLAG_UNCONSUMED, Edit, Finding
from ..isa.sync import SetFlag, WaitFlag
from ..plan import StepKind
from . import clocks as C


def _label(instr) -> str:
    return f"{instr.label}" + (f" ({instr.source})" if instr.source else "")


def _text(key) -> str:
    src, dst, eid = key
    return f"({src.name}, {dst.name}, EVENT_ID{eid})"


def _user(instr) -> bool:
    return isinstance(instr, (SetFlag, WaitFlag))


def flag_findings(view, event_ids: int, flag_depth: int | None, complete: bool) -> list[Finding]:
    issued = view.issued
    sets: dict[tuple, list[int]] = {}
    waits: dict[tuple, list[int]] = {}
    set_kind, wait_kind = StepKind.SET_FLAG, StepKind.WAIT_FLAG  # (slow Enum lookups)
    for i, (step, _) in enumerate(issued):
        kind = step.kind
        if kind is set_kind:
            sets.setdefault(step.flag, []).append(i)
        elif kind is wait_kind:
            waits.setdefault(step.flag, []).append(i)
    out: list[Finding] = []
    if complete:
        out += _unconsumed(view, sets, waits)
    out += _collisions(view, sets, waits, event_ids)
    if flag_depth is not None:
        out += _depth(view, sets, waits, flag_depth)
    return out


def _unconsumed(view, sets, waits) -> list[Finding]:
    issued = view.issued
    out = []
    if not issued:
        return out
    last = issued[-1][1]
    for key, posts in sets.items():
        left = posts[len(waits.get(key, ())) :]
        if not left:
            continue
        who = ", ".join(_label(issued[i][1]) for i in left)
        src, dst, eid = key
        fix = tuple(
            Edit("insert", "wait_flag", "after", last.position, last.source, src.name, dst.name,
                 eid)
            for _ in left
        )  # fmt: skip
        out.append(
            FLAG_UNCONSUMED.make(
                "flag-unconsumed",
                f"core {view.core}: set_flag{_text(key)} posted by {who} was never waited "
                f"({len(left)} post(s) left); fix: add wait_flag{_text(key)} after "
                f"{_label(last)}, the end of the kernel (the drain of a primed event), or drop "
                "the set_flag",
                tuple(issued[i][1].position for i in left),
                fix,
            )
        )
    return out


def _collisions(view, sets, waits, event_ids: int) -> list[Finding]:
    """Kernel flags that pair with a library chain's step (counting pairing)."""
    issued = view.issued
    out = []
    for key, ws in waits.items():
        posts = sets.get(key, [])
        crossed = [(w, s) for w, s in zip(ws, posts) if _user(issued[w][1]) != _user(issued[s][1])]
        if not crossed:
            continue
        w, s = crossed[0]
        lib = issued[s][1] if _user(issued[w][1]) else issued[w][1]
        src, dst, eid = key
        used = {k[2] for k in list(sets) + list(waits) if k[:2] == (src, dst)}
        free = next((e for e in range(event_ids) if e not in used), None)
        users = sorted({issued[i][1].position for i in posts + ws if _user(issued[i][1])})
        fix = ()
        advice = "use pipe_barrier or another pipe pair: every id of the pair is in use"
        if free is not None:
            fix = tuple(Edit("retarget", "event_id", "at", p, event_id=free, position=p)
                        for p in users)  # fmt: skip
            advice = f"use another id for the kernel's own flags of this pair, e.g. EVENT_ID{free}"
        out.append(
            FLAG_MISUSE.make(
                "flag-library-collision",
                f"{_label(issued[w][1])}: its wait_flag{_text(key)} consumes the post of "
                f"{_label(issued[s][1])}; the kernel's event {_text(key)} collides with the "
                f"internal flag chain of {_label(lib)} (the library's PtoSetWaitFlag<"
                f"{src.name}, {dst.name}> uses EVENT_ID{eid}), whose own wait then pairs with "
                f"the wrong post; fix: {advice}",
                tuple(sorted({issued[w][1].position, issued[s][1].position})),
                fix,
            )
        )
    return out


def _depth(view, sets, waits, depth: int) -> list[Finding]:
    """Sets that may post while ``depth`` earlier posts of the event are still unconsumed."""
    issued, vcs = view.issued, view.clocks.vcs
    out = []
    for key, posts in sets.items():
        d = C.INDEX[key[1]]
        done = [int(vcs[w][d]) for w in waits.get(key, ())]  # increasing along the dst pipe
        bad = []
        for n, s in enumerate(posts, start=1):
            consumed = bisect_right(done, int(vcs[s][d]))
            if n - consumed > depth:
                bad.append((s, n - consumed - 1))
        if not bad:
            continue
        s, pending = bad[0]
        more = f" ({len(bad)} such sets in all)" if len(bad) > 1 else ""
        out.append(
            FLAG_MISUSE.make(
                "flag-depth",
                f"{_label(issued[s][1])}: set_flag{_text(key)} may post while {pending} earlier "
                f"post(s) of the event are still unconsumed{more}; the event holds at most "
                f"{depth} (sync.flag_depth): wait before setting again, or use distinct ids",
                tuple(sorted({issued[i][1].position for i, _ in bad})),
            )
        )
    return out


def cross_unconsumed(cores: list[tuple[int, list]], topology: Topology) -> list[Finding]:
    """F201 ``cross-flag-unconsumed`` at the end of a finished run: a cross-core round
    (``ffts_cross_core_sync``) that no ``wait_flag_dev`` consumed. Structural, like the engine's
    FFTS unit (engine/ffts.py): a round of (posters, receivers, flag) completes once every
    poster posted, and counts one on each receiver's semaphore; the n-th ``wait_flag_dev(flag)``
    of a core consumes one. Two cases: completed rounds a core never waited for (fix: its
    drain, ``wait_flag_dev(flag)`` at the end of that core's kernel) and rounds that never
    completed (a poster never posted, or is not launched: no mechanical fix)."""
    ids = tuple(core for core, _ in cores)
    last = {core: issued[-1][1] for core, issued in cores if issued}
    # (posters, receivers, flag) -> poster -> its post instrs
    posts: dict[tuple, dict[int, list]] = {}
    waits: dict[tuple[int, int], int] = {}  # (core, flag) -> wait_flag_dev steps
    for core, issued in cores:
        for step, instr in issued:
            if step.kind is StepKind.CROSS_SET:
                _, mode, flag = step.flag
                posters, receivers = topology.round_of(core, mode)
                rnd = posts.setdefault((posters, receivers, flag), {m: [] for m in posters})
                rnd[core].append(instr)
            elif step.kind is StepKind.CROSS_WAIT:
                key = (core, step.flag[2])
                waits[key] = waits.get(key, 0) + 1
    # (receiving core, flag) -> a post of each completed round it received (the receiver's own
    # when it posted too, else the first poster's)
    rounds: dict[tuple[int, int], list] = {}
    out: list[Finding] = []
    for (posters, receivers, flag), by_member in sorted(posts.items()):
        done = min(len(p) for p in by_member.values())
        for m in receivers:
            own = by_member.get(m, by_member[posters[0]])
            rounds.setdefault((m, flag), []).extend(own[:done])
        for core in sorted(c for c in posters if len(by_member[c]) > done):
            left = by_member[core][done:]
            absent = [m for m in posters if len(by_member[m]) <= done]
            note = "" if all(m in ids for m in absent) else " (not launched)"
            out.append(
                FLAG_UNCONSUMED.make(
                    "cross-flag-unconsumed",
                    f"{topology.names([core], 'core')}: ffts_cross_core_sync(flag {flag}) "
                    f"posted by {', '.join(_label(i) for i in left)} joins a round of "
                    f"{topology.names(posters)} that never completed: "
                    f"{topology.names(absent, 'core(s)')}{note} did not post it, so no "
                    f"wait_flag_dev({flag}) could consume it; post it on every core of the "
                    "group, or drop the ffts_cross_core_sync",
                    tuple(i.position for i in left),
                )
            )
    for (core, flag), own in sorted(rounds.items()):
        n = len(own) - waits.get((core, flag), 0)
        if n <= 0 or core not in last:
            continue
        left, end = own[-n:], last[core]
        out.append(
            FLAG_UNCONSUMED.make(
                "cross-flag-unconsumed",
                f"{topology.names([core], 'core')}: {n} round(s) of cross-core flag {flag} "
                "(ffts_cross_core_sync at "
                f"{', '.join(_label(i) for i in left)}) completed but were never waited; fix: "
                f"add wait_flag_dev({flag}) after {_label(end)}, the end of the core's kernel, "
                "or drop the ffts_cross_core_sync",
                tuple(i.position for i in left),
                tuple(
                    Edit(
                        "insert", "wait_flag_dev", "after", end.position, end.source, event_id=flag
                    )
                    for _ in left
                ),  # fmt: skip
            )
        )
    return out
