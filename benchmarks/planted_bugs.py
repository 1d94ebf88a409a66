"""Planted-bug hit rate of the checker: one-line sync mutants of correct kernels.

Run:  python benchmarks/planted_bugs.py [--devices cpu,a2,950pr] [--cxx]

Every mutant of tests/helpers/planted.py (removed wait / set / barrier, wrong event id, wrong
pipe pair, reused event) of the correct kernels below is run on each device. It prints, per bug
class, how often the first finding names the planted line (or the next one), and how often the
file patched with the causes' fixes (``ptosim check --fix``) then runs clean and exact.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the source tree's ptosim and tests.helpers

from tests.helpers.planted import (  # noqa: E402
    cxx_runner,
    judge,
    mutants,
    python_runner,
    summary,
)

BUGS = ROOT / "examples" / "bugs"
PY_KERNELS = [
    (BUGS / "missing_mte2_to_v.py", "fixed"),
    (BUGS / "missing_v_to_mte3.py", "fixed"),
    (BUGS / "missing_v_barrier.py", "fixed"),
    (BUGS / "reused_event_id.py", "fixed"),
    (BUGS / "wait_without_set.py", "fixed"),
    (BUGS / "wrong_pipe_pair.py", "fixed"),
    (ROOT / "examples" / "pingpong_row_scale.py", "pingpong_row_scale"),
    (ROOT / "examples" / "vector_pipeline.py", "vector_pipeline"),
    (ROOT / "examples" / "softmax.py", "softmax_16x64"),
    (ROOT / "examples" / "rmsnorm.py", "rmsnorm_f32"),
]
CXX = ROOT / "examples" / "cxx"
CXX_KERNELS = [
    (CXX / "bugs" / "missing_mte2_to_v.cpp", "fixed", f"{BUGS}/missing_mte2_to_v.py:fixed"),
    (CXX / "bugs" / "reused_event_id.cpp", "fixed", f"{BUGS}/reused_event_id.py:fixed"),
    (CXX / "bugs" / "missing_v_barrier.cpp", "fixed", f"{BUGS}/missing_v_barrier.py:fixed"),
    (CXX / "pingpong_row_scale.cpp", "pingpong_row_scale",
     f"{ROOT}/examples/pingpong_row_scale.py:pingpong_row_scale"),
]  # fmt: skip


def cases(cxx: bool):
    for path, kernel in PY_KERNELS:
        yield path, kernel, python_runner(kernel), False
    if cxx:
        for path, entry, twin in CXX_KERNELS:
            yield path, entry, cxx_runner(entry, twin), True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="cpu,a2,950pr")
    ap.add_argument("--cxx", action="store_true", help="C++ kernels too (builds each mutant)")
    ap.add_argument("--verbose", action="store_true", help="print every miss")
    ap.add_argument("--only", help="comma-separated file names (e.g. reused_event_id.cpp)")
    args = ap.parse_args()
    devices = args.devices.split(",")
    verdicts = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for n, (path, kernel, runner, cxx) in enumerate(cases(args.cxx)):
            if args.only and path.name not in args.only.split(","):
                continue
            text = path.read_text()
            for k, m in enumerate(mutants(text, kernel, cxx)):
                where = Path(tmp) / f"m{n}_{k}" / path.name
                where.parent.mkdir()
                for device in devices:
                    v = judge(m, where, device, runner)
                    v.file = path.name
                    verdicts.append(v)
                    if args.verbose and (v.outcome in ("miss", "silent-wrong") or v.fixed is False):
                        print(f"{v.outcome} fixed={v.fixed} {path.name}:{m.line} {m.kind} on "
                              f"{device}: {v.first[:300]}")  # fmt: skip
    table = summary(verdicts)
    hits = sum(r.get("hit", 0) for r in table.values())
    judged = hits + sum(r.get("miss", 0) for r in table.values())
    print(f"{'class':18s} {'hit':>5s} {'miss':>5s} {'benign':>7s} {'silent':>7s} "
          f"{'fixed':>6s} {'fix failed':>10s}")  # fmt: skip
    for kind, row in table.items():
        print(
            f"{kind:18s} {row.get('hit', 0):5d} {row.get('miss', 0):5d} "
            f"{row.get('benign', 0):7d} {row.get('silent-wrong', 0):7d} "
            f"{row.get('fixed', 0):6d} {row.get('fix-failed', 0):10d}"
        )
    by_file: dict[str, list[int]] = {}
    for v in verdicts:
        row = by_file.setdefault(v.file, [0, 0, 0, 0])
        row[0] += v.outcome == "hit"
        row[1] += v.outcome == "miss"
        row[2] += v.fixed is True
        row[3] += v.fixed is False
    for name, (h, m, f, ff) in by_file.items():
        print(f"  {name:28s} names the line {h}/{h + m}, patched clean {f}/{f + ff}")
    fixed = sum(r.get("fixed", 0) for r in table.values())
    tried = fixed + sum(r.get("fix-failed", 0) for r in table.values())
    print(f"first finding names the planted line: {hits}/{judged} = {hits / max(judged, 1):.1%}")
    print(f"patched file clean and exact: {fixed}/{tried} = {fixed / max(tried, 1):.1%}")
    print(f"({len(verdicts)} runs in {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
