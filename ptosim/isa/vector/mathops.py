"""The remaining math ops (vector_isa.md 3.23): TFMOD, TFMODS, TREM, TREMS, TPOW, TPOWS, TPRELU.

``TFMOD(dst, src0, src1)``, ``TFMODS(dst, src, scalar)``, ``TREM(dst, src0, src1, tmp)``,
``TREMS(dst, src, scalar, tmp)``, ``TPOW(dst, base, exp, tmp)``, ``TPOWS(dst, base, scalar,
tmp)``, ``TPRELU(dst, src0, slope, tmp)``: over dst's valid region; sources have dst's dtype and
valid shape; the scalar must fit T (``check_scalar_fits``); tmp is a Vec tile (cpu ignores it).

cpu (the CPU simulator, ``cpu/ElementOp.h``):
- FMOD: ``fmod`` in double (exact) for floats, C ``%`` for integers (the dividend's sign).
- REM: the same remainder, then ``+ b`` when it is nonzero and its sign differs from b's
  (floor-style, the divisor's sign); the sum is rounded once to T.
- POW: ``pow`` in double rounded once to T; integers: ``static_cast<T>(pow(double, double))``
  (truncation); a result T cannot hold is C++ undefined behaviour: ptosim gives the x86-64
  result (the cvttsd2si width, then the store truncates: int16 9^5 = 59049 -> -6487, what the
  library's int16 TPOW golden holds) and reports finding F109.
- PRELU: ``a > 0 ? a : a * slope`` in T (any arithmetic T; an integer product wraps to T).
- Integer zero divisors (FMOD, REM) raise ExecutionError before anything is written (the CPU
  asserts vanish in release; C++ would trap). Float zero divisors give the IEEE NaN.

a5 TFMOD(S)/TREM(S) (``Remainder.VF_REGISTERS``): the a5 vector functions, half and integer
forms and the HIGH_PRECISION algorithm included: ``remainder.py``. a5 TPOW(S) of a float type
(``ElementwiseRules.pow_float32_registers``): the a5 vector function in float32 registers, its
HIGH_PRECISION form included: ``pow_vf.py``. a2a3 ignores ``algorithm``.

NPU (a2a3 ``Remainder.UB_CHAIN``; a5 integer TPOW(S) and TPRELU follow the same model: their
values are the same; ``ElementwiseRules.math_vector_sequence``), every intrinsic rounds to T:
- FMOD/FMODS (float32): ``a - trunc(a/b) * b`` as the chain ``vdiv``, ``vconv_f322f32z``,
  ``vmul``/``vmuls``, ``vsub`` with each intermediate rounded (not the exact fmod). The stages
  run on the memory in order (the quotient is written to dst first), so an aliased dst gives
  what the chain gives. TFMODS broadcasts the scalar into dst first (our reading of "analogous
  with vector_dup/vmuls"): with dst overlapping src that clobbers src, reported as F105.
- REM/REMS (float32, int32): ``r = a - floor(a/b) * b`` (``vdiv``, ``vconv_f322f32f``,
  ``vmul``, ``vsub``, rounded), then where ``r * b < 0`` (``vcmpvs_lt`` + ``vsel``) ``r + b``.
  int32 is converted to float32 first (round to nearest, inexact above 2^24) and the result back
  with round-to-nearest (the conversion mode is our choice); an int32 zero divisor raises
  ExecutionError. The tmp contents after the call are not modelled (the plans declare them
  written).
- POW/POWS, floats: for a finite nonzero base and a finite exponent, the magnitude
  ``exp(e * ln|base|)`` with ``vln``, ``vmul``, ``vexp`` each rounded to T; a negative base
  gives that magnitude with the sign of ``(-1)^e`` for an integer e, NaN otherwise (the scalar
  fix-up pass); every other case (a zero or infinite base, an infinite or NaN exponent, a NaN
  base) takes the IEEE ``pow`` result, which is what that pass is there to produce (its exact
  code is not in our summary). Integers: exponentiation by squaring in T (wraps); a negative
  exponent gives 0 except for bases 1 and -1; ``0^0 = 1``.
- PRELU (f16, f32): ``vmul(dst, a, slope)``, ``vcmpvs_gt(tmp, a, 0)``, ``vsel(dst, tmp, a,
  dst)``, run on the memory in order (the values equal the cpu's; in place the select reads the
  product). The mask bits written to tmp are not modelled.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...findings import CONVERSION_UNDEFINED, TILE_OVERLAP
from ...program import emit
from ...tensors import TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from ..spec import Remainder
from .binary import zero_divisor_checked
from .common import host_cast_to_int, read_valid, round_to
from .pow_vf import vf_pow
from .remainder import vf_fmod, vf_rem
from .unary import (
    ElementwiseInstruction,
    check_algorithm,
    in_double,
    overlaps,
    trunc_divmod,
    wrap_ints,
    zero_divisor_error,
)

__all__ = ["TFMOD", "TFMODS", "TPOW", "TPOWS", "TPRELU", "TREM", "TREMS"]

BASES = ("FMOD", "REM", "POW", "PRELU")
SCALAR_FORMS = ("FMODS", "REMS", "POWS")


class TMathBinary(ElementwiseInstruction):
    """TFMOD/TREM/TPOW/TPRELU (tile-tile) and TFMODS/TREMS/TPOWS (tile-scalar)."""

    reads = ("src0", "src1")
    writes = ("dst", "tmp")

    def __init__(
        self,
        op: str,
        dst: TileRef,
        src0: TileRef,
        src1: TileRef | None = None,
        scalar=None,
        tmp: TileRef | None = None,
        algorithm: str = "DEFAULT",
    ):
        base = op[:-1] if op in SCALAR_FORMS else op
        if base not in BASES:
            raise ValueError(f"unknown math op {op!r}")
        self.op, self.base = op, base
        self.opcode = f"T{op}"
        self.SOURCES = ("src0",) if op in SCALAR_FORMS else ("src0", "src1")
        self.dst, self.src0, self.src1, self.scalar, self.tmp = dst, src0, src1, scalar, tmp
        self.scalar_value = None
        self.algorithm = algorithm

    def validate(self, arch: Arch) -> None:
        self.validate_elementwise(arch)
        d, t = self.dst, self.tmp
        if self.op in SCALAR_FORMS:
            self.scalar_value = D.check_scalar_fits(self, "scalar", self.scalar, d.dtype)
        if t is None or not arch.spec.elementwise.math_tmp_checked:
            return
        if self.base == "PRELU":  # TSEL scratch: the row after dst's valid rows
            self.require(
                t.rows > d.valid_row,
                "tmp",
                "tmp-rows",
                f"more than dst valid_row {d.valid_row} rows (the TSEL scratch row)",
                t.rows,
            )
        elif self.base == "REM":  # one row of intermediates, reused per row (a2a3/TRem*.hpp)
            self.require_same_dtype("dst", d, "tmp", t)
            # TREM: the row (dst's row stride) then its compare mask, two bits-per-64 blocks
            need = d.valid_col if self.op == "REMS" else d.cols + 2 * -(-d.cols // 64)
            self.require(
                t.valid_row >= 1 and t.valid_col >= need,
                "tmp",
                "tmp-shape",
                f"at least 1 row and {need} valid columns (one row of intermediates"
                + ("" if self.op == "REMS" else " and its compare mask")
                + ")",
                f"{t.valid_row}x{t.valid_col}",
            )
        elif self.base == "POW" and d.dtype.is_float:  # intermediates
            self.require_same_dtype("dst", d, "tmp", t)
            self.require(
                t.rows >= d.valid_row and t.cols >= d.valid_col,
                "tmp",
                "tmp-shape",
                f"at least {d.valid_row}x{d.valid_col} elements (the per-row intermediates)",
                f"{t.rows}x{t.cols}",
            )

    def int_exponent_steps(self) -> int:
        """Squaring steps of the a2a3 integer pow loop: the scalar's bit length for TPOWS, the
        width of T (the bound) for TPOW."""
        if self.op == "POWS":
            return max(1, abs(int(self.scalar_value)).bit_length())
        return 8 * self.dst.dtype.size_bytes

    # -- semantics ---------------------------------------------------------------------
    def _b(self, ctx: ExecContext) -> np.ndarray:
        """The second operand's values (the broadcast scalar for the S forms)."""
        d = self.dst
        if self.src1 is None:
            return np.full(d.valid, self.scalar_value, dtype=d.dtype.np)
        return read_valid(ctx, self.src1)

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        if R == 0 or C == 0:
            return
        dt = d.dtype
        a, b = read_valid(ctx, self.src0), self._b(ctx)
        rules = ctx.spec.elementwise
        remainder = self.base in ("FMOD", "REM")
        if remainder and dt.is_int and np.any(b == 0) and zero_divisor_checked(rules, dt):
            raise zero_divisor_error(self, "src1" if self.src1 is not None else "scalar", b)
        if remainder and rules.remainder is Remainder.VF_REGISTERS:
            hp = self.algorithm == "HIGH_PRECISION"
            if self.base == "FMOD":
                ctx.tile_write(d, vf_fmod(a, b, dt, hp=hp))
            else:
                ctx.tile_write(d, vf_rem(a, b, dt, hp=hp, scalar=self.src1 is None))
            return
        if remainder:
            host = rules.remainder is Remainder.IN_DOUBLE
        else:
            host = not rules.math_vector_sequence
        if host:
            out, undefined = self._cpu(a, b, dt)
            ctx.tile_write(d, out)
            if undefined:
                ctx.finding(
                    CONVERSION_UNDEFINED,
                    "conversion-undefined",
                    f"{self.opcode} {dt.name}: {undefined} element(s): static_cast<T> of a "
                    "pow(double, double) T cannot hold is undefined behaviour in C++ (ptosim "
                    "gives the x86-64 result)",
                )
            return
        if self.base == "POW" and dt.is_float and rules.pow_float32_registers:
            ctx.tile_write(d, vf_pow(a, b, dt, hp=self.algorithm == "HIGH_PRECISION"))
            return
        getattr(self, f"_npu_{self.base.lower()}")(ctx, a, b, dt)

    def _cpu(self, a: np.ndarray, b: np.ndarray, dt: D.DType) -> tuple[np.ndarray, int]:
        """The CPU simulator's values and the count of elements C++ leaves undefined."""
        base = self.base
        if base == "PRELU":
            if dt.is_int:  # the exact product wrapped to T (C++ converts the promoted product)
                prod = wrap_ints(a.astype(object) * b.astype(object), dt)
                return np.where(a > 0, a, prod), 0
            return np.where(a > 0, a, in_double(lambda x: x * b.astype(np.float64), a, dt)), 0
        if base == "POW":
            with np.errstate(all="ignore"):
                v = np.power(a.astype(np.float64), b.astype(np.float64))
            if dt.is_float:
                return round_to(v, dt), 0
            out, bad = host_cast_to_int(v, dt)
            return out, int(bad.sum())
        if dt.is_int:  # FMOD / REM
            _, r = trunc_divmod(a, b, dt)
            if base == "REM":
                r64, b64 = r.astype(np.int64), b.astype(np.int64)
                r = wrap_ints(np.where((r64 != 0) & ((r64 < 0) != (b64 < 0)), r64 + b64, r64), dt)
            return r, 0
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(all="ignore"):
            r = np.fmod(a64, b64)
            if base == "REM":
                r = np.where((r != 0) & ((r < 0) != (b64 < 0)), r + b64, r)
        return round_to(r, dt), 0

    # NPU ----------------------------------------------------------------------------------
    def _npu_fmod(self, ctx: ExecContext, a, b, dt) -> None:
        d, s = self.dst, self.src0
        rd = lambda: read_valid(ctx, d)  # noqa: E731
        if self.src1 is None:  # vector_dup(dst, s) first
            if overlaps(d, s):
                ctx.finding(
                    TILE_OVERLAP,
                    "tile-overlap",
                    f"TFMODS dst {d.name} overlaps src {s.name}: the modelled lowering "
                    "broadcasts the scalar into dst (vector_dup) before vdiv reads src; use a "
                    "separate dst tile",
                )
            ctx.tile_write(d, np.full(d.valid, self.scalar_value, dtype=dt.np))
            divisor = rd()
        else:
            divisor = read_valid(ctx, self.src1)
        with np.errstate(all="ignore"):
            ctx.tile_write(d, in_double(lambda x: x / divisor, read_valid(ctx, s), dt))  # vdiv
            ctx.tile_write(d, np.trunc(rd()))  # vconv_f322f32z
            ctx.tile_write(d, in_double(lambda x: x * self._b(ctx), rd(), dt))  # vmul(s)
            ctx.tile_write(d, in_double(lambda x: x - rd(), read_valid(ctx, s), dt))  # vsub

    def _npu_rem(self, ctx: ExecContext, a, b, dt) -> None:
        f = np.float32
        af, bf = a.astype(f), b.astype(f)  # int32 -> float32 rounds to nearest
        with np.errstate(all="ignore"):
            q = np.floor(af / bf)
            r = af - (q * bf).astype(f)
            r = np.where((r * bf) < 0, r + bf, r).astype(f)
        if dt.is_int:
            r = np.rint(r).astype(np.int64).astype(dt.np)
        ctx.tile_write(self.dst, r)

    def _npu_pow(self, ctx: ExecContext, a, b, dt) -> None:
        if dt.is_int:
            ctx.tile_write(self.dst, _int_pow(a, b, dt))
            return
        with np.errstate(all="ignore"):
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            ln = in_double(np.log, np.abs(a), dt)  # vabs, vln
            prod = in_double(lambda x: x * b64, ln, dt)  # vmul / vmuls
            mag = in_double(np.exp, prod, dt).astype(np.float64)  # vexp
            integral = np.isfinite(b64) & (np.trunc(b64) == b64)
            odd = integral & (np.fmod(b64, 2.0) != 0)
            signed = np.where(a64 < 0, np.where(integral, np.where(odd, -mag, mag), np.nan), mag)
            regular = np.isfinite(a64) & (a64 != 0) & np.isfinite(b64)
            out = np.where(regular, signed, np.power(a64, b64))
        ctx.tile_write(self.dst, round_to(out, dt))

    def _npu_prelu(self, ctx: ExecContext, a, b, dt) -> None:
        d, s = self.dst, self.src0
        slope = read_valid(ctx, self.src1)
        ctx.tile_write(d, in_double(lambda x: x * slope.astype(np.float64), a, dt))  # vmul
        mask = read_valid(ctx, s) > 0  # vcmpvs_gt
        ctx.tile_write(d, np.where(mask, read_valid(ctx, s), read_valid(ctx, d)))  # vsel


def _int_pow(a: np.ndarray, e: np.ndarray, dt: D.DType) -> np.ndarray:
    """Integer exponentiation by squaring in T (wraps); negative exponents give 0 except for
    bases 1 and -1; 0^0 = 1."""
    bits = 8 * dt.size_bytes
    out = []
    for x, k in zip(a.ravel().tolist(), e.ravel().tolist()):
        if k < 0:
            out.append(1 if x == 1 else ((-1) ** (-k) if x == -1 else 0))
        else:
            out.append(pow(x, k, 1 << bits))
    return wrap_ints(np.array(out, dtype=object), dt).reshape(a.shape)


# -- the kernel-facing API ------------------------------------------------------------------
def _math(op: str, dst, src0, src1=None, scalar=None, tmp=None, algorithm="DEFAULT") -> None:
    name = f"T{op}"
    alg = check_algorithm(name, algorithm)
    names = ("src0", "src1") if src1 is not None else ("src",)
    refs = [_tile(dst, f"{name} dst"), _tile(src0, f"{name} {names[0]}")]
    refs.append(None if src1 is None else _tile(src1, f"{name} {names[1]}"))
    tref = None if tmp is None else _tile(tmp, f"{name} tmp")
    emit(TMathBinary(op, *refs, scalar=scalar, tmp=tref, algorithm=alg))


@instruction(
    family="elementwise tile-tile",
    summary="dst = fmod(src0, src1) (C remainder, sign of src0)",
)
def TFMOD(dst, src0, src1, *, algorithm="DEFAULT") -> None:
    """``dst = fmod(src0, src1)``.

    Raises:
        ExecutionError: (at run time) an integer divisor is 0.
    """
    _math("FMOD", dst, src0, src1, algorithm=algorithm)


@instruction(
    family="elementwise tile-scalar",
    summary="dst = fmod(src, scalar)",
)
def TFMODS(dst, src, scalar, *, algorithm="DEFAULT") -> None:
    """``dst = fmod(src, scalar)``."""
    _math("FMODS", dst, src, scalar=scalar, algorithm=algorithm)


@instruction(
    family="elementwise tile-tile",
    summary="dst = src0 mod src1 (floor remainder, sign of src1)",
)
def TREM(dst, src0, src1, tmp, *, algorithm="DEFAULT") -> None:
    """``dst = src0 - floor(src0/src1) * src1`` (the sign of src1).

    Raises:
        ExecutionError: (at run time) an integer divisor is 0.
    """
    _math("REM", dst, src0, src1, tmp=tmp, algorithm=algorithm)


@instruction(
    family="elementwise tile-scalar",
    summary="dst = src mod scalar (floor remainder)",
)
def TREMS(dst, src, scalar, tmp, *, algorithm="DEFAULT") -> None:
    """``dst = src - floor(src/scalar) * scalar``."""
    _math("REMS", dst, src, scalar=scalar, tmp=tmp, algorithm=algorithm)


@instruction(
    family="elementwise tile-tile",
    summary="dst = base ** exp",
)
def TPOW(dst, base, exp, tmp, *, algorithm="DEFAULT") -> None:
    """``dst = base ** exp`` elementwise."""
    _math("POW", dst, base, exp, tmp=tmp, algorithm=algorithm)


@instruction(
    family="elementwise tile-scalar",
    summary="dst = base ** scalar",
)
def TPOWS(dst, base, scalar, tmp, *, algorithm="DEFAULT") -> None:
    """``dst = base ** scalar`` elementwise."""
    _math("POWS", dst, base, scalar=scalar, tmp=tmp, algorithm=algorithm)


@instruction(
    family="elementwise tile-tile",
    summary="dst = src0 > 0 ? src0 : src0 * slope",
)
def TPRELU(dst, src0, slope, tmp) -> None:
    """``dst = src0 > 0 ? src0 : src0 * slope`` with a per-element slope tile."""
    _math("PRELU", dst, src0, slope, tmp=tmp)
