"""TSORT32's 4-operand form with a partial last block touches only part of tmp (the NPU
TSort32.hpp lowerings): the row (or, for long rows, only the tail block) copied and padded to
whole blocks of 32 elements, and on a5 a whole 256-byte vector register loaded at the start of
the last block. The fits-in-memory rule checks those bytes, not tmp's declared size: the
library's own a5 test declares a tmp that runs past the end of UB.

The touched extents below are computed by hand from those rules (float: 4 bytes):
- C = 13 (the row through tmp): 1 block = 128 bytes sorted; a5 loads 256 from byte 0 -> 256.
- C = 100: 4 blocks = 512 bytes sorted; a5 loads 256 from byte 384 -> 640.
- C = 2084 (8336 bytes > 8160: only the tail block of 4 through tmp): a5 -> 256.
- a2, C = 13: 128 bytes (a masked vector_dup pads; nothing loads a whole register)."""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import vec
from tests.helpers.layout import Kern

UB_950 = 256 * 1024
UB_A2 = 192 * 1024
PAD = 0xFFC00000  # -(0.0/0.0) as float bits
CASES = [("950pr", 13, 256), ("950pr", 100, 640), ("950pr", 2084, 256), ("a2", 13, 128)]


def _sort(device, C, tmp_address):
    """Sort one float row of C distinct scores; tmp is the library test's (C rounded up to 32
    bytes), TASSIGNed at ``tmp_address``. Returns (kern, scores, index)."""
    cols = -(-C // 32) * 32
    scores = np.zeros((1, cols), np.float32)
    scores[0, :C] = np.random.default_rng(C).permutation(C)
    index = (np.arange(cols, dtype=np.uint32) * 5 + 1).reshape(1, cols)
    k = Kern(device, [scores, index])

    def body(k, src, idx):
        src.set_valid(1, C)
        k.dst = k.place(vec("float32", 1, 2 * cols))
        k.tmp = vec("float32", 1, -(-C // 8) * 8)
        pto.TASSIGN(k.tmp, tmp_address)
        pto.TSORT32(k.dst, src, idx, k.tmp)

    return k.run(body), scores[0], index[0]


@pytest.mark.parametrize("device, C, touched", CASES)
def test_tmp_runs_when_its_touched_bytes_end_at_the_end_of_ub(device, C, touched):
    ub = UB_950 if device == "950pr" else UB_A2
    k, scores, index = _sort(device, C, ub - touched)
    got = k.storage(k.dst)[0].view(np.uint32).reshape(-1, 2)  # (score bits, index) records
    for b in range(0, C, 32):
        n = min(32, C - b)
        order = np.argsort(-scores[b : b + n], kind="stable")  # distinct scores: no ties
        np.testing.assert_array_equal(got[b : b + n, 0], scores[b : b + n][order].view(np.uint32))
        np.testing.assert_array_equal(got[b : b + n, 1], index[b : b + n][order])
        assert np.all(got[b + n : b + 32, 0] == PAD)


@pytest.mark.parametrize("device, C, touched", CASES)
def test_one_block_higher_the_touched_bytes_leave_ub(device, C, touched):
    ub = UB_950 if device == "950pr" else UB_A2
    with pytest.raises(pto.MemoryLayoutError) as e:
        _sort(device, C, ub - touched + 32)
    err = e.value
    assert err.instruction == "TSORT32" and err.operand == "tmp"
    assert err.rule == "fits-in-memory"
    start = ub - touched + 32
    assert f"{start:#x} + {touched} = {start + touched:#x}" in str(err)
