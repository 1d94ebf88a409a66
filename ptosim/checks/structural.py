"""The structural step list of an untimed (cpu) run, for the happens-before analysis.

The cpu target has no plans and no timing, but a kernel's synchronisation is a property of its
structure: which pipe each instruction is issued to and which bytes it touches. Each instruction
becomes one step on its *nominal* pipe (the pipe of the library's ``Event<SrcOp, DstOp>``
table: TLOAD -> MTE2, TSTORE -> MTE3, vector work, MGATHER and MSCATTER -> V, GM -> L1 MGATHER
-> MTE2; TASSIGN is a scalar register write and touches nothing), reading and writing the whole
tiles and the whole GlobalTensor extents of its operands. set_flag / wait_flag / pipe_barrier are
the same steps a timed target plans. No library-internal flag chain is modelled, so the cpu
verdict is the portable one: a kernel clean on cpu is ordered by its own flags on every target.
For the same reason a step is atomic (``Step.atomic``) only where every timed target performs
the form atomically: not an Elem MSCATTER, which a2a3 runs as a scalar read-add-write through
its data cache.
"""

from __future__ import annotations

from ..enums import Coalesce, Pipe
from ..footprint import gm_regions, view_runs
from ..isa.data import TAssign
from ..isa.sync import FftsCrossCoreSync, PipeBarrier, SetFlag, WaitFlag, WaitFlagDev
from ..memory import SPACE_OF_LOC
from ..plan import (
    Region,
    Step,
    StepKind,
    cross_set_step,
    cross_wait_step,
    set_flag_step,
    wait_flag_step,
)  # fmt: skip
from ..tensors import GmRef, TileRef


def _region(value) -> tuple[Region, ...]:
    if isinstance(value, TileRef):
        space = SPACE_OF_LOC[value.loc]
        return (Region(space, value.address, value.address + value.size_bytes),)
    if isinstance(value, GmRef):
        # the exact bytes of a strided view (footprint.py), not its bounding range
        base = value.byte_address(0)
        if value.dtype.packed:  # fp4 moved nibble by nibble (isa/data.py): element k in byte k//2
            runs: list[tuple[int, int]] = []
            for lo, hi in view_runs(0, value.offset, value.shape, value.stride, 1):
                lo, hi = base + lo // 2, base + (hi + 1) // 2  # [lo, hi) nibbles -> bytes
                if runs and lo <= runs[-1][1]:  # two runs sharing a byte are one
                    runs[-1] = (runs[-1][0], max(hi, runs[-1][1]))
                else:
                    runs.append((lo, hi))
            return gm_regions(runs)
        return gm_regions(
            view_runs(base, value.offset, value.shape, value.stride, value.dtype.size_bytes)
        )
    return ()


def operand_regions(instr, names) -> tuple[Region, ...]:
    """The bytes the operands ``names`` of ``instr`` cover (whole tiles, exact GM views)."""
    out = []
    for name in dict.fromkeys(names):
        out += [r for r in _region(getattr(instr, name, None)) if r.end > r.start]
    return tuple(out)


def _portable_atomic(instr) -> str | None:
    """The step's atomic op: the instruction's, unless a timed target runs its form as plain
    accesses (an Elem MSCATTER on a2a3: a scalar read-add-write through the data cache)."""
    if getattr(instr, "coalesce", None) is Coalesce.Elem:
        return None
    return instr.atomic_op


def structural_issued(program, settled=None) -> list[list]:
    """[step, instruction] pairs in program order (PIPE_S issues in program order).
    ``settled(instr)``: the instruction's lowering ends with pipe_barrier(PIPE_V) (its vector
    results are complete when it ends), so a barrier step follows it."""
    issued: list[list] = []
    for instr in program:
        if isinstance(instr, SetFlag):
            step = set_flag_step(instr.src, instr.dst, instr.event_id, 0, instr.describe())
        elif isinstance(instr, WaitFlag):
            step = wait_flag_step(instr.src, instr.dst, instr.event_id, 0, instr.describe())
        elif isinstance(instr, PipeBarrier):
            step = Step(instr.pipe, StepKind.BARRIER, 0, f"pipe_barrier({instr.pipe.name})")
        elif isinstance(instr, FftsCrossCoreSync):
            step = cross_set_step(instr, 0)
        elif isinstance(instr, WaitFlagDev):
            step = cross_wait_step(instr, 0)
        elif isinstance(instr, TAssign):
            continue
        else:
            step = Step(
                instr.nominal_pipe,
                StepKind.SCALAR,
                0,
                instr.opcode,
                reads=operand_regions(instr, instr.reads),
                writes=operand_regions(instr, instr.writes),
                atomic=_portable_atomic(instr),
            )
        issued.append([step, instr])
        if settled is not None and step.pipe is Pipe.PIPE_V and settled(instr):
            issued.append([Step(Pipe.PIPE_V, StepKind.BARRIER, 0, "pipe_barrier(PIPE_V)"), instr])
    return issued
