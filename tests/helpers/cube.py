"""Cube-kernel plumbing shared by the cube tests: the GEMM prologue most of them start with."""

import ptosim as pto


def multiply_into_acc(a, b, m, k, n, da="float16", db=None, acc_dtype="float32", acc_valid=()):
    """Inside a cube kernel body: TLOAD A (m x k) and B (k x n) from GM into NZ L1 panels, TMOV
    them into Left / Right tiles and TMATMUL into a new Acc tile (of valid ``acc_valid``: (rows,
    cols), or the whole m x n), each step behind its flag; returns the Acc tile, ready for the
    fixpipe (the M -> FIX flag taken)."""
    db = db or da
    am, bm = pto.TileMatNZ(da, m, k), pto.TileMatNZ(db, k, n)
    la, rb = pto.TileLeft(da, m, k), pto.TileRight(db, k, n)
    acc = pto.TileAcc(acc_dtype, m, n, *acc_valid)
    pto.TLOAD(am, pto.GlobalTensor(a, (m, k)))
    pto.TLOAD(bm, pto.GlobalTensor(b, (k, n)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
    pto.TMOV(la, am)
    pto.TMOV(rb, bm)
    pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
    pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
    pto.TMATMUL(acc, la, rb)
    pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
    pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
    return acc
