"""Row vs Elem bandwidth study of MGATHER and MSCATTER (``ptosim bench row-vs-elem``): when is
Coalesce::Row worth it?

The study is a preset sweep (ptosim/sweep.py) of the kernel file ptosim/bench_kernels.py: for each
timed device, each shape RxC and each op (MGATHER, MSCATTER) it runs four cases on the same table
and the same R rows (see that file):

- ``Row``: whole rows, Coalesce::Row;
- ``Elem-rows``: the same whole rows, element by element (Coalesce::Elem): the same data as Row;
- ``Elem-half``: the first C/2 columns of the same rows, Coalesce::Elem: a caller that needs part
  of each row, where Row would still move whole rows;
- ``Elem``: R*C random flat table elements, Coalesce::Elem.

Each kernel is correctly synchronised and checked bit-exactly with numpy; a mismatch, or a
finding, is a ptosim bug and raises ``BenchError``. The measured cycles are the span of the
MGATHER/MSCATTER instruction; GB/s is the payload (the elements the case moves times their size)
over those cycles, times the device clock. The speed-up of Row over an Elem case is that case's
cycles over Row's (both give the caller the data it needs), and the crossover of a device and op
is the row size (C*sizeof(T) bytes) from which Row stays more than ``TIE`` (5 %) faster, found by
log-log interpolation between the measured row sizes. On the 950 the scatters use
ScatterConflict::Default by default: with distinct indices no two lanes collide, so the result is
exact, and the time is the coalescing cost rather than the O(R*C)-per-lane scan of
Conflict::Last (``conflict="last"`` measures that instead).

Python use::

    from ptosim.bench import crossovers, row_vs_elem
    rows = row_vs_elem(["a2", "950pr"], [(32, 8), (32, 64)], "float32")
    crossovers(rows)[("a2", "MSCATTER", "Elem-rows")]["text"]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from pathlib import Path

from . import bench_kernels as BK
from . import dtypes as D
from .config import available_devices, load_config
from .errors import KernelError
from .sweep import make_spec, points, run_point, run_sweep
from .targets import spec_of

OPS = ("MGATHER", "MSCATTER")
CASES = BK.CASES
MODES = CASES  # the old name
_KERNELS = {"MGATHER": "gather", "MSCATTER": "scatter"}
DEFAULT_ROWS = 32
# row sizes of the default shapes: 32 B (the smallest a tile row may be) to 1 KiB
DEFAULT_ROW_BYTES = (32, 64, 128, 256, 512, 1024)
TIE = 1.05  # Row is "worth it" when it is more than 5 % faster; within 5 % it is a tie
# fixed colours, so a device looks the same in every chart, whichever devices it shows
DEVICE_COLOURS = {"a2": "tab:blue", "a3": "tab:cyan", "950pr": "tab:red", "950dt": "tab:orange"}


def default_shapes(dtype="float32") -> list[tuple[int, int]]:
    """32 rows of 32 B to 1 KiB: C = row bytes / sizeof(dtype)."""
    size = D.dtype(dtype).size_bytes
    return [(DEFAULT_ROWS, b // size) for b in DEFAULT_ROW_BYTES if b >= size]


DEFAULT_SHAPES: tuple[tuple[int, int], ...] = tuple(default_shapes())


class BenchError(AssertionError):
    """A benchmark kernel produced a wrong result or a finding: a bug in ptosim."""


# -- argument parsing ------------------------------------------------------------------------
_ORDER = ("a2", "a3", "950pr", "950dt")


def timed_devices() -> list[str]:
    """The built-in devices that have a timing model (every one but cpu), a2 a3 950pr 950dt."""
    names = [n for n in available_devices() if load_config(n).timing is not None]
    return sorted(names, key=lambda n: (_ORDER.index(n) if n in _ORDER else len(_ORDER), n))


def parse_devices(spec: str | Iterable[str]) -> list[str]:
    """``"all"``, one device name, a comma-separated list or an iterable of names.

    Raises:
        KernelError: an untimed device (cpu) or an empty list.
        ConfigError: an unknown device.
    """
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        for n in timed_devices() if name.lower() == "all" else [name]:
            cfg = load_config(n)
            if cfg.timing is None:
                raise KernelError(
                    f"device {cfg.name} is untimed (target {cfg.target}): it has no cycles to "
                    f"measure; use one of {', '.join(timed_devices())} or all"
                )
            if n not in out:
                out.append(n)
    if not out:
        raise KernelError("no device given; use one of " + ", ".join(timed_devices()) + " or all")
    return out


def parse_shapes(spec: str | Iterable) -> list[tuple[int, int]]:
    """``"8x64,64x256"`` or an iterable of (R, C) pairs.

    Raises:
        KernelError: a malformed or non-positive shape.
    """
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out = []
    for item in items:
        if isinstance(item, str):
            text = item.strip().lower()
            if not text:
                continue
            parts = text.split("x")
            if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
                raise KernelError(f"bad shape {item!r}: expected RxC, e.g. 8x64")
            r, c = (int(p) for p in parts)
        else:
            r, c = (int(v) for v in item)
        if r < 1 or c < 1:
            raise KernelError(f"bad shape {r}x{c}: rows and columns must be >= 1")
        out.append((r, c))
    if not out:
        raise KernelError("no shape given; expected RxC[,RxC...], e.g. 8x64,64x256")
    return out


# -- argument checks -------------------------------------------------------------------------
def _check_dtype(dt: D.DType, target: str) -> None:
    spec = spec_of(target)
    for op in ("MGATHER", "MSCATTER"):
        allowed = spec.dtypes_of(op) or ()
        if dt not in allowed:
            raise KernelError(
                f"dtype {dt.name} is not allowed for {op} on target {target}; allowed: "
                + ", ".join(d.name for d in allowed)
            )


def _ub_limit(cfg) -> int:
    """UB bytes the kernels may use: the whole UB, or the 950 SIMT maximum."""
    if cfg.simt is not None:
        return min(cfg.memory.ub_size_bytes, cfg.simt_max_dyn_ubuf_bytes)
    return cfg.memory.ub_size_bytes


def _check_shape(r: int, c: int, dt: D.DType, cfg=None) -> None:
    if (c * dt.size_bytes) % 32:
        raise KernelError(
            f"shape {r}x{c}: a row of {c} {dt.name} is {c * dt.size_bytes} bytes; tile rows must "
            f"be a multiple of 32 bytes (C a multiple of {32 // dt.size_bytes})"
        )
    need = BK.ub_needed((r, c), dt)
    if cfg is not None and need > _ub_limit(cfg):
        raise KernelError(
            f"shape {r}x{c} {dt.name} needs {need} bytes of UB (data tile + [R, C] int32 index "
            f"tile of the Elem case), more than the {_ub_limit(cfg)} bytes available on "
            f"{cfg.name}; use a smaller shape"
        )


def _conflict(value: str) -> str:
    name = str(value).strip().lower()
    if name not in ("default", "last"):
        raise KernelError(f"conflict must be 'default' or 'last' (950 MSCATTER), got {value!r}")
    return name


def _cases(cases) -> list[str]:
    names = cases.split(",") if isinstance(cases, str) else list(cases)
    out = []
    for name in (n.strip() for n in names):
        match = [c for c in CASES if c.lower() == name.lower()]
        if not match:
            raise KernelError(f"unknown case {name!r}; the cases are {', '.join(CASES)}")
        if match[0] not in out:
            out.append(match[0])
    if "Row" not in out:
        out.insert(0, "Row")  # every speed-up is relative to Row
    return sorted(out, key=CASES.index)


# -- running -----------------------------------------------------------------------------------
def spec(devices, shapes, dtype, *, cases=CASES, table_factor=4, seed=0, conflict="default"):
    """The bench as a sweep spec (ptosim/sweep.py), after checking every argument.

    Raises:
        PtoSimError: an untimed device, a disallowed dtype, a bad shape or case ...
    """
    devs = parse_devices(devices)
    dt = D.dtype(dtype)
    shp = parse_shapes(default_shapes(dt) if shapes is None else shapes)
    conf = _conflict(conflict)
    for name in devs:  # reject every bad argument before the first simulation
        cfg = load_config(name)
        _check_dtype(dt, cfg.target)
        for r, c in shp:
            _check_shape(r, c, dt, cfg)
    kfile = str(Path(BK.__file__).resolve())
    return make_spec(
        where="row-vs-elem",
        name="row_vs_elem",
        kernels=[f"{kfile}:{_KERNELS[op]}" for op in OPS],
        devices=devs,
        dtypes=[dt.name],
        shapes=shp,
        params={
            "case": _cases(cases),
            "seed": [seed],
            "table_factor": [table_factor],
            "conflict": [conf],
        },
    )


def _tidy(sweep_rows: list[dict]) -> list[dict]:
    """Sweep rows -> bench rows (raising BenchError on any failed point), with speed-ups."""
    bad = [r for r in sweep_rows if r["status"] != "ok"]
    if bad:
        r = bad[0]
        more = f" (and {len(bad) - 1} more failed point(s))" if len(bad) > 1 else ""
        op = {k: o for o, k in _KERNELS.items()}[r["kernel"].rpartition(":")[2]]
        raise BenchError(f"{op} {r['case']} {r['shape']} on {r['device']}: {r['error']}{more}")
    rows = []
    for r in sweep_rows:
        cfg = load_config(r["device"])
        rr, cc = (int(v) for v in r["shape"].split("x"))
        a5_scatter = cfg.target == "a5" and r["op"] == "MSCATTER"
        rows.append(
            {
                "device": r["device"],
                "config": cfg.name,
                "target": cfg.target,
                "clock_ghz": cfg.timing.clock_ghz,
                "op": r["op"],
                "mode": r["case"],
                "shape": r["shape"],
                "rows": rr,
                "cols": cc,
                "row_bytes": r["row_bytes"],
                "dtype": r["dtype"],
                "table_rows": r["table_rows"],
                "conflict": r["conflict"] if a5_scatter else None,
                "cycles": r["cycles"],
                "bytes": r["bytes"],
                "bytes_per_cycle": r["bytes"] / r["cycles"],
                "gbps": r["gbps"],
                "timing_source": r.get("timing_source"),
                "total_cycles": r["total_cycles"],
                "wall_s": r["wall_s"],
            }
        )
    order = {"device": [], "shape": []}
    for r in rows:
        for k in order:
            if r[k] not in order[k]:
                order[k].append(r[k])
    rows.sort(
        key=lambda r: (
            order["device"].index(r["device"]),
            order["shape"].index(r["shape"]),
            OPS.index(r["op"]),
            CASES.index(r["mode"]),
        )
    )
    row_cycles = {
        (r["device"], r["op"], r["shape"]): r["cycles"] for r in rows if r["mode"] == "Row"
    }
    for r in rows:
        base = row_cycles.get((r["device"], r["op"], r["shape"]))
        r["speedup"] = None if base is None else r["cycles"] / base
    return rows


def row_vs_elem(
    devices="all",
    shapes=None,
    dtype="float32",
    *,
    cases=CASES,
    table_factor: int = 4,
    seed: int = 0,
    conflict: str = "default",
    progress: Callable[[str], None] | None = None,
    scheduler: str | None = "inline",
    output=None,
    workers: int | None = None,
) -> list[dict]:
    """Row vs Elem bandwidth of MGATHER and MSCATTER on each device and shape.

    Args:
        devices: ``"all"``, a name, a comma-separated string or a list of timed devices.
        shapes: ``"32x8,32x64"`` or a list of (R, C); default ``default_shapes(dtype)``: 32 rows
            of 32 B to 1 KiB.
        dtype: element type of table and tiles (must be allowed on every device's target).
        cases: the cases to run (``Row`` always is): Row, Elem-rows, Elem-half, Elem.
        table_factor: the table has ``max(table_factor * R, 64)`` rows of C columns.
        seed: seed of the random tables and indices.
        conflict: ScatterConflict of the 950 MSCATTERs, ``"default"`` (the plain stores; exact
            here because the indices are distinct) or ``"last"`` (the slot-centric scan, which
            costs O(R*C) per lane). Atlas A2/A3 has no conflict parameter.
        progress: called with a one-line message at the start and as points complete.
        scheduler: where the sweep runs: ``"inline"`` (this process, the default), None or
            ``"local"`` (a LocalCluster), ``"tcp://host:8786"``; see ``run_sweep``.
        output: a sweep table (.parquet or .csv) to write and to resume from.
        workers: LocalCluster size.

    Returns:
        One dict per (device, shape, op, case) with keys device, config, target, clock_ghz, op,
        mode (the case), shape ("RxC"), rows, cols, row_bytes, dtype, table_rows, conflict (None
        but on a 950 MSCATTER), cycles, bytes (the payload), bytes_per_cycle, gbps (payload per
        simulated second at the device's clock), timing_source (what the instruction's cycles
        rest on: hardware-fitted, vendor-model, public-figure, estimate), total_cycles, wall_s
        and speedup (this case's cycles / Row's cycles for that device, op
        and shape: how many times faster Row is; 1.0 on the Row row).

    Raises:
        PtoSimError: bad arguments (untimed device, dtype not allowed, misaligned shape ...).
        BenchError: a result differs from numpy or has a finding (a ptosim bug).
    """
    sw = spec(
        devices,
        shapes,
        dtype,
        cases=cases,
        table_factor=table_factor,
        seed=seed,
        conflict=conflict,
    )
    total = len(points(sw))
    if progress:
        progress(
            f"bench: {total} points: {', '.join(sw.devices)} x {len(sw.shapes)} shape(s) x "
            f"{len(OPS)} ops x {len(sw.params['case'])} cases ..."
        )
    step = max(total // 4, 1)

    def tick(done: int, n: int, row: dict) -> None:
        if progress and (done % step == 0 or done == n):
            progress(f"bench: {done}/{n} points done (last: {row['device']} {row['shape']})")

    rows = run_sweep(sw, output, scheduler=scheduler, progress=tick, workers=workers)
    return _tidy(rows)


def measure(
    device: str,
    op: str,
    mode: str,
    shape: tuple[int, int],
    dtype="float32",
    *,
    table_factor: int = 4,
    seed: int = 0,
    conflict: str = "default",
) -> dict:
    """Run one case in this process, verify it against numpy and return its row (see
    ``row_vs_elem``; ``speedup`` is None here).

    Raises:
        BenchError: the result differs from numpy or the run reported findings (a ptosim bug).
        PtoSimError: an untimed device, a disallowed dtype or shape, UB overflow ...
    """
    if op not in OPS or mode not in CASES:
        raise KernelError(f"unknown case {op} {mode}; op is one of {OPS}, mode one of {CASES}")

    sw = spec(
        device,
        [shape],
        dtype,
        cases=[mode],
        table_factor=table_factor,
        seed=seed,
        conflict=conflict,
    )
    (point,) = [p for p in points(sw) if p.name == _KERNELS[op] and dict(p.params)["case"] == mode]
    row = _tidy([run_point(point)])[0]
    row["speedup"] = None
    return row


# -- crossovers --------------------------------------------------------------------------------
def _per_row_size(rows: list[dict], device: str, op: str, mode: str) -> dict[int, dict]:
    """Row size (bytes) -> the row of that size with the most rows, of one device, op, case."""
    best: dict[int, dict] = {}
    for r in rows:
        if (r["device"], r["op"], r["mode"]) != (device, op, mode) or r.get("speedup") is None:
            continue
        if r["row_bytes"] not in best or r["rows"] > best[r["row_bytes"]]["rows"]:
            best[r["row_bytes"]] = r
    return best


def crossovers(rows: list[dict], tie: float = TIE) -> dict[tuple[str, str, str], dict]:
    """Per (device, op, Elem case): the row size from which Row stays more than ``tie`` times
    faster than that case.

    The speed-ups are taken at each row size (for several shapes of one row size, the one with
    the most rows), in order of row size. Returns dicts with ``bytes`` (the interpolated
    crossover in bytes; None when there is none), ``kind`` (``"between"``, ``"below"``: Row is
    already worth it at the smallest size measured, ``"none"``: not at the largest) and
    ``text`` for a table.
    """
    keys = dict.fromkeys((r["device"], r["op"], r["mode"]) for r in rows if r["mode"] != "Row")
    series = {}
    for key in keys:
        best = _per_row_size(rows, *key)
        series[key] = [(x, best[x]["speedup"]) for x in sorted(best)]
    out = {}
    for key, pts in series.items():
        first = next((i for i in range(len(pts)) if all(s > tie for _, s in pts[i:])), None)
        if first is None:
            what = "Elem wins" if pts[-1][1] < 1 / tie else "a tie"
            out[key] = {
                "bytes": None,
                "kind": "none",
                "text": f"none up to {pts[-1][0]} B ({what})",
            }
        elif first == 0:
            out[key] = {"bytes": None, "kind": "below", "text": f"<= {pts[0][0]} B"}
        else:
            (x0, s0), (x1, s1) = pts[first - 1], pts[first]
            t = (math.log(tie) - math.log(s0)) / (math.log(s1) - math.log(s0))
            x = 2 ** (math.log2(x0) + t * (math.log2(x1) - math.log2(x0)))
            out[key] = {"bytes": x, "kind": "between", "text": f"~{x:.0f} B"}
    return out


# -- output ----------------------------------------------------------------------------------
def format_table(rows: list[dict]) -> str:
    """The rows as a fixed-width text table (Row/Elem: how many times faster Row is than that
    Elem case, printed on the Elem rows), then the crossover of each device and op."""
    head = (
        f"{'device':<7} {'op':<9} {'shape':>9} {'row B':>6} {'mode':<9} {'cycles':>9} "
        f"{'B/cycle':>9} {'GB/s':>9} {'Row/Elem':>9}  timing source"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        speed = row.get("speedup")
        speed = f"{speed:8.2f}x" if row["mode"] != "Row" and speed is not None else ""
        lines.append(
            f"{row['device']:<7} {row['op']:<9} {row['shape']:>9} {row['row_bytes']:>6} "
            f"{row['mode']:<9} {row['cycles']:>9} {row['bytes_per_cycle']:>9.3f} "
            f"{row['gbps']:>9.3f} {speed:>9}  {row.get('timing_source') or '-'}"
        )
    cross = crossovers(rows)
    modes = [m for m in CASES[1:] if any(k[2] == m for k in cross)]
    if modes:
        width = max(len(f"vs {m}") for m in modes)
        width = max([width] + [len(c["text"]) for c in cross.values()]) + 2
        lines += [
            "",
            f"crossover: the row size from which Row is more than {round((TIE - 1) * 100)} % "
            "faster than Elem",
        ]
        sub = f"{'device':<7} {'op':<9} " + "".join(f"{'vs ' + m:<{width}}" for m in modes)
        lines += [sub.rstrip(), "-" * len(sub.rstrip())]
        for dev, op in dict.fromkeys((k[0], k[1]) for k in cross):
            cells = "".join(
                f"{cross.get((dev, op, m), {}).get('text', ''):<{width}}" for m in modes
            )
            lines.append(f"{dev:<7} {op:<9} {cells}".rstrip())
    return "\n".join(lines)


_STYLES = {  # case -> line style, marker
    "Row": ("-", "o"),
    "Elem-rows": ("--", "s"),
    "Elem-half": (":", "^"),
    "Elem": ("-.", "x"),
}


def _colour(device: str, k: int) -> str:
    extra = ("tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:gray")
    return DEVICE_COLOURS.get(device, extra[k % len(extra)])


def plot(rows: list[dict], path, title: str | None = None) -> None:
    """The chart: one column per op; top, GB/s against the row size (bytes, log scale) per device
    (a fixed colour each) and case (a line style each); bottom, the speed-up of Row over
    Elem-rows and Elem-half with the 1.0 line, the tie band and each device's crossover (vs
    Elem-rows) marked. Saved as PNG at ``path``.

    Raises:
        ImportError: matplotlib is not installed (``pip install -e ".[plot]"``).
    """
    # matplotlib is the optional extra "plot": imported only when a plot is drawn
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after use("Agg"): the backend is chosen first)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    devices = list(dict.fromkeys(r["device"] for r in rows))
    others = [d for d in devices if d not in DEVICE_COLOURS]
    colour = {d: _colour(d, others.index(d) if d in others else 0) for d in devices}
    modes = [m for m in CASES if any(r["mode"] == m for r in rows)]
    versus = [m for m in ("Elem-rows", "Elem-half") if m in modes]
    cross = crossovers(rows)
    sizes = sorted({r["row_bytes"] for r in rows})
    fig, axes = plt.subplots(
        2,
        len(OPS),
        figsize=(6.4 * len(OPS), 8.6),
        sharex=True,
        squeeze=False,
        gridspec_kw={"height_ratios": (3, 2)},
    )

    def series(dev, op, mode, key):
        best = _per_row_size(rows, dev, op, mode)
        xs = sorted(best)
        return xs, [best[x][key] for x in xs]

    # the first devices draw wider lines, so coinciding curves (a2 and a3) both stay visible
    width = {
        d: 1.2 + 2.0 * (len(devices) - 1 - k) / max(len(devices) - 1, 1)
        for k, d in enumerate(devices)
    }
    for col, op in enumerate(OPS):
        top, bottom = axes[0][col], axes[1][col]
        for dev in devices:
            style = {"color": colour[dev], "lw": width[dev], "ms": 3 + width[dev]}
            for mode in modes:
                ls, marker = _STYLES[mode]
                xs, ys = series(dev, op, mode, "gbps")
                top.plot(xs, ys, linestyle=ls, marker=marker, **style)
                if mode in versus:
                    xs, ys = series(dev, op, mode, "speedup")
                    bottom.plot(xs, ys, linestyle=ls, marker=marker, **style)
        bottom.axhline(1.0, color="black", lw=1.2)
        bottom.axhspan(1 / TIE, TIE, color="gray", alpha=0.15, lw=0)
        for dev in devices:  # the crossover vs Elem-rows (Row fetching the same data)
            c = cross.get((dev, op, "Elem-rows"))
            if c is None:
                continue
            if c["kind"] == "between":
                bottom.axvline(c["bytes"], color=colour[dev], lw=1, alpha=0.7)
                bottom.plot([c["bytes"]], [TIE], marker="D", ms=8, color=colour[dev], mec="k")
            text = f"{dev}: {c['text']}"
            k = devices.index(dev) + 1
            bottom.annotate(
                text,
                xy=(0.02, 0.95 - 0.085 * k),
                xycoords="axes fraction",
                va="top",
                fontsize=8,
                color=colour[dev],
            )
        top.set_title(f"{op}: achieved bandwidth")
        top.set_ylabel("GB/s of the data moved (log)")
        bottom.set_title(f"{op}: speed-up of Row over Elem (Elem cycles / Row cycles)", fontsize=10)
        bottom.set_ylabel("x faster with Row (log)")
        bottom.set_xlabel("row size, bytes (C x sizeof(T), log scale)")
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xticks(sizes, [str(s) for s in sizes])
            ax.minorticks_off()
            ax.grid(True, which="major", alpha=0.3)
        bottom.annotate(
            "crossover, Row vs Elem-rows:",
            xy=(0.02, 0.95),
            xycoords="axes fraction",
            va="top",
            fontsize=8,
        )
    handles = [Line2D([], [], color=colour[d], lw=2.5, label=d) for d in devices] + [
        Line2D([], [], color="black", linestyle=_STYLES[m][0], marker=_STYLES[m][1], label=m)
        for m in modes
    ]
    handles += [
        Patch(color="gray", alpha=0.3, label=f"tie (within {round((TIE - 1) * 100)} %)"),
        Line2D([], [], color="gray", marker="D", mec="k", ls="", label="crossover"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False)
    dtypes = ", ".join(dict.fromkeys(r["dtype"] for r in rows))
    shapes_rows = ", ".join(dict.fromkeys(str(r["rows"]) for r in rows))
    fig.suptitle(
        title or f"ptosim: when is Row worth it? MGATHER / MSCATTER, {shapes_rows} rows of {dtypes}"
    )
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


__all__ = [
    "BenchError",
    "CASES",
    "DEFAULT_SHAPES",
    "DEVICE_COLOURS",
    "crossovers",
    "default_shapes",
    "format_table",
    "measure",
    "parse_devices",
    "parse_shapes",
    "plot",
    "row_vs_elem",
    "spec",
    "timed_devices",
]
