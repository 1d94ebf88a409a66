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
that hold most of it and the hand-offs (waits) between pipes.
"""

from __future__ import annotations

import bisect
import io
from collections import defaultdict
from dataclasses import dataclass

from .trace import TraceEvent, lane_id


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
            path.append(PathSegment(cur.core, "PIPE_S", -1, "instruction issue", 0, t, "issued by"))
            break
        cur, via = (issuer, "issued by") if issuer is not None else (prev, "after")
    return path


def _kind_rows(result) -> list[tuple[str, int, int, int]]:
    """(opcode, count, summed span cycles, bytes) per instruction kind, largest span first."""
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for s in result.instructions:
        if s.start is None:
            continue
        r = rows[s.instr.opcode]
        r[0] += 1
        r[1] += max(s.end - s.start, 0)
        r[2] += s.bytes
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
    if result.trace.stopped is not None:
        out.write(f"stopped early: {result.trace.stopped}\n")
    busy = sorted(result.pipe_busy.items(), key=lambda kv: lane_id(kv[0]))
    out.write("pipe busy (cycles, all cores): " + ", ".join(f"{k}={v}" for k, v in busy if v))
    out.write("\n")
    _write_chip(out, result, ghz)
    kinds = _kind_rows(result)
    if kinds:
        out.write("by instruction kind (count, summed span, bytes, bandwidth over the span):\n")
        for opcode, count, cycles, nbytes in kinds:
            out.write(
                f"  {opcode:<18} x{count:<6} {cycles:>10} cycles {nbytes:>11} B "
                f"{_gbps(nbytes, cycles, ghz)}\n"
            )
    lines = _line_rows(result)
    if len(lines) > 1:
        out.write(f"by source line (top {min(top, len(lines))} by summed span):\n")
        for src, opcodes, count, cycles in lines[:top]:
            out.write(f"  {src:<32} {opcodes:<18} x{count:<6} {cycles:>10} cycles\n")
    if per_instruction:
        out.write("per instruction (core, span, bytes):\n")
        for s in result.instructions:
            if s.start is None:
                continue
            span = max(s.end - s.start, 0)
            out.write(
                f"  {s.instr.label:<18} {s.start:>9}..{s.end:<9} {span:>8} cycles "
                f"{s.bytes:>9} B {_gbps(s.bytes, span, ghz)} {s.instr.source or ''}\n"
            )
    path = critical_path(result)
    if path:
        _write_path(out, path, top)
    if result.findings:
        out.write(f"findings ({len(result.findings)}):\n")
        for f in result.findings:
            out.write(f"  - {f}\n")
    else:
        out.write("findings: none\n")
    return out.getvalue().rstrip("\n")


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
