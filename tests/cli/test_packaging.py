"""Packaging: the repo's targets/ folder installs as ptosim.targets, and nothing else leaks."""

from __future__ import annotations

import tomllib
from pathlib import Path

import ptosim
import ptosim.targets
from tests.helpers.paths import ROOT


def _declared() -> tuple[set[str], dict[str, str]]:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(cfg["packages"]), cfg["package-dir"]


def test_every_package_folder_is_declared():
    """An explicit package list must not silently drop a new sub-package from the install."""
    packages, package_dir = _declared()
    found = set()
    for top, folder in package_dir.items():
        base = ROOT / folder
        for module in base.rglob("*.py"):  # a folder of modules is a package, __init__ or not
            rel = module.parent.relative_to(base)
            if "__pycache__" not in rel.parts and not (
                top == "ptosim" and rel.parts[:1] == ("targets",)
            ):
                found.add(".".join([top, *rel.parts]))
    assert found == packages


def test_targets_install_as_a_subpackage_of_ptosim():
    packages, package_dir = _declared()
    assert package_dir["ptosim.targets"] == "targets"
    assert not any(p == "targets" or p.startswith("targets.") for p in packages)
    assert Path(ptosim.targets.__file__).resolve().parent == (ROOT / "targets").resolve()


def test_nothing_imports_the_repo_folder_as_a_top_level_package():
    """`targets` exists only as ptosim.targets once installed; `import targets` works only
    from the repo root with `python -m`, so it must appear nowhere."""
    import re

    bad = re.compile(r"^\s*(import targets\b|from targets\b)", re.M)
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("ptosim", "targets", "tests", "benchmarks", "examples")
        for p in (ROOT / folder).rglob("*.py")
        if bad.search(p.read_text())
    ]
    assert offenders == []


def test_no_test_module_imports_another():
    """Test modules share code through tests/helpers (and conftest fixtures) only: a test module
    that imports another runs that module's tests' setup twice and ties their layouts together."""
    import ast

    offenders = []
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                last = name.split(".")[-1]
                if (
                    last.startswith("test_")
                    or last == "conftest"
                    or (name.startswith("tests.") and not name.startswith("tests.helpers"))
                ):
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []
