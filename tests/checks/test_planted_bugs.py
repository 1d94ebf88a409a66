"""Planted bugs: one-line sync mutants of correct kernels (tests/helpers/planted.py). The first
finding must name the planted line (or the next one) in at least 95% of the mutants, on cpu, a2
and 950pr, for Python and C++ kernels; and the file patched with the causes' fixes (what
``ptosim check --fix`` writes) must run clean and exact. A mutant with no finding counts as a
miss unless it is shown not to be a bug by one of the stated rules tested here.

``python benchmarks/planted_bugs.py`` runs the same measurement over more kernels and prints
the table per bug class and device.
"""

import functools
import os
import tempfile
from pathlib import Path

import pytest

from tests.helpers.planted import (
    EXCLUDED,
    KINDS,
    MISSES,
    Mutant,
    cxx_runner,
    judge,
    mutants,
    original,
    placed,
    python_runner,
    settled_barriers,
)

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
BUGS = EX / "bugs"
GALLERY = ("missing_mte2_to_v", "missing_v_to_mte3", "missing_v_barrier", "reused_event_id",
           "wait_without_set", "wrong_pipe_pair")  # fmt: skip
DEVICES = ("cpu", "a2", "950pr")


# C++ mutants go to one file per content (helpers.planted.placed) in a folder every test and
# xdist worker shares, so that each distinct text is built once per target (a patched mutant is
# most often the correct kernel again); Python mutants to the test's own folder
SHARED = Path(tempfile.gettempdir()) / f"ptosim-planted-{os.getuid()}"


def _verdicts(tmp_path, path: Path, kernel: str, runner, cxx: bool, devices=DEVICES, pick=None):
    place = functools.partial(placed, SHARED, path.name) if cxx else None
    if place is not None:
        path = place(path.read_text())
    lines, correct = original(path, runner)
    settled = {d: settled_barriers(path, runner, d) for d in devices}
    out = []
    for k, m in enumerate(mutants(path.read_text(), kernel, cxx, lines)):
        if pick is not None and not pick(m):
            continue
        where = tmp_path / f"m{k}" / path.name
        where.parent.mkdir(parents=True)
        out += [judge(m, where, d, runner, correct, settled[d], place) for d in devices]
    return out


def _assert_rates(verdicts):
    judged = [v for v in verdicts if v.outcome == "hit" or v.outcome in MISSES]
    hits = [v for v in judged if v.outcome == "hit"]
    misses = [f"{v.outcome}: {v.mutant.kind} at line {v.mutant.line} on {v.device}: "
              f"{v.first[:200]}" for v in judged if v.outcome != "hit"]  # fmt: skip
    assert judged and len(hits) >= 0.95 * len(judged), misses
    assert not [v for v in verdicts if v.outcome == "silent-wrong"]
    patched = [v for v in verdicts if v.fixed is not None]
    failed = [f"{v.mutant.kind} at line {v.mutant.line} on {v.device}"
              for v in patched if not v.fixed]  # fmt: skip
    assert patched and not failed, failed


# one test per kernel and device, so that the xdist workers share them (the whole table as one
# test was the suite's longest tail); each must reach the rate on its own
@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("stem", GALLERY)
def test_planted_bugs_in_python_kernels_are_named_and_fixed(tmp_path, stem, device):
    path = BUGS / f"{stem}.py"
    _assert_rates(_verdicts(tmp_path, path, "fixed", python_runner("fixed"), False, (device,)))


@pytest.mark.slow
def test_planted_bugs_in_a_double_buffered_loop_are_named_and_fixed(tmp_path):
    """Event ids that alternate with the buffer (``ev = EVENTS[t % 2]``): the fix copies the
    loop's expression, so the patched loop keeps both events."""
    path = EX / "pingpong_row_scale.py"
    verdicts = _verdicts(tmp_path, path, "pingpong_row_scale", python_runner(
        "pingpong_row_scale"), False)  # fmt: skip
    _assert_rates(verdicts)


def test_a_wait_removed_in_a_loop_is_restored_with_the_loop_event(tmp_path):
    """The quick case of the loop test above: the removed "input landed" wait comes back as
    ``wait_flag(..., ev)``, not as a constant id (which would leave the odd buffers unsynced)."""
    path = EX / "pingpong_row_scale.py"
    text = path.read_text().splitlines()
    line = next(n for n, t in enumerate(text, 1) if "# input buffer b has landed" in t)
    verdicts = _verdicts(tmp_path, path, "pingpong_row_scale", python_runner(
        "pingpong_row_scale"), False, ("cpu",),
        lambda m: m.line == line and m.kind == "removed wait")  # fmt: skip
    (v,) = verdicts
    assert v.outcome == "hit" and v.fixed, v.first


def test_every_bug_class_is_planted():
    kinds = set()
    for stem in GALLERY:
        kinds |= {m.kind for m in mutants((BUGS / f"{stem}.py").read_text(), "fixed", False)}
    assert kinds == set(KINDS)


# -- the rules that take a mutant out of the denominator ----------------------------------------
def test_a_mutant_recording_the_same_program_is_equivalent(tmp_path):
    """``EVENTS[b]`` for ``ev`` in the double-buffered loop (``b, ev = t % 2, EVENTS[t % 2]``)
    records the very same flags: not a bug. The constant-id reuse the generator plants is."""
    path = EX / "pingpong_row_scale.py"
    runner = python_runner("pingpong_row_scale")
    lines, correct = original(path, runner)
    text = path.read_text()
    n = next(k for k, t in enumerate(text.splitlines(), 1) if "# input buffer b may be" in t)
    rows = text.splitlines(keepends=True)
    same = rows[n - 1].replace("pto.set_flag(V, MTE2, ev)", "pto.set_flag(V, MTE2, EVENTS[b])")
    assert same != rows[n - 1]
    m = Mutant("reused event", n, "".join(rows[: n - 1] + [same] + rows[n:]))
    assert judge(m, tmp_path / path.name, "cpu", runner, correct).outcome == "equivalent"
    (planted,) = [m for m in mutants(text, "pingpong_row_scale", False, lines)
                  if m.kind == "reused event" and m.line == n]  # fmt: skip
    assert "EVENT_ID" in planted.text.splitlines()[n - 1]
    assert judge(planted, tmp_path / path.name, "cpu", runner, correct).outcome == "hit"


def test_a_barrier_the_a2_lowering_already_provides_is_settled_on_a2_and_cpu():
    """softmax: the A2/A3 row reductions (TROWMAX, TROWSUM) end with pipe_barrier(PIPE_V) in
    their own lowering, so the user's barrier after them is redundant on a2; the barrier after
    TROWEXPANDSUB (its lowering ends with the vector subtraction) and after TEXP is not. cpu
    runs no lowering; its structural view takes the same A2/A3 fact, so it settles the same."""
    path = EX / "softmax.py"
    runner = python_runner("softmax_16x64")
    text = path.read_text().splitlines()

    def barrier_after(op: str) -> int:
        n = next(k for k, t in enumerate(text, 1) if f"pto.{op}(" in t)
        assert "pipe_barrier(V)" in text[n]
        return n + 1

    settled = settled_barriers(path, runner, "a2")
    assert {barrier_after("TROWMAX"), barrier_after("TROWSUM")} <= settled
    assert not {barrier_after("TROWEXPANDSUB"), barrier_after("TEXP")} & settled
    assert settled_barriers(path, runner, "cpu") == settled


def test_exclusions_are_only_the_stated_rules():
    assert set(EXCLUDED) == {"equivalent", "no-rule", "lowered"}
    assert not set(EXCLUDED) & set(MISSES)


# Each C++ kernel on one device, the three devices covered once: each C++ gallery kernel reports
# what its Python twin reports on every device (tests/cxx/test_examples.py) and the Python
# kernels above are planted on every device; what the C++ runs add is the C++ side of naming
# lines and patching files. Every mutant is a separate build (about one CPU
# second with g++), so the full matrix - 9 runs, ~270 CPU seconds, a third of the suite - is
# `python benchmarks/planted_bugs.py --cxx`.
@pytest.mark.slow
@pytest.mark.cxx
@pytest.mark.parametrize(
    ("stem", "device"),
    [("missing_mte2_to_v", "cpu"), ("missing_v_barrier", "a2"), ("reused_event_id", "950pr")],
)
def test_planted_bugs_in_cxx_kernels_are_named_and_fixed(tmp_path, stem, device):
    pytest.importorskip("ptosim.cxx")
    path = ROOT / "examples" / "cxx" / "bugs" / f"{stem}.cpp"
    runner = cxx_runner("fixed", f"{BUGS / stem}.py:fixed")
    _assert_rates(_verdicts(tmp_path, path, "fixed", runner, True, (device,)))
