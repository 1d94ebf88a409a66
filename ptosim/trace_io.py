"""Writers for timed runs: Chrome Trace Event JSON (Perfetto, chrome://tracing) and the
per-core, per-pipe summary CSV (the text summary is ptosim.summary).

Time unit: one trace microsecond is one device cycle (the JSON metadata says so), so the
viewer's time axis reads in cycles.
"""

from __future__ import annotations

import csv
import json

from . import sources
from .trace import lane_id


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    try:
        return value.item()  # numpy scalar
    except AttributeError:
        return str(value)


def _core_label(result, core: int) -> str:
    """``core 3`` (a vector-only launch) or ``block 1 AIC`` / ``block 1 AIV0`` (one trace
    process per core of an AI core)."""
    if 0 <= core < len(result.blocks):
        role = result.blocks[core].role
        where = result.trace.waves.get(role.block)
        if where is None:
            return role.label
        return f"{role.label} (wave {where.wave} on core {where.core})"  # engine/waves.py
    return f"core {core}"


def chrome_trace(result) -> dict:
    """The Chrome Trace Event JSON object of a timed RunResult."""
    trace = result.trace
    events: list[dict] = []
    cores = sorted({c for c, _ in result.pipes} | {e.core for e in trace.events})
    threads = sorted(
        {(e.core, e.pipe) for e in trace.events} | set(result.pipes),
        key=lambda cp: (cp[0], lane_id(cp[1])),
    )
    for core in cores:
        events.append(
            {
                "name": "process_name",
                "ph": "M",
                "pid": core,
                "tid": 0,
                "args": {"name": f"{_core_label(result, core)} ({result.device})"},
            }
        )
        events.append(
            {
                "name": "process_sort_index",
                "ph": "M",
                "pid": core,
                "tid": 0,
                "args": {"sort_index": core},
            }
        )
    for core, pipe in threads:
        events.append(
            {
                "name": "thread_name",
                "ph": "M",
                "pid": core,
                "tid": lane_id(pipe),
                "args": {"name": pipe},
            }
        )
        events.append(
            {
                "name": "thread_sort_index",
                "ph": "M",
                "pid": core,
                "tid": lane_id(pipe),
                "args": {"sort_index": lane_id(pipe)},
            }
        )
    # each slice names its kernel source line (a C++ kernel's file:line too)
    sources = {
        (core, i.position): i.source
        for core, block in enumerate(result.blocks)
        for i in block.program.instructions
        if i.source
    }
    for e in trace.events:
        args = {"instruction": f"{e.opcode} #{e.instr}", "bytes": e.bytes}
        if (e.core, e.instr) in sources:
            args["source"] = sources[(e.core, e.instr)]
        args.update(_jsonable(e.args))
        events.append(
            {
                "name": e.name,
                "cat": e.kind,
                "ph": "X",
                "ts": e.start,
                "dur": e.dur,
                "pid": e.core,
                "tid": lane_id(e.pipe),
                "args": args,
            }
        )
    for w in trace.waits:
        events.append(
            {
                "name": f"stall: {w.what}",
                "cat": "stall",
                "ph": "X",
                "ts": w.start,
                "dur": w.end - w.start,
                "pid": w.core,
                "tid": lane_id(w.pipe),
                "args": {"instruction": f"{w.opcode} #{w.instr}", "released_by": w.released_by},
            }
        )
    for n, f in enumerate(trace.flows):
        if f.set_core >= 0:  # a cross-core round: from the post that completed it
            name = f"ffts_cross_core_sync flag {f.key[2]}: core {f.set_core} -> core {f.core}"
        else:
            name = f"flag {f.key[0]}->{f.key[1]} EVENT_ID{f.key[2]}"
        events.append(
            {
                "name": name,
                "cat": "flag",
                "ph": "s",
                "id": n,
                "ts": f.set_time,
                "pid": f.source_core,
                "tid": lane_id(f.set_pipe),
            }
        )
        events.append(
            {
                "name": name,
                "cat": "flag",
                "ph": "f",
                "bp": "e",
                "id": n,
                "ts": f.wait_time,
                "pid": f.core,
                "tid": lane_id(f.wait_pipe),
            }
        )
    events += chip_events(result, cores)
    events += finding_events(trace.findings, first_flow_id=len(trace.flows))
    other = {
        "generator": "ptosim",
        "time_unit": "1 trace microsecond = 1 device cycle",
        "device": result.device,
        "kernel": result.program.kernel_name,
        "cycles": result.cycles,
        "config": result.config.model_dump(mode="json"),
    }
    if trace.stopped is not None:  # a deadlocked run: the trace ends at the stuck state
        other["deadlock"] = trace.stopped
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other}


CHIP_LANE = "GM (chip)"


def chip_events(result, cores: list[int]) -> list[dict]:
    """The chip-level lane: GM bytes per cycle booked in each stretch of time (all cores), as
    slices of a ``chip`` process after the cores."""
    chip = getattr(result.trace, "chip", None)
    if chip is None or not chip.traffic:
        return []
    pid = (max(cores) + 1) if cores else 0
    tid = lane_id(CHIP_LANE)
    events = [
        {"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "chip"}},
        {
            "name": "process_sort_index",
            "ph": "M",
            "pid": pid,
            "tid": 0,
            "args": {"sort_index": pid},
        },
        {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": CHIP_LANE}},
    ]
    limit = chip.cfg.gm_bw_bytes_per_cycle
    for start, cycles, nbytes in chip.lane_runs():
        rate = nbytes / cycles
        events.append(
            {
                "name": f"GM {rate:.0f} B/cycle",
                "cat": "chip",
                "ph": "X",
                "ts": start,
                "dur": cycles,
                "pid": pid,
                "tid": tid,
                "args": {
                    "instruction": "chip GM traffic (all cores)",
                    "bytes": round(nbytes),
                    "bytes_per_cycle": round(rate, 3),
                    "limit_bytes_per_cycle": limit,
                },
            }
        )
    return events


def finding_events(marks, first_flow_id: int) -> list[dict]:
    """Per finding: an instant event on the pipe thread of each side (args: code, kind,
    message, fix, the instruction, the finding's index) and, when it has several sides, one
    flow arrow through them in time order (ids after the flag flows', category "finding")."""
    events: list[dict] = []
    flow_id = first_flow_id
    for n, mark in enumerate(marks):
        f = mark.finding
        fid = flow_id if len(mark.sides) > 1 else None
        flow_id += fid is not None
        for k, side in enumerate(mark.sides):
            where = {"ts": side.time, "pid": side.core, "tid": lane_id(side.pipe)}
            events.append(
                {
                    "name": f"{f.code} {f.kind}",
                    "cat": "finding",
                    "ph": "i",
                    "s": "t",
                    **where,
                    "args": {
                        "code": f.code,
                        "kind": f.kind,
                        "message": f.message,
                        "fix": _jsonable(getattr(f, "fix", None)),
                        "instruction": side.label,
                        "finding": n,
                        "flow": fid,
                    },
                }
            )
            if fid is not None:
                phase = "s" if k == 0 else ("f" if k == len(mark.sides) - 1 else "t")
                flow = {"name": f"{f.code} {f.kind}", "cat": "finding", "ph": phase, "id": fid}
                if phase != "s":
                    flow["bp"] = "e"  # bind to the slice around the side, not the next one
                events.append({**flow, **where})
    return events


def write_chrome_trace(result, path) -> None:
    with open(path, "w") as fh:
        json.dump(chrome_trace(result), fh, separators=(",", ":"), sort_keys=True)


def summary_rows(result) -> list[dict]:
    """One row per core x pipe: busy, stall and active cycles, GM bandwidth, and the source
    kinds of the busy cycles."""
    stalls: dict = {}
    for w in result.trace.waits:
        stalls[(w.core, w.pipe)] = stalls.get((w.core, w.pipe), 0) + (w.end - w.start)
    gm_bytes: dict = {}
    for e in result.trace.events:
        if e.kind == "dma" and "gm" in e.args:
            gm_bytes[(e.core, e.pipe)] = gm_bytes.get((e.core, e.pipe), 0) + e.bytes
    chip = getattr(result.trace, "chip", None)
    cycles = result.cycles or 0
    core_bytes = {c: t.bytes for c, t in chip.traffic.items()} if chip is not None else {}
    chip_rate = chip.achieved(cycles)["run"] if chip is not None else 0.0
    ghz = result.config.timing.clock_ghz
    mixes = sources.by_pipe(result)
    rows = []
    for (core, pipe), ps in sorted(
        result.pipes.items(), key=lambda kv: (kv[0][0], lane_id(kv[0][1]))
    ):
        active = 0 if ps.first is None else ps.last - ps.first
        core_rate = core_bytes.get(core, 0) / cycles if cycles else 0.0
        rows.append(
            {
                "core": core,
                "pipe": pipe,
                "busy_cycles": ps.busy_cycles,
                "stall_cycles": stalls.get((core, pipe), 0),
                "active_cycles": active,
                "first_cycle": "" if ps.first is None else ps.first,
                "last_cycle": "" if ps.first is None else ps.last,
                "utilisation": f"{ps.busy_cycles / result.cycles:.4f}" if result.cycles else "0",
                # achieved GM bandwidth over the run: this pipe's DMAs, the core, the chip
                "gm_bytes": gm_bytes.get((core, pipe), 0),
                "core_gm_bytes_per_cycle": f"{core_rate:.3f}",
                "chip_gm_bytes_per_cycle": f"{chip_rate:.3f}",
                # the same per simulated second at the device's clock (comparable across devices)
                "core_gm_gbps": f"{core_rate * ghz:.3f}",
                "chip_gm_gbps": f"{chip_rate * ghz:.3f}",
                # where this pipe's busy cycles come from (ptosim/sources.py)
                "timing_source": sources.label(mixes.get((core, pipe), {})),
            }
        )
    return rows


def write_summary_csv(result, path) -> None:
    rows = summary_rows(result)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
