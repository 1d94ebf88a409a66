"""Bug: ping-pong buffers sized for the 950's 248 KiB usable UB overflow the a2's 192 KiB (PTO200).

The Python twin of ``examples/cxx/bugs/ub_overflow.cpp``. A double-buffered row scaling (as
``examples/pingpong_row_scale.py``) of a 384 x 64 float32 activation whose author picked 192
rows per step: two input and two output buffers of 48 KiB each fill 192 KiB, and the two
[192, 1] scale columns are TASSIGNed after them, at 192 KiB and up. That fits the 248 KiB
usable UB of 950pr/950dt, where ``buggy`` is exact and finding-free, but on a2/a3 the scale
tiles lie past the end of UB. A TASSIGN only sets an address: the first TLOAD of a scale tile
stops the run with ``MemoryLayoutError`` (PTO200), naming the tile, its address, the UB size
and the TASSIGN that placed it::

    [PTO200] TLOAD #12 (ub_overflow.py:52) on target a2a3: operand 'tile' violates rule
    'fits-in-memory': expected address + 768 bytes <= UB size 196608, given 0x30000 + 768 =
    0x30300 (tile s0, placed by the TASSIGN at ub_overflow.py:41; this instruction accesses it)

``fixed`` uses 96 rows per step (four steps instead of two): 24 KiB buffers, 97.5 KiB in
all, on every device. The tile sizes of a kernel meant for several chips must fit the smallest
UB (``ptosim devices`` lists them).

Run it: ``python -m ptosim run examples/cxx/py/bugs/ub_overflow.py:buggy --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {"a2": "PTO200", "950pr": [], "cpu": []}
TOTAL_ROWS, COLS = 384, 64
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
EVENTS = (pto.EVENT_ID0, pto.EVENT_ID1)


def _scale(x, scales, out, rows: int) -> None:
    data_bytes = rows * COLS * 4
    xs = [pto.Tile("Vec", "float32", rows, COLS, name=f"x{b}") for b in (0, 1)]
    ys = [pto.Tile("Vec", "float32", rows, COLS, name=f"y{b}") for b in (0, 1)]
    ss = [pto.Tile("Vec", "float32", rows, 1, blayout="ColMajor", name=f"s{b}") for b in (0, 1)]
    for b in (0, 1):
        pto.TASSIGN(xs[b], b * data_bytes)
        pto.TASSIGN(ys[b], (2 + b) * data_bytes)
        pto.TASSIGN(ss[b], 4 * data_bytes + b * rows * 4)
    for b in (0, 1):
        pto.set_flag(V, MTE2, EVENTS[b])
        pto.set_flag(MTE3, V, EVENTS[b])
    for t in range(TOTAL_ROWS // rows):
        b, ev = t % 2, EVENTS[t % 2]
        x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, rows, COLS), offset=t * rows * COLS)
        s_gm = pto.GlobalTensor(scales, shape=(1, 1, 1, rows, 1), layout="DN", offset=t * rows)
        y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, rows, COLS), offset=t * rows * COLS)
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
    for b in (0, 1):
        pto.wait_flag(V, MTE2, EVENTS[b])
        pto.wait_flag(MTE3, V, EVENTS[b])


@pto.kernel
def buggy(x, scales, out):
    _scale(x, scales, out, 192)  # BUG: 4 x 48 KiB buffers + the scales exceed a2's 192 KiB UB


@pto.kernel
def fixed(x, scales, out):
    _scale(x, scales, out, 96)


def _data():
    rng = np.random.default_rng(35)
    x = rng.standard_normal((TOTAL_ROWS, COLS)).astype(np.float32)
    scales = rng.uniform(0.5, 2.0, TOTAL_ROWS).astype(np.float32)
    return x, scales


def inputs(dev):
    x, scales = _data()
    return dev.gm_array(x), dev.gm_array(scales), dev.gm_full((TOTAL_ROWS, COLS), "float32", 7.0)


def check(dev, args, run):
    x, scales = _data()
    return np.array_equal(args[2].numpy(), (x * scales[:, None]).astype(np.float32))
