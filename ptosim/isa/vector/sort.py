"""Sorts and histogram: TSORT32, TMRGSORT, THISTOGRAM (vector_isa.md 3.16, 3.24; both "brief").

Only what the reference pins down is modelled; the rest raises UnsupportedError naming what is
missing.

TSORT32(dst, src, idx[, tmp]): for each valid row and each block of 32 consecutive valid
columns, the pairs (src[i, j], idx[i, j]) sorted by score descending, ties by index ascending
(stable), written as 8-byte records at dst row i: 4-byte types -> [score][index u32] (2
elements per record); 2-byte types -> [score][0][index u32] (4 elements per record). Where
block ``b`` lands is the target's ``LayoutRules.sort32_pitch``: after the previous block's
records (NPU, tsort32.md), or at column 2*32*b whatever the record size (cpu: 2-byte blocks
overlap and the later one wins). A last block of fewer than 32 valid columns: cpu sorts its
pairs only (``sort32_partial_block``). a2a3 and a5 (``sort32_tail_via_tmp``, their
``TSort32.hpp``) need the 4-operand form and sort the block whole, padded: per row, when C <=
8160 (a2a3) or C*size <= 8160 bytes (a5, ``sort32_tmp_row_limit_unit``), the row's
``ceil(C*size/32)`` blocks are copied to tmp (``copy_ubuf_to_ubuf``), elements ``C`` up to the
next multiple of 32 of tmp set to ``-(0.0/0.0)`` (a negative quiet NaN: float 0xFFC00000, half
0xFE00; ``vector_dup``) and the ``ceil(C/32)`` blocks sorted from tmp; for longer rows the
whole blocks are sorted from src and only the last block goes through tmp. The padded block
gives 32 records: the pads sort after every number and carry the idx elements past column C of
idx's row; records, tmp copies and pads land past dst's row or tmp's tile where they are larger
than it (the library's own test has a 16-column tmp), and rule ``fits-in-memory`` checks the
bytes of tmp the lowering touches, not its declared size (``tmp_touched_bytes``; a5 also loads
a whole vector register at the last block, ``sort32_tail_load_bytes``). Other targets without
the partial rule refuse the shape (rule ``sort-block``). Checks: idx uint32, dst row holds the
records of the valid pairs (rule ``dst-cols``), dst has src's dtype. NaN scores: their order is
not given (the reference's comparison is not an ordering with NaN); ptosim sorts them after
every number, by index.

TMRGSORT(dst, src0, src1[, src2, src3], exhausted=False): merges 2-4 sorted record lists (row 0
of each source, its valid columns) into dst row 0 as the reference's loop does: at each step
the head record with the greatest score, the lower-numbered list on equal scores (a strictly
greater score replaces the pick, so a NaN head of a lower list is taken first); it stops after
``dst.valid_col`` elements' worth of records, when every list is consumed, or, with
``exhausted``, as soon as one list is consumed. The records consumed per list are the run's
``executed`` counts (``MrgSortExecutedNumList``).
TMRGSORT(dst, src, block_len=L): each group of 4 consecutive blocks of ``L`` elements of src
row 0 (each block a sorted list) is merged as above into the same columns of dst, for the
whole groups inside ``dst.valid_col``. ``L`` must be a positive multiple of the record's
elements. This is the cpu form (``LayoutRules.mrgsort_block_len``). a2a3
(``mrgsort_block_len_repeats``, one ``vmrgsort4`` repeated per group): the groups are those of
src's valid columns, which must be 1-255 whole groups, ``L`` a multiple of 64 (the library's
PTO_ASSERTs: rules ``block-len``, ``block-groups``, ``repeat-range``); the merged groups land
from dst's start whatever dst's size. a5 runs the a2a3 form (npu/a5 TMrgSort.hpp has no
PTO_ASSERT on the multiples; ptosim keeps the a2a3 rules there).

THISTOGRAM(dst, src, idx, *, byte="BYTE_0"): cpu and a5 (npu/a5 THistogram.hpp: ``chistv2``
counts accumulated per row; the library's a5 goldens are the same prefix sums; a5 also fixes
the idx shape, ``LayoutRules.histogram_idx_shape``); a2a3 has no lowering in the reference.
src uint16 or uint32, dst uint32 with >= 256 columns, idx uint8. Per valid row of src: count
byte ``b`` of each valid element among the elements whose higher bytes match the filter (uint32:
byte 3 == idx[0, 0], byte 2 == idx[1, 0], byte 1 == idx[2, 0], as far as they are above b;
uint16 BYTE_0: byte 1 == idx[row, 0]) and store the inclusive prefix sum over the 256 bins in
dst[row, 0..255].
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...errors import KernelError
from ...program import emit
from ...tensors import Tile, TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from ..spec import Sort32Pitch, Sort32TmpLimit
from .common import VectorInstruction

__all__ = ["THISTOGRAM", "TMRGSORT", "TSORT32"]

SORT_BLOCK = 32
BLOCK_BYTES = 32
MAX_UB_TMP_UNITS = 32 * 255  # rows up to this many elements (a2a3) or bytes (a5) go through tmp
PAD_BITS = {4: 0xFFC00000, 2: 0xFE00}  # -(0.0/0.0): a negative quiet NaN in T


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

    def __init__(self, dst: TileRef, src: TileRef, idx: TileRef, tmp: TileRef | None = None):
        self.dst, self.src, self.idx, self.tmp = dst, src, idx, tmp
        if tmp is not None:
            self.writes = ("dst", "tmp")

    def padded_tail(self, arch: Arch) -> bool:
        """The NPU 4-operand lowering of a partial last block (module docstring)."""
        return (
            self.src.valid_col % SORT_BLOCK != 0
            and arch.spec.layout.sort32_tail_via_tmp
            and self.tmp is not None
        )

    def first_block_via_tmp(self, arch: Arch) -> int:
        """With ``padded_tail``: the first block of a row that is sorted from tmp (0: the whole
        row goes through tmp; else the last, the whole blocks before it sorting from src)."""
        C, sz = self.src.valid_col, self.src.dtype.size_bytes
        in_bytes = arch.spec.layout.sort32_tmp_row_limit_unit is Sort32TmpLimit.BYTES
        return 0 if (C * sz if in_bytes else C) <= MAX_UB_TMP_UNITS else C // SORT_BLOCK

    def tmp_touched_bytes(self, arch: Arch) -> int:
        """With ``padded_tail``: the bytes from tmp's start the lowering reads or writes (not
        tmp's declared size): the row's, or the tail block's, copy padded to whole blocks of 32,
        and the target's register load at the last block (``sort32_tail_load_bytes``)."""
        C, sz = self.src.valid_col, self.src.dtype.size_bytes
        tail = C - self.first_block_via_tmp(arch) * SORT_BLOCK
        sorted_bytes = -(-tail // SORT_BLOCK) * SORT_BLOCK * sz
        load = arch.spec.layout.sort32_tail_load_bytes
        return max(sorted_bytes, sorted_bytes - SORT_BLOCK * sz + load)

    def validate(self, arch: Arch) -> None:
        d, s, x = self.dst, self.src, self.idx
        self.require_defined(arch, "src", s.dtype)
        for name, ref in (("dst", d), ("src", s), ("idx", x)):
            self.require_vec(name, ref, arch)
        if self.tmp is not None:
            self.require_vec("tmp", self.tmp, arch)
        self.require_element_dtype("src", s, arch)
        self.require_same_dtype("src", s, "dst", d)
        self.require_dtype("idx", x.dtype, (D.uint32,), "index-dtype")
        R, C = s.valid
        rules = arch.spec.layout
        if rules.sort32_tail_via_tmp:
            want = (
                "valid columns a multiple of 32, or a tmp tile (the 4-operand form pads the "
                "last block)"
            )
        else:
            want = (
                f"valid columns a multiple of 32 (the NaN-padded tail {arch.target} sorts through "
                "tmp is not modelled)"
            )
        self.require(
            C % SORT_BLOCK == 0 or rules.sort32_partial_block or self.padded_tail(arch),
            "src",
            "sort-block",
            want,
            C,
        )
        self.require(x.valid_row >= R and x.valid_col >= C, "idx", "index-valid-shape",
                     f"a valid region covering src's {s.valid}", x.valid)  # fmt: skip
        need = max((start + n * record_elems(d.dtype) for start, n in self._blocks(arch)),
                   default=0)  # fmt: skip
        self.require(
            d.cols >= need and d.rows >= R,
            "dst",
            "dst-cols",
            f">= {R} rows of >= {need} elements (8-byte records)",
            f"{d.rows}x{d.cols}",
        )

    def _blocks(self, arch: Arch) -> list[tuple[int, int]]:
        """(first dst column, pairs) of each block of a row (``LayoutRules.sort32_pitch``)."""
        C = self.src.valid_col
        twice = arch.spec.layout.sort32_pitch is Sort32Pitch.TWICE_COLUMNS
        step = 2 * SORT_BLOCK if twice else SORT_BLOCK * record_elems(self.dst.dtype)
        return [(b // SORT_BLOCK * step, min(SORT_BLOCK, C - b)) for b in range(0, C, SORT_BLOCK)]

    def execute(self, ctx: ExecContext) -> None:
        d, s, x = self.dst, self.src, self.idx
        R, C = s.valid
        if R == 0 or C == 0:
            return
        if self.padded_tail(ctx.arch):
            self._execute_padded(ctx)
            return
        sv = ctx.tile_storage(s)
        xv = ctx.tile_storage(x)
        out = ctx.memory_of(d).typed(d.address, D.uint8, d.size_bytes)
        row_bytes = d.cols * d.dtype.size_bytes
        blocks = self._blocks(ctx.arch)
        for i in range(R):
            scores = sv[i * s.cols + np.arange(C)].copy()
            index = xv[i * x.cols + np.arange(C)].copy()
            for k, (start, n) in enumerate(blocks):
                sl = slice(k * SORT_BLOCK, k * SORT_BLOCK + n)
                order = sort_records(scores[sl], index[sl])
                data = pack(d.dtype, scores[sl][order], index[sl][order])
                at = i * row_bytes + start * d.dtype.size_bytes  # later blocks overwrite
                out[at : at + data.size] = data

    def _execute_padded(self, ctx: ExecContext) -> None:
        """a2a3 and a5 TSort32.hpp, 4 operands, C % 32 != 0 (module docstring), row by row on the
        memory: the copy to tmp, the -NaN pads, the sorts."""
        d, s, x, t = self.dst, self.src, self.idx, self.tmp
        R, C = s.valid
        dt, sz = d.dtype, d.dtype.size_bytes
        n = C // SORT_BLOCK  # whole blocks; block n is the padded one
        smem, xmem = ctx.memory_from(s), ctx.memory_from(x)
        used = self.tmp_touched_bytes(ctx.arch)  # rule fits-in-memory: these bytes, not tmp's
        ctx.require_inside(t, used, f"its first {used} bytes (the padded copy and loads)")
        tmem, dmem = ctx.memory_from(t), ctx.memory_from(d)
        idx_stride = 0 if x.valid_row == 1 else x.cols
        pad = np.array([PAD_BITS[sz]], dtype=f"u{sz}").view(dt.np)[0]
        first = self.first_block_via_tmp(ctx.arch)
        for i in range(R):
            row = i * s.cols
            if first:  # the whole blocks from src, the last one through tmp
                self._sort_blocks(dmem, smem[row:], xmem, i, idx_stride, 0, n)
            copied = -(-(C - first * SORT_BLOCK) * sz // BLOCK_BYTES) * BLOCK_BYTES // sz
            base = first * SORT_BLOCK
            tmem[:copied] = smem[row + base : row + base + copied].copy()
            tail = C - base  # valid elements of tmp
            tmem[tail : -(-tail // SORT_BLOCK) * SORT_BLOCK] = pad
            self._sort_blocks(dmem, tmem, xmem, i, idx_stride, first, n + 1 - first)

    def _sort_blocks(self, dmem, scores, xmem, i, idx_stride, first, count) -> None:
        """``vbitsort`` of ``count`` blocks of 32 (scores from ``scores``, whose element 0 is
        block ``first``'s start) into dst row ``i`` from block ``first`` on."""
        d = self.dst
        rec = record_elems(d.dtype)
        out = dmem.view(np.uint8)
        for k in range(count):
            b = first + k
            sc = scores[k * SORT_BLOCK : (k + 1) * SORT_BLOCK].copy()
            at_idx = i * idx_stride + b * SORT_BLOCK
            index = xmem[at_idx : at_idx + SORT_BLOCK].copy()
            order = sort_records(sc, index)
            data = pack(d.dtype, sc[order], index[order])
            at = (i * d.cols + b * SORT_BLOCK * rec) * d.dtype.size_bytes
            out[at : at + data.size] = data


def merge_heads(lists: list[np.ndarray], limit: int, exhausted: bool) -> tuple[list, list]:
    """The reference's merge loop over score lists: (picked (list, position) pairs, consumed
    counts). A later list's head replaces the pick only with a strictly greater score."""
    taken = [0] * len(lists)
    picks: list[tuple[int, int]] = []
    while len(picks) < limit:
        pick = -1
        for k, scores in enumerate(lists):
            if taken[k] < scores.size and (pick < 0 or scores[taken[k]] > lists[pick][taken[pick]]):
                pick = k
        if pick < 0:
            break
        picks.append((pick, taken[pick]))
        taken[pick] += 1
        if exhausted and any(t == v.size for t, v in zip(taken, lists)):
            break
    return picks, taken


class TMrgSort(VectorInstruction):
    opcode = "TMRGSORT"
    writes = ("dst",)

    def __init__(self, dst: TileRef, srcs: tuple[TileRef, ...], exhausted: bool = False,
                 block_len: int | None = None):  # fmt: skip
        self.dst, self.srcs, self.exhausted, self.block_len = dst, srcs, exhausted, block_len
        self.reads = tuple(f"src{k}" for k in range(len(srcs)))
        for k, ref in enumerate(srcs):
            setattr(self, f"src{k}", ref)
        self.executed: tuple[int, ...] = ()  # records consumed per list (set by execute)

    def validate(self, arch: Arch) -> None:
        d = self.dst
        self.require_defined(arch)
        self.require_vec("dst", d, arch)
        self.require_element_dtype("dst", d, arch)
        rec = record_elems(d.dtype)
        for k, s in enumerate(self.srcs):
            name = f"src{k}"
            self.require_vec(name, s, arch)
            self.require_same_dtype("dst", d, name, s)
            self.require(s.rows == 1, name, "one-row", "Rows == 1", s.rows)
            self.require(
                s.valid_col % rec == 0,
                name,
                "record-cols",
                f"a multiple of {rec} valid columns (8-byte records)",
                s.valid_col,
            )
        self.require(d.rows == 1, "dst", "one-row", "Rows == 1", d.rows)
        if self.block_len is not None:
            rules = arch.spec.layout
            if rules.mrgsort_block_len_repeats:
                self._require_repeats()
                return
            if not rules.mrgsort_block_len:
                self.unsupported(
                    "block_len", "unsupported-mode", "the 2-4 list merge", "the blockLen form",
                    detail=f"{arch.target}'s blockLen and repeat rules are not modelled",
                )  # fmt: skip
            L, s = self.block_len, self.srcs[0]
            self.require(L > 0 and L % rec == 0, "block_len", "block-len",
                         f"a positive multiple of {rec} (whole records)", L)  # fmt: skip
            groups = d.valid_col // (4 * L) * 4 * L
            self.require(s.cols >= groups, "src", "src-cols",
                         f">= {groups} columns (the 4-block groups in dst's valid columns)",
                         s.cols)  # fmt: skip

    def _require_repeats(self) -> None:
        """The PTO_ASSERTs of the a2a3 blockLen form (one vmrgsort4 repeated per group)."""
        L, C = self.block_len, self.srcs[0].valid_col
        self.require(L > 0 and L % 64 == 0, "block_len", "block-len", "a positive multiple of 64",
                     L)  # fmt: skip
        self.require(C % (4 * L) == 0, "src", "block-groups",
                     f"valid columns a multiple of 4 x blockLen = {4 * L}", C)  # fmt: skip
        self.require(1 <= C // (4 * L) <= 255, "src", "repeat-range",
                     "1 to 255 groups of 4 blocks (the vmrgsort4 repeat field)",
                     C // (4 * L))  # fmt: skip

    def _scores(self, ctx: ExecContext, s: TileRef, first: int, n: int) -> np.ndarray:
        """The scores (element 0 of each record) of ``n`` records from element ``first``."""
        rec = record_elems(s.dtype)
        return ctx.tile_storage(s)[first + rec * np.arange(n)].copy()

    def _records(self, ctx: ExecContext, s: TileRef, first: int, n: int) -> np.ndarray:
        size = s.dtype.size_bytes
        raw = ctx.memory_of(s).typed(s.address + first * size, D.uint8, n * 8, what=self.label)
        return raw.reshape(n, 8).copy()

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        rec = record_elems(d.dtype)
        out = ctx.memory_of(d).typed(d.address, D.uint8, d.size_bytes)
        if self.block_len is not None:
            self._execute_blocks(ctx, out)
            return
        counts = [s.valid_col // rec for s in self.srcs]
        lists = [self._scores(ctx, s, 0, n) for s, n in zip(self.srcs, counts)]
        raw = [self._records(ctx, s, 0, n) for s, n in zip(self.srcs, counts)]
        picks, taken = merge_heads(lists, d.valid_col // rec, self.exhausted)
        for pos, (k, j) in enumerate(picks):
            out[pos * 8 : pos * 8 + 8] = raw[k][j]
        self.executed = tuple(taken) + (0,) * (4 - len(taken))

    def _execute_blocks(self, ctx: ExecContext, out: np.ndarray) -> None:
        d, s, L = self.dst, self.srcs[0], self.block_len
        per_block = L // record_elems(d.dtype)
        size = d.dtype.size_bytes
        if ctx.spec.layout.mrgsort_block_len_repeats:  # src's groups, written from dst's start
            end = s.valid_col
            out = ctx.memory_from(d).view(np.uint8)
        else:
            end = d.valid_col
        for base in range(0, end - 4 * L + 1, 4 * L):
            starts = [base + b * L for b in range(4)]
            lists = [self._scores(ctx, s, f, per_block) for f in starts]
            raw = [self._records(ctx, s, f, per_block) for f in starts]
            picks, _ = merge_heads(lists, 4 * per_block, False)
            for pos, (k, j) in enumerate(picks):
                at = base * size + pos * 8
                out[at : at + 8] = raw[k][j]


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
            self.require_vec(name, ref, arch, row_major=name != "idx")
        if arch.spec.layout.histogram_idx_shape:
            self._check_idx_shape()
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

    def _check_idx_shape(self) -> None:
        """``LayoutRules.histogram_idx_shape``: uint16 idx one DN column (a filter byte per
        row at storage byte ``row``); uint32 below BYTE_3 a RowMajor idx of ``3 - byte`` rows
        and src's Cols (filter k at ``k * Cols``)."""
        s, x = self.src, self.idx
        if s.dtype is D.uint16:
            ok = x.geom.layout_name == "DN" and x.cols == 1
            self.require(ok, "idx", "index-layout", "a DN tile of one column", x.geom.layout_name
                         + f" {x.rows}x{x.cols}")  # fmt: skip
        elif self.byte < 3:
            want = (3 - self.byte, s.cols)
            ok = x.geom.is_nd and (x.rows, x.cols) == want
            self.require(ok, "idx", "index-layout", f"a RowMajor {want[0]}x{want[1]} tile",
                         f"{x.geom.layout_name} {x.rows}x{x.cols}")  # fmt: skip

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
    t = None if tmp is None else _tile(tmp, "TSORT32 tmp")
    emit(
        TSort32(_tile(dst, "TSORT32 dst"), _tile(src, "TSORT32 src"), _tile(idx, "TSORT32 idx"), t)
    )


@instruction(
    family="sort / other",
    summary="merge 2-4 sorted record lists (descending; ties: lower list first)",
)
def TMRGSORT(dst: Tile, src0: Tile, src1: Tile | None = None, src2: Tile | None = None,
             src3: Tile | None = None, *, exhausted: bool = False,
             block_len: int | None = None) -> None:  # fmt: skip
    """Merge the record lists of src0..src3 (row 0 of each) into dst row 0; with ``block_len``
    (src0 only), merge each group of 4 sorted blocks of src0 (module doc)."""
    if block_len is not None:
        if src1 is not None or exhausted:
            raise KernelError(
                "TMRGSORT block_len: the single-list form takes src0 only and no exhausted flag"
            )
        emit(TMrgSort(_tile(dst, "TMRGSORT dst"), (_tile(src0, "TMRGSORT src"),),
                      block_len=int(block_len)))  # fmt: skip
        return
    if src1 is None:
        raise KernelError("TMRGSORT: merge 2-4 lists (src0, src1[, src2, src3]) or pass block_len")
    srcs = tuple(
        _tile(s, f"TMRGSORT src{k}")
        for k, s in enumerate((src0, src1, src2, src3))
        if s is not None
    )
    emit(TMrgSort(_tile(dst, "TMRGSORT dst"), srcs, exhausted=bool(exhausted)))


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
