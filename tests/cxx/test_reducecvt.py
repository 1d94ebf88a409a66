"""Reductions, compare/select and conversions called from C++ in each template form kernel
authors use (tests/cxx/reducecvt.cpp) give the bits, cycles and findings of the same call issued
from Python, on every target family: TROW{SUM,MAX,MIN,PROD}(dst, src, tmp), TCOLSUM with and
without tmp (and is_binary), TCOL{MAX,MIN,PROD}, TROW/TCOL ARGMAX/ARGMIN with and without the
value tile, TCMP/TCMPS with every CmpMode (scalar and tile src1), TSEL/TSELS with mask and tmp,
TCVT with every RoundMode, SaturationMode, the tmp overload and TCVT<NeedSetCtrl>, TCI<Tile, T,
descending> with and without tmp, TQUANT<QuantType> (3, 4 and 5 operands, offset by reference or
by pointer) and TDEQUANT.

Each case below is transcribed into one C++ entry of the same name: the same tiles TASSIGNed in
the same order at 0x2000 steps, the same TLOADs in order, MTE2 -> V, the instruction, V -> MTE3,
the TSTOREs in order. Where a target refuses the case (registry dtypes, a2a3's tmp-required),
both front ends must stop with the same error code, the C++ one at its .cpp line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import PtoSimError
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "reducecvt.cpp"
DEVICES = ("cpu", "a2", "950pr")
SLOT = 0x2000  # bytes between TASSIGN addresses (every tile here is <= 8 KiB)
R, C = 16, 64  # the data tiles


@dataclass
class Case:
    """``tiles``: (dtype, rows, cols, blayout) in TASSIGN order; ``loads``: indexes of the tiles
    TLOADed (in order) from the input GM buffers; ``stores``: indexes of the tiles TSTOREd (in
    order) to the output GM buffers; kernel arguments = outputs, then inputs.
    ``errors``: device -> the PtoSimError code both front ends must stop with."""

    name: str
    op: str
    tiles: list
    loads: list
    stores: list
    body: Callable
    data: Callable  # rng -> list of input arrays, one per load
    errors: dict = field(default_factory=dict)


def vec(dt, rows=R, cols=C, layout="RowMajor"):
    return (dt, rows, cols, layout)


def col(dt, rows=R):
    """A column vector tile (row-reduction results, per-row parameters)."""
    return (dt, rows, 1, "ColMajor")


def make_tile(spec):
    dt, rows, cols, lay = spec
    return pto.Tile("Vec", dt, rows, cols, lay)


def global_tensor(buf, spec):
    _, rows, cols, lay = spec
    return pto.GlobalTensor(buf, (1, 1, 1, rows, cols), layout="DN" if lay == "ColMajor" else "ND")


def uniform(dt, shape, lo, hi):
    def make(rng):
        return rng.uniform(lo, hi, shape).astype(_np(dt))

    return make


def integers(dt, shape, lo, hi):
    def make(rng):
        return rng.integers(lo, hi, shape).astype(_np(dt))

    return make


def _np(dt):
    from ptosim.dtypes import dtype as as_dtype

    return as_dtype(dt).np


def inputs(*makers):
    return lambda rng: [m(rng) for m in makers]


CASES: list[Case] = []


def case(name, op, tiles, loads, stores, body, data, errors=None):
    CASES.append(Case(name, op, tiles, loads, stores, body, data, errors or {}))


# -- reductions ---------------------------------------------------------------------------------
# row: tiles = [src, dst column, tmp]; TROW<op>(dst, src, tmp)
ROW = {
    "TROWSUM": [("f32", "float32", -4, 4), ("f16", "half", -2, 2), ("i32", "int32", -50, 50),
                ("i16", "int16", -50, 50)],
    "TROWMAX": [("f32", "float32", -4, 4), ("i32", "int32", -1000, 1000)],
    "TROWMIN": [("f16", "half", -4, 4), ("i16", "int16", -1000, 1000)],
    "TROWPROD": [("f32", "float32", 0.9, 1.1), ("i32", "int32", -3, 4)],
}  # fmt: skip
for op, forms in ROW.items():
    for tag, dt, lo, hi in forms:
        gen = integers if dt.startswith("int") else uniform
        case(
            f"{op}_{tag}", op, [vec(dt), col(dt), vec(dt)], [0], [1],
            lambda t, op=op: getattr(pto, op)(t[1], t[0], t[2]),
            inputs(gen(dt, (R, C), lo, hi)),
        )  # fmt: skip

# column: tiles = [src, dst row (1 x C)] (+ tmp)
COL = {
    "TCOLSUM": [("f32", "float32", -4, 4), ("f16", "half", -2, 2),
                ("i32", "int32", -50, 50)],
    "TCOLMAX": [("f32", "float32", -4, 4), ("i16", "int16", -1000, 1000)],
    "TCOLMIN": [("f16", "half", -4, 4), ("i32", "int32", -1000, 1000)],
    "TCOLPROD": [("f32", "float32", 0.9, 1.1), ("i16", "int16", -2, 3)],
}  # fmt: skip
# the cpu back end has no integer TCOLSUM, no int16/int32 TCOLMAX (registry dtypes)
COL_ERRORS = {("TCOLSUM", "i32"): {"cpu": "PTO101"}, ("TCOLMAX", "i16"): {"cpu": "PTO101"}}
for op, forms in COL.items():
    for tag, dt, lo, hi in forms:
        gen = integers if dt.startswith("int") else uniform
        case(
            f"{op}_{tag}", op, [vec(dt), vec(dt, 1, C)], [0], [1],
            lambda t, op=op: getattr(pto, op)(t[1], t[0]),
            inputs(gen(dt, (R, C), lo, hi)), COL_ERRORS.get((op, tag)),
        )  # fmt: skip
# TCOLSUM(dst, src, tmp, isBinary): sequential (false) and the tree (true)
for tag, dt in (("f32", "float32"), ("f16", "half")):
    for binary in (False, True):
        case(
            f"TCOLSUM_{tag}_tmp_{'binary' if binary else 'seq'}", "TCOLSUM",
            [vec(dt), vec(dt, 1, C), vec(dt, R // 2, C)], [0], [1],
            lambda t, b=binary: pto.TCOLSUM(t[1], t[0], t[2], b),
            inputs(uniform(dt, (R, C), -2, 2)),
        )  # fmt: skip

# arg forms: (dst_idx, src, tmp) and (dst_val, dst_idx, src, tmp), on every target
ARG_ERRORS: dict[str, str] = {}
# (op, tag, src dtype, index dtype of the idx form, of the val form); cpu indexes are i32/u32
ARG = [
    ("TROWARGMAX", "f32", "float32", "int32", "uint32"),
    ("TROWARGMIN", "f16", "half", "int16", "int32"),
    ("TCOLARGMAX", "f32", "float32", "uint32", "int32"),
    ("TCOLARGMIN", "f16", "half", "int16", "int32"),
]
for op, tag, dt, idt, vidt in ARG:
    idx_errors = dict(ARG_ERRORS, cpu="PTO101") if idt == "int16" else ARG_ERRORS
    row = op.startswith("TROW")
    dst = (lambda d: col(d)) if row else (lambda d: vec(d, 1, C))
    tmp = vec(dt) if row else vec(dt, 1, C)
    # few distinct values: ties, so the first-index rule is exercised
    data = inputs(integers(dt, (R, C), -4, 4))
    case(
        f"{op}_{tag}_idx", op, [vec(dt), dst(idt), tmp], [0], [1],
        lambda t, op=op: getattr(pto, op)(t[1], t[0], t[2]), data, idx_errors,
    )  # fmt: skip
    case(
        f"{op}_{tag}_val", op, [vec(dt), dst(dt), dst(vidt), tmp], [0], [1, 2],
        lambda t, op=op: getattr(pto, op)(t[1], t[2], t[0], t[3]), data, ARG_ERRORS,
    )  # fmt: skip

# -- compare / select ---------------------------------------------------------------------------
MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")
MASK = vec("uint8", R, 32)  # 8 mask bytes per row hold C = 64 bits; row pitch 32 B
for mode in MODES:
    case(
        f"TCMP_f32_{mode}", "TCMP", [vec("float32"), vec("float32"), MASK], [0, 1], [2],
        lambda t, m=mode: pto.TCMP(t[2], t[0], t[1], m),
        inputs(integers("float32", (R, C), -2, 3), integers("float32", (R, C), -2, 3)),
    )  # fmt: skip
    case(
        f"TCMPS_f32_{mode}", "TCMPS", [vec("float32"), MASK], [0], [1],
        lambda t, m=mode: pto.TCMPS(t[1], t[0], 1.0, m),
        inputs(integers("float32", (R, C), -1, 3)),
    )  # fmt: skip
for tag, dt, mode in (("i32", "int32", "GT"), ("f16", "half", "LE")):
    case(
        f"TCMP_{tag}_{mode}", "TCMP", [vec(dt), vec(dt), MASK], [0, 1], [2],
        lambda t, m=mode: pto.TCMP(t[2], t[0], t[1], m),
        inputs(integers(dt, (R, C), -2, 3), integers(dt, (R, C), -2, 3)),
    )  # fmt: skip
# int16 scalar (a2a3 compares the bits as half), and the tile-src1 overload
case(
    "TCMPS_i16_GE", "TCMPS", [vec("int16"), MASK], [0], [1],
    lambda t: pto.TCMPS(t[1], t[0], 3, "GE"), inputs(integers("int16", (R, C), -5, 8)),
)  # fmt: skip
case(
    "TCMPS_f32_tile_GT", "TCMPS", [vec("float32"), vec("float32"), MASK], [0, 1], [2],
    lambda t: pto.TCMPS(t[2], t[0], t[1], "GT"),
    inputs(integers("float32", (R, C), -2, 3), integers("float32", (R, C), -2, 3)),
)  # fmt: skip
# TSEL(dst, mask, src0, src1, tmp), TSELS(dst, mask, src, tmp, scalar)
for tag, dt in (("f32", "float32"), ("f16", "half"), ("i32", "int32")):
    case(
        f"TSEL_{tag}", "TSEL", [MASK, vec(dt), vec(dt), vec(dt), vec(dt)], [0, 1, 2], [3],
        lambda t: pto.TSEL(t[3], t[0], t[1], t[2], t[4]),
        inputs(integers("uint8", (R, 32), 0, 256), uniform(dt, (R, C), -9, 9),
               uniform(dt, (R, C), -9, 9)),
    )  # fmt: skip
for tag, dt, s in (("f32", "float32", 2.5), ("f16", "half", -1.5), ("i16", "int16", 7)):
    case(
        f"TSELS_{tag}", "TSELS", [MASK, vec(dt), vec(dt), vec(dt)], [0, 1], [2],
        lambda t, s=s: pto.TSELS(t[2], t[0], t[1], t[3], s),
        inputs(integers("uint8", (R, 32), 0, 256), uniform(dt, (R, C), -9, 9)),
    )  # fmt: skip

# -- conversion ---------------------------------------------------------------------------------
ROUND = (
    "CAST_NONE",
    "CAST_RINT",
    "CAST_ROUND",
    "CAST_FLOOR",
    "CAST_CEIL",
    "CAST_TRUNC",
    "CAST_ODD",
)


def halves(dt, lo, hi):
    """Values on the half-integer grid and their neighbours: every rounding mode differs."""

    def make(rng):
        k = rng.integers(2 * lo, 2 * hi, (R, C)).astype(np.float64) / 2
        k += rng.choice([0.0, 0.0, 0.25, -0.25], (R, C))
        return k.astype(_np(dt))

    return make


def fine(dt):
    """f32 values with bits below half precision (f32 -> f16 / bf16 rounding differs by mode)."""
    return lambda rng: (rng.uniform(-3, 3, (R, C)) * (1 + 2.0**-12)).astype(_np(dt))


def cvt(name, src, dst, data, mode=None, sat=None, tmp=None, ctrl=None, errors=None):
    tiles = [vec(src), vec(dst)] + ([vec(tmp)] if tmp else [])

    def body(t):
        kw = {} if ctrl is None else {"need_set_ctrl": ctrl}
        if tmp:
            pto.TCVT(t[1], t[0], t[2], mode, sat, **kw)
        elif sat is not None:
            pto.TCVT(t[1], t[0], mode, sat, **kw)
        else:
            pto.TCVT(t[1], t[0], mode, **kw)

    case(name, "TCVT", tiles, [0], [1], body, inputs(data), errors)


for m in ROUND:
    cvt(f"TCVT_f32_i32_{m}", "float32", "int32", halves("float32", -40, 40), m)


def half_ties(rng):
    """f32 values exactly halfway between two halves, and a few a quarter ulp off: each f32 ->
    f16 rounding mode gives different bits."""
    h = rng.uniform(-3, 3, (R, C)).astype(np.float16)
    ulp = np.spacing(np.abs(h)).astype(np.float32)
    return h.astype(np.float32) + ulp / 2 * rng.choice([1.0, -1.0, 0.5], (R, C)).astype(np.float32)


for m in ("CAST_RINT", "CAST_ROUND", "CAST_ODD", "CAST_TRUNC"):
    cvt(f"TCVT_f32_f16_{m}", "float32", "half", half_ties, m)
# SaturationMode: f32 -> i16 beyond int16 (ON clamps, OFF keeps the low bits; cpu OFF out of
# range is undefined: finding F109 on both)
big = uniform("float32", (R, C), -70000, 70000)
for s in ("ON", "OFF"):
    cvt(f"TCVT_f32_i16_sat_{s}", "float32", "int16", big, "CAST_RINT", s)
# the tmp overload TCVT(dst, src, tmp, mode, sat): a2a3's two-step path through int32
cvt("TCVT_f32_i16_tmp_OFF", "float32", "int16", big, "CAST_TRUNC", "OFF", tmp="int32")
# the tmp overload without sat: f16 -> i16 defaults to OFF on a2a3, so it takes the two-step path
cvt("TCVT_f16_i16_tmp", "half", "int16", halves("half", -500, 500), "CAST_ROUND", tmp="int32")
# TCVT<false>: leave CTRL as it is (the NPU then saturates whatever sat says)
cvt("TCVT_f32_i16_noctrl_OFF", "float32", "int16", big, "CAST_RINT", "OFF", ctrl=False)
cvt("TCVT_f32_i16_ctrl_OFF", "float32", "int16", big, "CAST_RINT", "OFF", ctrl=True)
# a few dtype pairs
CVT_PAIRS = [
    ("f16_f32", "half", "float32", uniform("half", (R, C), -100, 100), {}),
    ("f32_bf16", "float32", "bfloat16", fine("float32"), {}),
    ("bf16_f32", "bfloat16", "float32", uniform("bfloat16", (R, C), -100, 100), {}),
    ("bf16_i32", "bfloat16", "int32", halves("bfloat16", -40, 40), {}),
    ("i32_f32", "int32", "float32", integers("int32", (R, C), -(2**26), 2**26), {}),
    ("i16_f16", "int16", "half", integers("int16", (R, C), -3000, 3000), {}),
    ("f16_i8", "half", "int8", halves("half", -200, 200), {}),
    ("i8_f16", "int8", "half", integers("int8", (R, C), -128, 128), {}),
    ("f16_i16", "half", "int16", halves("half", -500, 500), {}),
    # a2a3 has no i32 -> i8 conversion; cpu and a5 neither (a5: i32 -> u8 only)
    ("i32_i8", "int32", "int8", integers("int32", (R, C), -100, 100),
     {"a2": "PTO102", "950pr": "PTO102"}),
]  # fmt: skip
for tag, s, d, data, err in CVT_PAIRS:
    cvt(f"TCVT_{tag}", s, d, data, "CAST_RINT", errors=err)

# TCI<Tile, T, descending>(dst, start [, tmp]): 1-row tiles
TCI_TMP = {"int32": 256, "int16": 1024}  # >= 768 B (b32) and 1792 B (b16) on a2a3
for tag, dt in (("i32", "int32"), ("i16", "int16")):
    for desc in (0, 1):
        case(
            f"TCI_{tag}_{'desc' if desc else 'asc'}", "TCI", [vec(dt, 1, C)], [], [0],
            lambda t, d=desc: pto.TCI(t[0], 100, descending=bool(d)), inputs(),
        )  # fmt: skip
        case(
            f"TCI_{tag}_{'desc' if desc else 'asc'}_tmp", "TCI",
            [vec(dt, 1, C), vec(dt, 1, TCI_TMP[dt])], [], [0],
            lambda t, d=desc: pto.TCI(t[0], 100, t[1], descending=bool(d)), inputs(),
        )  # fmt: skip

# the descending flag written as a bool: TCI<Tile, int32_t, true>
case(
    "TCI_i32_desc_bool", "TCI", [vec("int32", 1, C)], [], [0],
    lambda t: pto.TCI(t[0], -7, descending=True), inputs(),
)  # fmt: skip

# TQUANT<QuantType>: tiles = [src, scale, offset, dst, tmp]; a2a3 needs tmp
Q_SRC = uniform("float32", (R, C), -30, 30)
Q_SCALE = uniform("float32", (R, 1), 1.0, 4.0)
Q_OFFSET = integers("float32", (R, 1), 100, 140)
QTILES = [vec("float32"), col("float32"), col("float32")]
NEEDS_TMP = {"a2": "PTO101"}
for quant, dt in (("INT8_SYM", "int8"), ("INT8_ASYM", "uint8")):
    asym = quant == "INT8_ASYM"
    off = (lambda t: t[2]) if asym else (lambda t: None)
    data = inputs(Q_SRC, Q_SCALE, Q_OFFSET)
    notmp = QTILES + [vec(dt)]
    withtmp = QTILES + [vec(dt), vec("int32")]
    if asym:  # TQUANT<ASYM>(dst, src, scale, offset): no tmp
        case(
            "TQUANT_ASYM_offset", "TQUANT", notmp, [0, 1, 2], [3],
            lambda t: pto.TQUANT(t[3], t[0], t[1], offset=t[2], quant="INT8_ASYM"), data,
            NEEDS_TMP,
        )  # fmt: skip
        case(
            "TQUANT_ASYM_offset_ptr", "TQUANT", notmp, [0, 1, 2], [3],
            lambda t: pto.TQUANT(t[3], t[0], t[1], offset=t[2], quant="INT8_ASYM"), data,
            NEEDS_TMP,
        )  # fmt: skip
        case(
            "TQUANT_ASYM_tmp_offset", "TQUANT", withtmp, [0, 1, 2], [3],
            lambda t: pto.TQUANT(t[3], t[0], t[1], t[4], t[2], quant="INT8_ASYM"), data,
        )  # fmt: skip
        case(
            "TQUANT_ASYM_tmp_offset_ptr", "TQUANT", withtmp, [0, 1, 2], [3],
            lambda t: pto.TQUANT(t[3], t[0], t[1], t[4], t[2], quant="INT8_ASYM"), data,
        )  # fmt: skip
    else:  # TQUANT<SYM>(dst, src, scale) and (dst, src, scale, tmp)
        case(
            "TQUANT_SYM", "TQUANT", notmp, [0, 1, 2], [3],
            lambda t: pto.TQUANT(t[3], t[0], t[1], quant="INT8_SYM"), data, NEEDS_TMP,
        )  # fmt: skip
        case(
            "TQUANT_SYM_tmp", "TQUANT", withtmp, [0, 1, 2], [3],
            lambda t: pto.TQUANT(t[3], t[0], t[1], t[4], quant="INT8_SYM"), data,
        )  # fmt: skip

# TQUANT<MXFP8>(dst, src, &exp, &max, &scaling): tiles = [src, exp, max, scaling, dst]; a2a3
# has no MX form
case(
    "TQUANT_MXFP8", "TQUANT",
    [vec("float32"), vec("uint8"), vec("float32"), vec("float32"), vec("int8")], [0], [4],
    lambda t: pto.TQUANT(t[4], t[0], exp=t[1], group_max=t[2], scaling=t[3], quant="MXFP8"),
    inputs(Q_SRC), {"a2": "PTO102"},
)  # fmt: skip

# TDEQUANT(dst, src, scale, offset)
for tag, dt, lo, hi in (("i8", "int8", -128, 128), ("i16", "int16", -3000, 3000)):
    case(
        f"TDEQUANT_{tag}", "TDEQUANT",
        [vec(dt), vec("float32", R, 8), vec("float32", R, 8), vec("float32")], [0, 1, 2], [3],
        lambda t: pto.TDEQUANT(t[3], t[0], t[1], t[2]),
        inputs(integers(dt, (R, C), lo, hi), uniform("float32", (R, 8), 0.01, 0.5),
               uniform("float32", (R, 8), -3, 3)),
    )  # fmt: skip

# template forms with a trailing Event operand (C++ only: `ev = TLOAD(...)` posts MTE2 -> V, the
# instruction waits on it), so the Python twin is the case's own (regression: the explicit
# template value forms of the generic recorder did not wait)
for base in ("TCVT_f32_i16_noctrl_OFF", "TQUANT_SYM_tmp", "TQUANT_ASYM_tmp_offset_ptr"):
    c = next(c for c in CASES if c.name == base)
    CASES.append(Case(f"{base}_event", c.op, c.tiles, c.loads, c.stores, c.body, c.data, c.errors))

# bfloat16 where a target allows it (a2a3 has no bf16 TCOLSUM / TCMP: PTO101 from both)
case(
    "TCOLSUM_bf16", "TCOLSUM", [vec("bfloat16"), vec("bfloat16", 1, C)], [0], [1],
    lambda t: pto.TCOLSUM(t[1], t[0]), inputs(uniform("bfloat16", (R, C), -4, 4)),
    {"a2": "PTO101"},
)  # fmt: skip
case(
    "TCMP_bf16_NE", "TCMP", [vec("bfloat16"), vec("bfloat16"), MASK], [0, 1], [2],
    lambda t: pto.TCMP(t[2], t[0], t[1], "NE"),
    inputs(integers("bfloat16", (R, C), -2, 3), integers("bfloat16", (R, C), -2, 3)),
    {"a2": "PTO101", "cpu": "PTO101"},  # cpu: a u8 mask takes i32/f16/f32 sources only
)  # fmt: skip
case(
    "TSEL_bf16", "TSEL", [MASK] + [vec("bfloat16")] * 4, [0, 1, 2], [3],
    lambda t: pto.TSEL(t[3], t[0], t[1], t[2], t[4]),
    inputs(integers("uint8", (R, 32), 0, 256), uniform("bfloat16", (R, C), -9, 9),
           uniform("bfloat16", (R, C), -9, 9)),
)  # fmt: skip

BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES), "case names must be unique"
ENTRIES = list(BY_NAME)


# -- the check ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def python_twin(c: Case):
    """The case's kernel written in Python (the C++ entry is its transcription)."""

    @pto.kernel
    def k(*gm):
        outs, ins = gm[: len(c.stores)], gm[len(c.stores) :]
        tiles = [make_tile(s) for s in c.tiles]
        for n, t in enumerate(tiles):
            pto.TASSIGN(t, SLOT * n)
        for i, buf in zip(c.loads, ins):
            pto.TLOAD(tiles[i], global_tensor(buf, c.tiles[i]))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        c.body(tiles)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        for i, buf in zip(c.stores, outs):
            pto.TSTORE(global_tensor(buf, c.tiles[i]), tiles[i])

    return k


def arguments(c: Case):
    def make(dev):
        data = c.data(np.random.default_rng(11))
        outs = [dev.gm_zeros(c.tiles[i][1:3], c.tiles[i][0]) for i in c.stores]
        return outs + [dev.gm_array(a) for a in data]

    return make


def raised(kernel, device, make_args) -> PtoSimError:
    dev = pto.Device(device)
    with pytest.raises(PtoSimError) as info:
        dev.run(kernel, *make_args(dev))
    return info.value


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("entry", ENTRIES)
def test_cxx_form_matches_python(prog, assert_twins, entry, device):
    c = BY_NAME[entry]
    cxx, py, make = prog.entry(entry), python_twin(c), arguments(c)
    if device in c.errors:
        want = c.errors[device]
        py_err, cxx_err = raised(py, device, make), raised(cxx, device, make)
        assert py_err.code == want, py_err
        assert cxx_err.code == want, cxx_err
        assert "reducecvt.cpp:" in str(cxx_err), str(cxx_err)
        return
    res = assert_twins(cxx, py, device, make, [c.op])
    assert len([i for b in res.blocks for i in b.program if i.opcode == c.op]) == 1


def test_cxx_tquant_four_operands_bind_by_quant_type():
    """TQUANT<INT8_SYM>(dst, src, scale, tmp): a symmetric quant has no offset, so the 4th tile
    is tmp; TQUANT<INT8_ASYM>(dst, src, scale, offset) keeps the offset (regression: the SYM
    tmp landed on offset)."""
    from ptosim.cxx.dispatch import bind
    from ptosim.isa import registry

    fn = registry.spec("TQUANT").function
    four = ["d", "s", "k", "x"]
    assert bind("TQUANT", fn, four, {"quant": "INT8_SYM"})[1]["tmp"] == "x"
    assert bind("TQUANT", fn, four, {"quant": "INT8_ASYM"})[1]["offset"] == "x"
