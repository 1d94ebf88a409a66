"""Each case of `ptosim test` runs in its own process: an abort, a trap, a crash, a hang or an
exception is that case's failure with a one-line reason, and the cases after it still run."""

from __future__ import annotations

import signal
import time

import pytest

from ptosim.cli import main
from ptosim.cxx.isolate import run_isolated
from tests.helpers.paths import HARNESS_FOLDERS as FOLDERS
from tests.helpers.testdir import by_case

pytestmark = pytest.mark.slow

TIMEOUT_SECONDS = 15


@pytest.fixture(scope="module")
def isolation(folder_run):
    return by_case(folder_run("isolation", "cpu", case_timeout_seconds=TIMEOUT_SECONDS))


def test_the_cases_around_the_bad_ones_pass(isolation):
    assert list(isolation) == [
        "Isolation.a_passes", "Isolation.b_aborts", "Isolation.c_traps", "Isolation.d_crashes",
        "Isolation.e_hangs", "Isolation.f_throws", "Isolation.g_kernel_traps",
        "Isolation.h_passes",
    ]  # fmt: skip
    assert isolation["Isolation.a_passes"].ok and isolation["Isolation.h_passes"].ok


@pytest.mark.parametrize(
    "case, reason",
    [
        ("b_aborts", "SIGABRT (abort(): a failed assert() or std::terminate): about to give up"),
        ("c_traps", "SIGILL (illegal instruction: a trap"),
        ("d_crashes", "SIGSEGV (segmentation fault"),
        ("e_hangs", f"--case-timeout {TIMEOUT_SECONDS} s reached"),
        ("f_throws", "the test ended with a C++ exception"),
        ("g_kernel_traps", "SIGILL (illegal instruction: a trap"),
    ],
)
def test_each_bad_case_fails_alone_with_one_line(isolation, case, reason):
    r = isolation[f"Isolation.{case}"]
    assert r.verdict == "ERROR"
    assert r.error.startswith(reason), r.error
    assert "\n" not in r.error


def test_the_command_line_reports_them_and_exits_1(tmp_path, capsys):
    code = main(
        ["test", str(FOLDERS / "isolation"), "--device", "cpu", "--case-timeout", "5",
         "--filter", "Isolation.e", "--work", str(tmp_path)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "Isolation.e_hangs" in out and "<- --case-timeout 5 s reached" in out
    assert out.strip().endswith(
        "0/1 cases pass, no golden*.bin/output*.bin files to compare byte for byte"
    )


def test_run_isolated_returns_values_output_and_signals():
    def prints_and_returns():
        print("hello from the child")
        return {"answer": 42}

    ok = run_isolated(prints_and_returns, 30)
    assert ok.crash is None and ok.value == {"answer": 42}
    assert "hello from the child" in ok.output

    def dies():
        import os

        os.kill(os.getpid(), signal.SIGBUS)

    assert run_isolated(dies, 30).crash.reason.startswith("SIGBUS (bus error")

    def raises():
        raise ValueError("broken")

    assert run_isolated(raises, 30).crash.reason == "ptosim internal error: ValueError: broken"


def test_the_time_out_stops_the_child_promptly():
    start = time.monotonic()
    out = run_isolated(lambda: time.sleep(60), 1)
    assert out.crash.reason == "--case-timeout 1 s reached"
    assert time.monotonic() - start < 10
