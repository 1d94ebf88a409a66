"""950 intra-block flags (set_intra_block / wait_intra_block): point to point between the cube
core and one vector core; a cube id + 16 reaches AIV1, an AIV1 id reaches the cube as id + 16.
AIV1 writes GM, the cube relays the flag, AIV0 reads what AIV1 wrote: exact, and the checker
sees the chain across the three cores (no F205); without the relay it is a cross-core race."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

N = 64


def _relay(cube_waits: int, aiv0_waits: int, flags: bool = True):
    @pto.kernel(cores="mix")
    def relay(src, mid, out):
        if pto.is_cube():
            if flags:
                pto.wait_intra_block(pto.PIPE_S, cube_waits)
                pto.set_intra_block(pto.PIPE_S, 0)  # id 0: AIV0
        elif pto.get_subblockid() == 1:
            t = pto.Tile("Vec", "float32", 1, N)
            pto.TLOAD(t, pto.GlobalTensor(src, (1, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
            pto.TSTORE(pto.GlobalTensor(mid, (1, N)), t)
            if flags:
                pto.set_intra_block(pto.PIPE_MTE3, 2)  # the cube receives 2 + 16
        else:
            if flags:
                pto.wait_intra_block(pto.PIPE_MTE2, aiv0_waits)
            t = pto.Tile("Vec", "float32", 1, N)
            pto.TLOAD(t, pto.GlobalTensor(mid, (1, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
            pto.TSTORE(pto.GlobalTensor(out, (1, N)), t)

    return relay


def _run(kernel, device="950pr"):
    dev = pto.Device(device)
    src = np.arange(N, dtype=np.float32) + 1
    bufs = dev.gm_array(src), dev.gm_zeros((N,), "float32"), dev.gm_zeros((N,), "float32")
    return dev.run(kernel, *bufs), src, bufs[2]


def test_intra_block_chain_orders_three_cores():
    run, src, out = _run(_relay(18, 0))
    assert np.array_equal(out.numpy(), src)
    assert run.findings == [], [str(f) for f in run.findings]


def test_without_the_intra_block_chain_the_read_is_a_cross_core_race():
    run, _, _ = _run(_relay(18, 0, flags=False))
    assert any(f.code == "F205" for f in run.findings), [str(f) for f in run.findings]


def test_a_wait_on_an_id_nobody_posts_is_a_deadlock():
    # AIV1's id 2 reaches the cube as 18, not 2
    with pytest.raises(pto.DeadlockError) as e:
        _run(_relay(2, 0))
    text = str(e.value)
    assert "AIC PIPE_S blocked in wait_intra_block(PIPE_S, 2)" in text, text
    assert "no set_intra_block(pipe, 2) from block 0 AIV0 reaches block 0 AIC" in text, text


def test_intra_block_flags_are_a_950_mixed_kernel_feature():
    with pytest.raises(pto.ConstraintError) as e:
        _run(_relay(18, 0), device="a2")
    assert "intra-block-target" in str(e.value)
