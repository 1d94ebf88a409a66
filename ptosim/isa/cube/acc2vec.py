"""The 950 fixpipe into a vector core's UB: TMOV / TEXTRACT / TINSERT from an Acc tile (L0C)
into a Vec tile on PIPE_FIX (reference/cube_isa.md 1.3: ``copy_matrix_cc_to_ub``, a5 only).

The cube core runs the copy; the Vec tile is an address in the UB of AIV0 or AIV1 (or of both,
split by rows or by columns), which the vector core reads after an intra-block flag. ptosim
models the copy as the intrinsic's address arithmetic (a5 TMov.hpp TMovCcToUb, TExtract.hpp
TExtractAccToVec, TInsert.hpp TInsertAccToVec), so each form moves exactly the bytes the
library asks for:

- the source: ``n`` columns x ``m`` rows of L0C from the Acc tile's address (plus an index
  offset for TEXTRACT), element (r, c) at ``(c // 16) * stride * 16 + r * 16 + c % 16``, the
  stride being the rows the accumulator is stored with;
- the fixpipe: ReLU, then the conversion (``fixpipe._Fixpipe.convert``);
- the destination, per the Vec tile's layout: ND ``r * dstStride + c`` (nz2nd), DN
  ``c * dstStride + r`` (nz2dn), NZ ``(c // C0) * dstStride + r * C0 + c % C0`` (nz2nz; C0 is
  32 bytes of the type, 16 for a float tile of 1024-byte fractals);
- ``AccToVecMode``: ``SingleModeVec0`` / ``SingleModeVec1`` write one vector core's UB;
  ``DualModeSplitM`` sends the upper m / 2 rows to AIV0 and the lower to AIV1,
  ``DualModeSplitN`` the left n / 2 columns to AIV0 and the right to AIV1, each half written
  from the tile's address as a tile of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import names
from ...enums import Pipe, PtoEnum, ReluPreMode, TileType
from ...tensors import TileRef
from ..base import Arch, ExecContext
from .common import geom_of
from .fixpipe import Quant, _Fixpipe, fixpipe_form
from .geometry import ceil_to

ACC_BLOCK = 16  # the L0C fractal: 16 x 16 accumulator elements (cube_isa.md 2.1)
BLOCK_BYTES = 32  # C0: one 32-byte block of the destination type


class AccToVecMode(PtoEnum):
    """Which vector core's UB the fixpipe writes (common/type.hpp ``AccToVecMode``)."""

    SingleModeVec0 = 0
    SingleModeVec1 = 1
    DualModeSplitM = 2
    DualModeSplitN = 3


@dataclass(frozen=True)
class CcToUb:
    """The fields of one ``copy_matrix_cc_to_ub`` (element units)."""

    m: int  # rows moved
    n: int  # columns moved
    src_index: tuple[int, int]  # (row, column) of the source's first element moved (TEXTRACT)
    dst_offset: int  # elements after the Vec tile's first
    dst_stride: int
    form: str  # "nz2nd", "nz2dn" or "nz2nz"
    c0: int  # nz2nz: columns of one destination block


def _nz_c0(dst: TileRef) -> tuple[int, bool]:
    """(C0, channel split) of an NZ Vec destination (a5 GetTmovAccDstStride): a float tile of
    512-byte fractals splits each 16-column accumulator block into two 8-column blocks; one of
    1024-byte fractals keeps 16 columns (twice 32 bytes)."""
    size = dst.dtype.size_bytes
    split = dst.dtype.name == "float32" and dst.geom.fractal == 512
    if not split and dst.geom.fractal == 1024:
        return 2 * BLOCK_BYTES // size, False
    return BLOCK_BYTES // size, split


class AccToVec(_Fixpipe):
    """TMOV(vec, acc) / TEXTRACT(vec, acc, indexRow, indexCol) / TINSERT(vec, acc, indexRow,
    indexCol) through the fixpipe into a vector core's UB (module docstring)."""

    nominal_pipe = Pipe.PIPE_FIX
    reads = ("src",)
    writes = ()  # the Vec tile is in another core's buffer: written_spaces

    def __init__(self, opcode: str, dst: TileRef, src: TileRef, index_row: int, index_col: int,
                 relu: ReluPreMode, mode: AccToVecMode, quant: Quant = None):  # fmt: skip
        self.opcode = opcode
        self.dst, self.src, self.index_row, self.index_col = dst, src, index_row, index_col
        self.relu, self.mode, self.quant = relu, mode, quant
        if isinstance(quant, TileRef):
            self.reads = ("src", "quant")
        self.written_spaces = tuple(f"UB@AIV{k}" for k in self.cores)

    @property
    def cores(self) -> tuple[int, ...]:
        """The vector cores whose UB the copy writes."""
        if self.mode is AccToVecMode.SingleModeVec0:
            return (0,)
        if self.mode is AccToVecMode.SingleModeVec1:
            return (1,)
        return (0, 1)

    @property
    def dual(self) -> bool:
        return self.mode in (AccToVecMode.DualModeSplitM, AccToVecMode.DualModeSplitN)

    def fields(self) -> CcToUb:
        """The intrinsic's fields as the library computes them for this form."""
        d, s = self.dst, self.src
        form = fixpipe_form(d) or "nz2nd"
        c0, split = _nz_c0(d)
        dst_stride = {"nz2nd": d.cols, "nz2dn": d.rows}.get(form, d.rows * c0)
        if self.opcode == "TEXTRACT":
            return self._extract_fields(BLOCK_BYTES // d.dtype.size_bytes)
        m, n = s.valid
        if form == "nz2nz":
            m = s.rows
            if self.mode is AccToVecMode.DualModeSplitM:
                n = ceil_to(n, ACC_BLOCK)
            elif self.mode is AccToVecMode.DualModeSplitN:
                n = ceil_to(n, BLOCK_BYTES)
            elif d.dtype.name == "float32":
                n = ceil_to(n, c0 if split else ACC_BLOCK)
            else:
                n = ceil_to(n, c0)
        dst_offset = 0
        if self.opcode == "TINSERT":
            r0, k0 = self.index_row, self.index_col
            dst_offset = {
                "nz2nd": r0 * d.cols + k0,
                "nz2dn": k0 * d.rows + r0,
            }.get(form, d.rows * c0 * (k0 // c0) + r0 * c0 + k0 % c0)
        return CcToUb(m, n, (0, 0), dst_offset, dst_stride, form, c0)

    def _extract_fields(self, c0: int) -> CcToUb:
        """TEXTRACT: an ND destination; the window at (indexRow, indexCol) of the source, the
        destination's valid rows x valid columns rounded up to C0 (a dual mode: the source's
        valid region)."""
        d, s = self.dst, self.src
        m, n = (s.valid_row, s.valid_col) if self.dual else (d.valid_row, d.valid_col)
        return CcToUb(m, ceil_to(n, c0), (self.index_row, self.index_col), 0, d.cols, "nz2nd", c0)

    # -- checks --------------------------------------------------------------------------
    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require(
            arch.spec.cube.onchip_cv_paths and arch.launch == "mix" and arch.core_kind == "aic",
            "dst", "onchip-path",
            "the cube core of a mixed kernel (cores='mix') on 950 (the fixpipe into a vector "
            "core's UB)", f"the {arch.core_kind} core of a {arch.launch} kernel on target "
            f"{arch.target}",
        )  # fmt: skip
        self.require_kind("src", s, TileType.Acc)
        self.require_kind("dst", d, TileType.Vec)
        form = fixpipe_form(d)
        allowed = ("ND",) if self.opcode == "TEXTRACT" else ("ND", "DN", "NZ")
        self.require(
            form is not None and (self.opcode != "TEXTRACT" or form == "nz2nd"), "dst",
            "fractal-layout", " or ".join(allowed), d.geom.layout_name,
            f"the layouts {self.opcode} Acc -> Vec writes",
        )  # fmt: skip
        self.require(
            d.placement is not None and not d.placement.auto, "dst", "address",
            "a Vec tile placed with TASSIGN (an address in the vector core's UB)",
            "a tile without an address",
        )  # fmt: skip
        if self.dual:
            self.require(
                self.quant is None, "quant", "dual-mode",
                "no quantisation with DualModeSplitM / DualModeSplitN", self.quant_form,
            )  # fmt: skip
            self.require(
                form != "nz2dn", "dst", "dual-mode", "an ND or NZ destination in a dual mode",
                "DN",
            )  # fmt: skip
        f = self.fields()
        if not self.validate_quant(arch, s, d.dtype, f.n):  # one quant word per moved column
            pairs = arch.spec.cube.acc_to_mat  # a5 CheckTMovAccValid: the same pairs as to L1
            self.require(
                s.dtype in pairs, "src", "dtype", f"one of {names(tuple(pairs))}", s.dtype.name,
                "Acc -> Vec without quantisation",
            )  # fmt: skip
            self.require_dtype(
                "dst", d.dtype, pairs[s.dtype], "dtype-pair", f"Acc {s.dtype.name} -> Vec"
            )
        self.require(
            f.dst_stride > 0 and f.dst_stride * d.dtype.size_bytes % BLOCK_BYTES == 0, "dst",
            "dst-stride", "the destination stride (ND: Cols, DN: Rows, NZ: Rows x C0) a "
            "multiple of 32 bytes", f"{f.dst_stride} elements of {d.dtype.name}",
        )  # fmt: skip
        half = f.m if self.mode is AccToVecMode.DualModeSplitM else f.n
        self.require(
            not self.dual or half % 2 == 0, "src", "dual-split",
            "an even extent to split between AIV0 and AIV1", half,
        )  # fmt: skip

    @property
    def quant_form(self) -> str:
        return "none" if self.quant is None else super().quant_form

    # -- data ----------------------------------------------------------------------------
    def parts(self) -> list[tuple[int, slice, slice]]:
        """(vector core, rows, columns) of the moved block each core receives."""
        f = self.fields()
        if self.mode is AccToVecMode.DualModeSplitM:
            h = f.m // 2
            return [(0, slice(0, h), slice(0, f.n)), (1, slice(h, f.m), slice(0, f.n))]
        if self.mode is AccToVecMode.DualModeSplitN:
            h = f.n // 2
            return [(0, slice(0, f.m), slice(0, h)), (1, slice(0, f.m), slice(h, f.n))]
        return [(self.cores[0], slice(0, f.m), slice(0, f.n))]

    def dst_offsets(self, f: CcToUb, rows: int, cols: int) -> np.ndarray:
        """Element offsets from the Vec tile's first element of a rows x cols block."""
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        if f.form == "nz2nd":
            offs = r * f.dst_stride + c
        elif f.form == "nz2dn":
            offs = c * f.dst_stride + r
        else:
            offs = (c // f.c0) * f.dst_stride + r * f.c0 + c % f.c0
        return f.dst_offset + offs

    def written_bytes(self) -> dict[str, tuple[int, np.ndarray, int]]:
        """Per destination space: (the Vec tile's byte address, element offsets, element
        bytes) of what the copy writes (the plan's checker regions)."""
        f = self.fields()
        out = {}
        for core, rows, cols in self.parts():
            offs = self.dst_offsets(f, rows.stop - rows.start, cols.stop - cols.start)
            out[f"UB@AIV{core}"] = (self.dst.address, offs, self.dst.dtype.size_bytes)
        return out

    def execute(self, ctx: ExecContext) -> None:
        f = self.fields()
        s, d = self.src, self.dst
        # the accumulator's rows per 16-column block: the stride the mad stored it with (the
        # library programs srcStride to match: Rows, or the valid rows rounded up to 16 for a
        # dynamic or compact tile); the index offset moves the start address
        stride = geom_of(ctx, s).rows
        r0, k0 = f.src_index
        base = stride * ACC_BLOCK * (k0 // ACC_BLOCK) + r0 * ACC_BLOCK + k0 % ACC_BLOCK
        r, c = np.meshgrid(np.arange(f.m), np.arange(f.n), indexing="ij")
        src_offs = base + (c // ACC_BLOCK) * stride * ACC_BLOCK + r * ACC_BLOCK + c % ACC_BLOCK
        l0c = ctx.memory_of(s)
        count = int(src_offs.max()) + 1 if src_offs.size else 0
        vals = l0c.typed(s.address, s.dtype, count, what=s.name)[src_offs]
        vals = self.convert(ctx, vals, d.dtype)
        size = d.dtype.size_bytes
        for core, rows, cols in self.parts():
            block = vals[rows, cols]
            if block.size == 0:
                continue
            offs = self.dst_offsets(f, *block.shape)
            lo = int(offs.min())
            ub = ctx.buffers[f"UB@AIV{core}"]
            view = ub.typed(d.address + lo * size, d.dtype, int(offs.max()) - lo + 1, what=d.name)
            view[offs - lo] = block

    def describe(self) -> str:
        return f"{self.opcode} copy_matrix_cc_to_ub ({self.mode.name})"
