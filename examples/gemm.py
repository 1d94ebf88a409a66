"""A GEMM on the cube cores: ``C = A @ B`` for A [64 x 128] and B [128 x 64] in half, C in float.

4 AI cores (``@pto.kernel(cores="cube")``, ``block_dim`` counts AI cores) each compute 16 rows
of C. Per core: TLOAD its A slab and all of B from GM into L1 (ND -> NZ fractals, MTE2); TEXTRACT
the two 64-wide K slices of each into L0A / L0B (MTE1; B's NZ panel is transposed into the
Right tile's ZN fractals on the way); TMATMUL the first slice, TMATMUL_ACC the second onto the
same accumulator (PIPE_M); TSTORE the accumulator to GM through the fixpipe (PIPE_FIX, NZ ->
ND). ``pto.TileLeft`` is ZZ on Atlas A2/A3 and NZ on cpu, as the C++ alias.

The inputs are small integers, so every product and sum is exact in float32 and the result is
the integer product bit for bit, whatever order a target sums in. Twin: examples/cxx/gemm.cpp.

Run it: ``python -m ptosim run examples/gemm.py --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
M, K, N, BLOCKS = 64, 128, 64, 4
ROWS = M // BLOCKS  # rows of C per AI core
KS = 64  # the K slice of one mad
RUN_OPTIONS = {"block_dim": BLOCKS}


@pto.kernel(cores="cube")
def gemm(a, b, c):
    a_mat = pto.TileMatNZ("float16", ROWS, K, name="a_mat")
    b_mat = pto.TileMatNZ("float16", K, N, name="b_mat")
    left = [pto.TileLeft("float16", ROWS, KS, name=f"left{i}") for i in range(2)]
    right = [pto.TileRight("float16", KS, N, name=f"right{i}") for i in range(2)]
    acc = pto.TileAcc("float32", ROWS, N, name="acc")
    pto.TASSIGN(a_mat, 0x0)
    pto.TASSIGN(b_mat, 0x4000)
    for i in range(2):
        pto.TASSIGN(left[i], 0x2000 * i)
        pto.TASSIGN(right[i], 0x2000 * i)
    pto.TASSIGN(acc, 0x0)
    row0 = pto.get_block_idx() * ROWS
    pto.TLOAD(a_mat, pto.GlobalTensor(a, shape=(ROWS, K), offset=row0 * K))
    pto.TLOAD(b_mat, pto.GlobalTensor(b, shape=(K, N)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, pto.EVENT_ID0)
    for i in range(2):
        pto.TEXTRACT(left[i], a_mat, 0, i * KS)
        pto.TEXTRACT(right[i], b_mat, i * KS, 0)
    pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, pto.EVENT_ID0)
    pto.TMATMUL(acc, left[0], right[0])
    pto.TMATMUL_ACC(acc, acc, left[1], right[1])
    pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(c, shape=(ROWS, N), offset=row0 * N), acc)


def host_data(seed: int = 7):
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    return a, b


def inputs(dev):
    a, b = host_data()
    return dev.gm_array(a), dev.gm_array(b), dev.gm_zeros((M, N), "float32")


def check(dev, args, run):
    a, b = host_data()
    # |sum| <= 128 * 16: exact in float32 in any order, so the integer product is the answer
    want = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32)
    return np.array_equal(args[2].numpy(), want)
