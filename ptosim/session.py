"""Incremental simulation sessions: kernels that read values (GetValue) while they run.

A plain run records a block's whole body, places its tiles, then simulates. A body that reads a
value (``tile.GetValue(i)``, ``gm.GetValue(i)``) cannot be recorded ahead: the value is the
simulated state at that point of the program. In a session the body is a *producer* of
instructions and the engine their *consumer*:

- Timed targets: the body runs on its own thread, one per block. When the engine's scalar pipe
  (PIPE_S) has issued every instruction recorded so far and the body has not finished, it hands
  control to the producer, which runs until it emits a GetValue (it then waits for the value) or
  finishes. The GetValue is an ordinary PIPE_S instruction: it executes at its simulated time,
  after the waits before it, its data effect reads the memory as every instruction does, and the
  producer resumes with the value when PIPE_S moves on. Strict turn-taking (only one side runs
  at a time) makes results and traces deterministic.
- The untimed cpu target: the body runs in the caller's thread and each instruction executes as
  it is recorded (program order).

Tiles are placed when first used (``run.TilePlacer``: first fit, the rules and errors of
``place_tiles``). Passes that need the whole program (live tile overlaps, the happens-before
analysis) run at the end. A block whose body never reads is recorded and simulated as before
(the fast path): ``Device.run`` records normally, and only on the first GetValue abandons that
recording and reruns the body in a session (recording has no effect on data).

The surface for front ends that run a body which cannot be rerun (the C++ front end runs its
kernel on the producer thread, calling back into ptosim):

- ``kernel(func)``: a ``Kernel`` that always runs in a session; use it with ``Device.run``.
- reads and writes go through the ordinary instructions (``GetValue`` / ``SetValue``).
- ``Aborted``: raised in the body by a read (or any instruction) once the run stopped without
  the body (a deadlock, a failure on another pipe): the body must let it propagate (a C++
  callback converts it into an exception that unwinds the kernel); ``stopped()`` tells a
  callback that cannot raise that the run has stopped.
- ``forced()``: every kernel run inside it uses a session (to compare with the fast path).
"""

from __future__ import annotations

import contextlib
import threading

from .errors import ExecutionError, PtoSimError, RaceFailureError, UnsupportedError
from .findings import RACE
from .isa.scalar_access import GetValueInstr
from .program import Kernel, Program, Recorder
from .recording import ACTIVE
from .untimed import execute_one

# Run every kernel in a session (see forced()); read by the run layer (device.py).
FORCE = False

# How long closing a session waits for a body that does not end after Aborted (a front end
# that swallows it): the run goes on without it (its thread is a daemon).
_CLOSE_TIMEOUT_S = 10.0


class Aborted(BaseException):
    """The run stopped while the body was still running: unwind it. A BaseException so that a
    kernel's ``except Exception`` does not swallow it."""


@contextlib.contextmanager
def forced(on: bool = True):
    """Run every kernel inside the ``with`` block in a session (``on``), or never switch."""
    global FORCE
    old, FORCE = FORCE, on
    try:
        yield
    finally:
        FORCE = old


def stopped() -> bool:
    """True inside a session body whose run has stopped (it must unwind): for a front end
    whose callbacks cannot propagate ``Aborted`` (a ctypes callback swallows exceptions)."""
    rec = ACTIVE.get()
    producer = getattr(getattr(rec, "session", None), "producer", None)
    return producer is not None and producer.aborted


def kernel(func, *, dyn_ubuf_size: int | None = None) -> Kernel:
    """A kernel whose body always runs in a session (it is never recorded ahead and never
    rerun): for front ends whose body cannot be rerun. ``func`` takes the run's arguments."""
    k = func if isinstance(func, Kernel) else Kernel(func, dyn_ubuf_size)
    k.session = True
    return k


class _Producer:
    """The body's thread with strict turn-taking: ``resume`` (engine side) lets it run until it
    waits for a value (``wait``) or ends; only one side runs at a time."""

    def __init__(self, body):
        self.body = body
        self.done = False
        self.error: BaseException | None = None
        self.aborted = False
        self._run = threading.Semaphore(0)  # the producer's turn
        self._back = threading.Semaphore(0)  # the engine's turn
        self._thread: threading.Thread | None = None

    def _main(self) -> None:
        try:
            self.body()
        except Aborted:
            pass
        except BaseException as exc:  # noqa: BLE001 - re-raised on the engine side
            self.error = exc
        finally:
            self.done = True
            self._back.release()

    def resume(self) -> None:
        """Let the body run until it waits for a value or ends (engine side)."""
        if self.done:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name="ptosim-session", daemon=True)
            self._thread.start()
        else:
            self._run.release()
        self._back.acquire()

    def wait(self) -> None:
        """Hand control to the engine until it asks for more instructions (producer side)."""
        self._back.release()
        self._run.acquire()
        if self.aborted:
            raise Aborted

    def close(self) -> None:
        """Unwind a body still waiting for a value (it gets Aborted)."""
        if self.done or self._thread is None:
            self.done = True
            return
        self.aborted = True
        self._run.release()
        self._back.acquire(timeout=_CLOSE_TIMEOUT_S)


class _SessionRecorder(Recorder):
    """Records a session's body: places each instruction's tiles as it comes, executes it at
    once on the untimed target, and answers reads (GetValue)."""

    def __init__(self, program: SessionProgram):
        super().__init__(program)
        self.session = program

    def accept(self, instr) -> None:
        p = self.session
        if p.producer is not None and p.producer.aborted:
            raise Aborted
        p.placer.place(instr)
        p.instructions.append(instr)
        if not p.timed:
            execute_one(instr, p.ctx)

    def read(self, instr):
        p = self.session
        if p.timed:
            p.producer.wait()  # the engine runs until PIPE_S has executed ``instr``
        if instr.value is None:  # the engine must not ask for more before a read executed
            raise ExecutionError(
                f"{instr.label} ({instr.source}): internal error: the session resumed the "
                "kernel body before the read executed (PIPE_S must pull instructions one by "
                "one, engine/core.py _scalar_proc)"
            )
        return instr.value


class SessionProgram(Program):
    """A block's program produced by running its body in a session.

    Iterating it (the engine's PIPE_S does, in program order) yields the instructions recorded
    so far and, when they run out while the body has not finished, lets the body produce more.
    Once the run is over (``close``) it iterates like a plain Program.
    """

    growing = True  # its length is unknown until the body finishes (progress shows a count)

    @classmethod
    def of_kernel(cls, kernel: Kernel, like: Program, args, kwargs) -> SessionProgram:
        """The session program of one block of ``kernel`` (``like``: its Program header)."""
        program = cls(
            lambda: kernel.func(*args, **kwargs),
            like.kernel_name,
            like.arch,
            like.block_idx,
            like.block_num,
            like.dyn_ubuf_size,
            like.role,
        )
        program.max_steps = like.max_steps
        return program

    def __init__(
        self, body, kernel_name, arch, block_idx=0, block_num=1, dyn_ubuf_size=None, role=None
    ):
        super().__init__(kernel_name, arch, block_idx, block_num, dyn_ubuf_size, role=role)
        self.body = body
        self.ctx = None
        self.placer = None
        self.timed = False
        self.producer: _Producer | None = None
        self._feeding = False

    def bind(self, ctx, placer, *, timed: bool) -> None:
        """Attach the run's context and tile placer (ptosim.run.run_blocks)."""
        self.ctx, self.placer, self.timed = ctx, placer, timed
        if timed:
            self.producer = _Producer(self._body)
            self._feeding = True

    def _body(self) -> None:
        token = ACTIVE.set(_SessionRecorder(self))
        try:
            self.body()
        finally:
            ACTIVE.reset(token)

    def run_untimed(self) -> None:
        """The untimed run: the body in this thread, each instruction executed as recorded."""
        self._body()

    def __iter__(self):
        if not self._feeding:
            return iter(self.instructions)
        return self._feed()

    def _feed(self):
        instructions, producer, n = self.instructions, self.producer, 0
        while True:
            while n < len(instructions):
                yield instructions[n]
                n += 1
            if producer.done or not self._feeding:
                break
            producer.resume()
        if producer.error is not None:  # the body failed: the run stops with its error
            error, producer.error = producer.error, None
            raise error

    def close(self) -> None:
        """End the session: a body still waiting for a value is unwound (Aborted)."""
        self._feeding = False
        if self.producer is not None:
            self.producer.close()


def body_race_error(failure, programs: list, findings: list):
    """The RaceFailureError for a session body that failed (``failure.instr`` is None: the
    error came from the body, not from an instruction) after reading a value that a race on
    its core may have left stale (an F203 naming one of its executed GetValues), else None.

    The body's error (a GM offset computed from the value, an index past a tile ...) is only
    the symptom, as for an instruction that fails on raced data (engine/stops.py): the race
    leads, the original error is the cause. Cross-core races (F205) are not matched: their
    positions belong to two programs."""
    original = failure.error
    if not isinstance(original, PtoSimError) or isinstance(original, UnsupportedError):
        return None
    reads = {
        i.position: i
        for i in programs[failure.core]
        if isinstance(i, GetValueInstr) and i.value is not None
    }
    races = [f for f in findings if f.code == RACE.code and reads.keys() & set(f.instructions)]
    if not races:
        return None
    first = races[0]
    instr = reads[max(reads.keys() & set(first.instructions))]
    where = f" ({instr.source})" if instr.source else ""
    text = (
        f"core {failure.core}: the value {instr.label}{where} read may be stale: {first}"
        + (
            f" (and {len(races) - 1} more race(s) on values read, see .findings)"
            if races[1:]
            else ""
        )
        + f". The race is the defect: the kernel body failed after reading it: {original}"
    )
    rest = [f for f in findings if all(f is not r for r in races)]
    return RaceFailureError(text, original, races + rest)
