"""Row softmax: ``out[i, :] = exp(x[i, :] - max_j x[i, j]) / sum_j exp(x[i, j] - max)``.

The numerically stable softmax of an attention score tile, one row per query, in five vector
instructions with a ``pipe_barrier(PIPE_V)`` between each dependent pair (as the vendor kernels
do; the vector pipe does not order a read after a write by itself):

1. ``TROWMAX(m, x, tmp)``: the row maxima into a [R, 1] ColMajor column;
2. ``TROWEXPANDSUB(d, x, m)``: subtract each row's maximum (mode 1: one scalar per row);
3. ``TEXP(e, d)``;
4. ``TROWSUM(s, e, tmp)``: the row sums of the exponentials;
5. ``TROWEXPANDDIV(out, e, s)``.

Two kernels, both float32: ``softmax_16x64`` (C = 64 is exactly one 256-byte repeat, so the
a2a3 row sum is a single ``vcadd`` lane tree) and ``softmax_8x256`` (4 repeats per row: a2a3
adds the chunks pairwise into tmp before the lane tree, a5 adds one lane tree per 256-byte chunk
sequentially). Every step except the row sum rounds once to float32 on every target, so the
exact expected output differs between targets only through the row sums' addition order:
``check`` writes the three orders (cpu sequential, a2a3 chunk tree + lane tree, a5 per-chunk
trees) from docs/reference/reduction.md (the reduction orders).

Run it: ``python -m ptosim run examples/softmax.py:softmax_8x256 --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
V = pto.PIPE_V
SHAPES = {"softmax_16x64": (16, 64), "softmax_8x256": (8, 256)}


def _softmax(x, out, rows: int, cols: int) -> None:
    xt = pto.Tile("Vec", "float32", rows, cols, name="x")
    tmp = pto.Tile("Vec", "float32", rows, cols, name="tmp")  # row-reduction scratch (a2a3)
    e = pto.Tile("Vec", "float32", rows, cols, name="e")
    m = pto.Tile("Vec", "float32", rows, 1, blayout="ColMajor", name="rowmax")
    s = pto.Tile("Vec", "float32", rows, 1, blayout="ColMajor", name="rowsum")
    gm = (1, 1, 1, rows, cols)
    pto.TLOAD(xt, pto.GlobalTensor(x, shape=gm))
    pto.set_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.TROWMAX(m, xt, tmp)
    pto.pipe_barrier(V)
    pto.TROWEXPANDSUB(e, xt, m)
    pto.pipe_barrier(V)
    pto.TEXP(e, e)
    pto.pipe_barrier(V)
    pto.TROWSUM(s, e, tmp)
    pto.pipe_barrier(V)
    pto.TROWEXPANDDIV(xt, e, s)  # the result reuses x's buffer
    pto.set_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=gm), xt)


@pto.kernel
def softmax_16x64(x, out):
    _softmax(x, out, *SHAPES["softmax_16x64"])


@pto.kernel
def softmax_8x256(x, out):
    _softmax(x, out, *SHAPES["softmax_8x256"])


def _data(rows: int, cols: int) -> np.ndarray:
    rng = np.random.default_rng(rows * cols)
    return (rng.standard_normal((rows, cols)) * 3.0).astype(np.float32)


def _inputs(name, dev):
    x = _data(*SHAPES[name])
    return dev.gm_array(x), dev.gm_zeros(x.shape, "float32")


def inputs_softmax_16x64(dev):
    return _inputs("softmax_16x64", dev)


def inputs_softmax_8x256(dev):
    return _inputs("softmax_8x256", dev)


# -- the row-sum orders, written from docs/reference/reduction.md (not from ptosim)-----------------
LANES = 64  # float32 elements per 256-byte repeat (a2a3) / vector (a5)


def lane_tree(v: np.ndarray) -> np.float32:
    """vcadd: lane 2k + lane 2k+1, level by level, an odd last lane carried, in float32."""
    v = [np.float32(a) for a in v]
    while len(v) > 1:
        nxt = [np.float32(v[k] + v[k + 1]) for k in range(0, len(v) - 1, 2)]
        v = nxt + ([v[-1]] if len(v) % 2 else [])
    return v[0]


def row_sum(target: str, row: np.ndarray) -> np.float32:
    if target == "cpu":  # the CPU simulator: left to right in a float32 accumulator
        acc = np.float32(0)
        for a in row:
            acc = np.float32(acc + a)
        return acc
    chunks = [row[k : k + LANES] for k in range(0, len(row), LANES)]
    if target == "a5":  # one lane tree per 256-byte chunk, the partial sums added in order
        acc = np.float32(0)
        for c in chunks:
            acc = np.float32(acc + lane_tree(c))
        return acc
    # a2a3 (whole chunks here): chunks added pairwise (element-wise vadd into tmp), the partial
    # chunks again pairwise until one is left, then one vcadd lane tree over its 64 lanes
    while len(chunks) > 1:
        assert len(chunks) % 2 == 0  # the shapes here have 1 or 4 chunks per row
        chunks = [(chunks[k] + chunks[k + 1]).astype(np.float32) for k in range(0, len(chunks), 2)]
    return lane_tree(chunks[0])


def expected(target: str, x: np.ndarray) -> np.ndarray:
    m = x.max(axis=1, keepdims=True)  # the maximum does not depend on the order
    d = (x - m).astype(np.float32)  # one float32 subtraction
    e = np.exp(d.astype(np.float64)).astype(np.float32)  # exp correctly rounded to float32
    s = np.array([[row_sum(target, r)] for r in e], dtype=np.float32)
    return (e / s).astype(np.float32)  # one float32 division


def _check(name, dev, args):
    x = _data(*SHAPES[name])
    every = {t: expected(t, x) for t in ("cpu", "a2a3", "a5")}
    # the orders give different bits on this data (so the branch on the target matters), and
    # the result is a softmax: its rows sum to 1 within rounding
    assert not np.array_equal(every["cpu"], every["a2a3"])
    want = every[dev.config.target]
    assert np.allclose(want.sum(axis=1), 1.0, atol=1e-5)
    return np.array_equal(args[1].numpy(), want)


def check_softmax_16x64(dev, args, run):
    return _check("softmax_16x64", dev, args)


def check_softmax_8x256(dev, args, run):
    return _check("softmax_8x256", dev, args)
