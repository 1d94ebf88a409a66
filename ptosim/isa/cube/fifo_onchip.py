"""The 950 TPipe: the cube <-> vector FIFO on chip (a5/TPush.hpp, TPop.hpp, TFree.hpp; the
ring directions ``DIR_C2V``, ``DIR_V2C`` and ``DIR_BOTH``), built on the Acc -> Vec fixpipe
(acc2vec.py), the Vec -> Mat TINSERT into the cube core's L1 and intra-block flags.

- cube -> vector: the cube core's TPUSH of an Acc tile is one fixpipe copy into the consumer
  ring of the vector cores' UBs (``c2v_consumer_buf + (t % slot_num) * slot_size``): the whole
  tile into AIV0 (``TILE_NO_SPLIT``), the upper / lower rows (``TILE_UP_DOWN``, DualModeSplitM)
  or the left / right columns (``TILE_LEFT_RIGHT``, DualModeSplitN) into both; then
  ``set_intra_block(PIPE_FIX, F)`` (and ``F + 16`` for AIV1 when split). A vector core's TPOP
  waits ``wait_intra_block(PIPE_V, F)`` and re-points its tile at the slot; its TFREE posts
  ``set_intra_block(PIPE_V, F + 1)``, which the cube core's push waits for (``F + 1`` and, when
  split, ``F + 1 + 16``, AIV1's) before it overwrites a slot.
- vector -> cube: a vector core's TPUSH of a Vec tile is a TINSERT into the Mat tile of the slot
  in the cube core's L1 (``v2c_consumer_buf + ...``; its part at row ``validRow x subblock`` or
  column ``validCol x subblock``), then ``set_intra_block(PIPE_MTE3, F)``; the cube core's TPOP
  waits ``wait_intra_block(PIPE_MTE1, F)`` (and ``F + 16``, AIV1's, when split), its TFREE posts
  ``F + 1`` (and ``F + 1 + 16``) on PIPE_MTE1, which the vector core's push waits for on
  PIPE_MTE3. With ``DIR_BOTH`` this ring uses ``F + 2`` (ready) and ``F + 3`` (free).
- the GM-ring directions (``DIR_C2V_GM``, ``DIR_V2C_GM``) move the data as on a2a3 (fifo.py)
  with these flags, the consumer waiting and freeing on PIPE_MTE2 (the cube core frees on
  PIPE_MTE1).
- credits: as on a2a3 (``should_wait_free`` / ``should_notify_free``, period = slot_num up to 2
  slots, else slot_num / 2), and the constructor and the destructor of the library's a5 TPipe
  add ``period`` of them: the consumer posts ``period`` frees when the pipe is built, the
  producer waits ``period`` of them when it ends (with the split of ``IsNoSplit``).
"""

from __future__ import annotations

from ...enums import Direction, Pipe, TileSplitAxis, TileType
from ...errors import KernelError
from ...program import current
from ...tensors import Tile
from ..data import TASSIGN, TMOV
from ..sync import set_intra_block, wait_intra_block
from ..vector.layout import TINSERT
from .acc2vec import AccToVecMode

VEC_CORE_ID_OFFSET = 16  # a cube core's intra-block id + 16 reaches AIV1 (a5/TPush.hpp)
INTRA_FLAGS = 16  # ids of one direction of the intra-block flags
SPLIT_PARTS = 2
ACC_TO_VEC = {
    TileSplitAxis.TILE_NO_SPLIT: "SingleModeVec0",
    TileSplitAxis.TILE_UP_DOWN: "DualModeSplitM",
    TileSplitAxis.TILE_LEFT_RIGHT: "DualModeSplitN",
}


def check_flags(flag_id: int, direction: Direction) -> None:
    """The a5 TPipe's static checks: FlagID + 1 (DIR_BOTH: + 3) below 16."""
    last = flag_id + (3 if direction is Direction.DIR_BOTH else 1)
    if last >= INTRA_FLAGS:
        raise KernelError(
            f"TPipe flag_id {flag_id}: the 950 pipe uses intra-block flags {flag_id}..{last}, "
            f"but there are {INTRA_FLAGS} (a5/TPush.hpp static check)"
        )


def _split(split: TileSplitAxis, what: str) -> TileSplitAxis:
    if split not in ACC_TO_VEC:
        raise KernelError(
            f"{what} with {split.name}: the 950 on-chip FIFO splits a tile TILE_NO_SPLIT, "
            "TILE_UP_DOWN or TILE_LEFT_RIGHT (a5/TPush.hpp)"
        )
    return split


def _cube_side(pipe_kind: Pipe, flag: int, split: TileSplitAxis, post: bool) -> None:
    """The cube core's post or wait of ``flag`` for AIV0 and, when split, AIV1 (id + 16)."""
    op = set_intra_block if post else wait_intra_block
    op(pipe_kind, flag)
    if split is not TileSplitAxis.TILE_NO_SPLIT:
        op(pipe_kind, flag + VEC_CORE_ID_OFFSET)


def _c2v_ring(pipe, cube_consumer: bool) -> bool:
    """Whether the ring a core consumes from (or produces into) is the cube -> vector one."""
    return not cube_consumer if pipe.direction is Direction.DIR_BOTH else (
        pipe.direction is Direction.DIR_C2V
    )  # fmt: skip


def ready_flag(pipe, c2v: bool) -> int:
    return pipe.flag_id + (0 if c2v or pipe.direction is not Direction.DIR_BOTH else 2)


def free_flag(pipe, c2v: bool) -> int:
    return pipe.flag_id + (1 if c2v or pipe.direction is not Direction.DIR_BOTH else 3)


def wait_free(pipe, cube: bool, split: TileSplitAxis) -> None:
    """The producer waits for a free slot (a5 Producer::allocate)."""
    c2v = cube
    if cube:
        _cube_side(Pipe.PIPE_FIX, free_flag(pipe, c2v), split, post=False)
    else:
        wait_intra_block(Pipe.PIPE_MTE3, free_flag(pipe, c2v))


def post_ready(pipe, cube: bool, split: TileSplitAxis) -> None:
    """The producer signals the data (a5 Producer::record)."""
    if cube:
        _cube_side(Pipe.PIPE_FIX, ready_flag(pipe, True), split, post=True)
    else:
        set_intra_block(Pipe.PIPE_MTE3, ready_flag(pipe, False))


def wait_ready(pipe, cube: bool, split: TileSplitAxis) -> None:
    """The consumer waits for the data (a5 Consumer::wait): on the pipe that reads the slot
    (PIPE_V / PIPE_MTE1 on chip, PIPE_MTE2 from a GM ring)."""
    if cube:
        waits = Pipe.PIPE_MTE2 if pipe.gm_ring else Pipe.PIPE_MTE1
        _cube_side(waits, ready_flag(pipe, False), split, post=False)
    else:
        wait_intra_block(Pipe.PIPE_MTE2 if pipe.gm_ring else Pipe.PIPE_V, ready_flag(pipe, True))


def post_free(pipe, cube: bool, split: TileSplitAxis) -> None:
    """The consumer frees a slot (a5 Consumer::free)."""
    if cube:
        _cube_side(Pipe.PIPE_MTE1, free_flag(pipe, False), split, post=True)
    else:
        set_intra_block(Pipe.PIPE_MTE2 if pipe.gm_ring else Pipe.PIPE_V, free_flag(pipe, True))


def slot_address(pipe, index: int, cube_consumer: bool) -> int:
    """The on-chip byte address of slot ``index`` of the ring the consumer reads (UB of the
    vector cores, L1 of the cube core)."""
    base = pipe.v2c_consumer_buf if cube_consumer else pipe.c2v_consumer_buf
    return base + (index % pipe.slot_num) * pipe.slot_size


def push(pipe, tile: Tile, split: TileSplitAxis, cube: bool, index: int, fixpipe=None) -> int:
    """The data move of a TPUSH (module docstring); returns the slot's on-chip address.
    ``fixpipe``: (output dtype, quant, relu, SubBlockId) of a cube push with FixpipeParams: the
    whole Acc tile, converted, into an ND Vec tile of Rows x Cols (a5 pushAcc2VecFiFo with a
    TConfig: SubBlockId is the AccToVecMode)."""
    split = _split(split, "TPUSH")
    ref = tile.ref()
    if fixpipe is not None:
        out, quant, relu, sub_block_id = fixpipe
        where = slot_address(pipe, index, False)
        vec = Tile("Vec", out, ref.rows, ref.cols, valid=ref.valid, name="fifo_slot")
        TASSIGN(vec, where)
        mode = AccToVecMode.parse(sub_block_id, "TPUSH FixpipeParams SubBlockId")
        TMOV(vec, tile, relu=relu, quant=quant, acc_to_vec=mode)
        return where
    up_down, left_right = (split is TileSplitAxis.TILE_UP_DOWN,
                           split is TileSplitAxis.TILE_LEFT_RIGHT)  # fmt: skip
    if cube:
        where = slot_address(pipe, index, False)
        rows = ref.rows // SPLIT_PARTS if up_down else ref.rows
        cols = ref.cols // SPLIT_PARTS if left_right else ref.cols
        vr = ref.valid_row // SPLIT_PARTS if up_down else ref.valid_row
        vc = ref.valid_col // SPLIT_PARTS if left_right else ref.valid_col
        vec = Tile("Vec", ref.dtype, rows, cols, valid=(vr, vc), name="fifo_slot")
        TASSIGN(vec, where)
        TMOV(vec, tile, acc_to_vec=ACC_TO_VEC[split])
        return where
    where = slot_address(pipe, index, True)
    sub = current().program.core_role.subblock
    rows = ref.rows * SPLIT_PARTS if up_down else ref.rows
    cols = ref.cols * SPLIT_PARTS if left_right else ref.cols
    vr = ref.valid_row * SPLIT_PARTS if up_down else ref.valid_row
    vc = ref.valid_col * SPLIT_PARTS if left_right else ref.valid_col
    mat = Tile("Mat", ref.dtype, rows, cols, "ColMajor", valid=(vr, vc), name="fifo_slot")
    TASSIGN(mat, where)
    TINSERT(mat, tile, ref.valid_row * sub if up_down else 0,
            ref.valid_col * sub if left_right else 0)  # fmt: skip
    return where


def pop(pipe, tile: Tile, cube: bool, index: int) -> int:
    """A TPOP's re-pointing of ``tile`` at its slot; returns the address."""
    want = TileType.Mat if cube else TileType.Vec
    if tile.ref().loc is not want:
        raise KernelError(f"TPOP: a {want.name} tile on this core (the 950 on-chip FIFO)")
    where = slot_address(pipe, index, cube)
    TASSIGN(tile, where)
    return where
