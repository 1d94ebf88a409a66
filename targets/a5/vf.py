"""The 950 (a5) vector-function vocabulary shared by every vector plan (vector_isa.md 2.6).

Every a5 vector instruction body is one ``__VEC_SCOPE__``: a loop of register operations on
PIPE_V. ``VectorFunction`` collects its loops of identical intrinsics (``vlds``, ``vadd``,
``vsts`` ...) and ``mem_bar``s in order, and turns them into steps: a ``vf_startup`` step first,
one step per loop (``head + slope * n``, plus ``tail`` where the vector stream drains: the last
intrinsic of the scope and the stores before a ``mem_bar``), a ``vf_drain`` step last. Costs
come from ``timing.vector.ops`` of the device config (the 950 per-intrinsic startup, latency
and throughput facts). Predicates are free on a5 (no count/norm mask modes).
"""

from __future__ import annotations

from ptosim.enums import Pipe
from ptosim.plan import Step, StepKind

from ..costs import vector_cycles

_MEMBAR = object()
_MEMORY = ("vlds", "vsts", "vbr", "vscatter")  # intrinsics that move data between UB and registers


class VectorFunction:
    """The intrinsic loops of one ``__VEC_SCOPE__``, turned into steps by ``steps()``."""

    def __init__(self, ctx):
        self.t = ctx.config.timing
        self.vl = self.t.vector.repeat_bytes
        self.items: list = []

    def op(
        self,
        intrinsic: str,
        count: int,
        label: str,
        *,
        reads=(),
        writes=(),
        resolve=None,
        **args,
    ) -> None:
        """A loop of ``count`` identical ``intrinsic`` calls (nothing when 0)."""
        if count > 0:
            self.items.append((intrinsic, count, label, tuple(reads), tuple(writes), resolve, args))

    def mem_bar(self, kind: str) -> None:
        self.items.append((_MEMBAR, kind))

    def steps(self) -> list[Step]:
        t = self.t
        out = [
            Step(
                Pipe.PIPE_V,
                StepKind.VECTOR,
                vector_cycles(t, "vf_startup", 0),
                "vf_startup",
                data=False,
                args={"intrinsic": "vf_startup", "repeats": 0},
            )
        ]
        items = self.items
        costs: dict[tuple, int] = {}  # (intrinsic, count, drains) -> cycles: loops repeat per row
        last = max((k for k, it in enumerate(items) if it[0] is not _MEMBAR), default=-1)
        for k, it in enumerate(items):
            if it[0] is _MEMBAR:
                out.append(
                    Step(
                        Pipe.PIPE_V,
                        StepKind.BARRIER,
                        t.scalar.barrier_cycles,
                        f"mem_bar({it[1]})",
                        data=False,
                    )
                )
                continue
            intrinsic, n, label, reads, writes, resolve, args = it
            drains = k == last or (k + 1 < len(items) and items[k + 1][0] is _MEMBAR)
            key = (intrinsic, n, drains)
            cycles = costs.get(key)
            if cycles is None:
                cycles = costs[key] = vector_cycles(t, intrinsic, n, last=drains)
            step = Step(
                Pipe.PIPE_V,
                StepKind.VECTOR,
                cycles,
                f"{intrinsic} {label} x{n}",
                bytes=n * self.vl if intrinsic in _MEMORY else 0,
                reads=reads,
                writes=writes,
                args={"intrinsic": intrinsic, "repeats": n, **args},
            )
            if resolve is not None:
                step.resolve = _resolver(step, resolve)
            out.append(step)
        out.append(
            Step(
                Pipe.PIPE_V,
                StepKind.VECTOR,
                vector_cycles(t, "vf_drain", 0),
                "vf_drain",
                args={"intrinsic": "vf_drain", "repeats": 0},
            )
        )
        return out


def _resolver(step: Step, fill):
    """A Step.resolve that completes ``step`` (its write regions) from memory at its start."""

    def resolve(ctx) -> Step:
        return Step(
            step.pipe,
            step.kind,
            step.cycles,
            step.label,
            bytes=step.bytes,
            reads=step.reads,
            writes=fill(ctx),
            args=step.args,
        )

    return resolve
