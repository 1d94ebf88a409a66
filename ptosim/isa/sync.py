"""Synchronisation: set_flag, wait_flag, pipe_barrier; across cores ffts_cross_core_sync,
wait_flag_dev and SyncAll.

In program order (cpu target, functional runs) they have no effect on data; the timed engine
gives them their meaning (DESIGN.md section 4).
"""

from __future__ import annotations

from ..argcheck import as_int, is_int
from ..cores import INTRA_FLAG_BASE, INTRA_MODES, INTRA_SUBCORE_OFFSET
from ..enums import QUEUE_PIPES, Pipe
from ..errors import KernelError
from ..program import current, emit
from .base import Arch, Instruction
from .registry import instruction

_FLAG_PIPES = QUEUE_PIPES


class _Flag(Instruction):
    def __init__(self, src: Pipe, dst: Pipe, event_id: int):
        self.src, self.dst, self.event_id = src, dst, event_id

    @property
    def key(self) -> tuple[Pipe, Pipe, int]:
        return self.src, self.dst, self.event_id

    def validation_key(self, arch: Arch) -> tuple:
        # validate reads the two pipes and the event id only: a loop's flags validate once
        return (type(self), id(arch), self.src, self.dst, self.event_id)

    def validate(self, arch: Arch) -> None:
        for operand, pipe in (("src_pipe", self.src), ("dst_pipe", self.dst)):
            self.require(
                pipe in _FLAG_PIPES, operand, "flag-pipe", "a single pipe (not PIPE_ALL)", pipe.name
            )
        self.require(
            self.src is not self.dst,
            "dst_pipe",
            "distinct-pipes",
            f"a pipe other than {self.src.name} (use pipe_barrier({self.src.name}) to "
            "order work inside one pipe)",
            self.dst.name,
        )
        self.require(
            0 <= self.event_id < arch.event_ids,
            "event_id",
            "event-id-range",
            f"0..{arch.event_ids - 1} on {arch.device}",
            self.event_id,
        )

    def execute(self, ctx) -> None:
        """No data effect."""

    def describe(self) -> str:
        return f"{self.opcode.lower()}({self.src.name}, {self.dst.name}, EVENT_ID{self.event_id})"


class SetFlag(_Flag):
    opcode = "SET_FLAG"

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.src


class WaitFlag(_Flag):
    opcode = "WAIT_FLAG"

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.dst


# The cube's unit flag (AccPhase::Final on a mad, STPhase::Final on the fixpipe copy that reads
# its accumulator): the hardware hands the finished accumulator from PIPE_M to PIPE_FIX itself,
# so kernels that use it drop their M -> FIX set_flag / wait_flag (reference/cube_isa.md 3.4).
# ptosim records it as that pair on an event id outside the kernels' range (0-7 on a2a3, 0-15
# on 950), so the engine, the cpu structure and the checker order the two like a handshake.
UNIT_FLAG_EVENT = 16


class UnitFlagSet(SetFlag):
    """Posts the unit flag: after a mad with AccPhase::Final (PIPE_M -> PIPE_FIX), or before a
    unit-flag mad that starts an accumulation once the fixpipe is done (PIPE_FIX -> PIPE_M)."""

    def validate(self, arch: Arch) -> None:
        """Its pipes and id are fixed (no kernel operand to check)."""

    def describe(self) -> str:
        return f"unit flag: {self.src.name} -> {self.dst.name} done"


class UnitFlagWait(WaitFlag):
    """Waits for the unit flag: a fixpipe copy with STPhase::Final for its mad, a unit-flag mad
    for the fixpipe's read-out of L0C."""

    def validate(self, arch: Arch) -> None:
        """Its pipes and id are fixed (no kernel operand to check)."""

    def describe(self) -> str:
        return f"unit flag: wait {self.src.name} -> {self.dst.name}"


class PipeBarrier(Instruction):
    opcode = "PIPE_BARRIER"

    def __init__(self, pipe: Pipe):
        self.pipe = pipe

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.pipe

    def execute(self, ctx) -> None:
        """No data effect."""


def _event(event_id, what: str) -> int:
    """An event id: an integer or ``'EVENT_IDn'`` (a float such as 2.5 is refused, not cut)."""
    given = event_id
    if isinstance(event_id, str) and event_id.upper().startswith("EVENT_ID"):
        event_id = event_id[8:]
        if event_id.isdigit():
            return int(event_id)
    if is_int(event_id):
        return int(event_id)
    raise KernelError(
        f"{what}: operand 'event_id' must be an integer or 'EVENT_IDn', got {given!r} "
        f"({type(given).__name__})"
    )


@instruction(family="synchronisation", summary="post an event from SRC to DST")
def set_flag(src_pipe, dst_pipe, event_id) -> None:
    """Post event (src, dst, id) once all earlier ``src_pipe`` work has finished."""
    emit(
        SetFlag(
            Pipe.parse(src_pipe, "set_flag src"),
            Pipe.parse(dst_pipe, "set_flag dst"),
            _event(event_id, "set_flag"),
        )
    )


@instruction(family="synchronisation", summary="block DST until the event is posted")
def wait_flag(src_pipe, dst_pipe, event_id) -> None:
    """Block ``dst_pipe`` until event (src, dst, id) is posted, consuming it."""
    emit(
        WaitFlag(
            Pipe.parse(src_pipe, "wait_flag src"),
            Pipe.parse(dst_pipe, "wait_flag dst"),
            _event(event_id, "wait_flag"),
        )
    )


@instruction(family="synchronisation", summary="drain a pipe (PIPE_ALL: every pipe)")
def pipe_barrier(pipe) -> None:
    """Drain ``pipe`` before later work on it (PIPE_ALL: drain every pipe)."""
    emit(PipeBarrier(Pipe.parse(pipe, "pipe_barrier")))


# -- cross-core synchronisation (FFTS) --------------------------------------------------------
# The vendor kernels use the CCE intrinsics ``ffts_cross_core_sync(pipe, config)`` and
# ``wait_flag_dev(flag_id)`` (reference/semantics.md, cxx_frontend inventory); ``config`` is
# AscendC's ``GetffstMsg(mode, flag_id)`` = 1 | mode << 4 | flag_id << 8. Modes (AscendC
# CrossCoreSetFlag): 0 = all cores of one kind, 1 = the two vector cores of one AI core
# (blocks 2g and 2g + 1 of a vector-only launch), 2 = the cube core and the vector cores of one
# AI core (a mixed launch: a cube post reaches both vector cores, a cube wait needs a post from
# each; reference/cube_isa.md 1.4); a wait returns once every poster of the group has set the
# flag (one round per wait). The groups: ptosim/cores.py Topology.
FFTS_FLAGS = 16  # reference/semantics.md: 16 semaphores per core (a 4-bit counter each)
FFTS_MODES = (0, 1, 2)
SYNC_ALL_FLAG = 14  # the flag id AscendC's SyncAll uses for vector-only kernels (SYNC_AIV_ONLY_ALL)


def ffts_config(mode: int, flag_id: int) -> int:
    """The ``config`` operand of ffts_cross_core_sync (AscendC ``GetffstMsg``): both fields
    are 4 bits wide (the FFTS unit reads ``(config >> 4) & 15`` and ``(config >> 8) & 15``)."""
    mode = as_int(mode, "ffts_config: operand 'mode' (0 all cores, 1 the core pair)", lo=0, hi=15)
    flag_id = as_int(flag_id, "ffts_config: operand 'flag_id'", lo=0, hi=15)
    return 1 | (mode << 4) | (flag_id << 8)


class FftsCrossCoreSync(Instruction):
    """Post FFTS flag ``flag_id`` to the cores of a group once earlier ``pipe`` work is done."""

    opcode = "FFTS_CROSS_CORE_SYNC"

    def __init__(self, pipe: Pipe, config: int):
        self.pipe, self.config = pipe, config
        self.mode, self.flag_id = (config >> 4) & 0xF, (config >> 8) & 0xF

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.pipe

    def validate(self, arch: Arch) -> None:
        self.require(
            self.pipe in _FLAG_PIPES, "pipe", "flag-pipe", "a single pipe (not PIPE_ALL)",
            self.pipe.name,
        )  # fmt: skip
        self.require(
            self.config >> 12 == 0 and self.config & 1,
            "config",
            "ffts-config",
            "1 | mode << 4 | flag_id << 8 (ffts_config(mode, flag_id))",
            hex(self.config),
        )
        self.require(
            self.mode in FFTS_MODES,
            "config",
            "ffts-mode",
            "mode 0 (all cores of one kind), 1 (the two vector cores of an AI core) or 2 (cube "
            "<-> vector cores of an AI core)",
            self.mode,
        )
        self.require(
            self.mode != 2 or arch.launch == "mix",
            "config",
            "ffts-mode",
            "mode 0 or 1 (mode 2 links the cube core and the vector cores of an AI core: "
            "declare the kernel @pto.kernel(cores='mix'))",
            f"mode 2 in a {arch.launch} kernel",
        )
        self.require(
            self.mode != 1 or arch.core_kind != "aic",
            "config",
            "ffts-mode",
            "mode 0 or 2 on the cube core (mode 1 links the two vector cores of an AI core)",
            "mode 1 on the cube core",
        )

    def execute(self, ctx) -> None:
        """No data effect."""

    def describe(self) -> str:
        return f"ffts_cross_core_sync({self.pipe.name}, mode {self.mode}, flag {self.flag_id})"


class WaitFlagDev(Instruction):
    """Block the core's issue (PIPE_S) until its FFTS flag ``flag_id`` is set, consuming it."""

    opcode = "WAIT_FLAG_DEV"

    def __init__(self, flag_id: int):
        self.flag_id = flag_id

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return Pipe.PIPE_S

    def validate(self, arch: Arch) -> None:
        self.require(
            0 <= self.flag_id < FFTS_FLAGS, "flag_id", "ffts-flag-range",
            f"0..{FFTS_FLAGS - 1}", self.flag_id,
        )  # fmt: skip

    def execute(self, ctx) -> None:
        """No data effect."""

    def describe(self) -> str:
        return f"wait_flag_dev(flag {self.flag_id})"


def _int(value, what: str) -> int:
    return as_int(value, what)


@instruction(
    family="synchronisation",
    summary="post an FFTS flag to the cores of a group (cross-core)",
)
def ffts_cross_core_sync(pipe, config) -> None:
    """Post FFTS flag ``(config >> 8) & 15`` to every core of the group of mode
    ``(config >> 4) & 15`` once all earlier ``pipe`` work has finished (build ``config`` with
    ``ffts_config(mode, flag_id)``)."""
    emit(
        FftsCrossCoreSync(
            Pipe.parse(pipe, "ffts_cross_core_sync pipe"),
            _int(config, "ffts_cross_core_sync config"),
        )
    )


@instruction(
    family="synchronisation",
    summary="block the core until its FFTS flag is set (cross-core)",
)
def wait_flag_dev(flag_id) -> None:
    """Block this core's issue until every core of the group has posted ``flag_id``."""
    emit(WaitFlagDev(_int(flag_id, "wait_flag_dev flag_id")))


@instruction(family="synchronisation", summary="barrier of all cores of the launch")
def SyncAll() -> None:  # noqa: N802 - the AscendC name
    """All-core barrier, as AscendC's SyncAll for vector kernels: drain every pipe, post FFTS
    flag 14 in mode 0 from MTE3, wait for it."""
    emit(PipeBarrier(Pipe.PIPE_ALL))
    emit(FftsCrossCoreSync(Pipe.PIPE_MTE3, ffts_config(0, SYNC_ALL_FLAG)))
    emit(WaitFlagDev(SYNC_ALL_FLAG))


# -- intra-block flags (950) -------------------------------------------------------------------
# On 950 the cube core and the two vector cores of an AI core signal each other point to point
# with ``set_intra_block(pipe, id)`` / ``wait_intra_block(pipe, id)`` (reference/cube_isa.md 1.4;
# the library's a5 TPush.hpp): a post from the cube core with id 0..15 reaches AIV0, with
# id + 16 AIV1 (as id); a post from AIVk with id reaches the cube core as id + 16 k. No broadcast,
# no reduce. ptosim runs them as one-poster rounds of the FFTS machinery (cores.py modes
# INTRA_TO_AIV0, INTRA_TO_AIV1, INTRA_TO_AIC), keyed by the id the receiver waits on plus
# INTRA_FLAG_BASE, so they never meet an FFTS flag. The wait blocks its own pipe only.
INTRA_TO_AIV0, INTRA_TO_AIV1, INTRA_TO_AIC = INTRA_MODES


def _intra_ids(arch: Arch) -> int:
    """How many intra-block ids a core waits on: 32 on the cube core (16 per vector core)."""
    return 2 * INTRA_SUBCORE_OFFSET if arch.core_kind == "aic" else INTRA_SUBCORE_OFFSET


def _require_intra(instr, arch: Arch) -> None:
    """The rules of both intra-block instructions: a mixed 950 kernel, one pipe, an id in range."""
    instr.require(
        arch.spec.cube.onchip_cv_paths and arch.launch == "mix",
        "kernel",
        "intra-block-target",
        "a mixed kernel (cores='mix') on 950 (the cube core and its vector cores)",
        f"a {arch.launch} kernel on target {arch.target}",
    )
    instr.require(
        instr.pipe in _FLAG_PIPES, "pipe", "flag-pipe", "a single pipe (not PIPE_ALL)",
        instr.pipe.name,
    )  # fmt: skip
    instr.require(
        0 <= instr.block_id < _intra_ids(arch), "id", "intra-block-id",
        f"0..{_intra_ids(arch) - 1}", instr.block_id,
    )  # fmt: skip


class SetIntraBlock(FftsCrossCoreSync):
    """Post intra-block flag ``block_id`` to one core of the AI core once earlier ``pipe`` work
    is done (see the section comment)."""

    opcode = "SET_INTRA_BLOCK"

    def __init__(self, pipe: Pipe, block_id: int, kind: str, subblock: int):
        self.pipe, self.block_id, self.config = pipe, block_id, 0
        if kind == "aic":
            self.mode = INTRA_TO_AIV1 if block_id >= INTRA_SUBCORE_OFFSET else INTRA_TO_AIV0
            key = block_id % INTRA_SUBCORE_OFFSET
        else:
            self.mode = INTRA_TO_AIC
            key = block_id + INTRA_SUBCORE_OFFSET * subblock
        self.flag_id = INTRA_FLAG_BASE + key

    def validate(self, arch: Arch) -> None:
        _require_intra(self, arch)

    def describe(self) -> str:
        return f"set_intra_block({self.pipe.name}, {self.block_id})"


class WaitIntraBlock(WaitFlagDev):
    """Block ``pipe`` until intra-block flag ``block_id`` is posted to this core, consuming it."""

    opcode = "WAIT_INTRA_BLOCK"

    def __init__(self, pipe: Pipe, block_id: int):
        self.pipe, self.block_id = pipe, block_id
        self.flag_id = INTRA_FLAG_BASE + block_id

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.pipe

    def validate(self, arch: Arch) -> None:
        _require_intra(self, arch)

    def describe(self) -> str:
        return f"wait_intra_block({self.pipe.name}, {self.block_id})"


@instruction(
    family="synchronisation",
    summary="post an intra-block flag to the cube core or one vector core (950)",
)
def set_intra_block(pipe, block_id) -> None:
    """Post intra-block flag ``block_id`` once all earlier ``pipe`` work has finished: from the
    cube core ids 0..15 reach AIV0 and 16..31 reach AIV1 (as id - 16); from AIVk the cube core
    receives id + 16 k."""
    role = current().program.core_role
    pipe = Pipe.parse(pipe, "set_intra_block pipe")
    emit(SetIntraBlock(pipe, _int(block_id, "set_intra_block id"), role.kind, role.subblock))


@instruction(
    family="synchronisation",
    summary="block a pipe until an intra-block flag is posted to this core (950)",
)
def wait_intra_block(pipe, block_id) -> None:
    """Block ``pipe`` until intra-block flag ``block_id`` reaches this core, consuming it."""
    pipe = Pipe.parse(pipe, "wait_intra_block pipe")
    emit(WaitIntraBlock(pipe, _int(block_id, "wait_intra_block id")))
