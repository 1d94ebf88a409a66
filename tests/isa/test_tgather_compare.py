"""TGATHER's compare form on a2a3 (a2a3/TGather.hpp): per row, the flat positions (plus offset)
of the elements greater than / equal to the row's threshold, packed from the row's start, and
their count. Expected values: a per-element Python loop over the data (the library's gen_data
rule), independent of the simulator."""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import assert_bits_equal, constraint, run_kernel, vec


def gather_cmp(devname, src, k, mode, offset, k_dtype):
    R, C = src.shape
    kdt = np.dtype(k_dtype)
    s0 = vec(src.dtype.name if src.dtype != np.float16 else "half", R, C)
    kt = vec(k_dtype, 32 // kdt.itemsize, 1, "ColMajor", valid=(R, 1))
    dst = vec("uint32", R, C)
    cnt = vec("uint32", 8, 1, "ColMajor", valid=(R, 1))
    tmp = vec("uint8", R, 32)  # the compare masks; the index ramp and k follow it in UB
    kdata = np.zeros((32 // kdt.itemsize, 1), kdt)
    kdata[:R, 0] = k
    run = run_kernel(
        devname,
        [s0, kt, dst, cnt, tmp],
        [(s0, src), (kt, kdata), (dst, np.zeros((R, C), np.uint32))],
        lambda: pto.TGATHER(dst, s0, kt, tmp, cmp_mode=mode, cdst=cnt, offset=offset),
    )
    return run.tile(dst), run.tile(cnt).ravel()


def expected(src, k, mode, offset):
    R, C = src.shape
    out, counts = np.zeros((R, C), np.uint32), []
    for i in range(R):
        n = 0
        for j in range(C):
            hit = src[i, j] > k[i] if mode == "GT" else src[i, j] == k[i]
            if hit:
                out[i, n] = offset + i * C + j
                n += 1
        counts.append(n)
    return out, np.array(counts, np.uint32)


@pytest.mark.parametrize(
    "dt,k_dtype,mode",
    [("float32", "uint32", "GT"), ("half", "uint16", "EQ"), ("int32", "int32", "EQ")],
)
def test_a2a3_compare_gather_packs_positions_and_counts(dt, k_dtype, mode):
    rng = np.random.default_rng(7)
    R, C = 4, 64
    src = rng.integers(0, 20, (R, C)).astype(np.float16 if dt == "half" else dt)
    k = np.array([3, 10, 19, 0])
    got, counts = gather_cmp("a2", src, k, mode, 5, k_dtype)
    want, want_counts = expected(src.astype(np.float64), k, mode, 5)
    assert_bits_equal(got, want)
    assert_bits_equal(counts, want_counts)


def test_compare_gather_rules():
    def int32_gt():
        t = vec("int32", 4, 64)
        pto.TGATHER(vec("uint32", 4, 64), t, vec("int32", 8, 1, "ColMajor", valid=(4, 1)),
                    vec("uint8", 4, 32), cmp_mode="GT",
                    cdst=vec("uint32", 8, 1, "ColMajor", valid=(4, 1)))  # fmt: skip

    constraint("a2", int32_gt, "dtype", "src0", "TGATHER")

    def on_cpu():
        pto.TGATHER(vec("uint32", 4, 64), vec("float32", 4, 64),
                    vec("uint32", 8, 1, "ColMajor", valid=(4, 1)), vec("uint8", 4, 32),
                    cmp_mode="EQ", cdst=vec("uint32", 8, 1, "ColMajor", valid=(4, 1)))  # fmt: skip

    constraint("cpu", on_cpu, "unsupported-mode", "cmp_mode", "TGATHER", pto.UnsupportedError)

    def a5_k_of_the_source_size():  # a5: a uint32 k for 4-byte sources, uint16 for the others
        pto.TGATHER(vec("uint32", 4, 64), vec("int16", 4, 64),
                    vec("uint32", 8, 1, "ColMajor", valid=(4, 1)), vec("uint8", 4, 32),
                    cmp_mode="GT", cdst=vec("uint32", 8, 1, "ColMajor", valid=(4, 1)))  # fmt: skip

    constraint("950pr", a5_k_of_the_source_size, "k-dtype", "k_value", "TGATHER")


def a5_expected(src, lanes, k, mode, offset, valid_cols, tail_masked):
    """npu/a5 TGather.hpp, read per element: row i's element j (j < the row's compared width W,
    whole groups of 64 lanes, 128 for 1-byte sources) has index offset + i*W + j; ``lanes(x)``
    is the 32-bit value the body compares with ``k``; the float32/int32/uint32 bodies mask
    columns >= valid_cols, the others compare the whole last group (src's storage past C)."""
    R, cols = src.shape
    group = 128 if src.dtype.itemsize == 1 else 64
    W = -(-valid_cols // group) * group
    flat = src.reshape(-1)
    out, counts = np.zeros((R, cols), np.uint32), []
    for i in range(R):
        n = 0
        for j in range(W):
            if tail_masked and j >= valid_cols:
                continue
            x = lanes(flat[i * cols + j])
            if (x > k[i]) if mode == "GT" else (x == k[i]):
                out[i, n] = offset + i * W + j
                n += 1
        counts.append(n)
    return out, np.array(counts, np.uint32)


def a5_gather_cmp(src, valid_cols, k, mode, k_dtype, offset=0):
    R, C = src.shape
    name = {"float16": "half"}.get(src.dtype.name, src.dtype.name)
    s0 = vec(name, R, C)  # loaded whole; its valid width set before the gather
    kt = vec(k_dtype, 32, 1, "ColMajor", valid=(R, 1))
    dst = vec("uint32", R, C)
    cnt = vec("uint32", 8, 1, "ColMajor", valid=(R, 1))
    tmp = vec("uint8", R, 32)
    kdata = np.zeros((32, 1), k_dtype)
    kdata[:R, 0] = k
    run = run_kernel(
        "950pr",
        [s0, kt, dst, cnt, tmp],
        [(s0, src), (kt, kdata), (dst, np.zeros((R, C), np.uint32))],
        lambda: (s0.set_valid(R, valid_cols),
                 pto.TGATHER(dst, s0, kt, tmp, cmp_mode=mode, cdst=cnt, offset=offset)),
    )  # fmt: skip
    return run.tile(dst), run.tile(cnt).ravel()


def test_a5_float_compare_is_on_rounded_ints_read_unsigned():
    """float32: scores rounded to nearest-even int32 and compared unsigned with the uint32 k, so
    a negative score is above every k; valid columns 100 of 128: the tail is masked; indices
    continue at offset + i * 128 + j (the index register is not reset between rows)."""
    rng = np.random.default_rng(3)
    src = rng.uniform(-4, 12, (4, 128)).astype(np.float32)
    src[0, :4] = [2.5, 3.5, -0.4, -0.6]  # rint: 2, 4, -0 -> 0, -1 -> 0xFFFFFFFF
    k = np.array([3, 9, 0, 5])

    def lanes(x):
        return int(np.rint(np.float64(x))) & 0xFFFFFFFF

    for mode in ("GT", "EQ"):
        got, counts = a5_gather_cmp(src, 100, k, mode, "uint32", offset=7)
        want, want_counts = a5_expected(src, lanes, k, mode, 7, 100, tail_masked=True)
        assert_bits_equal(got, want)
        assert_bits_equal(counts, want_counts)


@pytest.mark.parametrize("dt,mode", [("int16", "GT"), ("uint16", "GT"), ("int8", "EQ")])
def test_a5_narrow_sources_compare_zero_extended_lanes_of_whole_groups(dt, mode):
    """int16 / uint16 / int8: the bits zero-extended to 32 (a negative int16 is above k) and
    every lane of the last group compared (valid columns 40: lanes 40-63, or 40-127 for int8,
    come from the row storage); uint16 takes the library's EQ body whatever the mode."""
    rng = np.random.default_rng(11)
    cols = 128
    src = rng.integers(-6, 10, (2, cols)).astype(dt)
    k = np.array([4, 7])
    bits = np.dtype(dt).itemsize * 8

    def lanes(x):
        return int(x) & ((1 << bits) - 1)

    effective = "EQ" if dt == "uint16" else mode
    got, counts = a5_gather_cmp(src, 40, k, mode, "uint16")
    want, want_counts = a5_expected(src, lanes, k, effective, 0, 40, tail_masked=False)
    assert_bits_equal(got, want)
    assert_bits_equal(counts, want_counts)


def test_a5_half_compares_in_float32_with_k_as_int16():
    """half: widened to float32 and compared with float(int16(k)): k 0xFFFE is -2.0."""
    src = np.array([[-3.0, -2.0, -1.5, 0.0, 7.25] + [-5.0] * 59], np.float16)
    k = np.array([0xFFFE])
    got, counts = a5_gather_cmp(src, 64, k, "GT", "uint16")
    assert_bits_equal(counts, np.array([3], np.uint32))
    assert_bits_equal(got[0, :3], np.array([2, 3, 4], np.uint32))
