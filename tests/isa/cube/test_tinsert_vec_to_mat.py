"""950 TINSERT(mat, vec) from a vector core into its cube core's L1: the bytes land where the
fractal layouts put them. Expected L1 bytes are built here from the layout definitions: an NZ
tile stores 16 x C0 boxes column block after column block, Rows rows apart (C0 = 32 bytes of
elements); an ND tile stores rows Cols apart. The split forms (SPLIT2 / SPLIT4) copy the same
blocks in 2 or 4 groups, so they land where the plain insert puts them."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

C0 = 8  # float32 elements per 32-byte block


def nz_offset(r, c, rows):
    return (c // C0) * rows * C0 + r * C0 + c % C0


def _insert(src_layout: str, dst_rows: int, dst_cols: int, index_row: int, mode=None):
    rows, cols = 16, 32

    @pto.kernel(cores="mix")
    def insert(src):
        if pto.is_cube() or pto.get_subblockid() == 1:
            return
        nd = pto.Tile("Vec", "float32", rows, cols)
        pto.TASSIGN(nd, 0x0)
        pto.TLOAD(nd, pto.GlobalTensor(src, (rows, cols)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        if src_layout == "NZ":
            vec = pto.Tile("Vec", "float32", rows, cols, "ColMajor", slayout="RowMajor")
            pto.TASSIGN(vec, 0x4000)
            pto.TMOV(vec, nd)
            mat = pto.Tile("Mat", "float32", dst_rows, dst_cols, "ColMajor", slayout="RowMajor")
        else:
            vec = nd
            mat = pto.Tile("Mat", "float32", dst_rows, dst_cols)
        pto.TASSIGN(mat, 0x1000)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TINSERT(mat, vec, index_row, 0, mode=mode)

    dev = pto.Device("950pr")
    data = (np.arange(rows * cols) + 1).astype(np.float32).reshape(rows, cols)
    run = dev.run(insert, dev.gm_array(data))
    assert run.findings == [], [str(f) for f in run.findings]
    l1 = run.blocks[0].buffers["L1"]
    return data, l1.data[0x1000 : 0x1000 + dst_rows * dst_cols * 4].view(np.float32)


@pytest.mark.parametrize("mode", [None, "SPLIT2", "SPLIT4"])
def test_nz_vec_into_nz_mat_at_a_row(mode):
    data, got = _insert("NZ", 48, 32, 16, mode)
    want = np.full(48 * 32, np.nan, np.float32)  # L1 starts as poison (NaN for float)
    for r in range(16):
        for c in range(32):
            want[nz_offset(16 + r, c, 48)] = data[r, c]
    np.testing.assert_array_equal(got, want)


def test_nd_vec_into_nd_mat_row_by_row():
    data, got = _insert("ND", 20, 64, 3)
    want = np.full((20, 64), np.nan, np.float32)
    want[3:19, :32] = data
    np.testing.assert_array_equal(got.reshape(20, 64), want)


def test_tinsert_vec_to_mat_is_950_only():
    with pytest.raises(pto.PtoSimError):

        @pto.kernel(cores="mix")
        def k(src):
            if not pto.is_cube():
                v = pto.Tile("Vec", "float32", 16, 32, "ColMajor", slayout="RowMajor")
                m = pto.Tile("Mat", "float32", 16, 32, "ColMajor", slayout="RowMajor")
                pto.TINSERT(m, v, 0, 0, mode="SPLIT2")

        dev = pto.Device("a2")
        dev.run(k, dev.gm_zeros((16, 32), "float32"))
