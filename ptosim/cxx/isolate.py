"""One test case, one process: a crash, trap, abort or hang ends that case only.

``run_isolated(fn, timeout_seconds)`` forks; the child runs ``fn()`` with its standard output
and error going to a file, sends the result back through a pipe (pickled) and exits without
running any exit handler. The parent waits at most ``timeout_seconds``; a child killed by a
signal, one that ended without a result, or one that ran out of time is a ``Crash`` with a
one-line reason (``SIGSEGV (segmentation fault)``, ``SIGILL (illegal instruction: a trap, e.g.
undefined behaviour caught by a sanitizer)``, ``abort() ...: <its last output line>``,
``--case-timeout 60 s reached``). ``run_many`` keeps up to ``jobs`` children running at once.
Where ``os.fork`` does not exist the calls run in process.
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
    return run_many([fn], timeout_seconds, jobs=1)[0]


def run_many(fns, timeout_seconds: float | None, jobs: int = 1) -> list[Outcome]:
    """Run each ``fn()`` in its own child process, at most ``jobs`` at a time; the outcomes in
    the order of ``fns`` (each child has its own time-out)."""
    fns = list(fns)
    if not forking():  # pragma: no cover - other platforms: in process
        return [Outcome(value=fn()) for fn in fns]
    outcomes: list[Outcome | None] = [None] * len(fns)
    active: dict[int, _Child] = {}  # read end of the child's pipe -> child
    queue = list(enumerate(fns))
    while queue or active:
        while queue and len(active) < max(jobs, 1):
            index, fn = queue.pop(0)
            child = _spawn(fn, index, timeout_seconds)
            active[child.rfd] = child
        deadlines = [c.deadline for c in active.values() if c.deadline is not None]
        wait = max(min(deadlines) - time.monotonic(), 0.0) if deadlines else None
        ready, _, _ = select.select(list(active), [], [], wait)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if chunk:
                active[fd].chunks.append(chunk)
                continue
            child = active.pop(fd)
            outcomes[child.index] = child.finish(timed_out=False)
        now = time.monotonic()
        for fd, child in list(active.items()):
            if child.deadline is not None and now >= child.deadline:
                del active[fd]
                outcomes[child.index] = child.finish(timed_out=True)
    return outcomes


@dataclass
class _Child:
    pid: int
    rfd: int
    index: int
    out_file: object
    timeout_seconds: float | None
    deadline: float | None
    chunks: list

    def finish(self, timed_out: bool) -> Outcome:
        if timed_out:
            os.kill(self.pid, signal.SIGKILL)
        os.close(self.rfd)
        _, status = os.waitpid(self.pid, 0)
        self.out_file.seek(0)
        output = self.out_file.read().decode(errors="replace")
        self.out_file.close()
        if timed_out:
            reason = f"--case-timeout {self.timeout_seconds:g} s reached"
            return Outcome(crash=Crash(reason, output), output=output)
        data = b"".join(self.chunks)
        if data:
            result = pickle.loads(data)
            if result[0] == "ok":
                return Outcome(value=result[1], output=output)
            return Outcome(crash=Crash(f"ptosim internal error: {result[1]}", output + result[2]))
        return Outcome(crash=Crash(_status_reason(status, output), output), output=output)


def _spawn(fn, index: int, timeout_seconds: float | None) -> _Child:
    sys.stdout.flush()
    sys.stderr.flush()
    _flush_c_stdio()
    out_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _Child.finish
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
    deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds
    return _Child(pid, rfd, index, out_file, timeout_seconds, deadline, [])


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
