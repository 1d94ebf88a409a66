"""Multi-core column sums accumulated with atomic stores: ``out[0, :] = bias + x.sum(axis=0)``.

4 blocks (``pto.get_block_idx()``) each take 16 rows of a 64 x 64 float32 matrix: TLOAD the
slab, TCOLSUM it into a [1, 64] row, and add that row into the one shared ``out`` row with
``TSTORE(out, row, atomic="add")`` (C++ ``TSTORE<Tile, Gm, AtomicType::AtomicAdd>``). The four
atomic adds land in whatever order the cores finish; the checker does not report them as a
race (plain stores would be F205). The values are small integers, so every order of the float
sums is exact and the check is bit for bit.

Synchronisation per block: TLOAD; MTE2 -> V; TCOLSUM; V -> MTE3; TSTORE (atomic).

Run it: ``python -m ptosim run examples/colsum_atomic.py --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
ROWS, COLS, BLOCKS = 64, 64, 4
SLAB = ROWS // BLOCKS
RUN_OPTIONS = {"block_dim": BLOCKS}


@pto.kernel
def colsum_atomic(x, out):
    slab = pto.Tile("Vec", "float32", SLAB, COLS, name="slab")
    row = pto.Tile("Vec", "float32", 1, COLS, name="row")
    pto.TASSIGN(slab, 0x0)
    pto.TASSIGN(row, 0x1000)
    first = pto.get_block_idx() * SLAB
    pto.TLOAD(slab, pto.GlobalTensor(x, shape=(1, 1, 1, SLAB, COLS), offset=first * COLS))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TCOLSUM(row, slab)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, 1, COLS)), row, atomic="add")


def host_data(seed: int = 31):
    rng = np.random.default_rng(seed)
    x = rng.integers(-100, 100, (ROWS, COLS)).astype(np.float32)
    bias = rng.integers(-10, 10, (1, COLS)).astype(np.float32)
    return x, bias


def inputs(dev):
    x, bias = host_data()
    return dev.gm_array(x), dev.gm_array(bias)


def check(dev, args, run):
    x, bias = host_data()
    # integers far below 2**24: every summation order gives the same float32
    want = (bias.astype(np.int64) + x.astype(np.int64).sum(axis=0)).astype(np.float32)
    return np.array_equal(args[1].numpy(), want)
