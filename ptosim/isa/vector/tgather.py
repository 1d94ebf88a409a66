"""TGATHER (index, mask-pattern and compare forms) and TGATHERB (vector_isa.md 3.12, semantics.md
3.6).

Index form ``TGATHER(dst, src0, idx, tmp)``, over dst's valid region (R, C):
- cpu: ``dst[i, j] = src0(k // Cols, k % Cols)`` with ``k = idx[i, j]`` (int32 read signed,
  uint32 unsigned); ``k < 0`` or ``k >= Rows*Cols`` gives 0.
- a2a3: ``vmuls`` computes the byte offsets ``idx*sizeof(T)`` in int32 (wrapping) into dst's
  row (b32) or tmp's row at dst's row pitch (b16: tmp is written, modelled), then ``vgather``
  reads the element at UB byte ``src0 + offset`` (offset unsigned): **no bounds check**, an
  out-of-range index reads whatever UB holds there (past the end of UB: OutOfBoundsError).
- a5 (SIMD gather; choice, the reference gives no bounds rule): like a2a3, the element at UB
  element ``src0 + k`` with k the index read unsigned at its own width; tmp ignored.
Checks: idx 4-byte on cpu/a2a3 (int32/uint32), 2/4-byte on a5 (rule ``index-dtype``);
dst.dtype == src0.dtype; idx's valid region covers dst's (rule ``index-valid-shape``); a2a3
needs tmp with idx's dtype and ``tmp Rows x Cols == idx valid shape`` (rules ``tmp-required``,
``tmp-dtype``, ``tmp-shape``).

Mask form ``TGATHER(dst, src, mask="P0101", axis="GATHER_ROW")`` (inverse of TSCATTER's mask
mode; times/pos of the pattern): ROW: from each of src's valid rows keep the valid columns j
with ``j % times == pos`` and write them densely, row after row, into dst's storage (dst's
valid width must equal its Cols, rule ``dst-valid-cols``; the output must fit dst, rule
``dst-capacity``). a5, 64-bit types (``LayoutRules.gather_mask_b64_row_pitch``): per row the
first ``min(validCol // times, 64)`` kept elements, row i from dst element ``i * (Cols //
times)``, any dst valid width. COL: ``dst[i, j] = src[i*times + pos, j]`` over dst's valid
region (rules ``src-rows``, ``src-cols``). dst and src may differ in type if not in size (rule
``same-size``): the elements are copied bit for bit (float32 -> int32 keeps the float's bits),
as every target's TGATHER does. Same values on every target.

TGATHERB(dst, src, offset): for each dst row r and 32-byte block c < C*sizeof(T)/32, the 32
bytes at src byte offset ``offset[r, c]`` (uint32) go to block c of dst row r. cpu skips a block
that would read past src's tile; a2a3/a5 (``vgatherb``; choice: no bounds check is described)
read the UB bytes at that offset. dst's valid width must be whole 32-byte blocks (rule
``dst-valid-32B``).

Compare form ``TGATHER(dst, src0, k_value, tmp, cmp_mode="GT"|"EQ", cdst=c, offset=o)`` (C++
``TGATHER<Dst, Src, K, Cdst, Tmp, CmpMode>(dst, src0, kValue, cdst, tmp, offset)``), on a2a3
and a5 (``LayoutRules.gather_compare``; cpu: UnsupportedError). a5 runs its vector functions
(``gather_compare_squeeze``, ``tgather_squeeze.py``). a2a3 as ``a2a3/TGather.hpp`` runs it on
the memory. For src0's R x C valid region, with S = src0's Rows x Cols and tmp's Rows x Cols
bytes of compare masks at its start:
- the index ramp ``offset + n`` (dst's type, wrapping) for every n < S, after the masks in tmp;
- each row's threshold k: float src0: ``vconv_s322f32`` of k_value's elements read as int32,
  half: ``vconv_s162f16`` of them read as int16 (round to nearest even; whole 256-byte repeats
  of k_value), int32: copied; placed after the ramp;
- per row i < R: ``vcmpvs_gt`` / ``vcmpvs_eq`` of src0's row i against k[i] over whole repeats
  (``ceil(C / E)`` of E = 256/size elements) into mask row i (bit j of byte j // 8, LSB first;
  NaN compares false); then ``vreducev2`` over C elements: the ramp elements of row i (at
  src0's row pitch) whose mask bit is set, packed from dst's row i start, and their count to
  ``cdst`` element i (flat, converted to cdst's type).
The ramp and thresholds, and packed rows longer than dst's Cols, land past their tile (as in
the library's own test, whose tmp tile holds only the masks). Checks: dst int32/uint32, src0
float32/half, or int32 with EQ (rule ``dtype``), k_value of src0's element size (rule
``k-dtype``), cmp_mode GT or EQ, tmp a uint8 Vec tile.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...enums import MaskPattern
from ...errors import KernelError
from ...program import emit
from ...tensors import Tile, TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from ..spec import GatherBounds
from .common import VectorInstruction
from .tgather_squeeze import squeeze_gather

__all__ = ["TGATHER", "TGATHERB"]

AXES = ("GATHER_ROW", "GATHER_COL")


def _ub_elements(ctx: ExecContext, base: int, byte_offsets: np.ndarray, dt: D.DType) -> np.ndarray:
    """Elements of ``dt`` at UB bytes ``base + byte_offsets`` (OutOfBoundsError past UB)."""
    if byte_offsets.size == 0:
        return np.zeros(0, dt.np)
    hi = int(byte_offsets.max())
    mem = ctx.ub.typed(base, D.uint8, hi + dt.size_bytes, what=f"{ctx.instr.label} gather")
    k = byte_offsets[..., None] + np.arange(dt.size_bytes)
    return mem[k].copy().view(dt.np).reshape(byte_offsets.shape)


class TGather(VectorInstruction):
    opcode = "TGATHER"
    reads = ("src0", "idx")
    writes = ("dst", "tmp")

    def __init__(self, dst: TileRef, src0: TileRef, idx: TileRef, tmp: TileRef | None):
        self.dst, self.src0, self.idx, self.tmp = dst, src0, idx, tmp

    def validate(self, arch: Arch) -> None:
        d, s, x, t = self.dst, self.src0, self.idx, self.tmp
        self.require_defined(arch)
        for name, ref in (("dst", d), ("src0", s), ("idx", x)):
            self.require_vec(name, ref, arch)
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src0", s)
        rules = arch.spec.layout
        self.require_dtype("idx", x.dtype, rules.gather_index_dtypes, "index-dtype")
        self.require(
            x.valid_row >= d.valid_row and x.valid_col >= d.valid_col,
            "idx",
            "index-valid-shape",
            f"a valid region covering dst's {d.valid}",
            x.valid,
        )
        if rules.gather_offsets_in_tmp:
            if t is None:
                self.fail("tmp", "tmp-required", "a tmp tile (the offset buffer)", None)
            self.require_loc("tmp", t)
            self.require(t.dtype is x.dtype, "tmp", "tmp-dtype", x.dtype.name, t.dtype.name)
            self.require(
                (t.rows, t.cols) == x.valid,
                "tmp",
                "tmp-shape",
                f"Rows x Cols == idx valid shape {x.valid}",
                f"{t.rows}x{t.cols}",
            )

    def byte_offsets(self, ctx: ExecContext, row: int) -> np.ndarray:
        """NPU byte offsets from src0 of row ``row``'s gathered elements."""
        x, C = self.idx, self.dst.valid_col
        k = ctx.tile_storage(x)[row * x.cols + np.arange(C)]
        sz = self.dst.dtype.size_bytes
        if ctx.spec.layout.gather_offsets_in_tmp:  # vmuls in int32, read as an unsigned offset
            return (k.astype(np.int64) * sz).astype(np.int32).view(np.uint32).astype(np.int64)
        return k.view(f"u{x.dtype.size_bytes}").astype(np.int64) * sz

    def execute(self, ctx: ExecContext) -> None:
        d, s, x = self.dst, self.src0, self.idx
        R, C = d.valid
        if R == 0 or C == 0:
            return
        i, j = d.geom.grid(R, C)
        rules = ctx.spec.layout
        if rules.gather_bounds is GatherBounds.CHECKED:
            k = ctx.tile_storage(x)[x.offsets(i, j)].astype(np.int64)
            ok = (k >= 0) & (k < s.numel)
            kk = np.where(ok, k, 0)
            vals = ctx.tile_storage(s)[s.offsets(kk // s.cols, kk % s.cols)]
            ctx.tile_storage(d)[d.offsets(i, j)] = np.where(ok, vals, d.dtype.np.type(0))
            return
        offs = np.stack([self.byte_offsets(ctx, r) for r in range(R)])
        vals = _ub_elements(ctx, s.address, offs, d.dtype)
        if rules.gather_offsets_in_tmp and d.dtype.size_bytes == 2:  # b16 offsets land in tmp
            tmp = ctx.ub.typed(self.tmp.address, D.int32, ((R - 1) * d.cols + C))
            tmp[i * d.cols + j] = offs.astype(np.uint32).view(np.int32)
        ctx.tile_storage(d)[i * d.cols + j] = vals


class TGatherMask(VectorInstruction):
    opcode = "TGATHER"
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef, mask: MaskPattern, axis: str):
        self.dst, self.src, self.mask, self.axis = dst, src, mask, axis

    def row_pitch(self, arch: Arch) -> int | None:
        """ROW: dst elements between the starts of two src rows' outputs (None: dense)."""
        if self.src.dtype.size_bytes == 8 and arch.spec.layout.gather_mask_b64_row_pitch:
            return self.dst.cols // self.mask.times
        return None

    def row_count(self, arch: Arch) -> int:
        """ROW: elements kept per src row."""
        t, p, C = self.mask.times, self.mask.pos, self.src.valid_col
        if self.row_pitch(arch) is not None:
            return min(C // t, B64_GATHER_LANES)
        return len(range(p, C, t))

    def src_row(self, i: int) -> int:
        return i * self.mask.times + self.mask.pos

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_defined(arch)
        self.require_vec("dst", d, arch)
        self.require_vec("src", s, arch)
        self.require_element_dtype("dst", d, arch)
        self.require_element_dtype("src", s, arch)
        self.require(
            d.dtype.size_bytes == s.dtype.size_bytes,
            "src",
            "same-size",
            f"{d.dtype.size_bytes}-byte elements (the size of dst's {d.dtype.name})",
            f"{s.dtype.name} ({s.dtype.size_bytes} bytes)",
        )
        if self.axis == "GATHER_ROW":
            pitch, count = self.row_pitch(arch), self.row_count(arch)
            if pitch is None:
                self.require(
                    d.valid_col == d.cols,
                    "dst",
                    "dst-valid-cols",
                    f"ValidCol == Cols {d.cols} (the output is dense)",
                    d.valid_col,
                )
            need = s.valid_row * count if pitch is None else (s.valid_row - 1) * pitch + count
            self.require(
                need <= d.numel,
                "dst",
                "dst-capacity",
                f">= {need} elements ({s.valid_row} rows x {count} kept)",
                d.numel,
            )
        else:
            R, C = d.valid
            self.require(
                R == 0 or self.src_row(R - 1) < s.valid_row,
                "src",
                "src-rows",
                f"valid rows > {self.src_row(R - 1) if R else 0} ({self.mask.name}, {R} dst rows)",
                s.valid_row,
            )
            self.require(s.valid_col >= C, "src", "src-cols", f"valid cols >= {C}", s.valid_col)

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        t, p = self.mask.times, self.mask.pos
        if self.axis == "GATHER_ROW":
            R = s.valid_row
            cols = p + t * np.arange(self.row_count(ctx.arch))
            if R == 0 or cols.size == 0:
                return
            r = np.arange(R)[:, None]
            vals = ctx.tile_storage(s)[s.offsets(r, cols[None, :])].copy()
            pitch = self.row_pitch(ctx.arch)
            at = (r * (cols.size if pitch is None else pitch) + np.arange(cols.size)).reshape(-1)
            ctx.tile_storage(d)[at] = vals.reshape(-1).view(d.dtype.np)
            return
        R, C = d.valid
        if R == 0 or C == 0:
            return
        i, j = d.geom.grid(R, C)
        vals = ctx.tile_storage(s)[s.offsets(i * t + p, j)].copy()
        ctx.tile_storage(d)[d.offsets(i, j)] = vals.view(d.dtype.np)


class TGatherB(VectorInstruction):
    opcode = "TGATHERB"
    reads = ("src", "offset")
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef, offset: TileRef):
        self.dst, self.src, self.offset = dst, src, offset

    def blocks(self) -> int:
        return self.dst.valid_col * self.dst.dtype.size_bytes // 32

    def validate(self, arch: Arch) -> None:
        d, s, o = self.dst, self.src, self.offset
        self.require_defined(arch)
        for name, ref in (("dst", d), ("src", s), ("offset", o)):
            self.require_vec(name, ref, arch)
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src", s)
        self.require_dtype("offset", o.dtype, (D.uint32,), "index-dtype")
        self.require(
            (d.valid_col * d.dtype.size_bytes) % 32 == 0,
            "dst",
            "dst-valid-32B",
            "ValidCol*sizeof(T) a multiple of 32 bytes",
            f"{d.valid_col}*{d.dtype.size_bytes}",
        )
        self.require(
            o.valid_row >= d.valid_row and o.valid_col >= self.blocks(),
            "offset",
            "index-valid-shape",
            f"valid region >= ({d.valid_row}, {self.blocks()}) (one offset per 32-byte block)",
            o.valid,
        )

    def execute(self, ctx: ExecContext) -> None:
        d, s, o = self.dst, self.src, self.offset
        R, nb = d.valid_row, self.blocks()
        if R == 0 or nb == 0:
            return
        r = np.arange(R)[:, None]
        c = np.arange(nb)[None, :]
        offs = ctx.tile_storage(o)[o.offsets(r, c)].astype(np.int64)  # (R, nb)
        dst_bytes = ctx.ub.typed(d.address, D.uint8, d.size_bytes)
        starts = (r * d.cols * d.dtype.size_bytes + c * 32).reshape(-1)
        offs = offs.reshape(-1)
        if ctx.spec.layout.gather_bounds is GatherBounds.CHECKED:
            keep = offs + 32 <= s.size_bytes
            offs, starts = offs[keep], starts[keep]
        if offs.size == 0:
            return
        src_bytes = ctx.ub.typed(s.address, D.uint8, int(offs.max()) + 32, what="TGATHERB src")
        blocks = src_bytes[offs[:, None] + np.arange(32)].copy()
        dst_bytes[starts[:, None] + np.arange(32)] = blocks


def _axis(value) -> str:
    name = value.name if hasattr(value, "name") else str(value)
    up = name.upper()
    if up not in AXES:
        raise KernelError(f"TGATHER axis: expected one of {AXES}, got {value!r}")
    return up


CMP_MODES = ("GT", "EQ")
B64_GATHER_LANES = 64  # 32-bit lanes of one 256-byte vector: a5 gathers a b64 row's halves once


class TGatherCmp(VectorInstruction):
    """The compare form (module docstring)."""

    opcode = "TGATHER"
    reads = ("src0", "k_value")
    writes = ("dst", "cdst", "tmp")

    def __init__(self, dst, src0, k_value, cdst, tmp, cmp_mode: str, offset: int):
        self.dst, self.src0, self.k_value, self.cdst, self.tmp = dst, src0, k_value, cdst, tmp
        self.cmp_mode, self.offset = cmp_mode, int(offset)

    def validate(self, arch: Arch) -> None:
        d, s, k = self.dst, self.src0, self.k_value
        self.require_defined(arch)
        if not arch.spec.layout.gather_compare:
            self.unsupported("cmp_mode", "unsupported-mode", "the index or mask-pattern form",
                             "the compare form",
                             detail=f"{arch.target}'s compare gather is not modelled")  # fmt: skip
        for name in ("dst", "src0", "tmp"):
            self.require_vec(name, getattr(self, name), arch)
        for name in ("k_value", "cdst"):  # read and written flat: any layout ([R, 1] columns)
            self.require_loc(name, getattr(self, name))
        self.require_dtype("dst", d.dtype, (D.int32, D.uint32))
        if arch.spec.layout.gather_compare_squeeze:  # npu/a5 TGATHER_IMPL's static_asserts
            ints = (D.int8, D.uint8, D.int16, D.uint16, D.int32, D.uint32)
            self.require_dtype("src0", s.dtype, (D.float32, D.half, *ints))
            want = D.uint32 if s.dtype.size_bytes == 4 else D.uint16
            self.require_dtype("k_value", k.dtype, (want,), "k-dtype")
            return
        srcs = (D.float32, D.half) + ((D.int32,) if self.cmp_mode == "EQ" else ())
        self.require_dtype("src0", s.dtype, srcs)
        self.require(
            k.dtype.is_int and k.dtype.size_bytes == s.dtype.size_bytes,
            "k_value", "k-dtype", f"a {s.dtype.size_bytes}-byte integer type", k.dtype.name,
        )  # fmt: skip
        self.require_dtype("tmp", self.tmp.dtype, (D.uint8,), "tmp-dtype")

    def execute(self, ctx: ExecContext) -> None:
        if ctx.arch.spec.layout.gather_compare_squeeze:
            squeeze_gather(self, ctx)
            return
        d, s, k, c, t = self.dst, self.src0, self.k_value, self.cdst, self.tmp
        R, C = s.valid
        tin, tout = s.dtype, d.dtype
        tm = ctx.memory_from(t).view(np.uint8)
        mask_bytes = t.rows * t.cols
        n_ramp = s.rows * s.cols
        ramp_at, cvt_at = mask_bytes, mask_bytes + n_ramp * tout.size_bytes
        ramp = ((self.offset + np.arange(n_ramp, dtype=np.int64)) & 0xFFFFFFFF).astype(np.uint32)
        tm[ramp_at:cvt_at] = ramp.view(np.uint8)
        kmem = ctx.memory_from(k)
        if tin is D.int32:  # a scalar copy of the static rows' values
            kv = kmem[: s.rows].astype(np.int64).astype(np.uint32).view(np.int32)
        else:  # vconv over whole repeats of k_value
            n = -(-R // (256 // k.dtype.size_bytes)) * (256 // k.dtype.size_bytes)
            raw = kmem.view(np.uint8)[: n * k.dtype.size_bytes]
            ints = raw.view(np.int32 if tin is D.float32 else np.int16)
            kv = ints.astype(tin.np)
        tm[cvt_at : cvt_at + kv.nbytes] = kv.view(np.uint8)
        E = 256 // tin.size_bytes
        width = -(-C // E) * E
        smem, dmem = ctx.memory_from(s), ctx.memory_from(d)
        cvals = np.zeros(R, np.int64)
        for i in range(R):
            row = smem[i * s.cols : i * s.cols + width]
            bits = (row > kv[i]) if self.cmp_mode == "GT" else (row == kv[i])
            tm[i * t.cols : i * t.cols + width // 8] = np.packbits(bits, bitorder="little")
        for i in range(R):
            bits = np.unpackbits(tm[i * t.cols : i * t.cols + width // 8], bitorder="little")
            sel = np.flatnonzero(bits[:C])
            picked = ramp[i * s.cols + sel].astype(tout.np)
            dmem[i * d.cols : i * d.cols + sel.size] = picked
            cvals[i] = sel.size
        cmem = ctx.memory_from(c)
        cmem[:R] = cvals.astype(tout.np).astype(c.dtype.np)


@instruction(
    family="gather / scatter",
    summary="UB gather by a flat index tile, or compaction by a mask pattern",
)
def TGATHER(dst: Tile, src0: Tile, idx: Tile | None = None, tmp: Tile | None = None, *,
            mask=None, axis=None, cmp_mode=None, cdst: Tile | None = None,
            offset: int = 0) -> None:  # fmt: skip
    """Index form ``TGATHER(dst, src0, idx, tmp)``: ``dst[i, j] = src0_flat[idx[i, j]]``.
    Mask form ``TGATHER(dst, src, mask="P0101", axis="GATHER_ROW")``: keep the pattern's
    columns (ROW) or rows (COL) of src, densely. Compare form ``TGATHER(dst, src0, k_value,
    tmp, cmp_mode="GT", cdst=counts, offset=0)``: per row, ``offset`` + the flat positions of
    the elements greater than (equal to) the row's k, packed, and their count (a2a3).

    Raises:
        KernelError: both an index tile and ``mask``/``axis``, or neither; a compare form
        without k_value, tmp or cdst, or with a mode other than GT / EQ.
    """
    if cmp_mode is not None:
        mode = getattr(cmp_mode, "name", str(cmp_mode)).upper()
        if mode not in CMP_MODES or idx is None or tmp is None or cdst is None:
            raise KernelError(
                "TGATHER compare form: TGATHER(dst, src0, k_value, tmp, cmp_mode='GT'|'EQ', "
                f"cdst=..., offset=...), got cmp_mode={cmp_mode!r}"
            )
        emit(TGatherCmp(_tile(dst, "TGATHER dst"), _tile(src0, "TGATHER src0"),
                        _tile(idx, "TGATHER k_value"), _tile(cdst, "TGATHER cdst"),
                        _tile(tmp, "TGATHER tmp"), mode, offset))  # fmt: skip
        return
    if idx is not None:
        if mask is not None or axis is not None:
            raise KernelError("TGATHER: give either idx (index form) or mask=/axis=, not both")
        t = None if tmp is None else _tile(tmp, "TGATHER tmp")
        emit(TGather(_tile(dst, "TGATHER dst"), _tile(src0, "TGATHER src0"),
                     _tile(idx, "TGATHER idx"), t))  # fmt: skip
        return
    if mask is None:
        raise KernelError("TGATHER: give an index tile (idx) or a mask pattern (mask=)")
    if tmp is not None:
        raise KernelError("TGATHER: the mask form takes no tmp tile")
    pattern = MaskPattern.parse(mask, "TGATHER mask")
    ax = _axis("GATHER_ROW" if axis is None else axis)
    emit(TGatherMask(_tile(dst, "TGATHER dst"), _tile(src0, "TGATHER src"), pattern, ax))


@instruction(
    family="gather / scatter",
    summary="gather 32-byte blocks of src at per-block byte offsets",
)
def TGATHERB(dst: Tile, src: Tile, offset: Tile) -> None:
    """Block gather: dst row r, block c <- 32 bytes of src at byte ``offset[r, c]``."""
    emit(TGatherB(_tile(dst, "TGATHERB dst"), _tile(src, "TGATHERB src"),
                  _tile(offset, "TGATHERB offset")))  # fmt: skip
