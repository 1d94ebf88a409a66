"""TEXTRACT into a compact Left / Right tile on the NPU copies the destination's valid extent
in whole fractals (the mad-aligned m, k, n), so a window that fits the source only by that
extent is legal (the a5 textract_compact folder's unaligned cases); expected values: numpy."""

from __future__ import annotations

import numpy as np

import ptosim as pto

BM, BK, BN = 80, 256, 80  # the L1 panels
I = 16  # the window's start in every dimension
VM, VK, VN = BM - I - 5, BK - I - 55, BN - I - 1  # 59, 185, 63: unaligned valid extents


@pto.kernel(cores="cube")
def extract_and_multiply(a, b, c):
    am, bm = pto.TileMatNZ("float16", BM, BK), pto.TileMatNZ("float16", BK, BN)
    left = pto.TileLeft("float16", BM, BK, VM, VK, compact=True)
    right = pto.TileRight("float16", BK, BN, VK, VN, compact=True)
    acc = pto.TileAcc("float32", BM, BN, VM, VN, compact=True)
    pto.TLOAD(am, pto.GlobalTensor(a, (BM, BK)))
    pto.TLOAD(bm, pto.GlobalTensor(b, (BK, BN)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
    pto.TEXTRACT(left, am, I, I)  # 16 + 64 rows, 16 + 192 columns: inside 80 x 256
    pto.TEXTRACT(right, bm, I, I)
    pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
    pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
    pto.TMATMUL(acc, left, right)
    pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
    pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
    pto.TSTORE(pto.GlobalTensor(c, (VM, VN)), acc)


def test_a_compact_extract_window_needs_only_the_aligned_valid_extent():
    rng = np.random.default_rng(9)
    a = rng.integers(-3, 4, (BM, BK)).astype(np.float16)
    b = rng.integers(-3, 4, (BK, BN)).astype(np.float16)
    dev = pto.Device("950pr")
    c = dev.gm_zeros((VM, VN), "float32")
    run = dev.run(extract_and_multiply, dev.gm_array(a), dev.gm_array(b), c)
    assert run.findings == []
    want = a[I : I + VM, I : I + VK].astype(np.int64) @ b[I : I + VK, I : I + VN].astype(np.int64)
    assert np.array_equal(c.numpy(), want.astype(np.float32))
