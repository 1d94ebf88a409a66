"""Planted bugs: one-line sync mutants of the bug gallery's correct kernels (tests/helpers/
planted.py). The first finding must name the planted line (or the next one) in at least 95% of
the mutants that show a finding, on cpu, a2 and 950pr, for Python and C++ kernels; and the file
patched with the causes' fixes (what ``ptosim check --fix`` writes) must run clean and exact.

``python benchmarks/planted_bugs.py`` runs the same measurement over more kernels (the
double-buffered loops too) and prints the table per bug class.
"""

from pathlib import Path

import pytest

from tests.helpers.planted import KINDS, cxx_runner, judge, mutants, python_runner

ROOT = Path(__file__).resolve().parents[2]
BUGS = ROOT / "examples" / "bugs"
GALLERY = ("missing_mte2_to_v", "missing_v_to_mte3", "missing_v_barrier", "reused_event_id",
           "wait_without_set", "wrong_pipe_pair")  # fmt: skip
DEVICES = ("cpu", "a2", "950pr")


def _verdicts(tmp_path, path: Path, kernel: str, runner, cxx: bool):
    out = []
    for k, m in enumerate(mutants(path.read_text(), kernel, cxx)):
        where = tmp_path / f"m{k}" / path.name
        where.parent.mkdir()
        out += [judge(m, where, device, runner) for device in DEVICES]
    return out


def _assert_rates(verdicts):
    judged = [v for v in verdicts if v.outcome in ("hit", "miss")]
    hits = [v for v in judged if v.outcome == "hit"]
    misses = [f"{v.mutant.kind} at line {v.mutant.line} on {v.device}: {v.first[:200]}"
              for v in judged if v.outcome == "miss"]  # fmt: skip
    assert judged and len(hits) >= 0.95 * len(judged), misses
    assert not [v for v in verdicts if v.outcome == "silent-wrong"]
    patched = [v for v in verdicts if v.fixed is not None]
    failed = [f"{v.mutant.kind} at line {v.mutant.line} on {v.device}"
              for v in patched if not v.fixed]  # fmt: skip
    assert patched and not failed, failed


@pytest.mark.slow
def test_planted_bugs_in_python_kernels_are_named_and_fixed(tmp_path):
    verdicts = []
    for stem in GALLERY:
        (tmp_path / stem).mkdir()
        path = BUGS / f"{stem}.py"
        verdicts += _verdicts(tmp_path / stem, path, "fixed", python_runner("fixed"), False)
    _assert_rates(verdicts)


def test_every_bug_class_is_planted():
    kinds = set()
    for stem in GALLERY:
        kinds |= {m.kind for m in mutants((BUGS / f"{stem}.py").read_text(), "fixed", False)}
    assert kinds == set(KINDS)


@pytest.mark.slow
@pytest.mark.cxx
def test_planted_bugs_in_cxx_kernels_are_named_and_fixed(tmp_path):
    pytest.importorskip("ptosim.cxx")
    verdicts = []
    for stem in ("missing_mte2_to_v", "reused_event_id", "missing_v_barrier"):
        (tmp_path / stem).mkdir()
        path = ROOT / "examples" / "cxx" / "bugs" / f"{stem}.cpp"
        runner = cxx_runner("fixed", f"{BUGS / stem}.py:fixed")
        verdicts += _verdicts(tmp_path / stem, path, "fixed", runner, True)
    _assert_rates(verdicts)
