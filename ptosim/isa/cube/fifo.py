"""TPUSH / TPOP / TALLOC / TFREE: the cube <-> vector FIFO of an AI core (``TPipe``).

The protocol and its counting follow the library's a2a3 implementation (reference/cube_isa.md
3.8; a2a3/TPush.hpp, TPop.hpp, TAlloc.hpp, TFree.hpp), which keeps the ring in GM:

- a pipe has ``slot_num`` slots of ``slot_size`` bytes in a GM buffer; tile t uses slot
  ``t % slot_num``. Each core keeps its own producer and consumer counters (each core runs its
  own copy of the pipe object, constructed in the kernel body).
- flags (FFTS mode 2, ``ffts_cross_core_sync`` / ``wait_flag_dev``): data ready on ``flag_id``,
  slot free on ``flag_id + 1``; with ``DIR_BOTH`` the vector -> cube ring uses ``flag_id + 2``
  (ready) and ``flag_id + 3`` (free) and sits after the cube -> vector ring in the buffer.
- credits: a producer waits for a free credit before tile t only when ``t >= slot_num`` and
  ``t % period == 0``; a consumer posts one after tile t when ``(t + 1) % period == 0``, with
  ``period = slot_num`` for up to 2 slots, else ``slot_num // 2``. Destroying the pipe takes
  the credits its producer never waited for (the library's destructor drain).
- data: the producer stores its tile into the slot (the cube: fixpipe TSTORE of the Acc tile as
  an ND [validRow, validCol] matrix; a vector core: MTE3 TSTORE of its part, at the split's
  offset); the consumer re-points its tile at its local ring (``consumer_buf + (t %
  local_slot_num) * slot_size``, UB for a vector core, L1 for the cube) and TLOADs its part.

So every TPUSH / TPOP / TALLOC / TFREE is recorded as the instructions the library issues
(wait_flag_dev, TSTORE / TASSIGN + TLOAD, ffts_cross_core_sync), each marked with the FIFO
operation it belongs to (``Instruction.via``): timing, data, traces and the checker's flag and
race analysis are those of the underlying instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...argcheck import as_int
from ...dtypes import dtype as as_dtype
from ...enums import Direction, Pipe, TileSplitAxis, TileType
from ...errors import KernelError
from ...memory import GmBuffer
from ...program import current
from ...tensors import GlobalTensor, Tile
from ..base import Arch, Instruction
from ..data import TASSIGN, TLOAD, TSTORE
from ..registry import instruction
from ..sync import FFTS_FLAGS, ffts_config, ffts_cross_core_sync, wait_flag_dev
from . import fifo_onchip as onchip
from .fixpipe_config import push_quant


@dataclass(frozen=True)
class FifoMark:
    """What a recorded instruction does for a TPipe (``Instruction.fifo``), for the checker:
    ``role`` is ``free-wait`` (a producer waits for a free slot), ``ready-post``, ``ready-wait``
    (a consumer waits for data), ``free-post`` or ``data`` (a producer's store into a slot);
    ``index`` the tile it is for; ``pipe`` the pipe's text (equal on every core)."""

    op: str
    role: str
    pipe: str
    index: int
    period: int
    slot_num: int
    split: str = ""
    form: str = "tile"


CV_CORES_SYNC = 2  # FFTS mode 2: the cube core and the two vector cores of one AI core
NO_SPLIT = TileSplitAxis.TILE_NO_SPLIT
# the 950 GM-ring directions -> the ring they carry
GM_RING = {Direction.DIR_C2V_GM: Direction.DIR_C2V, Direction.DIR_V2C_GM: Direction.DIR_V2C}
SPLIT_PARTS = 2  # vector cores per AI core (a split tile has two parts)


class TPipe:
    """``pto::TPipe<FlagID, DirType, SlotSize, SlotNum, LocalSlotNum, IsNoSplit>``, constructed
    as ``TPipe(gmSlotBuffer, c2vConsumerBuf, v2cConsumerBuf)``: a FIFO of ``slot_num`` slots of
    ``slot_size`` bytes in GM between the cube core and the vector cores of an AI core.

    Construct it in the kernel body (each core runs its own copy, as in C++) and end it with
    ``with pto.TPipe(...) as pipe:`` or ``pipe.destroy()`` (the C++ destructor): the producer
    then takes the free credits it has not waited for, so no flag post is left over.

    Args:
        flag_id: the first FFTS flag (``flag_id + 1`` must be below 16; ``+ 3`` with DIR_BOTH).
        direction: ``Direction.DIR_C2V``, ``DIR_V2C`` or ``DIR_BOTH`` (or their names).
        slot_size: bytes per slot; slot_num: slots in the GM ring.
        gm: the ring's GM buffer (a GM buffer or a GlobalTensor, whose offset is the start).
        c2v_consumer_buf: UB byte address of the vector cores' local ring (TPOP into Vec).
        v2c_consumer_buf: L1 byte address of the cube's local ring (TPOP into Mat).
        local_slot_num: slots of each local ring.
        no_split: the ``IsNoSplit`` template flag (kept for the C++ signature; the split is
            each TPUSH / TPOP's ``split``).
        offset_bytes: where the ring starts in a GM buffer ``gm`` (bytes).
        unit_flag: ``EN_UNIT_FLAG``: the cube's TPUSH stores with ``STPhase::Final`` (it waits
            for the unit flag of a TMATMUL with ``phase="Final"``).
    """

    def __init__(
        self, flag_id, direction, slot_size, slot_num, gm, c2v_consumer_buf=0,
        v2c_consumer_buf=0, *, local_slot_num=2, no_split=False, offset_bytes=0,
        unit_flag=False,
    ):  # fmt: skip
        require_fifo_target()
        # 950 (intra-block flags): DIR_C2V / V2C / BOTH on chip (fifo_onchip.py: the slots are
        # in the consumers' buffers); DIR_C2V_GM / DIR_V2C_GM the GM ring as on a2a3
        self.intra = current().program.arch.spec.cube.onchip_cv_paths
        self.flag_id = as_int(flag_id, "TPipe flag_id", lo=0, hi=FFTS_FLAGS - 1)
        direction = Direction.parse(direction, "TPipe direction")
        if direction is Direction.DIR_BOTH_GM:
            raise KernelError(
                "TPipe direction DIR_BOTH_GM is not modelled by ptosim (DIR_C2V_GM and "
                "DIR_V2C_GM are)"
            )
        self.gm_ring = direction in GM_RING
        if self.gm_ring and not self.intra:
            raise KernelError(
                f"TPipe direction {direction.name}: a 950 direction (the GM ring of its FIFO); "
                "Atlas A2/A3 rings are in GM with DIR_C2V / DIR_V2C / DIR_BOTH"
            )
        self.onchip = self.intra and not self.gm_ring
        self.direction = GM_RING.get(direction, direction)
        self.slot_size = as_int(slot_size, "TPipe slot_size (bytes)", lo=1)
        self.slot_num = as_int(slot_num, "TPipe slot_num", lo=1)
        self.local_slot_num = as_int(local_slot_num, "TPipe local_slot_num", lo=1)
        self.c2v_consumer_buf = as_int(c2v_consumer_buf, "TPipe c2v_consumer_buf", lo=0)
        self.v2c_consumer_buf = as_int(v2c_consumer_buf, "TPipe v2c_consumer_buf", lo=0)
        self.no_split = bool(no_split)
        self.unit_flag = bool(unit_flag)
        last = self.flag_id + (3 if self.direction is Direction.DIR_BOTH else 1)
        if self.intra:
            onchip.check_flags(self.flag_id, self.direction)
        elif last >= FFTS_FLAGS:
            raise KernelError(
                f"TPipe flag_id {self.flag_id}: the pipe uses FFTS flags {self.flag_id}..{last}, "
                f"but there are {FFTS_FLAGS} (flag_id + {last - self.flag_id} must be below "
                f"{FFTS_FLAGS}; a2a3/TPush.hpp static check)"
            )
        if self.onchip and gm is None:
            self.buffer, self.base_bytes = None, 0  # no GM ring: the slots are on chip
        elif isinstance(gm, GlobalTensor):
            self.buffer, self.base_bytes = gm.buffer, gm.offset * gm.dtype.size_bytes
        elif isinstance(gm, GmBuffer):
            self.buffer = gm
            self.base_bytes = as_int(offset_bytes, "TPipe offset_bytes", lo=0)
        else:
            raise KernelError(
                f"TPipe gm must be a GM buffer or a pto.GlobalTensor, got {type(gm).__name__}"
            )
        # ``period`` of the credit protocol (a2a3/TPush.hpp SyncPeriod)
        self.period = self.slot_num if self.slot_num <= 2 else self.slot_num // 2
        self.prod_index = 0  # tiles this core has produced (TPUSH / TALLOC)
        self.cons_index = 0  # tiles this core has consumed (TPOP)
        self.destroyed = False
        self._program = current().program  # the core (recording) this copy belongs to
        if self.intra:  # the a5 constructor: the consumer posts a period of free credits
            cube = self._program.core_role.is_cube
            if self.consumes(cube) and self._program.arch.launch == "mix":
                with _via("TPipe"):
                    for _ in range(self.period):
                        self.post_free(cube, "TPipe", -1, split=self.lifetime_split)

    @property
    def lifetime_split(self) -> TileSplitAxis:
        """The split of the a5 constructor's frees and destructor's waits (``IsNoSplit``)."""
        return TileSplitAxis.TILE_NO_SPLIT if self.no_split else TileSplitAxis.TILE_UP_DOWN

    # -- the core's role -------------------------------------------------------------------
    def _use(self, what: str) -> bool:
        """True on the cube core; checks that this copy belongs to the running core."""
        rec = current()
        if rec.program is not self._program:
            raise KernelError(
                f"{what}: this TPipe was constructed for another core or run; construct it in "
                "the kernel body (each core keeps its own counters, as its C++ copy does)"
            )
        if self.destroyed:
            raise KernelError(f"{what}: the TPipe was destroyed (its scope has ended)")
        return rec.program.core_role.is_cube

    def produces(self, cube: bool) -> bool:
        d = self.direction
        return d is Direction.DIR_BOTH or (d is Direction.DIR_C2V) == cube

    def consumes(self, cube: bool) -> bool:
        d = self.direction
        return d is Direction.DIR_BOTH or (d is Direction.DIR_V2C) == cube

    # the flags of each side (a2a3/TPush.hpp Producer / Consumer allocate, record, wait, free)
    def ready_flag(self, cube_consumer: bool) -> int:
        both_v2c = self.direction is Direction.DIR_BOTH and cube_consumer
        return self.flag_id + (2 if both_v2c else 0)

    def free_flag(self, cube_consumer: bool) -> int:
        both_v2c = self.direction is Direction.DIR_BOTH and cube_consumer
        return self.flag_id + (3 if both_v2c else 1)

    def entry_bytes(self, cube_consumer: bool) -> int:
        """Where a ring starts in the buffer: the vector -> cube ring of DIR_BOTH follows the
        cube -> vector ring (the TPipe constructor's entry offset)."""
        if self.direction is Direction.DIR_BOTH and cube_consumer:
            return self.slot_num * self.slot_size
        return 0

    def slot_bytes(self, index: int) -> int:
        return self.base_bytes + (index % self.slot_num) * self.slot_size

    def should_wait_free(self, index: int) -> bool:
        return index >= self.slot_num and index % self.period == 0

    def should_notify_free(self, index: int) -> bool:
        return (index + 1) % self.period == 0

    def pending_free_credits(self) -> int:
        """Free credits posted to this producer that no TPUSH / TALLOC waited for (the
        library's ``countPendingFreeCredits``): the destructor waits for them."""
        count, period, slots = self.prod_index, self.period, self.slot_num
        notified = count // period
        waited = 0
        if slots == 1:
            waited = max(count - 1, 0)
        elif count > slots:
            first = slots if slots % period == 0 else (slots // period + 1) * period
            last = ((count - 1) // period) * period
            if last >= first:
                waited = (last - first) // period + 1
        return max(notified - waited, 0)

    # -- the flag operations (each marked for the checker) --------------------------------------
    def mark(self, op: str, role: str, index: int, split="", form="tile") -> None:
        """Mark the instruction just recorded with what it does for this pipe."""
        instr = current().last
        instr.fifo = FifoMark(op, role, self.text(), index, self.period, self.slot_num,
                              getattr(split, "name", split), form)  # fmt: skip

    def text(self) -> str:
        return (
            f"TPipe(flag {self.flag_id}, {self.direction.name}, {self.slot_num} slots of "
            f"{self.slot_size} B)"
        )

    # the flags: FFTS mode 2 on a2a3; on 950 intra-block flags (fifo_onchip.py), where a
    # cube core's post or wait covers AIV1 too (id + 16) when the tile is split
    def wait_free(self, cube: bool, op: str, index: int, form="tile", split=NO_SPLIT) -> None:
        if self.intra:
            onchip.wait_free(self, cube, split)
        else:
            wait_flag_dev(self.free_flag(not cube))
        self.mark(op, "free-wait", index, form=form)

    def post_ready(self, cube: bool, op: str, index: int, form="tile", split=NO_SPLIT) -> None:
        if self.intra:
            onchip.post_ready(self, cube, split)
        else:
            pipe = Pipe.PIPE_FIX if cube else Pipe.PIPE_MTE3
            ffts_cross_core_sync(pipe, ffts_config(CV_CORES_SYNC, self.ready_flag(not cube)))
        self.mark(op, "ready-post", index, form=form)

    def wait_ready(self, cube: bool, op: str, index: int, form="tile", split=NO_SPLIT) -> None:
        if self.intra:
            onchip.wait_ready(self, cube, split)
        else:
            wait_flag_dev(self.ready_flag(cube))
        self.mark(op, "ready-wait", index, form=form)

    def post_free(self, cube: bool, op: str, index: int, form="tile", split=NO_SPLIT) -> None:
        if self.intra:
            onchip.post_free(self, cube, split)
        else:
            ffts_cross_core_sync(Pipe.PIPE_MTE2, ffts_config(CV_CORES_SYNC, self.free_flag(cube)))
        self.mark(op, "free-post", index, form=form)

    def destroy(self) -> None:
        """The C++ destructor: the producer waits for its pending free credits."""
        cube = self._use("TPipe destructor")
        self.destroyed = True
        if not self.produces(cube):
            return
        if self.intra:  # the a5 destructor: the producer waits a period of credits
            with _via("TPipe destructor"):
                for _ in range(self.period):
                    self.wait_free(cube, "TPipe destructor", self.prod_index,
                                   split=self.lifetime_split)  # fmt: skip
            return
        with _via("TPipe destructor"):
            for _ in range(self.pending_free_credits()):
                self.wait_free(cube, "TPipe destructor", self.prod_index)

    def __enter__(self) -> TPipe:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None and not self.destroyed:
            self.destroy()

    def __repr__(self) -> str:
        where = "on chip" if self.buffer is None else f"buffer #{self.buffer.buffer_id}"
        return (
            f"TPipe(flag {self.flag_id}, {self.direction.name}, {self.slot_num} x "
            f"{self.slot_size} B, {where})"
        )


class FifoDefined(Instruction):
    """A TPipe's construction on a target: one that does not model the FIFO (the 950's on-chip
    FIFO) stops here, at the TPipe line, with the target's refusal (TPUSH's entry)."""

    opcode = "TPipe"
    dtype_key = "TPUSH"

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)

    def execute(self, ctx) -> None:
        """No data effect (never recorded)."""


def require_fifo_target() -> None:
    """Stop at the TPipe's line on a target that does not model the FIFO."""
    current().validate(FifoDefined())


class FifoCheck(Instruction):
    """The operand rules of one FIFO operation, checked where the kernel writes it (it records
    nothing itself: the operation is the instructions it issues)."""

    def __init__(self, opcode: str, pipe, operand, split, form: str):
        self.opcode, self.pipe, self.operand, self.split, self.form = (
            opcode, pipe, operand, split, form,
        )  # fmt: skip

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        self.require(
            arch.launch == "mix", "pipe", "fifo-launch",
            "a mixed kernel (@pto.kernel(cores='mix')): a TPipe links the cube core and the "
            "vector cores of an AI core", f"a {arch.launch} kernel",
        )  # fmt: skip
        cube = arch.core_kind == "aic"
        side = "produces" if self.opcode in ("TPUSH", "TALLOC") else "consumes"
        role = self.pipe.produces(cube) if side == "produces" else self.pipe.consumes(cube)
        core = "the cube core" if cube else "a vector core"
        self.require(
            role, "pipe", "fifo-side",
            f"a core that {side[:-1]}s on a {self.pipe.direction.name} pipe",
            f"{core} ({self.pipe.direction.name}: the "
            f"{'cube' if self.pipe.direction is Direction.DIR_C2V else 'vector cores'} produce)",
        )  # fmt: skip
        if self.pipe.onchip and self.form == "gm":
            self.fail(
                "gm", "fifo-form", "a tile: a 950 DIR_C2V / DIR_V2C / DIR_BOTH pipe is on chip "
                "(a GlobalTensor slot needs DIR_C2V_GM or DIR_V2C_GM)", "a GlobalTensor",
            )  # fmt: skip
        if self.form != "tile":
            return
        ref = self.operand.ref()
        if self.opcode == "TPUSH":
            want = TileType.Acc if cube else TileType.Vec
        else:
            want = TileType.Mat if cube else TileType.Vec
        self.require(
            ref.loc is want, "tile", "fifo-tile",
            f"a {want.name} tile on {core} ({self.opcode} of a {self.pipe.direction.name} pipe)",
            f"a {ref.loc.name} tile",
        )  # fmt: skip

    def execute(self, ctx) -> None:
        """No data effect (never recorded)."""


class _via:
    """Marks the instructions recorded inside the block with the FIFO operation they implement
    (``Instruction.via``: traces and findings name it)."""

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        self.rec = current()
        self.outer, self.rec.via = self.rec.via, self.what
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.rec.via = self.outer


def _check(opcode: str, pipe, operand, split, form: str) -> tuple[TileSplitAxis, bool]:
    if not isinstance(pipe, TPipe):
        raise KernelError(
            f"{opcode}: operand 'pipe' must be a pto.TPipe, got {type(pipe).__name__}"
        )
    split = TileSplitAxis.parse(split, f"{opcode} split")
    cube = pipe._use(opcode)
    if form == "tile" and not isinstance(operand, Tile):
        raise KernelError(
            f"{opcode}: operand 'tile' must be a pto.Tile, got {type(operand).__name__}"
        )
    current().validate(FifoCheck(opcode, pipe, operand, split, form))
    return split, cube


def _slot_view(pipe: TPipe, dtype, byte_offset: int, rows: int, cols: int, row_stride: int):
    """The GM view of a slot part: an ND [rows, cols] matrix with ``row_stride`` elements."""
    size = dtype.size_bytes
    if byte_offset % size:
        raise KernelError(
            f"TPipe slot part at byte {byte_offset} of buffer #{pipe.buffer.buffer_id} is not a "
            f"multiple of the {dtype.name} element size"
        )
    return GlobalTensor(
        pipe.buffer, shape=(rows, cols), stride=(row_stride, 1), offset=byte_offset // size,
        dtype=dtype,
    )  # fmt: skip


def _vec_push_part(split: TileSplitAxis, sub: int, rows: int, cols: int) -> tuple[int, int]:
    """(element offset, row stride) of a vector core's part in a V2C slot
    (a2a3/TPush.hpp pushVec2GMFiFo: only the even splits have their own formula)."""
    if split is TileSplitAxis.TILE_NO_SPLIT:
        return 0, cols
    if split is TileSplitAxis.TILE_UP_DOWN:
        return sub * rows * cols, cols
    return sub * cols, cols * (SPLIT_PARTS if split is TileSplitAxis.TILE_LEFT_RIGHT else 1)


def _vec_pop_part(split: TileSplitAxis, sub: int, rows: int, cols: int) -> tuple[int, int]:
    """(element offset, row stride) of a vector core's part in a C2V slot
    (a2a3/TPush.hpp popVecTileFromGMFiFo; the odd splits give AIV0 the extra row / column)."""
    if split is TileSplitAxis.TILE_NO_SPLIT:
        return 0, cols
    if split is TileSplitAxis.TILE_UP_DOWN:
        return sub * rows * cols, cols
    if split is TileSplitAxis.TILE_LEFT_RIGHT:
        return sub * cols, SPLIT_PARTS * cols
    if split is TileSplitAxis.TILE_UP_DOWN_ODD:
        return sub * (rows + sub) * cols, cols
    return sub * (cols + sub), SPLIT_PARTS * cols + 2 * sub - 1  # TILE_LEFT_RIGHT_ODD


def _gm_part(split: TileSplitAxis, sub: int, gm: GlobalTensor) -> int:
    """Byte offset of a vector core's part for the GlobalTensor forms (TAlloc.hpp / TPop.hpp
    getSubAIVOffset: from the tensor's shape[3] x shape[4])."""
    if split is TileSplitAxis.TILE_NO_SPLIT:
        return 0
    rows, cols = gm.shape[3], gm.shape[4]
    per = rows * cols if split is TileSplitAxis.TILE_UP_DOWN else cols
    return sub * per * gm.dtype.size_bytes


def _point(gm: GlobalTensor, pipe: TPipe, byte_offset: int, what: str) -> None:
    """TASSIGN of a GlobalTensor: re-point it at ``byte_offset`` of the pipe's buffer."""
    size = gm.dtype.size_bytes
    if byte_offset % size:
        raise KernelError(
            f"{what}: the slot address (byte {byte_offset} of buffer #{pipe.buffer.buffer_id}) is "
            f"not a multiple of the tensor's {gm.dtype.name} element size"
        )
    moved = GlobalTensor(
        pipe.buffer, shape=gm.shape, stride=gm.stride, layout=gm.layout,
        offset=byte_offset // size, dtype=gm.dtype,
    )  # fmt: skip
    gm.buffer, gm.offset = moved.buffer, moved.offset


@instruction(
    family="cube", summary="push a tile into a cube <-> vector TPipe (wait credit, store, signal)"
)
def TPUSH(pipe: TPipe, tile, split="TILE_UP_DOWN", *, quant_mode=None, relu="NoRelu",
          atomic="AtomicNone", sub_block_id=0) -> int:  # fmt: skip
    """``TPUSH<Pipe, Tile, Split>(pipe, tile)``: the producer (the cube with an Acc tile on a
    C2V pipe, a vector core with a Vec tile on a V2C pipe) waits for a free slot when the
    credit protocol says so, stores its tile (or its part) into the slot and signals the
    consumer. ``TPUSH(pipe, gm)`` (GlobalTensor form, after TALLOC and a hand-made store) only
    signals. Returns the GM byte offset of the slot (in the pipe's buffer).

    ``quant_mode`` / ``relu`` / ``atomic``: the cube's ``TPUSH<Pipe, Tile, FixpipeParams<NZ2ND,
    QuantMode, Relu, ..., Atomic>>``: the fixpipe converts or quantises the Acc tile on the way
    (``fixpipe_config.QUANT_MODES``; the quant word from SET_QUANT_SCALAR / SET_QUANT_VECTOR).
    On 950 ``sub_block_id`` is FixpipeParams' SubBlockId, the AccToVecMode of the copy."""
    if isinstance(tile, GlobalTensor):
        split, cube = _check("TPUSH", pipe, tile, split, "gm")
        with _via("TPUSH"):
            pipe.post_ready(cube, "TPUSH", pipe.prod_index - 1, form="gm", split=split)
        return tile.offset * tile.dtype.size_bytes
    split, cube = _check("TPUSH", pipe, tile, split, "tile")
    if not cube and (quant_mode is not None or relu != "NoRelu" or atomic != "AtomicNone"):
        raise KernelError("TPUSH quant_mode / relu / atomic: the fixpipe forms of the cube's push")
    ref = tile.ref()
    index = pipe.prod_index
    if pipe.onchip:
        fixpipe = None
        if quant_mode is not None:  # FixpipeParams: whole tile, flags as TILE_NO_SPLIT
            if atomic != "AtomicNone":
                raise KernelError("TPUSH FixpipeParams atomic: the 950 push into UB has no atomic")
            fixpipe = (*push_quant(quant_mode, ref), relu, sub_block_id)
            split = TileSplitAxis.TILE_NO_SPLIT
        with _via("TPUSH"):
            if pipe.should_wait_free(index):
                pipe.wait_free(cube, "TPUSH", index, split=split)
            where = onchip.push(pipe, tile, split, cube, index, fixpipe)
            pipe.prod_index = index + 1
            pipe.post_ready(cube, "TPUSH", index, split=split)
        return where
    with _via("TPUSH"):
        if pipe.should_wait_free(index):
            pipe.wait_free(cube, "TPUSH", index, split=split)
        slot = pipe.slot_bytes(index) + pipe.entry_bytes(not cube)
        rows, cols = ref.valid_row, ref.valid_col
        if cube:
            phase = "Final" if pipe.unit_flag else "Unspecified"
            out, quant = push_quant(quant_mode or "NoQuant", ref)
            TSTORE(_slot_view(pipe, as_dtype(out), slot, rows, cols, cols), tile, phase=phase,
                   relu=relu, atomic=atomic, quant=quant)  # fmt: skip
        elif _stores(split):
            off, stride = _vec_push_part(split, get_sub(), rows, cols)
            TSTORE(_slot_view(pipe, ref.dtype, slot + off * ref.dtype.size_bytes, rows, cols,
                              stride), tile)  # fmt: skip
            pipe.mark("TPUSH", "data", index, split)
        pipe.prod_index = index + 1
        pipe.post_ready(cube, "TPUSH", index, split=split)
    return slot


def _stores(split: TileSplitAxis) -> bool:
    """Whether this vector core stores its TILE_NO_SPLIT tile: on a2a3 both do (into the same
    slot: the pitfall of reference/cube_isa.md 6); the CPU simulator skips AIV1's store."""
    if split is not TileSplitAxis.TILE_NO_SPLIT or get_sub() == 0:
        return True
    return current().program.arch.spec.cube.fifo_no_split_both_store


def get_sub() -> int:
    return current().program.core_role.subblock


@instruction(family="cube", summary="pop a tile from a cube <-> vector TPipe (wait, load, free)")
def TPOP(pipe: TPipe, tile, split="TILE_UP_DOWN") -> int:
    """``TPOP<Pipe, Tile, Split>(pipe, tile)``: the consumer waits for the data, re-points
    ``tile`` at its local ring slot (UB for a Vec tile, L1 for a Mat tile) and TLOADs its part
    of the slot, then frees the slot when the credit protocol says so. ``TPOP(pipe, gm)``
    (GlobalTensor form) waits and re-points ``gm`` at the slot (its part of it); the consumer
    loads from it and calls TFREE. Returns the GM byte offset of the slot part."""
    if isinstance(tile, GlobalTensor):
        split, cube = _check("TPOP", pipe, tile, split, "gm")
        index = pipe.cons_index
        with _via("TPOP"):
            pipe.wait_ready(cube, "TPOP", index, form="gm", split=split)
        where = pipe.slot_bytes(index) + (0 if cube else _gm_part(split, get_sub(), tile))
        _point(tile, pipe, where, "TPOP")
        pipe.cons_index = index + 1
        return where
    split, cube = _check("TPOP", pipe, tile, split, "tile")
    ref = tile.ref()
    index = pipe.cons_index
    if pipe.onchip:  # the slot is in this core's buffer: wait, re-point; TFREE frees it
        with _via("TPOP"):
            pipe.wait_ready(cube, "TPOP", index, split=split)
        pipe.cons_index = index + 1
        return onchip.pop(pipe, tile, cube, index)
    with _via("TPOP"):
        pipe.wait_ready(cube, "TPOP", index, split=split)
        rows, cols = ref.valid_row, ref.valid_col
        where = pipe.slot_bytes(index) + pipe.entry_bytes(cube)
        if cube:
            local, stride = pipe.v2c_consumer_buf, cols
        else:
            off, stride = _vec_pop_part(split, get_sub(), rows, cols)
            where += off * ref.dtype.size_bytes
            local = pipe.c2v_consumer_buf
        # the local ring's stride: the slot (a2a3), the tile's bytes (a5 pop*TileFromGMFiFo)
        step = ref.geom.size_bytes if pipe.intra else pipe.slot_size
        TASSIGN(tile, local + (index % pipe.local_slot_num) * step)
        TLOAD(tile, _slot_view(pipe, ref.dtype, where, rows, cols, stride))
        if pipe.should_notify_free(index):
            pipe.post_free(cube, "TPOP", index, split=split)
    pipe.cons_index = index + 1
    return where


@instruction(family="cube", summary="take the next TPipe slot for a hand-made store (GlobalTensor)")
def TALLOC(pipe: TPipe, gm: GlobalTensor, split="TILE_UP_DOWN") -> int:
    """``TALLOC<Pipe, Gm, Split>(pipe, gm)``: the producer waits for a free slot when the credit
    protocol says so and re-points ``gm`` at the slot (a vector core at its part, from the
    tensor's shape); the kernel stores into it, then signals with ``TPUSH(pipe, gm)``. Returns
    the GM byte offset."""
    if not isinstance(gm, GlobalTensor):
        raise KernelError(
            f"TALLOC: operand 'gm' must be a pto.GlobalTensor, got {type(gm).__name__}"
        )
    split, cube = _check("TALLOC", pipe, gm, split, "gm")
    index = pipe.prod_index
    with _via("TALLOC"):
        if pipe.should_wait_free(index):
            pipe.wait_free(cube, "TALLOC", index, form="gm", split=split)
    where = pipe.slot_bytes(index) + (0 if cube else _gm_part(split, get_sub(), gm))
    _point(gm, pipe, where, "TALLOC")
    pipe.prod_index = index + 1
    return where


@instruction(family="cube", summary="free the TPipe slot last popped (GlobalTensor form)")
def TFREE(pipe: TPipe, gm: GlobalTensor | None = None, split="TILE_UP_DOWN") -> None:
    """``TFREE<Pipe, Gm, Split>(pipe, gm)``: after its loads from the slot TPOP(pipe, gm) gave,
    the consumer frees it when the credit protocol says so. ``TFREE(pipe)`` (the tile form)
    does nothing: a tile TPOP frees its slot itself."""
    if gm is None:
        split, cube = _check("TFREE", pipe, None, split, "none")
        if pipe.intra and pipe.should_notify_free(pipe.cons_index - 1):
            with _via("TFREE"):  # a5 TFREE_IMPL(pipe): the tile form frees too
                pipe.post_free(cube, "TFREE", pipe.cons_index - 1, split=split)
        return
    if not isinstance(gm, GlobalTensor):
        raise KernelError(
            f"TFREE: operand 'gm' must be a pto.GlobalTensor, got {type(gm).__name__}"
        )
    split, cube = _check("TFREE", pipe, gm, split, "gm")
    if pipe.should_notify_free(pipe.cons_index - 1):
        with _via("TFREE"):
            pipe.post_free(cube, "TFREE", pipe.cons_index - 1, form="gm", split=split)


__all__ = ["TALLOC", "TFREE", "TPOP", "TPUSH", "TPipe"]
