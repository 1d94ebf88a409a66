"""`ptosim run KERNEL.cpp --entry NAME --arg ...` end to end."""

from __future__ import annotations

import numpy as np

from ptosim.cli import main
from tests.helpers.paths import CXX_DIR, ROOT

SRC = CXX_DIR / "families.cpp"


def test_run_binds_files_by_parameter_name_and_writes_outputs(tmp_path, capsys):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 2, 16, 16)).astype(np.float32)
    a.tofile(tmp_path / "a.bin")
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "out"
    code = main([
        "run", str(SRC), "--entry", "fam_binary", "--block-dim", "2", "--device", "a2",
        "--arg", f"a={tmp_path / 'a.bin'}", "--arg", f"b={tmp_path / 'b.npy'}",
        "--arg", "out=2x16x16:float32", "--out", str(out), "--trace", str(tmp_path / "t.json"),
        "--csv", str(tmp_path / "p.csv"),
    ])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0
    result = np.fromfile(out / "out.bin", dtype=np.float32).reshape(2, 16, 16)
    assert result.tobytes() == ((a + b) * np.float32(3)).tobytes()
    assert "kernel fam_binary, 2 block(s)" in text
    assert "families.cpp:" in text  # the summary's source lines
    assert (tmp_path / "t.json").stat().st_size > 0 and (tmp_path / "p.csv").stat().st_size > 0


def test_outputs_from_a_file_are_written_back_to_it(tmp_path, capsys):
    x = np.linspace(-2, 2, 256, dtype=np.float32).reshape(16, 16)
    x.tofile(tmp_path / "a.bin")
    np.zeros((16, 16), np.float32).tofile(tmp_path / "o.bin")
    code = main([
        "run", str(SRC), "--entry", "fam_unary", "--device", "cpu",
        "--arg", f"a={tmp_path / 'a.bin'}", "--arg", f"out={tmp_path / 'o.bin'}",
    ])  # fmt: skip
    assert code == 0
    got = np.fromfile(tmp_path / "o.bin", dtype=np.float32)
    assert np.allclose(got, np.exp(x).ravel(), rtol=1e-6)
    assert "out: written to" in capsys.readouterr().out


def test_scalar_argument_and_errors(tmp_path, capsys):
    code = main([
        "run", str(SRC), "--entry", "fam_index", "--device", "a2",
        "--arg", "start=7", "--arg", "out=1x16:int32", "--out", str(tmp_path),
    ])  # fmt: skip
    assert code == 0
    assert np.fromfile(tmp_path / "out.bin", np.int32).tolist() == list(range(7, 7 - 16, -1))
    assert main(["run", str(SRC), "--device", "a2"]) == 2
    assert "needs --entry NAME" in capsys.readouterr().err
    assert main(["run", str(SRC), "--entry", "fam_index", "--arg", "nope=1"]) == 2
    assert "has no such parameter (parameters: out, start)" in capsys.readouterr().err
    assert main(["run", str(SRC), "--entry", "fam_index", "--arg", "start=1"]) == 2
    assert "missing --arg out=" in capsys.readouterr().err


def test_guide_cxx_snippets_run(tmp_path, monkeypatch):
    """docs/guide-cxx.md: the C++ block compiles and the Python block runs as shown."""
    import re

    readme = (ROOT / "docs" / "guide-cxx.md").read_text()
    blocks = dict(re.findall(r"<!-- cxx-readme: (\w+) -->\n```\w*\n(.*?)```", readme, re.S))
    (tmp_path / "scale.cpp").write_text(blocks["kernel"])
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks["python"], "guide-cxx.md", "exec"), {})  # noqa: S102
    x = np.arange(512, dtype=np.float32)
    x.tofile(tmp_path / "x.bin")
    assert main([
        "run", "scale.cpp", "--entry", "scale", "--block-dim", "2", "--device", "a2",
        "--arg", "x=x.bin", "--arg", "k=0.5", "--arg", "out=2x16x16:float32", "--out", "results",
    ]) == 0  # fmt: skip
    assert np.array_equal(np.fromfile(tmp_path / "results" / "out.bin", np.float32), x * 0.5)


def test_strict_run_of_a_cpp_kernel_with_findings_exits_1_and_check_points_to_run(tmp_path, capsys):
    src = CXX_DIR / "errors.cpp"
    code = main([
        "run", str(src), "--entry", "no_wait", "--device", "a2", "--strict",
        "--arg", "a=16x16:float32", "--arg", "out=16x16:float32",
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1 and "errors.cpp:" in out and "race" in out
    assert main(["check", str(src)]) == 2  # check takes C++ files, with their entry
    assert "needs --entry NAME" in capsys.readouterr().err
