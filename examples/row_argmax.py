"""Row argmax (greedy decoding over a vocabulary slice): ``idx[i] = first j of max_j x[i, j]``.

16 rows of 256 float32 logits; ``TROWARGMAX(val, idx, x, tmp)`` writes each row's maximum into a
[16, 1] ColMajor float32 column and the first column index reaching it into a [16, 1] ColMajor
int32 column, both stored through DN views. 256 columns are four 256-byte chunks: the a2a3
lowering takes a vcmax per chunk in index mode and reduces the four chunk results again, row by
row at tmp's row pitch: tmp needs a row per logit row, each holding the four chunk indices, a
block of chunk values and the final (value, index) pair (10 floats: a 16 x 16 tile).

The data has the cases where the result is defined by the tie rule: a row whose maximum occurs
twice (the first index wins on every target) and a row whose maximum is zero, present as -0.0
at column 3 and as +0.0 at column 10. The cpu reference compares with ``>``, so -0.0 stays (3);
the NPU compares in the IEEE maximum order, where +0 > -0 (10). ``check`` branches on the
target for that (docs/reference/reduction.md: the reduction orders).

DEVICES are cpu, a2 and a3 only: TROWARGMAX is not defined on a5 (the 950's vector ISA has no
arg-reduction; ptosim raises UnsupportedError there). See row_topk.py for a TSORT32 top-k that
runs on every device.

Run it: ``python -m ptosim run examples/row_argmax.py --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3")  # TROWARGMAX is not defined on a5 (950pr, 950dt)
V = pto.PIPE_V
ROWS, COLS = 16, 256


@pto.kernel
def row_argmax(x, values, indices):
    xt = pto.Tile("Vec", "float32", ROWS, COLS, name="logits")
    tmp = pto.Tile("Vec", "float32", ROWS, 16, name="tmp")  # a scratch row per logit row
    val = pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor", name="max")
    idx = pto.Tile("Vec", "int32", ROWS, 1, blayout="ColMajor", name="argmax")
    pto.TLOAD(xt, pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS)))
    pto.set_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.TROWARGMAX(val, idx, xt, tmp)
    pto.set_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    col = (1, 1, 1, ROWS, 1)
    pto.TSTORE(pto.GlobalTensor(values, shape=col, layout="DN"), val)
    pto.TSTORE(pto.GlobalTensor(indices, shape=col, layout="DN"), idx)


def host_data():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    x[1, 70] = x[1, 200] = 9.0  # a tie: the first index (70) wins
    x[2] = -np.abs(x[2]) - 1.0  # every other logit of row 2 is below -1
    x[2, 3], x[2, 10] = -0.0, 0.0  # the maximum is zero: -0.0 first, +0.0 later
    return x


def inputs(dev):
    return (
        dev.gm_array(host_data()),
        dev.gm_zeros(ROWS, "float32"),
        dev.gm_full(ROWS, "int32", -1),
    )


def expected(target: str, x: np.ndarray):
    idx = np.empty(ROWS, np.int32)
    for i, row in enumerate(x):
        best = 0
        for j in range(1, COLS):
            a, b = row[j], row[best]
            # the NPU order is IEEE maximum: +0 beats -0 (the cpu's `>` says they are equal)
            npu_zero = target != "cpu" and a == b == 0 and np.signbit(b) and not np.signbit(a)
            if a > b or npu_zero:
                best = j
        idx[i] = best
    return x[np.arange(ROWS), idx], idx


def check(dev, args, run):
    x = host_data()
    vals, idx = expected(dev.config.target, x)
    assert idx[1] == 70 and idx[2] == (3 if dev.config.target == "cpu" else 10)
    got_v, got_i = args[1].numpy(), args[2].numpy()
    return np.array_equal(got_i, idx) and np.array_equal(
        got_v.view(np.uint32), vals.view(np.uint32)
    )
