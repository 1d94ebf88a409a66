"""One test case, one process: a crash, trap, abort or hang ends that case only.

``run_isolated(fn, timeout_seconds)`` forks; the child runs ``fn()`` with its standard output
and error going to a file, sends the result back through a pipe (pickled) and exits without
running any exit handler. The parent waits at most ``timeout_seconds``; a child killed by a
signal, one that ended without a result, or one that ran out of time is a ``Crash`` with a
one-line reason (``SIGSEGV (segmentation fault)``, ``SIGILL (illegal instruction: a trap, e.g.
undefined behaviour caught by a sanitizer)``, ``abort() ...: <its last output line>``,
``--case-timeout 60 s reached``). Where ``os.fork`` does not exist the call runs in process.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import io
import os
import pickle
import select
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass

# what each signal means for a test case (the trap kinds a kernel can raise)
SIGNAL_MEANING = {
    signal.SIGSEGV: "segmentation fault: an invalid memory access",
    signal.SIGBUS: "bus error: an invalid memory access",
    signal.SIGILL: "illegal instruction: a trap, e.g. undefined behaviour caught by a sanitizer "
    "(-ftrapv, -fsanitize-trap) or __builtin_trap()",
    signal.SIGTRAP: "trace/breakpoint trap",
    signal.SIGFPE: "arithmetic exception: an integer division by zero or overflow",
    signal.SIGABRT: "abort(): a failed assert() or std::terminate",
    signal.SIGKILL: "killed",
}


@dataclass
class Crash:
    """How an isolated call ended without a result."""

    reason: str
    output: str = ""


@dataclass
class Outcome:
    value: object = None  # fn's result (None when it crashed)
    crash: Crash | None = None
    output: str = ""  # what the call printed (stdout and stderr, C and Python)


def forking() -> bool:
    return hasattr(os, "fork")


def _flush_c_stdio() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)


def run_isolated(fn, timeout_seconds: float | None) -> Outcome:
    """Run ``fn()`` in a child process; see the module docstring."""
    if not forking():  # pragma: no cover - other platforms: in process
        return Outcome(value=fn())
    sys.stdout.flush()
    sys.stderr.flush()
    _flush_c_stdio()
    out_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed below, after the child
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            os.close(rfd)
            faulthandler.disable()  # a crash is reported by the parent, from the exit status
            os.dup2(out_file.fileno(), 1)
            os.dup2(out_file.fileno(), 2)
            # Python's own writes too (sys.stdout may be a capturing object, e.g. under pytest)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), line_buffering=True)
            sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), line_buffering=True)
            try:
                payload = pickle.dumps(("ok", fn()))
            except BaseException as exc:  # noqa: BLE001 - reported as the case's failure
                what = f"{type(exc).__name__}: {exc}".splitlines()[0]
                payload = pickle.dumps(("raised", what, traceback.format_exc()))
            sys.stdout.flush()
            sys.stderr.flush()
            _flush_c_stdio()
            with os.fdopen(wfd, "wb") as w:
                w.write(payload)
        except BaseException:  # noqa: BLE001 - never return into the parent's code
            code = 70
        finally:
            os._exit(code)
    os.close(wfd)
    data, timed_out = _read_all(rfd, timeout_seconds)
    os.close(rfd)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    out_file.seek(0)
    output = out_file.read().decode(errors="replace")
    out_file.close()
    if timed_out:
        return Outcome(crash=Crash(f"--case-timeout {timeout_seconds:g} s reached", output))
    if data:
        result = pickle.loads(data)
        if result[0] == "ok":
            return Outcome(value=result[1], output=output)
        return Outcome(crash=Crash(f"ptosim internal error: {result[1]}", output + result[2]))
    return Outcome(crash=Crash(_status_reason(status, output), output), output=output)


def _read_all(fd: int, timeout_seconds: float | None) -> tuple[bytes, bool]:
    """Everything written to ``fd`` until its writer closes it, and whether time ran out."""
    chunks, deadline = [], None if timeout_seconds is None else time.monotonic() + timeout_seconds
    while True:
        wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return b"".join(chunks), True
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)


def _status_reason(status: int, output: str) -> str:
    last = next((ln.strip() for ln in reversed(output.splitlines()) if ln.strip()), "")
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        text = f"{name} ({SIGNAL_MEANING.get(sig, 'terminated by a signal')})"
        return f"{text}: {last}" if last and sig == signal.SIGABRT else text
    code = os.WEXITSTATUS(status)
    tail = f": {last}" if last else ""
    return f"the process exited with status {code} without finishing the case{tail}"
