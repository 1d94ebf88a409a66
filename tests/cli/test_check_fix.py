"""``ptosim check FILE --fix / --apply / --json``: causes first, fixes as a patch of the file."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUGS = ROOT / "examples" / "bugs"


def _ptosim(*argv, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "ptosim", *argv], capture_output=True, text=True, cwd=cwd,
        timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize("stem", ("missing_mte2_to_v", "reused_event_id", "wait_without_set"))
def test_fix_prints_a_diff_and_apply_makes_the_kernel_clean(tmp_path, stem):
    path = tmp_path / f"{stem}.py"
    shutil.copy(BUGS / f"{stem}.py", path)
    before = path.read_text()
    shown = _ptosim("check", f"{path}:buggy", "--device", "a2", "--fix")
    assert shown.returncode == 1, shown.stderr
    assert f"--- a/{path}" in shown.stdout and f"+++ b/{path}" in shown.stdout
    assert path.read_text() == before  # --fix only shows
    applied = _ptosim("check", f"{path}:buggy", "--device", "cpu,a2,950pr", "--apply")
    assert applied.returncode == 1 and f"fixes applied to {path}" in applied.stdout
    again = _ptosim("check", f"{path}:buggy", "--device", "cpu,a2,950pr")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.count("buggy on") == 3 and "no findings" in again.stdout
    # and exact: the file's own check on the repaired buggy kernel
    run = _ptosim("run", f"{path}:buggy", "--device", "a2")
    assert run.returncode == 0 and "check: passed" in run.stdout, run.stdout + run.stderr


def test_json_keeps_the_tree_of_causes_and_consequences(tmp_path):
    out = tmp_path / "f.json"
    res = _ptosim("check", f"{BUGS / 'reused_event_id.py'}:buggy", "--device", "a2",
                  "--json", str(out))  # fmt: skip
    assert res.returncode == 1
    assert "1 cause(s), 2 finding(s) in all" in res.stdout
    assert "1 consequence(s)" in res.stdout
    (entry,) = json.loads(out.read_text())
    (cause,) = entry["findings"]
    assert cause["code"] == "F208" and cause["patch"]
    assert [c["code"] for c in cause["consequences"]] == ["F203"]


@pytest.mark.slow
@pytest.mark.cxx
def test_fix_patches_a_cxx_kernel_file(tmp_path):
    pytest.importorskip("ptosim.cxx")
    path = tmp_path / "missing_mte2_to_v.cpp"
    shutil.copy(ROOT / "examples" / "cxx" / "bugs" / "missing_mte2_to_v.cpp", path)
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32))
    args = ["--entry", "buggy", "--arg", f"x={x}", "--arg", "out=16x64:float32"]
    res = _ptosim("check", str(path), "--device", "cpu", *args, "--apply")
    assert res.returncode == 1, res.stderr
    assert "+    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in res.stdout
    assert "+    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in res.stdout
    again = _ptosim("check", str(path), "--device", "cpu,a2", *args)
    assert again.returncode == 0, again.stdout + again.stderr


def test_sweep_output_that_is_not_a_sweep_table_is_one_coded_line(tmp_path):
    table = tmp_path / "x.csv"
    table.write_text("a,b\n1,2\n")
    res = _ptosim("sweep", str(ROOT / "examples" / "sweeps" / "row_gather.toml"), "-o", str(table))
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "[PTO100]" in res.stderr
    assert "not a sweep table" in res.stderr and "point_id" in res.stderr
    assert table.read_text() == "a,b\n1,2\n"  # left as it was
