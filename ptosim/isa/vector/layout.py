"""Layout and fill: TFILLPAD (+ _INPLACE, _EXPAND), TTRANS, TTRI, TEXTRACT, TINSERT
(vector_isa.md 3.14, 3.11, 3.13, 3.1, 3.9).

cpu follows the CPU simulator, a2a3 the a2a3 lowering (with the bytes it writes past the valid
region, "writes padding"), a5 the a5 code where the reference pins it down (see each class); the
target's ``LayoutRules`` name which.

TFILLPAD<mode>(dst, src), pad = dst's PadValue (not Null, rule ``pad-value``; the TLOAD table):
- cpu and a5: every (i, j) of dst's static Rows x Cols gets ``src[i, j]`` when inside src's valid
  region, else the pad (a5: "VF with the same intent", details uncertain -> the CPU result).
- a2a3 (``FillPad.ROW_BLOCKS``), with (Rs, Cs) = src valid, Rd = dst valid rows, Cb = Cs rounded up
  to a 32-byte block: (1) not InPlace: rows [0, Rs) copied whole (src Cols elements each) into dst;
  (2) only when dst's PadVal differs from src's: columns [Cs, Cb) of rows [0, Rs) get the pad (else
  they keep what (1) copied: the library assumes TLOAD padded that block); (3) columns [Cb, dst
  Cols) of rows [0, Rs) get the pad; (4) rows [Rs, Rd) get the pad in full. Rows >= Rd are not
  touched.
Checks: same dtype (choice: the reference asks equal sizes only; a value-converting copy is not
pinned down), 1/2/4-byte elements, Normal/InPlace equal Rows x Cols, Expand dst >= src, InPlace
the same storage (rule ``same-storage``).

TTRANS(dst, src, tmp): ``dst[j, i] = src[i, j]`` over src's valid region, a bit copy (equal
element sizes). Checks: dst valid == (src valid col, src valid row) (the CPU static_assert, kept
on every target). a2a3 (``LayoutRules.transpose_tmp``), Y = 16 (b16, b32) or 32 (b8), tmpStride =
ceil(R/Y)*Y: when dst Cols % Y or src Cols % (32/sizeof T) is non-zero, a scalar transpose (exact);
else the vnchwconv transpose writes ``tmp[j*tmpStride + i]`` for i < R, j < C (tmp must hold
C*tmpStride elements, rule ``tmp-size``), then one copy moves ``ceil(R*size/32)`` blocks per row
from tmp to dst: dst columns [R, 32-byte boundary) receive tmp's bytes there (writes padding; what
vnchwconv puts in the unused slots of the last sub-tile is not modelled: those tmp bytes keep their
content). cpu and a5 write the valid region only; cpu and a5 ignore tmp.

TTRI(dst, diagonal, *, is_upper_or_lower=0): over dst's valid region, lower (0):
``1 if j <= i + d else 0``; upper (1): ``0 if j < i + d else 1``. Exact on every target (the a2a3
per-row count-mode dups cover the valid columns only).

TEXTRACT(dst, src, index_row=0, index_col=0): ``dst[i, j] = src[index_row + i, index_col + j]``
over dst's valid region, Vec -> Vec only (the cube paths raise UnsupportedError naming them).
cpu asserts ``index + dst.valid <= src.valid`` (rule ``window-within-src``,
``Window.VALID_REGION``). a2a3 (``LayoutRules.extract_b16_copy``): ND (RowMajor) or NZ pairs; ND
needs ``index_col*sizeof(T) % 32 == 0`` unless dst is statically 1x1 (rule ``index-col-32B``) and
``index + dst static valid <= src Rows x Cols``; the ND tail of a valid width that is not whole
32-byte blocks is copied by a 16-bit ``vcopy``: for a 1-byte type with an odd tail the last byte is
not copied (reference, uncertain whether reachable; modelled). NZ needs ``index_row % 16 == 0`` and
``index_col % C0 == 0``. a5: exact copy (ND and NZ).

TINSERT(dst, src, index_row, index_col): ``dst[index_row + i, index_col + j] = src[i, j]`` over
src's valid region (cpu asserts the window fits dst's valid region: rule ``window-within-dst``).
a2a3 has no Vec form (UnsupportedError: only Acc -> Mat through the fixpipe); a5 Vec -> Vec.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...argcheck import as_int
from ...enums import BLayout, PadValue, SLayout, TileType
from ...errors import KernelError
from ...program import emit
from ...tensors import Tile, TileRef
from ..base import Arch, ExecContext
from ..cube.instructions import cube_fillpad, cube_move
from ..cube.onchip import vec_to_mat_applies, vec_to_mat_tinsert
from ..data import _tile, pad_scalar
from ..registry import instruction
from ..spec import FillPad, Window
from .common import VectorInstruction

__all__ = [
    "TEXTRACT",
    "TFILLPAD",
    "TFILLPAD_EXPAND",
    "TFILLPAD_INPLACE",
    "TINSERT",
    "TTRANS",
    "TTRI",
]

BLOCK_BYTES = 32
_UINT = {1: D.uint8, 2: D.uint16, 4: D.uint32, 8: D.uint64}


def block_round(n: int, size: int) -> int:
    """``n`` elements of ``size`` bytes rounded up to whole 32-byte blocks (elements)."""
    per = BLOCK_BYTES // size
    return -(-n // per) * per


def bits(ctx: ExecContext, ref: TileRef, count: int | None = None) -> np.ndarray:
    """Writable unsigned view of a tile's storage (bit copies between equal-size dtypes)."""
    n = ref.numel if count is None else count
    return ctx.memory_of(ref).typed(ref.address, _UINT[ref.dtype.size_bytes], n)


def _is_nd(ref: TileRef) -> bool:
    return ref.geom.blayout is BLayout.RowMajor and ref.geom.slayout is SLayout.NoneBox


def _is_nz(ref: TileRef) -> bool:
    return ref.geom.blayout is BLayout.ColMajor and ref.geom.slayout is SLayout.RowMajor


# -- TFILLPAD ---------------------------------------------------------------------------------
FILL_MODES = ("Normal", "InPlace", "Expand")


class TFillPad(VectorInstruction):
    """TFILLPAD / TFILLPAD_INPLACE / TFILLPAD_EXPAND (dst, src)."""

    reads = ("src",)
    writes = ("dst",)

    def __init__(self, mode: str, dst: TileRef, src: TileRef):
        self.mode = mode
        self.opcode = {"Normal": "TFILLPAD", "InPlace": "TFILLPAD_INPLACE"}.get(
            mode, "TFILLPAD_EXPAND"
        )
        self.dst, self.src = dst, src

    def pads_differ(self) -> bool:
        return self.dst.pad != self.src.pad

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_defined(arch)
        self.require_vec("dst", d, arch)
        self.require_vec("src", s, arch)
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src", s)
        self.require(
            not (isinstance(d.pad, PadValue) and d.pad is PadValue.Null),
            "dst",
            "pad-value",
            "a PadValue other than Null (Zero, Max, Min or a custom value)",
            "Null",
        )
        if self.mode == "Expand":
            self.require(
                d.rows >= s.rows and d.cols >= s.cols,
                "dst",
                "expand-shape",
                f"Rows x Cols >= src's {s.rows}x{s.cols}",
                f"{d.rows}x{d.cols}",
            )
        else:
            self.require(
                (d.rows, d.cols) == (s.rows, s.cols),
                "dst",
                "same-shape",
                f"Rows x Cols == src's {s.rows}x{s.cols}",
                f"{d.rows}x{d.cols}",
            )
        if self.mode == "InPlace":
            same = d.placement is s.placement or (d.address is not None and d.address == s.address)
            self.require(
                same, "dst", "same-storage", "the storage of src (in place)", "another tile"
            )

    def execute(self, ctx: ExecContext) -> None:
        if ctx.spec.layout.fillpad is FillPad.ROW_BLOCKS:
            self._execute_row_blocks(ctx)
            return
        d, s = self.dst, self.src
        if d.valid_row == 0 or d.valid_col == 0:
            return
        pad = pad_scalar(d, null_as_zero=False)
        Rs, Cs = min(s.valid_row, d.rows), min(s.valid_col, d.cols)
        r, c = s.geom.grid(Rs, Cs)
        kept = ctx.tile_storage(s)[s.offsets(r, c)].copy()
        out = np.full((d.rows, d.cols), pad, dtype=d.dtype.np)
        out[:Rs, :Cs] = kept
        r, c = d.geom.grid(d.rows, d.cols)
        ctx.tile_storage(d)[d.offsets(r, c)] = out

    def _execute_row_blocks(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        Rs, Cs = s.valid
        Rd, sz = d.valid_row, d.dtype.size_bytes
        pad = pad_scalar(d, null_as_zero=False)
        ds = ctx.tile_storage(d)
        rows = np.arange(Rs, dtype=np.int64)[:, None]
        if self.mode != "InPlace" and Rs:  # (1) whole src rows
            src_rows = ctx.tile_storage(s)[rows * s.cols + np.arange(s.cols)].copy()
            ds[rows * d.cols + np.arange(s.cols)] = src_rows
        cb = block_round(Cs, sz)
        if self.pads_differ() and Rs and cb > Cs:  # (2) the partial block
            ds[rows * d.cols + np.arange(Cs, cb)] = pad
        if Rs and d.cols > cb:  # (3) whole blocks right of the valid columns
            ds[rows * d.cols + np.arange(cb, d.cols)] = pad
        if Rd > Rs:  # (4) rows below src's valid rows, up to dst's valid rows
            ds[Rs * d.cols : Rd * d.cols] = pad


# -- TTRANS -----------------------------------------------------------------------------------
class TTrans(VectorInstruction):
    opcode = "TTRANS"
    reads = ("src",)
    writes = ("dst", "tmp")

    def __init__(self, dst: TileRef, src: TileRef, tmp: TileRef | None):
        self.dst, self.src, self.tmp = dst, src, tmp

    def group_rows(self) -> int:
        """Y: rows per vnchwconv sub-tile (16 for b16/b32, 32 for b8)."""
        return 32 if self.src.dtype.size_bytes == 1 else 16

    def tmp_stride(self) -> int:
        y = self.group_rows()
        return -(-self.src.valid_row // y) * y

    def a2a3_scalar(self) -> bool:
        """The scalar transpose of a ``transpose_tmp`` target (a2a3: row strides not whole
        sub-tiles)."""
        s = self.src
        return self.dst.cols % self.group_rows() != 0 or s.cols % (32 // s.dtype.size_bytes) != 0

    def validate(self, arch: Arch) -> None:
        d, s, t = self.dst, self.src, self.tmp
        self.require_defined(arch)
        self.require_vec("src", s, arch, row_major=False)
        self.require(_is_nd(s), "src", "row-major", "BLayout::RowMajor (ND)", s.geom.layout_name)
        self.require_vec("dst", d, arch)
        self.require_element_dtype("src", s, arch)
        self.require_element_dtype("dst", d, arch)
        self.require(
            d.dtype.size_bytes == s.dtype.size_bytes,
            "dst",
            "same-dtype-size",
            f"sizeof(T) == {s.dtype.size_bytes} (src's {s.dtype.name})",
            f"{d.dtype.name} ({d.dtype.size_bytes} bytes)",
        )
        self.require(
            d.valid == (s.valid_col, s.valid_row),
            "dst",
            "transposed-valid",
            f"valid shape {(s.valid_col, s.valid_row)} (src's transposed)",
            d.valid,
        )
        if arch.spec.layout.transpose_tmp and not self.a2a3_scalar():
            if t is None:
                self.fail("tmp", "tmp-required", "a tmp tile (the vnchwconv buffer)", None)
            self.require_loc("tmp", t)
            need = s.valid_col * self.tmp_stride() * s.dtype.size_bytes
            self.require(
                t.size_bytes >= need,
                "tmp",
                "tmp-size",
                f">= C*ceil(R/{self.group_rows()})*{self.group_rows()}*sizeof(T) = {need} bytes",
                f"{t.size_bytes} bytes",
            )

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        R, C = s.valid
        if R == 0 or C == 0:
            return
        i = np.arange(R, dtype=np.int64)[:, None]
        j = np.arange(C, dtype=np.int64)[None, :]
        vals = bits(ctx, s)[s.offsets(i, j)].copy()  # (R, C)
        if not ctx.spec.layout.transpose_tmp or self.a2a3_scalar():
            bits(ctx, d)[d.offsets(j.T, i.T)] = vals.T
            return
        ts, t = self.tmp_stride(), self.tmp
        tv = bits(ctx, t, C * ts)
        tv[j * ts + i] = vals
        nb = block_round(R, s.dtype.size_bytes)
        jj = np.arange(C, dtype=np.int64)[:, None]
        kk = np.arange(nb, dtype=np.int64)[None, :]
        moved = tv[jj * ts + kk].copy()
        bits(ctx, d)[jj * d.cols + kk] = moved


# -- TTRI -------------------------------------------------------------------------------------
class TTri(VectorInstruction):
    opcode = "TTRI"
    writes = ("dst",)

    def __init__(self, dst: TileRef, diagonal: int, upper: int):
        self.dst, self.diagonal, self.upper = dst, diagonal, upper

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        self.require_vec("dst", self.dst, arch)
        self.require_element_dtype("dst", self.dst, arch)
        self.require(
            self.upper in (0, 1),
            "is_upper_or_lower",
            "tri-mode",
            "0 (lower) or 1 (upper)",
            self.upper,
        )
        self.require(
            -(2**31) <= self.diagonal < 2**31, "diagonal", "scalar-range", "an int", self.diagonal
        )

    def ones_per_row(self, i: int) -> tuple[int, int]:
        """(first column, end column) of the lanes of row i set by the second dup (lower: the
        ones, upper: the zeros)."""
        C, d = self.dst.valid_col, self.diagonal
        if self.upper:
            return 0, max(0, min(i + d, C))
        return 0, max(0, min(i + d + 1, C)) if i + d >= 0 else 0

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        i, j = d.geom.grid(R, C)
        if self.upper:
            v = np.where(j < i + self.diagonal, 0, 1)
        else:
            v = np.where(j <= i + self.diagonal, 1, 0)
        ctx.tile_write(d, v.astype(d.dtype.np))


# -- TEXTRACT / TINSERT -----------------------------------------------------------------------
class _Window(VectorInstruction):
    """A window copy between two Vec tiles (TEXTRACT: out of src; TINSERT: into dst)."""

    reads = ("src",)
    writes = ("dst",)
    CUBE = ""

    def __init__(self, dst: TileRef, src: TileRef, index_row: int, index_col: int):
        self.dst, self.src, self.index_row, self.index_col = dst, src, index_row, index_col

    def require_vec_pair(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        if d.loc is not TileType.Vec or s.loc is not TileType.Vec:
            self.unsupported(
                "dst/src",
                "tile-location",
                "Vec -> Vec (the vector path)",
                f"{s.loc.name} -> {d.loc.name}",
                self.CUBE,
            )
        for name, v in (("index_row", self.index_row), ("index_col", self.index_col)):
            self.require(0 <= v <= 0xFFFF, name, "index-range", "0 <= index <= 65535 (uint16)", v)
        self.require_same_dtype("src", s, "dst", d)
        self.require_element_dtype("dst", d, arch)

    def region(self) -> tuple[int, int]:
        """(rows, cols) copied."""
        raise NotImplementedError

    def copy(self, ctx: ExecContext, src_at, dst_at, rows: int, cols: int) -> None:
        d, s = self.dst, self.src
        if rows == 0 or cols == 0:
            return
        i, j = d.geom.grid(rows, cols)
        vals = ctx.tile_storage(s)[s.offsets(*src_at(i, j))].astype(d.dtype.np)
        ctx.tile_storage(d)[d.offsets(*dst_at(i, j))] = vals


class TExtract(_Window):
    opcode = "TEXTRACT"
    CUBE = (
        "the cube forms of TEXTRACT (Mat -> Left/Right, Acc -> Mat/Vec, TEXTRACT_FP) are not "
        "modelled"
    )

    def a2a3_scalar(self) -> bool:
        d = self.dst
        return d.static_valid and d.valid == (1, 1)

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        self.require_vec_pair(arch)
        d, s = self.dst, self.src
        r0, c0 = self.index_row, self.index_col
        rules = arch.spec.layout
        if rules.window is Window.VALID_REGION:
            self.require(
                r0 + d.valid_row <= s.valid_row and c0 + d.valid_col <= s.valid_col,
                "dst",
                "window-within-src",
                f"index + dst valid <= src valid {s.valid}",
                f"({r0}+{d.valid_row}, {c0}+{d.valid_col})",
            )
            return
        nd = _is_nd(d) and _is_nd(s)
        nz = _is_nz(d) and _is_nz(s)
        self.require(nd or nz, "dst", "layout-pairing", "ND -> ND or NZ -> NZ", d.geom.layout_name)
        if rules.extract_b16_copy:
            if nd and not self.a2a3_scalar():
                self.require(
                    (c0 * d.dtype.size_bytes) % BLOCK_BYTES == 0,
                    "index_col",
                    "index-col-32B",
                    "index_col*sizeof(T) a multiple of 32 bytes",
                    f"{c0}*{d.dtype.size_bytes}",
                )
            if nz:
                c0_elems = d.dtype.c0
                self.require(
                    r0 % 16 == 0 and c0 % c0_elems == 0,
                    "index_row/index_col",
                    "nz-index",
                    f"index_row % 16 == 0 and index_col % {c0_elems} == 0",
                    (r0, c0),
                )
        self.require(
            r0 + d.valid_row <= s.rows and c0 + d.valid_col <= s.cols,
            "dst",
            "window-within-src",
            f"index + dst valid <= src Rows x Cols {s.rows}x{s.cols}",
            f"({r0}+{d.valid_row}, {c0}+{d.valid_col})",
        )

    def odd_byte_tail(self) -> bool:
        """``extract_b16_copy`` (a2a3) ND: a 1-byte type whose tail (bytes past whole blocks)
        is odd loses its last byte (the 16-bit vcopy count rounds down)."""
        d = self.dst
        return d.dtype.size_bytes == 1 and (d.valid_col % BLOCK_BYTES) % 2 == 1

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        r0, c0 = self.index_row, self.index_col
        b16_copy = ctx.spec.layout.extract_b16_copy
        if b16_copy and _is_nd(d) and not self.a2a3_scalar() and self.odd_byte_tail():
            C -= 1
        self.copy(ctx, lambda i, j: (i + r0, j + c0), lambda i, j: (i, j), R, C)


class TInsert(_Window):
    opcode = "TINSERT"
    CUBE = (
        "the cube forms of TINSERT (Acc -> Mat through the fixpipe, Vec -> Mat, split inserts, "
        "TINSERT_FP) are not modelled"
    )

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        if arch.spec.cube.shared_buffers:
            self.host_memory_rules(arch)
        else:
            self.require_vec_pair(arch)
        d, s = self.dst, self.src
        r0, c0 = self.index_row, self.index_col
        if arch.spec.layout.window is Window.VALID_REGION:
            lim, what = d.valid, "dst valid"
        else:
            self.require(
                (_is_nd(d) and _is_nd(s)) or (_is_nz(d) and _is_nz(s)),
                "dst",
                "layout-pairing",
                "ND -> ND or NZ -> NZ",
                d.geom.layout_name,
            )
            lim, what = (d.rows, d.cols), "dst Rows x Cols"
        self.require(
            r0 + s.valid_row <= lim[0] and c0 + s.valid_col <= lim[1],
            "src",
            "window-within-dst",
            f"index + src valid <= {what} {lim}",
            f"({r0}+{s.valid_row}, {c0}+{s.valid_col})",
        )

    def host_memory_rules(self, arch: Arch) -> None:
        """cpu (cpu/TInsert.hpp): an element copy between any two tiles (every tile is host
        memory), each element converted from src's type to dst's as C++ converts it. ptosim
        takes the conversions numpy performs the same way: exact ones (a wider type of the
        same kind, a float from a narrower integer) and integer -> float32 (round to nearest
        even, as the x86 conversion does in the default rounding mode)."""
        d, s = self.dst, self.src
        for name, v in (("index_row", self.index_row), ("index_col", self.index_col)):
            self.require(0 <= v <= 0xFFFF, name, "index-range", "0 <= index <= 65535 (uint16)", v)
        self.require_element_dtype("dst", d, arch)
        self.require_element_dtype("src", s, arch)
        a, b = s.dtype, d.dtype
        exact = a is b or (
            a.kind != "opaque" and b.kind != "opaque" and np.can_cast(a.np, b.np, "safe")
        )
        exact = exact or (a.name in ("half", "bfloat16") and b.name == "float32")
        to_float32 = a.is_int and b.name == "float32"
        self.require(
            exact or to_float32,
            "dst",
            "insert-dtype",
            f"{a.name} or a type every {a.name} converts to exactly (or float32 from an "
            "integer type)",
            b.name,
        )

    def execute(self, ctx: ExecContext) -> None:
        R, C = self.src.valid
        r0, c0 = self.index_row, self.index_col
        self.copy(ctx, lambda i, j: (i, j), lambda i, j: (i + r0, j + c0), R, C)


# -- kernel-facing functions ------------------------------------------------------------------
def _fill(mode: str, dst, src) -> None:
    name = {"Normal": "TFILLPAD", "InPlace": "TFILLPAD_INPLACE"}.get(mode, "TFILLPAD_EXPAND")
    emit(TFillPad(mode, _tile(dst, f"{name} dst"), _tile(src, f"{name} src")))


@instruction(
    family="layout / fill",
    summary="copy src and fill dst's padding with dst's PadValue",
)
def TFILLPAD(dst: Tile, src: Tile) -> None:
    """Copy ``src``'s valid region into ``dst`` and fill the rest with dst's pad value (on a
    Mat tile: zero the fractal padding, docs/guide-cube.md)."""
    if cube_fillpad(dst, src):
        return
    _fill("Normal", dst, src)


@instruction(
    family="layout / fill",
    summary="fill a tile's padding with its PadValue, in place",
)
def TFILLPAD_INPLACE(dst: Tile, src: Tile) -> None:
    """TFILLPAD on one storage (dst and src alias)."""
    _fill("InPlace", dst, src)


@instruction(
    family="layout / fill",
    summary="copy src into a larger dst and fill the rest with dst's PadValue",
)
def TFILLPAD_EXPAND(dst: Tile, src: Tile) -> None:
    """TFILLPAD into a dst tile at least as large as src."""
    _fill("Expand", dst, src)


@instruction(
    family="layout / fill",
    summary="transpose src's valid region into dst (bit copy)",
)
def TTRANS(dst: Tile, src: Tile, tmp: Tile | None = None) -> None:
    """``dst[j, i] = src[i, j]``; ``tmp`` is the a2a3 transpose buffer (ignored elsewhere)."""
    t = None if tmp is None else _tile(tmp, "TTRANS tmp")
    emit(TTrans(_tile(dst, "TTRANS dst"), _tile(src, "TTRANS src"), t))


@instruction(
    family="layout / fill",
    summary="lower (0) or upper (1) triangular 1/0 mask around a diagonal",
)
def TTRI(dst: Tile, diagonal: int, *, is_upper_or_lower: int = 0) -> None:
    """Fill dst's valid region with a triangular mask of ones and zeros."""
    d = as_int(diagonal, "TTRI diagonal")
    mode = as_int(is_upper_or_lower, "TTRI is_upper_or_lower")
    emit(TTri(_tile(dst, "TTRI dst"), d, mode))


@instruction(
    family="layout / fill",
    summary="copy the window of src at (index_row, index_col) into dst (Vec, Mat -> L0, Acc)",
)
def TEXTRACT(dst: Tile, src: Tile, index_row: int = 0, index_col: int = 0, *, relu="NoRelu",
             quant=None, acc_to_vec=None) -> None:  # fmt: skip
    """``dst[i, j] = src[index_row + i, index_col + j]`` over dst's valid region; Mat -> Left /
    Right (MTE1) and Acc -> Mat (fixpipe) on the cube core, on 950 Acc -> Vec (``acc_to_vec``:
    an AccToVecMode) (docs/guide-cube.md)."""
    if cube_move("TEXTRACT", dst, src, index_row, index_col, relu, quant, acc_to_vec=acc_to_vec):
        return
    if not isinstance(dst, Tile):
        raise KernelError(
            "TEXTRACT: dst must be a pto.Tile (the two-destination ND -> 2xNZ form is not modelled)"
        )

    r = as_int(index_row, "TEXTRACT index_row")
    c = as_int(index_col, "TEXTRACT index_col")
    emit(TExtract(_tile(dst, "TEXTRACT dst"), _tile(src, "TEXTRACT src"), r, c))


@instruction(
    family="layout / fill",
    summary="copy src into dst at (index_row, index_col) (Vec -> Vec)",
)
def TINSERT(dst: Tile, src: Tile, index_row: int = 0, index_col: int = 0, *, relu="NoRelu",
            quant=None, mode=None, acc_to_vec=None) -> None:  # fmt: skip
    """``dst[index_row + i, index_col + j] = src[i, j]`` over src's valid region; Acc -> Mat
    through the fixpipe on the cube core; on 950 Vec -> Mat from a vector core into its cube
    core's L1 (``mode``: None, ``"SPLIT2"`` or ``"SPLIT4"``); on 950 Acc -> Vec (``acc_to_vec``:
    an AccToVecMode) (docs/guide-cube.md)."""
    if isinstance(src, Tile) and src.ref().loc is TileType.Acc:
        cube_move("TINSERT", dst, src, index_row, index_col, relu, quant, acc_to_vec=acc_to_vec)
        return
    r = as_int(index_row, "TINSERT index_row")
    c = as_int(index_col, "TINSERT index_col")
    if (
        isinstance(dst, Tile) and isinstance(src, Tile) and dst.ref().loc is TileType.Mat
        and src.ref().loc is TileType.Vec and vec_to_mat_applies()
    ):  # fmt: skip
        vec_to_mat_tinsert(dst.ref(), src.ref(), r, c, mode)
        return
    if mode is not None:
        raise KernelError(
            f"TINSERT mode={mode!r}: the split inserts are a 950 Vec -> Mat form (a Mat dst, a "
            "Vec src, on a vector core of a mixed kernel)"
        )
    emit(TInsert(_tile(dst, "TINSERT dst"), _tile(src, "TINSERT src"), r, c))
