"""The cube <-> vector FIFO (TPipe) in the checker's words.

TPUSH / TPOP / TALLOC / TFREE are recorded as flag waits and posts, stores and loads, each
marked with what it does for its pipe (``Instruction.fifo``, ptosim/isa/cube/fifo.py). The
flag analysis finds a wait that never passes; this module says why in the FIFO's terms, naming
both sides: a producer's wait for a free slot (the consumer popped too few tiles, or popped
with the GlobalTensor form and did not TFREE), or a consumer's wait for data (the producer
pushed too few tiles). It also names the a2a3 pitfall of a TILE_NO_SPLIT vector -> cube push
issued by both vector cores (reference/cube_isa.md 6).
"""

from __future__ import annotations

from ..plan import StepKind
from . import clocks as C

_MARKED = (StepKind.CROSS_SET, StepKind.CROSS_WAIT)


def _marks(view, pipe: str, ran_only: bool = True) -> dict[str, list]:
    """The FIFO flag instructions of one core for ``pipe``, by role, in program order: those
    that ran (a TPOP stuck waiting popped nothing), or all of them."""
    out: dict[str, list] = {}
    seen: set[int] = set()
    vcs = view.clocks.vcs
    for i, (step, instr) in enumerate(view.issued):
        mark = getattr(instr, "fifo", None)
        if mark is None or mark.pipe != pipe or id(instr) in seen or step.kind not in _MARKED:
            continue
        if ran_only and vcs[i][0] == C.NEVER:
            continue
        seen.add(id(instr))
        out.setdefault(mark.role, []).append(instr)
    return out


def _site(instr) -> str:
    return f"{instr.via or instr.opcode}" + (f" ({instr.source})" if instr.source else "")


def _frees_due(popped: int, period: int) -> int:
    """Free credits a consumer posts after popping ``popped`` tiles (one per ``period``)."""
    return popped // period


def explain_stuck(views, view, instr, topology) -> str | None:
    """Why the FIFO wait ``instr`` on ``view``'s core never passes, with the fix; None when it
    is no FIFO wait."""
    mark = getattr(instr, "fifo", None)
    if mark is None or mark.role not in ("free-wait", "ready-wait"):
        return None
    by_core = {v.core: v for v in views}
    peers = [c for c in topology.posters_to(view.core, 2) if c in by_core]
    me = topology.names([view.core], "core")
    if mark.role == "free-wait":
        return _free_wait(mark, me, peers, by_core, topology)
    return _ready_wait(mark, me, peers, by_core, topology)


def _free_wait(mark, me, peers, by_core, topology) -> str:
    tile = mark.index
    what = "the TPipe destructor" if mark.op == "TPipe destructor" else f"{mark.op} of tile {tile}"
    head = (
        f"{what} on {mark.pipe} waits for a free slot (a credit the consumer posts once per "
        f"{mark.period} tile(s) it has popped and freed)"
    )
    for core in peers:
        roles = _marks(by_core[core], mark.pipe)
        pops, frees = roles.get("ready-wait", []), roles.get("free-post", [])
        name = topology.names([core], "core")
        due = _frees_due(len(pops), mark.period)
        gm_pops = [p for p in pops if p.fifo.form == "gm"]
        if len(frees) < due and gm_pops:
            return (
                f"{head}, but {name} popped {len(pops)} tile(s) with TPOP(pipe, gm) and freed "
                f"{len(frees)} time(s) ({due} due): a GlobalTensor TPOP does not free its slot; "
                f"fix: call TFREE(pipe, gm) on {name} after its loads from the slot of "
                f"{_site(gm_pops[0])}"
            )
        if len(pops) <= tile - mark.slot_num:
            return (
                f"{head}, but {name} pops only {len(pops)} tile(s) (tile {tile} needs tile "
                f"{tile - mark.slot_num} popped and freed first): {me} pushes more tiles than "
                f"{name} pops; fix: add the missing TPOP on {name}, or push fewer tiles on {me}"
            )
    return f"{head}, and no consumer posts it: every tile pushed must be popped (and freed)"


def _ready_wait(mark, me, peers, by_core, topology) -> str:
    tile = mark.index
    head = f"TPOP of tile {tile} on {mark.pipe} waits for its data"
    for core in peers:
        roles = _marks(by_core[core], mark.pipe)
        pushes = roles.get("ready-post", [])
        name = topology.names([core], "core")
        stuck = _marks(by_core[core], mark.pipe, ran_only=False).get("free-wait", [])
        waits = [w for w in stuck if w.fifo.index == len(pushes)]
        if len(pushes) <= tile and waits:
            return (
                f"{head}, but {name} is blocked before pushing it, in {_site(waits[0])} waiting "
                "for a free slot (see that finding: the root cause is on the consumer's side)"
            )
        if len(pushes) <= tile:
            return (
                f"{head}, but {name} pushes only {len(pushes)} tile(s) on it: {me} pops more "
                f"tiles than {name} pushes (mode 2: the cube's wait needs a push from each "
                f"vector core); fix: add the missing TPUSH on {name}, or remove the extra TPOP "
                f"on {me}"
            )
    return f"{head}, and the producer is blocked before its push (see its finding)"


def no_split_pushes(a, b) -> bool:
    """Whether two racing GM accesses are the stores of one TILE_NO_SPLIT vector -> cube
    TPUSH issued by both vector cores."""
    ma, mb = getattr(a, "fifo", None), getattr(b, "fifo", None)
    return (
        ma is not None and mb is not None and ma.role == mb.role == "data"
        and ma.split == mb.split == "TILE_NO_SPLIT" and ma.pipe == mb.pipe
    )  # fmt: skip


def no_split_message(a_text: str, b_text: str, region, pipe: str) -> str:
    return (
        f"{a_text} and {b_text} both store a TILE_NO_SPLIT tile into the same slot of {pipe} "
        f"({region}) with nothing ordering them: on Atlas A2/A3 both vector cores run the "
        "push, and the later store overwrites the other (a vector core whose tile is empty "
        "writes zeros over the data: reference/cube_isa.md 6); fix: split the tile between the "
        "vector cores (TILE_UP_DOWN / TILE_LEFT_RIGHT), or store on AIV0 only and signal from "
        "both: TALLOC(pipe, gm) on both, TSTORE(gm, tile) if get_subblockid() == 0, then "
        "TPUSH(pipe, gm) on both"
    )
