"""The snippets of the README and the guides run, and the outputs they show are what ptosim
prints today.

A fenced block preceded by ``<!-- readme-test: NAME -->`` is a tested block (names are unique
across the files of ``DOCS``). Python blocks are executed in order in one namespace per test;
text blocks are compared with what the matching snippet prints. After a deliberate change of
output, regenerate the text blocks with ``PTOSIM_UPDATE_README=1 pytest tests/cli/test_readme.py``
and review the diff.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import textwrap

import numpy as np
import pytest

import ptosim as pto
from ptosim.bench import crossovers, row_vs_elem
from tests.helpers.paths import ROOT

README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide-python-kernels.md"
DOCS = (README, GUIDE)
_BLOCK = re.compile(
    r"<!-- readme-test: (?P<name>[\w-]+) -->\n```(?P<lang>\w*)\n(?P<body>.*?)```", re.S
)
_UPDATE = os.environ.get("PTOSIM_UPDATE_README") == "1"


def _located() -> dict[str, tuple]:
    """Block name -> (file, body), over every file of DOCS."""
    out: dict[str, tuple] = {}
    for path in DOCS:
        for m in _BLOCK.finditer(path.read_text()):
            assert m["name"] not in out, f"block {m['name']} is defined twice"
            out[m["name"]] = (path, m["body"])
    return out


def _blocks() -> dict[str, str]:
    return {name: body for name, (_, body) in _located().items()}


def _check_output(name: str, printed: str) -> None:
    """Compare (or, when updating, rewrite) the README block NAME with what was printed."""
    blocks = _blocks()
    assert name in blocks, f"no doc has a block marked readme-test: {name}"
    printed = printed.rstrip("\n") + "\n"
    if _UPDATE and blocks[name] != printed:
        path = _located()[name][0]
        text = path.read_text()
        marker = f"<!-- readme-test: {name} -->\n"
        start = text.index(marker)
        fence_start = text.index("```", start)
        body_start = text.index("\n", fence_start) + 1
        body_end = text.index("```", body_start)
        path.write_text(text[:body_start] + printed + text[body_end:])
        return
    assert blocks[name] == printed, f"doc block {name!r} is out of date:\n{printed}"


def _exec(name: str, ns: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        path, body = _located()[name]
        exec(compile(body, f"{path.name}:{name}", "exec"), ns)  # noqa: S102
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


@pytest.mark.slow
def test_row_vs_elem_claims_hold():
    """The claims of the README and docs/guide-row-vs-elem.md, float32, 32 rows of 32 B to 1 KiB."""
    rows = row_vs_elem(["a2", "950pr", "950dt"], None, "float32", seed=0)
    sp = {(r["device"], r["op"], r["row_bytes"], r["mode"]): r["speedup"] for r in rows}
    cross = {k: v["text"] for k, v in crossovers(rows).items()}
    sizes = (32, 64, 128, 256, 512, 1024)
    # A2: the crossover is near 32-byte rows
    assert 1.05 < sp[("a2", "MGATHER", 32, "Elem-rows")] < 1.5
    assert cross[("a2", "MGATHER", "Elem-rows")] == "<= 32 B"
    assert sp[("a2", "MSCATTER", 32, "Elem-rows")] < 1 < sp[("a2", "MSCATTER", 64, "Elem-rows")]
    assert cross[("a2", "MSCATTER", "Elem-rows")] == "~36 B"
    assert cross[("a2", "MGATHER", "Elem-half")] == "~48 B"
    assert cross[("a2", "MSCATTER", "Elem-half")] == "~72 B"
    for op in ("MGATHER", "MSCATTER"):
        assert sp[("a2", op, 1024, "Elem-rows")] > 20
        # 950PR: whole-row Elem equals Row; half-row Elem wins from 256 B on, 1.25x at 1 KiB
        for size in sizes:
            assert abs(sp[("950pr", op, size, "Elem-rows")] - 1) < 0.03
            assert 1.3 <= round(sp[("950pr", op, size, "Elem")], 2) <= 14
        assert "a tie" in cross[("950pr", op, "Elem-rows")]
        assert "Elem wins" in cross[("950pr", op, "Elem-half")]
        assert all(sp[("950pr", op, s, "Elem-half")] < 1 / 1.05 for s in (256, 512, 1024))
        assert 1.2 < 1 / sp[("950pr", op, 1024, "Elem-half")] < 1.3  # about 1.25x
        # 950DT: Row pulls ahead of Elem-rows from about 270-byte rows; Elem-half ties
        assert cross[("950dt", op, "Elem-rows")] in ("~273 B", "~274 B")
        assert round(sp[("950dt", op, 1024, "Elem-rows")], 2) == 1.24
        assert "a tie" in cross[("950dt", op, "Elem-half")]
    assert 140 < sp[("a2", "MGATHER", 1024, "Elem")] < 160


def test_doc_blocks_are_all_tested():
    where = {name: path.name for name, (path, _) in _located().items()}
    expected = {
        "first-kernel": "README.md",
        "race-kernel": "README.md",
        "race-check-output": "README.md",
        "first-kernel-summary": GUIDE.name,
        "timed-outputs": GUIDE.name,
        "constraint-error": GUIDE.name,
        "constraint-error-message": GUIDE.name,
        "reading-values": GUIDE.name,
        "reading-values-output": GUIDE.name,
    }
    assert where == expected, textwrap.shorten(str(set(where.items()) ^ set(expected.items())), 300)


def test_reading_values_snippet_runs_and_prints_what_it_shows():
    ns: dict = {}
    _check_output("reading-values-output", _exec("reading-values", ns))
