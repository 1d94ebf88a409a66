"""UB bytes a kernel names directly inside the region the platform config reserves (F114).

On 950 the physical UB is 256 KiB and the public platform config's ``ub_size`` is 248 KiB: the
top 8 KiB are reserved for what AscendC manages (and a SIMT launch's budget leaves them out).
The reference library's own a5 kernels and limits (``PTO_UBUF_SIZE_BYTES``, TTRANS's size
check) use the whole 256 KiB, so a launch without SIMT work may place tiles there: each TASSIGN
or raw UB copy (``copy_ubuf_to_cbuf`` / ``copy_cbuf_to_ubuf``) that reaches the reserve is
finding F114 once per source line, and the run goes on. ptosim's own allocator stays below it.
A SIMT launch's tiles are held to its budget (``ptosim/run.py``) before this pass runs.
"""

from __future__ import annotations

from ..findings import UB_RESERVE, Finding
from ..isa.cube.onchip import OnchipCopy
from ..isa.data import TAssign
from ..memory import space_of

_NAMING = (TAssign, OnchipCopy)  # the instructions that name UB bytes by address


def _named_ub_bytes(instr, arch) -> list[tuple[int, int]]:
    """The [first, end) UB byte ranges ``instr`` names by address (a TASSIGN's tile, a raw
    copy's bursts on its UB side); empty for every other instruction."""
    if isinstance(instr, TAssign) and space_of(instr.tile.loc) == "UB":
        end, _ = instr.overflow_bytes(arch)
        return [(instr.address, end)]
    if isinstance(instr, OnchipCopy):
        side = "src" if instr.src_space.startswith("UB") else "dst"
        if instr.address(side) is not None:
            return instr.bursts(side)
    return []


def ub_reserve_findings(program, reserve: tuple[int, int] | None) -> list[Finding]:
    """Finding F114 for each source line whose TASSIGN or raw copy reaches the reserved UB
    ``reserve`` ([first, end) bytes, ``MemoryConfig.ub_reserve``) without passing its end (a
    tile past the end is F111)."""
    if reserve is None:
        return []
    lo, hi = reserve
    arch, seen, out = program.arch, set(), []
    for instr in program:
        if not isinstance(instr, _NAMING):  # the cheap test first: most instructions
            continue
        ranges = _named_ub_bytes(instr, arch)
        inside = [(a, b) for a, b in ranges if b > lo and a < hi and b > a]
        site = instr.source or instr.position
        if not inside or any(b > hi for _, b in ranges) or site in seen:
            continue
        seen.add(site)
        first, last = min(a for a, _ in inside), max(b for _, b in inside)
        if isinstance(instr, TAssign):
            what = f"tile {instr.tile.name} [{first:#x}, {last:#x}) reaches"
        else:
            space = instr.src_space if instr.src_space.startswith("UB") else instr.dst_space
            what = f"its {space} bursts [{first:#x}, {last:#x}) reach"
        where = f" ({instr.source})" if instr.source else ""
        out.append(
            UB_RESERVE.make(
                "ub-reserve",
                f"{instr.label}{where}: {what} UB "
                f"[{lo:#x}, {hi:#x}), the {hi - lo} bytes above the platform config's ub_size "
                f"({lo} of {hi}): fine for a kernel that owns the whole UB, as the library's "
                "do; AscendC-managed buffers and SIMT launches must stay below it",
                (instr.position,),
            )
        )
    return out
