"""Element gather: ``out[r, c] = table.flat[index[r, c]]`` with MGATHER<Elem, Zero>.

The Python twin of ``examples/cxx/embedding_gather_elem.cpp`` (the repo's examples/ have no
Elem gather). A 64 x 64 float32 table in GM is read element by element: an [8, 32] int32 index
tile picks one element per output position (a sparse feature pick, or a permutation of a flat
buffer). Two indices are out of range (4096 and -1, which reads as 0xFFFFFFFF): GatherOOB::Zero
writes 0.0 for them. Same handshake as the Row lookup: TLOAD(idx); MTE2 -> V; MGATHER;
V -> MTE3; TSTORE.

Run it: ``python -m ptosim run examples/cxx/py/embedding_gather_elem.py --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
TABLE_ROWS, TABLE_COLS = 64, 64
ROWS, COLS = 8, 32


@pto.kernel
def embedding_gather_elem(table, index, out):
    tab = pto.GlobalTensor(table, shape=(1, 1, 1, TABLE_ROWS, TABLE_COLS))
    idx_gm = pto.GlobalTensor(index, shape=(1, 1, 1, ROWS, COLS))
    out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, COLS))
    vals = pto.Tile("Vec", "float32", ROWS, COLS, name="vals")
    idx = pto.Tile("Vec", "int32", ROWS, COLS, name="idx")
    pto.TASSIGN(vals, 0x0000)
    pto.TASSIGN(idx, 0x0400)
    pto.TLOAD(idx, idx_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.MGATHER(vals, tab, idx, coalesce="elem", oob="zero")
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(out_gm, vals)


def host_data(seed: int = 12):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((TABLE_ROWS, TABLE_COLS)).astype(np.float32)
    index = rng.integers(0, TABLE_ROWS * TABLE_COLS, (ROWS, COLS)).astype(np.int32)
    index[0, 5], index[6, 30] = TABLE_ROWS * TABLE_COLS, -1  # out of range: read as 0.0
    index[3, 3] = index[3, 4]  # a repeated index
    return table, index


def inputs(dev):
    table, index = host_data()
    return dev.gm_array(table), dev.gm_array(index), dev.gm_full((ROWS, COLS), "float32", 7.0)


def check(dev, args, run):
    table, index = host_data()
    flat = index.astype(np.int64) % 2**32  # the uint32 reading of the ids (D2)
    inside = flat < table.size
    want = np.where(inside, table.reshape(-1)[np.where(inside, flat, 0)], np.float32(0))
    return np.array_equal(args[2].numpy(), want.astype(np.float32))
