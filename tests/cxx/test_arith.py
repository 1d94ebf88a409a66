"""Arithmetic instruction families called from C++ (tests/cxx/arith.cpp) in each of their C++
forms give the bits, cycles and findings of the same instruction issued from Python, on cpu, a2
and 950pr: row and column broadcasts (with and without tmp, both expanded-operand modes),
partial ops (TPART*, their arg forms), integer / bitwise ops and their scalar forms, the
remaining elementwise math (TFMOD, TREM, TPOW, TAXPY, TLRELU, TPRELU, ...), the *Algorithm
template forms, and the 20 plain elementwise ops in bfloat16, int32 and int16.

Each case names its tiles (slots x=0, y=1, d=2, t=3, xi=4, yi=5, di=6: TASSIGN at slot *
0x1000, in that order), the tiles loaded from GM (after the outputs in the kernel's arguments,
in order) and the tiles stored; arith.cpp's macros K1/K1T/K2/K2T/KIO follow the same plan.
Where the registry does not list the case's dtype for a target, both kernels must stop with the
same PtoSimError code (the C++ one at its arith.cpp line)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import PtoSimError
from ptosim.targets import spec_of, specs
from ptosim.tensors import TileRef
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "arith.cpp"
R, C = 16, 32
SLOTS = ("x", "y", "d", "t", "xi", "yi", "di")
TARGET = {"cpu": "cpu", "a2": "a2a3", "950pr": "a5"}
SHORT = {
    "f32": "float32", "f16": "half", "bf16": "bfloat16", "i32": "int32", "i16": "int16",
    "u16": "uint16", "u8": "uint8",
}  # fmt: skip


def rm(dt, rows=R, cols=C, vr=None, vc=None, dyn=False):
    """A RowMajor Vec tile; ``dyn``: its valid shape is set at run time (C++ DYNAMIC)."""
    return (SHORT.get(dt, dt), rows, cols, "RowMajor", (vr or rows, vc or cols), dyn)


def cm(dt, rows=R, vr=None, dyn=False):
    """A ColMajor [rows, 1] Vec tile (the scalar-per-row operand of the row broadcasts)."""
    return (SHORT.get(dt, dt), rows, 1, "ColMajor", (vr or rows, 1), dyn)


def blk(dt):
    """One 32-byte block per row: [R, 32/sizeof(T)] (mode-2 operand, the rowexpand tmp)."""
    return rm(dt, R, 32 // np.dtype(pto.dtypes.dtype(SHORT[dt]).np).itemsize)


@dataclass
class Case:
    entry: str
    op: str  # the opcode issued (checked to come from arith.cpp)
    tiles: dict
    call: object  # call(ns of tiles) issues the instruction in Python
    loads: tuple = ("x", "y")  # tile names loaded from GM, in argument order (after the outs)
    outs: tuple = ("d",)
    kinds: tuple = ()  # input data kind per load (default "pos")
    key: str = "d"  # the tile whose dtype the registry is asked about
    only: tuple | None = None  # targets that support the case (None: ask the registry)

    def supported(self, device: str) -> bool:
        target = TARGET[device]
        if self.only is not None:
            return target in self.only
        dtypes = spec_of(target).dtypes_of(self.op)
        dt = pto.dtypes.dtype(self.tiles[self.key][0])
        return dtypes is not None and dt in dtypes


CASES: list[Case] = []


def add(entry, op, tiles, call, **kw):
    tiles = {k: v for k, v in tiles.items() if v is not None}
    if "loads" not in kw:
        kw["loads"] = tuple(n for n in ("x", "y") if n in tiles)
    CASES.append(Case(entry, op, tiles, call, **kw))


def fn(op):
    return getattr(pto, op)


# -- row broadcast (vector_isa.md 3.6) -------------------------------------------------------
ROW_OPS = ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF")
for t in ("f32", "f16"):
    add(
        f"TROWEXPAND_{t}",
        "TROWEXPAND",
        {"d": rm(t), "x": cm(t)},
        lambda n: pto.TROWEXPAND(n.d, n.x),
    )
    for o in ROW_OPS:
        op = f"TROWEXPAND{o}"
        small = ("small", "small") if o == "EXPDIF" else ()
        add(
            f"{op}_{t}",
            op,
            {"d": rm(t), "x": rm(t), "y": cm(t)},
            lambda n, op=op: fn(op)(n.d, n.x, n.y),
            kinds=small,
        )
        add(
            f"{op}_tmp_{t}",
            op,
            {"d": rm(t), "x": rm(t), "y": cm(t), "t": blk(t)},
            lambda n, op=op: fn(op)(n.d, n.x, n.y, n.t),
            kinds=small,
        )
add(
    "TROWEXPAND_rowmajor_f32",
    "TROWEXPAND",
    {"d": rm("f32"), "x": rm("f32", R, 8, R, 1)},
    lambda n: pto.TROWEXPAND(n.d, n.x),
)
for dt in ("i16", "i32", "bf16"):
    add(
        f"TROWEXPAND_{dt}",
        "TROWEXPAND",
        {"d": rm(dt), "x": cm(dt)},
        lambda n: pto.TROWEXPAND(n.d, n.x),
        kinds=("any",),
    )
# the expanded operand first (the result keeps the operand order), mode 2 (a block per row)
for o, t in (("SUB", "f32"), ("DIV", "f16"), ("EXPDIF", "f32")):
    op = f"TROWEXPAND{o}"
    add(
        f"{op}_src0_{t}",
        op,
        {"d": rm(t), "x": cm(t), "y": rm(t)},
        lambda n, op=op: fn(op)(n.d, n.x, n.y),
    )
add(
    "TROWEXPANDMUL_mode2_f32",
    "TROWEXPANDMUL",
    {"d": rm("f32"), "x": rm("f32"), "y": blk("f32")},
    lambda n: pto.TROWEXPANDMUL(n.d, n.x, n.y),
)
for o, dt in (("ADD", "i32"), ("MAX", "i16"), ("ADD", "bf16"), ("MIN", "u16")):
    op = f"TROWEXPAND{o}"
    add(
        f"{op}_{dt}",
        op,
        {"d": rm(dt), "x": rm(dt), "y": cm(dt)},
        lambda n, op=op: fn(op)(n.d, n.x, n.y),
        kinds=("any", "any"),
    )

# -- column broadcast (3.18) -----------------------------------------------------------------
for t in ("f32", "f16"):
    add(
        f"TCOLEXPAND_{t}",
        "TCOLEXPAND",
        {"d": rm(t), "x": rm(t, 1, C)},
        lambda n: pto.TCOLEXPAND(n.d, n.x),
    )
    for o in ROW_OPS:
        op = f"TCOLEXPAND{o}"
        small = ("small", "small") if o == "EXPDIF" else ()
        add(
            f"{op}_{t}",
            op,
            {"d": rm(t), "x": rm(t), "y": rm(t, 1, C)},
            lambda n, op=op: fn(op)(n.d, n.x, n.y),
            kinds=small,
        )
add(
    "TCOLEXPAND_i32",
    "TCOLEXPAND",
    {"d": rm("i32"), "x": rm("i32", 1, C)},
    lambda n: pto.TCOLEXPAND(n.d, n.x),
    kinds=("any",),
)
# the row vector first: a2a3 / a5 keep the operand order; the cpu reference cannot express it
add(
    "TCOLEXPANDSUB_src0_f32",
    "TCOLEXPANDSUB",
    {"d": rm("f32"), "x": rm("f32", 1, C), "y": rm("f32")},
    lambda n: pto.TCOLEXPANDSUB(n.d, n.x, n.y),
    only=("a2a3", "a5"),
)
for o, dt in (("ADD", "i32"), ("MAX", "i16"), ("ADD", "bf16"), ("MUL", "u16")):
    op = f"TCOLEXPAND{o}"
    add(
        f"{op}_{dt}",
        op,
        {"d": rm(dt), "x": rm(dt), "y": rm(dt, 1, C)},
        lambda n, op=op: fn(op)(n.d, n.x, n.y),
        kinds=("any", "any"),
    )

# -- partial ops (3.22) ----------------------------------------------------------------------
for o in ("ADD", "MUL", "MAX", "MIN"):
    op = f"TPART{o}"
    # src1 smaller in rows (f32), src0 smaller in columns (f16)
    add(
        f"{op}_f32",
        op,
        {"d": rm("f32"), "x": rm("f32"), "y": rm("f32", R, C, 8, C)},
        lambda n, op=op: fn(op)(n.d, n.x, n.y),
        kinds=("any", "any"),
    )
    add(
        f"{op}_f16",
        op,
        {"d": rm("f16"), "x": rm("f16", R, C, R, 16), "y": rm("f16")},
        lambda n, op=op: fn(op)(n.d, n.x, n.y),
        kinds=("any", "any"),
    )
for o, dt in (("ADD", "i32"), ("MAX", "i16"), ("ADD", "bf16")):
    op = f"TPART{o}"
    add(
        f"{op}_{dt}",
        op,
        {"d": rm(dt), "x": rm(dt), "y": rm(dt, R, C, 8, C)},
        lambda n, op=op: fn(op)(n.d, n.x, n.y),
        kinds=("any", "any"),
    )
for o in ("MAX", "MIN"):
    op = f"TPARTARG{o}"
    add(
        f"{op}_f32",
        op,
        {
            "x": rm("f32"),
            "y": rm("f32", R, C, 8, C),
            "d": rm("f32"),
            "xi": rm("i32"),
            "yi": rm("i32", R, C, 8, C),
            "di": rm("i32"),
        },
        lambda n, op=op: fn(op)(n.d, n.di, n.x, n.xi, n.y, n.yi),
        loads=("x", "xi", "y", "yi"),
        outs=("d", "di"),
        kinds=("any", "idx", "any", "idx"),
    )

# valid shapes set at run time (Tile<..., DYNAMIC, DYNAMIC> t(rows, cols)), e.g. a tail block
add(
    "TPARTADD_dynamic_f32",
    "TPARTADD",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32", R, C, 8, C, dyn=True)},
    lambda n: pto.TPARTADD(n.d, n.x, n.y),
    kinds=("any", "any"),
)
add(
    "TROWEXPANDMAX_dynamic_f16",
    "TROWEXPANDMAX",
    {
        "d": rm("f16", R, C, 12, 20, dyn=True),
        "x": rm("f16", R, C, 12, 20, dyn=True),
        "y": cm("f16", R, 12, dyn=True),
    },
    lambda n: pto.TROWEXPANDMAX(n.d, n.x, n.y),
    kinds=("any", "any"),
)
add(
    "TCOLEXPANDSUB_dynamic_f32",
    "TCOLEXPANDSUB",
    {
        "d": rm("f32", R, C, 10, 24, dyn=True),
        "x": rm("f32", R, C, 10, 24, dyn=True),
        "y": rm("f32", 1, C, 1, 24, dyn=True),
    },
    lambda n: pto.TCOLEXPANDSUB(n.d, n.x, n.y),
    kinds=("any", "any"),
)

# -- integer / bitwise (3.3, 3.4, 3.8) -------------------------------------------------------
SCALAR_OF = {"TANDS": 0x0F0F, "TORS": 0x0F0F, "TXORS": 0x0F0F, "TSHLS": 3, "TSHRS": 3}
for dt in ("i32", "i16", "u16"):
    for op in ("TAND", "TOR", "TSHL", "TSHR"):
        kinds = ("bits", "shift") if op in ("TSHL", "TSHR") else ("bits", "bits")
        add(
            f"{op}_{dt}",
            op,
            {"d": rm(dt), "x": rm(dt), "y": rm(dt)},
            lambda n, op=op: fn(op)(n.d, n.x, n.y),
            kinds=kinds,
        )
    add(
        f"TXOR_{dt}",
        "TXOR",
        {"d": rm(dt), "x": rm(dt), "y": rm(dt), "t": rm(dt)},
        lambda n: pto.TXOR(n.d, n.x, n.y, n.t),
        kinds=("bits", "bits"),
    )
    add(
        f"TNOT_{dt}",
        "TNOT",
        {"d": rm(dt), "x": rm(dt)},
        lambda n: pto.TNOT(n.d, n.x),
        kinds=("bits",),
    )
    for op in ("TANDS", "TORS", "TSHLS", "TSHRS"):
        add(
            f"{op}_{dt}",
            op,
            {"d": rm(dt), "x": rm(dt)},
            lambda n, op=op: fn(op)(n.d, n.x, SCALAR_OF[op]),
            kinds=("bits",),
        )
    add(
        f"TXORS_{dt}",
        "TXORS",
        {"d": rm(dt), "x": rm(dt), "t": rm(dt)},
        lambda n: pto.TXORS(n.d, n.x, 0x0F0F, n.t),
        kinds=("bits",),
    )

# -- remaining elementwise math (3.23, 3.4) --------------------------------------------------
HP = {"algorithm": "HIGH_PRECISION"}
# TREM's tmp (arith.cpp FRem ...): one row of C plus 2 mask elements per 64 columns, 32 B rows
REM_TMP_COLS = {"f32": 40, "f16": 48, "i32": 40}
for dt in ("f32", "f16", "i32"):
    kinds = ("any", "pos")
    add(
        f"TFMOD_{dt}",
        "TFMOD",
        {"d": rm(dt), "x": rm(dt), "y": rm(dt)},
        lambda n: pto.TFMOD(n.d, n.x, n.y),
        kinds=kinds,
    )
    add(
        f"TREM_{dt}",
        "TREM",
        {"d": rm(dt), "x": rm(dt), "y": rm(dt), "t": rm(dt, 1, REM_TMP_COLS[dt])},
        lambda n: pto.TREM(n.d, n.x, n.y, n.t),
        kinds=kinds,
    )
    s = 3 if dt == "i32" else 1.5
    add(
        f"TFMODS_{dt}",
        "TFMODS",
        {"d": rm(dt), "x": rm(dt)},
        lambda n, s=s: pto.TFMODS(n.d, n.x, s),
        kinds=("any",),
    )
    add(
        f"TREMS_{dt}",
        "TREMS",
        {"d": rm(dt), "x": rm(dt), "t": rm(dt)},
        lambda n, s=s: pto.TREMS(n.d, n.x, s, n.t),
        kinds=("any",),
    )
    pk = ("tiny", "shift") if dt == "i32" else ("pos", "small")
    add(
        f"TPOW_{dt}",
        "TPOW",
        {"d": rm(dt), "x": rm(dt), "y": rm(dt), "t": rm(dt)},
        lambda n: pto.TPOW(n.d, n.x, n.y, n.t),
        kinds=pk,
    )
    add(
        f"TPOWS_{dt}",
        "TPOWS",
        {"d": rm(dt), "x": rm(dt), "t": rm(dt)},
        lambda n, s=s: pto.TPOWS(n.d, n.x, s, n.t),
        kinds=pk[:1],
    )
add(
    "TFMOD_hp_f32",
    "TFMOD",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32")},
    lambda n: pto.TFMOD(n.d, n.x, n.y, **HP),
    kinds=("any", "pos"),
)
add(
    "TFMOD_types_f32",
    "TFMOD",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32")},
    lambda n: pto.TFMOD(n.d, n.x, n.y, **HP),
    kinds=("any", "pos"),
)
add(
    "TREM_types_f32",
    "TREM",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32"), "t": rm("f32", 1, REM_TMP_COLS["f32"])},
    lambda n: pto.TREM(n.d, n.x, n.y, n.t),
    kinds=("any", "pos"),
)
# the scalar forms' own enums (FmodSAlgorithm, RemSAlgorithm: the a5 tfmods/trems folders)
add(
    "TFMODS_shp_f32",
    "TFMODS",
    {"d": rm("f32"), "x": rm("f32")},
    lambda n: pto.TFMODS(n.d, n.x, 1.5, **HP),
    kinds=("any",),
)
add(
    "TREMS_shp_f32",
    "TREMS",
    {"d": rm("f32"), "x": rm("f32"), "t": rm("f32")},
    lambda n: pto.TREMS(n.d, n.x, 1.5, n.t, **HP),
    kinds=("any",),
)
add(
    "TFMODS_hp_f32",
    "TFMODS",
    {"d": rm("f32"), "x": rm("f32")},
    lambda n: pto.TFMODS(n.d, n.x, 1.5, **HP),
    kinds=("any",),
)
add(
    "TREM_hp_f32",
    "TREM",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32"), "t": rm("f32", 1, REM_TMP_COLS["f32"])},
    lambda n: pto.TREM(n.d, n.x, n.y, n.t, **HP),
    kinds=("any", "pos"),
)
add(
    "TREMS_hp_f32",
    "TREMS",
    {"d": rm("f32"), "x": rm("f32"), "t": rm("f32")},
    lambda n: pto.TREMS(n.d, n.x, 1.5, n.t, **HP),
    kinds=("any",),
)
add(
    "TPOW_hp_f32",
    "TPOW",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32"), "t": rm("f32")},
    lambda n: pto.TPOW(n.d, n.x, n.y, n.t, **HP),
    kinds=("pos", "small"),
)
add(
    "TPOWS_hp_f32",
    "TPOWS",
    {"d": rm("f32"), "x": rm("f32"), "t": rm("f32")},
    lambda n: pto.TPOWS(n.d, n.x, 1.5, n.t, **HP),
)
for dt in ("f32", "f16", "bf16"):
    add(
        f"TAXPY_{dt}",
        "TAXPY",
        {"d": rm(dt), "x": rm(dt)},
        lambda n: pto.TAXPY(n.d, n.x, 1.5),
        loads=("x", "d"),
        kinds=("any", "any"),
    )
    add(
        f"TLRELU_{dt}",
        "TLRELU",
        {"d": rm(dt), "x": rm(dt)},
        lambda n: pto.TLRELU(n.d, n.x, 0.25),
        kinds=("any",),
    )
    add(
        f"TPRELU_{dt}",
        "TPRELU",
        {"d": rm(dt), "x": rm(dt), "y": rm(dt), "t": rm("u8", 32, 32)},
        lambda n: pto.TPRELU(n.d, n.x, n.y, n.t),
        kinds=("any", "pos"),
    )
add(
    "TAXPY_f32_f16",
    "TAXPY",
    {"d": rm("f32"), "x": rm("f16")},
    lambda n: pto.TAXPY(n.d, n.x, 1.5),
    loads=("x", "d"),
    kinds=("any", "any"),
)

# -- the *Algorithm template forms and the other forms of the unary ops ------------------------
for t in ("f32", "f16"):
    for op in ("TEXP", "TLOG", "TSQRT", "TRSQRT", "TRECIP"):
        add(f"{op}_hp_{t}", op, {"d": rm(t), "x": rm(t)}, lambda n, op=op: fn(op)(n.d, n.x, **HP))
    add(
        f"TRSQRT_tmp_{t}",
        "TRSQRT",
        {"d": rm(t), "x": rm(t), "t": rm(t)},
        lambda n: pto.TRSQRT(n.d, n.x, n.t),
    )
    add(
        f"TDIVS_scalar_first_{t}",
        "TDIVS",
        {"d": rm(t), "x": rm(t)},
        lambda n: pto.TDIVS(n.d, 1.5, n.x),
    )
add(
    "TEXP_default_f32",
    "TEXP",
    {"d": rm("f32"), "x": rm("f32")},
    lambda n: pto.TEXP(n.d, n.x, algorithm="DEFAULT"),
)
# the scalar converts to the source's element type, as the API's `typename Src::DType scalar`
add(
    "TANDS_literal_ffff_i16",
    "TANDS",
    {"d": rm("i16"), "x": rm("i16")},
    lambda n: pto.TANDS(n.d, n.x, -1),
    kinds=("bits",),
)
add(
    "TADDS_float_literal_i32",
    "TADDS",
    {"d": rm("i32"), "x": rm("i32")},
    lambda n: pto.TADDS(n.d, n.x, 1),
    kinds=("any",),
)
add(
    "TMAXS_int_literal_f16",
    "TMAXS",
    {"d": rm("f16"), "x": rm("f16")},
    lambda n: pto.TMAXS(n.d, n.x, 2.0),
    kinds=("any",),
)
add(
    "TDIVS_scalar_first_int_literal_f32",
    "TDIVS",
    {"d": rm("f32"), "x": rm("f32")},
    lambda n: pto.TDIVS(n.d, 3.0, n.x),
)

# DivAlgorithm::DEFAULT on instructions whose Python API has no algorithm: the plain call
add(
    "TDIV_default_f32",
    "TDIV",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32")},
    lambda n: pto.TDIV(n.d, n.x, n.y),
)
add(
    "TDIVS_default_f16",
    "TDIVS",
    {"d": rm("f16"), "x": rm("f16")},
    lambda n: pto.TDIVS(n.d, n.x, 1.5),
)
add(
    "TROWEXPANDDIV_default_f32",
    "TROWEXPANDDIV",
    {"d": rm("f32"), "x": rm("f32"), "y": cm("f32")},
    lambda n: pto.TROWEXPANDDIV(n.d, n.x, n.y),
)
add(
    "TROWEXPANDDIV_default_tmp_f16",
    "TROWEXPANDDIV",
    {"d": rm("f16"), "x": rm("f16"), "y": cm("f16"), "t": blk("f16")},
    lambda n: pto.TROWEXPANDDIV(n.d, n.x, n.y, n.t),
)
# DivAlgorithm::HIGH_PRECISION: the Python algorithm keyword (the a5 library folders use it)
add(
    "TDIV_hp_f32",
    "TDIV",
    {"d": rm("f32"), "x": rm("f32"), "y": rm("f32")},
    lambda n: pto.TDIV(n.d, n.x, n.y, **HP),
)
add(
    "TDIVS_hp_f32",
    "TDIVS",
    {"d": rm("f32"), "x": rm("f32")},
    lambda n: pto.TDIVS(n.d, n.x, 1.5, **HP),
)
add(
    "TROWEXPANDDIV_hp_f32",
    "TROWEXPANDDIV",
    {"d": rm("f32"), "x": rm("f32"), "y": cm("f32")},
    lambda n: pto.TROWEXPANDDIV(n.d, n.x, n.y, **HP),
)
add(
    "TRSQRT_tmp_hp_f32",
    "TRSQRT",
    {"d": rm("f32"), "x": rm("f32"), "t": rm("f32")},
    lambda n: pto.TRSQRT(n.d, n.x, n.t, **HP),
)

# -- the 20 elementwise ops of tests/cxx/test_instructions.py in bfloat16, int32, int16 -------
BINARY = ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN")
UNARY = ("TEXP", "TLOG", "TSQRT", "TRSQRT", "TRECIP", "TABS", "TNEG", "TRELU")
SCALAR = ("TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS")


def listed_somewhere(op, dt):
    d = pto.dtypes.dtype(SHORT[dt])
    return any(d in (t.dtypes_of(op) or ()) for t in specs())


for dt in ("bf16", "i32", "i16"):
    s = 1.5 if dt == "bf16" else 3
    for op in BINARY:
        add(
            f"{op}_{dt}",
            op,
            {"d": rm(dt), "x": rm(dt), "y": rm(dt)},
            lambda n, op=op: fn(op)(n.d, n.x, n.y),
            kinds=("any", "pos"),
        )
    for op in UNARY:
        if listed_somewhere(op, dt):
            add(
                f"{op}_{dt}",
                op,
                {"d": rm(dt), "x": rm(dt)},
                lambda n, op=op: fn(op)(n.d, n.x),
                kinds=("pos" if op in UNARY[:5] else "any",),
            )
    for op in SCALAR:
        add(
            f"{op}_{dt}",
            op,
            {"d": rm(dt), "x": rm(dt)},
            lambda n, op=op, s=s: fn(op)(n.d, n.x, s),
            kinds=("any",),
        )

ENTRIES = [c.entry for c in CASES]
BY_ENTRY = {c.entry: c for c in CASES}


# -- kernels ----------------------------------------------------------------------------------
def make_tiles(case: Case) -> SimpleNamespace:
    tiles = {}
    for name in SLOTS:
        if name in case.tiles:
            dt, rows, cols, layout, valid, dyn = case.tiles[name]
            tiles[name] = pto.Tile("Vec", dt, rows, cols, layout, valid=None if dyn else valid)
            if dyn:
                tiles[name].set_valid(*valid)
    return SimpleNamespace(**tiles)


def gm_shape(spec) -> tuple:
    return (1, 1, 1) + tuple(spec[4])


def python_twin(case: Case):
    """The kernel of arith.cpp's macros written in Python (same addresses, flags, operands)."""

    @pto.kernel
    def k(*bufs):
        n = make_tiles(case)
        for i, name in enumerate(SLOTS):
            if name in case.tiles:
                pto.TASSIGN(getattr(n, name), i * 0x1000)
        outs, ins = bufs[: len(case.outs)], bufs[len(case.outs) :]
        for name, b in zip(case.loads, ins):
            spec = case.tiles[name]
            layout = "ND" if spec[3] == "RowMajor" else "DN"
            pto.TLOAD(getattr(n, name), pto.GlobalTensor(b, gm_shape(spec), layout=layout))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        case.call(n)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        for name, b in zip(case.outs, outs):
            pto.TSTORE(pto.GlobalTensor(b, gm_shape(case.tiles[name])), getattr(n, name))

    return k


def operand_view(instr) -> dict:
    """An issued instruction's operands and options, without its identity (position, source,
    helper call sites, tile names and ids): tiles as (geometry, valid shape, address)."""

    def view(v):
        if isinstance(v, TileRef):
            return (v.geom, v.valid, v.static_valid, v.address)
        if isinstance(v, (tuple, list)):
            return tuple(view(x) for x in v)
        if v is None or isinstance(v, (str, int, float, bool, np.generic)):
            return v
        return type(v).__name__

    identity = ("source", "position", "sites")
    return {k: view(v) for k, v in vars(instr).items() if k not in identity}


def data(kind: str, dt: str, shape, rng) -> np.ndarray:
    d = pto.dtypes.dtype(dt)
    np_t = d.np
    if not d.is_int:
        lo, hi = {"pos": (0.25, 4.0), "any": (-4.0, 4.0), "small": (-2.0, 2.0)}[kind]
        return rng.uniform(lo, hi, shape).astype(np_t)
    info = np.iinfo(np_t)
    lo, hi = {
        "pos": (1, 9), "any": (max(info.min, -100), 100), "bits": (info.min, info.max),
        "shift": (0, 8), "tiny": (-3, 4), "idx": (0, 1000), "small": (-3, 4),
    }[kind]  # fmt: skip
    return rng.integers(lo, hi, shape, endpoint=kind == "bits", dtype=np_t)


def inputs(case: Case):
    def make(dev):
        rng = np.random.default_rng(11)
        outs = [dev.gm_zeros(case.tiles[n][4], case.tiles[n][0]) for n in case.outs]
        ins = []
        for i, name in enumerate(case.loads):
            dt, _, _, _, valid, _ = case.tiles[name]
            kind = case.kinds[i] if i < len(case.kinds) else "pos"
            ins.append(dev.gm_array(data(kind, dt, valid, rng)))
        return outs + ins

    return make


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def _error(kernel, device, make_args) -> PtoSimError:
    dev = pto.Device(device)
    with pytest.raises(PtoSimError) as info:
        dev.run(kernel, *make_args(dev))
    return info.value


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("entry", ENTRIES)
def test_cxx_arith_matches_python(prog, assert_twins, entry, device):
    case = BY_ENTRY[entry]
    make = inputs(case)
    if case.supported(device):
        res = assert_twins(prog.entry(entry), python_twin(case), device, make, [case.op])
        # the operands the instruction was issued with: the same tiles (geometry, valid shape,
        # address), scalars and knobs (algorithm, tmp) as the Python call, which bits and
        # cycles alone do not show (e.g. HIGH_PRECISION is not modelled differently yet)
        dev = pto.Device(device)
        py = dev.run(python_twin(case), *make(dev))
        got, want = (
            [operand_view(i) for b in r.blocks for i in b.program if i.opcode == case.op]
            for r in (res, py)
        )
        assert len(got) == 1 and got == want
        return
    # not supported on this target: the same error from both, the C++ one at its line
    py = _error(python_twin(case), device, make)
    cx = _error(prog.entry(entry), device, make)
    assert type(cx) is type(py) and cx.code == py.code, (cx, py)
    assert "arith.cpp:" in str(cx), str(cx)


def test_case_table_is_in_step_with_arith_cpp():
    text = SRC.read_text()
    for e in ENTRIES:
        assert f"({e}," in text or f" {e}(" in text, f"{e} has no entry in arith.cpp"
