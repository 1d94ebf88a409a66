"""The command line, run as a subprocess like a user would."""

import json
import subprocess
import sys


def _ptosim(*args):
    return subprocess.run(
        [sys.executable, "-m", "ptosim", *args], capture_output=True, text=True, timeout=120
    )


def test_devices_lists_every_config():
    res = _ptosim("devices")
    assert res.returncode == 0
    for name in ("cpu", "a2", "a3", "950pr", "950dt"):
        assert name in res.stdout


def test_config_prints_the_resolved_config_as_json():
    res = _ptosim("config", "950dt")
    assert res.returncode == 0
    cfg = json.loads(res.stdout)
    assert cfg["target"] == "a5" and cfg["memory"]["ub_size_bytes"] == 256 * 1024


def test_unknown_device_is_one_clear_line_and_exit_code_2():
    res = _ptosim("config", "a9")
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
