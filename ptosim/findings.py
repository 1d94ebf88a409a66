"""Findings: problems a run detects and collects (they do not stop the run)."""

from __future__ import annotations

from dataclasses import dataclass

# Stable finding codes (documented in docs/reference.md).
GM_PITCH = "F101"  # a2a3 TLOAD/TSTORE with validCol != shape4: packed-valid GM pitch (D7)
INDEX_OUTSIDE_TILE = "F102"  # TSCATTER index past the destination tile (D5)
SCATTER_COLLISION = "F103"  # colliding destinations resolved by the warp schedule (D6)
HIDDEN_SCRATCH = "F104"  # a live tile overlaps the hidden a2a3 TROWEXPAND scratch (D10)
TILE_OVERLAP = "F105"  # two tiles of one instruction overlap in UB
DMA_EXTENT = "F106"  # a2a3 TLOAD/TSTORE moves the GlobalTensor's rows/cols, not the valid ones
DUP_CLOBBERS_SRC = "F107"  # a2a3 TDIVS/TRECIP vector_dup into a dst that overlaps src
SCALAR_ROUNDED = "F108"  # a2a3 TSUBS: the scalar negated through float was rounded
CONVERSION_UNDEFINED = "F109"  # TCVT data whose result the reference leaves undefined


@dataclass(frozen=True)
class Edit:
    """One machine-readable edit of a fix, on the recorded program (kernel positions).

    Attributes:
        action: ``"insert"`` (a new sync instruction), ``"move"`` (an existing wait_flag) or
            ``"retarget"`` (give the set_flag/wait_flag at ``position`` ``event_id``).
        op: ``"set_flag"``, ``"wait_flag"``, ``"pipe_barrier"`` or ``"wait_flag_dev"``.
        where: ``"before"`` or ``"after"`` the anchor instruction.
        anchor: kernel position of the anchor instruction.
        anchor_source: source line of the anchor (``file.py:line``), when known.
        src, dst, event_id: the flag (set_flag / wait_flag; for wait_flag_dev, event_id is
            the FFTS flag id); pipe: the barrier's pipe.
        position: for ``"move"``, the kernel position of the instruction to move.
    """

    action: str
    op: str
    where: str
    anchor: int
    anchor_source: str | None = None
    src: str | None = None
    dst: str | None = None
    event_id: int | None = None
    pipe: str | None = None
    position: int | None = None

    def describe(self) -> str:
        line = f" ({self.anchor_source})" if self.anchor_source else ""
        if self.action == "retarget":
            return f"use EVENT_ID{self.event_id} in #{self.position}{line}"
        if self.op == "pipe_barrier":
            what = f"pipe_barrier({self.pipe})"
        elif self.op == "wait_flag_dev":
            what = f"wait_flag_dev({self.event_id})"
        else:
            what = f"{self.op}({self.src}, {self.dst}, EVENT_ID{self.event_id})"
        if self.action == "move":
            what = f"move {what} #{self.position}"
        else:
            what = f"insert {what}"
        return f"{what} {self.where} #{self.anchor}{line}"


@dataclass(frozen=True)
class Finding:
    """One collected finding.

    Attributes:
        code: stable code (``F1xx`` semantics, ``F2xx`` synchronisation).
        kind: short machine-readable kind (``gm-pitch``, ``index-outside-tile`` ...).
        message: the explanation, naming the instruction(s) and how to fix it.
        instructions: kernel positions involved.
        fix: the suggested fix as edits of the recorded program (``ptosim.checks.fixes``
            applies them); empty when there is no mechanical fix.
        patch: for a cause, its fix as ``LineEdit``s of the kernel's source lines (applied
            to every instruction recorded from those lines, as a patch of the file is).
        consequences: for a cause, the findings its fix removes.
    """

    code: str
    kind: str
    message: str
    instructions: tuple[int, ...] = ()
    fix: tuple[Edit, ...] = ()
    # causes first (ptosim.checks.causes): the repair as edits of source lines, and the
    # findings this one causes (they go away with its fix)
    patch: tuple = ()
    consequences: tuple[Finding, ...] = ()

    def __str__(self) -> str:
        return f"[{self.code} {self.kind}] {self.message}"


def flatten(findings) -> list[Finding]:
    """Every finding of a causes-first list: each cause, then its consequences."""
    out: list[Finding] = []
    for f in findings:
        out.append(f)
        out += flatten(f.consequences)
    return out
