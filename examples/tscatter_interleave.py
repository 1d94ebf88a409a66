"""Interleave with zeros: ``out[i, 2j + 1] = x[i, j]``, ``out[i, 2j] = 0`` with
TSCATTER<P1010, SCATTER_ROW>.

Mask mode P1010 has an expansion factor of 2 and selects lane 1 of each pair: every source
element moves to an odd column of a row twice as wide, and the even columns become zero. That
is the layout step of, for example, turning real values into (0, re) pairs or upsampling a row
by 2 with zero stuffing. Here an 8 x 32 float32 tile becomes 8 x 64.

Atlas A2/A3 and the 950 zero the whole destination tile first; the cpu reference zeroes the
unselected positions of the valid region. The destination is fully valid here, so the output is
the same everywhere. The GM output starts filled with 99.0, so the zeros must really be written.

Synchronisation: TLOAD(x); MTE2->V; TSCATTER; V->MTE3; TSTORE. On Atlas A2/A3 the instruction
is a vector zero fill, V->S, a scalar loop and S->V inside the library, so ordering the store
after PIPE_V also orders it after the scalar loop.

Run it: ``python -m ptosim run examples/tscatter_interleave.py --device 950dt``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
ROWS, COLS = 8, 32


@pto.kernel
def tscatter_interleave(x, out):
    x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS))
    out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, 2 * COLS))
    src = pto.Tile("Vec", "float32", ROWS, COLS, name="x")
    dst = pto.Tile("Vec", "float32", ROWS, 2 * COLS, name="interleaved")
    pto.TLOAD(src, x_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TSCATTER(dst, src, mask="P1010", axis="SCATTER_ROW")
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(out_gm, dst)


def host_data(seed: int = 8):
    # nonzero values, so a misplaced zero cannot match by accident
    return np.random.default_rng(seed).uniform(1.0, 2.0, (ROWS, COLS)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(host_data()), dev.gm_full((ROWS, 2 * COLS), "float32", 99.0)


def check(dev, args, run):
    x = host_data()
    expected = np.zeros((ROWS, 2 * COLS), np.float32)
    expected[:, 1::2] = x  # P1010: the second lane of every pair
    return np.array_equal(args[1].numpy(), expected)
