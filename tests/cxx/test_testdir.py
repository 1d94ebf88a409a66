"""`ptosim test DIR` on a small vendor-style folder (tests/cxx/vadd_test)."""

from __future__ import annotations

import re
import shutil
import tempfile

from ptosim.cli import main
from ptosim.cxx.testdir import folder_devices, run_test_dir
from tests.helpers.paths import CXX_DIR

FOLDER = CXX_DIR / "vadd_test"


def test_every_case_passes_bit_exact_with_cycles(tmp_path):
    reports = run_test_dir(FOLDER, ["a2"], work=tmp_path / "w")
    assert [r.case for r in reports] == [
        "VaddTest.case_16x16",
        "VaddTest.case_32x64_4blocks",
        "VaddTest.case_plain_16x16",  # the kernel called without <<<>>>
    ]
    for r in reports:
        assert (r.verdict, r.output, r.error, r.findings) == ("pass", "bit-exact", None, [])
        assert len(r.cycles) == 1 and r.cycles[0] > 0
    # 4 blocks of 32x64 on 4 cores: more data, more cycles than 1 block of 16x16
    assert reports[1].cycles[0] > reports[0].cycles[0]


def test_a_failing_case_and_findings_at_cpp_lines(tmp_path, capsys):
    folder = tmp_path / "vadd_bad"
    shutil.copytree(FOLDER, folder)
    kernel = folder / "kernel.cpp"
    lines = kernel.read_text().splitlines(keepends=True)
    n = next(i for i, t in enumerate(lines) if "@vadd_wait" in t)
    lines[n] = "\n"  # drop the wait_flag: a handshake bug
    kernel.write_text("".join(lines))
    gen = folder / "gen_data.py"
    gen.write_text(gen.read_text().replace("(a + b).tofile", "(a + b + 1).tofile"))
    code = main(["test", str(folder), "--device", "a2", "--work", str(tmp_path / "w")])
    out = capsys.readouterr().out
    assert code == 1
    assert "0/3 cases pass" in out and "differs in" in out
    reports = run_test_dir(folder, ["a2"], work=tmp_path / "w2", case_filter="case_16x16")
    assert len(reports) == 1 and reports[0].verdict == "FAIL"
    assert any(re.search(r"kernel\.cpp:\d+", f) for f in reports[0].findings)


def test_device_all_follows_the_folders_target(tmp_path):
    assert folder_devices(tmp_path / "npu" / "a2a3" / "src" / "st" / "x") == ["a2", "a3"]
    assert folder_devices(tmp_path / "npu" / "a5" / "x") == ["950pr", "950dt"]
    assert folder_devices(tmp_path / "cpu" / "x") == ["cpu"]
    assert "cpu" in folder_devices(tmp_path / "x") and "a2" in folder_devices(tmp_path / "x")


def test_without_work_the_temporary_folder_is_removed(tmp_path, monkeypatch):
    # gen_data.py output can be gigabytes (the library's tload_gm2mat writes 3 GB per run)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    reports = run_test_dir(FOLDER, ["a2"], case_filter="case_16x16")
    assert [(r.case, r.verdict) for r in reports] == [("VaddTest.case_16x16", "pass")]
    assert list(scratch.iterdir()) == []
