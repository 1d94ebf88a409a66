"""Bug: a ping-pong loop that primes its "buffer free" events and never drains them: F201.

The Python twin of ``examples/cxx/bugs/unconsumed_flag.cpp``: the double-buffered row scaling
of ``examples/pingpong_row_scale.py`` without the two drain waits after the loop. The loop
primes ``set_flag(V, MTE2, b)`` and ``set_flag(MTE3, V, b)`` for both buffers so that its first
two waits pass; every iteration then posts them again for the next use. After the last
iteration one post of each (pipe pair, id) is left over. The results are right, but the kernel
ends with events pending: on hardware the next kernel on this core would start with stale
flags, and its first wait would pass too early. ptosim reports each post never waited
(a2 and 950pr, and the cpu reference), 4 findings, and puts the drain wait at the end of the
kernel in its fix::

    [F201 flag-unconsumed] core 0: set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0) posted by SET_FLAG
    #41 (unconsumed_flag.py:...) was never waited (1 post(s) left); fix: add
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0) after SET_FLAG #57 (unconsumed_flag.py:...), the
    end of the kernel (the drain of a primed event), or drop the set_flag

``fixed`` drains the four events after the loop, as pingpong_row_scale does.

Run it: ``python -m ptosim check examples/cxx/py/bugs/unconsumed_flag.py:buggy --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {d: ["F201"] * 4 for d in ("a2", "950pr", "cpu")}  # 2 pipe pairs x 2 event ids
TILES, ROWS, COLS = 4, 16, 64
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
EVENTS = (pto.EVENT_ID0, pto.EVENT_ID1)


def _loop(x, scales, out, drain: bool) -> None:
    xs = [pto.Tile("Vec", "float32", ROWS, COLS, name=f"x{b}") for b in (0, 1)]
    ss = [pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor", name=f"s{b}") for b in (0, 1)]
    ys = [pto.Tile("Vec", "float32", ROWS, COLS, name=f"y{b}") for b in (0, 1)]
    for b in (0, 1):
        pto.TASSIGN(xs[b], 0x0000 + b * 0x2040)
        pto.TASSIGN(ss[b], 0x1000 + b * 0x2040)
        pto.TASSIGN(ys[b], 0x1040 + b * 0x2040)
    for b in (0, 1):  # prime: both input and both output buffers start free
        pto.set_flag(V, MTE2, EVENTS[b])
        pto.set_flag(MTE3, V, EVENTS[b])
    for t in range(TILES):
        b, ev = t % 2, EVENTS[t % 2]
        x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
        s_gm = pto.GlobalTensor(scales, shape=(1, 1, 1, ROWS, 1), layout="DN", offset=t * ROWS)
        y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
        pto.wait_flag(V, MTE2, ev)
        pto.TLOAD(xs[b], x_gm)
        pto.TLOAD(ss[b], s_gm)
        pto.set_flag(MTE2, V, ev)
        pto.wait_flag(MTE2, V, ev)
        pto.wait_flag(MTE3, V, ev)
        pto.TROWEXPANDMUL(ys[b], xs[b], ss[b])
        pto.set_flag(V, MTE2, ev)
        pto.set_flag(V, MTE3, ev)
        pto.wait_flag(V, MTE3, ev)
        pto.TSTORE(y_gm, ys[b])
        pto.set_flag(MTE3, V, ev)
    if drain:
        for b in (0, 1):
            pto.wait_flag(V, MTE2, EVENTS[b])
            pto.wait_flag(MTE3, V, EVENTS[b])


@pto.kernel
def buggy(x, scales, out):
    _loop(x, scales, out, drain=False)  # BUG: the primed events are never drained


@pto.kernel
def fixed(x, scales, out):
    _loop(x, scales, out, drain=True)


def _data():
    rng = np.random.default_rng(33)
    x = rng.standard_normal((TILES * ROWS, COLS)).astype(np.float32)
    scales = rng.uniform(0.5, 2.0, TILES * ROWS).astype(np.float32)
    return x, scales


def inputs(dev):
    x, scales = _data()
    return dev.gm_array(x), dev.gm_array(scales), dev.gm_full((TILES * ROWS, COLS), "float32", 7.0)


def check(dev, args, run):
    x, scales = _data()
    return np.array_equal(args[2].numpy(), (x * scales[:, None]).astype(np.float32))
