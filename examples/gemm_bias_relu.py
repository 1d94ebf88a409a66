"""A GEMM with a fused epilogue: ``out = relu(A @ B + bias)``, the product on the cube core and
the epilogue on the two vector cores of each AI core (``@pto.kernel(cores="mix")``).

A [64 x 64] and B [64 x 64] in half, the bias row and the output in float32; 2 AI cores, each
owns 32 rows of the output. The cube half of a core loads its A slab and B into L1 (ND -> NZ,
MTE2), moves them into L0A / L0B (MTE1), multiplies (PIPE_M) and stores the accumulator to the
GM scratch ``c`` through the fixpipe (PIPE_FIX). Atlas A2/A3 has no on-chip path from L0C to a
vector core's UB, so the hand-over goes through GM and is ordered by a mode-2 cross-core flag:
``ffts_cross_core_sync(PIPE_FIX, ffts_config(2, FLAG))`` posts when the fixpipe store has
finished and counts one on the flag of *both* vector cores; each vector core waits on its own
copy with ``wait_flag_dev(FLAG)``, then loads its 16 rows of ``c`` and the bias (MTE2), adds the
bias down the columns (TCOLEXPANDADD) and applies ReLU (TRELU) on PIPE_V, and stores its rows
of ``out`` (MTE3).

The inputs are small integers: every product, sum and bias add is exact in float32, so the
result is numpy's integer arithmetic bit for bit on every target. Broken twin (the cube -> vector
flag left out): examples/bugs/missing_cube_to_vec_flag.py. C++ twin:
examples/cxx/gemm_bias_relu.cpp.

Run it: ``python -m ptosim run examples/gemm_bias_relu.py --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3")
M, K, N, BLOCKS = 64, 64, 64, 2
ROWS = M // BLOCKS  # rows of the output per AI core
HALF = ROWS // 2  # rows per vector core
FLAG = 3  # the cross-core flag id of the cube -> vector hand-over
RUN_OPTIONS = {"block_dim": BLOCKS}


def cube_half(a, b, c, row0):
    """C[row0 : row0 + ROWS] = A[row0 : row0 + ROWS] @ B, into the GM scratch ``c``."""
    a_mat = pto.TileMatNZ("float16", ROWS, K, name="a_mat")
    b_mat = pto.TileMatNZ("float16", K, N, name="b_mat")
    left = pto.TileLeft("float16", ROWS, K, name="left")
    right = pto.TileRight("float16", K, N, name="right")
    acc = pto.TileAcc("float32", ROWS, N, name="acc")
    pto.TASSIGN(a_mat, 0x0)
    pto.TASSIGN(b_mat, 0x4000)
    pto.TASSIGN(left, 0x0)
    pto.TASSIGN(right, 0x0)
    pto.TASSIGN(acc, 0x0)
    pto.TLOAD(a_mat, pto.GlobalTensor(a, shape=(ROWS, K), offset=row0 * K))
    pto.TLOAD(b_mat, pto.GlobalTensor(b, shape=(K, N)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, pto.EVENT_ID0)
    pto.TMOV(left, a_mat)
    pto.TMOV(right, b_mat)
    pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, pto.EVENT_ID0)
    pto.TMATMUL(acc, left, right)
    pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(c, shape=(ROWS, N), offset=row0 * N), acc)


def vec_half(c, bias, out, row0):
    """out[rows] = relu(c[rows] + bias) for this vector core's HALF rows."""
    r = row0 + pto.get_subblockid() * HALF
    ct = pto.Tile("Vec", "float32", HALF, N, name="c")
    bt = pto.Tile("Vec", "float32", 1, N, name="bias")
    pto.TASSIGN(ct, 0x0)
    pto.TASSIGN(bt, 0x2000)
    pto.TLOAD(ct, pto.GlobalTensor(c, shape=(HALF, N), offset=r * N))
    pto.TLOAD(bt, pto.GlobalTensor(bias, shape=(1, N)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TCOLEXPANDADD(ct, ct, bt)
    pto.pipe_barrier(pto.PIPE_V)
    pto.TRELU(ct, ct)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(HALF, N), offset=r * N), ct)


@pto.kernel(cores="mix")
def gemm_bias_relu(a, b, bias, c, out):
    row0 = pto.get_block_idx() * ROWS
    if pto.is_cube():
        cube_half(a, b, c, row0)
        # C is in GM once the fixpipe store has drained: tell both vector cores
        pto.ffts_cross_core_sync(pto.PIPE_FIX, pto.ffts_config(2, FLAG))
    else:
        pto.wait_flag_dev(FLAG)  # this vector core's copy of the cube's post
        vec_half(c, bias, out, row0)


def host_data(seed: int = 11):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    bias = rng.integers(-40, 41, (1, N)).astype(np.float32)
    return a, b, bias


def inputs(dev):
    a, b, bias = host_data()
    return (
        dev.gm_array(a), dev.gm_array(b), dev.gm_array(bias),
        dev.gm_zeros((M, N), "float32"), dev.gm_zeros((M, N), "float32"),
    )  # fmt: skip


def check(dev, args, run):
    a, b, bias = host_data()
    # |a @ b| <= 64 * 9 and |bias| <= 40: exact in float32 whatever the order of the sums
    want = np.maximum(a.astype(np.int64) @ b.astype(np.int64) + bias.astype(np.int64), 0)
    return np.array_equal(args[4].numpy(), want.astype(np.float32))
