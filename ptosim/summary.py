"""The text summary of a timed run, sized for long kernels: totals, aggregates by instruction
kind and by source line, the critical path, and the findings.

The per-instruction view (one line per executed instruction) is behind ``per_instruction=True``
(``ptosim run --per-instruction``): a 10,000-iteration loop would otherwise print 50,000 lines.

The critical path is computed for real: starting from the step that ends last, each step is
explained by what made it start when it did, walking backwards to cycle 0:

- the pipe was blocked in a ``wait_flag`` that ended at the step's start: the path continues at
  the ``set_flag`` that released it (on its own pipe, maybe another core's);
- the previous step of the same pipe ended exactly then: the path continues there (the pipe was
  busy);
- otherwise the step was issued late by the scalar pipe: the path continues at the PIPE_S step
  that ended at or before the start (issue order).

The path's cycles are attributed to the instructions on it; the summary lists the instructions
that hold most of it and the hand-offs (waits) between pipes. The pipe that holds the largest
share of the path is the run's *bounding pipe*: the work to shorten (or overlap) first.

Every figure says where it comes from: a "timing basis" line gives the share of the critical
path resting on hardware-fitted, vendor-model, public-figure and estimated costs (ptosim/
sources.py), and each instruction kind's row its own mix. Bandwidths are GM bytes (DMA, SIMT and
scalar GM accesses; not UB->UB copies or vector-register loads) per simulated second at the
device's clock, so they compare across devices.
"""

from __future__ import annotations

import bisect
import io
from collections import defaultdict
from dataclasses import dataclass

from . import sources
from .trace import TraceEvent, lane_id
from .traffic import gm_bytes


@dataclass(frozen=True)
class PathSegment:
    """A stretch of the critical path on one pipe: [start, end) inside one instruction."""

    core: int
    pipe: str
    instr: int  # kernel position
    label: str
    start: int
    end: int
    via: str  # how the path entered this segment from the previous (later) one
    source: str | None = None  # the source kind of the cost behind it (ptosim/sources.py)


def _by_lane(events: list[TraceEvent]) -> dict[tuple[int, str], list[TraceEvent]]:
    lanes: dict[tuple[int, str], list[TraceEvent]] = defaultdict(list)
    for e in events:
        if not e.pipe.startswith("SIMT_SCHED"):
            lanes[(e.core, e.pipe)].append(e)
    for evs in lanes.values():  # one pipe runs one step at a time: start order = end order
        evs.sort(key=lambda e: (e.start, e.start + e.dur))
    return lanes


def _ending_at_or_before(evs: list[TraceEvent], ends: list[int], t: int) -> TraceEvent | None:
    k = bisect.bisect_right(ends, t)
    return evs[k - 1] if k else None


def _started_at_or_before(evs: list[TraceEvent], starts: list[int], t: int):
    k = bisect.bisect_right(starts, t)
    return evs[k - 1] if k else None


def critical_path(result) -> list[PathSegment]:
    """The chain of steps and hand-offs that determines the run's end, latest first."""
    trace = result.trace
    lanes = _by_lane(trace.events)
    if not lanes:
        return []
    ends = {k: [e.start + e.dur for e in evs] for k, evs in lanes.items()}
    starts = {k: [e.start for e in evs] for k, evs in lanes.items()}
    # a wait that ended at t on (core, pipe) -> the flow that released it
    released = {(f.core, f.wait_pipe, f.wait_time): f for f in trace.flows}
    blocked = {(w.core, w.pipe, w.end): w for w in trace.waits}
    # per core: the blocks' programs differ, so do the labels of one position
    labels = {
        (core, i.position): i.label for core, b in enumerate(result.blocks) for i in b.program
    }
    last = max(
        (evs[-1] for evs in lanes.values()), key=lambda e: (e.start + e.dur, -e.core, e.pipe)
    )
    path: list[PathSegment] = []
    cur, via, seen = last, "ends the run", 0
    cfg = result.config
    while cur is not None and seen < 1_000_000:
        seen += 1
        lane = (cur.core, cur.pipe)
        path.append(
            PathSegment(
                cur.core,
                cur.pipe,
                cur.instr,
                labels.get((cur.core, cur.instr), cur.opcode),
                cur.start,
                cur.start + cur.dur,
                via,
                sources.event_source(cfg, cur),
            )
        )
        t = cur.start
        if t <= 0:
            break
        wait = blocked.get((cur.core, cur.pipe, t))
        flow = released.get((cur.core, cur.pipe, t))
        if wait is not None and flow is not None:
            src = (flow.source_core, flow.set_pipe)  # another core for a cross-core round
            if src in lanes:  # the set_flag step that posted (it starts at the post time)
                cur = _started_at_or_before(lanes[src], starts[src], flow.set_time)
                via = f"waited {wait.end - wait.start} cycles in {wait.what}, released by"
                continue
        prev = _ending_at_or_before(lanes[lane], ends[lane], t)
        if prev is not None and prev.start + prev.dur == t:
            cur, via = prev, "after"
            continue
        s_lane = (cur.core, "PIPE_S")
        issuer = None
        if cur.pipe != "PIPE_S" and s_lane in lanes:
            issuer = _ending_at_or_before(lanes[s_lane], ends[s_lane], t)
        if issuer is None and prev is None:  # only the scalar pipe's issue slots came before
            path.append(
                PathSegment(
                    cur.core, "PIPE_S", -1, "instruction issue", 0, t, "issued by",
                    cfg.timing.scalar.control_source,
                )
            )  # fmt: skip
            break
        cur, via = (issuer, "issued by") if issuer is not None else (prev, "after")
    return path


# the names the busy ratios give each core kind (ptosim/cores.py kinds)
_KIND_NAMES = {"aic": "AIC", "aiv": "AIV", "vec": "vector core"}


def busy_ratios(result) -> list[tuple[str, int, list[tuple[str, float]]]]:
    """Per core kind: (name, cores, [(pipe, busy cycles / (cores x run cycles))]), the share of
    the run each engine worked, as hardware profiles report it (which engine limits a GEMM)."""
    total = result.cycles
    if not total:
        return []
    kinds: dict[str, list[int]] = {}
    for core, block in enumerate(result.blocks):
        kinds.setdefault(block.role.kind, []).append(core)
    out = []
    for kind, cores in kinds.items():
        mine = set(cores)
        busy: dict[str, int] = {}
        for (core, name), ps in result.pipes.items():
            if core in mine and not name.startswith("SIMT_SCHED"):
                busy[name] = busy.get(name, 0) + ps.busy_cycles
        rows = [(p, b / (len(cores) * total)) for p, b in busy.items() if b and p != "PIPE_S"]
        rows.sort(key=lambda r: -r[1])
        out.append((_KIND_NAMES.get(kind, kind), len(cores), rows))
    return out


def _write_busy_ratios(out, result) -> None:
    """The busy ratios of a launch with cube cores (a vector-only run's busy line says it)."""
    if not any(b.role.kind == "aic" for b in result.blocks):
        return
    for name, n, rows in busy_ratios(result):
        if rows:
            shown = ", ".join(f"{p} {100 * r:.1f}%" for p, r in rows)
            out.write(f"pipe busy ratio, {name} ({n} core{'s' * (n > 1)}): {shown}\n")


def _kind_rows(result) -> list[tuple[str, int, int, int]]:
    """(opcode, count, summed span cycles, GM bytes) per instruction kind, largest span first."""
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for s in result.instructions:
        if s.start is None:
            continue
        r = rows[s.instr.opcode]
        r[0] += 1
        r[1] += max(s.end - s.start, 0)
    for e in sources.pipe_events(result):
        n = gm_bytes(e)
        if n:
            rows[e.opcode][2] += n
    return sorted(((k, *v) for k, v in rows.items()), key=lambda r: (-r[2], r[0]))


def _line_rows(result) -> list[tuple[str, str, int, int]]:
    """(source line, opcodes, count, summed span cycles) per source line."""
    rows: dict[str, list] = {}
    for s in result.instructions:
        if s.start is None:
            continue
        key = s.instr.source or "?"
        r = rows.setdefault(key, [set(), 0, 0])
        r[0].add(s.instr.opcode)
        r[1] += 1
        r[2] += max(s.end - s.start, 0)
    return sorted(
        ((k, ",".join(sorted(v[0])), v[1], v[2]) for k, v in rows.items()),
        key=lambda r: (-r[3], r[0]),
    )


def _gbps(nbytes: int, cycles: int, ghz: float) -> str:
    return f"{nbytes / cycles * ghz:8.2f} GB/s" if nbytes and cycles else " " * 13


def text_summary(result, top: int = 5, *, per_instruction: bool = False) -> str:
    """The summary of a timed run (see the module docstring)."""
    cfg = result.config
    ghz = cfg.timing.clock_ghz
    out = io.StringIO()
    p = result.program
    n_cores = len(result.blocks)
    cores = "core 0" if n_cores == 1 else f"cores 0-{n_cores - 1}"
    out.write(
        f"device {result.device} (target {cfg.target}, {ghz} GHz), kernel "
        f"{p.kernel_name}, {n_cores} block(s) on {cores}\n"
    )
    out.write(f"total: {result.cycles} cycles = {result.cycles / ghz / 1000:.3f} us\n")
    waves = result.trace.waves
    if waves:  # engine/waves.py
        n_waves = max(p.wave for p in waves.values())
        used = len({p.core for p in waves.values()})
        out.write(
            f"waves: {n_waves} on {used} cores (a block past the device's cores starts on the "
            "first core that frees up)\n"
        )
    path = critical_path(result)
    out.write(sources.basis_line(result, path_sources(path)) + "\n")
    bound = bounding_pipe(path)
    if bound is not None:
        core, pipe, share, opcodes = bound
        where = pipe if n_cores == 1 else f"{pipe} (core {core})"
        out.write(
            f"bounded by {where}: {100 * share:.0f}% of the critical path ({', '.join(opcodes)})\n"
        )
    if result.trace.stopped is not None:
        out.write(f"stopped early: {result.trace.stopped}\n")
    busy = sorted(result.pipe_busy.items(), key=lambda kv: lane_id(kv[0]))
    out.write("pipe busy (cycles, all cores): " + ", ".join(f"{k}={v}" for k, v in busy if v))
    out.write("\n")
    _write_busy_ratios(out, result)
    _write_chip(out, result, ghz)
    kinds = _kind_rows(result)
    mixes = sources.by_opcode(result)
    if kinds:
        out.write(
            "by instruction kind (count, summed span, GM bytes, GM bandwidth over the span, "
            "timing source):\n"
        )
        for opcode, count, cycles, nbytes in kinds:
            out.write(
                f"  {opcode:<18} x{count:<6} {cycles:>10} cycles {nbytes:>11} B "
                f"{_gbps(nbytes, cycles, ghz)} {sources.label(mixes.get(opcode, {}))}\n"
            )
    lines = _line_rows(result)
    if len(lines) > 1:
        out.write(f"by source line (top {min(top, len(lines))} by summed span):\n")
        for src, opcodes, count, cycles in lines[:top]:
            out.write(f"  {src:<32} {opcodes:<18} x{count:<6} {cycles:>10} cycles\n")
    if per_instruction:
        out.write("per instruction (core, span, bytes it touches):\n")
        for s in result.instructions:
            if s.start is None:
                continue
            span = max(s.end - s.start, 0)
            out.write(
                f"  {s.instr.label:<18} {s.start:>9}..{s.end:<9} {span:>8} cycles "
                f"{s.bytes:>9} B {_gbps(s.bytes, span, ghz)} {s.instr.source or ''}\n"
            )
    if path:
        _write_path(out, path, top)
    if result.findings:
        out.write(f"findings ({len(result.findings)}):\n")
        for f in result.findings:
            out.write(f"  - {f}\n")
    else:
        out.write("findings: none\n")
    return out.getvalue().rstrip("\n")


def path_sources(path: list[PathSegment]) -> dict[str, int]:
    """Critical-path cycles per source kind."""
    out: dict[str, int] = defaultdict(int)
    for seg in path:
        if seg.source is not None and seg.end > seg.start:
            out[seg.source] += seg.end - seg.start
    return dict(out)


def bounding_pipe(path: list[PathSegment]) -> tuple[int, str, float, list[str]] | None:
    """(core, pipe, share of the critical path, its instruction kinds by cycles) of the pipe
    holding the largest share of the critical path; None for an empty path."""
    if not path:
        return None
    total = path[0].end - path[-1].start
    held: dict[tuple[int, str], int] = defaultdict(int)
    kinds: dict[tuple[int, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for seg in path:
        n = seg.end - seg.start
        held[(seg.core, seg.pipe)] += n
        kinds[(seg.core, seg.pipe)][seg.label.split(" #")[0]] += n
    (core, pipe), cycles = max(held.items(), key=lambda kv: (kv[1], -kv[0][0], kv[0][1]))
    ops = sorted(kinds[(core, pipe)].items(), key=lambda kv: (-kv[1], kv[0]))
    main = [k for k, v in ops[:3] if v >= 0.05 * cycles] or [ops[0][0]]
    return core, pipe, (cycles / total if total else 0.0), main


def _write_chip(out, result, ghz: float, top: int = 8) -> None:
    """Chip-level and per-core achieved GM bandwidth (the shared memory system, engine/chip),
    for multi-core launches (one core's bandwidth is the per-kind lines below)."""
    chip = getattr(result.trace, "chip", None)
    if chip is None or len(result.blocks) < 2 or not chip.traffic:
        return
    a = chip.achieved(result.cycles)
    out.write(
        f"chip GM: {a['bytes']} B, achieved {a['run']:.1f} B/cycle over the run "
        f"({a['run'] * ghz:.2f} GB/s), {a['span']:.1f} B/cycle while GM was in use, "
        f"peak window {a['peak_window']:.1f} B/cycle; limit {a['limit']:.1f} B/cycle "
        f"({a['limit'] * ghz:.2f} GB/s)\n"
    )
    rows = sorted(chip.traffic.items())
    out.write("per core GM (bytes, B/cycle over the run, transfers throttled / serialised):\n")
    shown = rows if len(rows) <= top else rows[: top - 1] + rows[-1:]
    for core, t in shown:
        if len(rows) > top and core == rows[-1][0]:
            out.write(f"  ... {len(rows) - top} more core(s)\n")
        rate = t.bytes / result.cycles if result.cycles else 0.0
        out.write(
            f"  core {core:<3} {t.bytes:>11} B {rate:8.1f} B/cycle ({rate * ghz:.2f} GB/s) "
            f"{t.throttled} / {t.serialised}\n"
        )


def _write_path(out, path: list[PathSegment], top: int) -> None:
    """The instructions holding most of the critical path, then its latest hand-offs."""
    held: dict[tuple[int, str, str], int] = defaultdict(int)
    for seg in path:
        held[(seg.core, seg.pipe, seg.label)] += seg.end - seg.start
    total = path[0].end - path[-1].start
    out.write(
        f"critical path ({len(path)} steps, cycles {path[-1].start}..{path[0].end}); "
        "most of it in:\n"
    )
    for (core, pipe, label), cycles in sorted(held.items(), key=lambda kv: -kv[1])[:top]:
        share = 100.0 * cycles / total if total else 0.0
        out.write(f"  core {core} {pipe:<10} {label:<18} {cycles:>9} cycles ({share:4.1f}%)\n")
    handoffs = [k for k, s in enumerate(path) if k and s.via not in ("after", "ends the run")]
    if handoffs:
        out.write("latest hand-offs on it:\n")
        for k in handoffs[:top]:
            later, seg = path[k - 1], path[k]
            where = seg.pipe if seg.core == later.core else f"core {seg.core} {seg.pipe}"
            out.write(
                f"  core {later.core} {later.pipe:<10} {later.label} {seg.via} "
                f"{seg.label} on {where} (cycle {seg.end})\n"
            )
