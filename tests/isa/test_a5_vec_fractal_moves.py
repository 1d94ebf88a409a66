"""a5 UB-side layout moves the library's textract_vec test uses: TMOV of an ND Vec tile into an
NZ or ZN Vec tile (npu/a5 TMov.hpp TMovToVecNd2Nz, TMovNdTo2Zn), TSUBVIEW of a boxed tile from
its origin, and a view of another element type of the same size.

Expected storage positions are written out here from the fractal definitions: NZ stores
16 x C0 boxes (C0 = 32 bytes of elements, rows inside a box contiguous) column block after
column block, Rows rows apart; ZN stores C0 x 16 boxes (columns inside a box contiguous), box
rows after box rows.
"""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import run_kernel, vec


def nz_offset(r, c, rows, c0):
    return (c // c0) * rows * c0 + r * c0 + c % c0


def zn_offset(r, c, cols, k0):
    return ((r // k0) * (cols // 16) + c // 16) * (16 * k0) + (c % 16) * k0 + r % k0


def tmov_nd_into(device, kind, dt, rows, cols):
    data = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols).astype(dt)
    src = vec(dt, rows, cols)
    if kind == "NZ":
        dst = vec(dt, rows, cols, blayout="ColMajor", slayout="RowMajor")
    else:
        dst = vec(dt, rows, cols, blayout="RowMajor", slayout="ColMajor")
    run = run_kernel(device, [src, dst], [(src, data)], lambda: pto.TMOV(dst, src))
    return data, run.tile_storage(dst)


@pytest.mark.parametrize("dt", ["float32", "half", "int8"])
def test_a5_tmov_nd_to_nz_places_each_element_in_its_box(dt):
    rows, cols = 32, 64
    data, got = tmov_nd_into("950pr", "NZ", dt, rows, cols)
    c0 = 32 // np.dtype(dt if dt != "half" else np.float16).itemsize
    want = np.zeros_like(got)
    for r in range(rows):
        for c in range(cols):
            want[nz_offset(r, c, rows, c0)] = data[r, c]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt", ["float32", "half"])
def test_a5_tmov_nd_to_zn_transposes_inside_each_box(dt):
    rows, cols = 32, 32
    data, got = tmov_nd_into("950dt", "ZN", dt, rows, cols)
    k0 = 32 // np.dtype(dt if dt != "half" else np.float16).itemsize
    want = np.zeros_like(got)
    for r in range(rows):
        for c in range(cols):
            want[zn_offset(r, c, cols, k0)] = data[r, c]
    np.testing.assert_array_equal(got, want)


def test_cpu_copies_element_by_element_through_any_layouts():
    # cpu/TMov.hpp: dst(r, c) = src(r, c) whatever the layouts, so the storage is the NZ layout
    rows, cols = 16, 16
    data, got = tmov_nd_into("cpu", "NZ", "float32", rows, cols)
    want = np.zeros_like(got)
    for r in range(rows):
        for c in range(cols):
            want[nz_offset(r, c, rows, 8)] = data[r, c]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("compact, pitch", [(None, 32), ("RowPlusOne", 33)])
def test_a5_nd_to_nz_packs_column_blocks_by_the_valid_rows(compact, pitch):
    # 20 valid rows of a 64-row NZ tile: the reference (a5 TMovToVecNd2Nz) packs the column
    # blocks ceil16(20) = 32 rows apart (33 for a RowPlusOne tile), not Rows = 64 apart
    src = vec("float32", 64, 16, valid=(20, 16))
    kw = {"compact": compact} if compact else {}
    dst = vec("float32", 64, 16, blayout="ColMajor", slayout="RowMajor", valid=(20, 16), **kw)
    data = (np.arange(20 * 16) + 1).astype(np.float32).reshape(20, 16)
    run = run_kernel("950pr", [src, dst], [(src, data)], lambda: pto.TMOV(dst, src))
    got = run.tile_storage(dst)
    written = np.zeros(got.size, bool)
    for r in range(20):
        for c in range(16):
            off = nz_offset(r, c, pitch, 8)
            assert got[off] == data[r, c], (r, c)
            written[off] = True
    assert np.isnan(got[~written]).all()  # the rest keeps UB's initial (poison) bytes


def test_a5_nd_to_nz_past_the_tile_is_refused():
    src = vec("float32", 48, 16, valid=(40, 16))
    dst = vec("float32", 40, 16, blayout="ColMajor", slayout="RowMajor", valid=(40, 16))
    with pytest.raises(pto.UnsupportedError, match="tmov-nd-to-nz"):
        run_kernel("950pr", [src, dst], [(src, np.ones((40, 16), np.float32))],
                   lambda: pto.TMOV(dst, src))  # fmt: skip


def test_tsubview_of_a_boxed_tile_from_its_origin_and_of_a_same_size_type():
    nd = vec("int8", 16, 64)
    full = vec("int8", 16, 64, blayout="ColMajor", slayout="RowMajor")
    part = vec("float8_e4m3", 16, 64, blayout="ColMajor", slayout="RowMajor", valid=(8, 32))
    data = (np.arange(16 * 64) % 100).astype(np.int8).reshape(16, 64)

    def body():
        pto.TMOV(full, nd)
        pto.TSUBVIEW(part, full, 0, 0)

    run = run_kernel("950pr", [nd, full], [(nd, data)], body)
    got = run.tile_storage(part).view(np.int8)
    np.testing.assert_array_equal(got, run.tile_storage(full))  # the same bytes
    assert got.any()

    moved = vec("int8", 16, 64, blayout="ColMajor", slayout="RowMajor", valid=(8, 32))
    with pytest.raises(pto.ConstraintError, match="unboxed"):
        run_kernel("950pr", [full], [], lambda: pto.TSUBVIEW(moved, full, 1, 0))
    wide = vec("half", 16, 32, blayout="ColMajor", slayout="RowMajor")
    with pytest.raises(pto.ConstraintError, match="same-dtype"):
        run_kernel("950pr", [full], [], lambda: pto.TSUBVIEW(wide, full, 0, 0))


def _move_hifloat8(data, src, dst, move):
    """TLOAD the uint8 ``data`` as hifloat8 into ``src``, run ``move()``; return the run."""
    dev = pto.Device("950pr")
    buf = dev.gm_array(data, dtype="hifloat8")

    @pto.kernel
    def k(b):
        pto.TASSIGN(src, 0)
        pto.TASSIGN(dst, src.geom.size_bytes)
        pto.TLOAD(src, pto.GlobalTensor(b, (1, 1, 1, *data.shape)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        move()

    return dev.run(k, buf)


def test_a5_textract_moves_hifloat8_bytes():
    src, dst = vec("hifloat8", 16, 64), vec("hifloat8", 8, 32)
    data = (np.arange(16 * 64) % 251).astype(np.uint8).reshape(16, 64)
    run = _move_hifloat8(data, src, dst, lambda: pto.TEXTRACT(dst, src, 4, 32))
    np.testing.assert_array_equal(run.tile(dst).reshape(8, 32), data[4:12, 32:64])


def test_a5_ttrans_moves_hifloat8_bytes():
    # npu/a5 TTrans.hpp: any 1-byte type through the b8 transpose (the bytes are not decoded)
    src, dst = vec("hifloat8", 32, 64), vec("hifloat8", 64, 32)
    data = (np.arange(32 * 64) * 7 % 253).astype(np.uint8).reshape(32, 64)
    run = _move_hifloat8(data, src, dst, lambda: pto.TTRANS(dst, src))
    got = run.tile(dst).view(np.uint8).reshape(64, 32)
    np.testing.assert_array_equal(got, data.T)
