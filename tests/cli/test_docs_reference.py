"""The generated reference (docs/reference/*.md) is what ``python -m ptosim.docgen`` writes
today, and the docs hold no issue numbers and no broken relative links.

After a change of a registry, a spec, a config or a docstring, regenerate the pages with
``python -m ptosim.docgen`` and commit them.
"""

from __future__ import annotations

import re

import pytest

from ptosim import docgen
from ptosim.isa import registry
from tests.helpers.paths import ROOT

REFERENCE = ROOT / "docs" / "reference"
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])


def test_the_committed_reference_is_what_docgen_writes():
    assert docgen.stale(REFERENCE) == [], "regenerate: python -m ptosim.docgen"


def test_stale_names_a_changed_a_missing_and_an_extra_page(tmp_path):
    docgen.write(tmp_path)
    assert docgen.stale(tmp_path) == []
    (tmp_path / "codes.md").write_text("edited by hand\n")
    (tmp_path / "api.md").unlink()
    (tmp_path / "old-family.md").write_text("a family that is gone\n")
    assert docgen.stale(tmp_path) == ["api.md", "codes.md", "old-family.md"]
    assert docgen.main(["--out", str(tmp_path), "--check"]) == 1
    docgen.write(tmp_path)
    assert docgen.stale(tmp_path) == [] and not (tmp_path / "old-family.md").exists()


def test_every_instruction_has_a_section_on_its_family_page():
    pages = docgen.pages()
    for s in registry.specs():
        page = pages[f"{docgen.family_slug(s.family)}.md"]
        assert f"\n## {s.name}\n" in page, s.name
        assert f"`{s.signature}`" in page, s.name


def test_a_rule_raised_in_a_module_is_listed_with_its_code():
    rules = docgen.module_rules("ptosim.isa.gather")
    # MGATHER's index layout rule (README constraint-error example) and an UnsupportedError
    assert [c.code for c in rules["index-layout"][0]] == ["PTO101"]
    assert [c.code for c in rules["gather-exec"][0]] == ["PTO102"]
    # require_dtype's default rule id counts; the base class raises the refusal of a dtype
    assert [c.code for c in rules["dtype"][0]] == ["PTO101"]
    assert [c.code for c in docgen.module_rules("ptosim.isa.base")["dtype"][0]] == ["PTO102"]


def test_the_docstring_sections_become_lists():
    text = "Do it.\n\nArgs:\n    a: the first\n        and more.\n    b: the second\n\nAfter."
    assert docgen._md(text) == (
        "Do it.\n\n**Args:**\n\n- a: the first\n  and more.\n- b: the second\n\nAfter."
    )


_ISSUE = re.compile(r"(?i)\bissue #?\d+")
_HASH = re.compile(r"(?<![\w&])#\d+\b")
_LABEL = re.compile(r"\b[A-Z][A-Z0-9_]*(<[^>]*>)? $")  # "MGATHER #5", "SET_FLAG #2"


def issue_refs(text: str) -> list[str]:
    """ "issue 16", "issue #16" and a bare "#16", but not an instruction label ("TLOAD #0")."""
    hits = _ISSUE.findall(text)
    for m in _HASH.finditer(text):
        if not _LABEL.search(text[max(0, m.start() - 40) : m.start()]):
            hits.append(m.group(0))
    return hits


def test_the_issue_pattern():
    for text in ("see issue 16", "(Issue #9, item 2)", "fixed in #12", "#3"):
        assert issue_refs(text), text
    for text in ("MGATHER #5 waited", "its first load issues 23 cycles", "&#39;", "[a](#x-1)"):
        assert not issue_refs(text), text


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_issue_numbers_in_the_docs(path):
    hits = issue_refs(path.read_text())
    assert not hits, f"{path.name}: {hits[:5]}"


_LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    missing = []
    for target, _anchor in _LINK.findall(path.read_text()):
        if "://" in target or target.startswith("mailto:"):
            continue
        if not (path.parent / target).exists():
            missing.append(target)
    assert not missing, f"{path.relative_to(ROOT)} links to missing files: {missing}"
