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

from ..cores import INTRA_FLAG_BASE, INTRA_ID_RULE, Topology
from ..findings import FLAG_MISUSE, FLAG_NEVER_POSTED, FLAG_REUSED, FLAG_UNCONSUMED, Edit, Finding
from ..isa.sync import SetFlag, WaitFlag
from ..plan import StepKind
from . import clocks as C
from .fifo import explain_stuck


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
    reused: set[tuple] = set()
    out: list[Finding] = _reused(view, sets, waits, reused)
    if complete:
        out += _unconsumed(view, sets, waits)
    out += _collisions(view, sets, waits, event_ids)
    if flag_depth is not None:
        # an event already reported as reused (F208) is not reported again for its depth
        out += _depth(view, {k: v for k, v in sets.items() if k not in reused}, waits, flag_depth)
    return out


def _reused(view, sets: dict, waits: dict, reported: set) -> list[Finding]:
    """A kernel's set_flag on an event that an earlier set of the kernel still occupies (no
    wait consumed it yet, in program order). The reference library's CPU simulator and cost
    model stop on it for ``Event<>`` ids ("still occupied - likely missing Wait()"): an event is
    taken from its set to its wait. The engine keeps counting (the n-th wait consumes the n-th
    post), so the run goes on and its other findings are still found. Works on the issued
    indices of each event's sets and waits (``sets``, ``waits``), not on every step."""
    issued = view.issued
    out: list[Finding] = []
    for key, posts in sets.items():
        if len(posts) < 2:
            continue
        mine = [i for i in posts if _user(issued[i][1])]
        theirs = [i for i in waits.get(key, ()) if _user(issued[i][1])]
        k = 0  # waits issued so far
        pending: list[int] = []
        for s in mine:
            while k < len(theirs) and theirs[k] < s:
                k += 1
                if pending:
                    pending.pop(0)
            if pending:
                reported.add(key)
                out.append(_reused_finding(view, key, issued[pending[0]][1], issued[s][1]))
                break
            pending.append(s)
    return out


def _reused_finding(view, key, first, second) -> Finding:
    """F208 naming both sets and the wait that consumes the first post (if any)."""
    waits = [i for st, i in view.issued if st.kind is StepKind.WAIT_FLAG and st.flag == key]
    after = [w for w in waits if w.position > second.position and _user(w)]
    wait = after[0] if after else None
    waited = f"; the next wait_flag{_text(key)} is {_label(wait)}" if wait else ""
    return FLAG_REUSED.make(
        "event-reused",
        f"core {view.core}: {_label(second)} sets {_text(key)} again while the post of "
        f"{_label(first)} is not waited yet{waited}: the event is taken from its set to its "
        "wait (the reference library's CPU simulator stops here: \"Event ID still occupied - "
        'likely missing Wait()"), and counted pairing hands each wait the oldest post, which '
        "may not be the data it means; fix: wait for the first post before setting again, or "
        "give the second set (and its wait) a free event id",
        tuple(i.position for i in (first, second, wait) if i is not None),
    )


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
        if topology.intra_sender(core, flag) is not None:
            out.append(_intra_unconsumed(core, flag, n, left, end, topology))
            continue
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


def _intra_unconsumed(core, flag, n, left, end, topology: Topology) -> Finding:
    """F201 for 950 intra-block posts no wait_intra_block consumed, in the user's ids (the
    internal flag key is INTRA_FLAG_BASE + id: ``Topology.intra_sender``)."""
    poster, sent, waited = topology.intra_sender(core, flag)
    me, them = topology.names([core], "core"), topology.names([poster], "core")
    return FLAG_UNCONSUMED.make(
        "cross-flag-unconsumed",
        f"{me}: {n} post(s) of set_intra_block(pipe, {sent}) from {them} "
        f"({', '.join(_label(i) for i in left)}) reach it as id {waited} and no "
        f"wait_intra_block(pipe, {waited}) consumes them ({INTRA_ID_RULE}); fix: "
        f"wait_intra_block(pipe, {waited}) on {me} before the first access the post guards "
        f"(at the latest after {_label(end)}, the end of the core's kernel), or drop the "
        "set_intra_block",
        tuple(i.position for i in left),
        tuple(
            Edit(
                "insert",
                "wait_intra_block",
                "after",
                end.position,
                end.source,
                event_id=waited,
                pipe="PIPE_S",
            )
            for _ in left
        ),  # fmt: skip
    )


def _never_ran(view, i: int) -> bool:
    return view.clocks.vcs[i][0] == C.NEVER


def producer_before(issued, i: int, pipe) -> object | None:
    """The last instruction before issued step ``i`` (program order) that works on ``pipe``
    and is not a flag: where a set_flag on ``pipe`` would post its work."""
    pos = issued[i][1].position
    for step, instr in reversed(issued[:i]):
        if instr.position >= pos or step.kind in (StepKind.SET_FLAG, StepKind.WAIT_FLAG):
            continue
        if step.pipe is pipe and (step.reads or step.writes):
            return instr
    return None


def stuck_findings(view) -> list[Finding]:
    """F209: waits the logical execution never passes (a hang on every target, cpu included).
    A wait_flag whose event has fewer posts than waits up to it is never posted (the root);
    a wait whose post exists but comes after it in its own pipe's order waits before its post.
    One finding per event; waits stuck only behind another stuck wait are not repeated."""
    if len(view.clocks.order) == len(view.issued):
        return []  # every step ran: nothing is stuck
    issued = view.issued
    out: list[Finding] = []
    posts: dict[tuple, int] = {}
    for step, _ in issued:
        if step.kind is StepKind.SET_FLAG:
            posts[step.flag] = posts.get(step.flag, 0) + 1
    seen: dict[tuple, int] = {}
    done: set[tuple] = set()
    for i, (step, instr) in enumerate(issued):
        if step.kind is not StepKind.WAIT_FLAG:
            continue
        key = step.flag
        n = seen[key] = seen.get(key, 0) + 1
        if key in done or not _never_ran(view, i):
            continue
        done.add(key)
        src, dst, eid = key
        if posts.get(key, 0) >= n:
            sets = [j for j, (st, _) in enumerate(issued) if st.kind is StepKind.SET_FLAG
                    and st.flag == key]  # fmt: skip
            s_instr = issued[sets[n - 1]][1]
            if s_instr.position < instr.position:
                continue  # its post is there: it is stuck behind another stuck wait
            out.append(
                FLAG_NEVER_POSTED.make(
                    "wait-before-post",
                    f"core {view.core}: {_label(instr)} waits for {_text(key)}, whose post is "
                    f"{_label(s_instr)}, later in the program: {dst.name} blocks before "
                    f"{src.name} can post it (a hang on every target); fix: move the wait after "
                    f"{s_instr.label}, or set the event before waiting",
                    (instr.position, s_instr.position),
                    (
                        Edit(
                            "move",
                            "wait_flag",
                            "after",
                            s_instr.position,
                            s_instr.source,
                            src.name,
                            dst.name,
                            eid,
                            position=instr.position,
                        ),
                    ),  # fmt: skip
                )
            )
            continue
        prod = producer_before(issued, i, src)
        fix: tuple = ()
        advice = f"add set_flag{_text(key)} on {src.name} before it"
        if prod is not None:
            fix = (
                Edit("insert", "set_flag", "after", prod.position, prod.source, src.name,
                     dst.name, eid),
            )  # fmt: skip
            advice = f"add set_flag{_text(key)} after {_label(prod)}"
        out.append(
            FLAG_NEVER_POSTED.make(
                "wait-never-posted",
                f"core {view.core}: {_label(instr)} waits for {_text(key)}, which no set_flag "
                f"posts (wait {n}, posts {posts.get(key, 0)}): {dst.name} blocks forever (a "
                f"hang on every target); fix: {advice}, or correct the event of the wait or of "
                "the set meant for it",
                (instr.position,) + ((prod.position,) if prod is not None else ()),
                fix,
            )
        )
    return out


def cross_stuck(views, topology: Topology) -> list[Finding]:
    """F209 for wait_flag_dev steps the logical execution never passes: the FFTS round they
    wait for never completes (a member of the group never posts it, or is not launched), or
    the core's own post comes after the wait (a wait before its post)."""
    if all(len(v.clocks.order) == len(v.issued) for v in views):
        return []  # every step of every core ran
    posted: dict[tuple[int, int], list] = {}  # (core, flag) -> its ffts_cross_core_sync instrs
    # (core, flag) -> (set_intra_block, its receiver) of the 950 point-to-point flags
    intra: dict[tuple[int, int], list] = {}
    modes: dict[int, int] = {}
    for v in views:
        for step, instr in v.issued:
            if step.kind is StepKind.CROSS_SET:
                _, mode, flag = step.flag
                if flag >= INTRA_FLAG_BASE:
                    to = topology.round_of(v.core, mode)[1]
                    intra.setdefault((v.core, flag), []).append((instr, to))
                    continue
                posted.setdefault((v.core, flag), []).append(instr)
                modes[flag] = mode
    out: list[Finding] = []
    for v in views:
        for i, (step, instr) in enumerate(v.issued):
            if step.kind is not StepKind.CROSS_WAIT or not _never_ran(v, i):
                continue
            flag = step.flag[2]
            sender = topology.intra_sender(v.core, flag)
            if sender is not None:
                why = explain_stuck(views, v, instr, topology)
                out.append(_intra_stuck(v.core, instr, flag, intra, topology, why))
                break  # the rest of the core is stuck behind it
            mode = modes.get(flag, topology.likely_mode(v.core))
            members = topology.posters_to(v.core, mode)
            absent = [m for m in members if not posted.get((m, flag))]
            own = posted.get((v.core, flag), [])
            fifo_why = explain_stuck(views, v, instr, topology)
            if fifo_why is not None:
                why = fifo_why
            elif absent:
                missing = [m for m in absent if m >= len(topology)]
                note = f" ({topology.names(missing, 'core(s)')} not launched)" if missing else ""
                why = (
                    f"{topology.names(absent, 'core(s)')}{note} of the group "
                    f"{topology.names(members, 'of cores')} never post "
                    f"ffts_cross_core_sync(flag {flag}), so the round never completes; post it "
                    "on every core of the group (SyncAll must be reached by every block)"
                )
            elif own and all(p.position > instr.position for p in own):
                why = (
                    f"this core posts flag {flag} only later ({_label(own[0])}): the wait "
                    "comes before its own post; post first, then wait"
                )
            else:
                why = f"every round of flag {flag} is consumed before it: one wait too many"
            out.append(
                FLAG_NEVER_POSTED.make(
                    "cross-wait-never-posted",
                    f"{topology.names([v.core], 'core')}: {_label(instr)} waits for cross-core "
                    f"flag {flag}, which "
                    f"never completes (a hang on every target): {why}",
                    (instr.position,),
                )
            )
            break  # the rest of the core is stuck behind it
    return out


def _intra_stuck(core, instr, flag, intra, topology: Topology, fifo_why) -> Finding:
    """F209 for a 950 wait_intra_block that never returns, in the user's ids: the one core that
    can post it and the id that core passes to set_intra_block (``Topology.intra_sender``)."""
    poster, sent, waited = topology.intra_sender(core, flag)
    me, them = topology.names([core], "core"), topology.names([poster], "core")
    posts = intra.get((poster, flag), [])
    to_me = [p for p, receivers in posts if core in receivers]
    if fifo_why is not None:
        why = fifo_why
    elif not to_me:
        why = (
            f"{them} never posts set_intra_block(pipe, {sent}), the only post that reaches "
            f"{me} as id {waited} ({INTRA_ID_RULE})"
        )
        astray = [(p, r) for p, r in posts if core not in r]
        if astray:
            p, receivers = astray[0]
            why += f"; its {_label(p)} reaches {topology.names(receivers, 'core')} instead"
    else:
        why = (
            f"every set_intra_block(pipe, {sent}) from {them} ({len(to_me)}) is consumed "
            "before it: one wait too many"
        )
    return FLAG_NEVER_POSTED.make(
        "cross-wait-never-posted",
        f"{me}: {_label(instr)} waits for intra-block id {waited} from {them}, which never "
        f"comes (a hang on every target): {why}",
        (instr.position,),
    )
