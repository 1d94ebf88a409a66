"""A 950 GEMM whose epilogue runs on the vector cores with no trip through GM:
``out = relu(A @ B + bias)``, the product on the cube core, the accumulator handed to the two
vector cores of its AI core through the fixpipe's Acc -> Vec path (``@pto.kernel(cores="mix")``).

A [64 x 64] and B [64 x 64] in half, the bias row and the output in float32; 2 AI cores, each
owns 32 rows of the output. The cube half of a core loads its A slab and B into L1 (MTE2),
moves them into L0A / L0B (MTE1) and multiplies (PIPE_M). Then one fixpipe copy,
``TMOV(c, acc, acc_to_vec="DualModeSplitM")``, writes the upper 16 rows of the accumulator into
the UB of AIV0 and the lower 16 into the UB of AIV1, both at the Vec tile's address. The
hand-over is an intra-block flag per vector core: ``set_intra_block(PIPE_FIX, F)`` posts once the
fixpipe copy is done and reaches AIV0, ``F + 16`` reaches AIV1; each vector core blocks its
PIPE_V on ``wait_intra_block(PIPE_V, F)``, then adds the bias down the columns
(TCOLEXPANDADD), applies ReLU (TRELU) and stores its rows of ``out`` (MTE3).

Compare examples/gemm_bias_relu.py, the Atlas A2/A3 form, where the accumulator goes out to a
GM scratch and back (a fixpipe store, two loads) under a mode-2 cross-core flag.

The inputs are small integers: every product, sum and bias add is exact in float32, so the
result is numpy's integer arithmetic bit for bit.

Run it: ``python -m ptosim run examples/gemm_acc2vec_epilogue.py --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("950pr", "950dt")
M, K, N, BLOCKS = 64, 64, 64, 2
ROWS = M // BLOCKS  # rows of the output per AI core
HALF = ROWS // 2  # rows per vector core
FLAG = 3  # the intra-block flag of the cube -> vector hand-over (F to AIV0, F + 16 to AIV1)
C_UB = 0x0  # where the accumulator's rows land in each vector core's UB
RUN_OPTIONS = {"block_dim": BLOCKS}


def cube_half(a, b, c, row0):
    """acc = A[row0 : row0 + ROWS] @ B, then its rows split into the vector cores' UBs."""
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
    # AIV0 gets rows 0..15, AIV1 rows 16..31, each at c's address in its own UB
    pto.TMOV(c, acc, acc_to_vec="DualModeSplitM")


def vec_half(c, bias, out, row0):
    """out[rows] = relu(c + bias) for this vector core's HALF rows (c is already in UB)."""
    r = row0 + pto.get_subblockid() * HALF
    bt = pto.Tile("Vec", "float32", 1, N, name="bias")
    pto.TASSIGN(bt, 0x4000)
    pto.TLOAD(bt, pto.GlobalTensor(bias, shape=(1, N)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_intra_block(pto.PIPE_V, FLAG)  # the cube core's fixpipe copy is in this UB
    pto.TCOLEXPANDADD(c, c, bt)
    pto.pipe_barrier(pto.PIPE_V)
    pto.TRELU(c, c)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(HALF, N), offset=r * N), c)


@pto.kernel(cores="mix")
def gemm_acc2vec_epilogue(a, b, bias, out):
    row0 = pto.get_block_idx() * ROWS
    # on the cube core the Vec tile is an address in the vector cores' UBs (the split's
    # destination); on a vector core its HALF valid rows
    c = pto.Tile("Vec", "float32", HALF, N, name="c")
    pto.TASSIGN(c, C_UB)
    if pto.is_cube():
        cube_half(a, b, c, row0)
        pto.set_intra_block(pto.PIPE_FIX, FLAG)  # to AIV0
        pto.set_intra_block(pto.PIPE_FIX, FLAG + 16)  # to AIV1
    else:
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
        dev.gm_array(a), dev.gm_array(b), dev.gm_array(bias), dev.gm_zeros((M, N), "float32"),
    )  # fmt: skip


def check(dev, args, run):
    a, b, bias = host_data()
    # |a @ b| <= 64 * 9 and |bias| <= 40: exact in float32 whatever the order of the sums
    want = np.maximum(a.astype(np.int64) @ b.astype(np.int64) + bias.astype(np.int64), 0)
    return np.array_equal(args[3].numpy(), want.astype(np.float32))
