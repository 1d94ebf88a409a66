"""Where a run's cycles come from: the source kind of every timed step (DESIGN.md "Confidence
is data").

Each cost entry of a device config carries its source kind: ``hardware-fitted`` (fitted to
hardware measurements, docs/calibration.md), ``vendor-model`` (the vendor's cost model or
simulator parameters), ``public-figure`` (a datasheet or platform-config figure) or
``estimate``. A step takes the kind of the entry that priced it: a DMA its MTE engine's, a
vector intrinsic its class's (or its vector-function op's), a scalar step the scalar unit's, a
flag or barrier the control cost's, a SIMT launch the SIMT model's. This module reads the trace
events and the config only; it never looks at the engine.
"""

from __future__ import annotations

from collections import defaultdict

from .config import SOURCE_KINDS
from .targets import timing_uses

SHORT = {
    "hardware-fitted": "fitted",
    "vendor-model": "vendor",
    "public-figure": "public",
    "estimate": "estimate",
}
_CONTROL = ("set_flag", "wait_flag", "barrier", "cross_set", "cross_wait")
# the cube core's cost entries ([timing.cube], targets/a2a3/cube.py): mad, the L1 -> L0 / bias
# table / fixpipe buffer copies, the fixpipe and the L1 fill
CUBE_INTRINSICS = ("mad", "load_cbuf_to_", "copy_cbuf_to_bt", "copy_cbuf_to_fbuf",
                   "copy_matrix_cc_to_", "create_cbuf_", "copy_ubuf_to_cbuf",
                   "copy_cbuf_to_ubuf")  # fmt: skip


def event_source(config, event) -> str | None:
    """The source kind of the cost behind one trace event (None for a warp sub-event, which
    is part of its SIMT launch)."""
    src = event.args.get("source")
    if src is not None:
        return src
    t = config.timing
    kind = event.kind
    if kind == "dma":
        return (t.mte3 if event.pipe == "PIPE_MTE3" else t.mte2).source
    if kind == "vector":
        op = event.args.get("intrinsic")
        vf = t.vector.vf
        if vf is not None and op in vf.ops:
            return vf.ops[op].source
        return t.vector.cost(op or "other").source
    if kind == "scalar":
        return t.scalar.source
    if kind in _CONTROL:
        return t.scalar.control_source
    if kind == "simt":
        return t.simt.source if t.simt is not None else "estimate"
    return None


def pipe_events(result):
    """The trace events that occupy a pipe (not the warp schedulers' sub-events)."""
    return [e for e in result.trace.events if not e.pipe.startswith("SIMT_SCHED")]


def cycles_by_source(result, events=None) -> dict[str, int]:
    """Busy cycles per source kind over ``events`` (default: every pipe event of the run)."""
    out: dict[str, int] = defaultdict(int)
    cfg = result.config
    for e in pipe_events(result) if events is None else events:
        src = event_source(cfg, e)
        if src is not None and e.dur:
            out[src] += e.dur
    return dict(out)


def by_opcode(result) -> dict[str, dict[str, int]]:
    """Instruction kind -> busy cycles per source kind."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    cfg = result.config
    for e in pipe_events(result):
        src = event_source(cfg, e)
        if src is not None and e.dur:
            out[e.opcode][src] += e.dur
    return {k: dict(v) for k, v in out.items()}


def by_pipe(result) -> dict[tuple[int, str], dict[str, int]]:
    """(core, pipe) -> busy cycles per source kind."""
    out: dict = defaultdict(lambda: defaultdict(int))
    cfg = result.config
    for e in pipe_events(result):
        src = event_source(cfg, e)
        if src is not None and e.dur:
            out[(e.core, e.pipe)][src] += e.dur
    return {k: dict(v) for k, v in out.items()}


def mix(cycles: dict[str, int]) -> list[tuple[str, float]]:
    """(kind, share) in SOURCE_KINDS order, the kinds with cycles only."""
    total = sum(cycles.values())
    if not total:
        return []
    return [(k, cycles[k] / total) for k in SOURCE_KINDS if cycles.get(k)]


def pct(share: float) -> str:
    """A share as a whole percentage, ``<1%`` for a sliver."""
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{round(100 * share)}%"


def label(cycles: dict[str, int]) -> str:
    """A short label for a table cell: ``fitted``, ``estimate``, ``fitted 80% / estimate 20%``."""
    parts = mix(cycles)
    if not parts:
        return "-"
    if len(parts) == 1:
        return SHORT[parts[0][0]]
    return " / ".join(f"{SHORT[k]} {pct(s)}" for k, s in parts)


def basis_line(result, path_cycles: dict[str, int] | None = None) -> str:
    """One line: what the run's cycles rest on (the critical path's cycles by source kind when
    given, else every busy cycle), and the clock's source; it says so when estimates count."""
    cycles = path_cycles if path_cycles else cycles_by_source(result)
    what = "critical path" if path_cycles else "busy cycles"
    parts = mix(cycles)
    t = result.config.timing
    text = ", ".join(f"{pct(s)} {k}" for k, s in parts) or "nothing timed"
    shares = dict(parts)
    est = shares.get("estimate", 0.0)
    warn = ""
    if parts and not shares.get("hardware-fitted"):
        warn = "ESTIMATES: no hardware measurement behind these cycles: "
    elif est >= 0.5:
        warn = "mostly estimates: "
    elif est > 0:
        warn = "partly estimates: "
    clock = f"clock {t.clock_ghz} GHz {t.clock_source}"
    return f"timing basis: {warn}{what} {text}; {clock}"


def key_source(config, key: str) -> str:
    """The source kind of one cost entry a lowering uses (targets/<t>/timing_sources.py keys)."""
    t = config.timing
    if key in ("mte2", "mte3"):
        return getattr(t, key).source
    if key == "scalar":
        return t.scalar.source
    if key == "control":
        return t.scalar.control_source
    if key == "simt":
        return t.simt.source if t.simt is not None else "estimate"
    if t.cube is not None and key.rstrip("*").startswith(CUBE_INTRINSICS):
        return t.cube.source
    vf = t.vector.vf
    if key == "vf" and vf is not None:
        return vf.source
    if vf is not None and key != "copy_ubuf_to_ubuf":
        return vf.op(key).source
    return t.vector.cost(key).source


def instruction_sources(config, name: str) -> dict[str, list[str]] | None:
    """Source kind -> the cost entries of that kind instruction ``name``'s lowering uses on the
    config's target (None: untimed device, or the target does not define the instruction)."""
    if config.timing is None:
        return None
    keys = timing_uses(config.target).get(name)
    if keys is None:
        return None
    out: dict[str, list[str]] = {}
    for key in keys:
        out.setdefault(key_source(config, key), []).append(key)
    return {k: out[k] for k in SOURCE_KINDS if k in out}
