"""A sweep kernel file: an embedding lookup ``out[r, :] = table[ids[r], :]`` of any shape and
dtype, by MGATHER in Row or Elem mode (the convention of ptosim/sweep.py).

The sweep passes each point's ``shape`` (R, C), ``dtype`` and ``coalesce`` to
``inputs(dev, **params)``, which builds the GM buffers and hands the sizes to the kernel body as
keyword arguments, so the body sizes its tiles from plain ints. ``check`` recomputes the lookup
with numpy. ``PARAMS`` gives the defaults of parameters a spec leaves out.

Run the example grid: ``python -m ptosim sweep examples/sweeps/row_gather.toml``.
"""

import numpy as np

import ptosim as pto

PARAMS = {"coalesce": "row", "table_rows": 256, "seed": 0}


@pto.kernel
def lookup(table, ids, out, *, rows, cols, table_rows, dtype, coalesce):
    tab = pto.GlobalTensor(table, shape=(1, 1, 1, table_rows, cols))
    dst = pto.Tile("Vec", dtype, rows, cols, name="dst")
    if coalesce == "row":  # one row id per output row: idx [1, R]
        idx_shape = (1, rows)
    else:  # one flat element index per output element: idx [R, C]
        idx_shape = (rows, cols)
    idx = pto.Tile("Vec", "int32", idx_shape[0], -(-idx_shape[1] // 8) * 8, valid=idx_shape)
    pto.TLOAD(idx, pto.GlobalTensor(ids, shape=(1, 1, 1) + idx_shape))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.MGATHER(dst, tab, idx, coalesce=coalesce)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, rows, cols)), dst)


def host_data(shape, dtype, table_rows, seed):
    rows, cols = shape
    rng = np.random.default_rng([seed, rows, cols])
    table = rng.integers(0, 100, size=(table_rows, cols)).astype(np.dtype(dtype))
    ids = rng.choice(table_rows, size=rows, replace=False).astype(np.int32)
    return table, ids


def inputs(dev, *, shape, dtype, coalesce, table_rows, seed):
    rows, cols = shape
    table, ids = host_data(shape, dtype, table_rows, seed)
    if coalesce == "row":
        idx = ids.reshape(1, rows)
    else:  # the same rows, element by element
        idx = (ids[:, None] * cols + np.arange(cols)[None, :]).astype(np.int32)
    args = (dev.gm_array(table), dev.gm_array(idx), dev.gm_zeros(shape, dtype))
    sizes = {"rows": rows, "cols": cols, "table_rows": table_rows, "dtype": dtype}
    return {"args": args, "kwargs": {**sizes, "coalesce": coalesce}}


def check(dev, args, run, *, shape, dtype, table_rows, seed, **_):
    table, ids = host_data(shape, dtype, table_rows, seed)
    return np.array_equal(args[2].numpy(), table[ids])
