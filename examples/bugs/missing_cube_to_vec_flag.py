"""Bug: the vector cores read the cube core's GEMM result from GM with no cross-core flag.

A GEMM with a fused epilogue, ``out = relu(A @ B + bias)`` on one AI core: the cube core
computes A @ B and stores it to the GM scratch ``c`` through the fixpipe; each of the two vector
cores loads its 16 rows of ``c``, adds the bias and applies ReLU. On Atlas A2/A3 the cube and
the vector cores are separate cores with their own pipes: nothing orders a vector core's TLOAD
after the cube's fixpipe store unless a cross-core flag does, so ``buggy`` reads ``c`` before
(or while) the cube writes it and computes on stale GM (here the zeros the host left there).

The findings (a2, ``python -m ptosim check examples/bugs/missing_cube_to_vec_flag.py:buggy
--device a2``), one per vector core::

    [F205 cross-core-race] block 0 AIC TSTORE #13 (missing_cube_to_vec_flag.py:63) and block 0
    AIV0 TLOAD #0 (missing_cube_to_vec_flag.py:70) both touch GM[0x100003200, 0x100004200) and
    one of them writes it (not as a hardware atomic), and no cross-core flag orders them: fix:
    ffts_cross_core_sync(PIPE_FIX, ffts_config(2, F)) on block 0 AIC after TSTORE #13, and
    wait_flag_dev(F) on block 0 AIV0 before TLOAD #0, F a flag id (0-15) the kernel uses for
    nothing else

    [F205 cross-core-race] block 0 AIC TSTORE #13 (missing_cube_to_vec_flag.py:63) and block 0
    AIV1 TLOAD #0 (missing_cube_to_vec_flag.py:70) both touch GM[0x100004200, 0x100005200) and
    one of them writes it (not as a hardware atomic), and no cross-core flag orders them: fix:
    ffts_cross_core_sync(PIPE_FIX, ffts_config(2, F)) on block 0 AIC after TSTORE #13, and
    wait_flag_dev(F) on block 0 AIV1 before TLOAD #0, F a flag id (0-15) the kernel uses for
    nothing else

The fix (``fixed``): after the fixpipe store the cube core posts a mode-2 flag,
``ffts_cross_core_sync(PIPE_FIX, ffts_config(2, 3))`` (it posts when PIPE_FIX has drained, so
when C is in GM, and counts one on the flag of both vector cores), and each vector core waits
on its own copy with ``wait_flag_dev(3)`` before its TLOAD. The complete kernel on two AI cores
is examples/gemm_bias_relu.py.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3")
EXPECTED = {"a2": ["F205", "F205"]}
M, K, N = 32, 64, 64
HALF = M // 2
FLAG = 3


def _cube(a, b, c):
    a_mat = pto.TileMatNZ("float16", M, K, name="a_mat")
    b_mat = pto.TileMatNZ("float16", K, N, name="b_mat")
    left, right = pto.TileLeft("float16", M, K), pto.TileRight("float16", K, N)
    acc = pto.TileAcc("float32", M, N, name="acc")
    pto.TASSIGN(a_mat, 0x0)
    pto.TASSIGN(b_mat, 0x4000)
    pto.TLOAD(a_mat, pto.GlobalTensor(a, shape=(M, K)))
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
    pto.TSTORE(pto.GlobalTensor(c, shape=(M, N)), acc)


def _vec(c, bias, out):
    r = pto.get_subblockid() * HALF
    ct = pto.Tile("Vec", "float32", HALF, N, name="c")
    bt = pto.Tile("Vec", "float32", 1, N, name="bias")
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
def buggy(a, b, bias, c, out):
    if pto.is_cube():
        _cube(a, b, c)
        # BUG: no ffts_cross_core_sync(PIPE_FIX, ffts_config(2, FLAG)) after the store
    else:
        # BUG: no wait_flag_dev(FLAG) before reading c
        _vec(c, bias, out)


@pto.kernel(cores="mix")
def fixed(a, b, bias, c, out):
    if pto.is_cube():
        _cube(a, b, c)
        pto.ffts_cross_core_sync(pto.PIPE_FIX, pto.ffts_config(2, FLAG))
    else:
        pto.wait_flag_dev(FLAG)
        _vec(c, bias, out)


def host_data(seed: int = 5):
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
    want = np.maximum(a.astype(np.int64) @ b.astype(np.int64) + bias.astype(np.int64), 0)
    return np.array_equal(args[4].numpy(), want.astype(np.float32))
