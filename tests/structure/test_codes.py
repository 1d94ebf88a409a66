"""One table per concept: every finding code and every error code is defined once, in its
registry (ptosim/findings.py, ptosim/errors.py), and every finding and error is made from its
entry, never from a bare code string. (The docs tables are generated from the registries:
tests/test_docs_tables.py.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ptosim import errors, findings

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "ptosim").rglob("*.py"), *(ROOT / "targets").rglob("*.py")])
CODE = re.compile(r"(F[12]\d\d|PTO\d{3})")


def test_finding_codes_are_one_registry():
    codes = findings.finding_codes()
    assert [c.code for c in codes] == sorted({c.code for c in codes})
    # the F1xx semantic codes and the F2xx synchronisation codes named in the docs
    assert {c.code for c in codes} >= {f"F10{n}" for n in range(1, 10)} | {
        f"F20{n}" for n in range(1, 8)
    }
    for c in codes:
        assert re.fullmatch(r"F[12]\d\d", c.code) and c.name and c.meaning and c.kinds
        assert not any("|" in text for text in (c.name, c.meaning, c.fix, *c.kinds)), c.code


def test_a_finding_code_cannot_be_defined_twice():
    with pytest.raises(ValueError, match="F203 is defined twice"):
        findings.FindingCode("F203", "race-again", "a second F203")
    assert findings.RACE.code == "F203"


def test_a_finding_is_made_from_its_entry_and_one_of_its_kinds():
    f = findings.RACE.make("race-waw", "two writes", (3, 5))
    assert (f.code, f.kind, f.instructions) == ("F203", "race-waw", (3, 5))
    with pytest.raises(ValueError, match="no kind 'race-rar'"):
        findings.RACE.make("race-rar", "two reads")


def test_error_codes_are_one_registry():
    classes = errors.error_codes()
    names = {c.__name__ for c in classes}
    assert {"PtoSimError", "ConstraintError", "RaceFailureError", "FindingsError"} <= names
    for cls in classes:
        assert re.fullmatch(r"PTO\d{3}", cls.code), cls
        # its own code and meaning (an inherited one would describe the base class)
        assert "code" in vars(cls) and "meaning" in vars(cls), cls.__name__
        assert "|" not in cls.meaning + cls.fix, cls.__name__
    assert len({c.code for c in classes}) == len(classes)


def _bare_codes(path: Path) -> list[str]:
    """String constants that are a code, and Finding(...) calls, outside the registries."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and CODE.search(node.value):
                out.append(f"{path.name}:{node.lineno} {node.value!r}")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding":
            out.append(f"{path.name}:{node.lineno} Finding(...)")
    return out


def test_no_bare_code_strings_outside_the_registries():
    registries = {ROOT / "ptosim" / "findings.py", ROOT / "ptosim" / "errors.py"}
    bad = [hit for path in SOURCES if path not in registries for hit in _bare_codes(path)]
    assert not bad, "use the registry entry (findings.RACE.code, RACE.make(...)): " + str(bad)


def test_the_bare_code_scan_sees_strings_and_calls(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        '"""F203 in a docstring is prose."""\n'
        'RACES = ("F203", "x")\n'
        'def f():\n    return Finding("F205", "k", "m")\n'
        'ERR = "[PTO402] raced"\n'
    )
    assert sorted(hit.split()[0] for hit in _bare_codes(path)) == [
        "m.py:2",
        "m.py:4",
        "m.py:4",
        "m.py:5",
    ]
