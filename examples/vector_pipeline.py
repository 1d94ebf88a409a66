"""Double-buffered element-wise pipeline over many tiles: ``out = exp(x * A) + x``.

A (TILES*16) x 64 float32 activation streams through the vector unit 16 rows at a time, three
vector instructions per tile with ``pipe_barrier(PIPE_V)`` between the dependent ones:
``TMULS(t, x, A)``, ``TEXP(t, t)``, ``TADD(y, t, x)``. The loop is the vendor's ping-pong
pattern (see also pingpong_row_scale.py): two input buffers, two output buffers and two event
ids (``b = t % 2``), so the load of tile t+1 (PIPE_MTE2), the vector work on tile t (PIPE_V)
and the store of tile t-1 (PIPE_MTE3) overlap:

- ``V -> MTE2 [b]``: the vector unit has finished reading input buffer b (the TADD is its last
  reader), so the next load may overwrite it;
- ``MTE2 -> V [b]``: input buffer b has landed;
- ``MTE3 -> V [b]``: output buffer b has been stored, so it may be written again;
- ``V -> MTE3 [b]``: output buffer b is ready to store.

The "free" events are primed before the loop and drained after it. ``single_buffer`` does the
same work with one buffer of each kind and a full barrier per tile, for comparison. Every step
rounds once to float32 on every target (the product, exp evaluated exactly and rounded, the
sum), so the expected output is the same on all five devices.

Run it: ``python -m ptosim run examples/vector_pipeline.py --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
TILES, ROWS, COLS = 16, 16, 64
A = 0.5
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
EVENTS = (pto.EVENT_ID0, pto.EVENT_ID1)


def _gm(buf, t):
    return pto.GlobalTensor(buf, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)


def _compute(y, x, tmp) -> None:
    pto.TMULS(tmp, x, A)
    pto.pipe_barrier(V)
    pto.TEXP(tmp, tmp)
    pto.pipe_barrier(V)
    pto.TADD(y, tmp, x)


@pto.kernel
def vector_pipeline(x, out):
    xs = [pto.Tile("Vec", "float32", ROWS, COLS, name=f"x{b}") for b in (0, 1)]
    ys = [pto.Tile("Vec", "float32", ROWS, COLS, name=f"y{b}") for b in (0, 1)]
    tmp = pto.Tile("Vec", "float32", ROWS, COLS, name="tmp")  # used by PIPE_V only
    for b in (0, 1):  # prime: both input and both output buffers start free
        pto.set_flag(V, MTE2, EVENTS[b])
        pto.set_flag(MTE3, V, EVENTS[b])
    for t in range(TILES):
        b, ev = t % 2, EVENTS[t % 2]
        pto.wait_flag(V, MTE2, ev)  # input buffer b is free
        pto.TLOAD(xs[b], _gm(x, t))
        pto.set_flag(MTE2, V, ev)
        pto.wait_flag(MTE2, V, ev)  # input buffer b has landed
        pto.wait_flag(MTE3, V, ev)  # output buffer b is free
        _compute(ys[b], xs[b], tmp)
        pto.set_flag(V, MTE2, ev)  # input buffer b may be overwritten
        pto.set_flag(V, MTE3, ev)
        pto.wait_flag(V, MTE3, ev)  # output buffer b is ready
        pto.TSTORE(_gm(out, t), ys[b])
        pto.set_flag(MTE3, V, ev)  # output buffer b may be overwritten
    for b in (0, 1):  # drain the primed events
        pto.wait_flag(V, MTE2, EVENTS[b])
        pto.wait_flag(MTE3, V, EVENTS[b])


@pto.kernel
def single_buffer(x, out):
    """The same work with one buffer of each kind: every stage waits for the previous one."""
    xt = pto.Tile("Vec", "float32", ROWS, COLS, name="x")
    yt = pto.Tile("Vec", "float32", ROWS, COLS, name="y")
    tmp = pto.Tile("Vec", "float32", ROWS, COLS, name="tmp")
    for t in range(TILES):
        pto.TLOAD(xt, _gm(x, t))
        pto.set_flag(MTE2, V, EVENTS[0])
        pto.wait_flag(MTE2, V, EVENTS[0])
        _compute(yt, xt, tmp)
        pto.set_flag(V, MTE3, EVENTS[0])
        pto.wait_flag(V, MTE3, EVENTS[0])
        pto.TSTORE(_gm(out, t), yt)
        pto.pipe_barrier(pto.PIPE_ALL)  # the next load overwrites x and y only after this


def _data():
    rng = np.random.default_rng(41)
    return rng.uniform(-4.0, 4.0, (TILES * ROWS, COLS)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(_data()), dev.gm_zeros((TILES * ROWS, COLS), "float32")


def check(dev, args, run):
    x = _data()
    t = (x * np.float32(A)).astype(np.float32)  # one float32 product (exact here: A = 1/2)
    e = np.exp(t.astype(np.float64)).astype(np.float32)  # exp correctly rounded to float32
    want = (e + x).astype(np.float32)  # one float32 sum
    return np.array_equal(args[1].numpy(), want)
