"""Row vs Elem for a whole embedding lookup (``ptosim bench row-vs-elem --table ... --lookups
... --cores ...``): the verdict a user's own multi-core kernel gets.

A single MGATHER on one core (the shape study of ptosim/bench.py) leaves out what decides a
real embedding: every core's index loads and output stores around its gathers, and all the
cores sharing the chip's GM bandwidth. This study runs the whole kernel, both ways, on
``cores`` blocks (the chip memory system of engine/chip.py sees them all):

- each block takes ``ceil(lookups / cores)`` consecutive token ids (the last block fewer),
  in tiles of ``tile`` rows: TLOAD of the ids, MTE2 -> V, MGATHER, V -> MTE3, TSTORE of the
  rows, then MTE3 -> MTE2 before the next tile reuses the buffers (correctly synchronised, one
  buffer: both modes get the same schedule around the gather);
- ``Row``: MGATHER<Row> of the ids (an index tile [1, tile]);
- ``Elem``: MGATHER<Elem> of the same rows element by element (an index tile [tile, C] of
  ``id * C + column``, built on the host like a caller that wants element gathers would).

Each run is checked bit-exactly against numpy (a mismatch or a finding is a ptosim bug:
BenchError). The verdict: Row or Elem when one is more than ``TIE`` (5 %) faster over the
whole kernel, else a tie. GB/s is the payload (lookups x C x sizeof(T)) per simulated second
at the device's clock.
"""

from __future__ import annotations

import numpy as np

import ptosim as pto

from . import dtypes as D
from .bench import TIE, BenchError
from .errors import KernelError
from .sources import label
from .summary import critical_path, path_sources

MODES = ("Row", "Elem")


def default_tile(cols: int, dtype, ub_bytes: int, per_core: int) -> int:
    """Rows per tile: at most 64, at most the block's share, and the Elem case's data and
    index tiles within half the UB."""
    row_bytes = cols * D.dtype(dtype).size_bytes + cols * 4
    fit = max(1, (ub_bytes // 2) // row_bytes)
    return max(1, min(64, per_core, fit))


@pto.kernel
def embedding(table, ids, out, *, mode, cols, lookups, per_core, tile, dtype, trows):
    dt = D.dtype(dtype)
    b = pto.get_block_idx()
    first = b * per_core
    count = max(0, min(per_core, lookups - first))
    tab = pto.GlobalTensor(table, (1, 1, 1, trows, cols))
    starts = list(range(first, first + count, tile))
    for k, r0 in enumerate(starts):
        n = min(tile, first + count - r0)
        dst = pto.Tile("Vec", dt, tile, cols, valid=(n, cols), name="rows")
        if mode == "Row":
            idx = pto.Tile("Vec", D.int32, 1, -(-tile // 8) * 8, valid=(1, n), name="ids")
            idx_gm = pto.GlobalTensor(ids, (1, 1, 1, 1, n), offset=r0)
        else:
            idx = pto.Tile("Vec", D.int32, tile, -(-cols // 8) * 8, valid=(n, cols), name="idx")
            idx_gm = pto.GlobalTensor(ids, (1, 1, 1, n, cols), offset=r0 * cols)
        if k:
            pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, pto.EVENT_ID1)
        pto.TLOAD(idx, idx_gm)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.MGATHER(dst, tab, idx, coalesce="row" if mode == "Row" else "elem")
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, n, cols), offset=r0 * cols), dst)
        if k + 1 < len(starts):
            pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, pto.EVENT_ID1)


def host_data(table_rows: int, cols: int, dtype, lookups: int, seed: int = 0):
    """(table, token ids): random exactly representable values, ids with repeats."""
    dt = D.dtype(dtype)
    rng = np.random.default_rng([seed, table_rows, cols, lookups])
    vals = rng.integers(1, 100, size=(table_rows, cols))
    table = vals.astype(np.uint8) if dt is D.hifloat8 else vals.astype(dt.np)
    ids = rng.integers(0, table_rows, size=lookups).astype(np.int32)
    return table, ids


def _check(table_rows, cols, dtype, lookups, cores) -> None:
    for what, v in (("table rows", table_rows), ("columns", cols), ("lookups", lookups)):
        if int(v) < 1:
            raise KernelError(f"embedding bench: {what} must be >= 1, got {v}")
    if int(cores) < 1:
        raise KernelError(f"embedding bench: cores must be >= 1, got {cores}")
    if (cols * D.dtype(dtype).size_bytes) % 32:
        raise KernelError(
            f"embedding bench: a row of {cols} {D.dtype(dtype).name} is "
            f"{cols * D.dtype(dtype).size_bytes} bytes; rows must be a multiple of 32 bytes"
        )


def run_mode(device, mode, table_rows, cols, dtype, lookups, cores, *, tile=None, seed=0):
    """One full kernel run: returns (run, payload bytes); the result is checked."""
    dev = pto.Device(device)
    _check(table_rows, cols, dtype, lookups, cores)
    if cores > dev.config.vector_cores:
        raise KernelError(
            f"embedding bench: {cores} cores, but {dev.name} has {dev.config.vector_cores}"
        )
    dt = D.dtype(dtype)
    per_core = -(-lookups // cores)
    ub = dev.config.memory.ub_size_bytes
    if dev.config.simt is not None:
        ub = dev.config.simt_max_dyn_ubuf_bytes
    tile = tile or default_tile(cols, dt, ub, per_core)
    table, ids = host_data(table_rows, cols, dt, lookups, seed)
    if mode == "Row":
        index = ids
    else:
        index = (ids[:, None].astype(np.int64) * cols + np.arange(cols)).astype(np.int32)
    out = dev.gm_zeros((lookups, cols), dt)
    args = (dev.gm_array(table, dt), dev.gm_array(index), out)
    options = {}
    if dev.config.simt is not None:
        options["dyn_ubuf_size"] = dev.config.simt_max_dyn_ubuf_bytes
    run = dev.run(
        embedding,
        *args,
        block_dim=cores,
        mode=mode,
        cols=cols,
        lookups=lookups,
        per_core=per_core,
        tile=tile,
        dtype=dt.name,
        trows=table_rows,
        **options,
    )
    got, want = out.numpy(), table[ids]
    if got.tobytes() != np.ascontiguousarray(want).tobytes():
        raise BenchError(f"embedding {mode} on {dev.name}: result differs from numpy")
    if run.findings:
        raise BenchError(f"embedding {mode} on {dev.name}: " + "; ".join(map(str, run.findings)))
    return run, lookups * cols * dt.size_bytes, tile


def compare(devices, table_rows, cols, dtype, lookups, cores, *, tile=None, seed=0) -> list[dict]:
    """Row and Elem on each device: one dict per (device, mode) with cycles, us, payload GB/s,
    the timing source of the cycles, and (on both rows) the device's verdict."""
    rows = []
    for device in devices:
        pair = []
        for mode in MODES:
            run, payload, used_tile = run_mode(
                device, mode, table_rows, cols, dtype, lookups, cores, tile=tile, seed=seed
            )
            t = run.config.timing
            pair.append(
                {
                    "device": run.device,
                    "mode": mode,
                    "table": f"{table_rows}x{cols}",
                    "dtype": D.dtype(dtype).name,
                    "lookups": lookups,
                    "cores": cores,
                    "tile": used_tile,
                    "cycles": run.cycles,
                    "us": run.cycles / t.clock_ghz / 1000,
                    "bytes": payload,
                    "gbps": payload / run.cycles * t.clock_ghz,
                    "clock_ghz": t.clock_ghz,
                    "timing_source": label(path_sources(critical_path(run))),
                }
            )
        row, elem = pair
        ratio = elem["cycles"] / row["cycles"]
        verdict = verdict_of(ratio)
        for r in pair:
            r["elem_over_row"] = ratio
            r["verdict"] = verdict
        rows += pair
    return rows


def verdict_of(elem_over_row: float) -> str:
    """``Row`` (Row more than TIE faster), ``Elem`` (Elem more than TIE faster) or ``tie``."""
    if elem_over_row > TIE:
        return "Row"
    if elem_over_row < 1 / TIE:
        return "Elem"
    return "tie"


def format_table(rows: list[dict]) -> str:
    head = f"{'device':<7} {'mode':<5} {'cycles':>10} {'us':>9} {'GB/s':>8}  {'timing source':<28}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['device']:<7} {r['mode']:<5} {r['cycles']:>10} {r['us']:>9.2f} "
            f"{r['gbps']:>8.2f}  {r['timing_source']:<28}"
        )
    lines.append("")
    for r in rows[::2]:
        x = r["elem_over_row"]
        what = {
            "Row": f"Row is {x:.2f}x faster",
            "Elem": f"Elem is {1 / x:.2f}x faster",
            "tie": f"a tie (within {round((TIE - 1) * 100)} %)",
        }[r["verdict"]]
        lines.append(
            f"{r['device']}: {what} for {r['lookups']} lookups of a {r['table']} {r['dtype']} "
            f"table on {r['cores']} cores (tiles of {r['tile']} rows)"
        )
    return "\n".join(lines)
