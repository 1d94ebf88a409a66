"""Embedding bag with per-sample weights: ``out[b, :] = sum_k w[b, k] * table[ids[b, k], :]``.

The pooled lookup of recommendation models (``torch.nn.EmbeddingBag(mode="sum")`` with
``per_sample_weights``): 4 bags of 8 ids each into a 512 x 64 float32 table. One kernel call:

1. ``TLOAD`` the 32 ids as a [1, 32] int32 tile and the 32 weights as a [32, 1] ColMajor column
   (from a DN view), then MTE2 -> V;
2. ``MGATHER<Row>`` all 32 rows into a [32, 64] tile (a repeated id reads its row twice);
3. ``TROWEXPANDMUL(rows, rows, w)``: each gathered row times its weight;
4. per bag, ``TSUBVIEW`` windows: rows [8b, 8b + 8) of the gathered tile, and row b of the
   [4, 64] output tile; ``TCOLSUM`` reduces the window into that output row;
5. V -> MTE3 and one ``TSTORE`` of the [4, 64] result.

``pipe_barrier(PIPE_V)`` orders the dependent vector steps (the gather, the scaling, the
column sums). The products round once to float32 everywhere; the column sums are where the
targets differ (docs/reference/reduction.md: the reduction orders): cpu and
a2a3 add the 8 rows in order (row 0, then + row 1, ...), a5 adds ``r0 + (r1 + r2) + (r3 + r4)
+ (r5 + r6) + r7``; ``check`` writes both orders.

Run it: ``python -m ptosim run examples/embedding_bag.py --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
V = pto.PIPE_V
TABLE_ROWS, DIM, BAGS, PER_BAG = 512, 64, 4, 8
LOOKUPS = BAGS * PER_BAG


@pto.kernel
def embedding_bag(table, ids, weights, out):
    rows = pto.Tile("Vec", "float32", LOOKUPS, DIM, name="rows")
    idx = pto.Tile("Vec", "int32", 1, LOOKUPS, name="idx")
    w = pto.Tile("Vec", "float32", LOOKUPS, 1, blayout="ColMajor", name="w")
    pooled = pto.Tile("Vec", "float32", BAGS, DIM, name="pooled")
    pto.TLOAD(idx, pto.GlobalTensor(ids, shape=(1, 1, 1, 1, LOOKUPS)))
    pto.TLOAD(w, pto.GlobalTensor(weights, shape=(1, 1, 1, LOOKUPS, 1), layout="DN"))
    pto.set_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    tab = pto.GlobalTensor(table, shape=(1, 1, 1, TABLE_ROWS, DIM))
    pto.MGATHER(rows, tab, idx, coalesce="row")
    pto.pipe_barrier(V)
    pto.TROWEXPANDMUL(rows, rows, w)
    pto.pipe_barrier(V)
    for b in range(BAGS):
        bag = pto.Tile("Vec", "float32", PER_BAG, DIM, name=f"bag{b}")
        dst = pto.Tile("Vec", "float32", 1, DIM, name=f"pooled{b}")
        pto.TSUBVIEW(bag, rows, b * PER_BAG, 0)
        pto.TSUBVIEW(dst, pooled, b, 0)
        pto.TCOLSUM(dst, bag)
    pto.set_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, BAGS, DIM)), pooled)


def host_data(seed: int = 11):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((TABLE_ROWS, DIM)).astype(np.float32)
    ids = rng.integers(0, TABLE_ROWS, LOOKUPS).astype(np.int32)
    ids[5] = ids[2]  # a repeated id inside a bag
    ids[20] = ids[9]  # and across bags
    weights = rng.uniform(0.1, 1.0, LOOKUPS).astype(np.float32)
    return table, ids, weights


def inputs(dev):
    table, ids, weights = host_data()
    return (
        dev.gm_array(table),
        dev.gm_array(ids),
        dev.gm_array(weights),
        dev.gm_zeros((BAGS, DIM), "float32"),
    )


def expected(target: str, table, ids, weights) -> np.ndarray:
    scaled = (table[ids] * weights[:, None]).astype(np.float32)  # one rounding per product
    out = np.empty((BAGS, DIM), np.float32)
    for b in range(BAGS):
        r = scaled[b * PER_BAG : (b + 1) * PER_BAG]
        if target == "a5":  # r0 + (r1 + r2) + (r3 + r4) + ..., an odd last row alone
            acc = r[0].copy()
            for j in range(1, PER_BAG - 1, 2):
                acc = (acc + (r[j] + r[j + 1]).astype(np.float32)).astype(np.float32)
            if (PER_BAG - 1) % 2:
                acc = (acc + r[-1]).astype(np.float32)
        else:  # cpu and a2a3: row 0, then each following row added in order
            acc = r[0].copy()
            for j in range(1, PER_BAG):
                acc = (acc + r[j]).astype(np.float32)
        out[b] = acc
    return out


def check(dev, args, run):
    table, ids, weights = host_data()
    every = {t: expected(t, table, ids, weights) for t in ("cpu", "a2a3", "a5")}
    assert not np.array_equal(every["cpu"], every["a5"])  # the target branch matters here
    got = args[3].numpy()
    return np.array_equal(got, every[dev.config.target])
