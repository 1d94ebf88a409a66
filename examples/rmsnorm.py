"""RMSNorm over the last axis: ``out = x * rsqrt(mean_j(x[i, j]**2) + eps) * gamma``.

The normalisation of LLaMA-style transformers, one row per token, 16 tokens of hidden size 128:

1. ``TMUL(sq, x, x)``; ``TROWSUM(ms, sq, tmp)`` into a [16, 1] ColMajor column;
2. on a [1, 16] RowMajor ``TRESHAPE`` view of that column (the scalar instructions want
   RowMajor tiles): ``TMULS`` by 1/128 (exact), ``TADDS`` eps, ``TRSQRT``;
3. ``TROWEXPANDMUL(y, x, rstd)`` and ``TCOLEXPANDMUL(y, y, gamma)`` (gamma a [1, 128] row).

A ``pipe_barrier(PIPE_V)`` separates every dependent pair of vector instructions. Two kernels:
``rmsnorm_f32`` (float32: two 256-byte repeats per row, so a2a3 adds the two chunks before its
lane tree while a5 sums two chunk trees) and ``rmsnorm_f16`` (half: one repeat per row on the
NPUs, a half accumulator there, while the cpu reference accumulates the row sum in float32 and
rounds once). ``check`` writes each target's order and TRSQRT (one rounding on cpu and a2a3,
vsqrt then vdiv on a5) from docs/reference/elementwise-unary.md and compares bit for bit.

Run it: ``python -m ptosim run examples/rmsnorm.py:rmsnorm_f16 --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
V = pto.PIPE_V
ROWS, COLS = 16, 128
EPS = 2.0**-16  # exact in half (a subnormal) and in float32


def _rmsnorm(x, gamma, out, dt: str) -> None:
    xt = pto.Tile("Vec", dt, ROWS, COLS, name="x")
    sq = pto.Tile("Vec", dt, ROWS, COLS, name="sq")  # x squared, later y
    tmp = pto.Tile("Vec", dt, ROWS, COLS, name="tmp")  # row-reduction scratch (a2a3)
    g = pto.Tile("Vec", dt, 1, COLS, name="gamma")
    rstd = pto.Tile("Vec", dt, ROWS, 1, blayout="ColMajor", name="rstd")
    rstd_row = pto.Tile("Vec", dt, 1, ROWS, name="rstd_row")
    pto.TRESHAPE(rstd_row, rstd)
    gm = (1, 1, 1, ROWS, COLS)
    pto.TLOAD(xt, pto.GlobalTensor(x, shape=gm))
    pto.TLOAD(g, pto.GlobalTensor(gamma, shape=(1, 1, 1, 1, COLS)))
    pto.set_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.TMUL(sq, xt, xt)
    pto.pipe_barrier(V)
    pto.TROWSUM(rstd, sq, tmp)
    pto.pipe_barrier(V)
    pto.TMULS(rstd_row, rstd_row, 1.0 / COLS)
    pto.pipe_barrier(V)
    pto.TADDS(rstd_row, rstd_row, EPS)
    pto.pipe_barrier(V)
    pto.TRSQRT(rstd_row, rstd_row)
    pto.pipe_barrier(V)
    pto.TROWEXPANDMUL(sq, xt, rstd)
    pto.pipe_barrier(V)
    pto.TCOLEXPANDMUL(sq, sq, g)
    pto.set_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=gm), sq)


@pto.kernel
def rmsnorm_f32(x, gamma, out):
    _rmsnorm(x, gamma, out, "float32")


@pto.kernel
def rmsnorm_f16(x, gamma, out):
    _rmsnorm(x, gamma, out, "float16")


def _data(dt):
    rng = np.random.default_rng(77)
    x = rng.standard_normal((ROWS, COLS)).astype(dt)
    gamma = rng.uniform(0.5, 1.5, COLS).astype(dt)
    return x, gamma


def _inputs(dev, dt):
    x, gamma = _data(dt)
    return dev.gm_array(x), dev.gm_array(gamma), dev.gm_zeros(x.shape, np.dtype(dt).name)


def inputs_rmsnorm_f32(dev):
    return _inputs(dev, np.float32)


def inputs_rmsnorm_f16(dev):
    return _inputs(dev, np.float16)


# -- the expected bits per target, from docs/reference/*.md (not from ptosim) ----------------------
def lane_tree(v, t):
    """vcadd: lane 2k + lane 2k+1, level by level, an odd last lane carried, in type t."""
    v = [t(a) for a in v]
    while len(v) > 1:
        v = [t(v[k] + v[k + 1]) for k in range(0, len(v) - 1, 2)] + ([v[-1]] if len(v) % 2 else [])
    return v[0]


def row_sum(target: str, row: np.ndarray):
    t = row.dtype.type
    if target == "cpu":  # left to right in float32 (also for half), rounded once to T
        acc = np.float32(0)
        for a in row:
            acc = np.float32(acc + np.float32(a))
        return t(acc)
    lanes = 256 // row.dtype.itemsize  # elements per 256-byte repeat / vector
    chunks = [row[k : k + lanes] for k in range(0, len(row), lanes)]
    if target == "a5":  # a lane tree per chunk, the chunk sums added in order, in T
        acc = t(0)
        for c in chunks:
            acc = t(acc + lane_tree(c, t))
        return acc
    while len(chunks) > 1:  # a2a3: whole chunks added pairwise in T, then one lane tree
        chunks = [(chunks[k] + chunks[k + 1]).astype(t) for k in range(0, len(chunks), 2)]
    return lane_tree(chunks[0], t)


def rsqrt(target: str, v: np.ndarray) -> np.ndarray:
    t = v.dtype
    if target == "a5":  # vsqrt then vdiv, each rounded to T
        s = np.sqrt(v.astype(np.float64)).astype(t)
        return (1.0 / s.astype(np.float64)).astype(t)
    # cpu 1.0/sqrt(double) and the a2a3 2-operand vrsqrt (modelled correctly rounded)
    return (1.0 / np.sqrt(v.astype(np.float64))).astype(t)


def expected(target: str, x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    t = x.dtype.type
    sq = x * x  # numpy rounds a same-type product once to T
    ms = np.array([row_sum(target, r) for r in sq], x.dtype) * t(1.0 / COLS)
    rstd = rsqrt(target, ms + t(EPS))
    return (x * rstd[:, None]) * gamma[None, :]


def _check(dev, args, dt):
    x, gamma = _data(dt)
    every = {tg: expected(tg, x, gamma) for tg in ("cpu", "a2a3", "a5")}
    assert all(w.dtype == dt for w in every.values())
    assert not np.array_equal(every["cpu"], every["a2a3"])  # the target branch matters here
    want = every[dev.config.target]
    # and it is an RMS norm: y / gamma has a root mean square of 1 per row, within rounding
    z = want.astype(np.float64) / gamma
    tol = 1e-5 if dt is np.float32 else 2e-2
    assert np.allclose(np.sqrt((z * z).mean(axis=1)), 1.0, atol=tol)
    return np.array_equal(args[2].numpy(), want)


def check_rmsnorm_f32(dev, args, run):
    return _check(dev, args, np.float32)


def check_rmsnorm_f16(dev, args, run):
    return _check(dev, args, np.float16)
