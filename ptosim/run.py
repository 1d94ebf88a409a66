"""Running the blocks' programs: tile placement, UB budgets, the timed run on the engine or the
untimed one in program order, the analyses, and the RunResult."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import targets
from .argcheck import check_output_path
from .checks.causes import group
from .checks.hazards import analyse
from .checks.structural import structural_issued
from .checks.tile_bounds import tile_outside_memory_findings
from .checks.tiles import live_overlap_findings
from .checks.ub_reserve import ub_reserve_findings
from .config import DeviceConfig
from .cores import Topology
from .engine import core as engine
from .engine import stops
from .engine.effects import TrackedContext, TrackedScratchpad
from .engine.locate import RunIndex
from .engine.simt import simulate_launch
from .enums import CompactMode, TileType
from .errors import ConstraintError, DeadlockError, KernelError, UbBudgetError
from .findings import FLAG_NEVER_POSTED, Finding, flatten
from .isa.base import Arch
from .isa.cube.geometry import stored
from .isa.spec import CubeAddressing
from .memory import CORE_SPACES, SPACE_OF_LOC, GlobalMemory, Scratchpad
from .program import Program
from .session import SessionProgram, body_race_error
from .summary import text_summary
from .tensors import Placement, Tile, TileRef
from .trace_io import write_chrome_trace, write_summary_csv
from .untimed import execute_cores


@dataclass
class _Slot:
    placement: Placement
    size_bytes: int
    name: str
    loc: TileType
    first: object = None  # the first instruction that uses the tile (errors name its line)

    @property
    def space(self) -> str:
        return SPACE_OF_LOC[self.loc]


def tile_bytes(arch, ref) -> int:
    """The bytes a tile occupies in its buffer: Rows x Cols, or on the NPU a compact cube tile's
    valid extent in whole fractals (ptosim/isa/cube/geometry.py)."""
    if ref.geom.compact is CompactMode.Null or arch.spec.cube.addressing is CubeAddressing.LOGICAL:
        return ref.size_bytes
    return stored(ref).size_bytes


def _slots(program: Program) -> list[_Slot]:
    seen: dict[int, _Slot] = {}
    for instr in program:
        for ref in instr.tile_operands().values():
            # a view (AliasPlacement) occupies its root tile's slot, up to the view's end
            pl = getattr(ref.placement, "root", ref.placement)
            size = getattr(ref.placement, "offset", 0) + tile_bytes(program.arch, ref)
            slot = seen.get(id(pl))
            if slot is None:
                seen[id(pl)] = _Slot(pl, size, ref.name, ref.loc, instr)
            else:
                slot.size_bytes = max(slot.size_bytes, size)
    return list(seen.values())


def _check_core_buffers(program: Program, slots: list[_Slot]) -> None:
    """Every tile lives in a buffer its core has (ptosim/cores.py, memory.CORE_SPACES).

    Raises:
        ConstraintError: at the first instruction that uses a tile of another core's buffer.
    """
    arch = program.arch
    for s in slots:
        if arch.size_of(s.space) is not None:
            continue
        role = program.core_role
        if s.space in CORE_SPACES["aic"]:
            where = "the cube core (AIC)"
            hint = (
                "declare the kernel @pto.kernel(cores='cube') or cores='mix' and use the tile "
                "on the cube core (pto.is_cube())"
            )
        else:
            where = "a vector core"
            hint = "use it on a vector core (not pto.is_cube())"
        raise ConstraintError(
            s.first.opcode if s.first is not None else "kernel",
            s.name,
            "core-buffer",
            f"a tile of a buffer of {role.label} ({', '.join(n for n, _ in arch.buffers)})",
            f"TileType::{s.loc.name} ({s.space}, a buffer of {where})",
            target=arch.target,
            position=getattr(s.first, "position", None),
            source=getattr(s.first, "source", None),
            detail=hint,
        )


def _fmt_tiles(slots: list[_Slot]) -> str:
    return ", ".join(
        f"{s.name} [{s.placement.address:#x}, {s.placement.address + s.size_bytes:#x}) "
        f"{s.size_bytes} B"
        for s in slots
    )


def simt_budget_bytes(program: Program, config: DeviceConfig) -> int | None:
    """The UB bytes a SIMT kernel may use, or None when the program launches no SIMT work.

    Raises:
        UbBudgetError: the declared dynamic UB size exceeds the usable UB minus the data cache
            (248 - 32 = 216 KiB on 950).
    """
    if config.simt is None or not any(i.is_simt(program.arch) for i in program):
        return None
    return _simt_budget(program, config)


def _simt_budget(program: Program, config: DeviceConfig) -> int:
    """The SIMT UB budget of a program that launches SIMT work (see simt_budget_bytes)."""
    limit = config.simt_max_dyn_ubuf_bytes
    budget = program.dyn_ubuf_size or config.simt.default_dyn_ubuf_bytes
    if budget > limit:
        m, simt = config.memory, config.simt
        if m.ub_physical_bytes is not None:
            parts = (
                f"physical UB {m.ub_physical_bytes} - reserved {simt.ub_reserved_bytes} = usable "
                f"{m.ub_size_bytes}, - data cache {simt.data_cache_bytes}"
            )
        else:
            parts = (
                f"UB {m.ub_size_bytes} - reserved {simt.ub_reserved_bytes} - data cache "
                f"{simt.data_cache_bytes}"
            )
        raise UbBudgetError(
            "kernel",
            "dyn_ubuf_size",
            "simt-dyn-ubuf-max",
            f"<= {limit} bytes ({parts})",
            budget,
            target=config.target,
        )
    return budget


def place_tiles(program: Program, config: DeviceConfig) -> list[_Slot]:
    """Give every auto-placed tile an address and enforce the UB budget.

    Raises:
        UbBudgetError: the tiles do not fit (UB/L1 size, or the 950 SIMT budget).
    """
    slots = _slots(program)
    _check_core_buffers(program, slots)
    arch = program.arch
    simt = simt_budget_bytes(program, config)
    for space, _ in arch.buffers:
        mine = [s for s in slots if s.space == space]
        limit = simt if (simt is not None and space == "UB") else _alloc_limit(arch, space)
        for s in mine:
            if s.placement.auto:
                s.placement.address = None
        taken = sorted(
            (s.placement.address, s.placement.address + s.size_bytes)
            for s in mine
            if not s.placement.auto
        )
        for s in mine:
            if not s.placement.auto:
                continue
            s.placement.address = _first_fit(s.size_bytes, taken, arch.ub_align_bytes)
            taken = sorted(taken + [(s.placement.address, s.placement.address + s.size_bytes)])
        _check_fits(program, config, mine, limit, simt)
    return slots


def _alloc_limit(arch: Arch, space: str) -> int:
    """The end of the bytes the allocator may give tiles of ``space``: the usable UB (the
    platform config's ``ub_size``, below 950's reserved top 8 KiB, which only a TASSIGN may
    reach), the whole buffer elsewhere."""
    capacity = arch.size_of(space)
    return min(capacity, arch.ub_size_bytes) if space == "UB" else capacity


def _first_fit(size: int, taken: list[tuple[int, int]], align: int) -> int:
    """The lowest aligned address where ``size`` bytes fit between the sorted ``taken``
    ranges."""
    addr = 0
    for lo, hi in taken:
        if addr + size <= lo:
            break
        addr = max(addr, -(-hi // align) * align)
    return addr


def _check_fits(program: Program, config: DeviceConfig, slots, limit: int, simt) -> None:
    """Raise UbBudgetError naming the slots that end past ``limit`` (bytes). A tile TASSIGNed
    past the end of its memory is no budget error: its TASSIGN reports finding F111 and its
    first access stops the run (D22); the SIMT budget still holds every tile."""
    over = [
        s
        for s in slots
        if s.placement.address + s.size_bytes > limit and (s.placement.auto or limit == simt)
    ]
    if not over:
        return
    space = over[0].space
    if limit == simt:
        what = "SIMT UB budget"
    elif limit < (program.arch.size_of(space) or limit):
        what = f"usable {space} (the platform config's; a TASSIGN may place tiles above it)"
    else:
        what = space
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
        "kernel",
        "tiles",
        "ub-budget",
        f"every tile inside the {what} of {limit} bytes",
        _fmt_tiles(over),
        target=config.target,
        detail=f"kernel {program.kernel_name}" + hint,
    )


class TilePlacer:
    """Tile placement while a session records (ptosim/session.py): a tile gets its address when
    an instruction first uses it, first fit among the tiles placed so far, with the rules and
    errors of ``place_tiles`` (TASSIGN addresses as given, UB/L1 size, the SIMT budget from the
    first SIMT launch on). ``slots`` grows as tiles appear (the run's ``ctx.tiles``).

    Differs from ``place_tiles`` only when a TASSIGN address appears after auto tiles were
    placed over it: ``place_tiles`` sees every TASSIGN first; the live-overlap check (F204)
    reports such a collision at the end of the run."""

    def __init__(self, program: Program, config: DeviceConfig):
        self.program, self.config = program, config
        self.slots: list[_Slot] = []
        self._by_root: dict[int, _Slot] = {}
        self._simt: int | None = None  # the SIMT budget once a SIMT launch was recorded

    def _limit(self, space: str) -> int:
        arch = self.program.arch
        if space == "UB" and self._simt is not None:
            return self._simt
        return _alloc_limit(arch, space)

    def place(self, instr) -> None:
        """Place the tiles ``instr`` uses for the first time; raise UbBudgetError if they (or,
        at the first SIMT launch, the tiles so far) do not fit."""
        arch, check = self.program.arch, []
        if self._simt is None and self.config.simt is not None and instr.is_simt(arch):
            self._simt = _simt_budget(self.program, self.config)
            check = [s for s in self.slots if s.space == "UB"]
        for ref in instr.tile_operands().values():
            pl = getattr(ref.placement, "root", ref.placement)
            size = getattr(ref.placement, "offset", 0) + tile_bytes(arch, ref)
            slot = self._by_root.get(id(pl))
            if slot is None:
                slot = _Slot(pl, size, ref.name, ref.loc, instr)
                _check_core_buffers(self.program, [slot])
                if pl.auto:
                    taken = sorted(
                        (s.placement.address, s.placement.address + s.size_bytes)
                        for s in self.slots
                        if s.space == slot.space
                    )
                    pl.address = _first_fit(size, taken, arch.ub_align_bytes)
                self._by_root[id(pl)] = slot
                self.slots.append(slot)
                check.append(slot)
            elif size > slot.size_bytes:
                slot.size_bytes = size
                check.append(slot)
        for space, _ in arch.buffers:
            mine = [s for s in check if s.space == space]
            if mine:
                _check_fits(self.program, self.config, mine, self._limit(space), self._simt)


@dataclass
class BlockState:
    """Final on-chip memories of one core (``buffers``: space name -> memory; ``ub``, ``l1``
    two of them, None on a core without them)."""

    program: Program
    ub: Scratchpad | None
    l1: Scratchpad | None
    buffers: dict = field(default_factory=dict)

    @property
    def role(self):
        """The core (ptosim/cores.py CoreRole)."""
        return self.program.core_role


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
    trace: object = None  # ptosim.trace.Trace of a timed run
    instructions: list = field(default_factory=list)  # per-instruction timing (timed runs)
    pipes: dict = field(default_factory=dict)  # (core, pipe name) -> pipe statistics

    @property
    def waves(self) -> dict:
        """Block -> ``engine.waves.Placement`` (physical core, wave, start cycle) of a timed
        launch of more blocks than the device has cores; empty when every block started at
        once."""
        return self.trace.waves if self.trace is not None else {}

    def all_findings(self) -> list[Finding]:
        """Every finding: each cause of ``findings``, then its consequences."""
        return flatten(self.findings)

    @property
    def pipe_busy(self) -> dict[str, int]:
        """Busy cycles per pipe, summed over cores (timed runs)."""
        out: dict[str, int] = {}
        for (_, name), ps in self.pipes.items():
            out[name] = out.get(name, 0) + ps.busy_cycles
        return out

    @property
    def program(self) -> Program:
        return self.blocks[0].program

    def tile(self, tile: Tile, block: int = 0) -> np.ndarray:
        """Final contents of a tile's valid region (as placed by its last TASSIGN) on core
        ``block`` (an index into ``blocks``: every core of the launch)."""
        ref: TileRef = tile.ref()
        storage = self._memory(ref, block).typed(ref.address, ref.dtype, ref.numel)
        r, c = ref.geom.grid(*ref.valid)
        return storage[ref.offsets(r, c)].copy()

    def tile_storage(self, tile: Tile, block: int = 0) -> np.ndarray:
        """Final raw storage (Rows*Cols elements, padding included) of a tile."""
        ref = tile.ref()
        return self._memory(ref, block).typed(ref.address, ref.dtype, ref.numel).copy()

    def _memory(self, ref: TileRef, block: int) -> Scratchpad:
        st = self.blocks[block]
        mem = st.buffers.get(SPACE_OF_LOC[ref.loc])
        if mem is None:
            raise KernelError(
                f"tile {ref.name} lives in {SPACE_OF_LOC[ref.loc]}, which {st.role.label} "
                f"(blocks[{block}]) does not have"
            )
        return mem

    def write_trace(self, path) -> None:
        """Write the Chrome Trace Event JSON (Perfetto / chrome://tracing) of a timed run."""
        self._require_timed("write_trace")
        write_chrome_trace(self, check_output_path(path, "write_trace"))

    def write_csv(self, path) -> None:
        """Write the per-core, per-pipe summary CSV of a timed run."""
        self._require_timed("write_csv")
        write_summary_csv(self, check_output_path(path, "write_csv"))

    def _require_timed(self, what: str) -> None:
        if self.trace is None:
            raise KernelError(
                f"{what}: device {self.device} runs untimed (target "
                f"{self.config.target}); use a timed device such as 'a2'"
            )

    def summary(self, *, per_instruction: bool = False) -> str:
        """Text summary: cycles, pipe busy, aggregates by instruction kind and source line, the
        critical path, findings; ``per_instruction`` adds one line per executed instruction."""
        if self.trace is not None:
            return text_summary(self, per_instruction=per_instruction)
        lines = [
            f"device {self.device} (target {self.config.target}), kernel "
            f"{self.program.kernel_name}, {len(self.blocks)} block(s), "
            f"{sum(len(b.program) for b in self.blocks)} instructions",
            "cycles: "
            + ("not timed (program-order run)" if self.cycles is None else str(self.cycles)),
        ]
        if self.findings:
            lines.append(f"findings ({len(self.findings)}):")
            lines += [f"  - {f}" for f in self.findings]
        else:
            lines.append("findings: none")
        return "\n".join(lines)


def issued_findings(
    cores, config: DeviceConfig, extra: dict[int, list] | None = None, *, complete: bool = True
) -> list[Finding]:
    """The happens-before analysis of the steps each core issued so far: the whole run
    (``complete``), or the steps up to a failure or a deadlock. ``extra`` maps a core to steps
    analysed after its issued ones (a failing instruction's own planned steps)."""
    extra = extra or {}
    return analyse(
        [(c.core, c.issued + extra.get(c.core, [])) for c in cores],
        config.sync.event_ids,
        complete=complete,
        topology=Topology([c.program.core_role for c in cores]),
        **_sync_options(config),
    )


def _timed_result(
    config: DeviceConfig, blocks, programs, sim, reported: list[tuple[Finding, int | None]]
) -> RunResult:
    """The RunResult of a (finished or deadlocked) timed run, with its findings placed in the
    trace. ``reported``: (finding, the core that reported it, or None when the analysis did)."""
    result = RunResult(config.name, config, blocks, [f for f, _ in reported], sim.cycles)
    trace = sim.trace
    trace.stopped = sim.deadlock
    if reported:
        index = RunIndex([(c.core, c.issued) for c in sim.cores], programs, trace, sim.cycles)
        trace.findings = index.mark_all(reported)
    result.trace = trace
    result.instructions = sim.states
    result.pipes = {(c.core, p.name): ps for c in sim.cores for p, ps in c.pipes.items()}
    return result


def link_onchip_paths(programs: list[Program], core_mems: list[dict]) -> None:
    """On a target whose cube core and vector cores are tightly coupled (950,
    ``CubeRules.onchip_cv_paths``), the cores of one AI core of a mixed launch share buffers: a
    vector core's ``L1`` is its cube core's, and the cube core names its vector cores' UBs
    ``UB@AIV0`` / ``UB@AIV1`` (the raw copies of ptosim/isa/cube/onchip.py write them). The
    checker keys them by the owning core (cores.py ``Topology.memory_owner``)."""
    aic: dict[int, int] = {}
    for n, p in enumerate(programs):
        role = p.core_role
        if role.launch == "mix" and p.arch.spec.cube.onchip_cv_paths and role.is_cube:
            aic[role.block] = n
    for n, p in enumerate(programs):
        role = p.core_role
        cube = aic.get(role.block)
        if cube is None or role.is_cube or role.launch != "mix":
            continue
        core_mems[n]["L1"] = core_mems[cube]["L1"]
        core_mems[cube][f"UB@AIV{role.subblock}"] = core_mems[n]["UB"]


def run_blocks(
    programs: list[Program], config: DeviceConfig, gm: GlobalMemory, progress=None
) -> RunResult:
    """Place each block's program, then execute: timed (all blocks concurrently on the engine)
    when the device has timing and a planner, else functional in program order.

    Raises:
        RaceFailureError: a timed run failed in an instruction that read data a race left.
        DeadlockError: a timed run deadlocked (it carries ``findings`` and ``partial_run``).
    """
    plan = targets.planner(config.target) if config.timing is not None else None
    blocks, ctxs = [], []
    sessions: list[SessionProgram] = []
    # tracked memories: the data effects snapshot only what an instruction touches
    core_mems = [
        {space: TrackedScratchpad(space, size) for space, size in p.arch.buffers} for p in programs
    ]
    link_onchip_paths(programs, core_mems)
    for program, mems in zip(programs, core_mems):
        session = isinstance(program, SessionProgram)
        if not session:
            place_tiles(program, config)
        arch: Arch = program.arch
        ub, l1 = mems.get("UB"), mems.get("L1")
        ctx = TrackedContext(arch, ub, l1, gm, mems)
        ctx.config = config
        ctx.simulate_launch = simulate_launch  # the warp-scheduler model, for SIMT plans
        if session:  # tiles are placed as the body runs (ptosim/session.py)
            program.bind(ctx, TilePlacer(program, config), timed=plan is not None)
            ctx.tiles = program.placer.slots
            sessions.append(program)
        else:
            ctx.tiles = _slots(program)
        ctxs.append(ctx)
        blocks.append(BlockState(program, ub, l1, mems))
    topology = Topology([p.core_role for p in programs])
    if plan is None:
        # the cores recorded ahead (a prefix of the launch: once a body reads a value, the
        # later ones run in sessions) take turns at their cross-core waits
        recorded = [(p, c) for p, c in zip(programs, ctxs) if not isinstance(p, SessionProgram)]
        execute_cores([p for p, _ in recorded], [c for _, c in recorded],
                      Topology([p.core_role for p, _ in recorded]), progress)  # fmt: skip
        for program in sessions:  # the body runs now, each instruction as it is recorded
            program.run_untimed()
            if progress is not None:
                progress(len(program), len(program))
        overlaps = [(f, c) for c, p in enumerate(programs) for f in _tile_findings(p, config)]
        findings: list[Finding] = [f for ctx in ctxs for f in ctx.findings]
        findings += [f for f, _ in overlaps]
        if progress is not None and getattr(progress, "phase", None) is not None:
            progress.phase("analysing")
        settled = targets.v_settled(config.target)
        # no plans on cpu: each instruction on its nominal pipe
        cores = [(n, structural_issued(p, settled)) for n, p in enumerate(programs)]
        findings += analyse(
            cores, config.sync.event_ids, topology=topology, **_sync_options(config)
        )
        findings = causes_first(findings, programs, config)
        result = RunResult(config.name, config, blocks, findings)
        hangs = [f for f in findings if f.code == FLAG_NEVER_POSTED.code]
        if hangs:  # the verdict of the timed targets: a hang is an error, not a finding
            err = DeadlockError(
                f"deadlock on {config.name} (from the kernel's structure; the cpu target runs "
                "the data in program order): " + "; ".join(f.message for f in hangs)
            )
            err.findings = list(findings)
            err.partial_run = result
            raise err
        return result

    phase = getattr(progress, "phase", None)
    if phase is not None:
        phase("simulating")
    try:
        sim = engine.simulate(
            programs, ctxs, plan, config.timing.scalar.issue_cycles, progress,
            device_cores=blocks_at_once(programs, config),
        )  # fmt: skip
    finally:
        for program in sessions:  # a body still waiting for a value (deadlock, failure) ends
            program.close()
    if phase is not None:
        phase("analysing")
    # per-block passes that need the whole program: after the run (a session's body ran then)
    overlaps = [(f, core) for core, p in enumerate(programs) for f in _tile_findings(p, config)]
    # (finding, reporting core): semantic findings, live tile overlaps, unconsumed posts
    reported: list[tuple[Finding, int | None]] = [
        (f, core) for core, ctx in enumerate(ctxs) for f in ctx.findings
    ]
    reported += overlaps
    reported += [(f, core) for core, f in sim.leftovers]
    if sim.failure is not None:
        if sim.failure.instr is None:  # a session's body failed between instructions
            found = [f for f, _ in reported]
            found += issued_findings(sim.cores, config, complete=False)
            err = body_race_error(sim.failure, programs, found)
            if err is None:
                raise sim.failure.error
            raise err from sim.failure.error
        extra = stops.failing_steps(sim.failure, sim.cores)
        found = [f for f, _ in reported]
        found += issued_findings(sim.cores, config, {sim.failure.core: extra}, complete=False)
        err = stops.race_first_error(sim, programs, found, extra)
        if err is None:
            raise sim.failure.error
        raise err from sim.failure.error
    finished = sim.deadlock is None
    reported += [(f, None) for f in issued_findings(sim.cores, config, complete=finished)]
    result = _timed_result(config, blocks, programs, sim, reported)
    result.findings = causes_first(result.findings, programs, config)
    if sim.deadlock is not None:
        raise stops.deadlock_error(sim, result)
    return result


def _tile_findings(program: Program, config: DeviceConfig) -> list[Finding]:
    """The per-program tile passes: TASSIGNs past the end of memory (F111), into the reserved
    UB (F114), live overlaps."""
    return (
        tile_outside_memory_findings(program)
        + ub_reserve_findings(program, config.memory.ub_reserve)
        + live_overlap_findings(program)
    )


def blocks_at_once(programs: list[Program], config: DeviceConfig) -> int:
    """How many blocks of the launch the device runs at once: its vector cores for a
    vector-only launch, its AI cores for a cube or mixed one; later blocks run in waves
    (engine/waves.py)."""
    launch = programs[0].core_role.launch if programs else "vec"
    return config.vector_cores if launch == "vec" else config.cube_cores


def causes_first(findings: list[Finding], programs, config: DeviceConfig) -> list[Finding]:
    """The findings as causes with their consequences beneath (ptosim/checks/causes.py); the
    candidate repairs are judged by the structural analysis of the repaired programs."""
    settled = targets.v_settled(config.target)

    def structural(progs, notes: dict) -> list[Finding]:
        cores = [(n, structural_issued(p, settled)) for n, p in enumerate(progs)]
        return analyse(cores, config.sync.event_ids, notes=notes, **_sync_options(config))

    return group(findings, programs, structural, config.sync.event_ids)


def _sync_options(config: DeviceConfig) -> dict:
    """Keyword options of the happens-before analysis from the device config."""
    return {
        "target": config.target,
        "flag_depth": getattr(config.sync, "flag_depth", None),
        "shared_l1": targets.spec_of(config.target).cube.onchip_cv_paths,
    }
