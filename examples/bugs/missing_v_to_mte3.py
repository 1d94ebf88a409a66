"""Bug: TSTORE copies a tile to GM while the vector unit is still writing it (no V -> MTE3).

The kernel is the ReLU of ``missing_mte2_to_v.py``, ``y = max(x, 0)`` with TROWEXPANDMAX, and
this time the load is ordered but the store is not: TSTORE runs on PIPE_MTE3, which does not
wait for PIPE_V by itself, so ``buggy`` copies ``y`` out before (or while) TROWEXPANDMAX writes
it. The GM output then holds the UB poison (0xFF bytes, NaN) instead of the result.

The finding (a2 and 950pr, ``python -m ptosim check examples/bugs/missing_v_to_mte3.py:buggy
--device a2``, which exits 1)::

    [F203 race-raw] RAW race on UB[0x1000, 0x2000): TROWEXPANDMAX #8
    (missing_v_to_mte3.py:51) writes it on PIPE_V and TSTORE #9 (missing_v_to_mte3.py:53)
    reads it on PIPE_MTE3, and nothing orders them; fix: set_flag(PIPE_V, PIPE_MTE3,
    EVENT_ID0) after TROWEXPANDMAX #8 and wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0) before
    TSTORE #9

The fix (``fixed``): ``set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)`` after the last vector
instruction that writes the tile, ``wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)`` right before the
TSTORE. The same applies after MGATHER (a 950 SIMT launch is V work) and TSCATTER.
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {"a2": ["F203"], "950pr": ["F203"]}
R, C = 16, 64


def _tiles(x, out):
    xt = pto.Tile("Vec", "float32", R, C, name="x")
    yt = pto.Tile("Vec", "float32", R, C, name="y")
    zero = pto.Tile("Vec", "float32", R, 1, blayout="ColMajor", name="zero")
    x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, R, C))
    y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, R, C))
    return xt, yt, zero, x_gm, y_gm


@pto.kernel
def buggy(x, out):
    xt, yt, zero, x_gm, y_gm = _tiles(x, out)
    pto.TASSIGN(xt, 0x0000)
    pto.TASSIGN(yt, 0x1000)
    pto.TASSIGN(zero, 0x2000)
    pto.TEXPANDS(zero, 0.0)
    pto.pipe_barrier(pto.PIPE_V)  # the TROWEXPANDMAX below reads zero
    pto.TLOAD(xt, x_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(yt, xt, zero)
    # BUG: no set_flag/wait_flag(PIPE_V, PIPE_MTE3) here
    pto.TSTORE(y_gm, yt)


@pto.kernel
def fixed(x, out):
    xt, yt, zero, x_gm, y_gm = _tiles(x, out)
    pto.TASSIGN(xt, 0x0000)
    pto.TASSIGN(yt, 0x1000)
    pto.TASSIGN(zero, 0x2000)
    pto.TEXPANDS(zero, 0.0)
    pto.pipe_barrier(pto.PIPE_V)  # the TROWEXPANDMAX below reads zero
    pto.TLOAD(xt, x_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(yt, xt, zero)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(y_gm, yt)


def host_x():
    return np.random.default_rng(2).standard_normal((R, C)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(host_x()), dev.gm_full((R, C), "float32", 7.0)


def check(dev, args, run):
    return np.array_equal(args[1].numpy(), np.maximum(host_x(), np.float32(0)))
