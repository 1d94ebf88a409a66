"""Bug: a handshake on the wrong pipe pair (MTE2 -> MTE3 where the consumer is PIPE_V).

The kernel is the ReLU of ``missing_mte2_to_v.py``. Its author copied the handshake of a plain
copy kernel (TLOAD; MTE2 -> MTE3; TSTORE) and put a vector op in between:
``set_flag(PIPE_MTE2, PIPE_MTE3)`` / ``wait_flag(PIPE_MTE2, PIPE_MTE3)``. The pair is
consistent with itself (every set is waited, so there is no F201 and no deadlock), but it
makes PIPE_MTE3 wait for the load, and PIPE_MTE3 is not the pipe that reads the tile:
TROWEXPANDMAX on PIPE_V still races with the DMA. The event identity is the full
(src, dst, id) triple; the direction and both pipes must be those of the real producer and
consumer.

The finding (a2, 950pr and cpu, ``python -m ptosim check examples/bugs/wrong_pipe_pair.py:buggy
--device a2``) names the pair and the two instructions it should order::

    [F203 wrong-pipe-pair] SET_FLAG #6 (wrong_pipe_pair.py:55) and WAIT_FLAG #7
    (wrong_pipe_pair.py:56) order PIPE_MTE2 -> PIPE_MTE3, but TLOAD #5 (wrong_pipe_pair.py:53)
    and TROWEXPANDMAX #8 (wrong_pipe_pair.py:57) need PIPE_MTE2 -> PIPE_V; fix: make the
    set_flag at wrong_pipe_pair.py:55 set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0); make the
    wait_flag at wrong_pipe_pair.py:56 wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)

The fix (``fixed``): name the pipes of the dependency, MTE2 (TLOAD writes ``x``) -> V
(TROWEXPANDMAX reads it): ``set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)`` after the TLOAD and
``wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)`` before the vector op. The store is then ordered by
the V -> MTE3 pair the kernel already has.
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
    # BUG: the pair of a copy kernel; the tile is read by PIPE_V, not PIPE_MTE3
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
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
    return np.random.default_rng(3).standard_normal((R, C)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(host_x()), dev.gm_full((R, C), "float32", 7.0)


def check(dev, args, run):
    return np.array_equal(args[1].numpy(), np.maximum(host_x(), np.float32(0)))
