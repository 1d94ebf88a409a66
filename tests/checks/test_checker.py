"""The happens-before hazard checker: races are found from the program structure, not the
simulated timing, and each finding names both instructions, the pipes, the bytes and the fix."""

import numpy as np
import pytest

import ptosim as pto

DEVICES = ("a2", "950pr")


def _codes(run):
    return sorted(f.code for f in run.all_findings())


def _races(run):
    return [f for f in run.all_findings() if f.code == "F203"]


def _copy(devname, *, sync, busy_scalar=False):
    dev = pto.Device(devname)
    src = dev.gm_array(np.arange(256, dtype=np.float32).reshape(16, 16))
    out = dev.gm_zeros((16, 16), "float32")
    t = pto.Tile("Vec", "float32", 16, 16)
    sd = pto.Tile("Vec", "int32", 16, 64)
    si = pto.Tile("Vec", "int32", 16, 64)

    @pto.kernel
    def copy(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        if busy_scalar:  # a long scalar TSCATTER loop on unrelated tiles delays the TSTORE
            pto.TEXPANDS(si, 0)
            pto.TSCATTER(sd, si, si)
        if sync:
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)

    run = dev.run(copy, src, out)
    return run, np.array_equal(out.numpy(), src.numpy())


def test_missing_flag_is_a_raw_race_with_the_fix_on_a2():
    run, exact = _copy("a2", sync=False)
    assert not exact
    (race,) = _races(run)
    assert race.kind == "race-raw" and race.instructions == (0, 1)
    msg = race.message
    assert "TLOAD #0 (test_checker.py:" in msg and "TSTORE #1 (test_checker.py:" in msg
    assert "on PIPE_MTE2" in msg and "on PIPE_MTE3" in msg and "UB[0x" in msg
    assert (
        "set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0) after TLOAD #0 and "
        "wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0) before TSTORE #1"
    ) in msg
    run, exact = _copy("a2", sync=True)
    assert exact and run.findings == []


def test_a_race_hidden_by_timing_is_still_reported():
    # the scalar loop keeps PIPE_S busy long enough that the TLOAD has landed before TSTORE is
    # even issued: the data is right, the kernel is still wrong
    run, exact = _copy("a2", sync=False, busy_scalar=True)
    assert exact
    races = _races(run)
    assert any("TLOAD #0" in f.message and "TSTORE" in f.message for f in races)


def test_war_and_waw_races():
    dev = pto.Device("a2")
    src = dev.gm_array(np.ones((16, 16), np.float32))
    out = dev.gm_zeros((16, 16), "float32")
    t = pto.Tile("Vec", "float32", 16, 16)

    @pto.kernel
    def reuse(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))  # overwrites t while MTE3 may read it
        pto.TEXPANDS(t, 3.0)  # and V writes it while MTE2 does

    run = dev.run(reuse, src, out)
    kinds = {f.kind for f in _races(run)}
    assert {"race-war", "race-waw"} <= kinds
    war = next(f for f in _races(run) if f.kind == "race-war" and "TLOAD #4" in f.message)
    assert "TSTORE #3" in war.message
    assert "set_flag(PIPE_MTE3, PIPE_MTE2" in war.message


def test_gm_raw_race_between_store_and_load():
    dev = pto.Device("a2")
    buf = dev.gm_zeros((8, 8), "float32")
    a, b = pto.Tile("Vec", "float32", 8, 8), pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(buf):
        pto.TEXPANDS(a, 5.0)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(buf, (8, 8)), a)
        pto.TLOAD(b, pto.GlobalTensor(buf, (8, 8)))  # reads the GM the store writes

    run = dev.run(k, buf)
    gm = [f for f in _races(run) if "GM[" in f.message]
    assert len(gm) == 1 and gm[0].kind == "race-raw"
    assert "TSTORE #3" in gm[0].message and "TLOAD #4" in gm[0].message
    assert "set_flag(PIPE_MTE3, PIPE_MTE2" in gm[0].message


def test_library_flag_chains_order_mscatter_before_a_later_load():
    """a2a3 MSCATTER ends with MTE3->MTE2: a later TLOAD of the table is ordered (no finding)."""
    dev = pto.Device("a2")
    table = dev.gm_zeros((8, 8), "float32")
    src_h = dev.gm_array(np.ones((2, 8), np.float32))
    idx_h = dev.gm_array(np.array([1, 3], np.int32))
    src, idx = pto.Tile("Vec", "float32", 2, 8), pto.Tile("Vec", "int32", 1, 8, valid=(1, 2))
    back = pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(table, src_h, idx_h):
        pto.TLOAD(src, pto.GlobalTensor(src_h, (2, 8)))
        pto.TLOAD(idx, pto.GlobalTensor(idx_h, (1, 2)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.MSCATTER(pto.GlobalTensor(table, (8, 8)), src, idx)
        pto.TLOAD(back, pto.GlobalTensor(table, (8, 8)))

    run = dev.run(k, table, src_h, idx_h)
    assert run.findings == []
    assert np.array_equal(run.tile(back)[[1, 3]], np.ones((2, 8), np.float32))


def test_blocks_writing_the_same_gm_race_across_cores():
    dev = pto.Device("a2")
    out = dev.gm_zeros((8, 8), "float32")
    t = pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def same_slice(out):
        pto.TEXPANDS(t, 1.0)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (8, 8)), t)

    run = dev.run(same_slice, out, block_dim=2)
    assert "F205" in _codes(run)


def test_overlapping_live_tiles():
    dev = pto.Device("cpu")
    src = dev.gm_array(np.ones((8, 8), np.float32))
    out = dev.gm_zeros((8, 8), "float32")
    a = pto.Tile("Vec", "float32", 8, 8, name="a")
    b = pto.Tile("Vec", "float32", 8, 8, name="b")

    @pto.kernel
    def k(src, out):
        pto.TASSIGN(a, 0x0)
        pto.TASSIGN(b, 0x80)  # half of a
        pto.TLOAD(a, pto.GlobalTensor(src, (8, 8)))
        pto.TEXPANDS(b, 2.0)
        pto.TSTORE(pto.GlobalTensor(out, (8, 8)), a)

    run = dev.run(k, src, out)
    (f,) = [f for f in run.findings if f.code == "F204"]
    assert "b and a share bytes [0x80, 0x100)" in f.message and "TEXPANDS #3" in f.message


@pytest.mark.parametrize("devname", DEVICES)
def test_documented_gather_pattern_has_no_finding(devname):
    dev = pto.Device(devname)
    table = dev.gm_array(np.arange(64 * 16, dtype=np.float32).reshape(64, 16))
    index = dev.gm_array(np.array([5, 0, 63, 7], np.int32))
    out = dev.gm_zeros((4, 16), "float32")
    dst, idx = pto.Tile("Vec", "float32", 4, 16), pto.Tile("Vec", "int32", 1, 8, valid=(1, 4))

    @pto.kernel
    def gather(table, index, out):
        pto.TLOAD(idx, pto.GlobalTensor(index, (1, 4)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.MGATHER(dst, pto.GlobalTensor(table, (64, 16)), idx)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (4, 16)), dst)

    run = dev.run(gather, table, index, out)
    assert run.findings == []
    assert np.array_equal(out.numpy(), table.numpy()[[5, 0, 63, 7]])
