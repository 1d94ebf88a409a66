"""Element types: the PTO dtype names mapped onto numpy / ml_dtypes storage.

hifloat8 is an 8-bit storage type moved bit-exactly, stored as uint8 but kept distinct by name;
``ptosim/hifloat8.py`` gives its values where an instruction computes with them.

Packed 4-bit types (``PACKED``: int4b_t, float4_e2m1x2_t, float4_e1m2x2_t) have ``bits == 4``:
two elements share a byte, the first in the low nibble. Their C++ element type is one byte
(``sizeof(int4b_t) == 1``), so a tile of them is sized like a uint8 tile; where the nibbles sit
inside those bytes is the target's rule (``ptosim/nibbles.py``, which also holds their values).
float8_e8m0 (``MX_SCALES``) is the MX block scale, a power of two per byte (ml_dtypes'
float8_e8m0fnu). These are in no dtype group of ``ALL``: a target lists them by name (``LISTED``)
for the instructions that handle them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from .errors import ConstraintError, KernelError


@dataclass(frozen=True)
class DType:
    """One PTO element type.

    Attributes:
        name: canonical ptosim name (``float32``, ``bfloat16``, ``hifloat8`` ...).
        np: numpy storage dtype.
        kind: ``int``, ``uint``, ``float``, ``opaque`` (bits only), ``int4`` (packed signed
            4-bit integers) or ``float4`` (packed 4-bit floats).
        cpp: the C++ spelling, used in error messages.
        bits: the element width when it is below a byte (4: packed two per byte), else 0.
    """

    name: str
    np: np.dtype
    kind: str
    cpp: str
    bits: int = 0

    @property
    def packed(self) -> bool:
        """Two elements per byte (``np`` is the byte that holds them)."""
        return self.bits == 4

    @property
    def size_bytes(self) -> int:
        return self.np.itemsize

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def c0(self) -> int:
        """Elements per 32-byte block (C0 of the NZ fractal)."""
        return 32 // self.size_bytes

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"DType({self.name})"


def _d(name: str, np_dtype, kind: str, cpp: str) -> DType:
    return DType(name, np.dtype(np_dtype), kind, cpp)


int8 = _d("int8", np.int8, "int", "int8_t")
uint8 = _d("uint8", np.uint8, "uint", "uint8_t")
int16 = _d("int16", np.int16, "int", "int16_t")
uint16 = _d("uint16", np.uint16, "uint", "uint16_t")
int32 = _d("int32", np.int32, "int", "int32_t")
uint32 = _d("uint32", np.uint32, "uint", "uint32_t")
int64 = _d("int64", np.int64, "int", "int64_t")
uint64 = _d("uint64", np.uint64, "uint", "uint64_t")
half = _d("half", np.float16, "float", "half")
bfloat16 = _d("bfloat16", ml_dtypes.bfloat16, "float", "bfloat16_t")
float32 = _d("float32", np.float32, "float", "float")
# Ascend float8_e4m3_t is the OCP E4M3 "FN" variant (no infinities, max 448).
float8_e4m3 = _d("float8_e4m3", ml_dtypes.float8_e4m3fn, "float", "float8_e4m3_t")
float8_e5m2 = _d("float8_e5m2", ml_dtypes.float8_e5m2, "float", "float8_e5m2_t")
hifloat8 = _d("hifloat8", np.uint8, "opaque", "hifloat8_t")
# AscendC / pto int4b_t: signed 4-bit integers in [-8, 7], two per byte (pto/common/type.hpp)
int4 = DType("int4", np.dtype(np.uint8), "int4", "int4b_t", bits=4)

# OCP MX 4-bit floats, two per byte (float4_e2m1x2_t: 1 sign, 2 exponent, 1 mantissa bits;
# float4_e1m2x2_t: 1, 1, 2; both bias 1, no inf or NaN)
float4_e2m1 = DType("float4_e2m1", np.dtype(np.uint8), "float4", "float4_e2m1x2_t", bits=4)
float4_e1m2 = DType("float4_e1m2", np.dtype(np.uint8), "float4", "float4_e1m2x2_t", bits=4)
# the MX scale: 2^(bits - 127), 0xFF NaN (ml_dtypes float8_e8m0fnu is that format)
float8_e8m0 = _d("float8_e8m0", ml_dtypes.float8_e8m0fnu, "float", "float8_e8m0_t")

# the packed 4-bit types and the MX scale: handled only where a target lists them
PACKED: tuple[DType, ...] = (int4, float4_e2m1, float4_e1m2)
MX_SCALES: tuple[DType, ...] = (float8_e8m0,)
LISTED: tuple[DType, ...] = PACKED + MX_SCALES

ALL: tuple[DType, ...] = (
    int8,
    uint8,
    int16,
    uint16,
    int32,
    uint32,
    int64,
    uint64,
    half,
    bfloat16,
    float32,
    float8_e4m3,
    float8_e5m2,
    hifloat8,
)

_ALIASES = {
    "float": float32,
    "fp32": float32,
    "f32": float32,
    "float32_t": float32,
    "float16": half,
    "fp16": half,
    "f16": half,
    "float16_t": half,
    "bf16": bfloat16,
    "bfloat16_t": bfloat16,
    "i8": int8,
    "u8": uint8,
    "i16": int16,
    "u16": uint16,
    "i32": int32,
    "u32": uint32,
    "i64": int64,
    "u64": uint64,
    "float8_e4m3_t": float8_e4m3,
    "f8e4m3": float8_e4m3,
    "float8_e4m3fn": float8_e4m3,
    "float8_e5m2_t": float8_e5m2,
    "f8e5m2": float8_e5m2,
    "hifloat8_t": hifloat8,
    "hif8": hifloat8,
    "s4": int4,
    "float4_e2m1x2": float4_e2m1,
    "float4_e1m2x2": float4_e1m2,
    "fp4_e2m1": float4_e2m1,
    "fp4_e1m2": float4_e1m2,
    "float8_e8m0_t": float8_e8m0,
    "e8m0": float8_e8m0,
}
_BY_NAME = {d.name: d for d in ALL + LISTED} | {d.cpp: d for d in ALL + LISTED} | _ALIASES
_BY_NP = {d.np: d for d in ALL + MX_SCALES if d is not hifloat8}


def dtype(value) -> DType:
    """Resolve a dtype given as a DType, a name (``"float32"``, ``"bf16"``) or a numpy dtype.

    Raises:
        KernelError: the value names no PTO dtype.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value.strip().lower()) or _BY_NAME.get(value.strip())
        if found is None:
            raise KernelError(
                f"unknown dtype {value!r}; expected one of {', '.join(d.name for d in ALL)}"
            )
        return found
    try:
        found = _BY_NP.get(np.dtype(value))
    except TypeError:
        found = None
    if found is None:
        raise KernelError(f"unsupported element type {value!r}")
    return found


def names(dtypes) -> str:
    """Human-readable list of dtype names for error messages."""
    return "{" + ", ".join(d.name for d in dtypes) + "}"


# -- values that must fit a dtype -------------------------------------------------------------
def _reject(instr, operand: str, rule: str, expected, given):
    """Raise through ``instr.fail`` when ``instr`` is an Instruction (it knows its target and
    position), else a ConstraintError naming ``instr`` (an API function such as gm_full)."""
    fail = getattr(instr, "fail", None)
    if fail is not None:
        fail(operand, rule, expected, given)
    raise ConstraintError(str(instr), operand, rule, expected, given)


def value_range(dt: DType) -> str:
    """The values a dtype holds, for messages: ``integers in [-128, 127]`` or ``finite ...``."""
    if dt.kind == "opaque":
        return "bit patterns (integers) in [0, 255]"
    if dt.packed:
        return "bytes (two 4-bit fields each, the first low) in [0, 255]"
    if dt.is_int:
        info = np.iinfo(dt.np)
        return f"integers in [{info.min}, {info.max}]"
    big = float(ml_dtypes.finfo(dt.np).max)
    return f"real numbers within +-{big:g} (or inf/nan where {dt.name} has them)"


def _is_real_scalar(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return True
    return isinstance(value, np.generic) and value.dtype in _BY_NP  # bfloat16, float8 scalars


def check_scalar_fits(instr, operand: str, value, dt) -> np.generic:
    """``value`` converted to a numpy scalar of ``dt``, refusing anything the conversion would
    change beyond float rounding: a non-number (rule ``scalar-numeric``), a non-integer or an
    out-of-range value for an integer dtype, a finite value that overflows a float dtype, or an
    infinity the dtype cannot hold (rule ``scalar-range``). Reused by every ``*S`` instruction.

    Args:
        instr: the Instruction (its ``fail`` raises, with target and position) or a name.
        operand: the operand name for the message (``scalar``, ``value``).
        value: the user's scalar (Python or numpy number; a 0-d array is unwrapped).
        dt: the element type it must fit.

    Raises:
        ConstraintError: the value is not a number or does not fit ``dt``.
    """
    dt = dtype(dt)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    text = repr(value)
    given = f"{text if len(text) <= 40 else text[:37] + '...'} ({type(value).__name__})"
    if not _is_real_scalar(value):
        _reject(instr, operand, "scalar-numeric", f"a real number for {dt.name}", given)
    target = uint8 if dt.kind == "opaque" or dt.packed else dt
    if target.is_int:
        if isinstance(value, (int, np.integer)):
            v = int(value)
        else:
            f = float(value)
            if not (math.isfinite(f) and f.is_integer()):
                _reject(instr, operand, "scalar-range", value_range(dt) + f" for {dt.name}", given)
            v = int(f)
        info = np.iinfo(target.np)
        if not info.min <= v <= info.max:
            _reject(instr, operand, "scalar-range", value_range(dt) + f" for {dt.name}", given)
        return target.np.type(v)
    try:
        f = float(value)
    except OverflowError:
        _reject(instr, operand, "scalar-range", value_range(dt) + f" for {dt.name}", given)
    with np.errstate(over="ignore", invalid="ignore"):
        conv = np.array(f, dtype=np.float64).astype(dt.np)[()]
    lost = (math.isfinite(f) and not np.isfinite(conv)) or (math.isinf(f) and not np.isinf(conv))
    if lost:
        _reject(instr, operand, "scalar-range", value_range(dt) + f" for {dt.name}", given)
    return conv


def check_values_fit(instr, operand: str, values: np.ndarray, dt) -> np.ndarray:
    """Array form of ``check_scalar_fits``: ``values`` converted to ``dt``, or a ConstraintError
    (rule ``values-range``) when a value is not a number or the conversion would change it
    beyond float rounding (a non-integer or out-of-range value for an integer dtype, a float
    overflow)."""
    dt = dtype(dt)
    arr = np.asarray(values)
    target = uint8 if dt.kind == "opaque" or dt.packed else dt
    src = arr.dtype
    if src == target.np or arr.size == 0 and src in _BY_NP:
        return arr.astype(target.np, copy=False)
    expected = value_range(dt) + f" for {dt.name}"
    if src == np.bool_ or not (src in _BY_NP or src.kind in "iuf"):
        _reject(instr, operand, "values-range", expected, f"an array of numpy dtype {src}")
    if target.is_int:
        info = np.iinfo(target.np)
        if src.kind in "iu":
            lo, hi = int(arr.min()), int(arr.max())
            ok = info.min <= lo and hi <= info.max
        else:
            wide = arr.astype(np.float64)
            ok = bool(
                np.all(np.isfinite(wide))
                and np.all(wide == np.floor(wide))
                and wide.min() >= float(info.min)
                and wide.max() < float(info.max) + 1.0
            )
        if not ok:
            _reject(instr, operand, "values-range", expected, f"{src} values")
        return arr.astype(target.np)
    with np.errstate(over="ignore", invalid="ignore"):
        conv = arr.astype(target.np)
        if src.kind in "iu":
            lost = ~np.isfinite(conv)
        else:
            wide = arr.astype(np.float64)
            lost = (np.isfinite(wide) & ~np.isfinite(conv)) | (np.isinf(wide) & ~np.isinf(conv))
    if np.any(lost):
        _reject(instr, operand, "values-range", expected, f"{src} values")
    return conv
