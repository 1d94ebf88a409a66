"""Embedding lookup: ``out[r, :] = table[index[r], :]`` with MGATHER<Row, Clamp>.

A 1024 x 64 float32 embedding table in GM, 16 token ids per call. Two ids are out of range
(``1024`` and ``-1``, which reads as 0xFFFFFFFF, D2): GatherOOB::Clamp maps both to the last
row, the usual way to point padding ids at a reserved row.

Synchronisation (the documented gather pattern): TLOAD(idx); MTE2->V; MGATHER; V->MTE3;
TSTORE. The gather runs on PIPE_V (a5 SIMT launch) or is driven from PIPE_S (a2a3 library
chain), and either way the caller orders the index load before it and the store after it.

Run it: ``python -m ptosim run examples/embedding_lookup.py --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
TABLE_ROWS, DIM, LOOKUPS = 1024, 64, 16


@pto.kernel
def embedding_lookup(table, ids, out):
    tab = pto.GlobalTensor(table, shape=(1, 1, 1, TABLE_ROWS, DIM))
    ids_gm = pto.GlobalTensor(ids, shape=(1, 1, 1, 1, LOOKUPS))
    out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, LOOKUPS, DIM))
    rows = pto.Tile("Vec", "float32", LOOKUPS, DIM, name="rows")
    idx = pto.Tile("Vec", "int32", 1, LOOKUPS, name="idx")
    pto.TASSIGN(rows, 0x0000)
    pto.TASSIGN(idx, 0x4000)
    pto.TLOAD(idx, ids_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.MGATHER(rows, tab, idx, coalesce="row", oob="clamp")
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(out_gm, rows)


def host_data(seed: int = 5):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((TABLE_ROWS, DIM)).astype(np.float32)
    ids = rng.integers(0, TABLE_ROWS, LOOKUPS).astype(np.int32)
    ids[3], ids[11] = TABLE_ROWS, -1  # out of range: clamped to the last row
    ids[7] = ids[2]  # a repeated token
    return table, ids


def inputs(dev):
    table, ids = host_data()
    return dev.gm_array(table), dev.gm_array(ids), dev.gm_zeros((LOOKUPS, DIM), "float32")


def check(dev, args, run):
    table, ids, out = args
    # independent reference: uint32 reading of the ids (D2), then clamp to the last row
    rows = np.minimum(ids.numpy().astype(np.int64) % 2**32, TABLE_ROWS - 1)
    return np.array_equal(out.numpy(), table.numpy()[rows])
