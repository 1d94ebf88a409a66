"""TQUANT's MX forms: MXFP8 (E4M3 bytes) and MXFP4_E2M1 (packed E2M1 nibbles) with one shared
E8M0 exponent per group of 32 consecutive elements of a row (vector_isa.md 3.15; the number rules
are in ``mx_scale``).

TQUANT(dst, src, exp=, group_max=, scaling=, quant="MXFP8" | "MXFP4_E2M1", scale_alg="OCP" | "NV"):
src f32 / f16 / bf16 (the target's ``MxQuantRules``), RowMajor with Cols a multiple of 32. Its
``valid_row`` rows are quantised over all ``Cols`` columns (pad columns included: the group of a
partial row), G = Cols / 32 groups per row, N = valid_row * G groups, group g = r * G + j. Per
group: ``m`` the largest magnitude, ``e`` the shared exponent, ``s`` the scaling, each element
``x * s`` in f32 (rounded to bf16 for a bf16 source where the target does), encoded.

Outputs: dst element k = r * Cols + c of the flat storage (a byte of an int8 tile for MXFP8, the
one-byte type cpu/TQuant.hpp requires and the 950's tests use; the
nibble ``k % 2`` of byte ``k // 2`` of a float4_e2m1 tile, even elements low); exp the E8M0
byte of (r, j) (uint8 or float8_e8m0); group_max[g] and scaling[g] in their tiles' flat storage.

Per target (``LayoutRules.mx_quant``):
- a5 (npu/a5 TQuant.hpp): a 16-bit source's columns from valid_col to Cols are zeroed in src
  first; NaN in a group makes m NaN (e = 0xFF, every element NaN: 0x7F / 0x7); fp16 sources reduce
  the bf16-truncated magnitudes for OCP; a bf16 source's scaled value is rounded to bf16; E4M3
  keeps a zero's sign; a one-row exp tile holds the groups flat; group_max / scaling of a 16-bit
  source hold bf16 patterns (OCP max and every scaling; NV max in the source type), f32 values
  for an f32 source; MXFP4 sources f16 / bf16.
- cpu (cpu/TQuant.hpp): src read as it is; MXFP8's max skips NaN elements (a running
  ``std::max``), which then encode as 0x7F; MXFP4 OCP reduces bf16-truncated magnitudes; only
  MXFP4 rounds a bf16 source's scaled value to bf16; E4M3 is the code nearest to the clamped value
  (ties to the even code, then the lower code), so a negative value rounding to zero gives 0x00,
  except NV keeps the sign below 2^-10; exp is written at its (r, j) element even past the exp
  tile's storage (into the UB after it, as the reference does); group_max / scaling values cast to
  their dtype (the NaN group's scaling is m); MXFP4 zeroes dst's whole storage first. The NZ form
  ``exp_zz`` (TQUANT<MXFP8, VecStoreMode::NZ>) then copies the first valid_row * valid_col / 32
  exponents of exp's flat storage reordered in blocks of 16 rows x 2 groups (rows a multiple of
  16, groups per row even).
- a2a3: no MX form (UnsupportedError).
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...nibbles import pack_bytes
from ..base import Arch, ExecContext
from . import mx_scale as M
from .common import VectorInstruction

__all__ = ["TQuantMx", "MX_QUANTS", "SCALE_ALGS"]

MX_QUANTS = ("MXFP8", "MXFP4_E2M1")
SCALE_ALGS = ("OCP", "NV")
GROUP = 32  # elements per shared exponent (OCP MX block size)
_DST = {"MXFP8": (D.int8,), "MXFP4_E2M1": (D.float4_e2m1,)}
_SIDE_DTYPES = (D.float32, D.half, D.bfloat16)
# bf16 patterns of a NaN scaling (npu/a5 TQuant.hpp special scale bits, per element format)
_NAN_SCALING_BF16 = {"MXFP8": 0x7F81, "MXFP4_E2M1": 0x7FC0}
_ZZ_ROWS, _ZZ_GROUPS = 16, 2  # the NZ exponent reorder's block


class TQuantMx(VectorInstruction):
    opcode = "TQUANT"
    reads = ("src",)
    writes = ("dst", "exp", "group_max", "scaling", "exp_zz", "src")

    def __init__(self, dst, src, exp, group_max, scaling, exp_zz, quant, scale_alg):
        self.dst, self.src, self.exp = dst, src, exp
        self.group_max, self.scaling, self.exp_zz = group_max, scaling, exp_zz
        self.quant, self.scale_alg = quant, scale_alg

    # -- checks ----------------------------------------------------------------------------
    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        rules = arch.spec.layout.mx_quant
        if rules is None:
            self.unsupported(
                "quant", "mx-quant", f"a target with TQUANT's MX forms (not {arch.target})",
                self.quant,
            )  # fmt: skip
        self.require(self.quant in MX_QUANTS, "quant", "quant-mode", MX_QUANTS, self.quant)
        self.require(
            self.scale_alg in SCALE_ALGS, "scale_alg", "scale-alg", SCALE_ALGS, self.scale_alg
        )
        s, d = self.src, self.dst
        for name in ("dst", "src", "exp", "group_max", "scaling"):
            ref = getattr(self, name)
            self.require(ref is not None, name, "operand-required", "a tile", None, self.quant)
            self.require_vec(name, ref, arch, row_major=name in ("dst", "src"))
        sources = rules.fp8_sources if self.quant == "MXFP8" else rules.fp4_sources
        self.require_dtype("src", s.dtype, sources, detail=self.quant)
        self.require_dtype("dst", d.dtype, _DST[self.quant], detail=self.quant)
        self.require_dtype("exp", self.exp.dtype, (D.uint8, D.float8_e8m0))
        for name in ("group_max", "scaling"):
            self.require_dtype(name, getattr(self, name).dtype, _SIDE_DTYPES)
        self.require(
            s.cols % GROUP == 0, "src", "group-cols", f"Cols a multiple of {GROUP}", s.cols
        )
        R, G = s.valid_row, s.cols // GROUP
        n = R * G
        self.require(
            d.numel * (2 if d.dtype.bits == 4 else 1) >= R * s.cols,
            "dst", "capacity", f">= {R * s.cols} elements (valid rows x src Cols)", d.numel,
        )  # fmt: skip
        for name in ("group_max", "scaling"):
            ref = getattr(self, name)
            self.require(ref.numel >= n, name, "capacity", f">= {n} elements (groups)", ref.numel)
        e = self.exp
        if rules.exp_flat_one_row and e.rows == 1:
            self.require(e.cols >= n, "exp", "capacity", f">= {n} columns (groups)", e.cols)
        elif not rules.exp_flat_one_row:
            self.require(e.cols >= G, "exp", "group-cols", f">= {G} columns", e.cols)
        else:
            self.require(
                e.rows >= R and e.cols >= G,
                "exp", "capacity", f">= {R} x {G} (rows x groups)", f"{e.rows} x {e.cols}",
            )  # fmt: skip
        if self.exp_zz is not None:
            self._validate_nz(rules, arch)

    def _validate_nz(self, rules, arch: Arch) -> None:
        if not rules.nz_exponent_form:
            self.unsupported(
                "exp_zz", "mx-nz-form", f"a target with the NZ exponent form (not {arch.target})",
                "an exp_zz tile",
            )  # fmt: skip
        s, z = self.src, self.exp_zz
        self.require(self.quant == "MXFP8", "quant", "nz-quant", "MXFP8", self.quant)
        self.require_vec("exp_zz", z, arch, row_major=False)
        self.require_same_dtype("exp_zz", z, "exp", self.exp)
        groups = s.valid_col // GROUP
        self.require(
            s.valid_row % _ZZ_ROWS == 0 and groups % _ZZ_GROUPS == 0,
            "src", "nz-blocks",
            f"valid rows a multiple of {_ZZ_ROWS}, valid groups per row of {_ZZ_GROUPS}",
            f"{s.valid_row} rows, {groups} groups",
        )  # fmt: skip
        n = s.valid_row * groups
        self.require(self.exp.numel >= n, "exp", "capacity", f">= {n} elements", self.exp.numel)
        self.require(z.numel >= n, "exp_zz", "capacity", f">= {n} elements", z.numel)

    # -- semantics -------------------------------------------------------------------------
    def execute(self, ctx: ExecContext) -> None:
        rules = ctx.spec.layout.mx_quant
        s = self.src
        R, C = s.valid_row, s.cols
        if R == 0:
            return
        G = C // GROUP
        store = ctx.tile_storage(s)
        b16 = s.dtype.size_bytes == 2
        if rules.zeroes_src_pad and b16 and s.valid_col < C:
            store[: R * C].reshape(R, C)[:, s.valid_col :] = 0
        x = store[: R * C].astype(np.float32).reshape(R * G, GROUP)
        m = self._group_max(x, rules)
        e8m0 = M.shared_exponent(m, self.quant, self.scale_alg)
        scaling = M.group_scaling(e8m0, self.scale_alg)
        with np.errstate(all="ignore"):
            v = x * scaling[:, None]
        if s.dtype is D.bfloat16 and self.quant in rules.bf16_scaled_rounds:
            v = M.bf16_round(v)
        self._store_side_tiles(ctx, rules, m, scaling)
        self._store_exp(ctx, rules, e8m0, R, G)
        if self.quant == "MXFP8":
            codes = self._e4m3(v, rules)
            ctx.tile_storage(self.dst)[: R * C] = codes.ravel().view(np.int8)
        else:
            out = ctx.tile_storage(self.dst)
            if rules.zeroes_fp4_dst:
                out[:] = 0
            out[: R * C // 2] = pack_bytes(M.encode_e2m1(v).ravel())
        if self.exp_zz is not None:
            self._store_exp_zz(ctx)

    def _group_max(self, x: np.ndarray, rules) -> np.ndarray:
        """m per group (f32): NaN propagates, except where MXFP8's max skips NaN elements."""
        a = np.abs(x)
        if self.quant == "MXFP8" and rules.fp8_max_skips_nan:
            return np.max(np.where(np.isnan(a), np.float32(0), a), axis=1)
        return np.max(a, axis=1)

    def _store_side_tiles(self, ctx, rules, m: np.ndarray, scaling: np.ndarray) -> None:
        n = m.size
        s = self.src
        ocp = self.scale_alg == "OCP"
        if rules.side_tiles_bf16_bits and s.dtype.size_bytes == 2:
            # src-sized elements whatever the tiles' dtypes (the kernel casts their pointers)
            if ocp:
                max_bits = M.bf16_bits(m)
            else:
                max_bits = m.astype(s.dtype.np).view(np.uint16)
            sc_bits = np.where(
                np.isnan(scaling), np.uint16(_NAN_SCALING_BF16[self.quant]), M.bf16_bits(scaling)
            )
            for ref, bits in ((self.group_max, max_bits), (self.scaling, sc_bits)):
                ctx.memory_of(ref).typed(ref.address, D.uint16, n, what=self.label)[:] = bits
            return
        if rules.side_tiles_bf16_bits:  # f32 source: f32 elements
            for ref, val in ((self.group_max, m), (self.scaling, scaling)):
                ctx.memory_of(ref).typed(ref.address, D.float32, n, what=self.label)[:] = val
            return
        if self.quant == "MXFP4_E2M1" and ocp:  # reduced as bf16 patterns (truncated)
            m = (M.bf16_bits(m).astype(np.uint32) << 16).view(np.float32)
        scaling = np.where(np.isnan(scaling), m, scaling)
        with np.errstate(all="ignore"):
            ctx.tile_storage(self.group_max)[:n] = m.astype(self.group_max.dtype.np)
            ctx.tile_storage(self.scaling)[:n] = scaling.astype(self.scaling.dtype.np)

    def _store_exp(self, ctx, rules, e8m0: np.ndarray, R: int, G: int) -> None:
        e = self.exp
        if rules.exp_flat_one_row and e.rows == 1:
            ctx.memory_of(e).typed(e.address, D.uint8, e8m0.size, what=self.label)[:] = e8m0
            return
        r, j = np.divmod(np.arange(R * G), G)
        at = e.offsets(r, j)
        # the reference writes exp[r, j] wherever it falls (past the tile too): through the
        # tile's memory, bounded by that memory
        end = int(at.max()) + 1
        ctx.memory_of(e).typed(e.address, D.uint8, end, what=self.label)[at] = e8m0

    def _e4m3(self, v: np.ndarray, rules) -> np.ndarray:
        codes = M.encode_e4m3(v)
        if rules.e4m3_keeps_zero_sign:
            return codes
        neg_zero = codes == 0x80
        if self.scale_alg == "NV":  # below 2^-10 the sign is kept; at -2^-10 the tie goes to 0x00
            neg_zero &= ~(np.abs(v) < np.float32(2.0**-10))
        return np.where(neg_zero, np.uint8(0), codes)

    def _store_exp_zz(self, ctx) -> None:
        s = self.src
        R, groups = s.valid_row, s.valid_col // GROUP
        n = R * groups
        e, z = self.exp, self.exp_zz
        flat = ctx.memory_of(e).typed(e.address, D.uint8, n, what=self.label).copy()
        blocks = flat.reshape(R // _ZZ_ROWS, _ZZ_ROWS, groups // _ZZ_GROUPS, _ZZ_GROUPS)
        zz = ctx.memory_of(z).typed(z.address, D.uint8, n, what=self.label)
        zz[:] = blocks.transpose(0, 2, 1, 3).ravel()
