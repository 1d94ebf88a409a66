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
