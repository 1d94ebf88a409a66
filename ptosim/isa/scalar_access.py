"""Scalar access: GetValue / SetValue of one element of a Vec tile (UB) or a GlobalTensor (GM),
run by the scalar unit on PIPE_S (it has no path to L1: a Mat tile is rule tile-location). A C++
raw access (``tile.data()[i]``, served as these instructions with ``raw=True``) reaches any tile,
in its own buffer, on a target whose ``cube.raw_access_cube_tiles`` is set (cpu: host memory).

Index convention (AscendC ``LocalTensor::GetValue(offset)`` / ``GlobalTensor::GetValue(offset)``
and pto-isa ``tile.data()[i]`` all index the raw element pointer):

- a tile: ``i`` is the flat element offset into the tile's storage (``Rows * Cols`` elements,
  padding included), in storage order: row-major for a RowMajor ND tile, column-major for a
  ColMajor tile, box order for NZ/ZN. ``0 <= i < Rows * Cols``.
- a GlobalTensor: ``i`` is an element offset from the tensor's own start (its ``offset`` into
  the buffer is added), ``0 <= i < extent`` (one past its highest addressed element).

GetValue returns a Python ``int`` (integer types) or ``float`` (float types; half, bfloat16 and
float8 widen exactly). SetValue takes a number that fits the element type (float rounding
allowed, as for every ``*S`` scalar operand). hifloat8 has no numeric encoding: not accepted.

Reading a value needs the simulated state at that point of the program: the first GetValue of a
kernel body switches its run to an incremental session (ptosim/session.py), in which the value
is what the scalar load read at its simulated time.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as D
from ..enums import Pipe
from ..errors import KernelError
from ..memory import space_of
from ..program import current, emit
from ..tensors import GlobalTensor, GmRef, Tile, TileRef
from .base import Arch, ExecContext, Instruction
from .registry import instruction


class _ScalarAccess(Instruction):
    """One element of a tile or a GlobalTensor, accessed by the scalar unit."""

    nominal_pipe = Pipe.PIPE_S
    operand_name = "?"
    raw = False  # a C++ raw element access (tile.data()[i]), not the GetValue / SetValue API

    @property
    def ref(self) -> TileRef | GmRef:
        return getattr(self, self.operand_name)

    count = 1  # elements accessed from ``index`` on (a batch of consecutive raw writes: more)

    @property
    def limit(self) -> int:
        """Number of elements the index may address."""
        ref = self.ref
        return ref.numel if isinstance(ref, TileRef) else ref.geom.extent

    @property
    def in_gm(self) -> bool:
        return isinstance(self.ref, GmRef)

    def validate(self, arch: Arch) -> None:
        self.require_element_dtype(self.operand_name, self.ref, arch)
        # the scalar unit reaches UB and GM, not L1 / L0 (a raw access on cpu: host memory)
        if isinstance(self.ref, TileRef) and not (
            self.raw and arch.spec.cube.raw_access_cube_tiles
        ):
            self.require_loc(self.operand_name, self.ref)
        where = "its Rows * Cols storage" if not self.in_gm else "the tensor's extent"
        self.require(
            self.index >= 0 and self.index + self.count <= self.limit,
            "index",
            "scalar-index",
            f"0 <= index < {self.limit} (a flat element offset into {where})",
            self.index if self.count == 1 else f"{self.index}..{self.index + self.count - 1}",
        )

    def element(self, ctx: ExecContext, *, read: bool = False):
        """(typed array, element offset) of the accessed element; GM offsets are checked (a
        read past the end of the allocation reads 0xFF bytes, D21)."""
        ref = self.ref
        if isinstance(ref, TileRef):
            return ctx.tile_storage(ref), self.index
        offset = ref.offset + self.index
        ctx.gm_check(ref, [offset, offset + self.count - 1], self.operand_name, read=read)
        if read:
            return ref.read(np.array([offset])), 0
        return ref.storage(), offset

    def byte_range(self) -> tuple[str, int, int]:
        """(memory space, start, end) of the accessed bytes (for the plans' regions)."""
        ref, size = self.ref, self.ref.dtype.size_bytes * self.count
        if isinstance(ref, TileRef):
            start = ref.address + self.index * ref.dtype.size_bytes
            return space_of(ref.loc), start, start + size
        start = ref.byte_address(ref.offset + self.index)
        return "GM", start, start + size


class GetValueInstr(_ScalarAccess):
    """``v = x.GetValue(i)``: a scalar load; ``value`` holds what it read once executed."""

    opcode = "GetValue"
    reads = ("src",)
    operand_name = "src"

    def __init__(self, src: TileRef | GmRef, index: int, *, raw: bool = False):
        self.src, self.index, self.raw = src, index, raw
        self.value: int | float | None = None

    def execute(self, ctx: ExecContext) -> None:
        storage, offset = self.element(ctx, read=True)
        v = storage[offset]
        # exact widening: every integer fits a Python int, every PTO float a Python float
        self.value = int(v) if self.src.dtype.is_int else float(v)


class SetValueInstr(_ScalarAccess):
    """``x.SetValue(i, v)``: a scalar store of ``value`` (already converted to the dtype).

    A C++ kernel's consecutive raw writes of consecutive elements from one line (a
    ``std::fill`` over ``tile.data()``) are one SetValue of ``count`` elements, ``value`` their
    array in the element type: the same stores in the same order (on a timed target one PIPE_S
    store each), recorded as one instruction so that a fill costs the simulation one
    instruction, not one per element.
    """

    opcode = "SetValue"
    writes = ("dst",)
    operand_name = "dst"

    def __init__(
        self, dst: TileRef | GmRef, index: int, value, *, raw: bool = False, count: int = 1
    ):
        self.dst, self.index, self.value, self.raw, self.count = dst, index, value, raw, count

    def validate(self, arch: Arch) -> None:
        super().validate(arch)
        if self.count == 1:
            self.value = D.check_scalar_fits(self, "value", self.value, self.dst.dtype)

    def execute(self, ctx: ExecContext) -> None:
        storage, offset = self.element(ctx)
        if self.count == 1:
            storage[offset] = self.value
        else:
            storage[offset : offset + self.count] = self.value


def _operand(x, what: str) -> TileRef | GmRef:
    if isinstance(x, Tile):
        return x.ref()
    if isinstance(x, GlobalTensor):
        return x.ref()
    raise KernelError(f"{what} must be a pto.Tile or a pto.GlobalTensor, got {type(x).__name__}")


def _index(i, what: str) -> int:
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise KernelError(f"{what} must be an integer element offset, got {i!r}")
    return int(i)


@instruction(
    family="data movement",
    summary="scalar read of one element of a tile or GM (PIPE_S); returns its value",
)
def GetValue(src, index: int):
    """The value of element ``index`` of ``src`` (a Tile or a GlobalTensor) at this point of
    the program, read by the scalar unit: ``src.GetValue(index)``."""
    instr = emit(GetValueInstr(_operand(src, "GetValue src"), _index(index, "GetValue index")))
    return current().read(instr)


@instruction(
    family="data movement",
    summary="scalar write of one element of a tile or GM (PIPE_S)",
)
def SetValue(dst, index: int, value) -> None:
    """Store ``value`` into element ``index`` of ``dst`` (a Tile or a GlobalTensor) with the
    scalar unit: ``dst.SetValue(index, value)``."""
    emit(SetValueInstr(_operand(dst, "SetValue dst"), _index(index, "SetValue index"), value))


def raw_get(src, index: int):
    """A C++ raw read (``tile.data()[i]``, ``*gm_ptr``): GetValue, marked raw."""
    instr = emit(
        GetValueInstr(_operand(src, "raw read"), _index(index, "raw read index"), raw=True)
    )
    return current().read(instr)


def raw_set(dst, index: int, value) -> None:
    """A C++ raw write: SetValue, marked raw."""
    emit(
        SetValueInstr(_operand(dst, "raw write"), _index(index, "raw write index"), value, raw=True)
    )


def raw_set_run(dst, index: int, values: np.ndarray) -> None:
    """C++ raw writes of ``len(values)`` consecutive elements from ``index`` on, in order
    (``values``: an array of ``dst``'s element type): one SetValue of that count."""
    if len(values) == 1:
        raw_set(dst, index, values[0].item())
        return
    ref = _operand(dst, "raw write")
    emit(SetValueInstr(ref, _index(index, "raw write index"), values, raw=True, count=len(values)))
