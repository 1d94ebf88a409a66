"""Tiles a TASSIGN places (partly) past the end of their memory (D22).

A TASSIGN only sets an address, so such a placement is accepted: the library passes tiles it
never touches for some dtypes (TGATHER's tmp for float), and on the device nothing reads them.
Each such TASSIGN site is finding F111 once per run; the first instruction that reads or writes
the tile stops with rule ``fits-in-memory`` (``ExecContext.tile_storage``).
"""

from __future__ import annotations

from ..findings import TILE_OUTSIDE_MEMORY, Finding
from ..isa.data import TAssign
from ..memory import space_of


def tile_outside_memory_findings(program) -> list[Finding]:
    """Finding F111 for each TASSIGN site (source line) that places a tile past the end of its
    memory; a loop repeating the line reports it once."""
    arch, seen, out = program.arch, set(), []
    for instr in program:
        if not isinstance(instr, TAssign):
            continue
        end, past = instr.overflow_bytes(arch)
        site = instr.source or instr.position
        if not past or site in seen:
            continue
        seen.add(site)
        tile, mem = instr.tile, space_of(instr.tile.loc)
        where = f" ({instr.source})" if instr.source else ""
        out.append(
            TILE_OUTSIDE_MEMORY.make(
                "tile-outside-memory",
                f"{instr.label}{where}: tile {tile.name} at {instr.address:#x} ends at {end:#x}, "
                f"{past} byte(s) past the end of {mem} ({end - past} bytes); the first "
                "instruction that reads or writes bytes of it past the end stops with rule "
                "fits-in-memory",
                (instr.position,),
            )
        )
    return out
