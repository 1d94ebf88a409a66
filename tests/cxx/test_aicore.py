"""C++ on the AI core: a mixed kernel is built twice (``__DAV_CUBE__`` for the cube core,
``__DAV_VEC__`` for the vector cores) and each core runs its half; get_subblockid() tells the
vector cores apart; a test folder whose CMakeLists.txt says pto_mix_st runs its host's launch
on both halves."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from ptosim.cxx.testdir import folder_cores, run_test_dir
from tests.helpers.paths import CXX_DIR

pytestmark = pytest.mark.cxx

SRC = CXX_DIR / "aicore.cpp"


@pytest.fixture(scope="module")
def prog():
    return pto.cxx.load(SRC, cores="mix")


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_each_core_runs_its_half(prog, device):
    dev = pto.Device(device)
    out = dev.gm_zeros((6, 4), "float32")
    run = dev.run(prog.entry("where"), out, block_dim=2)
    # block, subblock, subblock dim, which half (1 cube, 2 vector): AIC, AIV0, AIV1 per block
    want = [[b, s, d, h] for b in range(2) for s, d, h in ((0, 1, 1), (0, 2, 2), (1, 2, 2))]
    assert out.numpy().tolist() == want
    assert [b.role.label for b in run.blocks][:3] == ["block 0 AIC", "block 0 AIV0", "block 0 AIV1"]


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_cube_to_vector_relay_through_gm_with_mode_2_flags(prog, device):
    dev = pto.Device(device)
    host = np.arange(64, dtype=np.float32) * 3
    src, out = dev.gm_array(host), dev.gm_zeros((3, 64), "float32")
    run = dev.run(prog.entry("cv_relay"), out, src)
    assert np.array_equal(out.numpy(), np.tile(host, (3, 1)))
    assert not run.findings, run.findings


def test_a_kernel_not_declared_mixed_runs_the_both_halves_build_on_cpu():
    """On cpu a kernel that is not mixed is one build with both halves (as the CPU simulator's
    arch_macro.hpp defines both): ``where`` reports 3."""
    dev = pto.Device("cpu")
    out = dev.gm_zeros((3, 4), "float32")
    dev.run(pto.cxx.load(SRC).entry("where"), out)
    assert out.numpy()[0].tolist() == [0, 0, 1, 3]


def test_a_mixed_test_folder_runs_the_launch_on_both_halves(tmp_path):
    folder = CXX_DIR / "aicore_test"
    assert folder_cores(folder) == "mix"
    (report,) = run_test_dir(folder, ["a2"], work=tmp_path / "w")
    assert (report.verdict, report.error) == ("pass", None), report
    assert len(report.cycles) == 1 and report.cycles[0] > 0
    assert not report.findings, report.findings


def test_950_on_chip_path_from_cxx(prog):
    """The 950 on-chip intrinsics from C++: GM -> UB, vdup / vsts, TMovToVecNd2Nz,
    TINSERT<SPLIT2> into the cube core's L1, L1 -> AIV0's UB, intra-block flags. The output is
    the NZ image of 8 input rows over 8 rows of 1.0 (column block j holds columns 8j..8j+7 of
    the 16 rows, rows one after another)."""
    dev = pto.Device("950pr")
    data = (np.arange(8 * 32) + 2).astype(np.float32).reshape(8, 32)
    out = dev.gm_zeros((16 * 32,), "float32")
    run = dev.run(prog.entry("onchip_950"), out, dev.gm_array(data))
    full = np.vstack([data, np.ones((8, 32), np.float32)])
    want = np.concatenate([full[:, 8 * j : 8 * j + 8].reshape(-1) for j in range(4)])
    np.testing.assert_array_equal(out.numpy(), want)
    assert run.findings == [], [str(f) for f in run.findings]


def test_950_vector_register_load_and_partial_stores(prog):
    """vldas / vldus then vsts under a 40-lane predicate copies the first 40 bytes; a vdup
    register stored under a 192-lane predicate from byte 64 fills exactly those lanes; the
    bytes between keep the earlier whole-row store of 0. Each store is one instruction on
    PIPE_V, ordered by the flags (no finding)."""
    dev = pto.Device("950pr")
    data = ((np.arange(256) * 37) % 251 + 1).astype(np.uint8)
    out = dev.gm_zeros((256,), "uint8")
    run = dev.run(prog.entry("vreg_copy_950"), out, dev.gm_array(data))
    want = np.concatenate([data[:40], np.zeros(24, np.uint8), np.full(192, 7, np.uint8)])
    np.testing.assert_array_equal(out.numpy(), want)
    assert run.findings == [], [str(f) for f in run.findings]
