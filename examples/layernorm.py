"""Layer normalisation over the last axis: ``out = (x - mean) * rsqrt(var + eps) * gamma + beta``.

One row per token, float32, the statistics per row, ``gamma`` and ``beta`` per column:

1. ``TROWSUM(mean, x, tmp)`` into a [R, 1] ColMajor column, then ``TMULS`` by 1/C (a power of
   two, so the scaling is exact);
2. ``TROWEXPANDSUB(xc, x, mean)``; ``TMUL(sq, xc, xc)``; ``TROWSUM(var, sq, tmp)``; ``TMULS``
   by 1/C; ``TADDS`` eps; ``TRSQRT``;
3. ``TROWEXPANDMUL(y, xc, rstd)``, ``TCOLEXPANDMUL(y, y, gamma)``, ``TCOLEXPANDADD(y, y,
   beta)`` with gamma and beta [1, C] row vectors broadcast down the columns.

The element-wise scalar instructions want RowMajor tiles, and the row reductions and the row
broadcasts want the [R, 1] ColMajor column: ``TRESHAPE`` views the same 4*R bytes as a [1, R]
RowMajor tile for the scalar steps (an alias, no data moves). A ``pipe_barrier(PIPE_V)`` sits
between every dependent pair of vector instructions.

Expected bits per target (docs/reference/reduction.md, elementwise-unary.md): the two row sums
are added in each target's order (cpu sequential, a2a3 chunk tree + vcadd lane tree, a5
per-chunk lane trees summed in order), and TRSQRT is one rounding of 1/sqrt on cpu and on
a2a3 (the 2-operand vrsqrt) but vsqrt then vdiv, two roundings, on a5. Everything else rounds
once to float32 everywhere. Two shapes: ``layernorm_16x64`` (one 256-byte repeat per row) and
``layernorm_8x256``.

Run it: ``python -m ptosim run examples/layernorm.py:layernorm_8x256 --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
V = pto.PIPE_V
EPS = 1e-5
SHAPES = {"layernorm_16x64": (16, 64), "layernorm_8x256": (8, 256)}


def _layernorm(x, gamma, beta, out, rows: int, cols: int) -> None:
    xt = pto.Tile("Vec", "float32", rows, cols, name="x")
    xc = pto.Tile("Vec", "float32", rows, cols, name="xc")
    sq = pto.Tile("Vec", "float32", rows, cols, name="sq")  # x - mean squared, later y
    tmp = pto.Tile("Vec", "float32", rows, cols, name="tmp")  # row-reduction scratch (a2a3)
    g = pto.Tile("Vec", "float32", 1, cols, name="gamma")
    b = pto.Tile("Vec", "float32", 1, cols, name="beta")
    mean = pto.Tile("Vec", "float32", rows, 1, blayout="ColMajor", name="mean")
    rstd = pto.Tile("Vec", "float32", rows, 1, blayout="ColMajor", name="rstd")
    mean_row = pto.Tile("Vec", "float32", 1, rows, name="mean_row")  # views of the columns
    rstd_row = pto.Tile("Vec", "float32", 1, rows, name="rstd_row")
    pto.TRESHAPE(mean_row, mean)
    pto.TRESHAPE(rstd_row, rstd)
    gm = (1, 1, 1, rows, cols)
    pto.TLOAD(xt, pto.GlobalTensor(x, shape=gm))
    pto.TLOAD(g, pto.GlobalTensor(gamma, shape=(1, 1, 1, 1, cols)))
    pto.TLOAD(b, pto.GlobalTensor(beta, shape=(1, 1, 1, 1, cols)))
    pto.set_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.TROWSUM(mean, xt, tmp)
    pto.pipe_barrier(V)
    pto.TMULS(mean_row, mean_row, 1.0 / cols)
    pto.pipe_barrier(V)
    pto.TROWEXPANDSUB(xc, xt, mean)
    pto.pipe_barrier(V)
    pto.TMUL(sq, xc, xc)
    pto.pipe_barrier(V)
    pto.TROWSUM(rstd, sq, tmp)
    pto.pipe_barrier(V)
    pto.TMULS(rstd_row, rstd_row, 1.0 / cols)
    pto.pipe_barrier(V)
    pto.TADDS(rstd_row, rstd_row, EPS)
    pto.pipe_barrier(V)
    pto.TRSQRT(rstd_row, rstd_row)
    pto.pipe_barrier(V)
    pto.TROWEXPANDMUL(sq, xc, rstd)
    pto.pipe_barrier(V)
    pto.TCOLEXPANDMUL(sq, sq, g)
    pto.pipe_barrier(V)
    pto.TCOLEXPANDADD(sq, sq, b)
    pto.set_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=gm), sq)


@pto.kernel
def layernorm_16x64(x, gamma, beta, out):
    _layernorm(x, gamma, beta, out, *SHAPES["layernorm_16x64"])


@pto.kernel
def layernorm_8x256(x, gamma, beta, out):
    _layernorm(x, gamma, beta, out, *SHAPES["layernorm_8x256"])


def _data(rows: int, cols: int):
    rng = np.random.default_rng(rows + cols)
    x = (rng.standard_normal((rows, cols)) * 2.0 + 0.5).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    beta = rng.uniform(-0.5, 0.5, cols).astype(np.float32)
    return x, gamma, beta


def _inputs(name, dev):
    x, gamma, beta = _data(*SHAPES[name])
    return (
        dev.gm_array(x),
        dev.gm_array(gamma),
        dev.gm_array(beta),
        dev.gm_zeros(x.shape, "float32"),
    )


def inputs_layernorm_16x64(dev):
    return _inputs("layernorm_16x64", dev)


def inputs_layernorm_8x256(dev):
    return _inputs("layernorm_8x256", dev)


# -- the expected bits per target, from docs/reference/*.md (not from ptosim) ----------------------
f32 = np.float32
LANES = 64  # float32 elements per 256-byte repeat (a2a3) / vector (a5)


def lane_tree(v) -> np.float32:
    """vcadd: lane 2k + lane 2k+1, level by level, an odd last lane carried, in float32."""
    v = [f32(a) for a in v]
    while len(v) > 1:
        v = [f32(v[k] + v[k + 1]) for k in range(0, len(v) - 1, 2)] + (
            [v[-1]] if len(v) % 2 else []
        )
    return v[0]


def row_sum(target: str, row: np.ndarray) -> np.float32:
    if target == "cpu":  # left to right in a float32 accumulator
        acc = f32(0)
        for a in row:
            acc = f32(acc + a)
        return acc
    chunks = [row[k : k + LANES] for k in range(0, len(row), LANES)]
    if target == "a5":  # a lane tree per 256-byte chunk, the chunk sums added in order
        acc = f32(0)
        for c in chunks:
            acc = f32(acc + lane_tree(c))
        return acc
    while len(chunks) > 1:  # a2a3: whole chunks added pairwise, then one lane tree
        chunks = [(chunks[k] + chunks[k + 1]).astype(f32) for k in range(0, len(chunks), 2)]
    return lane_tree(chunks[0])


def rsqrt(target: str, v: np.ndarray) -> np.ndarray:
    if target == "a5":  # vsqrt then vdiv: each rounded to float32
        return (f32(1) / np.sqrt(v.astype(np.float64)).astype(f32)).astype(f32)
    # cpu 1.0/sqrt(double) and the a2a3 vrsqrt (modelled correctly rounded): one rounding
    return (1.0 / np.sqrt(v.astype(np.float64))).astype(f32)


def expected(target: str, x, gamma, beta) -> np.ndarray:
    C = x.shape[1]
    inv_c = f32(1.0 / C)
    mean = np.array([row_sum(target, r) for r in x], f32) * inv_c
    xc = (x - mean[:, None]).astype(f32)
    sq = (xc * xc).astype(f32)
    var = np.array([row_sum(target, r) for r in sq], f32) * inv_c
    rstd = rsqrt(target, (var + f32(EPS)).astype(f32))
    y = (xc * rstd[:, None]).astype(f32)
    y = (y * gamma[None, :]).astype(f32)
    return (y + beta[None, :]).astype(f32)


def _check(name, dev, args):
    x, gamma, beta = _data(*SHAPES[name])
    every = {t: expected(t, x, gamma, beta) for t in ("cpu", "a2a3", "a5")}
    assert not np.array_equal(every["cpu"], every["a5"])  # the target branch matters here
    want = every[dev.config.target]
    # and it is a layer norm: (y - beta) / gamma has mean 0 and variance 1 per row
    z = (want.astype(np.float64) - beta) / gamma
    assert np.allclose(z.mean(axis=1), 0, atol=1e-5) and np.allclose(z.var(axis=1), 1, atol=1e-3)
    return np.array_equal(args[3].numpy(), want)


def check_layernorm_16x64(dev, args, run):
    return _check("layernorm_16x64", dev, args)


def check_layernorm_8x256(dev, args, run):
    return _check("layernorm_8x256", dev, args)
