"""Row vs Elem bandwidth study of MGATHER and MSCATTER (``ptosim bench row-vs-elem``).

For each timed device and each shape RxC the study runs four kernels, each with the correct
synchronisation of reference/semantics.md 4.3:

- MGATHER Row: ``dst[r, :] = table[idx[r], :]``, idx [1, R] of distinct random rows;
  TLOAD(idx); MTE2->V; MGATHER; V->MTE3; TSTORE(dst).
- MGATHER Elem: the same RxC destination, idx [R, C] of random flat table indices; same sync.
- MSCATTER Row / Elem (ScatterAtomicOp::None, distinct indices, so the result is well defined):
  TLOAD(src); TLOAD(idx); MTE2->V; MSCATTER. On the 950 the scatters use ScatterConflict::Default
  by default: with distinct indices no two lanes collide, so the result is exact (and no F103
  is reported), and the time is the coalescing cost rather than the O(R*C)-per-lane scan of
  Conflict::Last (``conflict="last"`` measures that instead).

The table has ``table_factor * R`` rows (at least 64) of C packed columns, so it satisfies the
950 Row rule ``shape[4] == C``. Each result is compared bit-exactly with numpy; a mismatch, or a
finding in one of these (correctly synchronised) kernels, is a ptosim bug and raises
``BenchError``. The measured cycles are the span (first step start to last step end) of the
MGATHER/MSCATTER instruction in ``run.instructions``; the achieved bandwidth is the payload
``R*C*sizeof(T)`` bytes over those cycles, times the device clock (``config.timing.clock_ghz``).

Python use::

    from ptosim.bench import row_vs_elem
    rows = row_vs_elem(["a2", "950pr"], [(8, 64), (32, 128)], "float32")
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from . import dtypes as D
from .config import available_devices, load_config
from .device import Device
from .enums import EVENT_ID0, PIPE_MTE2, PIPE_MTE3, PIPE_V
from .errors import KernelError
from .isa.data import TLOAD, TSTORE
from .isa.gather import _DTYPES as GATHER_DTYPES
from .isa.gather import MGATHER
from .isa.scatter import DTYPES as SCATTER_DTYPES
from .isa.scatter import MSCATTER
from .isa.sync import set_flag, wait_flag
from .program import kernel
from .tensors import GlobalTensor, Tile

OPS = ("MGATHER", "MSCATTER")
MODES = ("Row", "Elem")
# small enough that ``--device all`` (4 devices x 4 kernels per shape) takes a few seconds
DEFAULT_SHAPES: tuple[tuple[int, int], ...] = (
    (8, 64),
    (16, 64),
    (32, 64),
    (32, 128),
    (64, 128),
    (64, 256),
)


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


def _check_dtype(dt: D.DType, target: str) -> None:
    for op, table in (("MGATHER", GATHER_DTYPES), ("MSCATTER", SCATTER_DTYPES)):
        if dt not in table[target]:
            raise KernelError(
                f"dtype {dt.name} is not allowed for {op} on target {target}; allowed: "
                + ", ".join(d.name for d in table[target])
            )


def _ub_needed(r: int, c: int, dt: D.DType) -> int:
    """UB bytes of the largest case (Elem): the RxC data tile plus the [R, C] int32 index tile."""
    data = -(-(r * c * dt.size_bytes) // 32) * 32
    return data + r * (-(-c // 8) * 8) * 4


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
    if cfg is not None and _ub_needed(r, c, dt) > _ub_limit(cfg):
        raise KernelError(
            f"shape {r}x{c} {dt.name} needs {_ub_needed(r, c, dt)} bytes of UB (data tile + "
            f"[R, C] int32 index tile of the Elem case), more than the {_ub_limit(cfg)} bytes "
            f"available on {cfg.name}; use a smaller shape"
        )


# -- the kernels -----------------------------------------------------------------------------
def _idx_tile(rows: int, cols: int) -> Tile:
    """An int32 index tile with valid (rows, cols); storage cols padded to 32 bytes."""
    return Tile("Vec", "int32", rows, -(-cols // 8) * 8, valid=(rows, cols))


def _host_values(rng, shape, dt: D.DType) -> np.ndarray:
    """Random values exactly representable in dt (hifloat8: raw bit patterns)."""
    vals = rng.integers(1, 100, size=shape)
    if dt is D.hifloat8:
        return vals.astype(np.uint8)
    return vals.astype(dt.np)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _gather_case(
    dev: Device, mode: str, r: int, c: int, dt: D.DType, trows: int, rng, conflict=None
):
    table_h = _host_values(rng, (trows, c), dt)
    if mode == "Row":
        idx_h = rng.choice(trows, size=(1, r), replace=False).astype(np.int32)
        expected = table_h[idx_h[0]]
    else:
        idx_h = rng.integers(0, trows * c, size=(r, c)).astype(np.int32)
        expected = table_h.reshape(-1)[idx_h]
    table = dev.gm_array(table_h, dt)
    index = dev.gm_array(idx_h)
    out = dev.gm_zeros((r, c), dt)
    dst = Tile("Vec", dt, r, c, name="dst")
    idx = _idx_tile(*idx_h.shape)

    @kernel
    def gather(table, index, out):
        tab = GlobalTensor(table, (1, 1, 1, trows, c))
        TLOAD(idx, GlobalTensor(index, (1, 1, 1) + idx_h.shape))
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
        MGATHER(dst, tab, idx, coalesce=mode.lower())
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)
        TSTORE(GlobalTensor(out, (1, 1, 1, r, c)), dst)

    return gather, (table, index, out), lambda: (out.numpy(), expected)


def _scatter_case(
    dev: Device, mode: str, r: int, c: int, dt: D.DType, trows: int, rng, conflict=None
):
    table_h = _host_values(rng, (trows, c), dt)
    src_h = _host_values(rng, (r, c), dt)
    expected = table_h.copy()
    if mode == "Row":
        idx_h = rng.choice(trows, size=(1, r), replace=False).astype(np.int32)
        expected[idx_h[0]] = src_h
    else:
        flat = rng.choice(trows * c, size=r * c, replace=False)
        idx_h = flat.reshape(r, c).astype(np.int32)
        expected.reshape(-1)[flat] = src_h.reshape(-1)
    table = dev.gm_array(table_h, dt)
    source = dev.gm_array(src_h, dt)
    index = dev.gm_array(idx_h)
    src = Tile("Vec", dt, r, c, name="src")
    idx = _idx_tile(*idx_h.shape)

    @kernel
    def scatter(table, source, index):
        TLOAD(src, GlobalTensor(source, (1, 1, 1, r, c)))
        TLOAD(idx, GlobalTensor(index, (1, 1, 1) + idx_h.shape))
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
        MSCATTER(
            GlobalTensor(table, (1, 1, 1, trows, c)),
            src,
            idx,
            coalesce=mode.lower(),
            atomic="none",
            conflict=conflict,
        )

    return scatter, (table, source, index), lambda: (table.numpy(), expected)


def _conflict(value: str) -> str:
    name = str(value).strip().lower()
    if name not in ("default", "last"):
        raise KernelError(f"conflict must be 'default' or 'last' (950 MSCATTER), got {value!r}")
    return name


_CASES = {"MGATHER": _gather_case, "MSCATTER": _scatter_case}


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
    """Run one case, verify it against numpy and return its row (see ``row_vs_elem``).

    Raises:
        BenchError: the result differs from numpy or the run reported findings (a ptosim bug).
        PtoSimError: an untimed device, a disallowed dtype or shape, UB overflow ...
    """
    if op not in OPS or mode not in MODES:
        raise KernelError(f"unknown case {op} {mode}; op is one of {OPS}, mode one of {MODES}")
    dev = Device(device)
    cfg = dev.config
    if cfg.timing is None:
        parse_devices([device])  # raises the "untimed" error
    dt = D.dtype(dtype)
    _check_dtype(dt, dev.target)
    r, c = shape
    _check_shape(r, c, dt, cfg)
    trows = max(table_factor * r, 64)
    rng = np.random.default_rng([seed, r, c, OPS.index(op), MODES.index(mode)])
    conf = _conflict(conflict) if dev.target == "a5" and op == "MSCATTER" else None
    kern, args, result = _CASES[op](dev, mode, r, c, dt, trows, rng, conf)
    dyn = None  # a 950 kernel past the default SIMT budget declares its UB (up to 216 KiB)
    if cfg.simt is not None and _ub_needed(r, c, dt) > cfg.simt.default_dyn_ubuf_bytes:
        dyn = -(-_ub_needed(r, c, dt) // 1024) * 1024
    run = dev.run(kern, *args, dyn_ubuf_size=dyn)
    got, expected = result()
    where = f"{op} {mode} {r}x{c} {dt.name} on {cfg.name}"
    if not _same_bits(got, expected):
        bad = int(np.count_nonzero(got != expected)) if got.shape == expected.shape else -1
        raise BenchError(f"{where}: result differs from numpy ({bad} elements wrong)")
    if run.findings:
        raise BenchError(f"{where}: unexpected findings: " + "; ".join(map(str, run.findings)))
    states = [s for s in run.instructions if s.instr.opcode == op and s.start is not None]
    if len(states) != 1:
        raise BenchError(f"{where}: expected one timed {op} instruction, found {len(states)}")
    cycles = max(states[0].end - states[0].start, 1)
    payload = r * c * dt.size_bytes
    ghz = cfg.timing.clock_ghz
    return {
        "device": device,
        "config": cfg.name,
        "target": cfg.target,
        "clock_ghz": ghz,
        "op": op,
        "mode": mode,
        "shape": f"{r}x{c}",
        "rows": r,
        "cols": c,
        "dtype": dt.name,
        "table_rows": trows,
        "conflict": conf,
        "cycles": cycles,
        "bytes": payload,
        "bytes_per_cycle": payload / cycles,
        "gbps": payload / cycles * ghz,
        "total_cycles": run.cycles,
    }


def row_vs_elem(
    devices="all",
    shapes=DEFAULT_SHAPES,
    dtype="float32",
    *,
    table_factor: int = 4,
    seed: int = 0,
    conflict: str = "default",
    progress: Callable[[str], None] | None = None,
) -> list[dict]:
    """Row vs Elem bandwidth of MGATHER and MSCATTER on each device and shape.

    Args:
        devices: ``"all"``, a name, a comma-separated string or a list of timed devices.
        shapes: ``"8x64,16x64"`` or a list of (R, C).
        dtype: element type of table and tiles (must be allowed on every device's target).
        table_factor: the table has ``max(table_factor * R, 64)`` rows of C columns.
        seed: seed of the random tables and indices.
        conflict: ScatterConflict of the 950 MSCATTERs, ``"default"`` (the plain stores; exact
            here because the indices are distinct) or ``"last"`` (the slot-centric scan, which
            costs O(R*C) per lane). Atlas A2/A3 has no conflict parameter.
        progress: called with a one-line message as each device starts and ends.

    Returns:
        One dict per (device, op, shape, mode) with keys device, config, target, clock_ghz, op,
        mode, shape ("RxC"), rows, cols, dtype, table_rows, conflict (None but on a 950
        MSCATTER), cycles, bytes, bytes_per_cycle,
        gbps, total_cycles and speedup (Row GB/s / Elem GB/s of that device, op and shape;
        the same value on the Row and the Elem row).

    Raises:
        PtoSimError: bad arguments (untimed device, dtype not allowed, misaligned shape ...).
        BenchError: a result differs from numpy (a ptosim bug).
    """
    devs = parse_devices(devices)
    shp = parse_shapes(DEFAULT_SHAPES if shapes is None else shapes)
    dt = D.dtype(dtype)
    _conflict(conflict)
    for name in devs:  # reject every bad argument before the first simulation
        cfg = load_config(name)
        _check_dtype(dt, cfg.target)
        for r, c in shp:
            _check_shape(r, c, dt, cfg)
    rows: list[dict] = []
    for k, name in enumerate(devs, 1):
        t0 = time.perf_counter()
        if progress:
            progress(f"bench: {name} ({k}/{len(devs)}): {len(shp)} shape(s) x 4 kernels ...")
        for shape in shp:
            for op in OPS:
                pair = [
                    measure(
                        name,
                        op,
                        mode,
                        shape,
                        dt,
                        table_factor=table_factor,
                        seed=seed,
                        conflict=conflict,
                    )
                    for mode in MODES
                ]
                speedup = pair[0]["gbps"] / pair[1]["gbps"]
                for row in pair:
                    row["speedup"] = speedup
                rows += pair
        if progress:
            progress(f"bench: {name} done in {time.perf_counter() - t0:.1f} s")
    return rows


# -- output ----------------------------------------------------------------------------------
def format_table(rows: list[dict]) -> str:
    """The rows as a fixed-width text table; the Row/Elem speed-up is printed on the Elem row."""
    head = (
        f"{'device':<7} {'op':<9} {'shape':>9} {'mode':<5} {'cycles':>9} {'B/cycle':>9} "
        f"{'GB/s':>9} {'Row/Elem':>9}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        speed = f"{row['speedup']:8.2f}x" if row["mode"] == "Elem" and "speedup" in row else ""
        lines.append(
            f"{row['device']:<7} {row['op']:<9} {row['shape']:>9} {row['mode']:<5} "
            f"{row['cycles']:>9} {row['bytes_per_cycle']:>9.3f} {row['gbps']:>9.3f} {speed:>9}"
        )
    return "\n".join(lines)


def plot(rows: list[dict], path, title: str | None = None) -> None:
    """GB/s vs shape, Row (solid) and Elem (dashed), one panel per op, one colour per device,
    log y-scale; saved as PNG at ``path``.

    Raises:
        ImportError: matplotlib is not installed (``pip install -e ".[plot]"``).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    shapes = list(dict.fromkeys(row["shape"] for row in rows))
    devices = list(dict.fromkeys(row["device"] for row in rows))
    colours = plt.get_cmap("tab10")
    styles = {"Row": ("-", "o"), "Elem": ("--", "s")}
    fig, axes = plt.subplots(1, len(OPS), figsize=(6.0 * len(OPS), 4.8), sharey=True, squeeze=False)
    x = np.arange(len(shapes))
    # a small sideways offset per device keeps coinciding curves (a2 and a3) both visible
    shift = {dev: 0.06 * (d - (len(devices) - 1) / 2) for d, dev in enumerate(devices)}
    for ax, op in zip(axes[0], OPS):
        for d, dev in enumerate(devices):
            for mode, (ls, marker) in styles.items():
                got = {
                    row["shape"]: row["gbps"]
                    for row in rows
                    if row["device"] == dev and row["op"] == op and row["mode"] == mode
                }
                xs = [i for i, s in enumerate(shapes) if s in got]
                ax.plot(
                    [i + shift[dev] for i in xs],
                    [got[shapes[i]] for i in xs],
                    linestyle=ls,
                    marker=marker,
                    markersize=5,
                    color=colours(d % 10),
                )
        ax.set_title(f"{op}: Row vs Elem")
        ax.set_xticks(x, shapes, rotation=30 if len(shapes) > 6 else 0)
        ax.set_xlabel("shape (R x C)")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("achieved GB/s (log scale)")
    handles = [
        Line2D([], [], color=colours(d % 10), lw=2, label=dev) for d, dev in enumerate(devices)
    ] + [
        Line2D([], [], color="black", linestyle=ls, marker=m, label=f"{mode} (coalesce)")
        for mode, (ls, m) in styles.items()
    ]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False)
    dtypes = ", ".join(dict.fromkeys(row["dtype"] for row in rows))
    fig.suptitle(title or f"ptosim: MGATHER / MSCATTER bandwidth, Row vs Elem ({dtypes})")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


__all__ = [
    "BenchError",
    "DEFAULT_SHAPES",
    "format_table",
    "measure",
    "parse_devices",
    "parse_shapes",
    "plot",
    "row_vs_elem",
    "timed_devices",
]
