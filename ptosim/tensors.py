"""User-facing data objects: Tile (on-chip buffer) and GlobalTensor (view of a GM buffer).

Instructions never hold a Tile itself but a TileRef: an immutable snapshot of the tile's
geometry, valid shape and placement taken when the instruction is recorded, so a kernel may change
a dynamic valid shape or re-TASSIGN a tile between instructions (ping-pong buffers).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .argcheck import INT64_MAX, as_int, as_shape
from .dtypes import DType, check_scalar_fits
from .dtypes import dtype as as_dtype
from .enums import BLayout, CompactMode, Layout, PadValue, SLayout, TileType
from .errors import ConstraintError, KernelError, OutOfBoundsError
from .layout import GmGeom, TileGeom, packed_strides
from .memory import GM_PAST_END_BYTE, GmBuffer
from .recording import get_value, set_value, tile_name

_tile_ids = itertools.count()


class Placement:
    """Where a tile binding lives: a byte address set by TASSIGN or later by the allocator
    (``assigned_at``: the TASSIGN's source line, which errors about the placement name)."""

    def __init__(self, address: int | None, auto: bool):
        self.address = address
        self.auto = auto
        self.assigned_at: str | None = None


class AliasPlacement(Placement):
    """The placement of a view (TRESHAPE, TSUBVIEW): ``offset`` bytes into another tile's
    placement (``root``). It has no storage of its own: its address follows the root's (also
    when the root is placed automatically), and the allocator and the live-overlap check treat
    its bytes as the root's."""

    def __init__(self, base: Placement, offset_bytes: int):
        root = getattr(base, "root", base)
        self.root = root
        self.offset = getattr(base, "offset", 0) + offset_bytes
        self.auto = False

    @property
    def address(self) -> int | None:  # type: ignore[override]
        base = self.root.address
        return None if base is None else base + self.offset


# Rows and Cols are C++ ``int`` template parameters
TILE_DIM_MAX = 2**31 - 1


def _pad(value) -> PadValue | float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
            return PadValue.parse(value)
        try:
            return float(value)
        except OverflowError:
            raise KernelError(f"Tile pad: custom pad {value!r} is not a float") from None
    return PadValue.parse(value, "pad")


class Tile:
    """An on-chip tile, mirroring ``pto::Tile<Loc, T, Rows, Cols, BLayout, ValidRow, ValidCol,
    SLayout, SFractalSize, PadVal>``.

    Args:
        loc: TileType (``"Vec"``, ``"Mat"`` ...).
        dtype: element type name or DType.
        rows, cols: padded (storage) shape.
        blayout: ``"RowMajor"`` or ``"ColMajor"``.
        valid: static valid shape (r, c); None means the full tile. Use ``set_valid`` to give a
            runtime (dynamic) valid shape later.
        slayout: ``"NoneBox"``, ``"RowMajor"`` or ``"ColMajor"`` (fractal box layout).
        fractal: fractal box size in bytes (512, 1024 or 32).
        pad: PadValue (``"Null"``, ``"Zero"``, ``"Max"``, ``"Min"``) or a float (custom pad).
        name: label used in messages and traces.
        compact: CompactMode (``"Null"``, ``"Normal"``): a cube tile (Left, Right, Acc) stored at
            its valid extent rounded up to fractals (``TileLeftCompact`` ...).

    Raises:
        ConstraintError: the static tile rules (32-byte rows, fractal divisibility, valid <= shape).
    """

    def __init__(
        self,
        loc,
        dtype,
        rows: int,
        cols: int,
        blayout="RowMajor",
        valid=None,
        slayout="NoneBox",
        fractal: int = 512,
        pad="Null",
        name: str | None = None,
        compact="Null",
    ):
        self.id = next(_tile_ids)  # identity only: never printed (messages must be reproducible)
        self.mad_tf32: str | None = None  # SetMadTF32Mode
        dt = as_dtype(dtype)
        if name is not None and not isinstance(name, str):
            raise KernelError(f"Tile name must be a str, got {name!r}")
        self.geom = TileGeom(
            TileType.parse(loc, "Tile loc"),
            dt,
            as_int(rows, "Tile rows", lo=1, hi=TILE_DIM_MAX),
            as_int(cols, "Tile cols", lo=1, hi=TILE_DIM_MAX),
            BLayout.parse(blayout, "Tile blayout"),
            SLayout.parse(slayout, "Tile slayout"),
            as_int(fractal, "Tile fractal (bytes)", lo=1),
            CompactMode.parse(compact, "Tile compact"),
        )
        self.pad = _pad(pad)
        if isinstance(self.pad, float):  # a custom pad value must fit T exactly
            check_scalar_fits("Tile", "pad", self.pad, dt)
        # A default name describes the geometry; inside a recording it also gets the tile's
        # number in order of first use in that program (program.Recorder.tile_name), so
        # identical runs print identical names whatever else the process created before.
        self.auto_name = not name
        self.name = name or f"tile<{dt.name},{rows}x{cols},{self.geom.layout_name}>"
        for rule, expected, given in self.geom.layout_problems():
            raise ConstraintError("Tile", self.name, rule, expected, given)
        self.static_valid = True  # given at construction (or the full tile): static
        if valid is None:
            self._valid = (self.geom.rows, self.geom.cols)
        else:
            self._valid = self._check_valid(valid)
        self.placement: Placement | None = None

    # -- shape ---------------------------------------------------------------------------
    def _check_valid(self, valid, *, bounded: bool = True) -> tuple[int, int]:
        """``valid`` as ints; ``bounded``: within the tile's shape (the static ValidRow/ValidCol
        static_assert). A runtime valid shape is bounded only by the instructions that use it
        (``Instruction.check``): the library's constructor checks nothing, and its tests give a
        tmp tile, whose address alone matters, the valid shape of the data tiles."""
        if not (isinstance(valid, (tuple, list)) and len(valid) == 2):
            raise KernelError(f"{self.name}: valid must be a pair (rows, cols), got {valid!r}")
        vr = as_int(valid[0], f"{self.name}: valid rows")
        vc = as_int(valid[1], f"{self.name}: valid cols")
        if not bounded:
            rows, cols = TILE_DIM_MAX, TILE_DIM_MAX
        else:
            rows, cols = self.geom.rows, self.geom.cols
        if not (0 <= vr <= rows and 0 <= vc <= cols):
            raise ConstraintError(
                "Tile",
                self.name,
                "valid-within-shape",
                f"0 <= ValidRow <= {self.geom.rows} and 0 <= ValidCol <= {self.geom.cols}",
                f"({vr}, {vc})",
            )
        return vr, vc

    def set_valid(self, rows: int, cols: int) -> None:
        """Set a runtime (dynamic) valid shape, like ``Tile(vr, vc)`` / ``SetValidShape``."""
        self._valid = self._check_valid((rows, cols), bounded=False)
        self.static_valid = False

    @property
    def valid(self) -> tuple[int, int]:
        return self._valid

    @valid.setter
    def valid(self, value) -> None:
        self.set_valid(*value)

    valid_row = property(lambda self: self._valid[0])
    valid_col = property(lambda self: self._valid[1])
    rows = property(lambda self: self.geom.rows)
    cols = property(lambda self: self.geom.cols)
    dtype = property(lambda self: self.geom.dtype)
    loc = property(lambda self: self.geom.loc)

    @property
    def address(self) -> int | None:
        return None if self.placement is None else self.placement.address

    def ref(self) -> TileRef:
        """Snapshot for an instruction operand (allocates a placement if none yet)."""
        if self.placement is None:
            self.placement = Placement(None, auto=True)
        name = tile_name(self) if self.auto_name else self.name
        return TileRef(
            self.geom, *self._valid, self.static_valid, self.pad, self.placement, name, self.id,
            self.mad_tf32,
        )  # fmt: skip

    def SetMadTF32Mode(self, mode="CAST_ROUND") -> None:  # noqa: N802 - the C++ spelling
        """Round the float inputs of the cube's mad that reads this Left / Right tile to an
        8-bit exponent and 11-bit mantissa first (``"CAST_RINT"``: ties to even,
        ``"CAST_ROUND"``: ties away), as ``Tile::SetMadTF32Mode`` (ptosim/isa/cube)."""
        if mode not in ("CAST_RINT", "CAST_ROUND"):
            raise KernelError(f"SetMadTF32Mode: mode must be CAST_RINT or CAST_ROUND, got {mode!r}")
        self.mad_tf32 = mode

    def ResetMadMode(self) -> None:  # noqa: N802
        """Back to plain fp32 inputs (``Tile::ResetMadMode``)."""
        self.mad_tf32 = None

    # -- scalar access (ptosim/isa/scalar_access.py) --------------------------------------
    def GetValue(self, index: int):  # noqa: N802 - the C++ / AscendC spelling
        """Element ``index`` (flat offset into the Rows*Cols storage) read by the scalar unit
        at this point of the program (a PIPE_S instruction); an int or an exact float."""
        return get_value(self, index)

    def SetValue(self, index: int, value) -> None:  # noqa: N802
        """Store ``value`` into element ``index`` of the storage with the scalar unit."""
        set_value(self, index, value)

    def __repr__(self) -> str:
        return f"Tile({self.name}, valid={self._valid}, addr={self.address})"


@dataclass(frozen=True)
class TileRef:
    """Immutable snapshot of a tile as an instruction operand."""

    geom: TileGeom
    valid_row: int
    valid_col: int
    static_valid: bool
    pad: PadValue | float
    placement: Placement
    name: str
    tile_id: int
    mad_tf32: str | None = None  # SetMadTF32Mode: the cube's fp32 input rounding

    rows = property(lambda self: self.geom.rows)
    cols = property(lambda self: self.geom.cols)
    dtype = property(lambda self: self.geom.dtype)
    loc = property(lambda self: self.geom.loc)
    numel = property(lambda self: self.geom.numel)
    size_bytes = property(lambda self: self.geom.size_bytes)

    @property
    def valid(self) -> tuple[int, int]:
        return self.valid_row, self.valid_col

    @property
    def address(self) -> int:
        return self.placement.address

    def offsets(self, r, c) -> np.ndarray:
        return self.geom.offsets(r, c)

    def describe(self) -> str:
        g = self.geom
        return (
            f"{self.name} ({g.loc.name}, {g.dtype.name}, {g.rows}x{g.cols} "
            f"{g.layout_name}, valid {self.valid_row}x{self.valid_col})"
        )


def _five(values, what: str) -> tuple[int, ...]:
    # a stride's entries are each bounded (the span check below), their product is not
    return as_shape(values, f"GlobalTensor {what}", max_dims=5, counts=what != "stride")


class GlobalTensor:
    """A 5-D view of a GM buffer, mirroring ``pto::GlobalTensor<T, Shape, Stride, Layout>``.

    Args:
        buffer: a GmBuffer from ``Device.gm_array`` / ``gm_zeros``.
        shape: up to 5 dims (left-padded with 1s to 5), in elements.
        stride: same length as shape, in elements; None means packed for the layout.
        layout: ``"ND"``, ``"DN"`` or ``"NZ"``; on the 950 also ``"NHWC"``, ``"NCHW"`` or
            ``"NCDHW"``, which only a TSTORE from an Acc tile writes.
        offset: element offset of the view inside the buffer.
        dtype: element type of the view (default: the buffer's).

    The view may reach past the end of the buffer: a read there proceeds (the bytes past the
    allocation read as zeros, finding F110), a write there is an OutOfBoundsError (D21).

    Raises:
        OutOfBoundsError: the view starts past the end of the buffer.
    """

    def __init__(
        self, buffer: GmBuffer, shape, stride=None, layout="ND", offset: int = 0, dtype=None
    ):
        if not isinstance(buffer, GmBuffer):
            raise KernelError(
                f"GlobalTensor needs a GM buffer from Device.gm_array/gm_zeros, got "
                f"{type(buffer).__name__}"
            )
        self.buffer = buffer
        # a buffer whose size is not a multiple of the element size (the library's TPART tests
        # allocate n * sizeof(T) + 1 bytes) holds its whole elements; the bytes after the last
        # one are not part of any element (``capacity`` below, ``GmRef.storage``)
        self.dtype = as_dtype(dtype) if dtype is not None else buffer.dtype
        lay = Layout.parse(layout, "GlobalTensor layout")
        shp = _five(shape, "shape")
        shape5 = (1,) * (5 - len(shp)) + shp
        if stride is None:
            stride5 = packed_strides(shape5, lay)
        else:
            st = _five(stride, "stride")
            if len(st) != len(shp):
                raise KernelError(f"GlobalTensor stride {st} must match shape {shp} in length")
            stride5 = packed_strides(shape5, lay)[: 5 - len(st)] + st
        offset = as_int(offset, "GlobalTensor offset (elements)", lo=0)
        # exact Python arithmetic: the engine computes offsets in int64, so nothing may overflow
        span = sum((s - 1) * st for s, st in zip(shape5, stride5)) if 0 not in shape5 else 0
        big = max(span + offset, *(math.prod(shape5[i:]) for i in range(5)), *stride5)
        if big > INT64_MAX:
            raise KernelError(
                f"GlobalTensor shape {shape5} stride {stride5} offset {offset} overflows int64 "
                "element offsets"
            )
        self.geom = GmGeom(shape5, stride5, lay)  # type: ignore[arg-type]
        self.offset = offset
        # the view may run past the end of its allocation (reads there proceed: D21), but it
        # starts inside it: a pointer past every element is no pointer into this buffer
        capacity = buffer.nbytes // self.dtype.size_bytes
        end = self.offset + self.geom.extent
        if self.geom.extent > 0 and self.offset >= capacity:
            raise OutOfBoundsError(
                f"GlobalTensor shape {shape5} stride {stride5} at offset {self.offset} spans "
                f"elements [{self.offset}, {end}) but {buffer!r} holds {capacity} "
                f"{self.dtype.name} elements: the view starts past its end"
            )

    shape = property(lambda self: self.geom.shape)
    stride = property(lambda self: self.geom.stride)
    layout = property(lambda self: self.geom.layout)

    def ref(self) -> GmRef:
        return GmRef(self.buffer, self.dtype, self.geom, self.offset)

    def GetValue(self, index: int):  # noqa: N802 - the C++ / AscendC spelling
        """Element ``index`` (offset from the tensor's start, its ``offset`` honoured) read by
        the scalar unit at this point of the program; an int or an exact float."""
        return get_value(self, index)

    def SetValue(self, index: int, value) -> None:  # noqa: N802
        """Store ``value`` into element ``index`` of the tensor with the scalar unit."""
        set_value(self, index, value)

    def __repr__(self) -> str:
        return (
            f"GlobalTensor({self.dtype.name}, shape={self.shape}, stride={self.stride}, "
            f"{self.layout.name}, buffer #{self.buffer.buffer_id})"
        )


@dataclass(frozen=True)
class GmRef:
    """Immutable GlobalTensor operand: buffer, element type, geometry and element offset."""

    buffer: GmBuffer
    dtype: DType
    geom: GmGeom
    offset: int

    shape = property(lambda self: self.geom.shape)
    stride = property(lambda self: self.geom.stride)
    layout = property(lambda self: self.geom.layout)

    def storage(self) -> np.ndarray:
        """Writable flat typed view of the buffer's whole elements (element 0 = buffer start)."""
        data = self.buffer.data
        return data[: data.size - data.size % self.dtype.size_bytes].view(self.dtype.np)

    def read(self, offsets) -> np.ndarray:
        """The elements at buffer element ``offsets`` (non-negative), read as a DMA reads them:
        bytes past the end of the allocation read as ``GM_PAST_END_BYTE`` (D21)."""
        store = self.storage()
        offsets = np.asarray(offsets)
        if offsets.size == 0 or int(offsets.max()) < store.size:
            return store[offsets]
        size = self.dtype.size_bytes
        data = np.full((int(offsets.max()) + 1) * size, GM_PAST_END_BYTE, dtype=np.uint8)
        data[: self.buffer.nbytes] = self.buffer.data
        return data.view(self.dtype.np)[offsets]

    def offsets(self, r, c) -> np.ndarray:
        """Buffer element offsets of logical (r, c)."""
        return self.offset + self.geom.offsets(r, c)

    def flat_offsets(self, k) -> np.ndarray:
        """Buffer element offsets of flat indices k into the 5-D tensor."""
        return self.offset + self.geom.flat_offsets(k)

    def byte_address(self, element_offset: int) -> int:
        return self.buffer.address + element_offset * self.dtype.size_bytes

    def describe(self) -> str:
        return (
            f"GM {self.dtype.name} shape {list(self.shape)} stride {list(self.stride)} "
            f"{self.layout.name} (buffer #{self.buffer.buffer_id})"
        )
