"""TCVT: element type conversion (vector_isa.md 3.7, 2.3, 4 item 3).

``TCVT(dst, src, mode="CAST_RINT", sat=None, tmp=None, *, need_set_ctrl=True)`` mirrors
``TCVT<NeedSetCtrl>(dst, src[, tmp], RoundMode mode[, SaturationMode sat])``; a Tile passed as
the third positional argument is the C++ overload's ``tmp``.

Iteration domain: a2a3/a5 = dst's valid shape; cpu = **src's** valid shape (``cpu/TCvt.hpp``).
``dst[i, j] = cvt(src[i, j])``; nothing outside that region is written.

Round modes (``RoundMode``): CAST_NONE, CAST_RINT (nearest, ties even), CAST_ROUND (nearest,
ties away), CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD. Per target (``ConvertRules``):

- cpu (``ConvertRounding.HOST_CAST``): float -> int applies the mode in double (CAST_NONE = the C
  cast's truncation, CAST_ODD = nearest with ties to the odd integer), then the C cast; float ->
  float and int -> float are plain C casts (round to nearest even whatever the mode; an int64 source
  is rounded to double first, as the host does); int -> int wraps.
- a2a3 (``INTRINSIC_TABLE``): one ``vconv_<s>2<d><suffix>`` intrinsic per pair (suffix
  r/a/f/c/z/o); a mode the pair's intrinsic family lacks, and CAST_NONE, take the pair's default
  (the target's ``ConvertRules.pairs``);
  "plain" int -> float intrinsics round to nearest even (choice: the hardware's default).
  CAST_ODD on a float destination is round-to-odd (sticky). float32 -> float32
  (``vconv_f322f32<m>``) rounds each value to an integral float32 by the mode
  (``ConvertRules.same_float_to_integral``).
- a5 (``VCVT_MODE``): ``vcvt`` with the mode; CAST_NONE (and CAST_ODD except for f32 -> f16) is
  truncation for float -> int and round-to-nearest-even otherwise.

Saturation (``SaturationMode`` ON / OFF; CTRL bit 59 on a2a3): default OFF for the six narrowing
pairs f16->u8, f16->i8, f32->i16, f16->i16, i64->i32, i32->i16 and ON for every other pair on
a2a3/a5; cpu default OFF for all. a2a3 honours an explicit ``sat`` only for the six pairs (ON
otherwise). ON clamps to the destination range, OFF keeps the low bits (300.0 -> int8 = 44).
Choices (the reference does not say, flagged by finding F109 when data hits them): on the NPU,
NaN -> integer gives 0 and +-inf -> integer gives the saturated limit, whatever ``sat``; on a2a3
saturation only concerns integer destinations (float -> float follows IEEE overflow of the
rounding mode); on a5 a narrowing float -> float conversion with sat ON clamps every
non-NaN value (inf included) to +-max finite, with sat OFF overflows as IEEE does (float8 e4m3
has no infinity: NaN). ``need_set_ctrl=False`` leaves CTRL as the caller set it; ptosim models
no CTRL writes by kernels, so the reset state applies (bit 59 = 0: saturate).

cpu saturation (``sat="ON"`` explicitly): clamp in double to ``[max(lowest_S, lowest_D),
min(max_S, max_D)]`` (NaN -> the upper limit), convert that double back to S (re-rounding:
2147483647 -> 2147483648.0f for f32), then convert. A float -> int value outside the destination
range is undefined behaviour on the host: ptosim gives what x86-64 code gives (the cvttsd2si
"integer indefinite" of the conversion width the compiler uses: 64 bits for u8/u32/i64/u64,
32 bits otherwise, then the store truncates) and reports finding F109.

a2a3 ``tmp`` with sat OFF (f32->i16, f16->i16, f16->i8): the "PyTorch-compatible" two-step path
through int32 (f32 -> i32 saturating, then the low bits). Numerically that equals the one-step
OFF result except that a value beyond int32 (+-inf, an f32 beyond 2^31) is clamped to int32
first, so +inf gives the low bits of INT32_MAX (-1 for i8/i16) and -inf those of INT32_MIN
(0). The tmp tile holds the int32 intermediates afterwards, packed row after row from tmp's
address, as many as fit in tmp (choice: the chunk layout of the reference is not public).
Without tmp these pairs use the plain intrinsic with bit 59 = 1. a5 ignores tmp.

hifloat8 (a5 f32/f16 -> hif8, hif8 -> f32; ``ptosim/hifloat8.py`` is the format): the a5
code converts to hifloat8 with ROUND_A whatever the mode (npu/a5 TCvt.hpp passes ROUND_A to
every hif8 vcvt): nearest, ties away from zero. With sat ON (the default) a value beyond the
largest finite hifloat8 (2^15) becomes +-2^15, as every narrowing float conversion on a5 does;
with sat OFF it becomes the infinity pattern. NaN -> 0x80. hif8 -> f32 is exact.

int4b_t (a2a3 f16 <-> s4, packed two per byte as ``ptosim/nibbles.py`` places them): the value
is computed as for an integer destination and clamped to [-8, 7] (sat ON: the pair is not one
of the six narrowing pairs), then stored as its low four bits; an int4 source reads each nibble
as a two's complement value. Nibbles of the iterated region only are written: with an odd valid
column count the last byte's high nibble keeps its value (choice: the vector mask covers the
elements, not whole bytes).

fp4 (a5 bf16 <-> float4_e2m1x2_t / float4_e1m2x2_t, ``ptosim/nibbles.py``): bf16 -> fp4 rounds
by the mode (``vcvt`` with R()) and saturates to the format's largest value (it has no
infinity), NaN -> +0 (choice: no NaN pattern); the valid rows' bytes are zeroed first and whole
bytes written (``ConvertRules.packed_whole_bytes``). fp4 -> bf16 is exact.

cpu (cpu/TCvt.hpp) converts int4 and fp4 with any float-like type: sat ON first clamps the
value to both types' limits (its SafeLimits: int4 [-8, 7], e2m1 [-6, 6], e1m2 [-4, 3.5]; no
clamp for an fp4 source), then a float or fp4 source is rounded to an integral value by the
mode (CAST_NONE leaves it), then int4 clamps to [-8, 7] and fp4 takes the simulator's
truncating encoding, which wraps the exponent of a value past the format's range
(``nibbles.float4_fields_truncating``: 8.0 -> e2m1 field 0). int4 is one element per byte.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ... import dtypes as D
from ... import hifloat8, nibbles
from ...findings import CONVERSION_UNDEFINED
from ...program import emit
from ...tensors import Tile, TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from ..spec import ConvertRounding, ConvertRules, Saturation
from .common import VectorInstruction, host_cast_to_int
from .unary import overlaps

__all__ = ["TCVT", "ROUND_MODES", "SAT_MODES"]

ROUND_MODES = (
    "CAST_NONE",
    "CAST_RINT",
    "CAST_ROUND",
    "CAST_FLOOR",
    "CAST_CEIL",
    "CAST_TRUNC",
    "CAST_ODD",
)
SAT_MODES = ("ON", "OFF")

_SUFFIX = {
    "CAST_RINT": "r",
    "CAST_ROUND": "a",
    "CAST_FLOOR": "f",
    "CAST_CEIL": "c",
    "CAST_TRUNC": "z",
    "CAST_ODD": "o",
}
_HOW = {"r": "rint", "a": "round", "f": "floor", "c": "ceil", "z": "trunc", "o": "odd", "": "rint"}

f32, f16, bf16 = D.float32, D.half, D.bfloat16
i8, u8, i16, u16, i32, u32, i64 = D.int8, D.uint8, D.int16, D.uint16, D.int32, D.uint32, D.int64
e4m3, e5m2, hif8 = D.float8_e4m3, D.float8_e5m2, D.hifloat8


# -- exact numerics ---------------------------------------------------------------------------
def integral(q: np.ndarray, how: str) -> np.ndarray:
    """float64 ``q`` rounded to an integral float64 by ``how``: rint (ties even), round (ties
    away), floor, ceil, trunc, odd (inexact -> the odd neighbour), ties_odd (nearest, ties to
    the odd integer). inf and NaN pass through; signed zeros are kept."""
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        if how == "rint":
            return np.rint(q)
        if how == "floor":
            return np.floor(q)
        if how == "ceil":
            return np.ceil(q)
        if how == "trunc":
            return np.trunc(q)
        t = np.trunc(q)
        frac = np.abs(q - t)
        step = t + np.copysign(1.0, q)
        t_odd = np.fmod(t, 2.0) != 0
        if how == "round":
            return np.where(frac >= 0.5, step, t)
        if how == "odd":
            return np.where((frac > 0) & ~t_odd, step, t)
        if how == "ties_odd":
            return np.where(frac > 0.5, step, np.where((frac == 0.5) & ~t_odd, step, t))
    raise ValueError(f"unknown rounding {how!r}")


def _float_format(dt: D.DType) -> tuple[int, int, float]:
    """(precision bits incl. the implicit one, minimum normal exponent, max finite)."""
    if dt.packed:
        return nibbles.float4_format(dt.name)
    fi = ml_dtypes.finfo(dt.np)
    return int(fi.nmant) + 1, int(fi.minexp), float(fi.max)


def round_float(x, dt: D.DType, how: str, *, saturate: bool = False) -> np.ndarray:
    """Exact values ``x`` (float64) rounded to float type ``dt`` by ``how`` (``integral``'s
    names), as float64 holding the result exactly (may be +-inf; ``astype(dt.np)`` is then
    exact, except that an overflow to inf becomes NaN for float8 e4m3, which has no inf).

    Overflow: the modes that round away from zero on that side give +-inf, the others +-max.
    ``saturate``: every non-NaN value is clamped to [-max, max] afterwards.
    """
    p, emin, fmax = _float_format(dt)
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    m = np.isfinite(x) & (x != 0)
    if np.any(m):
        xs = x[m]
        _, e = np.frexp(xs)  # xs = f * 2**e, 0.5 <= |f| < 1: the leading bit is 2**(e-1)
        ulp_exp = np.maximum(e - 1, emin) - (p - 1)
        r = np.ldexp(integral(np.ldexp(xs, -ulp_exp), how), ulp_exp)
        big = np.abs(r) > fmax
        if np.any(big):
            away = {
                "rint": np.ones_like(big),
                "round": np.ones_like(big),
                "ties_odd": np.ones_like(big),
                "floor": xs < 0,
                "ceil": xs > 0,
                "trunc": np.zeros_like(big),
                "odd": np.zeros_like(big),
            }[how]
            lim = np.where(away, np.inf, fmax)
            r = np.where(big, np.copysign(lim, xs), r)
        out[m] = r
    if saturate:
        out = np.where(np.isnan(out), out, np.clip(out, -fmax, fmax))
    return out


def int_to_f64_odd(n: np.ndarray) -> np.ndarray:
    """int64 values as float64 rounded to odd (exact when they fit 53 bits); any later
    rounding to a format of <= 51 bits is then the correct rounding of the integer."""
    n = np.asarray(n, dtype=np.int64)
    hi = (n >> 32).astype(np.float64) * 4294967296.0  # exact
    lo = (n & 0xFFFFFFFF).astype(np.float64)  # exact
    s = hi + lo
    bb = s - hi  # TwoSum: err = (hi + lo) - s exactly
    err = (hi - (s - bb)) + (lo - bb)
    even = (s.view(np.int64) & 1) == 0
    bump = (err != 0) & even
    return np.where(bump, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def saturate_int(r: np.ndarray, dt: D.DType) -> np.ndarray:
    """Integral float64 values (no NaN) clamped to ``dt``'s range, as ``dt``."""
    info = np.iinfo(dt.np)
    lo, hi = float(info.min), float(info.max)
    r = np.asarray(r, dtype=np.float64)
    out = np.empty(r.shape, dtype=dt.np)
    below, above = r <= lo, r >= hi
    mid = ~(below | above)
    out[below], out[above] = info.min, info.max
    out[mid] = r[mid].astype(np.uint64 if dt.kind == "uint" else np.int64).astype(dt.np)
    return out


def low_bits(r: np.ndarray, dt: D.DType) -> np.ndarray:
    """Integral finite float64 values reduced modulo 2**bits into ``dt`` (two's complement)."""
    r = np.asarray(r, dtype=np.float64)
    bits = 8 * dt.size_bytes
    out = np.empty(r.shape, dtype=dt.np)
    small = np.abs(r) < 2.0**63
    out[small] = r[small].astype(np.int64).astype(dt.np)
    for k in np.flatnonzero(~small.ravel()):  # |r| >= 2**63: exact Python integers
        v = int(r.ravel()[k]) % (1 << bits)
        out.ravel()[k] = np.array(v, dtype=np.uint64).astype(dt.np)
    return out


def to_f64(values: np.ndarray, dt: D.DType) -> np.ndarray:
    """Source values as float64 (exact for every float and <= 32-bit integer type)."""
    return np.asarray(values).astype(np.float64)


def _is_narrowing_float(s: D.DType, d: D.DType) -> bool:
    return s.is_float and d.is_float and _float_format(d)[2] < _float_format(s)[2]


# -- the conversion per target ----------------------------------------------------------------
class Conversion:
    """How one TCVT converts under a target's rules: the rounding, the saturation, the
    intrinsic."""

    def __init__(
        self, rules: ConvertRules, s: D.DType, d: D.DType, mode: str, sat: str | None, tmp
    ):
        self.rules, self.s, self.d, self.mode = rules, s, d, mode
        self.intrinsic = "vcvt" if rules.rounding is ConvertRounding.VCVT_MODE else ""
        narrow_off = (s, d) in rules.narrowing_sat_off
        if rules.saturation is Saturation.EXPLICIT_ONLY:
            self.sat = sat == "ON"
        elif rules.saturation is Saturation.NARROWING_PAIRS:
            self.sat = (sat or "OFF") == "ON" if narrow_off else True
        else:
            self.sat = (sat or ("OFF" if narrow_off else "ON")) == "ON"
        self.two_step = tmp is not None and not self.sat and (s, d) in rules.tmp_two_step_pairs
        self.how = self._how()
        # int4 is computed as int8 (its values fit), then narrowed to 4 bits; hifloat8 has its
        # own codec (module doc)
        self.packed_src, self.packed_dst = s.packed, d.packed
        self.hif8_src, self.hif8_dst = s is hif8, d is hif8
        self.fp4_src, self.fp4_dst = s.kind == "float4", d.kind == "float4"
        self.fp4_name = d.name if self.fp4_dst else s.name
        self.packed = (s, d)  # the declared types (self.s / self.d: the numeric stand-ins)
        self.s, self.d = _numeric(s), _numeric(d)

    def _how(self) -> str:
        s, d, mode = self.s, self.d, self.mode
        rounding = self.rules.rounding
        if rounding is ConvertRounding.HOST_CAST:
            if s.is_float and d.is_int:
                return {"CAST_NONE": "trunc", "CAST_ODD": "ties_odd"}.get(
                    mode, _HOW[_SUFFIX.get(mode, "r")]
                )
            return "rint"
        if rounding is ConvertRounding.INTRINSIC_TABLE:
            family, have, default = self.rules.pairs[(s, d)]
            suffix = _SUFFIX.get(mode, "")
            suffix = suffix if suffix and suffix in have else default
            self.intrinsic = family + suffix
            return _HOW[suffix]
        float_to_int = s.is_float and d.is_int
        if mode == "CAST_NONE" or (mode == "CAST_ODD" and (s, d) != (f32, f16)):
            return "trunc" if float_to_int else "rint"
        return _HOW[_SUFFIX[mode]]

    def convert(self, v: np.ndarray) -> tuple[np.ndarray, int]:
        """``v`` (source dtype; 4-bit fields for a packed source) converted (4-bit fields for a
        packed destination); also the count of elements whose result the reference leaves
        undefined (host UB, NaN/inf -> int on the NPU)."""
        host = self.rules.rounding is ConvertRounding.HOST_CAST
        if host and (self.packed_src or self.packed_dst):
            return self._host_packed(v), 0
        if self.fp4_src:  # every fp4 value is a bfloat16
            return nibbles.float4_table(self.fp4_name)[v].astype(self.d.np), 0
        if self.fp4_dst:  # the format has no infinity: always saturating
            x = round_float(to_f64(v, self.s), self.d, self.how, saturate=True)
            return nibbles.float4_fields(x, self.fp4_name), 0
        if self.packed_src:
            v = nibbles.int4_values(v)
        if self.hif8_src:  # every hifloat8 value is a float32
            return hifloat8.decode(v).astype(self.d.np), 0
        if self.hif8_dst:
            x = to_f64(v, self.s)
            if self.sat and self.rules.saturate_narrowing_floats:
                big = float(hifloat8.MAX_FINITE)
                x = np.where(np.isnan(x), x, np.clip(x, -big, big))
            return hifloat8.encode(x), 0
        out, undefined = self._convert(v)
        if self.packed_dst:  # sat ON: the pair is not one of the narrowing six
            out = nibbles.int4_fields(np.clip(out.astype(np.int16), -8, 7))
        return out, undefined

    def _host_packed(self, v: np.ndarray) -> np.ndarray:
        """cpu/TCvt.hpp's int4 and fp4 paths (module doc): sat ON clamps to both types' limits
        (``packed_sat_limits`` for the 4-bit ones; not for an fp4 source); a float or fp4
        source is rounded to an integral value by the mode (CAST_NONE: unchanged); int4 clamps
        to [-8, 7]; fp4 is encoded by truncation (``nibbles.float4_fields_truncating``)."""
        s, d = self.packed
        if self.fp4_src:
            x = nibbles.float4_table(s.name)[v]
        elif self.packed_src:
            x = nibbles.int4_values(v).astype(np.float64)
        else:
            x = to_f64(v, s)
        if self.sat and not self.fp4_src:
            limits = self.rules.packed_sat_limits
            lo_s, hi_s = limits.get(s) or _limits(s)
            lo_d, hi_d = limits.get(d) or _limits(d)
            lo, hi = max(lo_s, lo_d), min(hi_s, hi_d)
            x = np.where(np.isnan(x), hi, np.clip(x, lo, hi))
        if not s.is_int and s.kind != "int4":  # float-like sources: the mode's integral value
            how = {"CAST_ODD": "ties_odd"}.get(self.mode, _HOW.get(_SUFFIX.get(self.mode, "")))
            x = x if self.mode == "CAST_NONE" else integral(x, how)
        if self.packed_dst and not self.fp4_dst:  # then the C cast truncates
            return nibbles.int4_fields(np.trunc(np.clip(x, -8, 7)))
        if self.fp4_dst:
            return nibbles.float4_fields_truncating(x, d.name)
        if d.is_float:
            return round_float(x, d, "rint").astype(d.np)
        return x.astype(np.int64).astype(d.np)  # int4 -> an integer type: the value

    def _convert(self, v: np.ndarray) -> tuple[np.ndarray, int]:
        s, d = self.s, self.d
        if self.rules.rounding is ConvertRounding.HOST_CAST:
            return self._host(v)
        if s.is_int and d.is_int:
            x = v.astype(np.int64)
            info = np.iinfo(d.np)
            if self.sat:
                return np.clip(x, info.min, info.max).astype(d.np), 0
            return x.astype(d.np), 0
        if s.is_int:  # int -> float
            x = int_to_f64_odd(v) if s.size_bytes == 8 else to_f64(v, s)
            return round_float(x, d, self.how).astype(d.np), 0
        x = to_f64(v, s)
        if s is d and self.rules.same_float_to_integral:  # round to an integral value
            return integral(x, self.how).astype(d.np), 0
        if d.is_float:
            sat = self.rules.saturate_narrowing_floats and self.sat and _is_narrowing_float(s, d)
            return round_float(x, d, self.how, saturate=sat).astype(d.np), 0
        r = integral(x, self.how)
        nan, inf = np.isnan(r), np.isinf(r)
        fin = ~(nan | inf)
        out = saturate_int(np.where(fin, r, np.where(nan, 0.0, r)), d)
        if not self.sat:
            if self.two_step:  # saturating -> i32 first (+-inf included), then the low bits
                wide = saturate_int(np.where(nan, 0.0, r), i32).astype(np.float64)
                out = low_bits(wide, d)
            else:
                out = np.where(fin, low_bits(np.where(fin, r, 0.0), d), out)
        return out.astype(d.np), int(np.count_nonzero(~fin))

    def _host(self, v: np.ndarray) -> tuple[np.ndarray, int]:
        s, d = self.s, self.d
        if s.size_bytes == 8 and s.is_int:
            x = v.astype(np.float64)  # the host rounds int64 to double first
        else:
            x = to_f64(v, s)
        if self.sat:  # clamp in double, then back to S (re-rounds)
            lo_s, hi_s = _limits(s)
            lo_d, hi_d = _limits(d)
            lo, hi = max(lo_s, lo_d), min(hi_s, hi_d)
            x = np.where(np.isnan(x), hi, np.clip(x, lo, hi))
            if s.is_float:
                x = round_float(x, s, "rint").astype(s.np).astype(np.float64)
            else:
                back, _ = host_cast_to_int(x, s)
                x = back.astype(np.float64)
        if d.is_float:
            return round_float(x, d, "rint").astype(d.np), 0
        if s.is_int:  # int -> int: C cast wraps
            return v.astype(np.int64).astype(d.np) if not self.sat else (
                host_cast_to_int(x, d)[0]
            ), 0
        out, ub = host_cast_to_int(integral(x, self.how), d)
        return out, int(np.count_nonzero(ub))


def _numeric(dt: D.DType) -> D.DType:
    """The dtype a conversion computes ``dt``'s values in: int8 for int4, else ``dt`` (fp4
    keeps its own: ``_float_format`` knows it)."""
    return i8 if dt.kind == "int4" else dt


def _limits(dt: D.DType) -> tuple[float, float]:
    if dt.is_int:
        info = np.iinfo(dt.np)
        return float(info.min), float(info.max)
    fmax = _float_format(dt)[2]
    return -fmax, fmax


# -- the instruction --------------------------------------------------------------------------
class TCvt(VectorInstruction):
    """TCVT(dst, src[, tmp], mode[, sat]): element type conversion (module doc)."""

    opcode = "TCVT"
    reads = ("src",)
    writes = ("dst", "tmp")

    def __init__(
        self,
        dst: TileRef,
        src: TileRef,
        mode: str,
        sat: str | None,
        tmp: TileRef | None = None,
        need_set_ctrl: bool = True,
    ):
        self.dst, self.src, self.tmp = dst, src, tmp
        self.mode, self.sat, self.need_set_ctrl = mode, sat, need_set_ctrl
        self.conv: Conversion | None = None

    def conversion(self, rules: ConvertRules) -> Conversion:
        # need_set_ctrl=False leaves CTRL as the kernel set it: its reset state saturates
        sat = self.sat if self.need_set_ctrl or not rules.ctrl_register else "ON"
        return Conversion(rules, self.src.dtype, self.dst.dtype, self.mode, sat, self.tmp)

    def domain(self, rules: ConvertRules) -> tuple[int, int]:
        """The iterated (rows, cols): src's valid shape on cpu, dst's on the NPU."""
        return self.src.valid if rules.iterates_src_valid else self.dst.valid

    def validate(self, arch: Arch) -> None:
        rules = arch.spec.convert
        self.require_defined(arch)
        d, s = self.dst, self.src
        self.require(self.mode in ROUND_MODES, "mode", "round-mode", ROUND_MODES, self.mode)
        self.require(
            self.sat is None or self.sat in SAT_MODES, "sat", "sat-mode", SAT_MODES, self.sat
        )
        self.require_vec("dst", d, arch)
        self.require_vec("src", s, arch)
        if self.tmp is not None:
            self.require_loc("tmp", self.tmp)
        self.require_element_dtype("src", s, arch)
        self.require_element_dtype("dst", d, arch)
        pair = (s.dtype, d.dtype)
        pairs = rules.pairs
        if pairs is not None and pair not in pairs:
            names = ", ".join(f"{a.name}->{b.name}" for a, b in sorted(pairs, key=str))
            self.unsupported(
                "dst",
                "conversion-pair",
                f"a (src, dst) pair the {arch.target} TCVT implements ({names})",
                f"{s.dtype.name} -> {d.dtype.name}",
                "a2a3 compiles an unsupported pair to nothing; ptosim refuses it",
            )
        R, C = self.domain(rules)
        other, oname = (d, "dst") if rules.iterates_src_valid else (s, "src")
        self.require(
            other.rows >= R and other.cols >= C,
            oname,
            "valid-fits-tile",
            f"a tile of at least {R} x {C} (the iterated valid shape)",
            f"{other.rows} x {other.cols}",
        )
        if rules.distinct_when_resizing and s.dtype.size_bytes != d.dtype.size_bytes:
            overlap = _overlap(s, d)
            self.require(
                not overlap,
                "dst",
                "in-place",
                "dst and src at distinct UB bytes (a2a3 TCVT between element sizes is not "
                "in-place safe)",
                f"dst {_where(d)}+{d.size_bytes}, src {_where(s)}+{s.size_bytes}",
            )
        self.conv = self.conversion(rules)

    def execute(self, ctx: ExecContext) -> None:
        rules = ctx.spec.convert
        conv = self.conv or self.conversion(rules)
        R, C = self.domain(rules)
        if R == 0 or C == 0:
            return
        d, s = self.dst, self.src
        r, c = s.geom.grid(R, C)
        placed = ctx.spec.layout.nibbles  # the packed dtypes' placement (nibbles.py)
        if s.dtype.packed:
            v = nibbles.read(ctx.tile_storage(s), s, r, c, placed[s.dtype].value)
        else:
            v = ctx.tile_storage(s)[s.offsets(r, c)]
        out, undefined = conv.convert(v)
        if conv.two_step:  # the int32 intermediate lands in tmp (module doc)
            wide = Conversion(rules, s.dtype, i32, self.mode, "ON", None).convert(v)[0]
            n = min(R * C, self.tmp.size_bytes // 4)
            t = ctx.memory_of(self.tmp).typed(self.tmp.address, i32, n, what=self.label)
            t[:] = wide.ravel()[:n]
        if d.dtype.packed and rules.packed_whole_bytes:  # valid rows zeroed, whole bytes
            store = ctx.tile_storage(d)
            store[: R * d.cols // 2] = 0
            k = C - C % 2
            nibbles.write(store, d, r[:, :k], c[:, :k], out[:, :k], placed[d.dtype].value)
        elif d.dtype.packed:
            nibbles.write(ctx.tile_storage(d), d, r, c, out, placed[d.dtype].value)
        else:
            ctx.tile_storage(d)[d.offsets(r, c)] = out
        if undefined:
            what = (
                "out-of-range or NaN/inf float -> integer conversion is undefined behaviour "
                "in C++ (ptosim gives the x86-64 result)"
                if rules.rounding is ConvertRounding.HOST_CAST
                else "NaN/inf -> integer is not specified by the reference (ptosim: NaN -> 0, "
                "+-inf -> the saturated limit)"
            )
            ctx.finding(
                CONVERSION_UNDEFINED,
                "conversion-undefined",
                f"TCVT {s.dtype.name} -> {d.dtype.name}: {undefined} element(s): {what}",
            )


@instruction(
    family="conversion", summary="dst = convert(src) with a RoundMode and a SaturationMode"
)
def TCVT(dst, src, mode="CAST_RINT", sat=None, tmp=None, *, need_set_ctrl=True) -> None:
    """``dst = convert(src)`` (module doc). ``TCVT(dst, src, tmp, mode[, sat])`` (a Tile as the
    third argument) is the C++ overload with a tmp tile.

    Args:
        mode: RoundMode name (``"CAST_RINT"`` ...).
        sat: SaturationMode ``"ON"``/``"OFF"`` or None for the target's default.
        tmp: scratch tile (a2a3 two-step paths; ignored elsewhere).
        need_set_ctrl: the NeedSetCtrl template parameter.
    """
    if isinstance(mode, Tile):  # TCVT(dst, src, tmp, mode[, sat])
        tmp, mode, sat = mode, ("CAST_RINT" if sat is None else sat), tmp
    emit(
        TCvt(
            _tile(dst, "TCVT dst"),
            _tile(src, "TCVT src"),
            mode,
            sat,
            None if tmp is None else _tile(tmp, "TCVT tmp"),
            bool(need_set_ctrl),
        )
    )


def _overlap(a, b) -> bool:
    """Whether two tile operands share UB bytes. Before placement (auto-placed tiles have no
    address while the kernel records) two different tiles never share bytes (the allocator gives
    each its own slot); two views of one tile compare their offsets in it."""
    if a.address is not None and b.address is not None:
        return overlaps(a, b)
    pa, pb = a.placement, b.placement
    if getattr(pa, "root", pa) is not getattr(pb, "root", pb):
        return False
    lo_a, lo_b = getattr(pa, "offset", 0), getattr(pb, "offset", 0)
    return lo_a < lo_b + b.size_bytes and lo_b < lo_a + a.size_bytes


def _where(ref) -> str:
    """A tile operand's UB address, or its place in its tile before placement."""
    if ref.address is not None:
        return f"{ref.address:#x}"
    return f"{ref.name} offset {getattr(ref.placement, 'offset', 0):#x}"
