"""a5 THISTOGRAM (npu/a5 THistogram.hpp): per row, the running count over the 256 values of one
byte of the elements whose higher bytes equal the filter bytes; the idx shapes the a5 code
requires. Expected counts are numpy's bincount and cumsum over the bytes picked out here."""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import run_kernel, seeded, vec


def prefix_counts(values):
    return np.cumsum(np.bincount(values.astype(np.int64), minlength=256)).astype(np.uint32)


@pytest.mark.parametrize("byte", ["BYTE_1", "BYTE_0"])
def test_uint16_both_bytes_with_a_dn_filter_column(byte):
    R, C = 4, 96
    x = seeded("hist16").integers(0, 1 << 16, (R, C)).astype(np.uint16)
    keep = np.array([[7], [x[1, 5] >> 8], [200], [x[3, 0] >> 8]], dtype=np.uint8)
    src, dst = vec("uint16", R, C), vec("uint32", R, 256)
    idx = vec("uint8", 32, 1, layout="ColMajor", valid=(R, 1))
    run = run_kernel(
        "950pr",
        [src, idx, dst],
        [(src, x), (idx, keep)],
        lambda: pto.THISTOGRAM(dst, src, idx, byte=byte),
    )
    got = run.tile(dst).reshape(R, 256)
    for r in range(R):
        if byte == "BYTE_1":
            want = prefix_counts(x[r] >> 8)
        else:
            want = prefix_counts((x[r] & 0xFF)[(x[r] >> 8) == keep[r, 0]])
        np.testing.assert_array_equal(got[r], want)
    assert got[1, 255] > 0  # row 1's filter (or the unfiltered MSB) counts something


def test_uint32_byte_2_filters_on_byte_3():
    R, C = 2, 64
    x = seeded("hist32").integers(0, 1 << 32, (R, C), dtype=np.uint64).astype(np.uint32)
    x[:, ::2] = (x[:, ::2] & 0x00FFFFFF) | (0x5A << 24)  # half the elements pass the filter
    src, dst = vec("uint32", R, C), vec("uint32", R, 256)
    idx = vec("uint8", 1, C)
    keep = np.full((1, C), 0x5A, dtype=np.uint8)
    run = run_kernel(
        "950pr", [src, idx, dst], [(src, x), (idx, keep)],
        lambda: pto.THISTOGRAM(dst, src, idx, byte="BYTE_2"),
    )  # fmt: skip
    got = run.tile(dst).reshape(R, 256)
    for r in range(R):
        want = prefix_counts(((x[r] >> 16) & 0xFF)[(x[r] >> 24) == 0x5A])
        np.testing.assert_array_equal(got[r], want)


def test_a5_idx_shape_rules():
    src, dst = vec("uint16", 2, 64), vec("uint32", 2, 256)
    row_idx = vec("uint8", 2, 32)
    with pytest.raises(pto.ConstraintError, match="index-layout"):
        run_kernel("950pr", [src, dst, row_idx], [], lambda: pto.THISTOGRAM(dst, src, row_idx))
    src32 = vec("uint32", 2, 64)
    short = vec("uint8", 1, 64)  # BYTE_1 filters on two bytes: two rows
    with pytest.raises(pto.ConstraintError, match="index-layout"):
        run_kernel("950pr", [src32, dst, short], [],
                   lambda: pto.THISTOGRAM(dst, src32, short, byte="BYTE_1"))  # fmt: skip


def test_a2a3_still_refuses_thistogram():
    src, dst = vec("uint16", 2, 64), vec("uint32", 2, 256)
    idx = vec("uint8", 32, 1, layout="ColMajor", valid=(2, 1))
    with pytest.raises(pto.UnsupportedError):
        run_kernel("a2", [src, dst, idx], [], lambda: pto.THISTOGRAM(dst, src, idx))
