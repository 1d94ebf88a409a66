"""The 950 (a5) vector-function vocabulary shared by every vector plan (vector_isa.md 2.6), and
its timing from the vendor's 950 vector simulator parameters (``timing.vector.vf``).

Every a5 vector instruction body is one ``__VEC_SCOPE__``: loops of register operations on
PIPE_V. ``VectorFunction`` collects its loops of identical intrinsics (``vlds``, ``vadd``,
``vsts`` ...) and ``mem_bar``s in order, and turns them into steps: ``vf_startup``, one step per
loop, a step per ``mem_bar``, ``vf_drain``. Predicates are free on a5 (no count/norm modes).

Timing (docs/timing.md, "950 vector functions"). The hardware runs a vector function as a
pipeline: while one vector is being stored the next ones are loaded and computed, so a loop's
time is not the sum of its intrinsics. Between two ``mem_bar``s (a *segment*) ptosim charges

    segment = depth + bound x (1 - 1/N)

- ``bound``: the busiest resource over the segment: loads over the load ports, stores over the
  store ports, compute ops over the issue ports (each op occupying its port ``ii`` cycles, per
  functional unit; port-0-only ops on one port), all ops over the dispatch width, and a row
  loop's iterations times the minimum loop gap;
- ``depth``: the latency of one vector through the loop body, from the first load to its store
  completing, through the forwarding latencies of the ops on the way;
- ``N``: the vectors the segment stores (the pipeline's trip count): its last vector starts
  ``bound / N`` before the resources are done.

The VF starts its first load ``startup_cycles`` after the call and ends ``drain_cycles`` after
its last op completes. A row loop starts a new iteration where a load or compute op follows a
store. Each loop's step gets the part of the segment up to its own end (the chain depth it has
reached plus its prefix of the busiest resource), at least one cycle, so the trace shows the
loops overlapping as a pipeline does.
"""

from __future__ import annotations

from ptosim.enums import Pipe
from ptosim.plan import Step, StepKind

from ..costs import dtype_name

_MEMBAR = object()


class VectorFunction:
    """The intrinsic loops of one ``__VEC_SCOPE__``, turned into steps by ``steps()``.

    ``dtype``: the element type the loops work on (a DType or its name; ``op(dtype=...)``
    overrides it per loop): the vendor's figures differ by element type for some ops.
    """

    def __init__(self, ctx, dtype=None):
        self.t = ctx.config.timing
        self.vl = self.t.vector.repeat_bytes
        self.dtype = dtype_name(dtype)
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
        dtype=None,
        **args,
    ) -> None:
        """A loop of ``count`` identical ``intrinsic`` calls (nothing when 0)."""
        if count > 0:
            dt = self.dtype if dtype is None else dtype_name(dtype)
            self.items.append(
                (intrinsic, count, label, tuple(reads), tuple(writes), resolve, args, dt)
            )

    def mem_bar(self, kind: str) -> None:
        self.items.append((_MEMBAR, kind))

    def steps(self) -> list[Step]:
        t = self.t
        vf = t.vector.vf
        out = [
            Step(
                Pipe.PIPE_V,
                StepKind.VECTOR,
                vf.startup_cycles,
                "vf_startup",
                data=False,
                args={"intrinsic": "vf_startup", "repeats": 0, "source": vf.source},
            )
        ]
        segment: list = []
        for it in self.items:
            if it[0] is not _MEMBAR:
                segment.append(it)
                continue
            out += self._segment(segment)
            segment = []
            out.append(
                Step(
                    Pipe.PIPE_V,
                    StepKind.BARRIER,
                    t.scalar.barrier_cycles,
                    f"mem_bar({it[1]})",
                    data=False,
                )
            )
        out += self._segment(segment)
        out.append(
            Step(
                Pipe.PIPE_V,
                StepKind.VECTOR,
                vf.drain_cycles,
                "vf_drain",
                args={"intrinsic": "vf_drain", "repeats": 0, "source": vf.source},
            )
        )
        return out

    def _segment(self, items: list) -> list[Step]:
        if not items:
            return []
        vf = self.t.vector.vf
        ends = schedule(vf, [(it[0], it[1], it[7]) for it in items])
        out, at = [], 0
        for it, end in zip(items, ends):
            intrinsic, n, label, reads, writes, resolve, args, dt = it
            cost = vf.op(intrinsic, dt)
            step = Step(
                Pipe.PIPE_V,
                StepKind.VECTOR,
                end - at,
                f"{intrinsic} {label} x{n}",
                bytes=n * self.vl if cost.kind != "compute" else 0,
                reads=reads,
                writes=writes,
                args={"intrinsic": intrinsic, "repeats": n, "source": cost.source, **args},
            )
            at = end
            if resolve is not None:
                step.resolve = _resolver(step, resolve)
            out.append(step)
        return out


def schedule(vf, loops: list[tuple[str, int, str | None]]) -> list[int]:
    """The end of each loop (cycles from the segment's start) of one segment of a vector
    function: ``loops`` = (intrinsic, count, dtype) in program order (see the module doc)."""
    loads = stores = compute = total = exu0 = 0
    unit = {"alu": 0, "sfu": 0}
    rows, after_store = 1, False
    in_first_row = True
    compute_at = store_at = 0  # when the value the chain carries is usable (first row)
    depth = 0
    prefix: list[tuple[int, float]] = []  # (chain depth reached, bound so far) per loop
    stored = 0
    for name, n, dt in loops:
        c = vf.op(name, dt)
        if after_store and c.kind != "store":
            rows += 1
            in_first_row = False
        after_store = c.kind == "store"
        total += n
        if c.kind == "load":
            loads += n
        elif c.kind == "store":
            stores += n
            stored += n
        else:
            compute += n
            unit[c.unit] += n * c.ii
            if c.ports == 1:
                exu0 += n * c.ii
        if in_first_row:  # one vector through the body: forwarding latencies
            if c.kind == "load":
                compute_at = max(compute_at, c.fwd - 1)
                store_at = max(store_at, c.latency)
                depth = max(depth, c.latency)
            elif c.kind == "compute":
                start = compute_at
                compute_at, store_at = start + max(c.fwd - 1, 0), start + c.drain
                depth = max(depth, start + c.latency)
            else:
                depth = max(depth, store_at + c.latency)
        bound = max(
            loads / vf.load_ports,
            stores / vf.store_ports,
            unit["alu"] / vf.issue_ports,
            unit["sfu"] / vf.issue_ports,
            exu0,
            compute / vf.issue_ports,
            total / vf.dispatch_width,
            (rows - 1) * vf.loop_gap_cycles,
        )
        prefix.append((depth, bound))
    trips = max(stored, 1) if stores else max(n for _, n, _ in loops)
    share = 1.0 - 1.0 / trips
    ends, at = [], 0
    for d, b in prefix:
        at = max(at + 1, int(d + b * share + 0.5))
        ends.append(at)
    return ends


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
