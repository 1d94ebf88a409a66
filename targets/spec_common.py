"""What the target specs share: dtype groups and the tables that are the same on every target.

A target's spec (``<target>/spec.py``) starts from ``COMMON_DTYPES`` (the instructions whose
element types do not depend on the target: data movement, synchronisation, views, broadcasts,
fills, quantise) and adds its own tables; ``expand_family`` spells one table out for the
instructions of a family that share it (TROWEXPAND<OP> and TCOLEXPAND<OP>).
"""

from __future__ import annotations

from ptosim import dtypes as D

i8, u8, i16, u16, i32, u32, i64, u64 = (
    D.int8, D.uint8, D.int16, D.uint16, D.int32, D.uint32, D.int64, D.uint64,
)  # fmt: skip
f16, bf16, f32 = D.half, D.bfloat16, D.float32
e4m3, e5m2, hif8 = D.float8_e4m3, D.float8_e5m2, D.hifloat8
# listed by name where a target handles them: int4b_t and fp4 (packed), the MX scale e8m0
s4, fp4_e2m1, fp4_e1m2, e8m0 = D.int4, D.float4_e2m1, D.float4_e1m2, D.float8_e8m0

ALL = D.ALL
NON_OPAQUE = tuple(d for d in ALL if d.kind != "opaque")  # every type with a numeric encoding
INTS = (i8, u8, i16, u16, i32, u32, i64, u64)
INTS_124 = INTS[:6]  # the 1-, 2- and 4-byte integers
FLOATS = (f16, bf16, f32)
F16_F32 = (f16, f32)
ARITH = INTS + FLOATS  # the types C++ arithmetic is written for (no float8 / hifloat8)
SIZED_124 = tuple(d for d in NON_OPAQUE if d.size_bytes in (1, 2, 4))
# MGATHER / MSCATTER: the seeds' list every target starts from
GATHER_NINE = (i8, u8, i16, u16, i32, u32, f16, bf16, f32)
# the binary ops of TROWEXPAND<OP> / TCOLEXPAND<OP>
EXPAND_OPS = ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF")

# TCVT pairs whose default saturation is OFF on the NPU targets (the only ones a2a3 lets ``sat``
# change; vector_isa.md 3.7)
NARROWING_SAT_OFF = frozenset(
    [(f16, u8), (f16, i8), (f32, i16), (f16, i16), (i64, i32), (i32, i16)]
)

SYNC = ("SyncAll", "ffts_cross_core_sync", "pipe_barrier", "set_flag", "wait_flag", "wait_flag_dev")
# the 950 on-chip cube <-> vector instructions: intra-block flags and raw byte copies (no element
# type; defined by the targets whose CubeRules.onchip_cv_paths is set)
ONCHIP_CV = ("set_intra_block", "wait_intra_block", "copy_ubuf_to_cbuf", "copy_cbuf_to_ubuf")

# Instructions whose element types are the same on every target (the instruction's own rules).
COMMON_DTYPES: dict[str, tuple | None] = {
    "TASSIGN": ALL,
    "TMOV": ALL,
    "TEXPANDS": NON_OPAQUE,
    # hifloat8 has no encoding to read or write a number with
    "GetValue": NON_OPAQUE,
    "SetValue": NON_OPAQUE,
    **{name: () for name in SYNC},  # no data
    **{name: None for name in ONCHIP_CV},  # not defined (a5 defines them)
    "TRESHAPE": ALL,
    "TSUBVIEW": ALL,
    "TROWEXPAND": GATHER_NINE,  # a pure broadcast: any 1/2/4-byte numeric type
    "TCOLEXPAND": GATHER_NINE,
    "TFILLPAD": SIZED_124,
    "TFILLPAD_INPLACE": SIZED_124,
    "TFILLPAD_EXPAND": SIZED_124,
    "TGATHERB": SIZED_124,
    "TRSQRT": F16_F32,
    "TQUANT": (f32, i8, u8),
    "TDEQUANT": (f32, i8, i16),
    "TMRGSORT": (f32,),
}


def expand_family(table: dict[str, tuple]) -> dict[str, tuple]:
    """TROWEXPAND<OP> and TCOLEXPAND<OP> entries from one op -> dtypes table (the column
    family takes the row family's types, vector_isa.md 3.18)."""
    out = {}
    for op, dts in table.items():
        out[f"TROWEXPAND{op}"] = dts
        out[f"TCOLEXPAND{op}"] = dts
    return out


def floats_only(dts: tuple) -> tuple:
    """The float types of ``dts`` (EXPDIF is defined for floats only)."""
    return tuple(d for d in dts if d in FLOATS)
