"""Sweeps: a grid of kernel x shape x dtype x device x config overrides, one simulation per point.

``ptosim sweep SPEC.toml`` (or ``run_sweep(load_spec(path), output)``) runs every point of the
grid as an independent simulation on Dask: a ``dask.distributed`` LocalCluster by default (a
local process pool, no set-up), an existing cluster (``scheduler="tcp://host:8786"``), or this
process (``scheduler="inline"``, no Dask needed). Dask, distributed and pyarrow are the optional
``sweep`` extra (``pip install -e ".[sweep]"``); nothing else in ptosim imports them.

The spec (TOML; paths are relative to the spec file)::

    name = "row_gather"                    # default output: row_gather.parquet (or .csv)
    kernels = ["row_gather.py"]            # FILE.py[:kernel]; FILE.py = each kernel it defines
    devices = ["a2", "950pr"]              # names, .toml configs, or "all"
    dtypes = ["float32", "half"]           # optional axis, passed as dtype="float32"
    shapes = [[16, 64], [32, 128]]         # optional axis, passed as shape=(16, 64)

    [params]                               # optional axes, each passed by name
    fraction = [1.0, 0.5]

    [overrides]                            # optional axes of config values (as --set KEY=VALUE)
    "timing.simt.gm_latency_cycles" = [400, 800]

The kernel file follows the kernel-file convention of ptosim/kernelfile.py, with the point's
parameters passed as keyword arguments (only the axes the spec has):

- ``inputs(dev, **params)`` (or ``inputs_<kernel>``) returns the kernel's arguments: a tuple,
  or a dict with ``args`` and ``kwargs`` (kwargs go to the kernel body, so it can size its tiles
  from plain ints). ``PARAMS = {"fraction": 1.0}`` gives defaults for parameters the spec omits.
- optional ``check(dev, args, run, **params)``: False or AssertionError = a wrong result.
- optional ``metrics(dev, args, run, **params)``: a dict of extra columns; it may redefine
  ``cycles`` and ``bytes`` (e.g. one instruction's span and payload instead of the whole run).
- optional ``RUN_OPTIONS`` (a dict) or ``run_options(dev, **params)`` (a function): options of
  ``Device.run`` such as ``dyn_ubuf_size`` or ``block_dim``.

The kernel files must be readable at the same path on every worker (a shared file system), and
ptosim importable there.

The table has one row per point (``read_table`` reads it back): the inputs (``point_id``,
``kernel``, ``device``, ``dtype``, ``shape`` as ``"RxC"``, one column per parameter and per
override key), then ``status`` (``ok``, ``check-failed`` or ``error``), ``error`` (one line),
``cycles``, ``busy_<pipe>`` per pipe, ``bytes`` (the GM bytes the run moved: DMA, SIMT and
scalar GM accesses, ptosim/traffic.py; unless ``metrics`` redefines it), ``gbps`` (bytes per
simulated second at the device's clock: bytes / cycles x clock, comparable across devices),
``clock_ghz``, ``timing_source`` (what the cycles rest on: the critical path's cycles by source
kind, hardware-fitted / vendor-model / public-figure / estimate), ``findings`` (count),
``finding_codes``, ``check`` (True, False or empty when the file has none), ``wall_s``, and the
``metrics`` columns. It is written as Parquet when the output ends in ``.parquet`` (needs
pyarrow), as CSV when it ends in ``.csv``; the default output is ``<name>.parquet`` when pyarrow
is installed, ``<name>.csv`` otherwise. It is rewritten every few seconds while the sweep runs,
so an interrupted sweep resumes: points already in the output are skipped (``retry_failed`` runs the
failed ones again). A failing point records its error and the sweep goes on. Rows are sorted in
grid order (kernels, devices, dtypes, shapes, params, overrides), so the same spec gives the same
table, but for ``wall_s``.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import itertools
import json
import logging
import math
import os
import sys
import sysconfig
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from . import sources
from .config import available_devices, load_config
from .device import Device
from .errors import ConfigError, KernelError, PtoSimError
from .kernelfile import _split, load, load_all
from .summary import critical_path, path_sources
from .traffic import run_gm_bytes

PIPES = ("S", "V", "MTE1", "MTE2", "MTE3", "M", "FIX")
INPUT_COLUMNS = ("point_id", "kernel", "device", "dtype", "shape")
RESULT_COLUMNS = (
    ("status", "error", "cycles")
    + tuple(f"busy_{p}" for p in PIPES)
    + ("bytes", "gbps", "clock_ghz", "timing_source", "findings", "finding_codes", "check")
    + ("wall_s",)
)
_RESERVED = set(INPUT_COLUMNS) | set(RESULT_COLUMNS)
_FLUSH_EVERY_S = 5.0  # how often a running sweep rewrites its output (for resuming)


# -- the spec -------------------------------------------------------------------------------
class SweepSpec(BaseModel):
    """A sweep: the grid axes and where the kernel files are (``base_dir``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = "sweep"
    kernels: list[str]
    devices: list[str]
    dtypes: list[str] = []
    shapes: list[tuple[int, ...]] = []
    params: dict[str, list[str | int | float | bool]] = {}
    overrides: dict[str, list[str | int | float | bool]] = {}
    base_dir: Path = Path(".")

    @field_validator("kernels", "devices")
    @classmethod
    def _non_empty(cls, value, info):
        if not value:
            raise ValueError(f"{info.field_name} must list at least one entry")
        return value

    @field_validator("devices", mode="before")
    @classmethod
    def _one_device(cls, value):
        return [value] if isinstance(value, str) else value

    @field_validator("shapes")
    @classmethod
    def _positive(cls, value):
        for shape in value:
            if not shape or any(d < 1 for d in shape):
                raise ValueError(f"shape {list(shape)} must have dimensions >= 1")
        return value

    @field_validator("params", "overrides")
    @classmethod
    def _axes(cls, value, info):
        for key, values in value.items():
            if not values:
                raise ValueError(f"{info.field_name}.{key} must list at least one value")
            if info.field_name == "params" and (not key.isidentifier() or key in _RESERVED):
                raise ValueError(
                    f"params.{key}: a parameter name must be a Python identifier other than "
                    f"{', '.join(sorted(_RESERVED))}"
                )
        return value


def load_spec(path) -> SweepSpec:
    """Read a sweep spec TOML; its kernel paths are relative to its folder.

    Raises:
        ConfigError: missing file, bad TOML, unknown key or a bad value.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"no such sweep spec: {path}")
    try:
        raw = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: bad TOML: {exc}") from None
    raw.setdefault("name", p.stem)
    return make_spec(base_dir=p.resolve().parent, where=str(p), **raw)


def make_spec(where: str = "sweep spec", **fields) -> SweepSpec:
    """A SweepSpec from keyword fields (the TOML keys).

    Raises:
        ConfigError: an unknown key or a bad value, naming the key.
    """
    try:
        return SweepSpec(**fields)
    except ValidationError as exc:
        msgs = [f"{'.'.join(map(str, e['loc'])) or 'spec'}: {e['msg']}" for e in exc.errors()]
        raise ConfigError(f"{where}: " + "; ".join(msgs)) from None


# -- points ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """One simulation of the grid; ``columns`` are its input columns in the table."""

    index: int
    kernel: str  # as the spec names it: FILE.py:kernel
    path: str  # the kernel file, absolute
    name: str  # the kernel
    device: str
    dtype: str | None
    shape: tuple[int, ...] | None
    params: tuple[tuple[str, object], ...]
    overrides: tuple[tuple[str, object], ...]

    @property
    def point_id(self) -> str:
        """A stable hash of the inputs: the key that resuming matches on."""
        key = [self.kernel, self.device, self.dtype, self.shape, self.params, self.overrides]
        return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]

    def kernel_params(self) -> dict:
        out = dict(self.params)
        if self.dtype is not None:
            out["dtype"] = self.dtype
        if self.shape is not None:
            out["shape"] = tuple(self.shape)
        return out

    def columns(self) -> dict:
        shape = None if self.shape is None else "x".join(map(str, self.shape))
        row = {
            "point_id": self.point_id,
            "kernel": self.kernel,
            "device": self.device,
            "dtype": self.dtype,
            "shape": shape,
        }
        row.update(self.params)
        row.update(self.overrides)
        return row


def _devices(names: Iterable[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        for n in available_devices() if name.strip().lower() == "all" else [name.strip()]:
            load_config(n)  # an unknown device fails before anything runs
            if n not in out:
                out.append(n)
    return out


def _kernels(spec: SweepSpec) -> list[tuple[str, str, str]]:
    """(label, absolute path, kernel name) of each kernel the spec names, in order."""
    out = []
    for entry in spec.kernels:
        file, _ = _split(entry)
        path = Path(file) if Path(file).is_absolute() else spec.base_dir / file
        for ks in load_all(str(path) + entry[len(file) :]):
            out.append((f"{file}:{ks.kernel.name}", str(path.resolve()), ks.kernel.name))
    return out


def points(spec: SweepSpec) -> list[Point]:
    """The grid in order: kernels, devices, dtypes, shapes, params, overrides.

    Raises:
        KernelError: a missing kernel file or kernel. ConfigError: an unknown device or an
            override that does not validate on a device.
    """
    devices = _devices(spec.devices)
    for device in devices:  # a bad override key fails now, not once per point
        for combo in itertools.product(*spec.overrides.values()):
            load_config(device, dict(zip(spec.overrides, combo)))
    params = [tuple(zip(spec.params, c)) for c in itertools.product(*spec.params.values())]
    overrides = [tuple(zip(spec.overrides, c)) for c in itertools.product(*spec.overrides.values())]
    grid = itertools.product(
        _kernels(spec),
        devices,
        spec.dtypes or [None],
        spec.shapes or [None],
        params,
        overrides,
    )
    return [
        Point(i, label, path, name, dev, dt, shape, ps, ov)
        for i, ((label, path, name), dev, dt, shape, ps, ov) in enumerate(grid)
    ]


# -- one point ------------------------------------------------------------------------------
_LOADED: dict[tuple[str, str, int], object] = {}


def _kernel_spec(path: str, name: str):
    """The kernel file's KernelSpec, loaded once per worker process (and file version)."""
    key = (path, name, os.stat(path).st_mtime_ns)
    if key not in _LOADED:
        _LOADED[key] = load(f"{path}:{name}")
    return _LOADED[key]


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    if not isinstance(exc, PtoSimError):
        text = f"{type(exc).__name__}: {text}"
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def _run_options(ks, dev, params: dict) -> dict:
    options = ks.run_options()
    fn = ks._hook("run_options")
    if callable(fn):
        options.update(fn(dev, **params) or {})
    return options


def _measures(run) -> dict:
    """The run's columns: cycles, busy per pipe, GM bytes (traffic.py: what compares across
    devices), the clock, and what the cycles rest on (the critical path's source kinds)."""
    busy = run.pipe_busy
    codes = sorted({f.code for f in run.findings if getattr(f, "code", None)})
    timed = run.cycles is not None
    return {
        "cycles": run.cycles,
        **{f"busy_{p}": busy.get(f"PIPE_{p}") if timed else None for p in PIPES},
        "bytes": run_gm_bytes(run) if timed else None,
        "clock_ghz": run.config.timing.clock_ghz if timed else None,
        "timing_source": sources.label(path_sources(critical_path(run))) if timed else None,
        "findings": len(run.findings),
        "finding_codes": ",".join(codes) or None,
    }


def run_point(point: Point) -> dict:
    """Simulate one point and return its table row. Never raises for a failing point: the
    error goes into the row (``status`` ``error`` or ``check-failed``, ``error`` says why)."""
    t0 = time.perf_counter()
    row = point.columns()
    row.update(dict.fromkeys(RESULT_COLUMNS))
    row["status"] = "ok"
    try:
        ks = _kernel_spec(point.path, point.name)
        params = {**dict(getattr(ks.module, "PARAMS", {}) or {}), **point.kernel_params()}
        dev = Device(point.device, overrides=dict(point.overrides) or None)
        args, kwargs = ks.build_inputs(dev, **params)
        run = dev.run(ks.kernel, *args, **_run_options(ks, dev, params), **kwargs)
        row.update(_measures(run))
        metrics = ks._hook("metrics")
        if metrics is not None:
            extra = dict(metrics(dev, args, run, **params) or {})
            clash = sorted((set(extra) & set(point.columns())) | (set(extra) & {"status"}))
            if clash:
                raise KernelError(f"metrics() returned input columns {clash}: rename them")
            row.update(extra)
        if row["cycles"] and row["bytes"] is not None and dev.config.timing is not None:
            row["gbps"] = row["bytes"] / row["cycles"] * dev.config.timing.clock_ghz
        check = ks._hook("check")
        if check is not None:
            try:
                verdict = check(dev, args, run, **params)
                row["check"] = True if verdict is None else bool(verdict)
                if not row["check"]:
                    row["status"], row["error"] = "check-failed", "check() returned False"
            except AssertionError as exc:
                row["check"] = False
                row["status"] = "check-failed"
                row["error"] = _one_line(exc) if str(exc) else "check() raised AssertionError"
    except Exception as exc:  # a failing point is a row, not the end of the sweep
        row["status"], row["error"] = "error", _one_line(exc)
    row["wall_s"] = time.perf_counter() - t0
    return row


# -- tables ---------------------------------------------------------------------------------
def has_pyarrow() -> bool:
    try:
        # pyarrow is the optional extra "sweep" (Parquet tables): probed, never required
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def default_output(spec: SweepSpec) -> Path:
    """``<name>.parquet`` when pyarrow is installed, ``<name>.csv`` otherwise."""
    return Path(f"{spec.name}.{'parquet' if has_pyarrow() else 'csv'}")


def _format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        if not has_pyarrow():
            raise KernelError(
                f'{path}: writing Parquet needs pyarrow (pip install -e ".[sweep]"); '
                "or give a .csv output"
            )
        return "parquet"
    if suffix == ".csv":
        return "csv"
    raise KernelError(f"{path}: the sweep output must end in .parquet or .csv")


def _columns(rows: list[dict], leading: Iterable[str] = ()) -> list[str]:
    """The input columns, then ``leading`` (parameters and overrides), the standard results,
    and any other column (metrics) in order of first appearance."""
    head = list(dict.fromkeys([*INPUT_COLUMNS, *leading]))
    known = set(head) | set(RESULT_COLUMNS)
    extra = dict.fromkeys(k for row in rows for k in row if k not in known)
    return head + list(RESULT_COLUMNS) + list(extra)


def write_table(rows: list[dict], path, leading: Iterable[str] = ()) -> None:
    """Write the rows (Parquet or CSV, by the suffix) atomically: a temporary file replaces
    ``path``, so an interrupted write never leaves a half table behind. ``leading``: the
    parameter and override columns, placed after the standard input columns."""
    path = Path(path)
    kind = _format(path)
    cols = _columns(rows, leading)
    tmp = path.with_name(path.name + ".tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "parquet":
        # the optional extra "sweep": only a Parquet table needs pyarrow
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = {}
        for col in cols:
            values = [row.get(col) for row in rows]
            try:
                arrays[col] = pa.array(values)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # mixed types: as text
                arrays[col] = pa.array([None if v is None else str(v) for v in values])
        pq.write_table(pa.table(arrays), tmp)
    else:
        with open(tmp, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: "" if row.get(k) is None else row.get(k) for k in cols})
    os.replace(tmp, path)


def _cell(text: str):
    """A CSV cell back to a value: '' -> None, then bool, int, float or the text."""
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_table(path) -> list[dict]:
    """The rows of a sweep table (Parquet or CSV).

    Raises:
        KernelError: an unknown suffix, or Parquet without pyarrow.
    """
    path = Path(path)
    if _format(path) == "parquet":
        import pyarrow.parquet as pq  # the optional extra "sweep": Parquet tables only

        rows = pq.read_table(path).to_pylist()
        return [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in rows
        ]
    with open(path, newline="") as fh:
        return [{k: _cell(v) for k, v in row.items()} for row in csv.DictReader(fh)]


# -- running --------------------------------------------------------------------------------
class _Progress:
    """A one-line progress bar on stderr (a line per 10 % when stderr is not a terminal), or
    a callback ``progress(done, total, row)``."""

    def __init__(self, total: int, skipped: int, progress):
        self.total, self.done, self.failed, self.skipped = total, 0, 0, skipped
        self.callback = progress if callable(progress) else None
        self.show = bool(progress) and self.callback is None
        self.tty = sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self.last_decile = -1
        if self.show and skipped:
            print(
                f"sweep: {skipped} of {total + skipped} points already in the output, skipped",
                file=sys.stderr,
                flush=True,
            )

    def update(self, row: dict) -> None:
        self.done += 1
        self.failed += row.get("status") != "ok"
        if self.callback is not None:
            self.callback(self.done, self.total, row)
        if not self.show:
            return
        decile = self.done * 10 // max(self.total, 1)
        if not self.tty and decile == self.last_decile and self.done != self.total:
            return
        self.last_decile = decile
        width = 30
        filled = width * self.done // max(self.total, 1)
        elapsed = time.perf_counter() - self.t0
        eta = elapsed / self.done * (self.total - self.done)
        text = (
            f"sweep [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} points"
            f", {self.failed} failed, {elapsed:.0f} s elapsed, ~{eta:.0f} s left"
        )
        end = "\n" if not self.tty or self.done == self.total else ""
        print(("\r" if self.tty else "") + text, end=end, file=sys.stderr, flush=True)


def _inline(todo: list[Point]):
    for point in todo:
        yield run_point(point)


def _shadows_stdlib(entry: str) -> bool:
    """Whether a sys.path folder holds a module named like a stdlib one (``copy.py``)."""
    try:
        names = os.listdir(entry or os.getcwd())
    except OSError:
        return False
    return any(n.endswith(".py") and n[:-3] in sys.stdlib_module_names for n in names)


@contextlib.contextmanager
def _worker_sys_path():
    """Worker processes start with this process's sys.path, which holds the folder of every
    kernel file loaded so far (ptosim/kernelfile.py puts it first). One named like a stdlib
    module (``copy.py``) would break the worker's imports, so such folders are left out while
    the workers start (a worker adds a kernel file's folder itself when it loads the file)."""
    saved = list(sys.path)
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    real = [os.path.realpath(p or os.getcwd()) for p in saved]
    first = real.index(stdlib) if stdlib in real else len(saved)  # only earlier ones shadow
    sys.path[:] = [p for i, p in enumerate(saved) if i >= first or not _shadows_stdlib(p)]
    try:
        yield
    finally:
        sys.path[:] = saved


def _client(scheduler: str | None, workers: int | None):
    """A dask.distributed Client and the LocalCluster it owns (None for an existing cluster)."""
    try:
        # dask is the optional extra "sweep": only a sweep on a cluster imports it
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise KernelError(
            'sweeps on Dask need dask[distributed]: pip install -e ".[sweep]" (or use '
            "scheduler='inline' to run the points in this process)"
        ) from None
    if scheduler not in (None, "local"):
        return Client(scheduler, timeout="30s"), None

    with _worker_sys_path():
        cluster = LocalCluster(
            n_workers=workers or max(1, min(os.cpu_count() or 1, 8)),
            threads_per_worker=1,  # a simulation holds the GIL: one point per process at a time
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    return Client(cluster), cluster


def _on_dask(todo: list[Point], scheduler: str | None, workers: int | None):
    from dask.distributed import as_completed  # the optional extra "sweep" (see _client)

    client, cluster = _client(scheduler, workers)
    try:
        futures = {client.submit(run_point, p, pure=False, retries=0): p for p in todo}
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except Exception as exc:  # the worker died (KilledWorker ...): record it too
                row = futures[fut].columns()
                row.update(dict.fromkeys(RESULT_COLUMNS))
                row["status"], row["error"] = "error", _one_line(exc)
                yield row
            fut.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_sweep(
    spec: SweepSpec,
    output=None,
    scheduler: str | None = None,
    progress: bool | Callable = True,
    *,
    retry_failed: bool = False,
    workers: int | None = None,
) -> list[dict]:
    """Run every point of the spec not already in ``output`` and return the whole table.

    Args:
        spec: the grid (``load_spec(path)`` or ``make_spec(...)``).
        output: the table file (``.parquet`` or ``.csv``), or None to keep nothing on disk.
        scheduler: None or ``"local"``: a new LocalCluster of ``workers`` processes (default:
            the number of cores, at most 8) x 1 thread, closed at the end; ``"tcp://host:8786"``:
            an existing Dask cluster; ``"inline"``: this process, one point after the other.
        progress: True for a progress bar on stderr, False for none, or a callable
            ``progress(done, total, row)``.
        retry_failed: also run again the points whose row in ``output`` is not ``ok``.
        workers: LocalCluster size.

    Returns:
        The rows, in grid order (rows of ``output`` that are not in the grid come last).

    Raises:
        PtoSimError: a bad spec (file, kernel, device, override) or output; never a failing
            point (its row records the error).
    """
    grid = points(spec)
    path = None if output is None else Path(output)
    if path is not None:
        _format(path)  # a bad suffix or a missing pyarrow fails before any simulation
    done: dict[str, dict] = {}
    if path is not None and path.exists():
        rows = read_table(path)
        missing = [c for c in INPUT_COLUMNS if rows and c not in rows[0]]
        if missing:
            raise KernelError(
                f"sweep: output {path} exists and is not a sweep table (no column "
                f"{', '.join(repr(c) for c in missing)}): give another -o path, or remove the "
                "file; an existing sweep table is resumed"
            )
        done = {row["point_id"]: row for row in rows}
    todo = [
        p
        for p in grid
        if p.point_id not in done or (retry_failed and done[p.point_id].get("status") != "ok")
    ]
    leading = [*spec.params, *spec.overrides]
    ids = [p.point_id for p in grid]

    def table() -> list[dict]:
        rows = [done[i] for i in ids if i in done]
        return rows + [r for i, r in done.items() if i not in set(ids)]

    bar = _Progress(len(todo), len(grid) - len(todo), progress)
    last = time.perf_counter()
    if todo:
        run = _inline(todo) if scheduler == "inline" else _on_dask(todo, scheduler, workers)
        try:
            for row in run:
                done[row["point_id"]] = row
                bar.update(row)
                if path is not None and time.perf_counter() - last > _FLUSH_EVERY_S:
                    write_table(table(), path, leading)
                    last = time.perf_counter()
        finally:  # an interrupted sweep keeps what it has done
            if path is not None:
                write_table(table(), path, leading)
    cols = _columns(table(), leading)
    return [{c: row.get(c) for c in cols} for row in table()]


__all__ = [
    "INPUT_COLUMNS",
    "PIPES",
    "RESULT_COLUMNS",
    "Point",
    "SweepSpec",
    "default_output",
    "has_pyarrow",
    "load_spec",
    "make_spec",
    "points",
    "read_table",
    "run_point",
    "run_sweep",
    "write_table",
]
