"""Recording a kernel: running its Python body once and collecting the instructions it emits.

Recording is the bottom of the run: it knows nothing of sessions, runs or the engine. A body
that reads a value (GetValue) cannot be recorded ahead; the plain recorder then raises
``NeedsSession`` and the run layer (``device.py``) decides what to do (run it in a session).
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass, field

from .argcheck import as_int
from .errors import ConstraintError, KernelError
from .isa.base import Arch, Instruction
from .recording import ACTIVE, OUTSIDE_A_RUN

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# Instructions one block may record before the run stops it as a body that never ends: far
# beyond any kernel this simulator runs in reasonable time (a 10,000-iteration double-buffered
# pipeline records 110,007), and small enough to stop before the recording exhausts memory.
DEFAULT_MAX_STEPS = 20_000_000


@dataclass
class Program:
    """An ordered list of instructions recorded from one kernel invocation (one block)."""

    kernel_name: str
    arch: Arch
    block_idx: int = 0
    block_num: int = 1
    dyn_ubuf_size: int | None = None
    instructions: list[Instruction] = field(default_factory=list)
    # default tile names in order of first use: Tile.id -> name
    tile_names: dict[int, str] = field(default_factory=dict, repr=False)
    # recording stops with a KernelError past this many instructions (a body that never ends)
    max_steps: int = field(default=DEFAULT_MAX_STEPS, repr=False)

    def __iter__(self):
        return iter(self.instructions)

    def __len__(self) -> int:
        return len(self.instructions)


# code file name -> its base name when it lies outside the ptosim package, else None (one
# abspath per file instead of one per frame walked per recorded instruction)
_OUTSIDE: dict[str, str | None] = {}


def _outside(co_filename: str) -> str | None:
    filename = os.path.abspath(co_filename)
    if filename.startswith(_PKG_DIR + os.sep):
        base = None
    else:
        base = os.path.basename(filename)
    _OUTSIDE[co_filename] = base
    return base


def _caller_chain() -> tuple[str | None, tuple[str, ...]]:
    """The innermost kernel-code line that emits an instruction (``file.py:57``), and the
    lines of the kernel code that called it, outermost first: the kernel body's own line
    (``file.py:60``, a call of a helper) down to the helper's caller. Empty when the kernel
    body itself emits it. The walk stops at the first ptosim frame above the kernel code (the
    run that called the kernel), so it costs one frame per helper level."""
    frame = sys._getframe(1)
    outside = _OUTSIDE
    while frame is not None:  # up through ptosim's own frames to the kernel code
        co_filename = frame.f_code.co_filename
        base = outside[co_filename] if co_filename in outside else _outside(co_filename)
        if base is not None:
            break
        frame = frame.f_back
    if frame is None:
        return None, ()
    source = f"{base}:{frame.f_lineno}"
    sites: list[str] = []
    frame = frame.f_back
    while frame is not None:
        co_filename = frame.f_code.co_filename
        base = outside[co_filename] if co_filename in outside else _outside(co_filename)
        if base is None:
            break
        sites.append(f"{base}:{frame.f_lineno}")
        frame = frame.f_back
    return source, tuple(reversed(sites))


class NeedsSession(BaseException):
    """Raised by a plain recording when the body reads a value (GetValue): nothing has been
    simulated yet, so the run layer switches to a session (ptosim/session.py). A BaseException
    so that a kernel's ``except Exception`` cannot swallow it."""


class Recorder:
    """The active recording: appends validated instructions to a Program."""

    def __init__(self, program: Program):
        self.program = program
        # an explicit call site ("kernel.cpp:42") set by a front end that is not Python code
        # (ptosim.cxx); None: the Python caller's file:line
        self.source: str | None = None

    def emit(self, instr: Instruction) -> Instruction:
        instr.position = n = len(self.program.instructions)
        if n >= self.program.max_steps:
            self.runaway(instr)
        if self.source is not None:
            instr.source = self.source
        else:
            instr.source, sites = _caller_chain()
            if sites:
                instr.sites = sites
        try:
            instr.check(self.program.arch)
        except ConstraintError as exc:
            raise exc.locate(instr.position, instr.source) from None
        self.accept(instr)
        return instr

    def runaway(self, instr: Instruction) -> None:
        p = self.program
        where = self.source or _caller_chain()[0]
        raise KernelError(
            f"kernel {p.kernel_name!r} block {p.block_idx}: the body goes on past max_steps="
            f"{p.max_steps} instructions ({instr.opcode} #{instr.position} at {where}): a loop "
            "that never ends? If the kernel is that long, pass Device.run(..., max_steps=N)"
        )

    def accept(self, instr: Instruction) -> None:
        """Add a validated instruction to the program (a session also places and runs it)."""
        self.program.instructions.append(instr)

    def read(self, instr: Instruction):
        """The value a just-emitted read instruction (GetValue) read. A plain recording
        simulates nothing, so it cannot know it: the run restarts the body in a session."""
        raise NeedsSession

    def tile_name(self, tile) -> str:
        """The name of an unnamed tile: ``tile<n><dtype,RxC,layout>`` with n its order of first
        use in this program (deterministic, unlike a process-wide counter)."""
        names = self.program.tile_names
        if tile.id not in names:
            names[tile.id] = tile.name.replace("tile<", f"tile{len(names)}<", 1)
        return names[tile.id]


def current() -> Recorder:
    """The active recorder.

    Raises:
        KernelError: called outside ``Device.run``.
    """
    rec = ACTIVE.get()
    if rec is None:
        raise KernelError(OUTSIDE_A_RUN)
    return rec


def emit(instr: Instruction) -> Instruction:
    return current().emit(instr)


def record(
    kernel: Kernel,
    arch: Arch,
    args,
    kwargs,
    *,
    block_idx=0,
    block_num=1,
    dyn_ubuf_size=None,
    max_steps: int | None = None,
) -> Program:
    """Run the kernel body once under a recorder and return the Program (``max_steps``: the
    instructions it may record, default ``DEFAULT_MAX_STEPS``).

    Raises:
        NeedsSession: the body read a value (GetValue): it cannot be recorded ahead.
    """
    program = header(kernel, arch, block_idx, block_num, dyn_ubuf_size)
    if max_steps is not None:
        program.max_steps = max_steps
    token = ACTIVE.set(Recorder(program))
    try:
        kernel.func(*args, **kwargs)
    finally:
        ACTIVE.reset(token)
    return program


def header(kernel: Kernel, arch: Arch, block_idx=0, block_num=1, dyn_ubuf_size=None) -> Program:
    """The empty Program of one block of ``kernel`` (a run-time ``dyn_ubuf_size`` overrides
    the kernel's own)."""
    return Program(
        kernel.name,
        arch,
        block_idx,
        block_num,
        dyn_ubuf_size if dyn_ubuf_size is not None else kernel.dyn_ubuf_size,
    )


class Kernel:
    """A kernel: a Python function whose body calls PTO instructions (see ``kernel``)."""

    def __init__(self, func, dyn_ubuf_size: int | None = None, *, session: bool = False):
        functools.update_wrapper(self, func)
        self.func = func
        self.name = func.__name__
        self.dyn_ubuf_size = dyn_ubuf_size
        # always run in a session (ptosim/session.py): for bodies that cannot be rerun
        self.session = session

    def __call__(self, *args, **kwargs):
        if ACTIVE.get() is None:
            raise KernelError(
                f"kernel {self.name!r} must be run on a device: dev.run({self.name}, ...)"
            )
        return self.func(*args, **kwargs)  # a kernel called from a kernel is inlined

    def __repr__(self) -> str:
        return f"<pto.kernel {self.name}>"


def kernel(func=None, *, dyn_ubuf_size: int | None = None):
    """Decorator making a function a PTO kernel (``@pto.kernel`` or
    ``@pto.kernel(dyn_ubuf_size=...)`` to declare a larger 950 SIMT dynamic UB size)."""
    if dyn_ubuf_size is not None:
        dyn_ubuf_size = as_int(dyn_ubuf_size, "kernel dyn_ubuf_size (bytes)", lo=1)
    if func is None:
        return lambda f: Kernel(f, dyn_ubuf_size)
    if not callable(func):
        raise KernelError(f"@pto.kernel decorates a function, got {type(func).__name__}")
    return Kernel(func, dyn_ubuf_size)


def get_block_idx() -> int:
    """Index of the block (core) running this kernel body, like ``get_block_idx()``."""
    return current().program.block_idx


def get_block_num() -> int:
    """Number of blocks the kernel was launched with (``block_dim``)."""
    return current().program.block_num
