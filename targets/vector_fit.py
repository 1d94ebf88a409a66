"""The A2 vector cost fit: structure, robust least squares and leave-one-out errors.

The structure (docs/calibration.md, "Model"): every intrinsic issues in one cycle plus a
per-repeat cost of its class (by element type where the cases show a difference), and the
vector stream pays a pipeline latency when it drains. Three pipelines drain differently: the
ALU (``latency``), the special-function unit (vdiv, vexp, vsqrt: ``latency`` plus a fixed
``SFU_EXTRA_LATENCY``) and the short path of plain data ops (vector_dup, vabs:
``short_latency``). Two-source ops in count mode or under a partial mask issue for at least
``count_floor`` cycles; a copy_ubuf_to_ubuf costs ``copy_issue`` plus one cycle per block.

``fit`` finds the parameters by iteratively reweighted least squares on the relative errors
with Huber weights (``HUBER``): a case further than 5 % from the model counts less, so the few
sequences on which the two measurement campaigns disagree do not pull the structure (the
reference notes: "model the structure, do not chase each number"). ``leave_one_out`` refits
without each case in turn and predicts it: a held-out-style error per case.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .calibration import (
    CASES,
    Barrier,
    Case,
    Copy,
    Ctrl,
    ScalarRead,
    drains,
    scalar_read_cycles,
)
from .costs import UB_COPY, vector_cost

# -- fixed structure (each with its source) -------------------------------------------------
ISSUE_CYCLES = 1.0  # one intrinsic issued per cycle (V19/V34: 4 calls cannot separate it)
FILL_SLOPE = 1.0  # vector_dup writes one 256-byte repeat per cycle (the vendor's slope 1)
COPY_PER_BLOCK = 1.0  # one 32-byte UB block per cycle (a free fit of V1, V2, V33 gives 1.00)
# The special-function unit drains 9 cycles after the ALU: the difference of the pipeline
# latencies of VEXP/VDIV fp32 (16/17) and VADD fp32 (7) in the vendor's 950 vector simulator
# parameters. Fitting it freely on the A2 cases gives 8.7, but then each of vexp and vsqrt has
# two cases for two unknowns and neither can be predicted when one is held out.
SFU_EXTRA_LATENCY = 9.0
SQRT_16BIT_FACTOR = 2.0  # vsqrt costs per element: a 16-bit repeat holds twice the elements
HUBER = 0.05  # relative error beyond which a case's weight falls off as 1/|error|


@dataclass(frozen=True)
class Lin:
    """``coef * params[name] + const`` (``name`` None: the constant alone)."""

    name: str | None = None
    coef: float = 1.0
    const: float = 0.0

    def value(self, p: dict) -> float:
        return self.const + (self.coef * p[self.name] if self.name else 0.0)


def _p(name: str, coef: float = 1.0, const: float = 0.0) -> Lin:
    return Lin(name, coef, const)


def _c(value: float) -> Lin:
    return Lin(None, 0.0, value)


ALU, SFU = _p("latency"), _p("latency", const=SFU_EXTRA_LATENCY)

# How each measured class of configs/a2.toml is built from the parameters: head, slope (per
# element type: "*" = every type not listed), tail, partial_floor. Classes without a
# measurement are estimates set in the config (docs/calibration.md).
FIT_CLASSES: dict[str, dict] = {
    "binary": dict(head=_c(ISSUE_CYCLES), slope={"*": _p("binary_per_repeat")}, tail=ALU,
                   partial_floor=_p("count_floor")),
    "multiply": dict(head=_c(ISSUE_CYCLES), slope={"*": _p("multiply_per_repeat")}, tail=ALU,
                     partial_floor=_p("count_floor")),
    "div": dict(head=_c(ISSUE_CYCLES), slope={"*": _p("div_per_repeat")}, tail=SFU,
                partial_floor=_p("count_floor")),
    "scalar": dict(head=_c(ISSUE_CYCLES), tail=ALU,
                   slope={"*": _p("scalar_per_repeat"), "float32": _p("scalar_fp32_per_repeat")}),
    "short": dict(head=_c(ISSUE_CYCLES), slope={"*": _p("short_per_repeat")},
                  tail=_p("short_latency")),
    "fill": dict(head=_c(ISSUE_CYCLES), slope={"*": _c(FILL_SLOPE)}, tail=_p("short_latency")),
    "exp": dict(head=_c(ISSUE_CYCLES), slope={"*": _p("exp_per_repeat")}, tail=SFU),
    "sqrt": dict(head=_c(ISSUE_CYCLES), tail=SFU,
                 slope={"*": _p("sqrt_per_repeat"),
                        "half": _p("sqrt_per_repeat", SQRT_16BIT_FACTOR),
                        "bfloat16": _p("sqrt_per_repeat", SQRT_16BIT_FACTOR)}),
    "reduce": dict(head=_c(ISSUE_CYCLES), slope={"*": _p("reduce_per_repeat")}, tail=ALU),
    "convert": dict(head=_c(ISSUE_CYCLES), slope={"*": _p("convert_per_repeat")}, tail=ALU),
    "copy": dict(head=_p("copy_issue"), slope={"*": _c(COPY_PER_BLOCK)}, tail=_c(0.0)),
}  # fmt: skip

PARAMS = (
    "latency",
    "short_latency",
    "count_floor",
    "binary_per_repeat",
    "multiply_per_repeat",
    "div_per_repeat",
    "scalar_fp32_per_repeat",
    "scalar_per_repeat",
    "short_per_repeat",
    "exp_per_repeat",
    "sqrt_per_repeat",
    "reduce_per_repeat",
    "convert_per_repeat",
    "copy_issue",
)


def class_of(t, op: str) -> str:
    """The cost class an intrinsic resolves to in the config (``op`` may be a prefix match)."""
    cost = vector_cost(t, op)
    for name, c in t.vector.classes.items():
        if c is cost:
            return name
    raise KeyError(f"{op} does not resolve to a cost class")


def _slope(spec: dict, dtype: str | None) -> Lin:
    table = spec["slope"]
    return table.get(dtype, table["*"]) if dtype else table["*"]


def _add(row: np.ndarray, lin: Lin, scale: float) -> float:
    """Add ``scale`` x ``lin`` to ``row``; return the constant part."""
    if lin.name:
        row[PARAMS.index(lin.name)] += scale * lin.coef
    return scale * lin.const


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
        elif isinstance(item, Ctrl):
            const += ISSUE_CYCLES  # a control intrinsic: one issue (the plans price it so)
        else:
            if isinstance(item, Copy):
                op, n, dtype, partial = UB_COPY, item.blocks, None, False
            else:
                op, n, dtype, partial = item.op, item.repeats, item.dtype, item.partial
            spec = FIT_CLASSES[class_of(t, op)]
            head, slope, floor = spec["head"], _slope(spec, dtype), spec.get("partial_floor")
            issue = head.value(p) + slope.value(p) * n
            if partial and floor is not None and floor.value(p) > issue:
                const += _add(row, floor, 1.0)
            else:
                const += _add(row, head, 1.0) + _add(row, slope, n)
            if isinstance(item, Copy) or drains(seq, k):
                const += _add(row, spec["tail"], 1.0)
    return row, const


def model_cycles(t, case: Case, p: dict) -> float:
    """The fitted (unrounded) model's cycles for ``case``."""
    row, const = design_row(t, case, p)
    return float(row @ np.array([p[k] for k in PARAMS]) + const)


def _solve(t, cases, weights, p: dict) -> dict:
    """Weighted least squares on relative errors; re-decide the floors until stable."""
    for _ in range(10):
        rows, rhs = [], []
        for c, w in zip(cases, weights):
            row, const = design_row(t, c, p)
            s = np.sqrt(w) / c.measured
            rows.append(row * s)
            rhs.append((c.measured - const) * s)
        x, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
        new = dict(zip(PARAMS, (float(v) for v in x)))
        if all(abs(new[k] - p[k]) < 1e-9 for k in PARAMS):
            return new
        p = new
    return p


def fit(t, cases=CASES) -> dict:
    """The parameters: iteratively reweighted least squares of the relative errors with Huber
    weights (``HUBER``), starting from the vendor's 16-cycle count-mode floor."""
    p = {name: 1.0 for name in PARAMS} | {"count_floor": 16.0, "latency": 14.0}
    weights = np.ones(len(cases))
    for _ in range(50):
        p = _solve(t, cases, weights, p)
        err = np.array([abs(model_cycles(t, c, p) - c.measured) / c.measured for c in cases])
        new = np.where(err <= HUBER, 1.0, HUBER / np.maximum(err, 1e-12))
        if np.allclose(new, weights, atol=1e-9):
            break
        weights = new
    return p


def weights(t, p: dict, cases=CASES) -> list[float]:
    """The Huber weight each case ends with under the parameters ``p``."""
    err = [abs(model_cycles(t, c, p) - c.measured) / c.measured for c in cases]
    return [1.0 if e <= HUBER else HUBER / e for e in err]


def leave_one_out(t, cases=CASES) -> dict[str, float]:
    """Case name -> the cycles predicted for it by the fit of all the other cases."""
    out = {}
    for k, c in enumerate(cases):
        p = fit(t, cases[:k] + cases[k + 1 :])
        out[c.name] = model_cycles(t, c, p)
    return out


def parameter_cases(t, p: dict, cases=CASES) -> dict[str, list[str]]:
    """Parameter -> the cases whose model (under the parameters ``p``) uses it: the "no cost
    class rests on one case" check."""
    out: dict[str, list[str]] = {name: [] for name in PARAMS}
    for c in cases:
        row, _ = design_row(t, c, p)
        for k, name in enumerate(PARAMS):
            if row[k]:
                out[name].append(c.name)
    return out


def class_values(p: dict) -> dict[str, dict]:
    """The fitted parameters as config class entries: head, slope (the "*" entry),
    slope_by_dtype, tail and partial_floor per measured class."""
    out = {}
    for cls, spec in FIT_CLASSES.items():
        slopes = {k: v.value(p) for k, v in spec["slope"].items()}
        entry = {
            "head": spec["head"].value(p),
            "slope": slopes.pop("*"),
            "tail": spec["tail"].value(p),
            "slope_by_dtype": slopes,
        }
        if "partial_floor" in spec:
            entry["partial_floor"] = spec["partial_floor"].value(p)
        out[cls] = entry
    return out


def configured_params(t) -> dict:
    """The config's value of each fitted parameter, read back through ``FIT_CLASSES``."""
    out = {}
    for cls, spec in FIT_CLASSES.items():
        cost = t.vector.classes[cls]
        fields = {"head": cost.head, "tail": cost.tail, "partial_floor": cost.partial_floor}
        fields |= {f"slope:{k}": cost.slope_for(None if k == "*" else k) for k in spec["slope"]}
        lins = {"head": spec["head"], "tail": spec["tail"]}
        lins |= {f"slope:{k}": v for k, v in spec["slope"].items()}
        if "partial_floor" in spec:
            lins["partial_floor"] = spec["partial_floor"]
        for field, lin in lins.items():
            if lin.name and lin.name not in out:
                out[lin.name] = (fields[field] - lin.const) / lin.coef
    return out


# Unmeasured classes whose numbers follow the fit: a copy of a measured class (the "_like"
# estimates) or the vendor's per-repeat slope with the fitted ALU latency.
COPIES = {
    "binary_like": "binary",
    "scalar_like": "scalar",
    "short_like": "short",
    "exp_like": "exp",
    "reduce_like": "reduce",
}
ALU_TAIL = ("group_reduce", "broadcast", "gather", "reducev2", "merge_sort", "other")


def config_values(p: dict) -> dict[str, dict]:
    """Every class entry of the config that follows the fit (``class_values`` plus the
    estimates of ``COPIES`` and ``ALU_TAIL``)."""
    out = class_values(p)
    for cls, src in COPIES.items():
        out[cls] = dict(out[src])
    for cls in ALU_TAIL:
        out[cls] = {"tail": ALU.value(p)}
    return out
