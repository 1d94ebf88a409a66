"""Bug: a vector op reads a tile that TLOAD is still writing (no MTE2 -> V handshake).

The kernel is a ReLU, ``y = max(x, 0)``: TLOAD brings ``x`` into UB on PIPE_MTE2, TEXPANDS
fills a [16, 1] ColMajor tile with 0 on PIPE_V, and TROWEXPANDMAX (mode 1) takes the row-wise
maximum on PIPE_V. The two pipes run concurrently and in order only within themselves, so
nothing makes the vector unit wait for the DMA: ``buggy`` computes on whatever UB held before
(ptosim fills UB with 0xFF bytes, NaN in float32, so the output is visibly wrong).

The finding (a2 and 950pr, ``python -m ptosim check examples/bugs/missing_mte2_to_v.py:buggy
--device a2``)::

    [F203 race-raw] RAW race on UB[0x0, 0x1000): TLOAD #5 (missing_mte2_to_v.py:52) writes
    it on PIPE_MTE2 and TROWEXPANDMAX #6 (missing_mte2_to_v.py:54) reads it on PIPE_V, and
    nothing orders them; fix: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) after TLOAD #5 and
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) before TROWEXPANDMAX #6

The fix (``fixed``) is the finding's own: ``set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)`` after the
TLOAD and ``wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)`` before the first vector instruction that
reads the loaded tile. The set is issued on MTE2 and posts only when the DMA has finished; the
wait blocks PIPE_V until then.

The race is found from the kernel's structure, not from the simulated timing: it is reported
even on a run where the DMA happens to land first.
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
    # BUG: no set_flag/wait_flag(PIPE_MTE2, PIPE_V) here
    pto.TROWEXPANDMAX(yt, xt, zero)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
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
    return np.random.default_rng(1).standard_normal((R, C)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(host_x()), dev.gm_full((R, C), "float32", 7.0)


def check(dev, args, run):
    return np.array_equal(args[1].numpy(), np.maximum(host_x(), np.float32(0)))
