"""Running recorded programs: tile placement, UB budgets, program-order execution, results."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .config import DeviceConfig
from .enums import TileType
from .errors import ExecutionError, PtoSimError, UbBudgetError
from .findings import Finding
from .isa.base import Arch, ExecContext
from .memory import GlobalMemory, Scratchpad
from .program import Program
from .tensors import Placement, Tile, TileRef


@dataclass
class _Slot:
    placement: Placement
    size_bytes: int
    name: str
    loc: TileType


def _slots(program: Program) -> list[_Slot]:
    seen: dict[int, _Slot] = {}
    for instr in program:
        for ref in instr.tile_operands().values():
            slot = seen.get(id(ref.placement))
            if slot is None:
                seen[id(ref.placement)] = _Slot(ref.placement, ref.size_bytes, ref.name, ref.loc)
            else:
                slot.size_bytes = max(slot.size_bytes, ref.size_bytes)
    return list(seen.values())


def _fmt_tiles(slots: list[_Slot]) -> str:
    return ", ".join(
        f"{s.name} [{s.placement.address:#x}, {s.placement.address + s.size_bytes:#x}) "
        f"{s.size_bytes} B" for s in slots
    )  # fmt: skip


def simt_budget_bytes(program: Program, config: DeviceConfig) -> int | None:
    """The UB bytes a SIMT kernel may use, or None when the program launches no SIMT work.

    Raises:
        UbBudgetError: the declared dynamic UB size exceeds 256 - 8 - 32 = 216 KiB.
    """
    if config.simt is None or not any(i.is_simt(program.arch) for i in program):
        return None
    limit = config.simt_max_dyn_ubuf_bytes
    budget = program.dyn_ubuf_size or config.simt.default_dyn_ubuf_bytes
    if budget > limit:
        raise UbBudgetError(
            "kernel", "dyn_ubuf_size", "simt-dyn-ubuf-max",
            f"<= {limit} bytes (UB {config.memory.ub_size_bytes} - reserved "
            f"{config.simt.ub_reserved_bytes} - data cache {config.simt.data_cache_bytes})",
            budget, target=config.target)  # fmt: skip
    return budget


def place_tiles(program: Program, config: DeviceConfig) -> list[_Slot]:
    """Give every auto-placed tile an address and enforce the UB budget.

    Raises:
        UbBudgetError: the tiles do not fit (UB/L1 size, or the 950 SIMT budget).
    """
    slots = _slots(program)
    arch = program.arch
    simt = simt_budget_bytes(program, config)
    for loc, capacity in ((TileType.Vec, arch.ub_size_bytes), (TileType.Mat, arch.l1_size_bytes)):
        mine = [s for s in slots if s.loc is loc]
        limit = simt if (simt is not None and loc is TileType.Vec) else capacity
        for s in mine:
            if s.placement.auto:
                s.placement.address = None
        taken = sorted((s.placement.address, s.placement.address + s.size_bytes)
                       for s in mine if not s.placement.auto)  # fmt: skip
        for s in mine:
            if not s.placement.auto:
                continue
            addr = 0
            for lo, hi in taken:
                if addr + s.size_bytes <= lo:
                    break
                addr = max(addr, -(-hi // arch.ub_align_bytes) * arch.ub_align_bytes)
            s.placement.address = addr
            taken = sorted(taken + [(addr, addr + s.size_bytes)])
        over = [s for s in mine if s.placement.address + s.size_bytes > limit]
        if over:
            what = "SIMT UB budget" if limit == simt else f"{'UB' if loc is TileType.Vec else 'L1'}"
            hint = (
                (
                    " (declare a larger dynamic UB with @pto.kernel(dyn_ubuf_size=...) or "
                    "dev.run(..., dyn_ubuf_size=...), at most "
                    f"{config.simt_max_dyn_ubuf_bytes} bytes)"
                )
                if limit == simt
                else ""
            )
            raise UbBudgetError(
                "kernel", "tiles", "ub-budget", f"every tile inside the {what} of {limit} bytes",
                _fmt_tiles(over), target=config.target, detail=f"kernel {program.kernel_name}"
                + hint)  # fmt: skip
    return slots


def execute(program: Program, ctx: ExecContext) -> None:
    """Run the program's instructions in program order (no timing)."""
    for instr in program:
        ctx.instr = instr
        try:
            instr.execute(ctx)
        except PtoSimError:
            raise
        except Exception as exc:  # an internal failure still names the instruction
            raise ExecutionError(
                f"{instr.label} ({instr.source}): internal error while executing: {exc!r}"
            ) from exc
    ctx.instr = None


@dataclass
class BlockState:
    """Final on-chip memories of one block (core)."""

    program: Program
    ub: Scratchpad
    l1: Scratchpad


@dataclass
class RunResult:
    """Outcome of ``Device.run``: outputs live in the GM buffers; this holds the rest.

    Attributes:
        device: device name; config: the resolved DeviceConfig.
        cycles: total simulated cycles (None for untimed runs).
        findings: collected findings (hazards, pitch rules, out-of-tile indices ...).
        blocks: per block (core) its program and final UB/L1.
    """

    device: str
    config: DeviceConfig
    blocks: list[BlockState]
    findings: list[Finding] = field(default_factory=list)
    cycles: int | None = None

    @property
    def program(self) -> Program:
        return self.blocks[0].program

    def tile(self, tile: Tile, block: int = 0) -> np.ndarray:
        """Final contents of a tile's valid region (as placed by its last TASSIGN)."""
        st = self.blocks[block]
        ref: TileRef = tile.ref()
        mem = st.l1 if ref.loc is TileType.Mat else st.ub
        storage = mem.typed(ref.address, ref.dtype, ref.numel)
        r, c = ref.geom.grid(*ref.valid)
        return storage[ref.offsets(r, c)].copy()

    def tile_storage(self, tile: Tile, block: int = 0) -> np.ndarray:
        """Final raw storage (Rows*Cols elements, padding included) of a tile."""
        st = self.blocks[block]
        ref = tile.ref()
        mem = st.l1 if ref.loc is TileType.Mat else st.ub
        return mem.typed(ref.address, ref.dtype, ref.numel).copy()

    def summary(self) -> str:
        lines = [
            f"device {self.device} (target {self.config.target}), kernel "
            f"{self.program.kernel_name}, {len(self.blocks)} block(s), "
            f"{sum(len(b.program) for b in self.blocks)} instructions",
            "cycles: "
            + (
                "not timed (program-order run)" if self.cycles is None else str(self.cycles)
            ),  # fmt: skip
        ]
        if self.findings:
            lines.append(f"findings ({len(self.findings)}):")
            lines += [f"  - {f}" for f in self.findings]
        else:
            lines.append("findings: none")
        return "\n".join(lines)


def run_blocks(programs: list[Program], config: DeviceConfig, gm: GlobalMemory) -> RunResult:
    """Place and execute each block's program in turn (functional, program order)."""
    blocks, findings = [], []
    for program in programs:
        place_tiles(program, config)
        arch: Arch = program.arch
        ub = Scratchpad("UB", arch.ub_size_bytes)
        l1 = Scratchpad("L1", arch.l1_size_bytes)
        ctx = ExecContext(arch, ub, l1, gm)
        ctx.tiles = _slots(program)
        execute(program, ctx)
        findings += ctx.findings
        blocks.append(BlockState(program, ub, l1))
    return RunResult(config.name, config, blocks, findings)
