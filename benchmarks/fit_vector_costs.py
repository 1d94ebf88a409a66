"""Fit the A2/A3 vector cost classes to the hardware cases V1-V19 (docs/calibration.md).

Usage: ``python benchmarks/fit_vector_costs.py [device]`` (default ``a2``). Prints the fitted
parameters next to the values in ``configs/<device>.toml``, then the table of the cases:
measured, the fitted model, the configured model (whole cycles per call, as the plans charge
them) and the residuals. The cases and the fit live in ``targets/calibration.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

# the repo this script belongs to (its configs and cases), not another installed ptosim
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ptosim.config import load_config  # noqa: E402
from ptosim.targets.calibration import (  # noqa: E402
    CASES,
    PARAMS,
    configured_params,
    fit,
    model_cycles,
)
from ptosim.targets.calibration import sequence_cycles as configured  # noqa: E402


def main(device: str = "a2") -> None:
    t = load_config(device).timing
    p, conf = fit(t), configured_params(t)
    print(f"fitted parameters (cycles), config {device}:")
    print(f"  {'parameter':28s} {'fit':>9s} {'config':>9s}")
    for name in PARAMS:
        print(f"  {name:28s} {p[name]:9.2f} {conf[name]:9.2f}")
    print()
    print("| case | instruction | measured | vendor model | fit | residual | ptosim | residual |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for c in CASES:
        m = model_cycles(t, c, p)
        q = configured(t, c.sequence)
        r1, r2 = (m - c.measured) / c.measured, (q - c.measured) / c.measured
        worst = max(worst, abs(r2))
        print(
            f"| {c.name} | {c.instruction} | {c.measured} | {c.vendor_model} | {m:.1f} | "
            f"{100 * r1:+.1f} % | {q} | {100 * r2:+.1f} % |"
        )
    print(f"\nlargest residual of the configured model: {100 * worst:.1f} %")


if __name__ == "__main__":
    main(*sys.argv[1:])
