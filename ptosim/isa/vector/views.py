"""Views: TRESHAPE and TSUBVIEW (vector_isa.md 3.2). No data moves: the destination tile
becomes an alias of the source's UB bytes.

- ``TRESHAPE(dst, src)`` reinterprets src's storage as dst's tile type (CPU
  ``dst.data() = src.data()``, a2a3 ``TASSIGN(dst, src address)``). Checks: same TileType;
  ``sizeof(T_in)*Rows_in*Cols_in == sizeof(T_out)*Rows_out*Cols_out`` (rule ``same-bytes``); no
  boxed <-> unboxed change (rule ``same-box``); on cpu also the same element type or both
  floating-point or both integral (rule ``dtype-kind``). dst keeps the valid shape it was
  constructed with.
- ``TSUBVIEW(dst, src, row_idx, col_idx)``: dst starts at element
  ``row_idx*src.RowStride + col_idx*src.ColStride`` of src (the unboxed formula; RowStride =
  Cols, ColStride = 1 for RowMajor; 1 and Rows for ColMajor). Checks: same TileType, row_idx and
  col_idx are uint16 (rule ``index-range``); an element type of src's size (rule
  ``same-dtype``: the reference casts the pointer, the library's a5 tests view int8 tiles as
  float8); choice: ``src.valid >= dst.valid`` and the same BLayout (the reference checks these
  in auto mode only; ptosim always does), and the view's valid elements lie inside src (rule
  ``view-within-src``: a view cannot silently reach another tile; its padding may run past src,
  as a full-width window declaration does); a boxed src is rejected (rule ``unboxed``: the
  reference only has the unboxed formula) except from element (0, 0), where the formula is 0
  whatever the strides (a view with a smaller valid region, the library's a5 textract_vec test;
  dst then needs src's boxes). The view is a true window only when dst has src's row stride;
  nothing enforces that (as in the reference).

The view's placement is an ``AliasPlacement`` of src's: the view follows src's address (also
when src is placed automatically), the allocator does not give it bytes of its own, and the
live-overlap check (F204) treats it as the same binding as src. Hazards (F203) work on byte
ranges, so accesses through a view and through src race or not exactly as the bytes say. A later
TASSIGN of src does not move an existing view (the C++ view holds a pointer). Timed targets: an
address constant written to a register on PIPE_S (like TASSIGN), no vector work.
"""

from __future__ import annotations

from dataclasses import replace

from ...argcheck import as_int
from ...enums import BLayout, Pipe
from ...errors import KernelError
from ...program import emit
from ...tensors import AliasPlacement, Tile, TileRef
from ..base import Arch
from ..data import _tile
from ..registry import instruction
from .common import VectorInstruction

__all__ = ["TRESHAPE", "TSUBVIEW", "TReshape", "TSubView"]

_UINT16_MAX = 0xFFFF


class _View(VectorInstruction):
    """A view instruction: dst aliases src's bytes; nothing is read or written."""

    nominal_pipe = Pipe.PIPE_S

    def tile_operands(self) -> dict[str, TileRef]:
        return {"src": self.src, "dst": self.dst}

    def require_same_type(self) -> None:
        self.require(
            self.dst.loc is self.src.loc,
            "dst",
            "same-tile-type",
            f"TileType::{self.src.loc.name} (the TileType of src)",
            f"TileType::{self.dst.loc.name}",
        )

    def execute(self, ctx) -> None:
        """No data moves (the alias was made when the instruction was recorded)."""


class TReshape(_View):
    opcode = "TRESHAPE"

    def __init__(self, dst: TileRef, src: TileRef):
        self.dst, self.src = dst, src

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_same_type()
        self.require(
            d.size_bytes == s.size_bytes,
            "dst",
            "same-bytes",
            f"sizeof(T)*Rows*Cols == {s.size_bytes} bytes (src's)",
            f"{d.size_bytes} bytes",
        )
        self.require(
            d.geom.is_boxed == s.geom.is_boxed,
            "dst",
            "same-box",
            f"{'a boxed' if s.geom.is_boxed else 'an unboxed'} layout like src",
            d.geom.layout_name,
        )
        if arch.spec.layout.reshape_same_kind:
            same_kind = d.dtype is s.dtype or (d.dtype.is_float and s.dtype.is_float)
            same_kind = same_kind or (d.dtype.is_int and s.dtype.is_int)
            self.require(
                same_kind,
                "dst",
                "dtype-kind",
                f"{s.dtype.name} or a dtype of the same kind (floating-point / integral)",
                d.dtype.name,
            )


class TSubView(_View):
    opcode = "TSUBVIEW"

    def __init__(self, dst: TileRef, src: TileRef, row_idx: int, col_idx: int):
        self.dst, self.src, self.row_idx, self.col_idx = dst, src, row_idx, col_idx

    def offset_elements(self) -> int:
        s = self.src
        if s.geom.blayout is BLayout.RowMajor:
            return self.row_idx * s.cols + self.col_idx
        return self.row_idx + self.col_idx * s.rows

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_same_type()
        for name, v in (("row_idx", self.row_idx), ("col_idx", self.col_idx)):
            self.require(
                0 <= v <= _UINT16_MAX, name, "index-range", "0 <= index <= 65535 (uint16)", v
            )
        origin = self.row_idx == 0 and self.col_idx == 0
        self.require(
            not s.geom.is_boxed or origin,
            "src",
            "unboxed",
            "an unboxed (NoneBox) tile, or a view from element (0, 0)",
            f"{s.geom.layout_name} from ({self.row_idx}, {self.col_idx})",
        )
        if s.geom.is_boxed:  # the same storage: the same boxes
            self.require(
                (d.geom.slayout, d.geom.fractal) == (s.geom.slayout, s.geom.fractal),
                "dst",
                "same-layout",
                f"{s.geom.layout_name} with {s.geom.fractal}-byte fractals (src's)",
                f"{d.geom.layout_name} with {d.geom.fractal}-byte fractals",
            )
        self.require(
            d.geom.blayout is s.geom.blayout,
            "dst",
            "same-layout",
            f"BLayout::{s.geom.blayout.name} (src's)",
            f"BLayout::{d.geom.blayout.name}",
        )
        self.require(
            d.dtype.size_bytes == s.dtype.size_bytes,
            "dst",
            "same-dtype",
            f"{s.dtype.name} or another {s.dtype.size_bytes}-byte type (src's element size)",
            d.dtype.name,
        )
        self.require(
            d.valid_row <= s.valid_row and d.valid_col <= s.valid_col,
            "dst",
            "valid-within-src",
            f"valid shape <= src's {s.valid}",
            d.valid,
        )
        # the view's valid elements must lie in src (its padding may run past, as the common
        # full-width window declaration does)
        g = d.geom
        last = 0
        if d.valid_row and d.valid_col:
            last = int(g.offsets(d.valid_row - 1, d.valid_col - 1)) + 1
        end = self.offset_elements() + last
        self.require(
            end <= s.numel,
            "dst",
            "view-within-src",
            f"the view's valid elements inside src's {s.numel} elements",
            f"offset {self.offset_elements()} + {last} elements = {end}",
        )


def _view_ref(dst: Tile, src_ref: TileRef, offset_bytes: int, what: str) -> TileRef:
    """dst's operand snapshot, placed as an alias of src's bytes."""
    ref = _tile(dst, what)
    alias = AliasPlacement(src_ref.placement, offset_bytes)
    return replace(ref, placement=alias)


@instruction(
    family="layout / fill",
    summary="view src's bytes as another tile type (alias, no data movement)",
)
def TRESHAPE(dst: Tile, src: Tile) -> None:
    """Make ``dst`` an alias of ``src``'s storage (same byte size)."""
    if dst is src:
        raise KernelError("TRESHAPE: dst and src are the same Tile object")
    s = _tile(src, "TRESHAPE src")
    d = _view_ref(dst, s, 0, "TRESHAPE dst")
    emit(TReshape(d, s))
    dst.placement = d.placement


@instruction(
    family="layout / fill",
    summary="a window of src starting at (row_idx, col_idx) (alias, no data movement)",
)
def TSUBVIEW(dst: Tile, src: Tile, row_idx: int, col_idx: int) -> None:
    """Make ``dst`` an alias of ``src``'s storage from element (row_idx, col_idx)."""
    if dst is src:
        raise KernelError("TSUBVIEW: dst and src are the same Tile object")
    s = _tile(src, "TSUBVIEW src")
    r = as_int(row_idx, "TSUBVIEW row_idx")
    c = as_int(col_idx, "TSUBVIEW col_idx")
    probe = TSubView(s, s, r, c)  # the element offset depends on src and the indices only
    d = _view_ref(dst, s, probe.offset_elements() * s.dtype.size_bytes, "TSUBVIEW dst")
    emit(TSubView(d, s, r, c))
    dst.placement = d.placement
