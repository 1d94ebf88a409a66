"""The examples of docs/guide-cube.md run and check their own results."""

from __future__ import annotations

from tests.helpers.paths import ROOT

GUIDE = ROOT / "docs" / "guide-cube.md"


def test_the_cube_guide_examples_run():
    blocks = GUIDE.read_text().split("```python\n")[1:]
    assert blocks, "docs/guide-cube.md has no python example"
    for n, block in enumerate(blocks):
        code = compile(block.split("```")[0], f"docs/guide-cube.md (example {n + 1})", "exec")
        exec(code, {"__name__": "guide"})  # noqa: S102
