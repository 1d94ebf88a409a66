"""The 950 Acc -> Vec fixpipe and the raw UB -> GM copy from C++ (tests/cxx/acc2vec.cpp): the
expected output is numpy's product (small integers: exact in float32), split by rows between the
vector cores and laid out by the raw copy's strides (the right half of each output row is never
written and keeps the host's fill)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import CXX_DIR

pytestmark = pytest.mark.cxx

M, K, N = 32, 16, 32


def test_dual_split_m_then_a_raw_strided_store():
    prog = pto.cxx.load(CXX_DIR / "acc2vec.cpp", cores="mix")
    dev = pto.Device("950pr")
    a = (np.arange(M * K) % 7 - 3).reshape(M, K).astype(np.float16)
    b = (np.arange(K * N) % 5 - 2).reshape(K, N).astype(np.float16)
    out = dev.gm_full((M, 2 * N), "float32", -1.0)
    run = dev.run(prog.entry("split_rows"), out, dev.gm_array(a), dev.gm_array(b))
    assert run.findings == [], [str(f) for f in run.findings]
    want = np.full((M, 2 * N), -1.0, np.float32)
    want[:, :N] = a.astype(np.float32) @ b.astype(np.float32)
    assert np.array_equal(out.numpy(), want)
