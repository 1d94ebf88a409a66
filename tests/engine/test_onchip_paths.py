"""950: the cube core and the vector cores of an AI core reach each other's buffers. A vector
core copies UB -> its cube core's L1 (copy_ubuf_to_cbuf, MTE3), the cube core copies L1 -> the
UB of AIV0 or AIV1 (copy_cbuf_to_ubuf, MTE1), with intra-block flags between: the bytes arrive
burst by burst (gaps skipped), and the checker sees both sides (a missing flag is a cross-core
race on the shared buffer)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

ROWS, COLS = 4, 16  # a float32 tile: 4 rows of 64 bytes (2 blocks each)


def _kernel(flags: bool = True, sid: int = 1):
    @pto.kernel(cores="mix")
    def bounce(src, out):
        if pto.is_cube():
            if flags:
                pto.wait_intra_block(pto.PIPE_MTE1, 16)  # AIV1's id 0
            # rows 0 and 2 of the L1 copy (bursts of 2 blocks, 2-block gaps) to the UB of
            # AIV `sid` at 0x800, packed (no dst gap)
            pto.copy_cbuf_to_ubuf(0x800, 0x400, sid, 2, 2, 2, 0)
            if flags:
                pto.set_intra_block(pto.PIPE_MTE1, 16 * sid)  # to AIV `sid`, id 0
        else:
            t = pto.Tile("Vec", "float32", ROWS, COLS)
            pto.TASSIGN(t, 0x0)
            if pto.get_subblockid() == 1:
                pto.TLOAD(t, pto.GlobalTensor(src, (ROWS, COLS)))
                pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.copy_ubuf_to_cbuf(0x400, 0x0, 0, 1, ROWS * 2, 0, 0)  # the whole tile
                if flags:
                    pto.set_intra_block(pto.PIPE_MTE3, 0)
            if pto.get_subblockid() == sid:
                if flags:
                    pto.wait_intra_block(pto.PIPE_MTE3, 0)
                got = pto.Tile("Vec", "float32", 2, COLS)
                pto.TASSIGN(got, 0x800)
                pto.TSTORE(pto.GlobalTensor(out, (2, COLS)), got)

    return bounce


def _run(kernel, device="950pr"):
    dev = pto.Device(device)
    src = np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS)
    out = dev.gm_zeros((2, COLS), "float32")
    return dev.run(kernel, dev.gm_array(src), out), src, out


@pytest.mark.parametrize("sid", [0, 1])
def test_ub_to_l1_to_the_other_cores_ub(sid):
    run, src, out = _run(_kernel(sid=sid))
    assert np.array_equal(out.numpy(), src[[0, 2]])  # bursts 0 and 2, the gaps skipped
    assert run.findings == [], [str(f) for f in run.findings]
    cube = run.blocks[0]
    assert cube.role.is_cube and "UB@AIV1" in cube.buffers
    assert run.blocks[2].buffers["L1"] is cube.buffers["L1"]  # one L1, the cube core's


def test_without_the_flags_the_shared_buffers_are_cross_core_races():
    run, _, _ = _run(_kernel(flags=False))
    text = [str(f) for f in run.findings]
    assert any(
        "F205" in t and "L1[0x400, 0x4c0) of block 0 AIC" in t and "set_intra_block" in t
        for t in text
    ), text  # AIV1 writes the cube core's L1, the cube core reads it
    assert any("F205" in t and "UB[0x800, 0x880) of block 0 AIV1" in t for t in text), text


def test_onchip_copies_are_a_950_mixed_kernel_path():
    with pytest.raises(pto.ConstraintError) as e:
        _run(_kernel(), device="a2")
    assert "onchip-path" in str(e.value) or "intra-block-target" in str(e.value)
