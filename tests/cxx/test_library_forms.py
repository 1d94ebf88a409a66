"""C++ call forms of the library's own tests that differ from ptosim's Python API: TPARTARGMAX's
operand order (dst, src0, src1, dstIdx, src0Idx, src1Idx), the TCOLEXPAND_IMPL entry point
the a5 tcolexpand test calls, and the launch forms of its a5 folders (harness folder
`launches`); results against numpy (or the folder's own check), the source line the user's."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import HARNESS_FOLDERS

PARTARG = """#include <pto/pto-inst.hpp>
using namespace pto;
using V = Tile<TileType::Vec, float, 2, 8>;
using I = Tile<TileType::Vec, int32_t, 2, 8>;
using GV = GlobalTensor<float, Shape<1, 1, 1, 2, 8>, Stride<16, 16, 16, 8, 1>>;
using GI = GlobalTensor<int32_t, Shape<1, 1, 1, 2, 8>, Stride<16, 16, 16, 8, 1>>;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ int32_t *out_idx, __gm__ float *a,
                                    __gm__ int32_t *a_idx, __gm__ float *b, __gm__ int32_t *b_idx)
{
    V d, x, y;
    I di, xi, yi;
    GV ga(a), gb(b), go(out);
    GI gai(a_idx), gbi(b_idx), goi(out_idx);
    TLOAD(x, ga);
    TLOAD(y, gb);
    TLOAD(xi, gai);
    TLOAD(yi, gbi);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TPARTARGMAX(d, x, y, di, xi, yi);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, d);
    TSTORE(goi, di);
}
"""

COLEXPAND = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void k(__gm__ int64_t *out, __gm__ int64_t *a)
{
    Tile<TileType::Vec, int64_t, 1, 16> s;
    Tile<TileType::Vec, int64_t, 4, 16> d;
    GlobalTensor<int64_t, Shape<1, 1, 1, 1, 16>, Stride<16, 16, 16, 16, 1>> ga(a);
    GlobalTensor<int64_t, Shape<1, 1, 1, 4, 16>, Stride<64, 64, 64, 16, 1>> go(out);
    TASSIGN(s, 0x0);
    TASSIGN(d, 0x100);
    TLOAD(s, ga);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TCOLEXPAND_IMPL(d, s);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, d);
}
"""


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("device", ["cpu", "950pr"])
def test_tpartargmax_takes_the_librarys_operand_order(tmp_path, device):
    path = tmp_path / "k.cpp"
    path.write_text(PARTARG)
    dev = pto.Device(device)
    rng = np.random.default_rng(5)
    a = rng.integers(-9, 9, (2, 8)).astype(np.float32)
    b = rng.integers(-9, 9, (2, 8)).astype(np.float32)
    ia = np.arange(16, dtype=np.int32).reshape(2, 8)
    ib = ia + 100
    out, out_idx = dev.gm_zeros((2, 8), "float32"), dev.gm_zeros((2, 8), "int32")
    bufs = [dev.gm_array(x) for x in (a, ia, b, ib)]
    dev.run(pto.cxx.load(path).entry("k"), out, out_idx, *bufs)
    take_b = b > a  # src1's pair where its value is strictly greater
    assert np.array_equal(out.numpy(), np.where(take_b, b, a))
    assert np.array_equal(out_idx.numpy(), np.where(take_b, ib, ia))


def test_tcolexpand_impl_is_tcolexpand_at_the_kernels_line(tmp_path):
    """The a5 tcolexpand test calls TCOLEXPAND_IMPL on int64 (npu/a5 Int64ColExpand)."""
    path = tmp_path / "k.cpp"
    path.write_text(COLEXPAND)
    dev = pto.Device("950pr")
    a = (np.arange(16, dtype=np.int64) - 8) * (1 << 40)  # values past 32 bits
    out = dev.gm_zeros((4, 16), "int64")
    run = dev.run(pto.cxx.load(path).entry("k"), out, dev.gm_array(a))
    assert np.array_equal(out.numpy(), np.broadcast_to(a, (4, 16)))
    op = next(i for i in run.program.instructions if i.opcode == "TCOLEXPAND")
    assert op.source.endswith("k.cpp:14"), op.source  # the TCOLEXPAND_IMPL line


@pytest.mark.slow
def test_a5_launch_forms_waves_and_the_dynamic_ub_size(folder_run, monkeypatch, tmp_path):
    """A 64-block launch runs in waves on the 56 cores; `<<<1, 160 KiB, stream>>>` declares the
    dynamic UB the scatter's 144 KiB of tiles need (the default is 128 KiB)."""
    from ptosim.cxx.testdir import run_folder

    run = folder_run("launches", "950pr")
    assert [(r.case, r.verdict) for r in run.reports] == [("main", "pass")], run.reports[0].error
    assert "0 wrong elements" in run.reports[0].log
    monkeypatch.setenv("PTOSIM_TEST_DYN_UB", "0")  # no size: the default budget is too small
    short = run_folder(HARNESS_FOLDERS / "launches", ["950pr"], work=tmp_path / "w")
    assert "SIMT UB budget of 131072 bytes" in short.reports[0].error


MX_RAW = """#include <pto/pto-inst.hpp>
using namespace pto;
template <typename T>
__global__ AICORE void k(__gm__ T *src)
{
    Tile<TileType::Mat, T, 16, 16> l1;
    copy_gm_to_cbuf_align_v2((__cbuf__ uint8_t *)l1.data(), (__gm__ uint8_t *)src, 0, 1, 512, 0, 0,
                             0, 0, 0, 0);
    mad_mx(l1.data(), l1.data(), l1.data(), 16, 16, 16, false, false, false, true);
}
template __global__ AICORE void k<float>(__gm__ float *src);
"""


def test_raw_intrinsics_of_the_a5_cube_tests_build(tmp_path):
    """The library's a5 textract test programs L1 and the MX cube with raw intrinsics: the file
    builds (the GM -> L1 copy runs; the MX ones stop at their call, tests/cxx/test_cube.py)."""
    from ptosim.cxx import build as B

    path = tmp_path / "k.cpp"
    path.write_text(MX_RAW)
    B.build(path, ["k<float>"], target="a5", compiler="g++")  # no CxxBuildError
