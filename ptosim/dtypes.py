"""Element types: the PTO dtype names mapped onto numpy / ml_dtypes storage.

hifloat8 has no numpy codec: it is an 8-bit storage type moved bit-exactly (the seeds allow no
arithmetic or atomics on it), stored as uint8 but kept distinct by name.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from .errors import KernelError


@dataclass(frozen=True)
class DType:
    """One PTO element type.

    Attributes:
        name: canonical ptosim name (``float32``, ``bfloat16``, ``hifloat8`` ...).
        np: numpy storage dtype.
        kind: ``int``, ``uint``, ``float`` or ``opaque`` (bits only).
        cpp: the C++ spelling, used in error messages.
    """

    name: str
    np: np.dtype
    kind: str
    cpp: str

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
}
_BY_NAME = {d.name: d for d in ALL} | {d.cpp: d for d in ALL} | _ALIASES
_BY_NP = {d.np: d for d in ALL if d is not hifloat8}


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
