"""Sparse gradient accumulation: ``grad_table_flat[idx[r, c]] += grad[r, c]`` with
MSCATTER<Elem, Add>.

The backward pass of an embedding bag: 8 x 16 float32 gradient values are accumulated into a
flat table of 256 float32 weights' gradients. The indices repeat on purpose (several values
land on one slot), which is exactly what the atomic Add is for: a plain store would keep only
one of them.

The table already holds gradients from an earlier step, so the result is ``old + sum``. The
check recomputes it with ``np.add.at``, which adds duplicates one after another in row-major
source order. That is also the order ptosim applies them in (D12), so float32 results match
bit for bit.

D12 and dtypes: Atlas A2/A3 supports atomic Add for int8, int16, int32, half, bfloat16 and
float32 (no unsigned types, no Max/Min); the 950 for int32, uint32, float32, half and bfloat16.
float32 runs everywhere, so this example uses it. In half or bfloat16 each add is done in
float32 and rounded to the element type after every add, so a reference must round per add
too (``np.add.at`` on a half array does that, a float32 sum rounded once does not).

Synchronisation: both index and values are loaded by MTE2 and read by the scatter, which
runs on PIPE_S on Atlas A2/A3 (the Elem library kernel, after its own V->S, MTE2->S prologue)
and on PIPE_V on the 950 (a SIMT launch). ``pipe_barrier(PIPE_ALL)`` after the TLOADs is the
documented a2a3 scatter pattern and is also correct on the 950 (where MTE2->V would do), so one
kernel body serves every device. The scatter writes GM directly: no TSTORE follows.

Run it: ``python -m ptosim run examples/sparse_grad_scatter_add.py --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
ROWS, COLS, SLOTS = 8, 16, 256


@pto.kernel
def sparse_grad_scatter_add(grad_table, grads, index):
    table = pto.GlobalTensor(grad_table, shape=(1, 1, 1, 1, SLOTS))
    g_gm = pto.GlobalTensor(grads, shape=(1, 1, 1, ROWS, COLS))
    i_gm = pto.GlobalTensor(index, shape=(1, 1, 1, ROWS, COLS))
    g = pto.Tile("Vec", "float32", ROWS, COLS, name="grads")
    idx = pto.Tile("Vec", "int32", ROWS, COLS, name="idx")
    pto.TASSIGN(g, 0x0000)
    pto.TASSIGN(idx, 0x1000)
    pto.TLOAD(idx, i_gm)
    pto.TLOAD(g, g_gm)
    pto.pipe_barrier(pto.PIPE_ALL)
    pto.MSCATTER(table, g, idx, coalesce="elem", atomic="add")


def host_data(seed: int = 11):
    rng = np.random.default_rng(seed)
    old = rng.standard_normal(SLOTS).astype(np.float32)
    grads = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    # 40 distinct hot slots for 128 values: every slot is hit about 3 times
    hot = rng.choice(SLOTS, 40, replace=False)
    index = rng.choice(hot, (ROWS, COLS)).astype(np.int32)
    return old, grads, index


def inputs(dev):
    old, grads, index = host_data()
    return dev.gm_array(old), dev.gm_array(grads), dev.gm_array(index)


def check(dev, args, run):
    grad_table, grads, index = args
    old, g, i = host_data()
    assert np.array_equal(grads.numpy(), g) and np.array_equal(index.numpy(), i)
    expected = old.copy()
    np.add.at(expected, i.ravel(), g.ravel())  # duplicates in row-major order (D12)
    return np.array_equal(grad_table.numpy(), expected)
