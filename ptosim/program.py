"""Recording a kernel: running its Python body once and collecting the instructions it emits.

Recording is the bottom of the run: it knows nothing of sessions, runs or the engine. A body
that reads a value (GetValue) cannot be recorded ahead; the plain recorder then raises
``NeedsSession`` and the run layer (``device.py``) decides what to do (run it in a session).
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass, field, fields

from .argcheck import as_int
from .cores import CoreRole, parse_cores
from .errors import ConstraintError, KernelError
from .isa.base import Arch, Instruction
from .memory import CORE_SPACES, SPACE_OF_LOC
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
    role: CoreRole | None = None  # the core it runs on (ptosim/cores.py); None: core block_idx

    def __iter__(self):
        return iter(self.instructions)

    def __len__(self) -> int:
        return len(self.instructions)

    @property
    def core_role(self) -> CoreRole:
        """The core this program runs on (a vector core ``block_idx`` when not given)."""
        return self.role if self.role is not None else CoreRole(self.block_idx)

    def with_instructions(self, instructions: list[Instruction]) -> Program:
        """The same program (kernel, block, core, tile names, step limit) with other
        instructions, numbered from 0 (a repaired program: checks/fixes.py, lineedits.py); a
        plain Program even when this one is a session's."""
        for n, instr in enumerate(instructions):
            instr.position = n
        kept = {f.name: getattr(self, f.name) for f in fields(Program)}
        return Program(**{**kept, "instructions": instructions})


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


class NeedsCube(BaseException):
    """Raised while recording a kernel that did not say which cores it runs on, as a vector
    kernel, when its body uses a cube buffer: the run layer records it again on the cube
    cores (``cores="cube"``). A BaseException so that a kernel's ``except Exception`` cannot
    swallow it."""


class Recorder:
    """The active recording: appends validated instructions to a Program."""

    def __init__(self, program: Program, *, probe_cube: bool = False):
        self.program = program
        # an explicit call site ("kernel.cpp:42") set by a front end that is not Python code
        # (ptosim.cxx); None: the Python caller's file:line
        self.source: str | None = None
        # the kernel's cores are not declared: an instruction on a cube buffer raises NeedsCube
        self.probe_cube = probe_cube
        # the FIFO operation (TPUSH ...) whose instructions are being recorded (Instruction.via)
        self.via: str | None = None
        self.last: Instruction | None = None  # the instruction recorded last

    def emit(self, instr: Instruction) -> Instruction:
        if self.probe_cube and any(
            SPACE_OF_LOC[t.loc] not in CORE_SPACES["vec"] for t in instr.tile_operands().values()
        ):
            raise NeedsCube
        instr.position = n = len(self.program.instructions)
        if n >= self.program.max_steps:
            self.runaway(instr)
        if self.via is not None:
            instr.via = self.via
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
        self.last = instr
        return instr

    def validate(self, instr: Instruction) -> None:
        """Check ``instr`` where the kernel writes it without recording it (the rules of an
        operation recorded as other instructions, such as TPUSH)."""
        instr.source = self.source if self.source is not None else _caller_chain()[0]
        try:
            instr.check(self.program.arch)
        except ConstraintError as exc:
            raise exc.locate(len(self.program.instructions), instr.source) from None

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
    role: CoreRole | None = None,
    probe_cube: bool = False,
) -> Program:
    """Run the kernel body once under a recorder and return the Program (``max_steps``: the
    instructions it may record, default ``DEFAULT_MAX_STEPS``).

    Raises:
        NeedsSession: the body read a value (GetValue): it cannot be recorded ahead.
        NeedsCube: ``probe_cube`` and the body used a cube buffer.
    """
    program = header(kernel, arch, block_idx, block_num, dyn_ubuf_size, role)
    if max_steps is not None:
        program.max_steps = max_steps
    token = ACTIVE.set(Recorder(program, probe_cube=probe_cube))
    try:
        kernel.func(*args, **kwargs)
    finally:
        ACTIVE.reset(token)
    return program


def header(
    kernel: Kernel,
    arch: Arch,
    block_idx=0,
    block_num=1,
    dyn_ubuf_size=None,
    role: CoreRole | None = None,
) -> Program:
    """The empty Program of one core of ``kernel`` (a run-time ``dyn_ubuf_size`` overrides
    the kernel's own)."""
    return Program(
        kernel.name,
        arch,
        block_idx,
        block_num,
        dyn_ubuf_size if dyn_ubuf_size is not None else kernel.dyn_ubuf_size,
        role=role,
    )


class Kernel:
    """A kernel: a Python function whose body calls PTO instructions (see ``kernel``)."""

    def __init__(
        self, func, dyn_ubuf_size: int | None = None, *, session: bool = False, cores=None
    ):
        functools.update_wrapper(self, func)
        self.func = func
        self.name = func.__name__
        self.dyn_ubuf_size = dyn_ubuf_size
        # always run in a session (ptosim/session.py): for bodies that cannot be rerun
        self.session = session
        # the cores it runs on (ptosim/cores.py): "vec", "cube", "mix", or None: "cube" when
        # the body uses a cube buffer (L0A, L0B, L0C, BT, FB), else "vec"
        self.cores = parse_cores(cores)

    def __call__(self, *args, **kwargs):
        if ACTIVE.get() is None:
            raise KernelError(
                f"kernel {self.name!r} must be run on a device: dev.run({self.name}, ...)"
            )
        return self.func(*args, **kwargs)  # a kernel called from a kernel is inlined

    def __repr__(self) -> str:
        return f"<pto.kernel {self.name}>"


def kernel(func=None, *, dyn_ubuf_size: int | None = None, cores=None):
    """Decorator making a function a PTO kernel: ``@pto.kernel``, or with options
    ``@pto.kernel(cores="mix", dyn_ubuf_size=...)``.

    Args:
        dyn_ubuf_size: a larger 950 SIMT dynamic UB size (bytes).
        cores: the cores the body runs on (ptosim/cores.py): ``"vec"`` (vector cores only;
            ``block_dim`` counts vector cores), ``"cube"`` (the cube core of each AI core) or
            ``"mix"`` (the cube core and both vector cores of each AI core: the body runs three
            times per block and asks ``pto.is_cube()`` / ``pto.get_subblockid()`` where it
            runs). Default: ``"cube"`` when the body uses a cube buffer, else ``"vec"``.
    """
    if dyn_ubuf_size is not None:
        dyn_ubuf_size = as_int(dyn_ubuf_size, "kernel dyn_ubuf_size (bytes)", lo=1)
    parse_cores(cores)  # a bad value fails at the decorator, not at the run
    if func is None:
        return lambda f: Kernel(f, dyn_ubuf_size, cores=cores)
    if not callable(func):
        raise KernelError(f"@pto.kernel decorates a function, got {type(func).__name__}")
    return Kernel(func, dyn_ubuf_size, cores=cores)


def get_block_idx() -> int:
    """Index of the block running this kernel body, like ``get_block_idx()``: the vector core
    of a vector-only kernel, the AI core of a cube or mixed one (its AIC and both AIVs share
    it)."""
    return current().program.block_idx


def get_block_num() -> int:
    """Number of blocks the kernel was launched with (``block_dim``)."""
    return current().program.block_num


def is_cube() -> bool:
    """True when this body runs on a cube core (AIC), like C++ ``#if defined(__DAV_CUBE__)``."""
    return current().program.core_role.is_cube


def is_vec() -> bool:
    """True when this body runs on a vector core, like C++ ``#if defined(__DAV_VEC__)``."""
    return not current().program.core_role.is_cube


def get_subblockid() -> int:
    """Which vector core of its AI core runs this body (0: AIV0, 1: AIV1); 0 on the cube core
    and in a vector-only kernel, like ``get_subblockid()``."""
    return current().program.core_role.subblock


def get_subblockdim() -> int:
    """The vector cores of this body's AI core that a mixed kernel runs on (2 on a vector core
    of a mixed kernel, else 1), like ``get_subblockdim()``."""
    return current().program.core_role.subblock_dim
