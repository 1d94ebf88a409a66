"""Element-wise tile-tile instructions: TADD, TSUB, TMUL, TDIV, TMAX, TMIN, TAND, TOR, TXOR,
TSHL, TSHR (vector_isa.md 3.3; numerics 2.3).

``OP(dst, src0, src1)`` (TXOR also takes ``tmp``) computes ``dst = src0 OP src1`` over dst's
valid region. Every operand is a Vec tile of dst's dtype and valid shape (rules ``same-dtype``,
``same-valid-shape``; the reference's PTO_ASSERTs, enforced on every target); the NPU targets
require RowMajor tiles. Elements outside the valid region are not written, except where an
a2a3 lowering writes padding (below).

Arithmetic (``elementwise``, shared with the tile-scalar family):

- Floats: ``+ - * /`` are computed exactly (float64) and rounded once to T, round to nearest
  even (``round_to``). That is the C++ result for float and for half/bfloat16 computed in float
  and rounded once (vector_isa.md 2.3), and it is what ptosim assumes of vadd/vsub/vmul/vdiv
  (their rounding is not public: the NPU's DIV precision template is not modelled). Overflow
  gives inf, as IEEE does. bfloat16 on cpu is a real bfloat16 (not the ``_Float16`` alias of a
  pre-C++23 build, vector_isa.md 4.17).
- MAX/MIN follow ``maxmin``: cpu ``std::max(src0, src1)`` keeps src0 unless the comparison is
  true (NaN in src0 propagates, NaN in src1 is dropped); NPU IEEE maximum/minimum.
- Integers: ADD/SUB/MUL wrap in T (C++ promotion then truncation on store; signed overflow is
  taken to wrap on every target). DIV truncates toward zero, ``INT_MIN / -1`` wraps to INT_MIN;
  a zero divisor raises ExecutionError (PTO401) naming the instruction and the first element,
  before anything is written (the CPU asserts; the NPU result is not public).
- AND/OR/XOR bitwise in T; on a float type (a2a3 and a5) bitwise on the bit patterns.
  SHL/SHR are the C++ expressions ``src0 << src1`` / ``src0 >> src1`` after integer promotion
  (int for types up to 32 bits, unsigned for uint32, 64-bit for int64/uint64), truncated on
  store; ``>>`` of a signed value is arithmetic. A shift count outside ``[0, width of the
  promoted type)`` is undefined in C++ and not specified for the
  NPU: ExecutionError, before anything is written; except that a5 shifts a 64-bit type by
  ``count & 63`` (``ElementwiseRules.int64_shift_count_mod_64``: its Int64Binary lowering
  masks the count's low word with 63), so every count is valid there.

Target differences (the plans in targets/a2a3/elementwise.py and targets/a5/elementwise.py; the
target's ``ElementwiseRules.bitwise``):

- a2a3 (``Bitwise.B16_LANES``) TAND/TOR/TXOR run on 16-bit lanes; a 1-byte tile with an odd valid
  width C is processed as ``ceil(C/2)`` lanes per row, so each row also writes its byte at column C
  with the same operation applied to the sources' bytes there (``dst[r, C] = src0[r, C] OP src1[r,
  C]``, padding included). The write is modelled (the next op reading padding sees it).
- a2a3 TXOR is four steps through ``tmp`` (``tmp = src0 | src1``; ``dst = src0 & src1``;
  ``dst = ~dst``; ``dst = dst & tmp``): tmp is written (its valid region, and padding as
  above) and must be a Vec tile of dst's dtype and valid shape; the four tiles must not share
  bytes (PTO_ASSERT; ConstraintError rule ``distinct-buffers``). cpu and a5 ignore tmp (the
  checker still treats it as written: a kernel portable to a2a3 may not keep data in it).
- a2a3 TSHL/TSHR are scalar loops on PIPE_S (same values).

Dtypes (the target's ``TargetSpec.dtypes``): cpu accepts every integer and float type C++
arithmetic defines (no float8/hifloat8; bitwise ops and shifts integers only); a2a3 and a5 follow
the tables of vector_isa.md 3.3 (a2a3 TAND/TOR/TXOR: 1/2/4-byte integers and half, bfloat16,
float32: the a2a3 code has no dtype assert and its vand/vor move bit patterns; the library's own
TAND test runs it on half; a5 TAND/TOR take any 1/2/4-byte type, as its size-only static_assert
does, TXOR only integers).
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...errors import ExecutionError
from ...program import emit
from ...tensors import TileRef
from ..base import Arch, ExecContext, check_algorithm
from ..data import _tile
from ..maxmin import maxmin
from ..registry import instruction
from ..spec import Bitwise, ElementwiseRules, MaxMin
from .common import VectorInstruction, round_to, wrap_to

__all__ = [
    "TADD",
    "TAND",
    "TBinary",
    "TDIV",
    "TMAX",
    "TMIN",
    "TMUL",
    "TOR",
    "TSHL",
    "TSHR",
    "TSUB",
    "TXOR",
    "elementwise",
]

BITWISE = ("AND", "OR", "XOR")
SHIFTS = ("SHL", "SHR")
OPS = ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN") + BITWISE + SHIFTS


# -- arithmetic shared with the tile-scalar family --------------------------------------------
def _int_div(a: np.ndarray, b: np.ndarray, dt: D.DType) -> np.ndarray:
    """C++ integer division (truncation toward zero), wrapped to T; a zero divisor gives 0 (the
    callers refuse one where the target defines no result: ``zero_divisor_checked``)."""
    zero = np.asarray(b) == 0
    if dt.kind == "uint":
        y = np.where(zero, 1, b).astype(dt.np)
        return np.where(zero, 0, a.astype(dt.np) // y).astype(dt.np)
    wide = np.int64
    x, y = a.astype(wide), np.where(zero, 1, b).astype(wide)
    with np.errstate(all="ignore"):
        q = x // y  # floor; INT64_MIN // -1 wraps to INT64_MIN
        r = x - q * y
        q = np.where((r != 0) & ((x < 0) != (y < 0)), q + 1, q)
    return wrap_to(np.where(zero, 0, q), dt)


def zero_divisor_checked(rules: ElementwiseRules, dt: D.DType) -> bool:
    """Whether an integer division of ``dt`` by zero is an error (else it gives 0: the a5
    64-bit integer division, ``ElementwiseRules.int64_zero_divisor_gives_zero``)."""
    return not (rules.int64_zero_divisor_gives_zero and dt.is_int and dt.size_bytes == 8)


def shift_counts_masked(rules: ElementwiseRules, dt: D.DType) -> bool:
    """Whether a shift of ``dt`` uses ``count & 63`` (a5 64-bit types,
    ``ElementwiseRules.int64_shift_count_mod_64``), so that no count is out of range."""
    return rules.int64_shift_count_mod_64 and dt.size_bytes == 8


def shift_counts(rules: ElementwiseRules, dt: D.DType, counts):
    """The counts a shift of ``dt`` uses (``shift_counts_masked``), else the counts as given."""
    if shift_counts_masked(rules, dt):
        return np.bitwise_and(np.asarray(counts, dtype=dt.np), np.asarray(63, dtype=dt.np))
    return counts


def shift_width(dt: D.DType) -> int:
    """Bits of the C++-promoted type a shift of ``dt`` is computed in."""
    return 64 if dt.size_bytes == 8 else 32


def _shift(op: str, a: np.ndarray, counts: np.ndarray, dt: D.DType) -> np.ndarray:
    """``a << n`` / ``a >> n`` after integer promotion, truncated to T (counts in range)."""
    n = counts.astype(np.int64)
    if dt.size_bytes == 8:
        x = a.astype(dt.np)
        with np.errstate(all="ignore"):
            if op == "SHL":  # modular in the 64-bit type (C++20)
                return (x.view(np.uint64) << n.astype(np.uint64)).view(dt.np)
            return x >> n.astype(x.dtype)  # arithmetic for int64, logical for uint64
    x = a.astype(np.int64)  # sign- or zero-extended like the promoted int / unsigned
    r = (x << n) if op == "SHL" else (x >> n)
    return wrap_to(r, dt)


def elementwise(op: str, dt: D.DType, a, b, rule: MaxMin) -> np.ndarray:
    """``a OP b`` elementwise in element type ``dt`` (module doc); MAX/MIN under ``rule``.

    ``a`` is the first operand (src0 / the tile), ``b`` the second (src1 / the scalar). Integer
    DIV expects non-zero divisors and SHL/SHR in-range counts (the callers check, see
    ``first_bad_divisor`` / ``first_bad_shift``).
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=dt.np), np.asarray(b, dtype=dt.np))
    if op in BITWISE and dt.is_float:  # vand/vor on the bit patterns (module doc)
        bits = np.dtype(f"u{dt.size_bytes}")
        x, y = np.ascontiguousarray(a).view(bits), np.ascontiguousarray(b).view(bits)
        fn = {"AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}[op]
        return fn(x, y).view(dt.np)
    if op in ("MAX", "MIN"):
        return maxmin(rule, op, a, b).astype(dt.np)
    if dt.is_float:
        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(all="ignore"):
            r = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide}[op](x, y)
        return round_to(r, dt)
    if op == "DIV":
        return _int_div(a, b, dt)
    if op in SHIFTS:
        return _shift(op, a, b, dt)
    if op in BITWISE:
        fn = {"AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}[op]
        return fn(a, b).astype(dt.np)
    with np.errstate(all="ignore"):  # ADD/SUB/MUL wrap in T (modular, like promote + truncate)
        r = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply}[op](a, b)
    return r.astype(dt.np)


def first_bad_divisor(op: str, dt: D.DType, divisor: np.ndarray):
    """Index of the first zero integer divisor of a DIV, or None."""
    if op != "DIV" or not dt.is_int:
        return None
    bad = np.argwhere(np.asarray(divisor) == 0)
    return tuple(int(i) for i in bad[0]) if bad.size else None


def first_bad_shift(op: str, dt: D.DType, counts: np.ndarray):
    """Index of the first shift count outside ``[0, promoted width)``, or None."""
    if op not in SHIFTS:
        return None
    n = np.asarray(counts)
    wide = n.astype(np.float64) if n.dtype.kind == "u" else n.astype(np.int64)
    bad = np.argwhere((wide < 0) | (wide >= shift_width(dt)))
    return tuple(int(i) for i in bad[0]) if bad.size else None


def execution_error(instr, what: str, where, operand: str, value) -> ExecutionError:
    """The ExecutionError of a zero divisor / bad shift count at ``where`` = (row, col)."""
    src = f" ({instr.source})" if instr.source else ""
    pos = f"element ({where[0]}, {where[1]})" if len(where) == 2 else f"element {where}"
    return ExecutionError(
        f"{instr.label}{src}: {what} at {pos} of the valid region "
        f"({operand} = {value}); nothing was written"
    )


def check_operands_distinct(instr, names: tuple[str, ...]) -> None:
    """ConstraintError ``distinct-buffers`` when two of the named tiles share UB bytes (the
    a2a3 PTO_ASSERT of TXOR/TANDS/TORS/TXORS); tiles without an address yet are skipped."""
    refs = [(n, getattr(instr, n)) for n in names if getattr(instr, n) is not None]
    for i, (na, a) in enumerate(refs):
        for nb, b in refs[i + 1 :]:
            if a.address is None or b.address is None:
                continue
            if a.address < b.address + b.size_bytes and b.address < a.address + a.size_bytes:
                instr.fail(
                    nb,
                    "distinct-buffers",
                    f"a tile sharing no bytes with {na} {a.name} "
                    f"[{a.address:#x}, {a.address + a.size_bytes:#x})",
                    f"{b.name} [{b.address:#x}, {b.address + b.size_bytes:#x})",
                    f"a2a3 {instr.opcode} asserts that its operands are distinct buffers",
                )


def odd_byte_padding(bitwise: Bitwise, dt: D.DType, valid_col: int) -> bool:
    """``Bitwise.B16_LANES`` (a2a3) bitwise ops on 1-byte types run on 16-bit lanes: an odd
    valid width also writes the byte at column C of each row."""
    return bitwise is Bitwise.B16_LANES and dt.size_bytes == 1 and valid_col % 2 == 1


def pad_bytes(ref: TileRef, rows: int, col: int) -> np.ndarray:
    """Storage offsets of column ``col`` of rows [0, rows) of a RowMajor tile."""
    return np.arange(rows, dtype=np.int64) * ref.cols + col


# -- the instruction ------------------------------------------------------------------------
class TBinary(VectorInstruction):
    """``OP(dst, src0, src1[, tmp])``: dst = src0 OP src1 over dst's valid region."""

    reads = ("src0", "src1")
    writes = ("dst", "tmp")

    def __init__(
        self, op: str, dst: TileRef, src0: TileRef, src1: TileRef, tmp: TileRef | None = None
    ):
        if op not in OPS:
            raise ValueError(f"unknown tile-tile op {op!r}")
        self.op = op
        self.opcode = f"T{op}"
        self.dst, self.src0, self.src1, self.tmp = dst, src0, src1, tmp

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d = self.dst
        self.require_vec("dst", d, arch)
        self.require_element_dtype("dst", d, arch)
        for name in ("src0", "src1"):
            ref = getattr(self, name)
            self.require_vec(name, ref, arch)
            self.require_same_dtype("dst", d, name, ref)
            self.require_same_valid("dst", d, name, ref)
        t = self.tmp
        b16 = arch.spec.elementwise.bitwise is Bitwise.B16_LANES
        if t is not None:
            self.require_loc("tmp", t)
            if b16:  # the four-step TXOR writes tmp
                self.require_vec("tmp", t, arch)
                self.require_same_dtype("dst", d, "tmp", t)
                self.require_same_valid("dst", d, "tmp", t)
        if self.op == "XOR" and b16:
            self.require(
                t is not None, "tmp", "tmp-required", "a tmp tile (a2a3 TXOR uses it)", None
            )
            check_operands_distinct(self, ("dst", "src0", "src1", "tmp"))

    def execute(self, ctx: ExecContext) -> None:
        d, s0, s1 = self.dst, self.src0, self.src1
        R, C = d.valid
        bitwise, rule = ctx.spec.elementwise.bitwise, ctx.spec.numerics.maxmin
        b16 = bitwise is Bitwise.B16_LANES
        if self.op == "XOR" and b16:
            check_operands_distinct(self, ("dst", "src0", "src1", "tmp"))
        if R == 0 or C == 0:
            return
        dt = d.dtype
        a, b = ctx.tile_read(s0), ctx.tile_read(s1)
        if self.op in SHIFTS:
            b = shift_counts(ctx.spec.elementwise, dt, b)
        for bad, what in (
            (
                first_bad_divisor(self.op, dt, b)
                if zero_divisor_checked(ctx.spec.elementwise, dt)
                else None,
                "integer division by zero",
            ),
            (first_bad_shift(self.op, dt, b), f"shift count outside [0, {shift_width(dt)})"),
        ):
            if bad is not None:
                raise execution_error(self, what, bad, "src1", b[bad])
        out = elementwise(self.op, dt, a, b, rule)
        pad = odd_byte_padding(bitwise, dt, C) and self.op in BITWISE
        if pad:
            pa = ctx.tile_storage(s0)[pad_bytes(s0, R, C)]
            pb = ctx.tile_storage(s1)[pad_bytes(s1, R, C)]
        if self.op == "XOR" and b16:  # tmp = src0 | src1 (step 1 of 4)
            ctx.tile_write(self.tmp, elementwise("OR", dt, a, b, rule))
            if pad:
                ctx.tile_storage(self.tmp)[pad_bytes(self.tmp, R, C)] = np.bitwise_or(pa, pb)
        ctx.tile_write(d, out)
        if pad:
            ctx.tile_storage(d)[pad_bytes(d, R, C)] = elementwise(self.op, dt, pa, pb, rule)


# -- the kernel-facing API ------------------------------------------------------------------
def _emit(op: str, dst, src0, src1, tmp=None) -> None:
    name = f"T{op}"
    emit(
        TBinary(
            op,
            _tile(dst, f"{name} dst"),
            _tile(src0, f"{name} src0"),
            _tile(src1, f"{name} src1"),
            None if tmp is None and op != "XOR" else _tile(tmp, f"{name} tmp"),
        )
    )


_FAMILY = "elementwise tile-tile"


@instruction(family=_FAMILY, summary="dst = src0 + src1")
def TADD(dst, src0, src1) -> None:
    """``dst = src0 + src1`` over dst's valid region."""
    _emit("ADD", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = src0 - src1")
def TSUB(dst, src0, src1) -> None:
    """``dst = src0 - src1`` over dst's valid region."""
    _emit("SUB", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = src0 * src1")
def TMUL(dst, src0, src1) -> None:
    """``dst = src0 * src1`` over dst's valid region."""
    _emit("MUL", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = src0 / src1")
def TDIV(dst, src0, src1, *, algorithm="DEFAULT") -> None:
    """``dst = src0 / src1`` over dst's valid region (integers truncate toward zero); the
    quotient is correctly rounded under either ``algorithm`` (the C++ DivAlgorithm).

    Raises:
        ExecutionError: (at run time) an integer division by zero.
    """
    check_algorithm("TDIV", algorithm)
    _emit("DIV", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = max(src0, src1)")
def TMAX(dst, src0, src1) -> None:
    """``dst = max(src0, src1)`` (cpu: std::max, first operand kept; NPU: IEEE maximum)."""
    _emit("MAX", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = min(src0, src1)")
def TMIN(dst, src0, src1) -> None:
    """``dst = min(src0, src1)`` (cpu: std::min, first operand kept; NPU: IEEE minimum)."""
    _emit("MIN", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = src0 & src1")
def TAND(dst, src0, src1) -> None:
    """``dst = src0 & src1`` over dst's valid region."""
    _emit("AND", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = src0 | src1")
def TOR(dst, src0, src1) -> None:
    """``dst = src0 | src1`` over dst's valid region."""
    _emit("OR", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = src0 ^ src1 (tmp: a2a3 scratch)")
def TXOR(dst, src0, src1, tmp) -> None:
    """``dst = src0 ^ src1``; a2a3 computes it in four steps through ``tmp`` (written)."""
    _emit("XOR", dst, src0, src1, tmp)


@instruction(family=_FAMILY, summary="dst = src0 << src1")
def TSHL(dst, src0, src1) -> None:
    """``dst = src0 << src1`` (C++ promotion, truncated to T).

    Raises:
        ExecutionError: (at run time) a shift count outside the promoted type's width.
    """
    _emit("SHL", dst, src0, src1)


@instruction(family=_FAMILY, summary="dst = src0 >> src1")
def TSHR(dst, src0, src1) -> None:
    """``dst = src0 >> src1`` (arithmetic for signed types, C++ promotion, truncated to T).

    Raises:
        ExecutionError: (at run time) a shift count outside the promoted type's width.
    """
    _emit("SHR", dst, src0, src1)
