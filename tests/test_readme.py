"""The README's snippets run, and the outputs it shows are what ptosim prints today.

A fenced block preceded by ``<!-- readme-test: NAME -->`` is a tested block. Python blocks are
executed in order in one namespace per test; text blocks are compared with what the matching
snippet prints. After a deliberate change of output, regenerate the text blocks with
``PTOSIM_UPDATE_README=1 pytest tests/test_readme.py`` and review the diff of README.md.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ptosim as pto
from ptosim.bench import row_vs_elem

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(
    r"<!-- readme-test: (?P<name>[\w-]+) -->\n```(?P<lang>\w*)\n(?P<body>.*?)```", re.S
)
_UPDATE = os.environ.get("PTOSIM_UPDATE_README") == "1"


def _blocks() -> dict[str, str]:
    return {m["name"]: m["body"] for m in _BLOCK.finditer(README.read_text())}


def _check_output(name: str, printed: str) -> None:
    """Compare (or, when updating, rewrite) the README block NAME with what was printed."""
    blocks = _blocks()
    assert name in blocks, f"README.md has no block marked readme-test: {name}"
    printed = printed.rstrip("\n") + "\n"
    if _UPDATE and blocks[name] != printed:
        text = README.read_text()
        marker = f"<!-- readme-test: {name} -->\n"
        start = text.index(marker)
        fence_start = text.index("```", start)
        body_start = text.index("\n", fence_start) + 1
        body_end = text.index("```", body_start)
        README.write_text(text[:body_start] + printed + text[body_end:])
        return
    assert blocks[name] == printed, f"README block {name!r} is out of date:\n{printed}"


def _exec(name: str, ns: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_blocks()[name], f"README.md:{name}", "exec"), ns)  # noqa: S102
    return out.getvalue()


def test_first_kernel_runs_and_its_summary_is_the_one_shown():
    ns: dict = {}
    np.random.seed(0)
    printed = _exec("first-kernel", ns)
    run, out, table, index = ns["run"], ns["out"], ns["table"], ns["index"]
    assert run.findings == []
    np.testing.assert_array_equal(out.numpy(), table.numpy()[index.numpy()])
    _check_output("first-kernel-summary", printed)


def test_timed_outputs_snippet_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    _exec("first-kernel", ns)
    _exec("timed-outputs", ns)
    assert (tmp_path / "lookup.json").stat().st_size > 0
    assert (tmp_path / "lookup.csv").read_text().startswith("core,pipe,")


def test_constraint_error_example_is_what_ptosim_prints():
    ns: dict = {}
    with pytest.raises(pto.ConstraintError) as exc:
        _exec("constraint-error", ns)
    _check_output("constraint-error-message", str(exc.value))


def test_race_example_is_what_ptosim_check_prints(tmp_path, monkeypatch, capsys):
    from ptosim.cli import main

    kernel = tmp_path / "copy.py"
    kernel.write_text(_blocks()["race-kernel"])
    monkeypatch.chdir(tmp_path)
    assert main(["check", "copy.py", "--device", "a2"]) == 1
    printed = capsys.readouterr().out
    _check_output("race-check-output", printed)


def test_row_vs_elem_claims_hold():
    """The README says: on a2, a 32-byte row makes Elem MSCATTER at least as fast as Row, while
    long rows make Row many times faster; on the 950 Row wins at every width measured."""
    rows = row_vs_elem(["a2", "950pr"], [(64, 8), (64, 256)], "float32", seed=0)
    cyc = {(r["device"], r["op"], r["shape"], r["mode"]): r["cycles"] for r in rows}
    assert cyc[("a2", "MSCATTER", "64x8", "Elem")] <= cyc[("a2", "MSCATTER", "64x8", "Row")]
    assert cyc[("a2", "MGATHER", "64x256", "Elem")] > 10 * cyc[("a2", "MGATHER", "64x256", "Row")]
    for op in ("MGATHER", "MSCATTER"):
        for shape in ("64x8", "64x256"):
            assert cyc[("950pr", op, shape, "Row")] < cyc[("950pr", op, shape, "Elem")]


def test_readme_blocks_are_all_tested():
    names = set(_blocks())
    expected = {
        "first-kernel",
        "first-kernel-summary",
        "timed-outputs",
        "constraint-error",
        "constraint-error-message",
        "race-kernel",
        "race-check-output",
    }
    assert names == expected, textwrap.shorten(str(names ^ expected), 200)
