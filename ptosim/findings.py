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


@dataclass(frozen=True)
class Finding:
    """One collected finding.

    Attributes:
        code: stable code (``F1xx`` semantics, ``F2xx`` synchronisation).
        kind: short machine-readable kind (``gm-pitch``, ``index-outside-tile`` ...).
        message: the explanation, naming the instruction(s) and how to fix it.
        instructions: kernel positions involved.
    """

    code: str
    kind: str
    message: str
    instructions: tuple[int, ...] = ()

    def __str__(self) -> str:
        return f"[{self.code} {self.kind}] {self.message}"
