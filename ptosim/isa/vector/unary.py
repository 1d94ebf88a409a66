"""Unary element-wise instructions (vector_isa.md 3.8): TEXP, TLOG, TSQRT, TRSQRT, TRECIP, TABS,
TNEG, TRELU, TNOT.

``OP(dst, src)`` over dst's valid region ``R x C``; src has dst's dtype and valid shape; Vec
tiles, RowMajor on the NPU targets (any layout on cpu, addressed through the tile layout).

Numerics, cpu (the CPU simulator, vector_isa.md 2.3): transcendentals in double with libm,
rounded once to T (``round_to``), except TEXP on half, which is ``expf``: exp evaluated in
float32 and then rounded to half (two roundings, reproduced: numpy's float32 exp then a cast).
TRSQRT is ``1.0 / sqrt(double(x))`` (the double sqrt and the double division each round, then
the cast to T). TABS is ``x < 0 ? -x : x`` (so -0 and a NaN keep their sign bit), TNEG ``-x``,
TRELU ``std::max(x, 0)`` (NaN and -0 stay), TNOT ``~x``; integers wrap (``abs``/``neg`` of
INT_MIN is INT_MIN).

Numerics, NPU (a2a3, a5): each intrinsic produces T. The accuracy of ``vexp/vln/vsqrt/vrsqrt``
is not public: ptosim models them as correctly rounded (evaluated in double, rounded once to T;
so TEXP on half differs from the cpu ``expf`` path in rare last-bit cases). Where the lowering
is a chain, every step rounds to T: a5 TRSQRT (``vsqrt`` then ``vdiv(1, .)``) and the a2a3
3-operand TRSQRT (its "high precision" path: the same two steps) are ``1 / round(sqrt(x))``
rounded again; the a2a3 2-operand TRSQRT is one ``vrsqrt``. ``vabs`` clears the sign bit (IEEE
abs, also of -0 and NaN); ``vrelu`` is the IEEE maximum with 0 (NaN propagates, -0 becomes +0,
as ``maxmin`` models the NPU ``vmax``). TNEG is ``TMULS(dst, src, -1)`` (the reference: the same
bits as -x for IEEE floats; integers wrap). Division by zero and the square root of a negative
number give the IEEE inf/NaN on every target (the CPU asserts vanish in release builds).

TRECIP(dst, src) is ``TDIVS(dst, 1, src)`` on every target (vector_isa.md 3.4): floats ``1/x``
correctly rounded; integers ``1/x`` truncated toward zero, where a zero divisor raises
ExecutionError before anything is written. a2a3 lowers the float form as ``vector_dup(dst, 1)``,
``pipe_barrier(V)``, ``vdiv(dst, dst, src)``: in place (dst overlapping src) the dup overwrites
src first, so the reference computes 1/1 (the library forbids in-place TRECIP). ptosim executes
those two stages on the memory, so an in-place a2a3 TRECIP gives what the hardware gives, and
reports finding F105 (tile-overlap). The integer form is a scalar loop on PIPE_S.

TNOT on a2a3 runs ``vnot`` on 16-bit lanes: 1-byte types are processed as ``ceil(C/2)`` lanes
per row, so an odd valid width also writes the byte after the last valid one of every row (the
padding, ``~src`` of that byte; vector_isa.md 2.4 and 4.14).

The precision knobs (``algorithm="DEFAULT"|"HIGH_PRECISION"``, the C++ ExpAlgorithm,
LogAlgorithm, SqrtAlgorithm, RsqrtAlgorithm, RecipAlgorithm) are accepted on every target and
only recorded: ptosim already models correctly rounded results, and the a5 high-precision
sequences are not in our sources.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...errors import ExecutionError, KernelError
from ...findings import CONVERSION_UNDEFINED, TILE_OVERLAP
from ...program import emit
from ...tensors import TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..maxmin import maxmin
from ..registry import instruction
from ..spec import Bitwise, FloatAbs, Numerics, Rsqrt
from .common import VectorInstruction, host_cast_to_int, read_valid, round_to

__all__ = ["TABS", "TEXP", "TLOG", "TNEG", "TNOT", "TRECIP", "TRELU", "TRSQRT", "TSQRT"]

ALGORITHMS = ("DEFAULT", "HIGH_PRECISION")
OPS = ("EXP", "LOG", "SQRT", "RSQRT", "ABS", "NEG", "RELU", "NOT")


# -- shared helpers (also used by mathops.py) ---------------------------------------------
def in_double(fn, x: np.ndarray, dt: D.DType) -> np.ndarray:
    """``fn`` evaluated in double on the T values ``x``, rounded once to ``dt``; an integer
    ``dt`` gets the C cast (truncation; see ``in_double_undefined`` for the values it leaves
    undefined)."""
    with np.errstate(all="ignore"):
        y = fn(np.asarray(x).astype(np.float64))
    return host_cast_to_int(y, dt)[0] if dt.is_int else round_to(y, dt)


def in_double_undefined(fn, x: np.ndarray, dt: D.DType) -> int:
    """How many of ``in_double``'s integer results are a C cast of a double out of ``dt``'s
    range (NaN, infinities: log(0)) - undefined behaviour, given as x86-64 code gives it."""
    if not dt.is_int:
        return 0
    with np.errstate(all="ignore"):
        return int(np.count_nonzero(host_cast_to_int(fn(np.asarray(x).astype(np.float64)), dt)[1]))


def overlaps(a: TileRef, b: TileRef) -> bool:
    """The two tiles share bytes of the same memory."""
    if a.loc is not b.loc or a.address is None or b.address is None:
        return False
    return a.address < b.address + b.size_bytes and b.address < a.address + a.size_bytes


def zero_divisor_error(instr, operand: str, divisor: np.ndarray) -> ExecutionError:
    """ExecutionError naming the first zero divisor (row, column) of ``divisor``."""
    r, c = (int(v) for v in np.argwhere(divisor == 0)[0])
    where = f" ({instr.source})" if instr.source else ""
    return ExecutionError(
        f"{instr.label}{where}: integer division by zero: operand '{operand}' is 0 at row {r}, "
        f"column {c} ({int(np.count_nonzero(divisor == 0))} zero element(s)); nothing was written"
    )


def wrap_ints(values, dt: D.DType) -> np.ndarray:
    """Exact integers (any size, e.g. Python ints in an object array) wrapped to ``dt``."""
    bits = 8 * dt.size_bytes
    flat = [int(v) % (1 << bits) for v in np.asarray(values, dtype=object).ravel()]
    if dt.kind == "int":
        flat = [v - (1 << bits) if v >> (bits - 1) else v for v in flat]
    return np.array(flat, dtype=dt.np).reshape(np.shape(values))


def trunc_divmod(a: np.ndarray, b: np.ndarray, dt: D.DType) -> tuple[np.ndarray, np.ndarray]:
    """C integer division and remainder (quotient toward zero, remainder with the dividend's
    sign) of nonzero divisors, exact, then wrapped to ``dt`` (INT_MIN / -1 wraps)."""
    q, r = [], []
    for x, y in zip(np.asarray(a).ravel().tolist(), np.asarray(b).ravel().tolist()):
        qq = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        q.append(qq)
        r.append(x - qq * y)
    shape = np.shape(a)
    return wrap_ints(np.array(q, dtype=object), dt).reshape(shape), wrap_ints(
        np.array(r, dtype=object), dt
    ).reshape(shape)


def check_algorithm(name: str, algorithm) -> str:
    if not isinstance(algorithm, str) or algorithm.upper() not in ALGORITHMS:
        raise KernelError(
            f"{name}: algorithm must be one of {', '.join(ALGORITHMS)} (the C++ precision "
            f"template argument), got {algorithm!r}"
        )
    return algorithm.upper()


def unary_value(op: str, num: Numerics, x: np.ndarray, dt: D.DType) -> np.ndarray:
    """``OP(x)`` elementwise in T under the target's numerics (module docstring)."""
    if op == "EXP":
        if num.exp_half_in_float32 and dt is D.half:  # expf: float32 exp, then the cast
            with np.errstate(all="ignore"):
                return np.exp(x.astype(np.float32)).astype(np.float16)
        return in_double(np.exp, x, dt)
    if op == "LOG":
        return in_double(np.log, x, dt)
    if op == "SQRT":
        return in_double(np.sqrt, x, dt)
    if op == "RSQRT":  # cpu 1.0/sqrt(double); the NPU vrsqrt modelled correctly rounded
        return in_double(lambda v: 1.0 / np.sqrt(v), x, dt)
    if op == "ABS":
        if dt.is_float and num.float_abs is FloatAbs.CLEAR_SIGN_BIT:  # IEEE abs
            u = np.dtype(f"u{dt.size_bytes}")
            mask = u.type(~(1 << (8 * dt.size_bytes - 1)) & ((1 << 8 * dt.size_bytes) - 1))
            return (x.astype(dt.np).view(u) & mask).view(dt.np)
        with np.errstate(all="ignore"):
            return np.where(x < 0, np.negative(x), x).astype(dt.np)  # ints wrap
    if op == "NEG":
        if dt.is_float:  # -x, the same bits as x * (-1) (vector_isa.md 3.8)
            u = np.dtype(f"u{dt.size_bytes}")
            return (x.astype(dt.np).view(u) ^ u.type(1 << (8 * dt.size_bytes - 1))).view(dt.np)
        return round_to(-x.astype(np.int64), dt) if dt.size_bytes < 8 else np.negative(x)
    if op == "RELU":
        zero = np.zeros_like(x, dtype=dt.np)
        return maxmin(num.maxmin, "MAX", x.astype(dt.np), zero).astype(dt.np)
    if op == "NOT":
        return np.invert(x.astype(dt.np))
    raise ValueError(op)


def rsqrt_chain(x: np.ndarray, dt: D.DType) -> np.ndarray:
    """``vsqrt`` then ``vdiv(1, .)``: each step rounded to T."""
    s = in_double(np.sqrt, x, dt)
    return in_double(lambda v: 1.0 / v, s, dt)


class ElementwiseInstruction(VectorInstruction):
    """Shared checks of the element-wise families: every tile operand in ``SOURCES`` has dst's
    dtype and valid shape; Vec tiles (RowMajor on the NPU)."""

    SOURCES: tuple[str, ...] = ("src",)
    tmp: TileRef | None = None

    def validate_elementwise(self, arch: Arch) -> None:
        self.require_defined(arch)
        d = self.dst
        self.require_vec("dst", d, arch)
        self.require_element_dtype("dst", d, arch)
        for name in self.SOURCES:
            ref = getattr(self, name)
            self.require_vec(name, ref, arch)
            self.require_same_dtype("dst", d, name, ref)
            self.require_same_valid("dst", d, name, ref)
        if self.tmp is not None:
            self.require_loc("tmp", self.tmp)


class TUnary(ElementwiseInstruction):
    """``T<OP>(dst, src[, tmp])`` for EXP, LOG, SQRT, RSQRT, ABS, NEG, RELU, NOT."""

    reads = ("src",)
    writes = ("dst", "tmp")

    def __init__(
        self, op: str, dst: TileRef, src: TileRef, tmp: TileRef | None = None, algorithm="DEFAULT"
    ):
        if op not in OPS:
            raise ValueError(f"unknown unary op {op!r}")
        self.op = op
        self.opcode = f"T{op}"
        self.dst, self.src, self.tmp = dst, src, tmp
        self.algorithm = algorithm

    def a2a3_chain(self) -> bool:
        """The 3-operand TRSQRT of ``Rsqrt.SQRT_THEN_DIV_WITH_TMP`` (a2a3): always its
        high-precision vsqrt + vdiv path."""
        return self.op == "RSQRT" and self.tmp is not None

    def validate(self, arch: Arch) -> None:
        self.validate_elementwise(arch)
        if self.tmp is not None:
            self.require_same_dtype("dst", self.dst, "tmp", self.tmp)

    def execute(self, ctx: ExecContext) -> None:
        d, s, dt = self.dst, self.src, self.dst.dtype
        R, C = d.valid
        if R == 0 or C == 0:
            return
        num = ctx.spec.numerics
        b16 = ctx.spec.elementwise.bitwise is Bitwise.B16_LANES
        if b16 and self.op == "NOT" and dt.size_bytes == 1:
            self._not_b16_lanes(ctx, R, C)
            return
        with_tmp = num.rsqrt is Rsqrt.SQRT_THEN_DIV_WITH_TMP and self.tmp is not None
        if self.op == "RSQRT" and (num.rsqrt is Rsqrt.SQRT_THEN_DIV or with_tmp):
            if with_tmp:  # vector_dup(tmp, 1.0) over one 32-byte block
                ctx.memory_of(self.tmp).typed(self.tmp.address, dt, dt.c0)[:] = dt.np.type(1)
            x = read_valid(ctx, s)
            ctx.tile_write(d, in_double(np.sqrt, x, dt))  # vsqrt(dst, src)
            ctx.tile_write(d, in_double(lambda v: 1.0 / v, read_valid(ctx, d), dt))  # vdiv
            return
        x = read_valid(ctx, s)
        ctx.tile_write(d, unary_value(self.op, num, x, dt))
        if self.op == "LOG" and dt.is_int and (bad := in_double_undefined(np.log, x, dt)):
            ctx.finding(
                CONVERSION_UNDEFINED,
                "conversion-undefined",
                f"TLOG {dt.name}: {bad} element(s) <= 0: (T)log(double(x)) of -inf or NaN is "
                "undefined behaviour in C++ (ptosim gives the x86-64 result)",
            )

    def _not_b16_lanes(self, ctx: ExecContext, R: int, C: int) -> None:
        """vnot on 16-bit lanes: ceil(C/2) lanes = 2*ceil(C/2) bytes per row."""
        d, s = self.dst, self.src
        w = min(2 * -(-C // 2), d.cols, s.cols)
        i = np.arange(R, dtype=np.int64)[:, None]
        j = np.arange(w, dtype=np.int64)[None, :]
        x = ctx.tile_storage(s)[i * s.cols + j]
        ctx.tile_storage(d)[i * d.cols + j] = np.invert(x)


class TRecip(ElementwiseInstruction):
    """``TRECIP(dst, src)`` = ``TDIVS(dst, 1, src)``."""

    opcode = "TRECIP"
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef, algorithm="DEFAULT"):
        self.dst, self.src = dst, src
        self.algorithm = algorithm

    def validate(self, arch: Arch) -> None:
        self.validate_elementwise(arch)

    def in_place_a2a3(self) -> bool:
        """The float lowering of ``ElementwiseRules.division_via_dup`` (a2a3) whose dup
        clobbers an overlapping src."""
        return self.dst.dtype.is_float and overlaps(self.dst, self.src)

    def execute(self, ctx: ExecContext) -> None:
        d, s, dt = self.dst, self.src, self.dst.dtype
        R, C = d.valid
        if R == 0 or C == 0:
            return
        if dt.is_int:
            x = read_valid(ctx, s)
            if np.any(x == 0):
                raise zero_divisor_error(self, "src", x)
            ctx.tile_write(d, trunc_divmod(np.ones_like(x), x, dt)[0])
            return
        if ctx.spec.elementwise.division_via_dup:
            if self.in_place_a2a3():
                ctx.finding(
                    TILE_OVERLAP,
                    "tile-overlap",
                    f"TRECIP dst {d.name} overlaps src {s.name}: the {ctx.target} lowering "
                    "broadcasts 1 "
                    "into dst (vector_dup) before vdiv(dst, dst, src) reads src, so the "
                    "overlapping src elements read as 1 (the library forbids in-place TRECIP); "
                    "use a separate dst tile",
                )
            ctx.tile_write(d, np.ones((R, C), dtype=dt.np))  # vector_dup(dst, 1)
            one = read_valid(ctx, d)
            ctx.tile_write(d, in_double(lambda v: one / v, read_valid(ctx, s), dt))  # vdiv
            return
        ctx.tile_write(d, in_double(lambda v: 1.0 / v, read_valid(ctx, s), dt))


# -- the kernel-facing API ------------------------------------------------------------------
def _emit_unary(op: str, dst, src, tmp=None, algorithm="DEFAULT") -> None:
    name = f"T{op}"
    alg = check_algorithm(name, algorithm)
    tmp_ref = None if tmp is None else _tile(tmp, f"{name} tmp")
    emit(TUnary(op, _tile(dst, f"{name} dst"), _tile(src, f"{name} src"), tmp_ref, alg))


@instruction(
    family="elementwise unary",
    summary="dst = exp(src)",
)
def TEXP(dst, src, *, algorithm="DEFAULT") -> None:
    """``dst = e^src`` (cpu: exp in double, half via expf; NPU: correctly rounded)."""
    _emit_unary("EXP", dst, src, algorithm=algorithm)


@instruction(
    family="elementwise unary",
    summary="dst = ln(src)",
)
def TLOG(dst, src, *, algorithm="DEFAULT") -> None:
    """``dst = ln(src)`` (log of a negative number is NaN, of zero -inf)."""
    _emit_unary("LOG", dst, src, algorithm=algorithm)


@instruction(
    family="elementwise unary",
    summary="dst = sqrt(src)",
)
def TSQRT(dst, src, *, algorithm="DEFAULT") -> None:
    """``dst = sqrt(src)`` (a negative number gives NaN)."""
    _emit_unary("SQRT", dst, src, algorithm=algorithm)


@instruction(
    family="elementwise unary",
    summary="dst = 1 / sqrt(src)",
)
def TRSQRT(dst, src, tmp=None, *, algorithm="DEFAULT") -> None:
    """``dst = 1/sqrt(src)``; the 3-operand form (a tmp tile of dst's dtype) is the a2a3
    high-precision path (``vsqrt`` then ``vdiv``, two roundings); tmp is ignored elsewhere."""
    _emit_unary("RSQRT", dst, src, tmp, algorithm)


@instruction(
    family="elementwise unary",
    summary="dst = 1 / src (TDIVS(dst, 1, src))",
)
def TRECIP(dst, src, *, algorithm="DEFAULT") -> None:
    """``dst = 1/src``; integers truncate toward zero.

    Raises:
        ExecutionError: (at run time) an integer src element is 0.
    """
    alg = check_algorithm("TRECIP", algorithm)
    emit(TRecip(_tile(dst, "TRECIP dst"), _tile(src, "TRECIP src"), alg))


@instruction(
    family="elementwise unary",
    summary="dst = |src|",
)
def TABS(dst, src) -> None:
    """``dst = |src|`` (cpu keeps the sign of -0 and NaN; NPU clears it; INT_MIN wraps)."""
    _emit_unary("ABS", dst, src)


@instruction(
    family="elementwise unary",
    summary="dst = -src",
)
def TNEG(dst, src) -> None:
    """``dst = -src`` (integers wrap)."""
    _emit_unary("NEG", dst, src)


@instruction(
    family="elementwise unary",
    summary="dst = max(src, 0)",
)
def TRELU(dst, src) -> None:
    """``dst = max(src, 0)`` (cpu std::max keeps NaN and -0; NPU IEEE maximum)."""
    _emit_unary("RELU", dst, src)


@instruction(
    family="elementwise unary",
    summary="dst = ~src",
)
def TNOT(dst, src) -> None:
    """``dst = ~src`` (integral types)."""
    _emit_unary("NOT", dst, src)
