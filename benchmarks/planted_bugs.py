"""Planted-bug hit rate of the checker: one-line sync mutants of correct kernels.

Run:  python benchmarks/planted_bugs.py [--devices cpu,a2,950pr] [--cxx | --cxx-only]
      [--only NAME,...] [--verbose] [--json FILE]
      python benchmarks/planted_bugs.py --report FILE   (the tables of a --json file)

Every mutant of tests/helpers/planted.py (removed wait / set / barrier, wrong event id, wrong
pipe pair, reused event) of the sync lines the correct kernels below record (helper functions
included) is run on each device. It prints, per bug class and device, how often the first
finding names the planted line (or the next one), and how often the file patched with the
causes' fixes (``ptosim check --fix``) then runs clean and exact; then the same per kernel file.
Mutants that are not bugs are counted apart, each with its rule (tests/helpers/planted.py):
``equivalent`` (records the correct kernel's program), ``no-rule`` (a removed PIPE_V barrier
on a5) and ``lowered`` (a removed PIPE_V barrier after an instruction whose lowering on that
device ends with one). A mutant with no finding is otherwise a miss (``silent``), whatever its
output.

C++ kernels are built once per mutant and target family (about a second each with g++).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the source tree's ptosim and tests.helpers

from tests.helpers.planted import (  # noqa: E402
    EXCLUDED,
    MISSES,
    cxx_runner,
    judge,
    mutants,
    original,
    python_runner,
    settled_barriers,
)

EX = ROOT / "examples"
BUGS = EX / "bugs"
GALLERY = ("missing_mte2_to_v", "missing_v_to_mte3", "missing_v_barrier", "reused_event_id",
           "wait_without_set", "wrong_pipe_pair")  # fmt: skip
# (file, kernel): the gallery's correct kernels, then the examples (loops, helpers, 4 blocks)
PY_KERNELS = [(BUGS / f"{g}.py", "fixed") for g in GALLERY] + [
    (EX / "pingpong_row_scale.py", "pingpong_row_scale"),
    (EX / "vector_pipeline.py", "vector_pipeline"),
    (EX / "softmax.py", "softmax_16x64"),
    (EX / "layernorm.py", "layernorm_16x64"),
    (EX / "rmsnorm.py", "rmsnorm_f32"),
    (EX / "embedding_lookup.py", "embedding_lookup"),
    (EX / "embedding_bag.py", "embedding_bag"),
    (EX / "cxx" / "py" / "multicore_scaled_lookup.py", "multicore_scaled_lookup"),
    (EX / "cxx" / "py" / "bugs" / "unconsumed_flag.py", "fixed"),
]
CXX = EX / "cxx"
# (file, entry, its Python twin file:kernel)
CXX_KERNELS = [(CXX / "bugs" / f"{g}.cpp", "fixed", f"{BUGS / g}.py:fixed") for g in GALLERY] + [
    (CXX / "pingpong_row_scale.cpp", "pingpong_row_scale",
     f"{EX}/pingpong_row_scale.py:pingpong_row_scale"),
    (CXX / "softmax.cpp", "softmax_16x64", f"{EX}/softmax.py:softmax_16x64"),
    (CXX / "layernorm.cpp", "layernorm_16x64", f"{EX}/layernorm.py:layernorm_16x64"),
    (CXX / "rmsnorm.cpp", "rmsnorm_f32", f"{EX}/rmsnorm.py:rmsnorm_f32"),
    (CXX / "embedding_lookup.cpp", "embedding_lookup",
     f"{EX}/embedding_lookup.py:embedding_lookup"),
    (CXX / "multicore_scaled_lookup.cpp", "multicore_scaled_lookup",
     f"{CXX}/py/multicore_scaled_lookup.py:multicore_scaled_lookup"),
    (CXX / "bugs" / "unconsumed_flag.cpp", "fixed", f"{CXX}/py/bugs/unconsumed_flag.py:fixed"),
]  # fmt: skip


def cases(lang: str):
    if lang == "Python":
        for path, kernel in PY_KERNELS:
            yield path, kernel, python_runner(kernel)
    else:
        for path, entry, twin in CXX_KERNELS:
            yield path, entry, cxx_runner(entry, twin)


def _rate(vs) -> str:
    hits = sum(v.outcome == "hit" for v in vs)
    judged = hits + sum(v.outcome in MISSES for v in vs)
    return f"{hits}/{judged}" if judged else "-"


def _fixed(vs) -> str:
    tried = [v for v in vs if v.fixed is not None]
    return f"{sum(v.fixed for v in tried)}/{len(tried)}" if tried else "-"


def table(lang: str, verdicts: list, devices: list[str]) -> None:
    kinds = list(dict.fromkeys(v.mutant.kind for v in verdicts))
    head = "".join(f"{d:>11s}" for d in devices)
    print(f"\n{lang} kernels: first finding names the planted line (hit/judged), patched clean")
    print(f"  {'class':18s}{head}{'all':>11s}{'patched':>11s}{'excluded':>10s}")
    for kind in kinds + ["all"]:
        vs = [v for v in verdicts if kind in ("all", v.mutant.kind)]
        cells = "".join(f"{_rate([v for v in vs if v.device == d]):>11s}" for d in devices)
        excluded = sum(v.outcome in EXCLUDED for v in vs)
        print(f"  {kind:18s}{cells}{_rate(vs):>11s}{_fixed(vs):>11s}{excluded:>10d}")
    hits = sum(v.outcome == "hit" for v in verdicts)
    judged = hits + sum(v.outcome in MISSES for v in verdicts)
    tried = [v for v in verdicts if v.fixed is not None]
    print(f"  names the planted line: {hits}/{judged} = {hits / max(judged, 1):.1%}; patched file "
          f"clean and exact: {sum(v.fixed for v in tried)}/{len(tried)} = "
          f"{sum(v.fixed for v in tried) / max(len(tried), 1):.1%}")  # fmt: skip
    for why in EXCLUDED:
        n = sum(v.outcome == why for v in verdicts)
        if n:
            print(f"  not bugs ({why}): {n}")
    for name in dict.fromkeys(v.file for v in verdicts):
        vs = [v for v in verdicts if v.file == name]
        print(f"    {name:32s} names the line {_rate(vs):>9s}, patched clean {_fixed(vs):>9s}")


def report(path: Path, devices: list[str]) -> None:
    """The tables of the verdicts a ``--json`` run wrote (whole or cut short)."""
    by_lang: dict[str, list] = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        mutant = SimpleNamespace(kind=r["kind"], line=r["line"])
        v = SimpleNamespace(mutant=mutant, device=r["device"], outcome=r["outcome"],
                            fixed=r["fixed"], file=r["file"])  # fmt: skip
        by_lang.setdefault(r["lang"], []).append(v)
    for lang, verdicts in by_lang.items():
        table(lang, verdicts, devices)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="cpu,a2,950pr")
    ap.add_argument("--cxx", action="store_true", help="C++ kernels too (builds each mutant)")
    ap.add_argument("--cxx-only", action="store_true", help="the C++ kernels only")
    ap.add_argument("--verbose", action="store_true", help="print every miss and failed fix")
    ap.add_argument("--only", help="comma-separated file names (e.g. reused_event_id.cpp)")
    ap.add_argument("--json", help="write every verdict here, one JSON line each, as it comes")
    ap.add_argument("--report", help="only print the tables of a --json file (a partial run too)")
    args = ap.parse_args()
    devices = args.devices.split(",")
    if args.report:
        report(Path(args.report), devices)
        return
    langs = ["C++"] if args.cxx_only else ["Python"] + (["C++"] if args.cxx else [])
    only = set(args.only.split(",")) if args.only else None
    rows = []
    out = open(args.json, "w") if args.json else None  # noqa: SIM115 (written as it goes)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for lang in langs:
            verdicts = []
            for n, (path, kernel, runner) in enumerate(cases(lang)):
                if only and path.name not in only:
                    continue
                lines, correct = original(path, runner)
                settled = {d: settled_barriers(path, runner, d) for d in devices}
                for k, m in enumerate(mutants(path.read_text(), kernel, lang == "C++", lines)):
                    where = Path(tmp) / f"{lang[0]}{n}_{k}" / path.name
                    where.parent.mkdir()
                    for device in devices:
                        v = judge(m, where, device, runner, correct, settled[device])
                        v.file = path.name
                        verdicts.append(v)
                        rows.append({"lang": lang, "file": path.name, "line": m.line,
                                     "kind": m.kind, "device": device, "outcome": v.outcome,
                                     "fixed": v.fixed, "first": v.first})  # fmt: skip
                        if out is not None:
                            out.write(json.dumps(rows[-1]) + "\n")
                            out.flush()
                        if args.verbose and (v.outcome in MISSES or v.fixed is False):
                            print(f"{v.outcome} fixed={v.fixed} {path.name}:{m.line} {m.kind} "
                                  f"on {device}: {v.first[:300]}")  # fmt: skip
            table(lang, verdicts, devices)
    if out is not None:
        out.close()
    print(f"({len(rows)} runs in {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
