"""Tiles that overlap in UB/L1 while both hold live data.

A tile binding (one TASSIGN placement, or one auto placement) is live from its first write to
its last read, in kernel order. If a different binding whose bytes overlap is written strictly
inside that interval, the data of the first is clobbered before it is used.
"""

from __future__ import annotations

from ..findings import LIVE_OVERLAP, Finding
from ..memory import SPACE_OF_LOC
from ..tensors import TileRef


def live_overlap_findings(program) -> list[Finding]:
    """Findings for overlapping tile bindings whose live ranges are interleaved with writes."""
    info: dict[int, dict] = {}
    arch = program.arch
    for instr in program:
        for name, ref in instr.tile_operands().items():
            if not isinstance(ref, TileRef) or ref.address is None:
                continue
            # a view (TRESHAPE/TSUBVIEW) is the same binding as the tile it aliases
            key = id(getattr(ref.placement, "root", ref.placement))
            d = info.setdefault(key, {"ref": ref, "writes": [], "reads": []})
            if getattr(ref.placement, "root", None) is None:
                d["ref"] = ref  # the root tile's own bytes bound the binding
            if name in instr.writes:
                d["writes"].append(instr.position)
            if name in instr.reads:
                d["reads"].append(instr.position)
        # bytes an instruction writes outside its operand tiles (e.g. an a2a3 TROWEXPAND* tmp
        # overrun): a write-only binding of its own
        stray = getattr(instr, "stray_writes", None)
        for ref in stray(arch) if stray is not None else ():
            info[id(ref)] = {"ref": ref, "writes": [instr.position], "reads": []}
    by_position: dict = {}  # built on the first finding only (labels cost on long programs)

    def label(position: int) -> str:
        if not by_position:
            by_position.update((i.position, i) for i in program)
        i = by_position[position]
        return i.label + (f" ({i.source})" if i.source else "")

    out = []
    items = list(info.values())
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            ra, rb = a["ref"], b["ref"]
            if SPACE_OF_LOC[ra.loc] != SPACE_OF_LOC[rb.loc]:
                continue
            lo = max(ra.address, rb.address)
            hi = min(ra.address + ra.size_bytes, rb.address + rb.size_bytes)
            if lo >= hi:
                continue
            for live, other in ((a, b), (b, a)):
                if not live["writes"] or not live["reads"]:
                    continue
                start, end = min(live["writes"]), max(live["reads"])
                clobber = [w for w in other["writes"] if start < w < end]
                if clobber:
                    w = clobber[0]
                    out.append(
                        LIVE_OVERLAP.make(
                            "tile-overlap-live",
                            f"{other['ref'].name} and {live['ref'].name} share bytes "
                            f"[{lo:#x}, {hi:#x}); {label(w)} writes {other['ref'].name} while "
                            f"{live['ref'].name} still holds data written by {label(start)} and "
                            f"read by {label(end)}; move one of the tiles (TASSIGN) or finish "
                            "using the first before writing the second",
                            (start, w, end),
                        )
                    )
                    break
    return out
