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

    def on_a5():
        pto.TGATHER(vec("uint32", 4, 64), vec("float32", 4, 64),
                    vec("uint32", 8, 1, "ColMajor", valid=(4, 1)), vec("uint8", 4, 32),
                    cmp_mode="EQ", cdst=vec("uint32", 8, 1, "ColMajor", valid=(4, 1)))  # fmt: skip

    constraint("950pr", on_a5, "unsupported-mode", "cmp_mode", "TGATHER", pto.UnsupportedError)
