"""L1 -> L0: TEXTRACT / TMOV from a Mat tile into a Left (L0A) or Right (L0B) tile, and TMOV
from a Mat tile into the bias table (reference/cube_isa.md 3.2, 3.3), on PIPE_MTE1.

The copy keeps the logical matrix: ``dst[i, j] = src[index_row + i, index_col + j]``. Where the
source's fractal order (SLayout) differs from the destination's the NPU transposes each fractal
on the way (an NZ panel into a Right tile, a ZN panel into a Left tile); the logical matrix is
the same either way. What is copied differs per target:

- the NPU (``ExtractBounds.STATIC``) moves whole fractals: the destination's Rows x Cols, or for
  a compact destination its valid extent rounded up to fractals; the window must fit the
  source's Rows x Cols;
- the CPU simulator (``VALID``) copies the destination's valid region and asserts that the
  window fits the source's valid region.
"""

from __future__ import annotations

from ...dtypes import names
from ...enums import CompactMode, Pipe, ReluPreMode, TileType
from ...tensors import TileRef
from ..base import Arch, ExecContext
from ..spec import CubeAddressing, ExtractBounds
from .common import NZ, ZN, ZZ, CubeInstruction, layout_of, read_block, storage, write_block
from .fixpipe import relu_convert
from .geometry import c0 as c0_of
from .geometry import stored


class MatToL0(CubeInstruction):
    """TEXTRACT(dst, src, indexRow, indexCol) / TMOV(dst, src): Mat -> Left / Right."""

    nominal_pipe = Pipe.PIPE_MTE1
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, opcode: str, dst: TileRef, src: TileRef, index_row: int, index_col: int):
        self.opcode = opcode
        self.dst, self.src, self.index_row, self.index_col = dst, src, index_row, index_col

    @property
    def is_vector(self) -> bool:
        """The GEMV operand path: a one-row ND Mat tile into a Left tile, copied as raw
        512-byte fractals (``load_cbuf_to_ca``, cube_isa.md 3.2): L0A then holds the vector
        contiguously, as TGEMV reads it."""
        s = self.src
        return self.dst.loc is TileType.Left and s.rows == 1 and s.geom.is_nd

    def _vector_rules(self, arch: Arch) -> None:
        s = self.src
        self.require(self.index_row == 0, "index_row", "vector-index", "0", self.index_row)
        if arch.spec.cube.fractal_checks:
            nbytes = s.cols * s.dtype.size_bytes
            self.require(
                nbytes % 512 == 0, "src", "vector-512B", "Cols*sizeof(T) % 512 == 0",
                f"{nbytes} B",
            )  # fmt: skip
        self.require(
            s.cols - self.index_col <= self.dst.numel, "dst", "window-within-src",
            f"the {s.cols - self.index_col} elements inside the dst's {self.dst.numel}",
            self.dst.numel,
        )  # fmt: skip

    @property
    def transposes(self) -> bool:
        """The fractals are transposed on the way (source and destination SLayouts differ)."""
        return self.src.geom.slayout is not self.dst.geom.slayout

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        cube = arch.spec.cube
        self.require_kind("src", s, TileType.Mat)
        self.require_kind("dst", d, TileType.Left, TileType.Right)
        mad_inputs = tuple(dict.fromkeys((*cube.mad_pairs, *cube.mx_pairs)))
        self.require_dtype("dst", d.dtype, mad_inputs, "dtype")
        self.require_same_dtype("dst", d, "src", s)
        if self.is_vector:
            self._vector_rules(arch)
            return
        self.require_layout("src", s, NZ, ZN, detail="an L1 panel in NZ or ZN fractals")
        if d.loc is TileType.Left:
            lefts = (NZ, ZZ) if cube.left_any_blayout else ((cube.left_blayout, NZ[1]),)
            self.require_layout("dst", d, *lefts, detail="TileLeft on this target")
        else:
            self.require_layout("dst", d, ZN, detail="TileRight")
        r0, c0 = self.index_row, self.index_col
        for name, v in (("index_row", r0), ("index_col", c0)):
            self.require(0 <= v <= 0xFFFF, name, "index-range", "0 <= index <= 65535", v)
        if cube.fractal_checks:
            self._fractal_rules()
        if cube.extract_bounds is ExtractBounds.STATIC:
            lim, what = (s.rows, s.cols), f"src Rows x Cols {s.rows}x{s.cols}"
            ext = self.static_extent()
        else:
            lim, what = s.valid, f"src valid {s.valid_row}x{s.valid_col}"
            ext = d.valid
        self.require(
            r0 + ext[0] <= lim[0] and c0 + ext[1] <= lim[1],
            "dst",
            "window-within-src",
            f"index + dst extent <= {what}",
            f"({r0}+{ext[0]}, {c0}+{ext[1]})",
        )
        if self.opcode == "TMOV" and cube.extract_bounds is ExtractBounds.VALID:
            self.require(d.valid == s.valid, "src", "same-valid-shape", d.valid, s.valid)

    def _fractal_rules(self) -> None:
        """textract_common.hpp: shapes and indices in whole fractals (cube_isa.md 3.2)."""
        d, s = self.dst, self.src
        c0 = c0_of(d.dtype)  # 64 for fp4 (npu/a5 TExtract.hpp c0Size)
        if self.transposes:  # all of them multiples of the fractal size
            f = c0 if d.dtype.size_bytes == 1 else 16
            need = {
                "src Rows": s.rows, "src Cols": s.cols, "dst Rows": d.rows, "dst Cols": d.cols,
                "index_row": self.index_row, "index_col": self.index_col,
            }  # fmt: skip
            steps = dict.fromkeys(need, f)
        else:
            rs, cs = (16, c0) if d.loc is TileType.Left else (c0, 16)
            need = {
                "src Rows": s.rows, "dst Rows": d.rows, "index_row": self.index_row,
                "src Cols": s.cols, "dst Cols": d.cols, "index_col": self.index_col,
            }  # fmt: skip
            steps = {k: (rs if "Rows" in k or k == "index_row" else cs) for k in need}
        for name, v in need.items():
            step = steps[name]
            self.require(
                v % step == 0,
                "index_row" if name == "index_row" else ("index_col" if name == "index_col" else
                                                          name.split()[0]),
                "fractal-multiple",
                f"{name} a multiple of {step}"
                + (" (a transposing copy moves whole square fractals)" if self.transposes else ""),
                v,
            )  # fmt: skip

    def static_extent(self) -> tuple[int, int]:
        """(rows, cols) the NPU copies: the destination's Rows x Cols, or for a compact
        destination its valid extent in whole fractals (the mad-aligned m / k / n)."""
        d = self.dst
        if d.geom.compact is CompactMode.Normal:
            g = stored(d)
            return g.rows, g.cols
        return d.rows, d.cols

    def region(self, ctx: ExecContext) -> tuple[int, int]:
        """(rows, cols) of the destination the copy writes."""
        if ctx.spec.cube.extract_bounds is ExtractBounds.VALID:
            return self.dst.valid
        return self.static_extent()

    def execute(self, ctx: ExecContext) -> None:
        if self.is_vector and ctx.spec.cube.addressing is CubeAddressing.FRACTALS:
            n = self.src.cols - self.index_col
            src = storage(ctx, self.src)[self.index_col :]
            storage(ctx, self.dst)[:n] = src
            return
        rows, cols = self.region(ctx)
        if rows == 0 or cols == 0:
            return
        vals = read_block(ctx, self.src, rows, cols, self.index_row, self.index_col)
        write_block(ctx, self.dst, vals)


class MatToBias(CubeInstruction):
    """TMOV(bias, mat): one row of L1 into the bias table (``copy_cbuf_to_bt``, MTE1); half is
    widened to float on the way (cube_isa.md 3.3)."""

    opcode = "TMOV"
    nominal_pipe = Pipe.PIPE_MTE1
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef):
        self.dst, self.src = dst, src

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        cube = arch.spec.cube
        self.require_kind("src", s, TileType.Mat)
        self.require_kind("dst", d, TileType.Bias)
        pairs = cube.bias_pairs
        self.require(
            s.dtype in pairs, "src", "dtype", f"one of {names(tuple(pairs))}", s.dtype.name
        )
        self.require_dtype(
            "dst", d.dtype, pairs[s.dtype], "dtype-pair", f"the bias table of {s.dtype.name}"
        )
        self.require(s.rows == 1, "src", "one-row", "Rows == 1", s.rows)
        self.require(d.rows == 1, "dst", "one-row", "Rows == 1", d.rows)
        if cube.fractal_checks:  # one copy_cbuf_to_bt burst in 64-byte units
            which, t = ("dst", d) if cube.bias_align_dst else ("src", s)
            nbytes = t.cols * t.dtype.size_bytes
            self.require(
                nbytes % 64 == 0, which, "bias-64B", f"Cols*sizeof({which}) % 64 == 0",
                f"{nbytes} B",
            )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        static = ctx.spec.cube.extract_bounds is ExtractBounds.STATIC
        cols = min(d.cols, s.cols) if static else min(d.valid_col, s.valid_col)
        vals = read_block(ctx, s, 1, cols).astype(d.dtype.np)  # exact: half, bf16 -> float widen
        write_block(ctx, d, vals)


class MatToScaling(CubeInstruction):
    """TMOV(scaling, mat): one row of L1 quant words into the fixpipe buffer (FB), the Scaling
    tile the ``*_FP`` fixpipe forms read (``copy_cbuf_to_fbuf``; cube_isa.md 3.3). It runs on
    PIPE_FIX: the library's a2a3 tests (tstore_acc2gm, tmov_acc2mat) issue it after their M ->
    FIX flag and read the Scaling tile with the next fixpipe copy with no flag between, which
    only the fixpipe's own pipe orders (cube_isa.md 1.3 lists MTE1, from the cost model's key)."""

    opcode = "TMOV"
    nominal_pipe = Pipe.PIPE_FIX
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef):
        self.dst, self.src = dst, src

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_kind("src", s, TileType.Mat)
        self.require_kind("dst", d, TileType.Scaling)
        words = ("uint64", "int64")
        self.require(s.dtype.name in words, "src", "dtype", "uint64 or int64", s.dtype.name)
        self.require_same_dtype("src", s, "dst", d)
        self.require(s.rows == 1, "src", "one-row", "Rows == 1", s.rows)
        self.require(d.rows == 1, "dst", "one-row", "Rows == 1", d.rows)
        if arch.spec.cube.fractal_checks:  # one copy_cbuf_to_fbuf burst in 128-byte units
            nbytes = s.cols * s.dtype.size_bytes
            self.require(
                nbytes % 128 == 0, "src", "scaling-128B", "Cols*sizeof(src) % 128 == 0",
                f"{nbytes} B",
            )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        static = ctx.spec.cube.extract_bounds is ExtractBounds.STATIC
        cols = min(d.cols, s.cols) if static else min(d.valid_col, s.valid_col)
        write_block(ctx, d, read_block(ctx, s, 1, cols))


def window_text(ref: TileRef) -> str:
    return f"{ref.geom.layout_name} {ref.rows}x{ref.cols}"


__all__ = ["MatToBias", "MatToL0", "MatToScaling", "layout_of"]


class MatToMat(CubeInstruction):
    """TEXTRACT(dst, src, indexRow, indexCol) / TMOV(dst, src) between two Mat tiles: the CPU
    simulator copies dst's valid region from the window element by element through each
    tile's own layout, converting the element type as C++ does (its cpu tests extract half into
    float, int8 into int32). The NPU has no L1 -> L1 copy of this kind: rule ``form``."""

    nominal_pipe = Pipe.PIPE_MTE1
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, opcode: str, dst: TileRef, src: TileRef, index_row: int, index_col: int):
        self.opcode = opcode
        self.dst, self.src, self.index_row, self.index_col = dst, src, index_row, index_col

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        if arch.spec.cube.addressing is not CubeAddressing.LOGICAL:
            self.unsupported(
                "dst/src", "form", "Mat -> Left / Right / Bias, or Acc -> Mat",
                "Mat -> Mat", "an L1 -> L1 copy exists only on the CPU simulator",
            )  # fmt: skip
        r0, c0 = self.index_row, self.index_col
        self.require(
            r0 + d.valid_row <= s.valid_row and c0 + d.valid_col <= s.valid_col, "dst",
            "window-within-src", f"index + dst valid inside src valid {s.valid_row}x{s.valid_col}",
            f"({r0}+{d.valid_row}, {c0}+{d.valid_col})",
        )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        vals = read_block(ctx, self.src, d.valid_row, d.valid_col, self.index_row, self.index_col)
        write_block(ctx, d, relu_convert(vals, ReluPreMode.NoRelu, d.dtype.np))
