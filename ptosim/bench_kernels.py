"""The kernels of ``ptosim bench row-vs-elem``, as a sweep kernel file (see ptosim/sweep.py).

Two kernels, each correctly synchronised (reference/semantics.md 4.3):

- ``gather``: TLOAD(idx); MTE2->V; MGATHER; V->MTE3; TSTORE(dst).
- ``scatter``: TLOAD(src); TLOAD(idx); MTE2->V; MSCATTER (ScatterAtomicOp::None, distinct
  indices, so the result is well defined).

The table has ``max(table_factor * R, 64)`` rows of C packed columns (the 950 Row rule
``shape[4] == C`` holds). The ``case`` parameter says which rows and columns are moved:

- ``Row``: R distinct random rows, whole rows, Coalesce::Row (idx [1, R]).
- ``Elem-rows``: the same R rows, whole rows, Coalesce::Elem (idx [R, C] = row * C + col):
  exactly the data of ``Row``, element by element.
- ``Elem-half``: the same R rows, only their first C/2 columns, Coalesce::Elem
  (idx [R, C/2]): a caller needing part of each row; Row would move whole rows.
- ``Elem``: R*C random distinct flat table elements, Coalesce::Elem (idx [R, C]).

Every case of one (op, shape, dtype, seed) uses the same table and the same rows. The ``check``
hooks compare the result bit-exactly with numpy and reject any finding (a ptosim bug); the
``metrics`` hook reports the span of the MGATHER/MSCATTER instruction as ``cycles`` and the
payload (the elements moved times their size) as ``bytes``.

This file is loaded as a kernel file (not imported as ptosim.bench_kernels), so it imports
ptosim by absolute name only.
"""

from __future__ import annotations

import numpy as np

import ptosim as pto
from ptosim import dtypes as D
from ptosim.sources import cycles_by_source, label

CASES = ("Row", "Elem-rows", "Elem-half", "Elem")
_OPS = ("MGATHER", "MSCATTER")


class BenchError(AssertionError):
    """A benchmark kernel produced a wrong result or a finding: a bug in ptosim."""


def used_cols(case: str, cols: int) -> int:
    """Columns of each row a case moves: C/2 (at least 1) for Elem-half, else C."""
    return max(cols // 2, 1) if case == "Elem-half" else cols


def table_rows(rows: int, table_factor: int) -> int:
    return max(table_factor * rows, 64)


def _host_values(rng, shape, dt: D.DType) -> np.ndarray:
    """Random values exactly representable in dt (hifloat8: raw bit patterns)."""
    vals = rng.integers(1, 100, size=shape)
    return vals.astype(np.uint8) if dt is D.hifloat8 else vals.astype(dt.np)


def host_case(op: str, case: str, shape, dtype, seed: int = 0, table_factor: int = 4) -> dict:
    """The host data of one case: table, index, source (scatter) and the expected result."""
    dt = D.dtype(dtype)
    r, c = shape
    trows = table_rows(r, table_factor)
    # one stream per (op, shape, seed): every case sees the same table, rows and source
    rng = np.random.default_rng([seed, r, c, _OPS.index(op)])
    table = _host_values(rng, (trows, c), dt)
    rows = rng.choice(trows, size=r, replace=False)
    src = _host_values(rng, (r, c), dt)
    u = used_cols(case, c)
    if case == "Row":
        idx = rows.reshape(1, r).astype(np.int32)
    elif case == "Elem":
        flat_rng = np.random.default_rng([seed, r, c, _OPS.index(op), 1])
        flat = flat_rng.choice(trows * c, size=r * c, replace=False)
        idx = flat.reshape(r, c).astype(np.int32)
    else:  # the same rows, element by element: row * C + col for the used columns
        idx = (rows[:, None] * c + np.arange(u)[None, :]).astype(np.int32)
    data = src[:, :u]
    if op == "MGATHER":
        expected = table[rows] if case == "Row" else table.reshape(-1)[idx]
    else:
        expected = table.copy()
        if case == "Row":
            expected[rows] = src
        else:
            expected.reshape(-1)[idx.reshape(-1)] = data.reshape(-1)
    return {"dt": dt, "table": table, "idx": idx, "src": data, "expected": expected}


def _tile(dt, rows: int, cols: int, name: str) -> pto.Tile:
    """A tile with valid (rows, cols), storage cols padded to 32 bytes."""
    per_block = 32 // dt.size_bytes if dt.size_bytes <= 32 else 1
    return pto.Tile(
        "Vec", dt, rows, -(-cols // per_block) * per_block, valid=(rows, cols), name=name
    )


@pto.kernel
def gather(table, index, out, *, case, rows, cols, used, trows, dtype):
    dt = D.dtype(dtype)
    tab = pto.GlobalTensor(table, (1, 1, 1, trows, cols))
    dst = _tile(dt, rows, used, "dst")
    idx_shape = (1, rows) if case == "Row" else (rows, used)
    idx = _tile(D.int32, *idx_shape, "idx")
    pto.TLOAD(idx, pto.GlobalTensor(index, (1, 1, 1) + idx_shape))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.MGATHER(dst, tab, idx, coalesce="row" if case == "Row" else "elem")
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, rows, used)), dst)


@pto.kernel
def scatter(table, source, index, *, case, rows, cols, used, trows, dtype, conflict):
    dt = D.dtype(dtype)
    src = _tile(dt, rows, used, "src")
    idx_shape = (1, rows) if case == "Row" else (rows, used)
    idx = _tile(D.int32, *idx_shape, "idx")
    pto.TLOAD(src, pto.GlobalTensor(source, (1, 1, 1, rows, used)))
    pto.TLOAD(idx, pto.GlobalTensor(index, (1, 1, 1) + idx_shape))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.MSCATTER(
        pto.GlobalTensor(table, (1, 1, 1, trows, cols)),
        src,
        idx,
        coalesce="row" if case == "Row" else "elem",
        atomic="none",
        conflict=conflict,
    )


def _conflict(dev, conflict: str) -> str | None:
    return conflict if dev.target == "a5" else None  # Atlas A2/A3 has no conflict parameter


def _kwargs(dev, case, shape, dtype, table_factor) -> dict:
    r, c = shape
    return {
        "case": case,
        "rows": r,
        "cols": c,
        "used": used_cols(case, c),
        "trows": table_rows(r, table_factor),
        "dtype": D.dtype(dtype).name,
    }


def inputs_gather(dev, *, case, shape, dtype, seed=0, table_factor=4, conflict="default"):
    h = host_case("MGATHER", case, shape, dtype, seed, table_factor)
    out = dev.gm_zeros(h["expected"].shape, h["dt"])
    args = (dev.gm_array(h["table"], h["dt"]), dev.gm_array(h["idx"]), out)
    return {"args": args, "kwargs": _kwargs(dev, case, shape, dtype, table_factor)}


def inputs_scatter(dev, *, case, shape, dtype, seed=0, table_factor=4, conflict="default"):
    h = host_case("MSCATTER", case, shape, dtype, seed, table_factor)
    args = (
        dev.gm_array(h["table"], h["dt"]),
        dev.gm_array(np.ascontiguousarray(h["src"]), h["dt"]),
        dev.gm_array(h["idx"]),
    )
    kwargs = _kwargs(dev, case, shape, dtype, table_factor)
    return {"args": args, "kwargs": {**kwargs, "conflict": _conflict(dev, conflict)}}


def ub_needed(shape, dtype) -> int:
    """UB bytes of the largest case (Elem): the RxC data tile plus the [R, C] int32 index."""
    r, c = shape
    dt = D.dtype(dtype)
    return -(-(r * c * dt.size_bytes) // 32) * 32 + r * (-(-c // 8) * 8) * 4


def run_options(dev, *, shape, dtype, **_):
    """A 950 kernel past the default SIMT UB budget declares its UB (up to 216 KiB)."""
    simt = dev.config.simt
    need = ub_needed(shape, dtype)
    if simt is not None and need > simt.default_dyn_ubuf_bytes:
        return {"dyn_ubuf_size": -(-need // 1024) * 1024}
    return {}


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _verify(op, dev, got, run, *, case, shape, dtype, seed=0, table_factor=4, **_):
    expected = host_case(op, case, shape, dtype, seed, table_factor)["expected"]
    r, c = shape
    where = f"{op} {case} {r}x{c} {D.dtype(dtype).name} on {dev.name}"
    if not _same_bits(got, expected):
        bad = int(np.count_nonzero(got != expected)) if got.shape == expected.shape else -1
        raise BenchError(f"{where}: result differs from numpy ({bad} elements wrong)")
    if run.findings:
        raise BenchError(f"{where}: unexpected findings: " + "; ".join(map(str, run.findings)))


def check_gather(dev, args, run, **params):
    _verify("MGATHER", dev, args[2].numpy(), run, **params)


def check_scatter(dev, args, run, **params):
    _verify("MSCATTER", dev, args[0].numpy(), run, **params)


def _metrics(op, dev, run, *, case, shape, dtype, table_factor=4, **_):
    states = [s for s in run.instructions if s.instr.opcode == op and s.start is not None]
    if len(states) != 1:
        raise BenchError(f"expected one timed {op} instruction, found {len(states)}")
    r, c = shape
    pos = states[0].instr.position
    mine = [e for e in run.trace.events if e.instr == pos and not e.pipe.startswith("SIMT_SCHED")]
    return {
        "op": op,
        "mode": case,
        "timing_source": label(cycles_by_source(run, mine)),
        "cycles": max(states[0].end - states[0].start, 1),
        "bytes": r * used_cols(case, c) * D.dtype(dtype).size_bytes,
        "row_bytes": c * D.dtype(dtype).size_bytes,
        "table_rows": table_rows(r, table_factor),
        "total_cycles": run.cycles,
    }


def metrics_gather(dev, args, run, **params):
    return _metrics("MGATHER", dev, run, **params)


def metrics_scatter(dev, args, run, **params):
    return _metrics("MSCATTER", dev, run, **params)
