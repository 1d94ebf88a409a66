"""a5 NZ2NZ TLOAD whose tile valid shape differs from the GlobalTensor's: the DMA moves one
burst of validRow * 32 bytes per column block of the view (shape1 of them), whatever validCol,
and leaves the rest of the tile as it was. The expected storage is built here from the NZ
layout (16 x C0 boxes, column block after column block, Rows rows apart)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

C0 = 8  # float32 elements per 32-byte block
GM_ROWS, COLS = 32, 32


def _run(devname: str, valid: tuple[int, int]):
    dev = pto.Device(devname)
    gm = (np.arange(GM_ROWS * COLS) + 1).astype(np.float32)  # NZ storage order
    src = dev.gm_array(gm)
    tile = pto.Tile("Vec", "float32", GM_ROWS, COLS, "ColMajor", slayout="RowMajor", valid=valid)
    marker = pto.Tile("Vec", "float32", GM_ROWS, COLS)  # the same UB bytes, filled first

    @pto.kernel
    def k(src):
        pto.TASSIGN(marker, 0x0)
        pto.TASSIGN(tile, 0x0)
        pto.TEXPANDS(marker, -7.0)
        pto.pipe_barrier(pto.PIPE_ALL)
        view = (1, COLS // C0, GM_ROWS // 16, 16, C0)
        pto.TLOAD(tile, pto.GlobalTensor(src, view, layout="NZ"))

    run = dev.run(k, src)
    return gm, run.tile_storage(tile).reshape(COLS // C0, GM_ROWS, C0)


@pytest.mark.parametrize("devname", ["950pr", "950dt"])
@pytest.mark.parametrize("valid", [(16, 32), (16, 16), (32, 8)])
def test_nz_load_moves_valid_row_rows_of_every_view_column_block(devname, valid):
    valid_rows = valid[0]
    gm, storage = _run(devname, valid)
    blocks = gm.reshape(COLS // C0, GM_ROWS, C0)  # GM block j: rows 0..31 of C0 columns
    want = np.full_like(blocks, -7.0)
    want[:, :valid_rows] = blocks[:, :valid_rows]  # every column block, validCol or not
    assert np.array_equal(storage, want)


def test_a2a3_nz_load_still_needs_the_view_valid_shape():
    """Only the a5 DMA takes the burst length from validRow with no check; a2 keeps the rule."""
    with pytest.raises(pto.ConstraintError) as e:
        _run("a2", (16, 32))
    assert e.value.rule == "valid-shape" and "validRow == 32" in str(e.value)


def test_nz_load_into_l1_takes_the_same_bursts():
    """The cube core's NZ2NZ load into a Mat tile: the same shape1 bursts of validRow rows."""

    @pto.kernel(cores="mix")
    def k(src):
        if not pto.is_cube():
            return
        mat = pto.Tile("Mat", "float32", GM_ROWS, COLS, "ColMajor", slayout="RowMajor",
                       valid=(16, 16))  # fmt: skip
        pto.TASSIGN(mat, 0x0)
        pto.TLOAD(mat, pto.GlobalTensor(src, (1, COLS // C0, GM_ROWS // 16, 16, C0), layout="NZ"))

    dev = pto.Device("950pr")
    gm = (np.arange(GM_ROWS * COLS) + 1).astype(np.float32)
    run = dev.run(k, dev.gm_array(gm))
    l1 = run.blocks[0].buffers["L1"].data[: GM_ROWS * COLS * 4].view(np.float32)
    want = np.full((COLS // C0, GM_ROWS, C0), np.nan, np.float32)  # L1 starts as NaN poison
    want[:, :16] = gm.reshape(COLS // C0, GM_ROWS, C0)[:, :16]
    assert np.array_equal(l1.reshape(want.shape), want, equal_nan=True)
