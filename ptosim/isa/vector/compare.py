"""Compare to a bit mask and select with it: TCMP, TCMPS, TSEL, TSELS (vector_isa.md 3.19, 3.20,
4 items 4 and 5).

Mask format (every target): bit-packed, LSB first: bit b of mask byte k of row i is the result
for column 8k + b; row i of the mask starts at dst row i (row pitch = dst Cols elements).

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
- cpu: EQ is ``|a - b| < 1e-9`` and NE ``NaN or |a - b| > 1e-9`` in double (a tolerance, not
  bit equality), the others exact; packing: ``src0.Cols // 8`` bytes per *source* row (bits of
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
  src0 and src1 must be one tile type.
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
from .common import VectorInstruction

__all__ = ["TCMP", "TCMPS", "TSEL", "TSELS", "CMP_MODES"]

CMP_MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")
REPEAT_BYTES = 256
CHUNK_REPEATS = 240  # a2a3 issues at most 240 repeats per vcmpv call
CPU_TCMPS_TOL = 1e-9

_NUMERIC = tuple(d for d in D.ALL if d.kind != "opaque")
_TCMP_SRC = {
    "cpu": (D.int32, D.half, D.float32, D.uint32, D.uint16, D.int16, D.uint8, D.int8, D.bfloat16),
    "a2a3": (D.int32, D.half, D.float32),
    "a5": _NUMERIC,
}
_TCMP_CPU_U8_SRC = (D.int32, D.half, D.float32)
_TCMPS_SRC = {
    "cpu": _NUMERIC,
    "a2a3": (D.int32, D.float32, D.half, D.uint16, D.int16),
    "a5": _NUMERIC,
}
_MASK_DST = {"cpu": (D.uint8, D.uint32), "a2a3": (D.uint8,), "a5": (D.uint8, D.uint32)}
_SEL = {
    "cpu": _NUMERIC,
    "a2a3": (D.int16, D.uint16, D.int32, D.uint32, D.half, D.bfloat16, D.float32),
    "a5": tuple(d for d in _NUMERIC if d.size_bytes in (1, 2, 4, 8)),
}

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


def compare_cpu_scalar(mode: str, a: np.ndarray, b) -> np.ndarray:
    """The cpu TCMPS rule: EQ/NE with a 1e-9 tolerance in double, the others exact."""
    if mode not in ("EQ", "NE"):
        return compare(mode, a, b)
    x = np.asarray(a).astype(np.float64)
    y = np.asarray(b).astype(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.abs(x - y)
        if mode == "EQ":
            return d < CPU_TCMPS_TOL
        return np.isnan(d) | (d > CPU_TCMPS_TOL)


def pack_bits(flags: np.ndarray) -> np.ndarray:
    """Rows of booleans -> rows of bytes, LSB first (bit b of byte k = column 8k + b)."""
    return np.packbits(np.asarray(flags, dtype=bool), axis=-1, bitorder="little")


def _bytes(ctx: ExecContext, ref: TileRef, offset: int, n: int) -> np.ndarray:
    """Writable uint8 view of ``n`` bytes of ``ref``'s memory from ``ref.address + offset``."""
    return ctx.memory_of(ref).typed(ref.address + offset, D.uint8, n, what=f"{ref.name} bytes")


def _as_half(values: np.ndarray) -> np.ndarray:
    """i16/u16 bit patterns seen as half (the a2a3 TCMPS reinterpretation)."""
    return np.ascontiguousarray(values).view(np.float16)


class _Cmp(VectorInstruction):
    """TCMP / TCMPS: compare to a bit mask (module doc)."""

    reads = ("src0", "src1")
    writes = ("dst",)

    def __init__(self, dst: TileRef, src0: TileRef, src1, cmp_mode: str):
        self.dst, self.src0, self.cmp_mode = dst, src0, cmp_mode
        self.src1 = src1 if isinstance(src1, TileRef) else None
        self.scalar = None if isinstance(src1, TileRef) else src1

    def effective_mode(self, target: str) -> str:
        """a2a3 compares int32 with EQ whatever the mode (NE = EQ + vnot)."""
        if target == "a2a3" and self.src0.dtype is D.int32 and self.cmp_mode != "NE":
            return "EQ"
        return self.cmp_mode

    def validate(self, arch: Arch) -> None:
        t = arch.target
        self.require_defined(arch)
        d, s0 = self.dst, self.src0
        self.require(self.cmp_mode in CMP_MODES, "cmp_mode", "cmp-mode", CMP_MODES, self.cmp_mode)
        self.require_vec("dst", d, arch)
        self.require_vec("src0", s0, arch)
        self.require_element_dtype("src0", s0, arch)
        dsts = (D.uint8,) if (t == "cpu" and self.opcode == "TCMPS") else _MASK_DST[t]
        self.require_dtype("dst", d.dtype, dsts, rule="mask-dtype")
        if t == "cpu" and self.opcode == "TCMP" and d.dtype is D.uint8:
            self.require_dtype("src0", s0.dtype, _TCMP_CPU_U8_SRC, detail="u8 mask dst")
        if self.src1 is not None:
            self.require_vec("src1", self.src1, arch)
            self.require_same_dtype("src0", s0, "src1", self.src1)
            if not (t == "a2a3" and self.opcode == "TCMPS"):
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
        {"cpu": self._cpu, "a2a3": self._a2a3, "a5": self._a5}[ctx.target](ctx)

    def _cpu(self, ctx: ExecContext) -> None:
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
        flags = compare_cpu_scalar(self.cmp_mode, a, self._rhs(ctx, r, c))
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

    def _npu_flags(self, ctx: ExecContext, R: int, n: int, target: str) -> np.ndarray:
        """Compare ``n`` consecutive elements from each src0 row start (the NPU reads whole
        repeats / vectors: past the valid columns as well)."""
        s0 = self.src0
        mode = self.effective_mode(target)
        mode = "EQ" if (target == "a2a3" and mode == "NE") else mode
        mem0 = ctx.memory_from(s0)
        idx = np.arange(R)[:, None] * s0.cols + np.arange(n)[None, :]
        a = mem0[idx]
        if self.src1 is None or (target == "a2a3" and self.opcode == "TCMPS"):
            b = self.scalar if self.src1 is None else ctx.tile_storage(self.src1)[0]
        else:
            b = ctx.memory_from(self.src1)[np.arange(R)[:, None] * self.src1.cols + np.arange(n)]
        if target == "a2a3" and self.opcode == "TCMPS" and s0.dtype in (D.int16, D.uint16):
            a = _as_half(a)
            b = _as_half(np.asarray([b], dtype=s0.dtype.np))[0]
        return compare(mode, a, b)

    def _a2a3(self, ctx: ExecContext) -> None:
        d, s0 = self.dst, self.src0
        R, C = s0.valid
        if R == 0 or C == 0:
            return
        E = REPEAT_BYTES // s0.dtype.size_bytes
        n = -(-C // E) * E  # whole repeats: garbage bits past C
        packed = pack_bits(self._npu_flags(ctx, R, n, "a2a3"))
        pitch = d.cols * d.dtype.size_bytes
        for i in range(R):
            _bytes(ctx, d, i * pitch, packed.shape[1])[:] = packed[i]
        if self.cmp_mode == "NE":  # one count-mode vnot over the R mask rows
            rows = _bytes(ctx, d, 0, R * pitch)
            rows[:] = ~rows

    def _a5(self, ctx: ExecContext) -> None:
        d, s0 = self.dst, self.src0
        R, C = s0.valid
        if R == 0 or C == 0:
            return
        per_store = 256 if s0.dtype.size_bytes == 1 else 128
        n = -(-C // per_store) * per_store
        flags = np.zeros((R, n), dtype=bool)
        flags[:, :C] = self._npu_flags(ctx, R, C, "a5")
        packed = pack_bits(flags)
        pitch = d.cols * d.dtype.size_bytes
        for i in range(R):
            _bytes(ctx, d, i * pitch, packed.shape[1])[:] = packed[i]

    def mask_bytes_per_row(self, target: str) -> int:
        """Bytes of a mask row the NPU writes (a2a3: whole repeats; a5: whole stores)."""
        C = self.src0.valid_col
        if target == "a2a3":
            E = REPEAT_BYTES // self.src0.dtype.size_bytes
            return -(-C // E) * E // 8
        per_store = 256 if self.src0.dtype.size_bytes == 1 else 128
        return -(-C // per_store) * per_store // 8


class TCmp(_Cmp):
    opcode = "TCMP"
    DTYPES = _TCMP_SRC


class TCmpS(_Cmp):
    opcode = "TCMPS"
    DTYPES = _TCMPS_SRC


# -- select -----------------------------------------------------------------------------------
class _Sel(VectorInstruction):
    """TSEL / TSELS: select with a bit mask (module doc)."""

    reads = ("mask", "src0", "src1")
    writes = ("dst", "tmp")
    DTYPES = _SEL

    def validate(self, arch: Arch) -> None:
        t = arch.target
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
            if t == "cpu" and self.opcode == "TSEL":
                self.require(
                    (ref.rows, ref.cols) == (d.rows, d.cols),
                    name,
                    "same-tile-type",
                    f"the tile type of dst ({d.rows} x {d.cols})",
                    f"{ref.rows} x {ref.cols}",
                )
        if self.tmp is not None:
            self.require_loc("tmp", self.tmp)
        elif t == "a2a3":
            self.fail("tmp", "tmp-required", "a tmp tile (a2a3 loads the cmpmask through it)", None)
        if self.opcode == "TSELS":
            self.scalar = check_scalar_fits(self, "scalar", self.scalar, d.dtype)

    def _bits(self, ctx: ExecContext, R: int, C: int) -> np.ndarray:
        """(R, C) booleans: the mask bit of each dst element on this target."""
        m = self.mask
        if ctx.target == "cpu" and self.opcode == "TSEL":  # continuous stream of low bytes
            p = np.arange(R * C)
            e = p // 8
            mr, mc = e // max(m.valid_col, 1), e % max(m.valid_col, 1)
            low = ctx.tile_storage(m)[m.offsets(mr, mc)].astype(np.int64) & 0xFF
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
            if ctx.target == "a2a3":  # the scalar is stored into tmp[0] for set_cmpmask
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
    dtypes=_TCMP_SRC,
    notes={"a2a3": "vcmpv_*; int32 always EQ/NE", "a5": "predicate stores"},
)
def TCMP(dst, src0, src1, cmp_mode="EQ") -> None:
    """Compare two tiles into a bit mask (module doc); ``cmp_mode`` is a CmpMode name."""
    emit(TCmp(_tile(dst, "TCMP dst"), _tile(src0, "TCMP src0"), _tile(src1, "TCMP src1"), cmp_mode))


@instruction(
    family="compare / select",
    summary="dst = bit mask of (src0 <cmp_mode> scalar) (or a tile: see notes)",
    dtypes=_TCMPS_SRC,
    notes={"a2a3": "vcmpvs_*; i16/u16 compared as half; tile form uses src1[0]"},
)
def TCMPS(dst, src0, src1, cmp_mode="EQ") -> None:
    """Compare a tile with a scalar (or, the second overload, a tile) into a bit mask."""
    rhs = _tile(src1, "TCMPS src1") if isinstance(src1, Tile) else src1
    emit(TCmpS(_tile(dst, "TCMPS dst"), _tile(src0, "TCMPS src0"), rhs, cmp_mode))


@instruction(
    family="compare / select",
    summary="dst = mask bit ? src0 : src1",
    dtypes=_SEL,
    notes={"cpu": "mask read as a continuous bit stream"},
)
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


@instruction(
    family="compare / select",
    summary="dst = mask bit ? src : scalar",
    dtypes=_SEL,
)
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
