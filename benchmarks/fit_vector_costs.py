"""Fit the A2/A3 vector cost classes to the hardware cases V1-V34 (docs/calibration.md).

Usage: ``python benchmarks/fit_vector_costs.py [device] [--write]`` (default ``a2``). Prints
the fitted parameters next to the values in ``configs/<device>.toml`` and the cases each one
rests on, then one row per case: measured, the vendor model, the fitted model and its
residual, the leave-one-out prediction (the fit of the other 33 cases) and its error, the
configured model (whole cycles per call, as the plans charge them) and its residual; then the
summary statistics. ``--write`` rewrites the fitted numbers in ``configs/a2.toml`` (rounded to
0.01; a3.toml extends it). The cases live in ``targets/calibration.py``, the fit in
``targets/vector_fit.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# the repo this script belongs to (its configs and cases), not another installed ptosim
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptosim.config import load_config  # noqa: E402
from ptosim.targets.calibration import CASES, sequence_cycles  # noqa: E402
from ptosim.targets.vector_fit import (  # noqa: E402
    HUBER,
    PARAMS,
    config_values,
    configured_params,
    fit,
    leave_one_out,
    model_cycles,
    parameter_cases,
    weights,
)

TOLERANCE = 0.10


def _pct(x: float) -> str:
    return f"{100 * x:+.1f} %"


def stats(errors: list[float]) -> tuple[int, float, float]:
    """(cases within TOLERANCE, mean absolute error, largest absolute error)."""
    a = [abs(e) for e in errors]
    return sum(e <= TOLERANCE for e in a), sum(a) / len(a), max(a)


def report(device: str = "a2") -> None:
    t = load_config(device).timing
    p, conf = fit(t), configured_params(t)
    uses = parameter_cases(t, p)
    print(f"fitted parameters (cycles), config {device}:")
    print(f"  {'parameter':26s} {'fit':>8s} {'config':>8s}  cases")
    for name in PARAMS:
        print(f"  {name:26s} {p[name]:8.2f} {conf[name]:8.2f}  {' '.join(uses[name])}")
    loo = leave_one_out(t)
    w = weights(t, p)
    print()
    print(
        "| case | instruction | measured | vendor model | fit | residual | leave-one-out | "
        "error | ptosim | residual |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    res, held, conf_res, vendor = [], [], [], []
    for c, wc in zip(CASES, w):
        m = model_cycles(t, c, p)
        q = sequence_cycles(t, c.sequence)
        r1, r2 = (m - c.measured) / c.measured, (loo[c.name] - c.measured) / c.measured
        r3 = (q - c.measured) / c.measured
        res.append(r1)
        held.append(r2)
        conf_res.append(r3)
        vendor.append((c.vendor_model - c.measured) / c.measured)
        mark = "" if wc == 1.0 else f" (weight {wc:.2f})"
        print(
            f"| {c.name}{mark} | {c.instruction} | {c.measured} | {c.vendor_model} | {m:.1f} | "
            f"{_pct(r1)} | {loo[c.name]:.1f} | {_pct(r2)} | {q} | {_pct(r3)} |"
        )
    n = len(CASES)
    print()
    print(f"{n} cases, {len(PARAMS)} fitted parameters, Huber weights beyond {HUBER:.0%}")
    for what, errs in (
        ("fit residuals", res),
        ("leave-one-out errors", held),
        ("configured model", conf_res),
        ("vendor cost model", vendor),
    ):
        k, mape, worst = stats(errs)
        print(
            f"  {what:22s}: {k}/{n} within {TOLERANCE:.0%} ({100 * k / n:.0f} %), "
            f"mean |error| {100 * mape:.1f} %, largest {100 * worst:.1f} %"
        )


def _fmt(x: float) -> str:
    return f"{round(x, 2):g}"


def write(device: str = "a2") -> None:
    """Rewrite the fitted class numbers of configs/a2.toml (a3.toml extends it)."""
    values = config_values(fit(load_config(device).timing))
    for name in ("a2",):
        path = ROOT / "configs" / f"{name}.toml"
        text = path.read_text()
        for cls, entry in values.items():
            line = re.search(rf"^{cls} = \{{.*\}}$", text, re.M)
            if line is None:
                raise SystemExit(f"{path}: no class line {cls}")
            new = line.group(0)
            for key in ("head", "slope", "tail", "partial_floor"):
                if key in entry:
                    new = re.sub(rf"\b{key} = [0-9.]+", f"{key} = {_fmt(entry[key])}", new)
            for dt, v in entry.get("slope_by_dtype", {}).items():
                new = re.sub(rf"\b{dt} = [0-9.]+", f"{dt} = {_fmt(v)}", new)
            text = text.replace(line.group(0), new)
        path.write_text(text)
        print(f"wrote {path}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--write" in sys.argv[1:]:
        write(*args)
    else:
        report(*args)
