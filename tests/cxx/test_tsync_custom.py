"""The library's TSync_Custom handshake (record / wait / allocate / free) from C++ on Atlas A2/A3
(FFTS flags in mode 2) and 950 (intra-block flags, a cube post or wait covering both vector
cores): a GEMM handed to the vector cores through GM is exact with no finding; without the
vector cores' wait the checker reports the race at the kernel's lines."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "tsync_custom.cpp"
M, K, N = 16, 32, 16


@pytest.fixture(scope="module")
def prog():
    return pto.cxx.load(SRC, cores="mix")


def _line(tag: str) -> int:
    return next(n for n, t in enumerate(SRC.read_text().splitlines(), 1) if f"@{tag}" in t)


def _run(prog, device, entry):
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    dev = pto.Device(device)
    c, out = dev.gm_zeros((M, N), "float32"), dev.gm_zeros((M, N), "float32")
    run = dev.run(prog.entry(entry), dev.gm_array(a), dev.gm_array(b), c, out)
    want = a.astype(np.float64) @ b.astype(np.float64)  # small integers: exact in float32
    return run, c.numpy(), out.numpy(), want


@pytest.mark.parametrize("device", ["a2", "a3", "950pr", "950dt"])
def test_the_handshake_hands_a_gemm_to_the_vector_cores(prog, device):
    run, c, out, want = _run(prog, device, "tsync")
    assert not run.findings, [str(f) for f in run.findings]
    np.testing.assert_array_equal(c, want)
    np.testing.assert_array_equal(out, want + 1)


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_without_the_wait_the_race_is_reported_at_the_kernels_lines(prog, device):
    run, _, _, _ = _run(prog, device, "tsync_nowait")
    races = [f for f in run.findings if f.code == "F205"]
    assert races, [str(f) for f in run.findings]
    assert any(f"tsync_custom.cpp:{_line('tsync_load')}" in f.message for f in races), races
