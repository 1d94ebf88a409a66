"""TQUANT (INT8 forms), TDEQUANT (vector_isa.md 3.15, 4 item 12) and TCI (3.21, 4 item 10).

TQUANT(dst, src, scale, tmp=None, offset=None, *, quant="INT8_SYM"): src f32, per row
``v = src[i, j] * s_i`` (+ ``z_i`` for INT8_ASYM), each step rounded to f32, with
``s_i = scale(min(i, scale.valid_row - 1), 0)`` (an *inverse* scale) and ``z_i`` from offset the
same way; dst int8 = ``clamp(rint(v), -128, 127)`` (SYM) or uint8 = ``clamp(rint(v), 0, 255)``
(ASYM), ties to even.
- cpu, a5 (choice: no a5 lowering in our sources): that formula.
- a2a3 (``LayoutRules.quant_via_tcvt``): requires tmp and **clobbers src**: src's valid region
  becomes ``v`` (TROWEXPANDMUL / TROWEXPANDADD in place), then ``TCVT f32->i32 (RINT)`` into tmp
  (int32 at src's pitch), ``TCVT i32->f16 (RINT)`` into src's storage (half at src's pitch in
  elements, over the first bytes of each row: choice), ``TCVT f16->i8/u8 (RINT, saturating)`` into
  dst. Equal to the formula for ``|v| < 2048``; beyond, the f16 step rounds (e.g. 2049 -> 2048
  before clamping).
- Every target reads ``scale(i, 0)`` (a mode-2 block scale with different values per column
  is not modelled).
MX forms (``quant="MXFP8"`` / ``"MXFP4_E2M1"`` with ``exp``, ``group_max``, ``scaling`` tiles and
``scale_alg``): ``mxquant.py``.

TDEQUANT(dst, src, scale, offset): dst f32, src i8/i16, scale/offset f32 of one tile type;
``dst[i, j] = (f32(src[i, j]) - offset[i, p]) * scale[i, p]`` with
``p = min(j, max(1, scale.valid_col) - 1)``, each step rounded to f32 (cpu). a2a3 and a5
(``LayoutRules.dequant_row_params``) read one offset/scale per row, element ``[i, 0]`` through
the parameter tile's layout (``i * RowStride``: a2a3 scalars for ``vadds``/``vmuls``, a5 a
broadcast load), which is the same for the usual one-column parameters; the parameter tiles
may have any layout there (the library's a5 test passes ColMajor ``R x 1`` tiles), only dst
and src must be row-major.

TCI(dst, start, tmp=None, *, descending=False): 1-row tiles (static Rows == 1):
``dst[0, j] = start + j`` (``start - j`` descending) for j < valid_col, in T (integers wrap).
cpu any numeric T; a2a3 2/4-byte integer T: without tmp a scalar loop, with tmp a vector
construction that for descending produces ``-(start + j)`` (the reference's divergence;
``LayoutRules.tci_tmp_bytes``); a5 ``vci`` on int16/uint16/int32/uint32, tmp ignored.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...dtypes import check_scalar_fits
from ...program import emit
from ...tensors import TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from .common import VectorInstruction, round_to, wrap_to
from .convert import Conversion
from .mxquant import MX_QUANTS, TQuantMx

__all__ = ["TQUANT", "TDEQUANT", "TCI", "QUANT_MODES", "MX_MODES"]

QUANT_MODES = ("INT8_SYM", "INT8_ASYM")
MX_MODES = MX_QUANTS


def _row_param(ctx: ExecContext, ref: TileRef, R: int) -> np.ndarray:
    """``ref(min(i, valid_row - 1), 0)`` for i < R, as f32."""
    i = np.minimum(np.arange(R), max(ref.valid_row, 1) - 1)
    return ctx.tile_storage(ref)[ref.offsets(i, np.zeros_like(i))].astype(np.float32)


class TQuant(VectorInstruction):
    opcode = "TQUANT"
    reads = ("src", "scale", "offset")
    writes = ("dst", "src", "tmp")

    def __init__(self, dst, src, scale, tmp, offset, quant):
        self.dst, self.src, self.scale, self.tmp, self.offset = dst, src, scale, tmp, offset
        self.quant = quant

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        self.require(self.scale is not None, "scale", "operand-required", "a tile", None)
        self.require(self.quant in QUANT_MODES, "quant", "quant-mode", QUANT_MODES, self.quant)
        d, s = self.dst, self.src
        for name in ("dst", "src", "scale"):
            self.require_vec(name, getattr(self, name), arch, row_major=name != "scale")
        self.require_dtype("src", s.dtype, (D.float32,))
        self.require_dtype("scale", self.scale.dtype, (D.float32,))
        want = D.int8 if self.quant == "INT8_SYM" else D.uint8
        self.require_dtype("dst", d.dtype, (want,), detail=self.quant)
        self.require_same_valid("dst", d, "src", s)
        if self.quant == "INT8_ASYM":
            self.require(self.offset is not None, "offset", "offset-required", "a tile", None)
        if self.offset is not None:
            self.require_vec("offset", self.offset, arch, row_major=False)
            self.require_dtype("offset", self.offset.dtype, (D.float32,))
        if arch.spec.layout.quant_via_tcvt:
            self.require(
                self.tmp is not None, "tmp", "tmp-required", f"a tmp tile on {arch.target}", None
            )

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        R, C = d.valid
        if R == 0 or C == 0:
            return
        r, c = d.geom.grid(R, C)
        x = ctx.tile_storage(s)[s.offsets(r, c)].astype(np.float32)
        with np.errstate(all="ignore"):
            v = x * _row_param(ctx, self.scale, R)[:, None]
            if self.quant == "INT8_ASYM":
                v = v + _row_param(ctx, self.offset, R)[:, None]
        lo, hi = (-128, 127) if self.quant == "INT8_SYM" else (0, 255)
        if not ctx.spec.layout.quant_via_tcvt:
            q = np.clip(np.nan_to_num(np.rint(v.astype(np.float64))), lo, hi)
            ctx.tile_storage(d)[d.offsets(r, c)] = q.astype(d.dtype.np)
            return

        cvt = ctx.spec.convert
        ctx.tile_storage(s)[s.offsets(r, c)] = v
        i32 = Conversion(cvt, D.float32, D.int32, "CAST_RINT", None, None).convert(v)[0]
        idx = r * s.cols + c
        t = self.tmp
        tmp32 = ctx.memory_of(t).typed(t.address, D.int32, int(idx.max()) + 1, what=self.label)
        tmp32[idx] = i32
        h = Conversion(cvt, D.int32, D.half, "CAST_RINT", None, None).convert(i32)[0]
        ctx.memory_of(s).typed(s.address, D.half, int(idx.max()) + 1, what=self.label)[idx] = h
        out = Conversion(cvt, D.half, d.dtype, "CAST_RINT", "ON", None).convert(h)[0]
        ctx.tile_storage(d)[d.offsets(r, c)] = out


class TDequant(VectorInstruction):
    opcode = "TDEQUANT"
    reads = ("src", "scale", "offset")
    writes = ("dst",)

    def __init__(self, dst, src, scale, offset):
        self.dst, self.src, self.scale, self.offset = dst, src, scale, offset

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        for name in ("dst", "src", "scale", "offset"):  # only dst and src must be row-major
            self.require_vec(name, getattr(self, name), arch, row_major=name in ("dst", "src"))
        self.require_dtype("dst", self.dst.dtype, (D.float32,))
        self.require_dtype("src", self.src.dtype, (D.int8, D.int16))
        self.require_dtype("scale", self.scale.dtype, (D.float32,))
        self.require_same_dtype("scale", self.scale, "offset", self.offset)
        self.require_same_valid("dst", self.dst, "src", self.src)
        self.require(
            self.scale.valid_row >= self.dst.valid_row,
            "scale",
            "scale-rows",
            f"valid_row >= {self.dst.valid_row}",
            self.scale.valid_row,
        )

    def execute(self, ctx: ExecContext) -> None:
        d, s, sc, off = self.dst, self.src, self.scale, self.offset
        R, C = d.valid
        if R == 0 or C == 0:
            return
        r, c = d.geom.grid(R, C)
        x = ctx.tile_storage(s)[s.offsets(r, c)].astype(np.float32)
        if ctx.spec.layout.dequant_row_params:
            p = np.zeros_like(c)
        else:
            p = np.minimum(c, max(1, sc.valid_col) - 1)
        k = ctx.tile_storage(sc)[sc.offsets(r, p)].astype(np.float32)
        z = ctx.tile_storage(off)[off.offsets(r, p)].astype(np.float32)
        with np.errstate(all="ignore"):
            ctx.tile_storage(d)[d.offsets(r, c)] = (x - z) * k


class TCi(VectorInstruction):
    opcode = "TCI"
    writes = ("dst", "tmp")

    def __init__(self, dst, start, tmp, descending: bool):
        self.dst, self.start, self.tmp, self.descending = dst, start, tmp, descending

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d = self.dst
        self.require_vec("dst", d, arch)
        self.require_element_dtype("dst", d, arch)
        self.require(d.rows == 1, "dst", "one-row", "a tile with static Rows == 1", d.rows)
        self.start = check_scalar_fits(self, "start", self.start, d.dtype)
        tmp_bytes = arch.spec.layout.tci_tmp_bytes
        if self.tmp is not None:
            self.require_loc("tmp", self.tmp)
            if tmp_bytes is not None:
                need = tmp_bytes[d.dtype.size_bytes]
                self.require(
                    self.tmp.size_bytes >= need,
                    "tmp",
                    "tmp-size",
                    f">= {need} bytes",
                    self.tmp.size_bytes,
                )

    def negated(self, arch: Arch) -> bool:
        """With tmp on a target whose TCI uses it (a2a3), descending: the vector path gives
        -(start + j)."""
        return (
            arch.spec.layout.tci_tmp_bytes is not None
            and self.tmp is not None
            and (self.descending)
        )

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        C = d.valid_col
        if C == 0 or d.valid_row == 0:
            return
        j = np.arange(C)
        dt = d.dtype
        if dt.is_int:
            base = int(self.start)
            if self.negated(ctx.arch):
                vals = -(base + j)
            else:
                vals = base - j if self.descending else base + j
            out = wrap_to(np.asarray(vals, dtype=np.int64), dt)
        else:
            step = -j if self.descending else j
            out = round_to(float(self.start) + step.astype(np.float64), dt)
        r, c = d.geom.grid(1, C)
        ctx.tile_storage(d)[d.offsets(r, c)] = out.reshape(1, C)


# -- the kernel-facing API ------------------------------------------------------------------
def _opt(value, what):
    return None if value is None else _tile(value, what)


@instruction(
    family="conversion",
    summary="dst = clamp(rint(src * scale (+ offset))) as int8/uint8 (INT8_SYM / INT8_ASYM); "
    "MXFP8 / MXFP4_E2M1 with a shared exponent per 32 elements",
)
def TQUANT(
    dst,
    src,
    scale=None,
    tmp=None,
    offset=None,
    *,
    quant="INT8_SYM",
    exp=None,
    group_max=None,
    scaling=None,
    exp_zz=None,
    scale_alg="OCP",
) -> None:
    """Quantise f32 to int8/uint8 with per-row inverse scales (module doc), or, for
    ``quant="MXFP8"`` / ``"MXFP4_E2M1"``, f32/f16/bf16 to E4M3 bytes / packed E2M1 with one
    E8M0 exponent per group of 32 into ``exp``, the groups' largest magnitudes into
    ``group_max`` and their scalings into ``scaling`` (``scale_alg`` "OCP" or "NV";
    ``exp_zz``: the NZ-reordered exponents, cpu; mxquant.py)."""
    if quant in MX_QUANTS:
        emit(
            TQuantMx(
                _tile(dst, "TQUANT dst"),
                _tile(src, "TQUANT src"),
                _opt(exp, "TQUANT exp"),
                _opt(group_max, "TQUANT group_max"),
                _opt(scaling, "TQUANT scaling"),
                _opt(exp_zz, "TQUANT exp_zz"),
                quant,
                scale_alg,
            )
        )
        return
    emit(
        TQuant(
            _tile(dst, "TQUANT dst"),
            _tile(src, "TQUANT src"),
            _opt(scale, "TQUANT scale"),
            _opt(tmp, "TQUANT tmp"),
            _opt(offset, "TQUANT offset"),
            quant,
        )
    )


@instruction(
    family="conversion",
    summary="dst = (f32(src) - offset) * scale, per-row parameters",
)
def TDEQUANT(dst, src, scale, offset) -> None:
    """Dequantise int8/int16 to f32 (module doc)."""
    emit(
        TDequant(
            _tile(dst, "TDEQUANT dst"),
            _tile(src, "TDEQUANT src"),
            _tile(scale, "TDEQUANT scale"),
            _tile(offset, "TDEQUANT offset"),
        )
    )


@instruction(
    family="conversion",
    summary="dst[0, j] = start + j (or start - j descending), 1-row tiles",
)
def TCI(dst, start, tmp=None, *, descending=False) -> None:
    """Index sequence into a 1-row tile (module doc)."""
    emit(TCi(_tile(dst, "TCI dst"), start, _opt(tmp, "TCI tmp"), bool(descending)))
