"""The command line as a user runs it: most tests call it in this process (tests/helpers/cli.py:
the same argv, exit code, stdout and stderr), a few start the real script in a new interpreter."""

import json
import subprocess
import sys

import pytest

from tests.helpers.cli import ptosim as _ptosim
from tests.helpers.cli import ptosim_process
from tests.helpers.paths import ROOT


def test_devices_lists_every_config():
    res = ptosim_process("devices")
    assert res.returncode == 0
    for name in ("cpu", "a2", "a3", "950pr", "950dt"):
        assert name in res.stdout


def test_config_prints_the_resolved_config_as_json():
    res = _ptosim("config", "950dt")
    assert res.returncode == 0
    cfg = json.loads(res.stdout)
    assert cfg["target"] == "a5" and cfg["memory"]["ub_size_bytes"] == 248 * 1024


def test_unknown_device_is_one_clear_line_and_exit_code_2():
    res = ptosim_process("config", "a9")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "unknown device 'a9'" in res.stderr
    assert "Traceback" not in res.stderr


def test_demo_runs_exactly_on_every_device():
    res = _ptosim("demo")
    assert res.returncode == 0, res.stdout + res.stderr
    for name in ("cpu", "a2", "a3", "950pr", "950dt"):
        assert f"{name} " in res.stdout
    assert "MISMATCH" not in res.stdout and "all results exact" in res.stdout


RACY = """
import numpy as np
import ptosim as pto

t = pto.Tile("Vec", "float32", 16, 16)


@pto.kernel
def copy(src, out):
    pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
    SYNC
    pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)


def inputs(dev):
    return dev.gm_array(np.arange(256, dtype=np.float32).reshape(16, 16)), dev.gm_zeros(
        (16, 16), "float32")


def check(dev, args, run):
    return np.array_equal(args[1].numpy(), args[0].numpy())
"""
SYNC = "pto.set_flag('MTE2', 'MTE3', 0); pto.wait_flag('MTE2', 'MTE3', 0)"


def _kernel_file(tmp_path, synced: bool):
    path = tmp_path / ("good.py" if synced else "racy.py")
    path.write_text(RACY.replace("SYNC", SYNC if synced else "pass"))
    return str(path)


def test_run_prints_summary_writes_trace_and_csv(tmp_path):
    good = _kernel_file(tmp_path, True)
    trace, csv_path = tmp_path / "t.json", tmp_path / "s.csv"
    res = _ptosim("run", good, "--device", "a2", "--trace", str(trace), "--csv", str(csv_path))
    assert res.returncode == 0, res.stderr
    assert "total:" in res.stdout and "check: passed" in res.stdout
    assert json.loads(trace.read_text())["traceEvents"]
    assert csv_path.read_text().startswith("core,pipe,busy_cycles")
    res = _ptosim("run", f"{good}:copy", "--device", "950pr")
    assert res.returncode == 0 and "findings: none" in res.stdout


def test_run_of_a_racy_kernel_reports_the_finding_and_fails_its_check(tmp_path):
    racy = _kernel_file(tmp_path, False)
    res = _ptosim("run", racy, "--device", "a2")
    assert res.returncode == 1 and "check: FAILED" in res.stdout
    assert "F203" in res.stdout and "set_flag(PIPE_MTE2, PIPE_MTE3" in res.stdout


def test_check_exits_1_on_a_hazard_and_0_when_clean(tmp_path):
    res = _ptosim("check", _kernel_file(tmp_path, False), "--device", "950pr")
    assert res.returncode == 1 and "RAW race" in res.stdout
    res = _ptosim("check", _kernel_file(tmp_path, True), "--device", "a2")
    assert res.returncode == 0 and "no findings" in res.stdout


def test_kernel_file_errors_are_one_line(tmp_path):
    res = _ptosim("run", str(tmp_path / "missing.py"))
    assert res.returncode == 2 and "no such kernel file" in res.stderr
    assert "Traceback" not in res.stderr
    bad = tmp_path / "bad.py"
    bad.write_text(RACY.replace("SYNC", "pto.wait_flag('MTE2', 'MTE3', 0)"))
    res = _ptosim("run", str(bad), "--device", "a2")
    assert res.returncode == 2 and "deadlock" in res.stderr and "Traceback" not in res.stderr
    res = _ptosim("run", f"{_kernel_file(tmp_path, True)}:nope", "--device", "a2")
    assert res.returncode == 2 and "has no kernel 'nope'" in res.stderr


def test_an_exception_in_the_kernel_file_is_reported_as_its_error_not_ours(tmp_path):
    oops = tmp_path / "oops.py"
    oops.write_text(
        "import ptosim as pto\n\n@pto.kernel\ndef k(x):\n    pto.TLOAD(undefined_tile, x)\n\n"
        "def inputs(dev):\n    return dev.gm_zeros(8, 'float32')\n"
    )
    res = _ptosim("run", str(oops), "--device", "a2")
    assert res.returncode == 2 and "error in oops.py:5" in res.stderr and "NameError" in res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr


# -- issue 10 items 17 and 20: the CLI contract ------------------------------------------------
def _in_process_script(*args, cwd):
    """Run the CLI as the installed ``ptosim`` script does: sys.path[0] is not the cwd."""
    import os

    root = str(ROOT)
    code = "import sys; from ptosim.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=root)
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def test_version_prints_the_package_version():
    import ptosim

    res = _ptosim("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"ptosim {ptosim.__version__}"


def test_run_and_check_accept_all_and_comma_lists(tmp_path):
    good = _kernel_file(tmp_path, True)
    res = _ptosim("check", good, "--device", "all")
    assert res.returncode == 0, res.stderr
    for name in ("cpu", "a2", "a3", "950pr", "950dt"):
        assert f"copy on {name}: no findings" in res.stdout
    trace = tmp_path / "t.json"
    res = _ptosim("run", good, "--device", "a2, 950pr,a2", "--trace", str(trace))
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("check: passed") == 2
    assert json.loads((tmp_path / "t.a2.json").read_text())["traceEvents"]
    assert json.loads((tmp_path / "t.950pr.json").read_text())["traceEvents"]
    res = _ptosim("run", good, "--device", "a2,a9")
    assert (
        res.returncode == 2 and "unknown device 'a9'" in res.stderr and "total:" not in res.stdout
    )


TWO = (
    RACY.replace("SYNC", SYNC)
    + """

@pto.kernel
def racy(src, out):
    pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
    pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)
"""
)


def test_check_of_a_file_with_several_kernels_checks_them_all(tmp_path):
    path = tmp_path / "two.py"
    path.write_text(TWO)
    res = _ptosim("check", str(path), "--device", "a2")
    assert res.returncode == 1, res.stderr
    assert "copy on a2: no findings" in res.stdout and "racy on a2: 1 finding(s)" in res.stdout
    res = _ptosim("check", f"{path}:copy", "--device", "a2")
    assert res.returncode == 0 and "racy" not in res.stdout


def test_traceback_shows_the_kernel_files_frames_only(tmp_path):
    oops = tmp_path / "oops.py"
    oops.write_text(
        "import ptosim as pto\n\n@pto.kernel\ndef k(x):\n    helper()\n\n"
        "def helper():\n    pto.Tile('Vec', 'float32', 3.5, 8)\n\n"
        "def inputs(dev):\n    return dev.gm_zeros(8, 'float32')\n"
    )
    res = _ptosim("run", str(oops), "--device", "a2")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and "error in oops.py:8" in res.stderr
    for argv in (("--traceback", "run", str(oops)), ("run", str(oops), "--traceback")):
        res = _ptosim(*argv, "--device", "a2")
        assert res.returncode == 2
        assert (
            'oops.py", line 5, in k' in res.stderr and 'oops.py", line 8, in helper' in res.stderr
        )
        assert "ptosim/" not in res.stderr.replace("ptosim: error", "")


@pytest.mark.slow
def test_kernel_files_import_their_sibling_modules_under_the_script(tmp_path):
    (tmp_path / "shapes_helper.py").write_text("N = 16\n")
    path = tmp_path / "sib.py"
    path.write_text("import shapes_helper\n" + RACY.replace("SYNC", SYNC))
    res = _in_process_script("check", str(path), "--device", "cpu", cwd="/")
    assert res.returncode == 0, res.stderr


def test_a_bad_set_value_blames_the_override_not_the_shipped_config(tmp_path):
    good = _kernel_file(tmp_path, True)
    for value in ("abc", "-1", "nan", "1.5"):
        res = _ptosim("run", good, "--set", f"timing.mte2.latency_cycles={value}")
        assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
        assert "timing.mte2.latency_cycles=" in res.stderr and "a2.toml" not in res.stderr, (
            value,
            res.stderr,
        )


def test_user_mistakes_are_one_line_exit_2_never_internal_errors(tmp_path):
    good = _kernel_file(tmp_path, True)
    cases = {
        "exit5.py": "import sys\nsys.exit(5)\n",
        "syntax.py": "def (:\n",
        "missing_import.py": "import no_such_module_xyz\n",
        "numpy_raises.py": "import numpy as np\nnp.zeros(-1)\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        res = _ptosim("run", str(path), "--device", "a2")
        assert res.returncode == 2, (name, res.returncode, res.stderr)
        assert res.stderr.count("\n") == 1 and "internal error" not in res.stderr, res.stderr
        assert f"{name}:" in res.stderr, res.stderr
    res = _ptosim("run", str(tmp_path / "exit5.py"))
    assert "sys.exit(5)" in res.stderr
    # argparse mistakes are one line too; --block-dim 0 is one of them
    for argv in (("run",), ("run", good, "--block-dim", "0"), ("frobnicate",), ()):
        res = _ptosim(*argv)
        assert res.returncode == 2 and res.stderr.count("\n") == 1, (argv, res.stderr)
    res = _ptosim("run", good, "--block-dim", "100000")
    assert res.returncode == 2 and "48 cores" in res.stderr and res.stderr.count("\n") == 1


def test_a_strict_findings_error_is_summarised_on_one_line(tmp_path):
    racy = tmp_path / "racy_strict.py"
    racy.write_text(RACY.replace("SYNC", "pass") + "\nRUN_OPTIONS = {'strict': True}\n")
    res = _ptosim("run", str(racy), "--device", "a2")
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "PTO500" in res.stderr and "finding(s)" in res.stderr


def test_gitignore_covers_the_files_the_docs_write(tmp_path):

    root = str(ROOT)
    names = ["out.json", "out.csv", "lookup.json", "lookup.csv", "bw.json", "bw.png", "p.png"]
    res = subprocess.run(
        ["git", "check-ignore", "--no-index", *names], cwd=root, capture_output=True, text=True
    )
    assert sorted(res.stdout.split()) == sorted(names), res.stdout


def test_instructions_lists_the_registry(capsys):
    from ptosim.cli import main
    from ptosim.isa import registry

    assert main(["instructions"]) == 0
    out = capsys.readouterr().out
    for spec in registry.specs():
        assert spec.name in out
    assert out.strip().endswith(f"{len(registry.specs())} instructions")
    assert main(["instructions", "--device", "a2", "-v"]) == 0
    verbose = capsys.readouterr().out
    assert "MGATHER(dst, table, idx, *, coalesce='row'" in verbose
    from ptosim.targets import spec_of

    a2a3_only = [s for s in registry.specs() if spec_of("a2a3").defines(s.name)]
    assert verbose.strip().endswith(f"{len(a2a3_only)} instructions")
