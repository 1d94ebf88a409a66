"""Double-buffered row scaling over many tiles: ``out[t] = x[t] * s[t][:, None]``.

A (TILES*16) x 64 float32 activation is scaled row by row (a per-row scale, as in a
dequantisation or a normalisation epilogue) with TROWEXPANDMUL, 16 rows per tile. The loop is
the vendor's ping-pong pattern: two input buffers, two output buffers and two event ids
(``b = t % 2``), so the load of tile t+1 (PIPE_MTE2), the multiply of tile t (PIPE_V) and the
store of tile t-1 (PIPE_MTE3) overlap. Each buffer is handed between pipes with its own event id:

- ``V -> MTE2 [b]``: the multiply has read input buffer b, so the next load may overwrite it;
- ``MTE2 -> V [b]``: input buffer b has landed;
- ``MTE3 -> V [b]``: output buffer b has been stored, so the next multiply may overwrite it;
- ``V -> MTE3 [b]``: output buffer b is ready to store.

The "free" events are *primed* before the loop (one ``set_flag`` per buffer, so the first two
waits pass) and *drained* after it (one ``wait_flag`` per buffer, so no post is left over).
Counting flags pair the n-th wait with the n-th post, so reusing EVENT_ID0/1 every other
iteration is correct; ptosim reports no finding on any device. ``single_buffer`` does the same
work with one buffer of each kind and a full barrier per tile: it is exact too, and slower on
the timed devices, because nothing overlaps.

The per-row scales of a tile are a [16, 1] ColMajor tile loaded from a DN view (mode 1 of
TROWEXPANDMUL). Run it: ``python -m ptosim run examples/pingpong_row_scale.py --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
TILES, ROWS, COLS = 8, 16, 64
DTYPE = np.float32
S, V, MTE2, MTE3 = pto.PIPE_S, pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
EVENTS = (pto.EVENT_ID0, pto.EVENT_ID1)


@pto.kernel
def pingpong_row_scale(x, scales, out):
    xs = [pto.Tile("Vec", "float32", ROWS, COLS, name=f"x{b}") for b in (0, 1)]
    ss = [pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor", name=f"s{b}") for b in (0, 1)]
    ys = [pto.Tile("Vec", "float32", ROWS, COLS, name=f"y{b}") for b in (0, 1)]
    for b in (0, 1):  # prime: both input and both output buffers start free
        pto.set_flag(V, MTE2, EVENTS[b])
        pto.set_flag(MTE3, V, EVENTS[b])
    for t in range(TILES):
        b, ev = t % 2, EVENTS[t % 2]
        x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
        s_gm = pto.GlobalTensor(scales, shape=(1, 1, 1, ROWS, 1), layout="DN", offset=t * ROWS)
        y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
        pto.wait_flag(V, MTE2, ev)  # input buffer b is free
        pto.TLOAD(xs[b], x_gm)
        pto.TLOAD(ss[b], s_gm)
        pto.set_flag(MTE2, V, ev)
        pto.wait_flag(MTE2, V, ev)  # input buffer b has landed
        pto.wait_flag(MTE3, V, ev)  # output buffer b is free
        pto.TROWEXPANDMUL(ys[b], xs[b], ss[b])
        pto.set_flag(V, MTE2, ev)  # input buffer b may be overwritten
        pto.set_flag(V, MTE3, ev)
        pto.wait_flag(V, MTE3, ev)  # output buffer b is ready
        pto.TSTORE(y_gm, ys[b])
        pto.set_flag(MTE3, V, ev)  # output buffer b may be overwritten
    for b in (0, 1):  # drain the primed events
        pto.wait_flag(V, MTE2, EVENTS[b])
        pto.wait_flag(MTE3, V, EVENTS[b])


@pto.kernel
def single_buffer(x, scales, out):
    """The same work with one buffer of each kind: every stage waits for the previous one."""
    xt = pto.Tile("Vec", "float32", ROWS, COLS, name="x")
    st = pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor", name="s")
    yt = pto.Tile("Vec", "float32", ROWS, COLS, name="y")
    for t in range(TILES):
        x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
        s_gm = pto.GlobalTensor(scales, shape=(1, 1, 1, ROWS, 1), layout="DN", offset=t * ROWS)
        y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
        pto.TLOAD(xt, x_gm)
        pto.TLOAD(st, s_gm)
        pto.set_flag(MTE2, V, EVENTS[0])
        pto.wait_flag(MTE2, V, EVENTS[0])
        pto.TROWEXPANDMUL(yt, xt, st)
        pto.set_flag(V, MTE3, EVENTS[0])
        pto.wait_flag(V, MTE3, EVENTS[0])
        pto.TSTORE(y_gm, yt)
        pto.pipe_barrier(pto.PIPE_ALL)  # the next load overwrites x, s and y only after this


def _data():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((TILES * ROWS, COLS)).astype(DTYPE)
    scales = rng.uniform(0.5, 2.0, TILES * ROWS).astype(DTYPE)
    return x, scales


def inputs(dev):
    x, scales = _data()
    return dev.gm_array(x), dev.gm_array(scales), dev.gm_zeros((TILES * ROWS, COLS), "float32")


def check(dev, args, run):
    x, scales = _data()
    expected = (x * scales[:, None]).astype(DTYPE)  # one float32 multiply, rounded once
    return np.array_equal(args[2].numpy(), expected)
