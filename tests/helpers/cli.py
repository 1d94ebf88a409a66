"""The command line run in this process: ``ptosim(*args)`` returns what the ``ptosim`` command
would (exit code, stdout, stderr) without a new interpreter per call (each costs about a second,
mostly importing numpy and ml_dtypes). A few tests still start the real script in a subprocess
(tests/cli/test_cli.py) so the entry point itself stays covered."""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from unittest import mock

from ptosim.cli import main


@dataclass
class Result:
    """What a finished ``ptosim`` command gave (the fields of subprocess.CompletedProcess)."""

    returncode: int
    stdout: str
    stderr: str


def ptosim(*args, cwd=None, env=None) -> Result:
    """Run ``ptosim ARGS`` in this process, in ``cwd`` with the environment ``env`` (a full
    environment, as subprocess takes it; None keeps the current one)."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    environ = mock.patch.dict(os.environ, env, clear=True) if env is not None else None
    try:
        if environ is not None:
            environ.start()
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exc:  # argparse usage errors exit from parse_args
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        os.chdir(here)
        if environ is not None:
            environ.stop()
    return Result(code or 0, out.getvalue(), err.getvalue())


def ptosim_process(*args, cwd=None, env=None, timeout=120):
    """Run ``python -m ptosim ARGS`` in a new interpreter (for what only a fresh process shows:
    the entry point, import-time failures, a PYTHONPATH of the test's choosing)."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "ptosim", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )
