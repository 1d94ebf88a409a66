"""950 TINSERT(mat, vec) of a packed 4-bit NZ tile at a column offset: two elements share a
byte, so a 32-byte C0 block holds 64 elements and index column 128 is byte column 64, the
third column block. The expected L1 bytes are built here from the NZ layout (16-row x 32-byte
boxes, column block after column block, the Mat tile's 16 rows apart)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

BLOCK_BYTES = 32
SRC_ROWS, SRC_COLS, VALID_ROWS = 16, 64, 8  # 64 fp4 elements: one 32-byte column block
DST_ROWS, DST_COLS = 16, 256  # 128 bytes per row: four column blocks
MAT_AT = 0x1000


def _insert(dtype: str, index_row: int, index_col: int):
    @pto.kernel(cores="mix")
    def insert(src):
        if pto.is_cube() or pto.get_subblockid() == 1:
            return
        vec = pto.Tile("Vec", dtype, SRC_ROWS, SRC_COLS, "ColMajor", slayout="RowMajor",
                       valid=(VALID_ROWS, SRC_COLS))  # fmt: skip
        pto.TASSIGN(vec, 0x0)
        pto.TLOAD(vec, pto.GlobalTensor(src, (1, 1, 1, 16, SRC_COLS), layout="NZ"))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        mat = pto.Tile("Mat", dtype, DST_ROWS, DST_COLS, "ColMajor", slayout="RowMajor")
        pto.TASSIGN(mat, MAT_AT)
        pto.TINSERT(mat, vec, index_row, index_col)

    dev = pto.Device("950pr")
    data = (np.arange(SRC_ROWS * BLOCK_BYTES) % 251 + 1).astype(np.uint8)  # no 0xFF byte
    run = dev.run(insert, dev.gm_array(data, dtype=dtype))
    l1 = run.blocks[0].buffers["L1"].data[MAT_AT : MAT_AT + DST_ROWS * DST_COLS // 2]
    return data.reshape(SRC_ROWS, BLOCK_BYTES), l1.reshape(4, DST_ROWS, BLOCK_BYTES)


@pytest.mark.parametrize("dtype", ["float4_e2m1", "float4_e1m2"])
@pytest.mark.parametrize("index_row, index_col", [(0, 64), (4, 128)])
def test_fp4_nz_insert_lands_at_the_byte_column(dtype, index_row, index_col):
    src, l1 = _insert(dtype, index_row, index_col)
    want = np.full_like(l1, 0xFF)  # L1 starts as poison bytes
    block = index_col // 2 // BLOCK_BYTES
    want[block, index_row : index_row + VALID_ROWS] = src[:VALID_ROWS]
    assert np.array_equal(l1, want)
