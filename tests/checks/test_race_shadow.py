"""The race check's shadow memory: per byte segment, what each pipe last wrote and read.

Two defects this file pins down, each with a kernel that is (or is not) racy by inspection:
- a segment split in two halves must give each half its own record: a write to one half is not
  a write to the other (a tile aliasing two smaller tiles, the smaller ones used apart);
- a missing wait with two readers belongs before the FIRST reader in program order: a wait before
  the second leaves the first racing (the vector pipe runs in order, so the first reader's wait
  orders both).
"""

import numpy as np
import pytest

import ptosim as pto

R, C = 16, 64


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_a_write_to_one_half_of_a_split_segment_is_not_a_write_to_the_other(device):
    dev = pto.Device(device)
    o1, o2 = dev.gm_zeros((R * 32,), "float32"), dev.gm_zeros((R * 32,), "float32")

    @pto.kernel
    def k(o1, o2):
        whole = pto.Tile("Vec", "float32", R, 64, name="whole")  # [0, 4 KiB)
        left = pto.Tile("Vec", "float32", R, 32, name="left")  # [0, 2 KiB)
        right = pto.Tile("Vec", "float32", R, 32, name="right")  # [2 KiB, 4 KiB)
        pto.TASSIGN(whole, 0x0)
        pto.TASSIGN(left, 0x0)
        pto.TASSIGN(right, 0x800)
        g1 = pto.GlobalTensor(o1, shape=(1, 1, 1, R, 32))
        g2 = pto.GlobalTensor(o2, shape=(1, 1, 1, R, 32))
        pto.TEXPANDS(whole, 1.0)
        pto.pipe_barrier(pto.PIPE_V)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(g1, left)
        pto.TEXPANDS(right, 2.0)  # the other half: no conflict with either store of `left`
        pto.TSTORE(g2, left)  # ordered after the first TEXPANDS by the flag above

    run = dev.run(k, o1, o2)
    assert run.findings == []
    assert np.array_equal(o1.numpy(), np.ones(R * 32, np.float32))
    assert np.array_equal(o2.numpy(), np.ones(R * 32, np.float32))


def test_a_missing_wait_is_placed_before_the_first_of_two_readers():
    dev = pto.Device("a2")
    x = dev.gm_array(np.arange(R * C, dtype=np.float32))
    out = dev.gm_zeros((R * C,), "float32")

    @pto.kernel
    def k(x, out):
        xt = pto.Tile("Vec", "float32", R, C, name="x")
        yt = pto.Tile("Vec", "float32", R, C, name="y")
        zt = pto.Tile("Vec", "float32", R, C, name="z")
        pto.TASSIGN(xt, 0x0000)
        pto.TASSIGN(yt, 0x1000)
        pto.TASSIGN(zt, 0x2000)
        pto.TLOAD(xt, pto.GlobalTensor(x, shape=(1, 1, 1, R, C)))  # no set/wait MTE2 -> V
        pto.TADD(yt, xt, xt)  # the first reader
        pto.TMUL(zt, xt, xt)  # the second
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, R, C)), zt)

    run = dev.run(k, x, out)
    assert [f.code for f in run.findings] == ["F203"]
    first = run.findings[0]
    assert "TADD #4" in first.message
    wait = [e for e in first.fix if e.op == "wait_flag"]
    assert [(e.where, e.anchor) for e in wait] == [("before", 4)]
    # the race of the second reader is a consequence of the same missing wait
    assert ["TMUL #5" in c.message for c in first.consequences] == [True]
