"""Per-row floor clamp: ``out[i, j] = max(x[i, j], floor_i)`` with TROWEXPANDMAX.

A 16 x 64 float32 activation tile is clamped from below by thresholds that differ per row (a
per-channel floor, as in a leaky clipping or a masked max). Two kernels, one per TROWEXPAND
mode:

- ``mode1``: the thresholds are a [16, 1] ColMajor tile (one scalar per row), loaded from a
  DN GlobalTensor of shape (1, 1, 1, 16, 1): ``out[i, j] = max(x[i, j], t[i, 0])``. On Atlas
  A2/A3 the 3-operand form broadcasts the scalars into the hidden UB scratch at
  [184 KiB, 192 KiB) (D10); the tiles here stay far below it, so there is no F104.
- ``mode2``: the thresholds are a [16, 32/sizeof(T)] = [16, 8] RowMajor tile (one 32-byte
  block per row), and the block repeats along the row: ``out[i, j] = max(x[i, j],
  t[i, j % 8])``. That is a floor that depends on the column's position in its 8-wide group.

Synchronisation: TLOAD(x); TLOAD(t); MTE2->V; TROWEXPANDMAX; V->MTE3; TSTORE.

Run them: ``python -m ptosim run examples/row_floor_clamp.py:mode1 --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
ROWS, COLS = 16, 64
DTYPE = np.float32
BLOCK = 32 // np.dtype(DTYPE).itemsize  # elements per 32-byte block: 8


def _clamp(x_gm, t_gm, out_gm, thr):
    x = pto.Tile("Vec", "float32", ROWS, COLS, name="x")
    out = pto.Tile("Vec", "float32", ROWS, COLS, name="out")
    pto.TLOAD(x, x_gm)
    pto.TLOAD(thr, t_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(out, x, thr)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(out_gm, out)


@pto.kernel
def mode1(x, floors, out):
    thr = pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor", name="floor")
    t_gm = pto.GlobalTensor(floors, shape=(1, 1, 1, ROWS, 1), layout="DN")
    x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS))
    out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, COLS))
    _clamp(x_gm, t_gm, out_gm, thr)


@pto.kernel
def mode2(x, floors, out):
    thr = pto.Tile("Vec", "float32", ROWS, BLOCK, name="floor_block")
    t_gm = pto.GlobalTensor(floors, shape=(1, 1, 1, ROWS, BLOCK))
    x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS))
    out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, COLS))
    _clamp(x_gm, t_gm, out_gm, thr)


def _data(width: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((ROWS, COLS)).astype(DTYPE)
    floors = rng.uniform(-1.0, 1.0, (ROWS, width)).astype(DTYPE)
    return x, floors


def inputs_mode1(dev):
    x, floors = _data(1, seed=21)
    return dev.gm_array(x), dev.gm_array(floors), dev.gm_zeros((ROWS, COLS), "float32")


def inputs_mode2(dev):
    x, floors = _data(BLOCK, seed=22)
    return dev.gm_array(x), dev.gm_array(floors), dev.gm_zeros((ROWS, COLS), "float32")


def check_mode1(dev, args, run):
    x, floors = _data(1, seed=21)
    expected = np.maximum(x, floors.reshape(ROWS, 1))  # one scalar per row, broadcast
    got = args[2].numpy()
    assert (got > x).any() and (got == x).any()  # the floor bites on some elements, not all
    return np.array_equal(got, expected)


def check_mode2(dev, args, run):
    x, floors = _data(BLOCK, seed=22)
    expected = np.maximum(x, np.tile(floors, (1, COLS // BLOCK)))  # the block repeats
    return np.array_equal(args[2].numpy(), expected)
