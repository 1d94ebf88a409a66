"""A2 vector calibration: the hardware cases V1-V19, their vendor lowerings, and the cost fit.

Each case is one instruction measured alone on an Atlas A2 NPU (operands already in UB), with
the sequence of vector intrinsics, barriers, handshakes and UB->UB copies that the reference
a2a3 library issues for it (the "vendor lowering"). The sequences are data written by hand from
that lowering, independent of ptosim's plans, so that

- ``benchmarks/fit_vector_costs.py`` fits the cost classes of ``configs/a2.toml`` to them by
  least squares (``fit``), and
- the tests check that the configured model reproduces every case (``sequence_cycles``) and that
  the real plans reproduce the cases whose instructions exist (end to end).

The model of a sequence (docs/calibration.md): consecutive intrinsics pay their issue cost
``head + slope * repeats`` (at least ``partial_floor`` in count mode or under a partial mask, for
the classes with a floor); the vector stream drains (``tail``, the pipeline latency of the last
call) before a ``pipe_barrier(PIPE_V)``, a V<->S handshake and at the end of the instruction; a
barrier costs ``barrier_cycles``; a copy_ubuf_to_ubuf costs its issue plus one cycle per block.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .costs import UB_COPY, vector_cost, vector_cycles


# -- the sequence vocabulary ----------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One vector intrinsic: ``repeats`` repeats; ``mode`` norm (full mask), partial (a narrower
    lane mask) or count (count mode over ceil(N/E) repeats)."""

    op: str
    repeats: int
    mode: str = "norm"

    @property
    def partial(self) -> bool:
        return self.mode != "norm"


@dataclass(frozen=True)
class Copy:
    """One copy_ubuf_to_ubuf of ``blocks`` 32-byte blocks."""

    blocks: int


@dataclass(frozen=True)
class Barrier:
    """pipe_barrier(PIPE_V)."""


@dataclass(frozen=True)
class ScalarRead:
    """The library's V->S handshake, one scalar UB load, then the S->V handshake."""


BARRIER = Barrier()
SCALAR_READ = ScalarRead()


@dataclass(frozen=True)
class Case:
    name: str
    instruction: str
    what: str  # dtype, shape, addresses as measured
    lowering: str  # the vendor lowering in words
    sequence: tuple
    measured: int  # cycles on the Atlas A2
    vendor_model: int  # the vendor cost model's prediction, for comparison


def _rep(n: int, *items) -> tuple:
    return tuple(items) * n


def _tree(level_calls: list[int]) -> tuple:
    """Binary-tree levels of count-mode one-repeat vadds, each level closed by a barrier."""
    out: tuple = ()
    for n in level_calls:
        out += _rep(n, Call("vadd", 1, "count")) + (BARRIER,)
    return out


CASES: tuple[Case, ...] = (
    Case("V1", "TMOV", "fp32 64x128 Vec->Vec, src 0x0, dst 0x20000",
         "one copy_ubuf_to_ubuf of 1024 blocks", (Copy(1024),), 1029, 55),
    Case("V2", "TMOV", "fp32 16x24, valid 15x23, src 0x0, dst 0x20000",
         "one copy_ubuf_to_ubuf per valid row (15 copies of 3 blocks)",
         _rep(15, Copy(3)), 120, 0),
    Case("V3", "TROWEXPAND", "fp32 64x64 dst, src 64x64, src 0x0, dst 0x8000",
         "count mode; per row a V->S handshake, a scalar read, an S->V handshake, vector_dup of "
         "64 elements", _rep(64, SCALAR_READ, Call("vector_dup", 1, "count")), 933, 1796),
    Case("V4", "TADD", "fp32 64x64, 0x0, 0x4000, 0x8000", "vadd, 64 repeats",
         (Call("vadd", 64),), 160, 152),
    Case("V5", "TSUB", "fp32 64x64, 0x0, 0x4000, 0x8000", "vsub, 64 repeats",
         (Call("vsub", 64),), 153, 152),
    Case("V6", "TMUL", "fp16 16x256, 0x0, 0x4000, 0x8000", "vmul, 32 repeats",
         (Call("vmul", 32),), 96, 89),
    Case("V7", "TDIV", "fp32 64x64, 0x0, 0x4000, 0x8000", "vdiv, 64 repeats",
         (Call("vdiv", 64),), 288, 286),
    Case("V8", "TABS", "fp32 64x64, src 0x0, dst 0x8000", "vabs, 64 repeats",
         (Call("vabs", 64),), 68, 93),
    Case("V9", "TADDS", "fp32 32x64, scalar 0.0, src 0x0, dst 0x28000", "vadds, 32 repeats",
         (Call("vadds", 32),), 57, 63),
    Case("V10", "TMULS", "fp32 256x16, scalar 1.0, src 0x0, dst 0x28000",
         "16-lane mask, vmuls 255 repeats + 1 repeat (8-bit repeat field)",
         (Call("vmuls", 255, "partial"), Call("vmuls", 1, "partial")), 266, 284),
    Case("V11", "TMINS", "fp32 64x64, scalar 0.0, src 0x400, dst 0x8400", "vmins, 64 repeats",
         (Call("vmins", 64),), 87, 94),
    Case("V12", "TDIVS", "fp32 32x64, tile / scalar, not in place",
         "vector_dup of the scalar (32 repeats), pipe_barrier(V), vdiv (32 repeats)",
         (Call("vector_dup", 32), BARRIER, Call("vdiv", 32)), 205, 215),
    Case("V13", "TEXP", "fp16 64x64, src 0x0, dst 0x11000", "vexp, 32 repeats",
         (Call("vexp", 32),), 95, 95),
    Case("V14", "TSQRT", "fp32 64x64, src 0x0, dst 0x20000", "vsqrt, 64 repeats",
         (Call("vsqrt", 64),), 160, 167),
    Case("V15", "TROWMAX", "fp32 64x64 src, tmp and dst 64x64, 0x0, 0x4000, 0x8000",
         "count-mode vcmax over 4096 elements, pipe_barrier",
         (Call("vcmax", 64, "count"), BARRIER), 480, 11),
    Case("V16", "TROWSUM", "fp16 64x128 src, tmp and dst, 0x0, 0x4000, 0x8000",
         "count-mode vcadd over 8192 elements, pipe_barrier",
         (Call("vcadd", 64, "count"), BARRIER), 495, 51),
    Case("V17", "TCOLMAX", "fp32 64x64, dst 64x64, src 0x0, dst 0x8000",
         "copy row 0 (8 blocks), barrier, then 63 x (count-mode vmax of one row + barrier)",
         (Copy(8), BARRIER) + _rep(63, Call("vmax", 1, "count"), BARRIER), 2589, 2589),
    Case("V18", "TCOLSUM", "fp32 64x64, binary tree, tmp 64x64 valid 32x64, dst 1x64",
         "count-mode vadds of 64 elements: 32 row pairs, then tree levels of 16, 8, 4, 2, 1, a "
         "barrier after each level, then a copy of tmp row 0 (8 blocks)",
         _tree([32, 16, 8, 4, 2, 1]) + (Copy(8),), 1263, 1188),
    Case("V19", "TCVT", "fp32 -> fp16 4x64, CAST_NONE, src 0x0, dst 0x8000",
         "vconv_f322f16r, one call of 1 repeat per row (4 calls)",
         _rep(4, Call("vconv_f322f16r", 1)), 33, 31),
)  # fmt: skip

CASE = {c.name: c for c in CASES}


# -- the model of a sequence ----------------------------------------------------------------
def _drains(seq: tuple, k: int) -> bool:
    """The vector stream drains after item ``k`` unless another intrinsic follows it."""
    return k + 1 == len(seq) or not isinstance(seq[k + 1], Call)


def scalar_read_cycles(t) -> int:
    """Critical path of a ScalarRead between two vector calls, as the engine runs it: set_flag
    on V, wait_flag on S, the UB load, set_flag on S, PIPE_S issuing the wait_flag to V, the
    wait on V (PIPE_S issues the next call meanwhile)."""
    s = t.scalar
    return 4 * s.flag_cycles + s.ub_load_cycles + s.issue_cycles


def sequence_cycles(t, seq: tuple) -> int:
    """Cycles of a lowering sequence under the timing config ``t`` (integer per call, as the
    plans charge them)."""
    total = 0
    for k, item in enumerate(seq):
        if isinstance(item, Call):
            total += vector_cycles(
                t, item.op, item.repeats, last=_drains(seq, k), partial=item.partial
            )
        elif isinstance(item, Copy):
            total += vector_cycles(t, UB_COPY, item.blocks)
        elif isinstance(item, Barrier):
            total += t.scalar.barrier_cycles
        else:
            total += scalar_read_cycles(t)
    return total


# -- the fit --------------------------------------------------------------------------------
ISSUE_CYCLES = 1.0  # one intrinsic issued per cycle (fixed: V19 alone cannot separate it)
FILL_SLOPE = 1.0  # vector_dup writes one 256-byte repeat per cycle (the vendor slope, fixed)

# How each measured class of configs/a2.toml maps onto the fitted parameters (a name) or a
# fixed value (a number). Classes without a measurement are estimates set in the config.
FIT_CLASSES: dict[str, dict] = {
    "binary": dict(head=ISSUE_CYCLES, slope="binary_per_repeat", tail="latency",
                   partial_floor="count_floor"),
    "div": dict(head=ISSUE_CYCLES, slope="div_per_repeat", tail="latency",
                partial_floor="count_floor"),
    "scalar": dict(head=ISSUE_CYCLES, slope="scalar_per_repeat", tail="latency"),
    "unary": dict(head=ISSUE_CYCLES, slope="unary_per_repeat", tail="latency"),
    "transcendental": dict(head=ISSUE_CYCLES, slope="transcendental_per_repeat",
                           tail="latency"),
    "reduce": dict(head=ISSUE_CYCLES, slope="reduce_per_repeat", tail="latency"),
    "convert": dict(head=ISSUE_CYCLES, slope="convert_per_repeat", tail="latency"),
    "fill": dict(head=ISSUE_CYCLES, slope=FILL_SLOPE, tail="fill_latency"),
    "copy": dict(head="copy_issue", slope="copy_per_block", tail=0.0),
}  # fmt: skip

PARAMS = (
    "latency",
    "fill_latency",
    "count_floor",
    "binary_per_repeat",
    "div_per_repeat",
    "scalar_per_repeat",
    "unary_per_repeat",
    "transcendental_per_repeat",
    "reduce_per_repeat",
    "convert_per_repeat",
    "copy_issue",
    "copy_per_block",
)


def class_of(t, op: str) -> str:
    """The cost class an intrinsic resolves to in the config (``op`` may be a prefix match)."""
    for name, cost in t.vector.classes.items():
        if cost is vector_cost(t, op):
            return name
    raise KeyError(f"{op} does not resolve to a cost class")


def _add(row: np.ndarray, value, scale: float) -> float:
    """Add ``scale`` x ``value`` (a parameter name or a fixed number) to ``row``; return the
    constant part."""
    if isinstance(value, str):
        row[PARAMS.index(value)] += scale
        return 0.0
    return float(value) * scale


def _value(spec, p: dict) -> float:
    return p[spec] if isinstance(spec, str) else float(spec)


def design_row(t, case: Case, p: dict) -> tuple[np.ndarray, float]:
    """The case's cycles as ``row @ params + const``; ``p`` (current parameters) decides which
    count-mode calls sit on their floor."""
    row, const = np.zeros(len(PARAMS)), 0.0
    seq = case.sequence
    for k, item in enumerate(seq):
        if isinstance(item, Barrier):
            const += t.scalar.barrier_cycles
        elif isinstance(item, ScalarRead):
            const += scalar_read_cycles(t)
        else:
            op, n = (UB_COPY, item.blocks) if isinstance(item, Copy) else (item.op, item.repeats)
            spec = FIT_CLASSES[class_of(t, op)]
            floor = spec.get("partial_floor")
            issue = _value(spec["head"], p) + _value(spec["slope"], p) * n
            if isinstance(item, Call) and item.partial and floor and _value(floor, p) > issue:
                const += _add(row, floor, 1.0)
            else:
                const += _add(row, spec["head"], 1.0) + _add(row, spec["slope"], n)
            if isinstance(item, Copy) or _drains(seq, k):
                const += _add(row, spec["tail"], 1.0)
    return row, const


def fit(t, cases=CASES) -> dict:
    """Least-squares fit of PARAMS to the measured cycles, minimising the relative errors.

    The floor of count-mode calls makes the model piecewise linear: start from the vendor's
    16-cycle floor, fit, re-decide which calls sit on the floor, refit until stable.
    """
    p = {name: 1.0 for name in PARAMS} | {"count_floor": 16.0, "latency": 14.0}
    for _ in range(10):
        rows, rhs = [], []
        for c in cases:
            row, const = design_row(t, c, p)
            rows.append(row / c.measured)
            rhs.append((c.measured - const) / c.measured)
        x, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
        new = dict(zip(PARAMS, (float(v) for v in x)))
        if all(abs(new[k] - p[k]) < 1e-9 for k in PARAMS):
            break
        p = new
    return new


def model_cycles(t, case: Case, p: dict) -> float:
    """The fitted (unrounded) model's cycles for ``case``."""
    row, const = design_row(t, case, p)
    return float(row @ np.array([p[k] for k in PARAMS]) + const)


def configured_params(t) -> dict:
    """The config's value of each fitted parameter (read from the first class that uses it)."""
    out = {}
    for cls, spec in FIT_CLASSES.items():
        for field, value in spec.items():
            if isinstance(value, str) and value not in out:
                out[value] = getattr(t.vector.classes[cls], field)
    return out
