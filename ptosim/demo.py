"""The demo kernel behind ``ptosim demo``: an embedding lookup (MGATHER Row) on every device."""

from __future__ import annotations

import numpy as np

from . import (
    EVENT_ID0,
    MGATHER,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_V,
    TASSIGN,
    TLOAD,
    TSTORE,
    Device,
    GlobalTensor,
    Tile,
    kernel,
    set_flag,
    wait_flag,
)

TABLE_ROWS, COLS, LOOKUPS = 1024, 64, 8


@kernel
def embedding_lookup(table, index, out):
    """out[r, :] = table[index[r], :] for 8 lookups of 64 float32 columns."""
    tab = GlobalTensor(table, shape=(1, 1, 1, TABLE_ROWS, COLS))
    idx_gm = GlobalTensor(index, shape=(1, 1, 1, 1, LOOKUPS))
    out_gm = GlobalTensor(out, shape=(1, 1, 1, LOOKUPS, COLS))
    dst = Tile("Vec", "float32", LOOKUPS, COLS, name="dst")
    idx = Tile("Vec", "int32", 1, LOOKUPS, name="idx")
    TASSIGN(dst, 0x0000)
    TASSIGN(idx, 0x1000)
    TLOAD(idx, idx_gm)
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
    MGATHER(dst, tab, idx, coalesce="row", oob="clamp")
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)
    TSTORE(out_gm, dst)


def run_demo(devices=("cpu", "a2", "a3", "950pr", "950dt"), seed: int = 0) -> bool:
    """Run the embedding lookup on each device, check it against numpy, print a report."""
    rng = np.random.default_rng(seed)
    table_host = rng.standard_normal((TABLE_ROWS, COLS)).astype(np.float32)
    # one index past the table: Clamp maps it to the last row
    index_host = np.array([3, 1023, 0, 512, 77, 5000, 9, 3], dtype=np.int32)
    expected = table_host[np.minimum(index_host, TABLE_ROWS - 1)]
    ok_all = True
    print("ptosim demo: embedding lookup, MGATHER<Coalesce::Row, GatherOOB::Clamp>")
    print(f"  table {TABLE_ROWS}x{COLS} float32, {LOOKUPS} lookups, indices {index_host.tolist()}")
    for name in devices:
        dev = Device(name)
        table = dev.gm_array(table_host)
        index = dev.gm_array(index_host)
        out = dev.gm_zeros((LOOKUPS, COLS), "float32")
        run = dev.run(embedding_lookup, table, index, out)
        ok = np.array_equal(out.numpy(), expected)
        ok_all &= ok
        cycles = "untimed" if run.cycles is None else f"{run.cycles} cycles"
        print(
            f"  {name:<6} target {dev.target:<5} {'exact' if ok else 'MISMATCH'} "
            f"({len(run.program)} instructions, {cycles}, {len(run.findings)} findings)"
        )
    print("all results exact" if ok_all else "some results differ from numpy")
    return ok_all
