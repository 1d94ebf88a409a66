"""Packaging: the repo's targets/ folder installs as ptosim.targets, and nothing else leaks."""

from __future__ import annotations

import tomllib
from pathlib import Path

import ptosim
import ptosim.targets

ROOT = Path(__file__).resolve().parents[1]


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


def test_tests_import_each_other_as_plain_modules():
    """Plain `pytest` (CI) puts tests/ on sys.path but not the repo root: `from tests...`
    only works under `python -m pytest`."""
    import re

    bad = re.compile(r"^\s*(from tests\b|import tests\b)", re.M)
    offenders = [p.name for p in (ROOT / "tests").glob("*.py") if bad.search(p.read_text())]
    assert offenders == []
