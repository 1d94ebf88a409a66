"""The 950 MX (microscaling) mad and its scale loads (reference/cube_isa.md 3.4 TMATMUL_MX).

An MX mad multiplies fp8 (e4m3 / e5m2) or fp4 (e2m1 / e1m2) Left and Right tiles whose every
group of 32 elements along K shares one power-of-two scale (float8_e8m0: 2^(byte - 127), 0xFF is
NaN; docs/isa/cube/ops/mad/mad-mx.md of the library):

    C[i, j] = sum_k (A[i, k] * 2^(sA[i, k // 32] - 127)) * (B[k, j] * 2^(sB[k // 32, j] - 127))

The scales sit in the MX scale areas next to L0A / L0B (memory spaces ``L0A_MX`` / ``L0B_MX``,
4 KiB each): the scales of the data at L0A address ``a`` are at ``L0A_MX`` address ``a >> 4``
(a5/utils.hpp GetScaleAddr; the mad takes no scale operand). Their layout, as npu/a5
TExtract.hpp writes them (TExtractToAmx / TExtractToBmx: ``dstStride`` is the scale columns / 2
between 16-row blocks): 32-byte fractals of 16 rows x 2 scales, A's in ZZ order (a ScaleLeft
tile ``RowMajor, RowMajor, 32``: the K / 64 fractals of rows 0-15, then rows 16-31 ...), B's
the same for B transposed (a ScaleRight tile ``ColMajor, ColMajor, 32``: per 16 columns of B,
the K / 64 fractals of 2 x 16 scales, each column's two scales together).

``load_cbuf_to_ca_mx`` / ``load_cbuf_to_cb_mx`` (dst, src, rowStart, colStart, rowSteps,
colSteps, srcStride, dstStride) copy 32-byte fractals from L1, as the library drives them
(TExtractToAmx: rowStart = indexRow / 16, colStart = indexCol / 2, srcStride = the source's
columns / 2, dstStride = the valid columns / 2): fractal ``(rowStart + i) * srcStride +
colStart + j`` of the source to fractal ``i * dstStride + j`` of the destination, for i below
rowSteps and j below colSteps, on MTE1. The library's a5 textract test calls them with the two
step counts the other way round (rowSteps = K / 64, colSteps = M / 16, both strides M / 16); with
its K / 64 == 1 both readings copy the same contiguous fractals.

Numerics: the products are exact (a few significant bits times powers of two) and, as for the
other NPU mads (decision D18, numerics.py), ptosim sums them in float64 and rounds once to
float32; the library's golden is ``np.matmul`` of the scaled inputs in float32.

The tile-level path (the library's a5 tmatmul_mx test) is the same arithmetic:

- ``TLOAD(scaleMat, gm)`` with a GlobalTensor in one of the MX scale layouts (``MX_A_ZZ`` /
  ``MX_A_ND`` / ``MX_A_DN`` into a ZZ Mat tile ``RowMajor, RowMajor, 32``; ``MX_B_NN`` /
  ``MX_B_ND`` / ``MX_B_DN`` into an NN Mat tile ``ColMajor, ColMajor, 32``; float8_e8m0, the
  views of ptosim/layout.py): the ZZ / NN views move their whole GM shape (npu/a5 TLoad.hpp
  TLoadMxCubeZZ2ZZ / NN2NN bursts), the ND / DN views the tile's valid rows x columns (its
  ND2ZZ / DN2NN conversions take nValue / dValue from the tile's valid shape) (``MxScaleTLoad``);
- ``TMOV(scaleTile, scaleMat)`` / ``TEXTRACT(scaleTile, scaleMat, row, col)`` into a ScaleLeft /
  ScaleRight tile: the scale-fractal copy above from fractal (row / 16, col / 2) of A's scales
  (B: (col / 16, row / 2)), of the whole tile, or for a compact tile of its valid extent with
  the rows of A (columns of B) rounded up to 16 (TExtractToAmx / TExtractToBmx) (``MxScaleMove``);
- ``TMATMUL_MX(c, a, aScale, b, bScale)`` (c = the product), ``TMATMUL_MX(cOut, cIn, a, aScale,
  b, bScale)`` (accumulates in cOut's L0C, as the mad with cmatrixInitVal 0: cIn is not read),
  ``TMATMUL_MX(c, a, aScale, b, bScale, bias)`` (starts at the bias row): one ``MxMatMul`` over
  m = a validRow, k = a validCol, n = b validCol. On the NPU the mad reads the scales at the data
  address >> 4 whatever scale tiles are named (the kernels TASSIGN them there, GetScaleAddr);
  ptosim reads the named tiles.

TGEMV_MX is the same mad in GEMV mode (the a5 TGEMV_MX overloads: m = 1, gemvCtrl 0), its A
operands byte vectors as the library's GEMV kernels lay them:

- the A data: TLOAD into a one-row ND Mat tile, TEXTRACT into a one-row Left tile (the GEMV
  path of move.py: contiguous in L0A); the mad reads its first k elements (fp4 two per byte,
  the low nibble first);
- the A scales: TLOAD from a plain ND GlobalTensor of shape (1, 1, 1, 1, K/32) into a one-row
  ZZ Mat tile is one burst of validCol bytes to the tile's start (a5 TLoadMxCubeAVector);
  TMOV into a one-row ScaleLeft copies the bytes in whole 32-byte fractals, validCol rounded up
  (TExtractToAmx's one-row branch: one row of ceil(validCol / 32) fractals); the mad reads the
  first k / 32 scales;
- B, its scales, the bias and the accumulator as for TMATMUL_MX; row 0 of the result is written.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ... import nibbles
from ...enums import MX_LAYOUTS, BLayout, CompactMode, Layout, Pipe, SLayout, TileType
from ...program import emit
from ...tensors import GlobalTensor, GmRef, Tile, TileRef
from ..base import Arch, ExecContext
from .common import NZ, ZN, ZZ, CubeInstruction, read_block, storage, tile_arg, write_block
from .geometry import ceil_to

MX_GROUP = 32  # K elements per scale (MX_BLOCK_SIZE, common/constants.hpp)
MX_BASE_K = 64  # the MX mad consumes K in multiples of 64 (a5 CheckMadMxValid BASEK)
SCALE_FRACTAL_BYTES = 32  # one scale fractal: 16 x 2 e8m0 (fractalMxSize)
SCALE_SHIFT = 4  # scale-area address = data address >> 4 (a5/utils.hpp SHIFT_MX_ADDR)
NN = (BLayout.ColMajor, SLayout.ColMajor)  # the ScaleRight tile


class MxScaleLoad(CubeInstruction):
    """``load_cbuf_to_ca_mx`` / ``load_cbuf_to_cb_mx``: scale fractals L1 -> L0A_MX / L0B_MX
    (module doc). ``src`` and ``dst`` are uint8 rows over the bytes the copy may touch."""

    nominal_pipe = Pipe.PIPE_MTE1
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, opcode: str, dst: TileRef, src: TileRef, steps: tuple[int, ...]):
        self.opcode = opcode
        self.dst, self.src = dst, src
        self.row_start, self.col_start, self.row_steps, self.col_steps = steps[:4]
        self.src_stride, self.dst_stride = steps[4:]

    def fractals(self) -> list[tuple[int, int]]:
        """(source fractal, destination fractal) of every 32-byte copy, in issue order."""
        return [
            ((self.row_start + i) * self.src_stride + self.col_start + j, i * self.dst_stride + j)
            for i in range(self.row_steps)
            for j in range(self.col_steps)
        ]

    def validate(self, arch: Arch) -> None:
        want = TileType.ScaleLeft if self.opcode.endswith("ca_mx") else TileType.ScaleRight
        self.require_kind("src", self.src, TileType.Mat)
        self.require_kind("dst", self.dst, want)
        self.require(
            arch.spec.cube.mx_pairs != {}, "dst", "form", "a target with the MX mad (950)",
            arch.target, "the MX scale areas exist on the 950 only",
        )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        src, dst = storage(ctx, self.src), storage(ctx, self.dst)
        n = SCALE_FRACTAL_BYTES
        for s, d in self.fractals():
            dst[d * n : d * n + n] = src[s * n : s * n + n]


SCALE_A_LAYOUTS = (Layout.MX_A_ZZ, Layout.MX_A_ND, Layout.MX_A_DN)
_WHOLE_VIEW = (Layout.MX_A_ZZ, Layout.MX_B_NN)  # moved at the GM shape (the others: valid)


def _scale_dtypes() -> tuple:
    return (D.float8_e8m0,)


class MxScaleTLoad(CubeInstruction):
    """TLOAD of MX scales GM -> a ZZ / NN Mat tile (module doc)."""

    opcode = "TLOAD"
    nominal_pipe = Pipe.PIPE_MTE2
    reads = ("gm",)
    writes = ("tile",)

    def __init__(self, tile: TileRef, gm: GmRef):
        self.tile, self.gm = tile, gm

    @property
    def is_vector(self) -> bool:
        """The one-row form (TGEMV_MX's A scales): a plain ND GlobalTensor into a one-row ZZ
        Mat tile, moved as one burst of validCol bytes to the tile's start (module doc)."""
        return self.gm.layout is Layout.ND

    def extent(self) -> tuple[int, int]:
        """(rows, cols) of the scale matrix moved (module doc)."""
        if self.is_vector:
            return 1, self.tile.valid_col
        if self.gm.layout in _WHOLE_VIEW:
            return self.gm.geom.logical_shape
        rows, cols = self.tile.valid
        if self.gm.layout in SCALE_A_LAYOUTS:  # whole pairs along K: A's columns, B's rows
            return rows, cols - cols % 2
        return rows - rows % 2, cols

    def validate(self, arch: Arch) -> None:
        t, g = self.tile, self.gm
        a_side = g.layout in SCALE_A_LAYOUTS or self.is_vector
        self.require(
            arch.spec.cube.mx_pairs != {}, "gm", "form", "a target with the MX mad (950)",
            arch.target, f"Layout::{g.layout.name} scales exist on the 950 only",
        )  # fmt: skip
        self.require_kind("tile", t, TileType.Mat)
        self.require_dtype("tile", t.dtype, _scale_dtypes(), "dtype", "the MX scales")
        self.require_dtype("gm", g.dtype, _scale_dtypes(), "dtype", "the MX scales")
        want = ZZ if a_side else NN
        self.require_layout("tile", t, want, detail=f"a Layout::{g.layout.name} TLOAD")
        self.require(t.geom.fractal == SCALE_FRACTAL_BYTES, "tile", "fractal-size",
                     "SFractalSize 32", t.geom.fractal)  # fmt: skip
        s0, s1, s2, s3, s4 = g.shape
        if self.is_vector:
            self.require(t.rows == 1, "tile", "one-row", "Rows == 1 (an ND vector of scales)",
                         t.rows)  # fmt: skip
            self.require((s0, s1, s2, s3) == (1, 1, 1, 1), "gm", "mx-shape",
                         "shape[0..3] == 1 (a vector)", list(g.shape))  # fmt: skip
            self.require(t.valid_col <= s4, "tile", "valid-shape",
                         f"validCol <= the GlobalTensor's {s4} scales", t.valid_col)  # fmt: skip
            return
        self.require(s4 == 2, "gm", "mx-shape", "shape[4] == 2 (a pair of scales)", list(g.shape))
        if g.layout in _WHOLE_VIEW:
            self.require(s3 == 16, "gm", "mx-shape", "shape[3] == 16 (16 x 2 fractals)",
                         list(g.shape))  # fmt: skip
        else:
            self.require((s0, s1) == (1, 1), "gm", "mx-shape", "shape[0..1] == 1 (3-D)",
                         list(g.shape))  # fmt: skip
        rows, cols = g.geom.logical_shape
        r, c = self.extent()
        self.require(
            r <= rows and c <= cols, "tile", "valid-shape",
            f"the valid {r}x{c} scales inside the GlobalTensor's {rows}x{cols}", f"{r}x{c}",
        )  # fmt: skip
        self.require(
            r <= t.rows and c <= t.cols, "tile", "dma-within-tile",
            f"the {r}x{c} scales inside Rows x Cols {t.rows}x{t.cols}", f"{t.rows}x{t.cols}",
        )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        rows, cols = self.extent()
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        offs = self.gm.offsets(r, c)
        ctx.gm_check(self.gm, offs, "gm", read=True)
        if self.is_vector:  # contiguous bytes from the tile's start (TLoadMxCubeAVector)
            raw_bytes(ctx, self.tile, cols)[:] = self.gm.read(offs).reshape(-1).view(np.uint8)
            return
        write_block(ctx, self.tile, self.gm.read(offs))


def raw_bytes(ctx: ExecContext, ref: TileRef, count: int, start: int = 0) -> np.ndarray:
    """``count`` bytes of a tile's buffer from byte ``start`` of the tile, whatever its layout:
    the GEMV operands (one-row Left data, one-row ScaleLeft scales) are plain byte vectors."""
    mem = ctx.memory_of(ref)
    return mem.typed(ref.address + start, D.uint8, count, what=ref.name)


class MxScaleMove(CubeInstruction):
    """TMOV / TEXTRACT of MX scales L1 -> ScaleLeft / ScaleRight (module doc)."""

    nominal_pipe = Pipe.PIPE_MTE1
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, opcode: str, dst: TileRef, src: TileRef, index_row: int, index_col: int):
        self.opcode = opcode
        self.dst, self.src = dst, src
        self.index_row, self.index_col = index_row, index_col

    @property
    def left(self) -> bool:
        return self.dst.loc is TileType.ScaleLeft

    @property
    def is_vector(self) -> bool:
        """The one-row ScaleLeft of TGEMV_MX: whole 32-byte fractals of the byte vector."""
        return self.left and self.dst.rows == 1

    def vector_bytes(self) -> int:
        """Bytes the one-row copy moves: validCol scales in whole 32-byte fractals."""
        return ceil_to(self.dst.valid_col, SCALE_FRACTAL_BYTES)

    def extent(self) -> tuple[int, int]:
        """(rows, cols) of the scale block copied (module doc)."""
        d = self.dst
        if self.is_vector:
            return 1, self.vector_bytes()
        if d.geom.compact is not CompactMode.Normal:
            return d.rows, d.cols
        if self.left:
            return ceil_to(d.valid_row, 16), d.valid_col
        return d.valid_row, ceil_to(d.valid_col, 16)

    def nbytes(self) -> int:
        rows, cols = self.extent()
        return rows * cols * self.dst.dtype.size_bytes

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require(
            arch.spec.cube.mx_pairs != {}, "dst", "form", "a target with the MX mad (950)",
            arch.target, "the MX scale areas exist on the 950 only",
        )  # fmt: skip
        self.require_kind("src", s, TileType.Mat)
        self.require_dtype("dst", d.dtype, _scale_dtypes(), "dtype", "the MX scales")
        self.require_same_dtype("dst", d, "src", s)
        want, name = (ZZ, "TileLeftScale") if self.left else (NN, "TileRightScale")
        self.require_layout("src", s, want, detail=f"the L1 scales of a {name}")
        self.require_layout("dst", d, want, detail=name)
        for name_, t in (("src", s), ("dst", d)):
            self.require(t.geom.fractal == SCALE_FRACTAL_BYTES, name_, "fractal-size",
                         "SFractalSize 32", t.geom.fractal)  # fmt: skip
        if self.is_vector:
            self.require(s.rows == 1, "src", "one-row", "Rows == 1 (the L1 scale vector)",
                         s.rows)  # fmt: skip
            self.require(
                (self.index_row, self.index_col) == (0, 0), "src", "index", "(0, 0)",
                f"({self.index_row}, {self.index_col})",
                "a one-row ScaleLeft is copied from the start of its L1 vector",
            )  # fmt: skip
            return
        along_rows, along_k = (self.index_row, self.index_col)
        if not self.left:
            along_rows, along_k = self.index_col, self.index_row
        self.require(along_rows % 16 == 0, "src", "index", "a multiple of 16 (whole fractals)",
                     along_rows)  # fmt: skip
        self.require(along_k % 2 == 0, "src", "index", "a multiple of 2 (whole fractals)",
                     along_k)  # fmt: skip
        rows, cols = self.extent()
        self.require(
            self.index_row + rows <= s.rows and self.index_col + cols <= s.cols, "src",
            "extract-within-src", f"the {rows}x{cols} block at ({self.index_row}, "
            f"{self.index_col}) inside Rows x Cols {s.rows}x{s.cols}", f"{s.rows}x{s.cols}",
        )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        if self.is_vector:  # load_cbuf_to_ca_mx of one row of fractals (TExtractToAmx)
            n = self.vector_bytes()
            raw_bytes(ctx, self.dst, n)[:] = raw_bytes(ctx, self.src, n)
            return
        rows, cols = self.extent()
        block = read_block(ctx, self.src, rows, cols, self.index_row, self.index_col)
        write_block(ctx, self.dst, block)


class MxMatMul(CubeInstruction):
    """One ``mad_mx``: dst = (init or 0) + the MX product (module doc)."""

    nominal_pipe = Pipe.PIPE_M
    writes = ("dst",)

    def __init__(self, opcode: str, dst: TileRef, a: TileRef, a_scale: TileRef, b: TileRef,
                 b_scale: TileRef, accumulate: bool, bias: TileRef | None = None,
                 gemv: bool = False):  # fmt: skip
        self.opcode = opcode
        self.dst, self.a, self.a_scale, self.b, self.b_scale = dst, a, a_scale, b, b_scale
        self.accumulate, self.bias, self.gemv = accumulate, bias, gemv
        reads = ["a", "a_scale", "b", "b_scale"]
        if accumulate:
            reads.append("dst")
        if bias is not None:
            reads.append("bias")
        self.reads = tuple(reads)

    def mkn(self) -> tuple[int, int, int]:
        """(m, k, n): m = a's validRow (TGEMV_MX: 1), k = a's validCol, n = b's validCol."""
        return 1 if self.gemv else self.a.valid_row, self.a.valid_col, self.b.valid_col

    def validate(self, arch: Arch) -> None:
        d, a, b, sa, sb = self.dst, self.a, self.b, self.a_scale, self.b_scale
        pairs = arch.spec.cube.mx_pairs
        self.require_kind("dst", d, TileType.Acc)
        self.require_kind("a", a, TileType.Left)
        self.require_kind("b", b, TileType.Right)
        self.require_kind("a_scale", sa, TileType.ScaleLeft)
        self.require_kind("b_scale", sb, TileType.ScaleRight)
        self.require_dtype("a", a.dtype, tuple(pairs), "dtype", "the MX mad's inputs")
        self.require_dtype("b", b.dtype, tuple(pairs), "dtype", "the MX mad's inputs")
        self.require(
            a.dtype.packed == b.dtype.packed, "b", "dtype-pair",
            "fp4 with fp4 or fp8 with fp8 (a5 CheckMadMxValid)", f"{a.dtype.name} x {b.dtype.name}",
        )  # fmt: skip
        self.require_dtype("dst", d.dtype, (pairs[a.dtype],), "dtype-pair")
        for name, t in (("a_scale", sa), ("b_scale", sb)):
            self.require_dtype(name, t.dtype, (D.float8_e8m0, D.uint8), "dtype")
        self.require_layout("a", a, NZ, detail="TileLeft on the 950")
        self.require_layout("b", b, ZN, detail="TileRight")
        self.require_layout("dst", d, NZ, detail="TileAcc")
        self.require_layout("a_scale", sa, ZZ, detail="TileLeftScale")
        self.require_layout("b_scale", sb, NN, detail="TileRightScale")
        if self.gemv:  # the GEMV operands are byte vectors (L0A, L0A_MX)
            for name, t in (("a", a), ("a_scale", sa)):
                self.require(t.rows == 1, name, "one-row", "Rows == 1 (the GEMV vector)", t.rows,
                             "TGEMV_MX takes a one-row TileLeft and TileLeftScale")  # fmt: skip
        m, k, n = self.mkn()
        hi = arch.spec.cube.mad_max
        for name, v in (("m", m), ("k", k), ("n", n)):
            self.require(
                1 <= v <= hi, "a" if name != "n" else "b", "mad-shape", f"1 <= {name} <= {hi}", v
            )
        self.require(
            k % MX_BASE_K == 0, "a", "mx-k", f"k a multiple of {MX_BASE_K} (two scale groups)", k,
            "a5 CheckMadMxValid: aMatrixCol % 64 == 0",
        )  # fmt: skip
        self.require(b.valid_row == k, "b", "mad-shape", f"validRow == k ({k})", b.valid_row)
        groups = k // MX_GROUP
        self.require(
            sa.rows >= m and sa.cols >= groups, "a_scale", "scale-extent",
            f"{m} rows x {groups} scales (k / 32)", f"{sa.rows}x{sa.cols}",
        )  # fmt: skip
        self.require(
            sb.rows >= groups and sb.cols >= n, "b_scale", "scale-extent",
            f"{groups} scales (k / 32) x {n} columns", f"{sb.rows}x{sb.cols}",
        )  # fmt: skip
        self.require(
            ceil_to(m, 16) <= d.rows and n <= d.cols, "dst", "acc-extent",
            f"the {m}x{n} result inside Rows x Cols {d.rows}x{d.cols}", f"{d.rows}x{d.cols}",
        )  # fmt: skip
        if self.bias is not None:
            self.require_kind("bias", self.bias, TileType.Bias)
            self.require_dtype("bias", self.bias.dtype, (D.float32,), "dtype")
            self.require(self.bias.cols >= n, "bias", "bias-extent", f"Cols >= n ({n})",
                         self.bias.cols)  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        m, k, n = self.mkn()
        groups = k // MX_GROUP
        if self.gemv:  # GEMV mode: the first k elements of L0A, the first k / 32 scales
            a = _values(_vector(ctx, self.a, k), self.a.dtype)
            sa = _scales(raw_bytes(ctx, self.a_scale, groups).reshape(1, groups))
        else:
            a = _values(read_block(ctx, self.a, m, k), self.a.dtype)
            sa = _scales(read_block(ctx, self.a_scale, m, groups))
        b = _values(read_block(ctx, self.b, k, n), self.b.dtype)
        sb = _scales(read_block(ctx, self.b_scale, groups, n))
        a = a * np.repeat(sa, MX_GROUP, axis=1)  # exact in float64 (module doc)
        b = b * np.repeat(sb, MX_GROUP, axis=0)
        out = a @ b
        if self.accumulate:  # in place, as the NPU's mad with cmatrixInitVal 0
            out = out + read_block(ctx, self.dst, m, n).astype(np.float64)
        if self.bias is not None:  # the sum starts at the bias (BiasOrder.INITIAL_VALUE)
            out = out + read_block(ctx, self.bias, 1, n).astype(np.float64)
        write_block(ctx, self.dst, out.astype(np.float32))


def _vector(ctx: ExecContext, ref: TileRef, k: int) -> np.ndarray:
    """The first k elements of a one-row Left tile's bytes as a 1 x k row (fp4: two per byte,
    the low nibble first, as ptosim packs every 4-bit row)."""
    if ref.dtype.packed:
        b = raw_bytes(ctx, ref, (k + 1) // 2)
        return np.stack([b & 0x0F, b >> 4], axis=1).reshape(1, -1)[:, :k]
    return raw_bytes(ctx, ref, k).view(ref.dtype.np).reshape(1, k)


def _values(x: np.ndarray, dt) -> np.ndarray:
    """The numbers of MX mad inputs in float64: fp4 4-bit fields through the OCP table."""
    if dt.packed:
        return nibbles.float4_table(dt.name)[x].astype(np.float64)
    return x.astype(np.float64)


def _scales(x: np.ndarray) -> np.ndarray:
    """float8_e8m0 bytes -> 2^(byte - 127), 0xFF NaN."""
    bits = np.asarray(x).view(np.uint8).astype(np.int64)
    out = np.ldexp(1.0, bits - 127)
    return np.where(bits == 0xFF, np.nan, out)


# -- the kernel-facing forms (the C++ intrinsics, ptosim/cxx/mx_intrinsics.py) ------------------
def load_scales(opcode: str, dst: Tile, src: Tile, *steps: int) -> None:
    """``load_cbuf_to_ca_mx`` / ``load_cbuf_to_cb_mx`` between a uint8 row over L1 and one over
    the scale area (module doc)."""
    emit(MxScaleLoad(opcode, tile_arg(dst, f"{opcode} dst"), tile_arg(src, f"{opcode} src"),
                     tuple(int(s) for s in steps)))  # fmt: skip


def mad_mx(dst: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, *, accumulate=False,
           bias: Tile | None = None, gemv: bool = False) -> None:  # fmt: skip
    """One MX mad into ``dst`` (module doc); ``gemv``: GEMV mode (m = 1, one-row a, a_scale)."""
    emit(
        MxMatMul(
            "mad_mx", tile_arg(dst, "mad_mx dst"), tile_arg(a, "mad_mx a"),
            tile_arg(a_scale, "mad_mx a_scale"), tile_arg(b, "mad_mx b"),
            tile_arg(b_scale, "mad_mx b_scale"), bool(accumulate),
            None if bias is None else tile_arg(bias, "mad_mx bias"), bool(gemv),
        )
    )  # fmt: skip


# -- the tile instructions (the library's TMATMUL_MX overloads) ---------------------------------
def mx_scale_load(tile, gm) -> bool:
    """Emit the MX scale TLOAD and return True when ``gm`` is in an MX scale layout, or is an
    ND vector loaded into a one-row ZZ Mat tile (TGEMV_MX's A scales)."""
    if not isinstance(tile, Tile) or not isinstance(gm, GlobalTensor):
        return False
    t = tile.ref()
    vector = (
        gm.layout is Layout.ND and t.loc is TileType.Mat and t.rows == 1
        and (t.geom.blayout, t.geom.slayout) == ZZ and t.geom.fractal == SCALE_FRACTAL_BYTES
    )  # fmt: skip
    if gm.layout not in MX_LAYOUTS and not vector:
        return False
    emit(MxScaleTLoad(tile.ref(), gm.ref()))
    return True


def mx_scale_move(opcode: str, dst: TileRef, src: TileRef, index_row: int, index_col: int) -> bool:
    """Emit the scale copy into a ScaleLeft / ScaleRight tile and return True, else False."""
    if dst.loc not in (TileType.ScaleLeft, TileType.ScaleRight):
        return False
    emit(MxScaleMove(opcode, dst, src, index_row, index_col))
    return True
