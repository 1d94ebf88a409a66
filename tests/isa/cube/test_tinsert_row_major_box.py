"""950 TINSERT(mat, vec) of a row-major boxed source other than ZN (the ZZ layout of an MX
scale tile): the library dispatches every row-major source but ZN to its ND copies, so the
bytes land row by row at index_row * Cols + index_col. The expected L1 bytes are the source's
rows laid out at the Mat tile's row pitch, built here."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

ROWS, COLS = 64, 32  # float8_e8m0: 32 one-byte elements per row
MAT_AT = 0x1000


def _insert(src_layout: tuple[str, str]):
    blayout, slayout = src_layout

    @pto.kernel(cores="mix")
    def insert(src):
        if pto.is_cube() or pto.get_subblockid() == 1:
            return
        nd = pto.Tile("Vec", "uint8", ROWS, COLS)
        pto.TASSIGN(nd, 0x0)
        pto.TLOAD(nd, pto.GlobalTensor(src, (ROWS, COLS)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        vec = pto.Tile("Vec", "float8_e8m0", ROWS, COLS, blayout, slayout=slayout, fractal=32)
        pto.TASSIGN(vec, 0x0)  # the same UB bytes, seen as a ZZ scale tile
        mat = pto.Tile("Mat", "float8_e8m0", ROWS, COLS, blayout, slayout=slayout, fractal=32)
        pto.TASSIGN(mat, MAT_AT)
        pto.TINSERT(mat, vec, 0, 0)

    dev = pto.Device("950pr")
    data = (np.arange(ROWS * COLS) % 251 + 1).astype(np.uint8)  # no 0xFF byte
    run = dev.run(insert, dev.gm_array(data.reshape(ROWS, COLS)))
    return data, run.blocks[0].buffers["L1"].data[MAT_AT : MAT_AT + ROWS * COLS]


def test_zz_source_inserts_through_the_nd_copies():
    data, l1 = _insert(("RowMajor", "RowMajor"))
    assert np.array_equal(l1, data)  # whole rows of Cols bytes, one contiguous run


def test_a_mode_still_needs_an_nz_source():
    with pytest.raises(pto.ConstraintError) as e:

        @pto.kernel(cores="mix")
        def insert():
            if pto.is_cube() or pto.get_subblockid() == 1:
                return
            vec = pto.Tile("Vec", "float8_e8m0", ROWS, COLS, "RowMajor", slayout="RowMajor",
                           fractal=32)  # fmt: skip
            mat = pto.Tile("Mat", "float8_e8m0", ROWS, COLS, "RowMajor", slayout="RowMajor",
                           fractal=32)  # fmt: skip
            pto.TINSERT(mat, vec, 0, 0, mode="SPLIT2")

        pto.Device("950pr").run(insert)
    assert e.value.rule == "layout" and e.value.operand == "src"
