"""Element-wise tile-scalar instructions: TADDS, TSUBS, TMULS, TDIVS (both forms), TMAXS, TMINS,
TLRELU, TAXPY, TANDS, TORS, TXORS, TSHLS, TSHRS (vector_isa.md 3.4; numerics 2.3).

``OP(dst, src, scalar)`` computes ``dst = src OP scalar`` over dst's valid region; src has dst's
dtype and valid shape; the scalar is checked with ``check_scalar_fits`` against the element
type (rules ``scalar-numeric`` / ``scalar-range``: no silent wrap) and converted to it.
``TDIVS(dst, scalar, src)`` (a number first) is ``scalar / src``, as the C++ overloads are told
apart by the argument types; ``rdivs`` builds that form for TRECIP (``TDIVS(dst, 1, src)``).
Arithmetic is ``binary.elementwise`` (floats exact then rounded once to T; integers wrap; DIV
truncates, a zero divisor raises ExecutionError before anything is written; MAX/MIN: cpu
``std::max(src, s)``, NPU IEEE). TLRELU = ``src > 0 ? src : src * s`` (the product rounded to T).
cpu requires RowMajor for TADDS, TMULS, TDIVS, TMAXS and TLRELU (the CPU code asserts it:
``VectorRules.row_major_instructions``); the NPU targets for all.

Per-target quirks (vector_isa.md 3.4 and 4.6-4.7), modelled because they are deterministic:

- a2a3 TSUBS (``ElementwiseRules.tsubs_negates_through_float``) adds the scalar negated *through
  float*: ``s' = T(-(float)s)``. For floats and
  int16 this is exactly ``-s``; an int32 with ``|s| > 2**24`` is rounded to float first (finding
  F108 ``scalar-rounded`` when s' != -s); when ``(float)s == -2**31`` the negation overflows
  int32 (the value is not known): UnsupportedError rule ``a2a3-tsubs-scalar``.
- a2a3 float TDIVS ``src / s`` (``ElementwiseRules.division_via_dup``): with dst at src's address
  the library multiplies by the reciprocal ``T(1.0f / (float)s)`` (vmuls: rounded twice, not a
  division). Otherwise it broadcasts s into dst (vector_dup), then ``vdiv(dst, src, dst)``.
- a2a3 float TDIVS ``s / src`` (and TRECIP): vector_dup(dst, s) then ``vdiv(dst, dst, src)``.
  In place the dup overwrites src first, so the hardware computes ``s / s``. ptosim models
  exactly that sequence (the dup is written, then src is read) and reports finding F107
  ``dup-clobbers-src``: chosen over an error because the hardware runs the kernel and gives a
  deterministic result; the finding says what it is. The same holds for any overlap of dst with
  src on the dup paths (``src / s`` not in place included).
- a2a3 integer TDIVS (both forms) runs as a scalar loop on PIPE_S (same values as cpu).
- a2a3 TANDS/TORS (``Bitwise.B16_LANES``): TEXPANDS(dst, s) then TAND/TOR(dst, src, dst) on
  16-bit lanes; TXORS:
  ``tmp = src | s``, ``dst = src & s``, ``dst = ~dst``, ``dst = dst & tmp``. dst (and tmp) must
  not share bytes with src (PTO_ASSERT: ConstraintError ``distinct-buffers``); a 1-byte tile
  with an odd valid width C also writes each row's byte at column C (``src[r, C] OP s``; tmp
  gets ``src[r, C] | s``). cpu and a5 ignore tmp.
- a5 TSUBS negates in T (= cpu), a5 TDIVS divides (the doc's reciprocal claim is not the code).

TAXPY(dst, src, scalar): ``dst = dst + src * s``, the scalar of src's dtype. Same dtypes
(half/bfloat16/float32): the product rounded to T, then the sum rounded to T (the CPU's
``volatile`` temporaries; assumed for the a2a3 vaxpy); on a5 (``ElementwiseRules.axpy_fused``)
``dst + src*s`` rounded once, as the a5 taxpy folder's golden and tolerance require. Mixed
(float32 dst, half src): the reference leaves open whether the CPU rounds ``half * half`` to
half or keeps it in float (x86 excess precision), while the NPU vaxpy widens src to float32.
ptosim resolves it to the float32 product on every target: a half x half product is exact in
float32, so the result is ``float32(dst + src*s)`` rounded once, identical on cpu and NPU (the
other reading would differ only when the product is not representable in half).

TSHLS/TSHRS: the scalar is the shift count; one outside ``[0, width of the promoted type)`` is
ConstraintError rule ``shift-count`` (undefined in C++), except on a5 for a 64-bit type, which
shifts by ``count & 63`` (``ElementwiseRules.int64_shift_count_mod_64``). TSHLS/TSHRS are
vector ops on a2a3 too (vshl/vshr through skeleton B), unlike the tile-tile shifts.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...findings import DUP_CLOBBERS_SRC, SCALAR_ROUNDED
from ...program import emit
from ...tensors import Tile, TileRef
from ..base import Arch, ExecContext, check_algorithm
from ..data import _tile
from ..registry import instruction
from ..spec import Bitwise
from .binary import (
    check_operands_distinct,
    elementwise,
    execution_error,
    first_bad_divisor,
    odd_byte_padding,
    pad_bytes,
    shift_counts,
    shift_counts_masked,
    shift_width,
    zero_divisor_checked,
)
from .common import VectorInstruction, round_sum_once

__all__ = [
    "TADDS",
    "TANDS",
    "TAXPY",
    "TAxpy",
    "TBinaryScalar",
    "TDIVS",
    "TLRELU",
    "TMAXS",
    "TMINS",
    "TMULS",
    "TORS",
    "TSHLS",
    "TSHRS",
    "TSUBS",
    "TXORS",
    "rdivs",
]

# ISA name -> the element-wise op it applies
OPS = {
    "TADDS": "ADD",
    "TSUBS": "SUB",
    "TMULS": "MUL",
    "TDIVS": "DIV",
    "TMAXS": "MAX",
    "TMINS": "MIN",
    "TLRELU": "LRELU",
    "TANDS": "AND",
    "TORS": "OR",
    "TXORS": "XOR",
    "TSHLS": "SHL",
    "TSHRS": "SHR",
}
INT32_MIN_AS_FLOAT = -(2.0**31)


def float_negated_scalar(s, dt: D.DType):
    """The scalar a TSUBS that negates through float adds: ``T(-(float)s)``, or None when the
    negation overflows T."""
    f = -np.float32(s)  # int -> float rounds to nearest even; float types widen exactly
    if dt.is_float:
        return np.array(f).astype(dt.np)[()]
    if float(f) > np.iinfo(dt.np).max:
        return None
    return dt.np.type(int(f))


class TBinaryScalar(VectorInstruction):
    """``OP(dst, src, scalar[, tmp])``; ``reverse``: TDIVS(dst, scalar, src) = scalar / src."""

    reads = ("src",)
    writes = ("dst", "tmp")

    def __init__(
        self,
        name: str,
        dst: TileRef,
        src: TileRef,
        scalar,
        tmp: TileRef | None = None,
        *,
        reverse: bool = False,
        opcode: str | None = None,
    ):
        if name not in OPS:
            raise ValueError(f"unknown tile-scalar instruction {name!r}")
        self.name = name
        self.op = OPS[name]
        self.opcode = opcode or name
        self.reverse = reverse
        self.dst, self.src, self.scalar, self.tmp = dst, src, scalar, tmp
        self.value = None  # the scalar converted to T (set by validate)

    @property
    def dtype_key(self) -> str:
        return self.name  # TRECIP through rdivs checks TDIVS's dtypes

    # -- checks ------------------------------------------------------------------------
    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d, s = self.dst, self.src
        spec = arch.spec
        self.require_vec("dst", d, arch)
        self.require_vec("src", s, arch)
        if not spec.vector.row_major_operands and self.name in spec.vector.row_major_instructions:
            for name, ref in (("dst", d), ("src", s)):
                self.require(
                    ref.geom.is_row_major and not ref.geom.is_boxed,
                    name,
                    "row-major",
                    "BLayout::RowMajor (ND)",
                    ref.geom.layout_name,
                    f"the CPU {self.name} asserts a row-major tile",
                )
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src", s)
        self.require_same_valid("dst", d, "src", s)
        self.value = D.check_scalar_fits(self, "scalar", self.scalar, d.dtype)
        masked = shift_counts_masked(spec.elementwise, d.dtype)
        if self.op in ("SHL", "SHR") and not masked:
            w = shift_width(d.dtype)
            self.require(
                0 <= int(self.value) < w,
                "scalar",
                "shift-count",
                f"a shift count in [0, {w})",
                int(self.value),
                "a count outside the promoted type's width is undefined in C++",
            )
        through_float = spec.elementwise.tsubs_negates_through_float
        quirk = self.name == "TSUBS" and through_float and d.dtype.is_int
        if quirk and float_negated_scalar(self.value, d.dtype) is None:
            self.unsupported(
                "scalar",
                "a2a3-tsubs-scalar",
                "a scalar whose float negation fits int32 ((float)s != -2**31)",
                int(self.value),
                "a2a3 TSUBS adds T(-(float)s); the negation overflows and the value is not "
                "known; use TADDS with the negated scalar",
            )
        t = self.tmp
        b16 = spec.elementwise.bitwise is Bitwise.B16_LANES
        if t is not None:
            self.require_loc("tmp", t)
            if b16:  # the four-step TXORS writes tmp
                self.require_vec("tmp", t, arch)
                self.require_same_dtype("dst", d, "tmp", t)
                self.require_same_valid("dst", d, "tmp", t)
        if b16 and self.op in ("AND", "OR", "XOR"):
            if self.op == "XOR":
                self.require(
                    t is not None, "tmp", "tmp-required", "a tmp tile (a2a3 TXORS uses it)", None
                )
            check_operands_distinct(self, ("src", "dst", "tmp"))

    # -- what the a2a3 lowering does ---------------------------------------------------
    def a2a3_path(self) -> str:
        """The TDIVS lowering of a target with ``ElementwiseRules.division_via_dup`` (a2a3):
        ``scalar`` (integer loop on PIPE_S), ``vmuls`` (float ``src / s`` in place: reciprocal
        multiply) or ``dup`` (vector_dup then vdiv)."""
        if self.dst.dtype.is_int:
            return "scalar"
        if not self.reverse and self.dst.address == self.src.address:
            return "vmuls"
        return "dup"

    # -- semantics ---------------------------------------------------------------------
    def execute(self, ctx: ExecContext) -> None:
        d, src = self.dst, self.src
        rules, t = ctx.spec.elementwise, ctx.spec.numerics.maxmin
        b16 = rules.bitwise is Bitwise.B16_LANES
        if b16 and self.op in ("AND", "OR", "XOR"):
            check_operands_distinct(self, ("src", "dst", "tmp"))
        R, C = d.valid
        if R == 0 or C == 0:
            return
        dt, s = d.dtype, self.value
        if self.op in ("SHL", "SHR"):
            s = shift_counts(rules, dt, s)
        dup = self.op == "DIV" and rules.division_via_dup
        if dup and self.a2a3_path() == "dup":
            self._execute_dup_div(ctx)
            return
        a = ctx.tile_read(src)
        if self.op == "DIV" and zero_divisor_checked(rules, dt):
            bad = first_bad_divisor("DIV", dt, a if self.reverse else np.full_like(a, s))
            if bad is not None:
                divisor, value = ("src", a[bad]) if self.reverse else ("scalar", s)
                raise execution_error(self, "integer division by zero", bad, divisor, value)
        if dup and self.a2a3_path() == "vmuls":
            recip = np.array(np.float32(1) / np.float32(s)).astype(dt.np)
            out = elementwise("MUL", dt, a, recip, t)
        elif self.op == "DIV" and self.reverse:
            out = elementwise("DIV", dt, np.full_like(a, s), a, t)
        elif self.op == "LRELU":
            out = np.where(a > 0, a, elementwise("MUL", dt, a, s, t))
        elif self.name == "TSUBS" and rules.tsubs_negates_through_float:
            neg = float_negated_scalar(s, dt)
            if dt.is_int and int(neg) != -int(s):
                ctx.finding(
                    SCALAR_ROUNDED,
                    "scalar-rounded",
                    f"{ctx.target} TSUBS adds the scalar negated through float: "
                    f"T(-(float){int(s)}) = "
                    f"{int(neg)}, so every element is off by {int(s) + int(neg)} from src - s "
                    "(an int32 above 2**24 in magnitude is rounded); use TADDS with -s",
                )
            out = elementwise("ADD", dt, a, neg, t)
        else:
            out = elementwise(self.op, dt, a, s, t)
        pad = odd_byte_padding(rules.bitwise, dt, C) and self.op in ("AND", "OR", "XOR")
        if pad:
            pa = ctx.tile_storage(src)[pad_bytes(src, R, C)]
        if self.op == "XOR" and b16:  # tmp = src | s (TORS, step 1 of 4)
            ctx.tile_write(self.tmp, elementwise("OR", dt, a, s, t))
            if pad:
                ctx.tile_storage(self.tmp)[pad_bytes(self.tmp, R, C)] = elementwise(
                    "OR", dt, pa, s, t
                )
        ctx.tile_write(d, out)
        if pad:
            ctx.tile_storage(d)[pad_bytes(d, R, C)] = elementwise(self.op, dt, pa, s, t)

    def _execute_dup_div(self, ctx: ExecContext) -> None:
        """a2a3 float TDIVS through vector_dup: dst <- s, then vdiv reads dst and src."""
        d, src, dt = self.dst, self.src, self.dst.dtype
        ctx.tile_write(d, np.full(d.valid, self.value, dtype=dt.np))
        a, b = ctx.tile_read(src), ctx.tile_read(d)
        if self._overlaps():
            form = "s / src (TRECIP)" if self.reverse else "src / s"
            ctx.finding(
                DUP_CLOBBERS_SRC,
                "dup-clobbers-src",
                f"{ctx.target} {self.opcode} {form} first broadcasts the scalar into dst "
                f"{d.name} (vector_dup), which shares bytes with src {src.name}: the division "
                "then reads the scalar instead of src "
                + ("(in place: every element is s / s)" if self._same_address() else "")
                + "; use a dst distinct from src",
            )
        num, den = (b, a) if self.reverse else (a, b)
        ctx.tile_write(d, elementwise("DIV", dt, num, den, ctx.spec.numerics.maxmin))

    def _same_address(self) -> bool:
        return self.dst.address == self.src.address

    def _overlaps(self) -> bool:
        d, s = self.dst, self.src
        return d.address < s.address + s.size_bytes and s.address < d.address + d.size_bytes


class TAxpy(VectorInstruction):
    """TAXPY(dst, src, scalar): ``dst = dst + src * scalar`` (module doc: rounding)."""

    opcode = "TAXPY"
    reads = ("src", "dst")
    writes = ("dst",)
    MIXED = (D.float32, D.half)

    def __init__(self, dst: TileRef, src: TileRef, scalar):
        self.dst, self.src, self.scalar = dst, src, scalar
        self.value = None

    @property
    def mixed(self) -> bool:
        return (self.dst.dtype, self.src.dtype) == self.MIXED

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d, s = self.dst, self.src
        self.require_vec("dst", d, arch)
        self.require_vec("src", s, arch)
        self.require_element_dtype("dst", d, arch)
        pairs = arch.spec.elementwise.axpy_pairs + (self.MIXED,)
        self.require(
            (d.dtype, s.dtype) in pairs,
            "src",
            "dtype",
            "src of dst's dtype, or half with a float32 dst",
            f"{s.dtype.name} with a {d.dtype.name} dst",
        )
        self.require_same_valid("dst", d, "src", s)
        self.value = D.check_scalar_fits(self, "scalar", self.scalar, s.dtype)

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        if d.valid_row == 0 or d.valid_col == 0:
            return
        acc, x = ctx.tile_read(d), ctx.tile_read(s)
        if self.mixed or ctx.spec.elementwise.axpy_fused:
            # the product of two half / bfloat16 / float32 values is exact in float64
            prod = x.astype(np.float64) * np.asarray(self.value, s.dtype.np).astype(np.float64)
            out = round_sum_once(acc.astype(np.float64), prod, d.dtype)
        else:
            rule = ctx.spec.numerics.maxmin
            prod = elementwise("MUL", d.dtype, x, self.value, rule)
            out = elementwise("ADD", d.dtype, acc, prod, rule)
        ctx.tile_write(d, out)


def rdivs(dst: TileRef, scalar, src: TileRef, *, opcode: str = "TDIVS") -> TBinaryScalar:
    """The ``scalar / src`` form of TDIVS as an instruction (not emitted); TRECIP is
    ``emit(rdivs(dst, 1, src, opcode="TRECIP"))`` with the same checks, semantics and plans."""
    return TBinaryScalar("TDIVS", dst, src, scalar, reverse=True, opcode=opcode)


# -- the kernel-facing API ------------------------------------------------------------------
def _emit(name: str, dst, src, scalar, tmp=None) -> None:
    emit(
        TBinaryScalar(
            name,
            _tile(dst, f"{name} dst"),
            _tile(src, f"{name} src"),
            scalar,
            None if tmp is None and name != "TXORS" else _tile(tmp, f"{name} tmp"),
        )
    )


_FAMILY = "elementwise tile-scalar"


@instruction(family=_FAMILY, summary="dst = src + scalar")
def TADDS(dst, src, scalar) -> None:
    """``dst = src + scalar`` over dst's valid region."""
    _emit("TADDS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = src - scalar")
def TSUBS(dst, src, scalar) -> None:
    """``dst = src - scalar`` (a2a3: src + T(-(float)scalar), see the module doc)."""
    _emit("TSUBS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = src * scalar")
def TMULS(dst, src, scalar) -> None:
    """``dst = src * scalar`` over dst's valid region."""
    _emit("TMULS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = src / scalar, or dst = scalar / src (scalar first)")
def TDIVS(dst, src, scalar, *, algorithm="DEFAULT") -> None:
    """``TDIVS(dst, src, scalar)`` = src / scalar; ``TDIVS(dst, scalar, src)`` = scalar / src
    (the forms are told apart by which argument is a Tile, as the C++ overloads are); the
    quotient is correctly rounded under either ``algorithm`` (the C++ DivAlgorithm).

    Raises:
        ExecutionError: (at run time) an integer division by zero.
    """
    check_algorithm("TDIVS", algorithm)
    if isinstance(src, Tile) or not isinstance(scalar, Tile):
        _emit("TDIVS", dst, src, scalar)
        return
    emit(rdivs(_tile(dst, "TDIVS dst"), src, _tile(scalar, "TDIVS src")))


@instruction(family=_FAMILY, summary="dst = max(src, scalar)")
def TMAXS(dst, src, scalar) -> None:
    """``dst = max(src, scalar)`` (cpu: std::max(src, s); NPU: IEEE maximum)."""
    _emit("TMAXS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = min(src, scalar)")
def TMINS(dst, src, scalar) -> None:
    """``dst = min(src, scalar)`` (cpu: std::min(src, s); NPU: IEEE minimum)."""
    _emit("TMINS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = src > 0 ? src : src * slope")
def TLRELU(dst, src, slope) -> None:
    """Leaky ReLU: ``dst = src > 0 ? src : src * slope``."""
    _emit("TLRELU", dst, src, slope)


@instruction(family=_FAMILY, summary="dst = dst + src * scalar (float32 dst may take a half src)")
def TAXPY(dst, src, scalar) -> None:
    """``dst = dst + src * scalar``; the scalar has src's dtype (see the module doc)."""
    emit(TAxpy(_tile(dst, "TAXPY dst"), _tile(src, "TAXPY src"), scalar))


@instruction(family=_FAMILY, summary="dst = src & scalar")
def TANDS(dst, src, scalar) -> None:
    """``dst = src & scalar`` (a2a3: dst must not overlap src)."""
    _emit("TANDS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = src | scalar")
def TORS(dst, src, scalar) -> None:
    """``dst = src | scalar`` (a2a3: dst must not overlap src)."""
    _emit("TORS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = src ^ scalar (tmp: a2a3 scratch)")
def TXORS(dst, src, scalar, tmp) -> None:
    """``dst = src ^ scalar``; a2a3 computes it in four steps through ``tmp`` (written)."""
    _emit("TXORS", dst, src, scalar, tmp)


@instruction(family=_FAMILY, summary="dst = src << scalar")
def TSHLS(dst, src, scalar) -> None:
    """``dst = src << scalar`` (C++ promotion, truncated to T)."""
    _emit("TSHLS", dst, src, scalar)


@instruction(family=_FAMILY, summary="dst = src >> scalar")
def TSHRS(dst, src, scalar) -> None:
    """``dst = src >> scalar`` (arithmetic for signed types)."""
    _emit("TSHRS", dst, src, scalar)
