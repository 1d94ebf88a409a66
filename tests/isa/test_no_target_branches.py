"""ptosim/isa knows no target by name: it reads the target's behaviour spec (``arch.spec``).

The source of every module of ptosim/isa is parsed with ``ast`` and these are errors:
- a string constant naming a target family (``"cpu"``, ``"a2a3"``, ``"a5"``, ...) outside a
  docstring: a comparison with it, a dict keyed by it, a lookup or a call passing it;
- ``<x>.target`` (the family name of an Arch / ExecContext) anywhere but in a message: an
  f-string, a ``target=`` keyword, an argument (itself, not a condition on it) of ``fail`` /
  ``unsupported`` / ``require*``, or the ``target`` property that exposes it;
- a method chosen by the target's name (``getattr(self, f"_x_{arch.target}")``);
- an import of ``targets`` / ``ptosim.targets`` (the layer above).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ptosim.targets import specs

ISA = Path(__file__).resolve().parents[2] / "ptosim" / "isa"
TARGET_NAMES = frozenset({"cpu", "a2a3", "a5"} | {s.name for s in specs()})
MESSAGE_CALLS = frozenset({"fail", "unsupported", "require", "require_dtype"})


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of the module, classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _allowed_target_reads(tree: ast.AST) -> set[int]:
    """ids of the ``.target`` attribute nodes that only feed a message (module docstring)."""
    ok = set()
    for node in ast.walk(tree):
        keyword = isinstance(node, ast.keyword) and node.arg == "target"
        if keyword or isinstance(node, ast.FormattedValue):
            ok.update(id(n) for n in ast.walk(node.value))
        elif isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if name in MESSAGE_CALLS:  # the name itself as an argument (not a condition on it)
                ok.update(id(arg) for arg in node.args if isinstance(arg, ast.Attribute))
        elif isinstance(node, ast.FunctionDef) and node.name == "target":
            # the property that exposes the name (ExecContext.target)
            ok.update(id(n) for n in ast.walk(node))
    return ok


def target_knowledge(source: str, filename: str = "<src>") -> list[str]:
    """Every place of ``source`` that branches on, looks up or imports a target (one line
    each: ``file:line: what``)."""
    tree = ast.parse(source, filename)
    docs = _docstrings(tree)
    allowed = _allowed_target_reads(tree)
    out = []
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Constant) and node.value in TARGET_NAMES and id(node) not in docs:
            out.append(f"{where}: the target name {node.value!r}")
        elif isinstance(node, ast.Attribute) and node.attr == "target" and id(node) not in allowed:
            out.append(f"{where}: reads {ast.unparse(node)} outside a message")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod == "targets" or mod.startswith(("targets.", "ptosim.targets")):
                out.append(f"{where}: imports {mod}")
            if node.level > 0 and (mod == "targets" or mod.startswith("targets.")):
                out.append(f"{where}: imports {'.' * node.level}{mod}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(("targets", "ptosim.targets")):
                    out.append(f"{where}: imports {alias.name}")
    return out


def _modules() -> list[Path]:
    return sorted(ISA.rglob("*.py"))


def test_the_isa_sources_are_found():
    names = {p.relative_to(ISA).as_posix() for p in _modules()}
    assert {"base.py", "data.py", "spec.py", "vector/binary.py", "vector/reduce.py"} <= names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(ISA).as_posix())
def test_no_target_names_in_isa(path):
    found = target_knowledge(path.read_text(), str(path.relative_to(ISA.parent)))
    assert not found, "ptosim/isa must ask arch.spec, not the target:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "snippet",
    [
        'if arch.target == "a2a3":\n    pass',
        'x = ctx.target != "cpu"',
        'ok = arch.target in ("a2a3", "a5")',
        "ok = arch.target in NPU",
        'TABLE = {"cpu": 1, "a5": 2}',
        "allowed = TABLE[arch.target]",
        'getattr(self, f"_validate_{arch.target}")()',  # (the f-string reads it: allowed)
        'maxmin("cpu", op, a, b)',
        "rule = pick(ctx.target)",
        'self.require(arch.target in NPU, "x", "rule", 1, 2)',
        "from ..targets import spec_of",
        "import ptosim.targets",
    ],
)
def test_the_check_catches_target_branches(snippet):
    """The checker is not vacuous: each of these is target knowledge (the f-string getattr is
    caught by the getattr rule below, not by this one)."""
    found = target_knowledge(snippet)
    if "getattr" in snippet:
        assert not found  # f-strings are messages to this check ...
        assert _dispatch_by_name(snippet)  # ... the name dispatch is caught separately
    else:
        assert found, snippet


@pytest.mark.parametrize(
    "snippet",
    [
        'raise ConstraintError("X", "op", "r", 1, 2, target=arch.target)',
        'self.unsupported("instruction", "target", "defined", arch.target)',
        'detail = f"on target {arch.target}"',
        '"""Per target: cpu and a2a3 differ."""',
    ],
)
def test_messages_may_name_the_target(snippet):
    assert not target_knowledge(snippet)


def _dispatch_by_name(source: str) -> list[str]:
    """``getattr(x, f"..{<...>.target}..")``: a method chosen by the target's name."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr":
            for arg in node.args[1:]:
                names = [n for n in ast.walk(arg) if isinstance(n, ast.Attribute)]
                if isinstance(arg, ast.JoinedStr) and any(n.attr == "target" for n in names):
                    out.append(ast.unparse(node))
    return out


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(ISA).as_posix())
def test_no_method_chosen_by_target_name(path):
    assert not _dispatch_by_name(path.read_text())
