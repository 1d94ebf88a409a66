"""Compare to a bit mask and select with it: TCMP, TCMPS, TSEL, TSELS (vector_isa.md 3.19, 3.20,
4 items 4 and 5).

Mask format (every target): bit-packed, LSB first: bit b of mask byte k of row i is the result
for column 8k + b; row i of the mask starts at dst row i (row pitch = dst Cols elements).

Which of the writers below a target has is its ``CompareRules.mask_writer`` (``REFERENCE_WORDS``:
cpu, ``COMPARE_REPEATS``: a2a3, ``PREDICATE_STORES``: a5); the other differences are named
fields of ``CompareRules``.

TCMP(dst, src0, src1, cmp_mode) over src0's valid ``R x C`` (``dst.valid_row == R``; src1 must
have src0's valid shape). CmpMode: EQ, NE, LT, LE, GT, GE (C operators: NaN compares true only
for NE).

- cpu: dst u8 (8 bits per word) or u32 (32 bits per word); the whole dst tile is zeroed, then
  each row gets ``min(ceil(C/bits), dst.valid_col)`` words, bits past C are 0.
- a2a3: dst u8; src i32/f16/f32; per row ``ceil(C/E)`` full-mask repeats of ``vcmpv_<mode>``
  compare the storage after the valid columns too (the row's padding, the next rows, whatever UB
  holds): the mask row gets ``ceil(C/E)*E/8`` bytes including those **garbage** bits. int32
  always compares EQ whatever the mode. NE = EQ then one count-mode ``vnot`` over the
  ``R * dst.Cols`` bytes of the mask rows (the unwritten padding bytes of those rows are inverted
  too).
- a5: every dtype (8/16/32/64-bit, bf16); predicate stores of 16 bytes (128 elements) per store,
  32 bytes (256 elements) for 1-byte data; bits past C are 0 (assumed, as the reference says);
  dst u8 or u32 (u32 per docs; the bits are addressed as bytes either way).

TCMPS(dst, src0, scalar_or_tile, cmp_mode):
- cpu: EQ is ``|a - b| < 1e-9`` and NE ``a or b NaN, or |a - b| > 1e-9`` in double (a
  tolerance, not bit equality; equal infinities differ by NaN: neither EQ nor NE), the others
  exact; packing: ``src0.Cols // 8`` bytes per *source* row (bits of
  columns >= C are 0) laid into dst row-major with **dst.valid_col bytes per dst row**, only bytes
  inside dst's valid region written, dst zeroed first; dst u8. The tile form compares
  elementwise.
- a2a3: src i32/f32/f16/u16/i16; i16/u16 data and scalar are compared **as half bit patterns**;
  int32 always EQ; the tile form reads only ``src1[0]`` (a scalar load after V->S); packing and NE
  as TCMP (``vcmpvs_<mode>``).
- a5: as TCMP (the tile form compares elementwise: choice, no a5 kernel in our sources).

TSEL(dst, mask, src0, src1, tmp): ``dst = bit ? src0 : src1`` over dst's valid region;
TSELS(dst, mask, src, tmp, scalar): ``dst = bit ? src : scalar``.
- a2a3/a5 and cpu TSELS: row-aligned: row i uses the bits from mask row i (pitch = mask Cols
  elements); cpu TSELS takes bit ``c mod bits`` of mask element ``(r, c // bits)``, bits =
  8*sizeof(mask dtype) (the same bits for a little-endian byte-addressed mask).
- cpu TSEL: a continuous bit stream over the valid (i, j) in row-major order, 8 bits per mask
  element (its low byte), moving to the next mask row after ``mask.valid_col`` elements; dst,
  src0 and src1 must be one tile type. A stream that outruns the mask's rows keeps reading
  through the mask's layout past the tile (the bytes UB holds there), as the reference does.
dtypes: a2a3 2- and 4-byte types; a5 1/2/4/8-byte; cpu any numeric.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...dtypes import check_scalar_fits
from ...program import emit
from ...tensors import Tile, TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from ..spec import MaskWriter, SelectBits
from .common import VectorInstruction

__all__ = ["TCMP", "TCMPS", "TSEL", "TSELS", "CMP_MODES"]

CMP_MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")
REPEAT_BYTES = 256
CHUNK_REPEATS = 240  # COMPARE_REPEATS issues at most 240 repeats per vcmpv call

_OPS = {
    "EQ": np.equal,
    "NE": np.not_equal,
    "LT": np.less,
    "LE": np.less_equal,
    "GT": np.greater,
    "GE": np.greater_equal,
}


def compare(mode: str, a: np.ndarray, b) -> np.ndarray:
    """``a <mode> b`` with the C operators (NaN: only NE is true)."""
    with np.errstate(invalid="ignore"):
        return _OPS[mode](a, b)


def compare_with_tolerance(mode: str, a: np.ndarray, b, tol: float | None) -> np.ndarray:
    """TCMPS with a tolerance (cpu: 1e-9): EQ/NE as ``|a - b|`` against ``tol`` in double, the
    others exact; ``tol`` None: ``compare``."""
    if tol is None or mode not in ("EQ", "NE"):
        return compare(mode, a, b)
    x = np.asarray(a).astype(np.float64)
    y = np.asarray(b).astype(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.abs(x - y)
        if mode == "EQ":
            return d < tol
        # NE is true for a NaN operand, not for a NaN difference (inf - inf): then d > tol is
        # false, as in the reference's ``fabs(diff) > 1e-9``
        return np.isnan(x) | np.isnan(y) | (d > tol)


def pack_bits(flags: np.ndarray) -> np.ndarray:
    """Rows of booleans -> rows of bytes, LSB first (bit b of byte k = column 8k + b)."""
    return np.packbits(np.asarray(flags, dtype=bool), axis=-1, bitorder="little")


def _bytes(ctx: ExecContext, ref: TileRef, offset: int, n: int) -> np.ndarray:
    """Writable uint8 view of ``n`` bytes of ``ref``'s memory from ``ref.address + offset``."""
    return ctx.memory_of(ref).typed(ref.address + offset, D.uint8, n, what=f"{ref.name} bytes")


def _as_half(values: np.ndarray) -> np.ndarray:
    """i16/u16 bit patterns seen as half (``CompareRules.tcmps_b16_as_half``)."""
    return np.ascontiguousarray(values).view(np.float16)


class _Cmp(VectorInstruction):
    """TCMP / TCMPS: compare to a bit mask (module doc)."""

    reads = ("src0", "src1")
    writes = ("dst",)

    def __init__(self, dst: TileRef, src0: TileRef, src1, cmp_mode: str):
        self.dst, self.src0, self.cmp_mode = dst, src0, cmp_mode
        self.src1 = src1 if isinstance(src1, TileRef) else None
        self.scalar = None if isinstance(src1, TileRef) else src1

    def effective_mode(self, arch: Arch) -> str:
        """``CompareRules.int32_eq_only`` (a2a3) compares int32 with EQ whatever the mode
        (NE = EQ + vnot)."""
        if arch.spec.compare.int32_eq_only and self.src0.dtype is D.int32 and self.cmp_mode != "NE":
            return "EQ"
        return self.cmp_mode

    def _reads_first_element(self, arch: Arch) -> bool:
        """TCMPS(dst, src0, tile) compares with tile[0] (a scalar load after V -> S)."""
        return arch.spec.compare.tcmps_tile_reads_first and self.opcode == "TCMPS"

    def validate(self, arch: Arch) -> None:
        rules = arch.spec.compare
        self.require_defined(arch)
        d, s0 = self.dst, self.src0
        self.require(self.cmp_mode in CMP_MODES, "cmp_mode", "cmp-mode", CMP_MODES, self.cmp_mode)
        self.require_vec("dst", d, arch)
        self.require_vec("src0", s0, arch)
        self.require_element_dtype("src0", s0, arch)
        dsts = rules.tcmps_mask_dtypes if self.opcode == "TCMPS" else rules.mask_dtypes
        self.require_dtype("dst", d.dtype, dsts, rule="mask-dtype")
        u8_src = rules.u8_mask_src_dtypes
        if u8_src is not None and self.opcode == "TCMP" and d.dtype is D.uint8:
            self.require_dtype("src0", s0.dtype, u8_src, detail="u8 mask dst")
        if self.src1 is not None:
            self.require_vec("src1", self.src1, arch)
            self.require_same_dtype("src0", s0, "src1", self.src1)
            if not self._reads_first_element(arch):
                self.require_same_valid("src0", s0, "src1", self.src1)
        else:
            self.scalar = check_scalar_fits(self, "scalar", self.scalar, s0.dtype)
        self.require(
            d.valid_row == s0.valid_row,
            "dst",
            "mask-rows",
            f"valid_row == src0 valid_row {s0.valid_row}",
            d.valid_row,
        )

    # -- semantics ---------------------------------------------------------------------
    def _rhs(self, ctx: ExecContext, rows, cols):
        if self.src1 is None:
            return self.scalar
        s1 = self.src1
        return ctx.tile_storage(s1)[s1.offsets(rows, cols)]

    def execute(self, ctx: ExecContext) -> None:
        writer = ctx.spec.compare.mask_writer
        if writer is MaskWriter.REFERENCE_WORDS:
            self._reference_words(ctx)
        elif writer is MaskWriter.COMPARE_REPEATS:
            self._compare_repeats(ctx)
        else:
            self._predicate_stores(ctx)

    def _reference_words(self, ctx: ExecContext) -> None:
        d, s0 = self.dst, self.src0
        R, C = s0.valid
        store = ctx.tile_storage(d)
        store[:] = 0
        if R == 0 or C == 0:
            return
        r, c = s0.geom.grid(R, C)
        a = ctx.tile_storage(s0)[s0.offsets(r, c)]
        if self.opcode == "TCMP":
            flags = compare(self.cmp_mode, a, self._rhs(ctx, r, c))
            bits = 8 * d.dtype.size_bytes
            words = min(-(-C // bits), d.valid_col)
            padded = np.zeros((R, -(-C // bits) * bits), dtype=bool)
            padded[:, :C] = flags
            packed = pack_bits(padded).view(np.uint8)  # little-endian words
            vals = np.ascontiguousarray(packed).view(d.dtype.np)[:, :words]
            rr, cc = d.geom.grid(R, words)
            store[d.offsets(rr, cc)] = vals
            return
        tol = ctx.spec.compare.tcmps_tolerance
        flags = compare_with_tolerance(self.cmp_mode, a, self._rhs(ctx, r, c), tol)
        per_row = s0.cols // 8
        full = np.zeros((R, per_row * 8), dtype=bool)
        n = min(C, per_row * 8)
        full[:, :n] = flags[:, :n]
        stream = pack_bits(full).ravel()
        width = d.valid_col
        if width == 0:
            return
        t = np.arange(stream.size)
        dr, dc = t // width, t % width
        keep = dr < d.valid_row
        store[d.offsets(dr[keep], dc[keep])] = stream[keep]

    def _npu_flags(self, ctx: ExecContext, R: int, n: int) -> np.ndarray:
        """Compare ``n`` consecutive elements from each src0 row start (the NPU reads whole
        repeats / vectors: past the valid columns as well)."""
        s0, rules = self.src0, ctx.spec.compare
        mode = self.effective_mode(ctx.arch)
        repeats = rules.mask_writer is MaskWriter.COMPARE_REPEATS
        mode = "EQ" if (repeats and mode == "NE") else mode  # NE: EQ, then a vnot
        mem0 = ctx.memory_from(s0)
        idx = np.arange(R)[:, None] * s0.cols + np.arange(n)[None, :]
        a = mem0[idx]
        if self.src1 is None or self._reads_first_element(ctx.arch):
            b = self.scalar if self.src1 is None else ctx.tile_storage(self.src1)[0]
        else:
            b = ctx.memory_from(self.src1)[np.arange(R)[:, None] * self.src1.cols + np.arange(n)]
        b16 = s0.dtype in (D.int16, D.uint16)
        if rules.tcmps_b16_as_half and self.opcode == "TCMPS" and b16:
            a = _as_half(a)
            b = _as_half(np.asarray([b], dtype=s0.dtype.np))[0]
        if self.opcode == "TCMPS":
            return compare_with_tolerance(mode, a, b, rules.tcmps_tolerance)
        return compare(mode, a, b)

    def _compare_repeats(self, ctx: ExecContext) -> None:
        d, s0 = self.dst, self.src0
        R, C = s0.valid
        if R == 0 or C == 0:
            return
        E = REPEAT_BYTES // s0.dtype.size_bytes
        n = -(-C // E) * E  # whole repeats: garbage bits past C
        packed = pack_bits(self._npu_flags(ctx, R, n))
        pitch = d.cols * d.dtype.size_bytes
        for i in range(R):
            _bytes(ctx, d, i * pitch, packed.shape[1])[:] = packed[i]
        if self.cmp_mode == "NE":  # one count-mode vnot over the R mask rows
            rows = _bytes(ctx, d, 0, R * pitch)
            rows[:] = ~rows

    def _predicate_stores(self, ctx: ExecContext) -> None:
        d, s0 = self.dst, self.src0
        R, C = s0.valid
        if R == 0 or C == 0:
            return
        per_store = 256 if s0.dtype.size_bytes == 1 else 128
        n = -(-C // per_store) * per_store
        flags = np.zeros((R, n), dtype=bool)
        flags[:, :C] = self._npu_flags(ctx, R, C)
        packed = pack_bits(flags)
        pitch = d.cols * d.dtype.size_bytes
        for i in range(R):
            _bytes(ctx, d, i * pitch, packed.shape[1])[:] = packed[i]

    def mask_bytes_per_row(self, arch: Arch) -> int:
        """Bytes of a mask row the NPU writes (``COMPARE_REPEATS``: whole repeats;
        ``PREDICATE_STORES``: whole stores)."""
        C = self.src0.valid_col
        if arch.spec.compare.mask_writer is MaskWriter.COMPARE_REPEATS:
            E = REPEAT_BYTES // self.src0.dtype.size_bytes
            return -(-C // E) * E // 8
        per_store = 256 if self.src0.dtype.size_bytes == 1 else 128
        return -(-C // per_store) * per_store // 8


class TCmp(_Cmp):
    opcode = "TCMP"


class TCmpS(_Cmp):
    opcode = "TCMPS"


# -- select -----------------------------------------------------------------------------------
class _Sel(VectorInstruction):
    """TSEL / TSELS: select with a bit mask (module doc)."""

    reads = ("mask", "src0", "src1")
    writes = ("dst", "tmp")

    def validate(self, arch: Arch) -> None:
        rules = arch.spec.compare
        self.require_defined(arch)
        d = self.dst
        self.require_vec("dst", d, arch)
        self.require_vec("mask", self.mask, arch)
        self.require_element_dtype("dst", d, arch)
        self.require(
            self.mask.dtype.is_int,
            "mask",
            "mask-dtype",
            "an integer mask tile (bits LSB first)",
            self.mask.dtype.name,
        )
        for name in ("src0", "src1"):
            ref = getattr(self, name, None)
            if ref is None:
                continue
            self.require_vec(name, ref, arch)
            self.require_same_dtype("dst", d, name, ref)
            self.require_same_valid("dst", d, name, ref)
            if rules.select_same_tile_type and self.opcode == "TSEL":
                self.require(
                    (ref.rows, ref.cols) == (d.rows, d.cols),
                    name,
                    "same-tile-type",
                    f"the tile type of dst ({d.rows} x {d.cols})",
                    f"{ref.rows} x {ref.cols}",
                )
        if self.tmp is not None:
            self.require_loc("tmp", self.tmp)
        elif rules.select_tmp_required:
            self.fail(
                "tmp",
                "tmp-required",
                f"a tmp tile ({arch.target} loads the cmpmask through it)",
                None,
            )
        if self.opcode == "TSELS":
            self.scalar = check_scalar_fits(self, "scalar", self.scalar, d.dtype)

    def _bits(self, ctx: ExecContext, R: int, C: int) -> np.ndarray:
        """(R, C) booleans: the mask bit of each dst element on this target."""
        m = self.mask
        stream = ctx.spec.compare.select_bits is SelectBits.CONTINUOUS_STREAM
        if stream and self.opcode == "TSEL":  # continuous stream of low bytes
            p = np.arange(R * C)
            e = p // 8
            vc = m.valid_col
            # a mask with valid_col 0 never wraps: the reference's column index only grows
            mr, mc = (e // vc, e % vc) if vc else (np.zeros_like(e), e)
            offsets = m.offsets(mr, mc)
            # a stream longer than the mask's valid region goes on through the mask's layout
            # past its last row, into whatever UB holds there, as the reference reads it
            count = max(int(offsets.max()) + 1, m.numel)
            words = ctx.memory_of(m).typed(m.address, m.dtype, count, what=f"{self.label} mask")
            low = words[offsets].astype(np.int64) & 0xFF
            return (((low >> (p % 8)) & 1) == 1).reshape(R, C)
        pitch = m.cols * m.dtype.size_bytes
        raw = ctx.memory_of(m).typed(m.address, D.uint8, what=f"{m.name} bytes")
        j = np.arange(C)
        idx = np.arange(R)[:, None] * pitch + (j // 8)[None, :]
        return ((raw[idx] >> (j % 8)) & 1) == 1

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        if R == 0 or C == 0:
            return
        r, c = d.geom.grid(R, C)
        flags = self._bits(ctx, R, C)
        a = ctx.tile_storage(self.src0)[self.src0.offsets(r, c)]
        if self.opcode == "TSEL":
            b = ctx.tile_storage(self.src1)[self.src1.offsets(r, c)]
        else:
            b = np.full((R, C), self.scalar, dtype=d.dtype.np)
            if ctx.spec.compare.select_scalar_in_tmp:  # tmp[0] = scalar, for set_cmpmask
                raw = np.asarray([self.scalar], dtype=d.dtype.np).view(np.uint8)
                t = self.tmp
                ctx.memory_of(t).typed(t.address, D.uint8, raw.size, what=self.label)[:] = raw
        ctx.tile_storage(d)[d.offsets(r, c)] = np.where(flags, a, b)


class TSel(_Sel):
    opcode = "TSEL"

    def __init__(self, dst, mask, src0, src1, tmp):
        self.dst, self.mask, self.src0, self.src1, self.tmp = dst, mask, src0, src1, tmp


class TSelS(_Sel):
    opcode = "TSELS"

    def __init__(self, dst, mask, src, tmp, scalar):
        self.dst, self.mask, self.src0, self.tmp, self.scalar = dst, mask, src, tmp, scalar
        self.src1 = None


# -- the kernel-facing API ------------------------------------------------------------------
def _opt(value, what):
    return None if value is None else _tile(value, what)


@instruction(
    family="compare / select",
    summary="dst = bit mask of (src0 <cmp_mode> src1), LSB first per row",
)
def TCMP(dst, src0, src1, cmp_mode="EQ") -> None:
    """Compare two tiles into a bit mask (module doc); ``cmp_mode`` is a CmpMode name."""
    emit(TCmp(_tile(dst, "TCMP dst"), _tile(src0, "TCMP src0"), _tile(src1, "TCMP src1"), cmp_mode))


@instruction(
    family="compare / select",
    summary="dst = bit mask of (src0 <cmp_mode> scalar) (or a tile: see notes)",
)
def TCMPS(dst, src0, src1, cmp_mode="EQ") -> None:
    """Compare a tile with a scalar (or, the second overload, a tile) into a bit mask."""
    rhs = _tile(src1, "TCMPS src1") if isinstance(src1, Tile) else src1
    emit(TCmpS(_tile(dst, "TCMPS dst"), _tile(src0, "TCMPS src0"), rhs, cmp_mode))


@instruction(family="compare / select", summary="dst = mask bit ? src0 : src1")
def TSEL(dst, mask, src0, src1, tmp=None) -> None:
    """Select per element with a bit mask (module doc)."""
    emit(
        TSel(
            _tile(dst, "TSEL dst"),
            _tile(mask, "TSEL mask"),
            _tile(src0, "TSEL src0"),
            _tile(src1, "TSEL src1"),
            _opt(tmp, "TSEL tmp"),
        )
    )


@instruction(family="compare / select", summary="dst = mask bit ? src : scalar")
def TSELS(dst, mask, src, tmp, scalar) -> None:
    """Select between a tile and a scalar with a bit mask (module doc)."""
    emit(
        TSelS(
            _tile(dst, "TSELS dst"),
            _tile(mask, "TSELS mask"),
            _tile(src, "TSELS src"),
            _opt(tmp, "TSELS tmp"),
            scalar,
        )
    )
