"""The library's common flash-attention kernel (kernels/manual/common/flash_atten), unchanged,
on one a2 AI core at a small shape (64 query rows, head 64, 512 keys): its output is bit for bit
the one numpy derives in the kernel's own order and rounding (tests/helpers/fa_expected.py), and
the checker reports no race and no tile overlap on it. Needs a pto-isa checkout (skipped
without one)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.fa_expected import expected_output
from tests.helpers.paths import PTO_ISA, ROOT

pytestmark = [pytest.mark.cxx, pytest.mark.slow]

KERNEL_DIR = PTO_ISA / "kernels" / "manual" / "common" / "flash_atten"
S0, HEAD, S1, TILE_S1, FIFO = 64, 64, 512, 256, 8


@pytest.mark.skipif(
    not (KERNEL_DIR / "fa_performance_kernel.cpp").exists(),
    reason="no pto-isa checkout (set PTOSIM_PTO_ISA)",
)
def test_the_flash_attention_kernel_is_exact_and_race_free_on_a2():
    rng = np.random.default_rng(20)
    q, k, v = (rng.uniform(-1, 1, shape).astype(np.float16) for shape in
               ((S0, HEAD), (S1, HEAD), (S1, HEAD)))  # fmt: skip
    dev = pto.Device("a2")
    prog = pto.cxx.load(ROOT / "benchmarks" / "cxx" / "flash_attention_small.cpp",
                        include_dirs=[KERNEL_DIR], cores="mix")  # fmt: skip
    o = dev.gm_zeros((S0, HEAD), "float32")
    res = dev.run(
        prog.entry("FlashAttentionSmall"),
        q=dev.gm_array(q), k=dev.gm_array(k), v=dev.gm_array(v),
        p_fifo=dev.gm_zeros((FIFO * S0 * TILE_S1,), "float16"),
        exp_max_fifo=dev.gm_zeros((FIFO * S0,), "float32"),
        global_sum=dev.gm_zeros((S0,), "float32"), exp_max=dev.gm_zeros((S0,), "float32"),
        o=o, o_parts=dev.gm_zeros((S0, HEAD), "float32"),
        qk_fifo=dev.gm_zeros((FIFO * S0 * TILE_S1,), "float32"),
        pv_fifo=dev.gm_zeros((FIFO * S0 * HEAD,), "float32"),
        block_dim=1,
    )  # fmt: skip
    want = expected_output(q, k, v, TILE_S1)
    got = o.numpy()
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), np.abs(got - want).max()
    # the kernel's ping-pong tiles and its by-value macro parameters are no race or overlap
    assert [f for f in res.findings if f.code in ("F203", "F204")] == []
