"""Multi-core, looped, double-buffered: ``out[r, :] = table[clamp(ids[r]), :] * w[r]``.

The Python twin of ``examples/cxx/multicore_scaled_lookup.cpp`` (the repo's examples/ have no
multi-core kernel). A weighted embedding lookup over 128 tokens on 4 blocks: block b takes rows
``[b * rows_per_block, (b + 1) * rows_per_block)`` (``pto.get_block_idx()``), in steps of 8
rows, with two buffers of each kind and two event ids (``b = step % 2``, primed before the loop,
drained after it, as in pingpong_row_scale). Per step: TLOAD the 8 ids ([1, 8] int32) and the 8
weights ([8, 1] ColMajor, from a DN view); MTE2 -> V; MGATHER<Row, Clamp> of the 8 table rows
(out-of-range ids read the last row); ``pipe_barrier(PIPE_V)``; TROWEXPANDMUL by the weights;
V -> MTE3; TSTORE. ``rows_per_block`` is a scalar kernel argument.

Run it: ``python -m ptosim run examples/cxx/py/multicore_scaled_lookup.py --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
TABLE_ROWS, DIM, BLOCKS, ROWS_PER_BLOCK, STEP = 300, 64, 4, 32, 8
TOKENS = BLOCKS * ROWS_PER_BLOCK
RUN_OPTIONS = {"block_dim": BLOCKS}
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
EVENTS = (pto.EVENT_ID0, pto.EVENT_ID1)


@pto.kernel
def multicore_scaled_lookup(table, ids, weights, out, rows_per_block):
    first = pto.get_block_idx() * rows_per_block
    tab = pto.GlobalTensor(table, shape=(1, 1, 1, TABLE_ROWS, DIM))
    rows = [pto.Tile("Vec", "float32", STEP, DIM, name=f"rows{b}") for b in (0, 1)]
    idx = [pto.Tile("Vec", "int32", 1, STEP, name=f"idx{b}") for b in (0, 1)]
    w = [pto.Tile("Vec", "float32", STEP, 1, blayout="ColMajor", name=f"w{b}") for b in (0, 1)]
    for b in (0, 1):
        pto.TASSIGN(rows[b], 0x0000 + b * 0x800)
        pto.TASSIGN(idx[b], 0x1000 + b * 0x20)
        pto.TASSIGN(w[b], 0x1040 + b * 0x20)
        pto.set_flag(V, MTE2, EVENTS[b])  # prime: both buffers start free
        pto.set_flag(MTE3, V, EVENTS[b])
    for step, r in enumerate(range(first, first + rows_per_block, STEP)):
        b, ev = step % 2, EVENTS[step % 2]
        ids_gm = pto.GlobalTensor(ids, shape=(1, 1, 1, 1, STEP), offset=r)
        w_gm = pto.GlobalTensor(weights, shape=(1, 1, 1, STEP, 1), layout="DN", offset=r)
        out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, STEP, DIM), offset=r * DIM)
        pto.wait_flag(V, MTE2, ev)  # ids/weights buffer b is free
        pto.TLOAD(idx[b], ids_gm)
        pto.TLOAD(w[b], w_gm)
        pto.set_flag(MTE2, V, ev)
        pto.wait_flag(MTE2, V, ev)  # ids/weights b have landed
        pto.wait_flag(MTE3, V, ev)  # rows buffer b has been stored
        pto.MGATHER(rows[b], tab, idx[b], coalesce="row", oob="clamp")
        pto.pipe_barrier(V)
        pto.TROWEXPANDMUL(rows[b], rows[b], w[b])
        pto.set_flag(V, MTE2, ev)
        pto.set_flag(V, MTE3, ev)
        pto.wait_flag(V, MTE3, ev)  # rows b are ready
        pto.TSTORE(out_gm, rows[b])
        pto.set_flag(MTE3, V, ev)
    for b in (0, 1):  # drain the primed events
        pto.wait_flag(V, MTE2, EVENTS[b])
        pto.wait_flag(MTE3, V, EVENTS[b])


def host_data(seed: int = 21):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((TABLE_ROWS, DIM)).astype(np.float32)
    ids = rng.integers(-5, TABLE_ROWS + 5, TOKENS).astype(np.int32)  # some out of range
    weights = rng.uniform(0.5, 2.0, TOKENS).astype(np.float32)
    return table, ids, weights


def inputs(dev):
    table, ids, weights = host_data()
    return (
        dev.gm_array(table),
        dev.gm_array(ids),
        dev.gm_array(weights),
        dev.gm_full((TOKENS, DIM), "float32", 7.0),
        ROWS_PER_BLOCK,
    )


def check(dev, args, run):
    table, ids, weights = host_data()
    rows = np.minimum(ids.astype(np.int64) % 2**32, TABLE_ROWS - 1)  # uint32 reading, Clamp
    want = (table[rows] * weights[:, None]).astype(np.float32)  # one rounding per product
    return np.array_equal(args[3].numpy(), want)
