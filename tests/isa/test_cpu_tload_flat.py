"""cpu TLOAD of an ND or DN GlobalTensor into the two "flat" valid shapes the CPU simulator's load
check accepts whatever the GlobalTensor's layout: a row-major tile with validRow = shape[0] *
shape[1] * shape[2] * shape[3] and validCol = shape[4], or a column-major tile with validRow =
shape[3] and validCol = shape[0] * shape[1] * shape[2] * shape[4]. Each valid (r, c) then moves
from the offset the GlobalTensor's layout maps it to (the library's cpu TLOAD folder declares
its dynamic views DN over row-major data)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto


def _load(tile, host, shape, stride, layout):
    dev = pto.Device("cpu")
    src = dev.gm_array(host)

    @pto.kernel
    def k(src):
        pto.TLOAD(tile, pto.GlobalTensor(src, shape, stride=stride, layout=layout))

    return dev.run(k, src)


def test_row_major_tile_takes_every_outer_row_of_a_dn_view_over_row_major_data():
    host = np.arange(2 * 2 * 2 * 4 * 8, dtype=np.float32)
    # DN declared, row-major strides: the DN map sends (r, c) to r * stride[3] + c
    shape, stride = (2, 2, 2, 4, 8), (128, 64, 32, 8, 1)
    tile = pto.Tile("Vec", "float32", 32, 8)  # 2 * 2 * 2 * 4 rows
    run = _load(tile, host, shape, stride, "DN")
    assert np.array_equal(run.tile(tile), host.reshape(32, 8))


def test_column_major_tile_takes_shape3_rows_and_every_outer_column_of_an_nd_view():
    host = np.arange(64, dtype=np.int32)
    shape, stride = (1, 1, 2, 4, 8), (64, 64, 32, 8, 1)
    tile = pto.Tile("Vec", "int32", 8, 16, "ColMajor", valid=(4, 16))
    run = _load(tile, host, shape, stride, "ND")
    # the ND map: row r < shape[3] is i3 = r, column c is i4 = c (past shape[4])
    r, c = np.meshgrid(np.arange(4), np.arange(16), indexing="ij")
    assert np.array_equal(run.tile(tile), host[r * 8 + c])


def test_other_valid_shapes_past_the_view_stay_refused():
    host = np.zeros(256, np.float32)
    tile = pto.Tile("Vec", "float32", 32, 8, valid=(16, 8))
    with pytest.raises(pto.ConstraintError) as e:
        _load(tile, host, (2, 2, 2, 4, 8), (128, 64, 32, 8, 1), "DN")
    assert e.value.rule == "valid-shape"
