"""The hazard checker inside the cube core: a GEMM missing its MTE2 -> MTE1 and M -> FIX flags
reports the two races with the flags that fix them, the same on a2 and cpu; with the flags
it reports nothing."""

from __future__ import annotations

import pytest

import ptosim as pto

M, K, N = 16, 32, 16


def _gemm(with_flags: bool):
    @pto.kernel(cores="cube")
    def gemm(a, b, c):
        am, bm = pto.TileMatNZ("float16", M, K), pto.TileMatNZ("float16", K, N)
        la, rb = pto.TileLeft("float16", M, K), pto.TileRight("float16", K, N)
        acc = pto.TileAcc("float32", M, N)
        pto.TLOAD(am, pto.GlobalTensor(a, (M, K)))
        pto.TLOAD(bm, pto.GlobalTensor(b, (K, N)))
        if with_flags:
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.TMOV(la, am)
        pto.TMOV(rb, bm)
        pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.TMATMUL(acc, la, rb)
        if with_flags:
            pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
            pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.TSTORE(pto.GlobalTensor(c, (M, N)), acc)

    return gemm


def _run(devname, kern):
    dev = pto.Device(devname)
    return dev.run(
        kern, dev.gm_zeros((M, K), "float16"), dev.gm_zeros((K, N), "float16"),
        dev.gm_zeros((M, N), "float32"),
    )  # fmt: skip


@pytest.mark.parametrize("devname", ["a2", "cpu"])
def test_missing_cube_flags_are_races_with_fixes(devname):
    found = [str(f) for f in _run(devname, _gemm(False)).findings]
    assert len(found) == 3, found  # one per L1 panel (TLOAD -> TMOV), one on L0C
    *l1s, l0c = sorted(found, key=lambda s: "L0C" in s)
    for l1 in l1s:
        assert "F203" in l1 and "L1[" in l1 and "PIPE_MTE2" in l1 and "PIPE_MTE1" in l1
        assert "fix: set_flag(PIPE_MTE2, PIPE_MTE1" in l1
    assert "F203" in l0c and "L0C[" in l0c and "fix: set_flag(PIPE_M, PIPE_FIX" in l0c


@pytest.mark.parametrize("devname", ["a2", "cpu"])
def test_flagged_gemm_has_no_findings(devname):
    assert _run(devname, _gemm(True)).findings == []
