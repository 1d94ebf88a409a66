"""Sorts and histogram: TSORT32, TMRGSORT, THISTOGRAM (vector_isa.md 3.16, 3.24; both "brief").

Only what the reference pins down is modelled; the rest raises UnsupportedError naming what is
missing.

TSORT32(dst, src, idx[, tmp]): for each valid row and each block of 32 consecutive valid
columns, the pairs (src[i, j], idx[i, j]) sorted by score descending, ties by index ascending
(stable), written as 8-byte records at dst row i: float32 -> [score f32][index u32]
(2 elements per record); half (a2a3/a5 ``vbitsort``) -> [score f16][0 f16][index u32]
(4 elements per record). Checks: idx uint32, valid columns a multiple of 32 (rule
``sort-block``: a partial block's behaviour is not given), dst row holds the records (rule
``dst-cols``), dst has src's dtype. Not modelled: cpu half (the CPU simulator's f16 column
offset is inconsistent with its 8-byte records), cpu int32/int16/bfloat16 (record layout not
given). NaN scores: their order is not given; ptosim sorts them after every number.

TMRGSORT(dst, src0, src1[, src2, src3]): merges 2-4 sorted record lists (row 0 of each source,
its valid columns) into dst row 0, descending by score; on equal scores the record of the
lower-numbered list comes first. float32 records only (the 8-byte [score][index] pairs of
TSORT32). Not modelled: the "stop when a list is exhausted" mode with its executed-count
output, and the single-tile form merging runs of ``blockLen`` (UnsupportedError).

THISTOGRAM(dst, src, idx, *, byte="BYTE_0"): cpu only (the NPU lowerings are not described).
src uint16 or uint32, dst uint32 with >= 256 columns, idx uint8. Per valid row of src: count
byte ``b`` of each valid element among the elements whose higher bytes match the filter (uint32:
byte 3 == idx[0, 0], byte 2 == idx[1, 0], byte 1 == idx[2, 0], as far as they are above b;
uint16 BYTE_0: byte 1 == idx[row, 0]) and store the inclusive prefix sum over the 256 bins in
dst[row, 0..255].
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...errors import KernelError, UnsupportedError
from ...program import emit
from ...tensors import Tile, TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from .common import VectorInstruction

__all__ = ["THISTOGRAM", "TMRGSORT", "TSORT32"]

SORT_BLOCK = 32


def record_elems(dt: D.DType) -> int:
    """Elements of ``dt`` per 8-byte record."""
    return 8 // dt.size_bytes


def sort_records(scores: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Positions ordering (score desc, index asc); NaN scores last."""
    s = scores.astype(np.float64)
    key_nan = np.isnan(s)
    return np.lexsort((index.astype(np.int64), -np.where(key_nan, 0, s), key_nan))


def pack(dt: D.DType, scores: np.ndarray, index: np.ndarray) -> np.ndarray:
    """8-byte records as raw bytes: [score][0 pad for half][index u32]."""
    n = scores.size
    out = np.zeros((n, 8), np.uint8)
    sz = dt.size_bytes
    out[:, :sz] = scores.astype(dt.np).view(np.uint8).reshape(n, sz)
    out[:, 4:] = index.astype(np.uint32).view(np.uint8).reshape(n, 4)
    return out.reshape(-1)


class TSort32(VectorInstruction):
    opcode = "TSORT32"
    reads = ("src", "idx")
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef, idx: TileRef):
        self.dst, self.src, self.idx = dst, src, idx

    def validate(self, arch: Arch) -> None:
        d, s, x = self.dst, self.src, self.idx
        self.require_defined(arch, "src", s.dtype)  # (cpu refuses half: TargetSpec.refusals)
        for name, ref in (("dst", d), ("src", s), ("idx", x)):
            self.require_vec(name, ref, arch)
        self.require_element_dtype("src", s, arch)
        self.require_same_dtype("src", s, "dst", d)
        self.require_dtype("idx", x.dtype, (D.uint32,), "index-dtype")
        R, C = s.valid
        self.require(
            C % SORT_BLOCK == 0,
            "src",
            "sort-block",
            "valid columns a multiple of 32 (a partial block is not described)",
            C,
        )
        self.require(x.valid_row >= R and x.valid_col >= C, "idx", "index-valid-shape",
                     f"a valid region covering src's {s.valid}", x.valid)  # fmt: skip
        need = C * record_elems(d.dtype)
        self.require(
            d.cols >= need and d.rows >= R,
            "dst",
            "dst-cols",
            f">= {R} rows of >= {need} elements (8-byte records)",
            f"{d.rows}x{d.cols}",
        )

    def execute(self, ctx: ExecContext) -> None:
        d, s, x = self.dst, self.src, self.idx
        R, C = s.valid
        if R == 0 or C == 0:
            return
        sv = ctx.tile_storage(s)
        xv = ctx.tile_storage(x)
        out = ctx.memory_of(d).typed(d.address, D.uint8, d.size_bytes)
        row_bytes = d.cols * d.dtype.size_bytes
        for i in range(R):
            scores = sv[i * s.cols + np.arange(C)].copy()
            index = xv[i * x.cols + np.arange(C)].copy()
            recs = []
            for b in range(0, C, SORT_BLOCK):
                sl = slice(b, b + SORT_BLOCK)
                order = sort_records(scores[sl], index[sl])
                recs.append(pack(d.dtype, scores[sl][order], index[sl][order]))
            data = np.concatenate(recs)
            out[i * row_bytes : i * row_bytes + data.size] = data


class TMrgSort(VectorInstruction):
    opcode = "TMRGSORT"
    writes = ("dst",)

    def __init__(self, dst: TileRef, srcs: tuple[TileRef, ...]):
        self.dst, self.srcs = dst, srcs
        self.reads = tuple(f"src{k}" for k in range(len(srcs)))
        for k, ref in enumerate(srcs):
            setattr(self, f"src{k}", ref)

    def validate(self, arch: Arch) -> None:
        d = self.dst
        self.require_defined(arch)
        self.require_vec("dst", d, arch)
        self.require_element_dtype("dst", d, arch)
        total = 0
        for k, s in enumerate(self.srcs):
            name = f"src{k}"
            self.require_vec(name, s, arch)
            self.require_same_dtype("dst", d, name, s)
            self.require(
                s.valid_col % 2 == 0,
                name,
                "record-cols",
                "an even number of valid columns (8-byte records)",
                s.valid_col,
            )
            total += s.valid_col
        self.require(d.cols >= total, "dst", "dst-cols", f">= {total} columns", d.cols)

    def execute(self, ctx: ExecContext) -> None:
        scores, lists, pos, raw = [], [], [], []
        for k, s in enumerate(self.srcs):
            n = s.valid_col // 2
            b = ctx.memory_of(s).typed(s.address, D.uint8, n * 8).reshape(n, 8).copy()
            raw.append(b)
            scores.append(b[:, :4].copy().view(np.float32).reshape(-1))
            lists.append(np.full(n, k))
            pos.append(np.arange(n))
        sc, li, po = np.concatenate(scores), np.concatenate(lists), np.concatenate(pos)
        nan = np.isnan(sc.astype(np.float64))
        # a stable merge: descending score, then lower list, then the order inside the list
        order = np.lexsort((po, li, -np.where(nan, 0, sc.astype(np.float64)), nan))
        data = np.concatenate(raw)[order].reshape(-1) if order.size else np.zeros(0, np.uint8)
        d = self.dst
        ctx.memory_of(d).typed(d.address, D.uint8, data.size)[:] = data


HIST_BYTES = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3")


class THistogram(VectorInstruction):
    opcode = "THISTOGRAM"
    reads = ("src", "idx")
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef, idx: TileRef, byte: int):
        self.dst, self.src, self.idx, self.byte = dst, src, idx, byte

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d, s, x = self.dst, self.src, self.idx
        for name, ref in (("dst", d), ("src", s), ("idx", x)):
            self.require_vec(name, ref, arch)
        self.require_element_dtype("src", s, arch)
        self.require_dtype("dst", d.dtype, (D.uint32,))
        self.require_dtype("idx", x.dtype, (D.uint8,), "index-dtype")
        self.require(d.valid_col >= 256, "dst", "dst-cols", ">= 256 valid columns", d.valid_col)
        self.require(d.valid_row >= s.valid_row, "dst", "dst-rows",
                     f">= {s.valid_row} valid rows", d.valid_row)  # fmt: skip
        top = s.dtype.size_bytes - 1
        self.require(self.byte <= top, "byte", "hist-byte", f"BYTE_0..BYTE_{top}", self.byte)
        need = s.valid_row if s.dtype is D.uint16 else top - self.byte
        if s.dtype is D.uint16 and self.byte == 1:
            need = 0
        self.require(x.valid_row >= need, "idx", "index-valid-shape",
                     f">= {need} valid rows (filter bytes)", x.valid_row)  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        d, s, x = self.dst, self.src, self.idx
        R, C = s.valid
        b = self.byte
        xv = ctx.tile_storage(x)
        for i in range(R):
            v = ctx.tile_storage(s)[s.offsets(i, np.arange(C))].astype(np.uint64)
            keep = np.ones(C, bool)
            if s.dtype is D.uint16:
                if b == 0:
                    keep &= (v >> 8) & 0xFF == int(xv[x.offsets(i, 0)])
            else:
                for k, hb in enumerate((3, 2, 1)):
                    if hb > b:
                        keep &= (v >> (8 * hb)) & 0xFF == int(xv[x.offsets(k, 0)])
            bins = np.bincount(((v[keep] >> (8 * b)) & 0xFF).astype(np.int64), minlength=256)
            ctx.tile_storage(d)[d.offsets(i, np.arange(256))] = np.cumsum(bins).astype(np.uint32)


@instruction(
    family="sort / other",
    summary="sort blocks of 32 (score, index) pairs descending into 8-byte records",
)
def TSORT32(dst: Tile, src: Tile, idx: Tile, tmp: Tile | None = None) -> None:
    """Per row and 32-column block: records (score, index) sorted by score descending."""
    emit(TSort32(_tile(dst, "TSORT32 dst"), _tile(src, "TSORT32 src"), _tile(idx, "TSORT32 idx")))


@instruction(
    family="sort / other",
    summary="merge 2-4 sorted record lists (descending; ties: lower list first)",
)
def TMRGSORT(dst: Tile, src0: Tile, src1: Tile | None = None, src2: Tile | None = None,
             src3: Tile | None = None, *, exhausted: bool = False,
             block_len: int | None = None) -> None:  # fmt: skip
    """Merge the record lists of src0..src3 (row 0 of each) into dst row 0."""
    if exhausted or block_len is not None or src1 is None:
        what = "the exhausted-stop mode" if exhausted else "the single-tile blockLen form"
        raise UnsupportedError(
            "TMRGSORT", "mode", "unsupported-mode", "the 2-4 list merge", what,
            detail="the reference does not pin it down (stop rule, executed counts, blockLen)",
        )  # fmt: skip
    srcs = tuple(
        _tile(s, f"TMRGSORT src{k}")
        for k, s in enumerate((src0, src1, src2, src3))
        if s is not None
    )
    emit(TMrgSort(_tile(dst, "TMRGSORT dst"), srcs))


@instruction(
    family="sort / other",
    summary="per-row inclusive prefix histogram of one byte (radix-sort helper)",
)
def THISTOGRAM(dst: Tile, src: Tile, idx: Tile, *, byte="BYTE_0") -> None:
    """dst[row, k] = number of filtered elements of the row whose byte ``byte`` is <= k."""
    name = byte if isinstance(byte, str) else getattr(byte, "name", str(byte))
    if name.upper() not in HIST_BYTES:
        raise KernelError(f"THISTOGRAM byte: expected one of {HIST_BYTES}, got {byte!r}")
    emit(
        THistogram(
            _tile(dst, "THISTOGRAM dst"),
            _tile(src, "THISTOGRAM src"),
            _tile(idx, "THISTOGRAM idx"),
            HIST_BYTES.index(name.upper()),
        )
    )
