"""TLOAD into a one-row Mat tile on Atlas A2/A3: the library loads it as one ND2NZ row of the
GlobalTensor's shape[4] elements (its "vector input" load), not validCol elements as the DMA
bursts of a Vec tile. Its tmov_acc2mat test loads 64 quant words into a Mat tile of validCol 61
and the fixpipe then reads all 64 (its nSize is validCol rounded up to C0).

Expected values are the GM words themselves and the ND2NZ zero fill of the C0 block the row
ends in (D19), built here with numpy."""

import numpy as np
import pytest

import ptosim as pto

COLS, VALID = 64, 61


def _reload_kernel(words_dt, valid, view_cols, *, pad="Null"):
    """Fill the L1 row with 0x5A bytes, TLOAD the words into it with validCol ``valid``, then
    store the whole Cols-wide row back through a full-valid tile at the same address."""

    @pto.kernel(cores="cube")
    def k(fill, words, out):
        row = pto.Tile("Mat", words_dt, 1, COLS, valid=(1, valid), pad=pad)
        whole = pto.Tile("Mat", words_dt, 1, COLS)
        pto.TASSIGN(row, 0x2000)
        pto.TASSIGN(whole, 0x2000)
        pto.TLOAD(whole, pto.GlobalTensor(fill, (1, COLS)))
        pto.TLOAD(row, pto.GlobalTensor(words, (1, view_cols)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, COLS)), whole)

    return k


def _run(devname, dt, valid, view_cols, *, pad="Null"):
    dev = pto.Device(devname)
    np_dt = np.dtype(dt)
    fill = np.full(COLS * np_dt.itemsize, 0x5A, np.uint8).view(np_dt)
    words = (np.arange(view_cols) * 3 + 7).astype(np_dt)
    out = dev.gm_zeros((1, COLS), dt)
    run = dev.run(
        _reload_kernel(dt, valid, view_cols, pad=pad),
        dev.gm_array(fill.reshape(1, COLS)),
        dev.gm_array(words.reshape(1, view_cols)),
        out,
    )
    return run, fill, words, out.numpy().reshape(-1)


@pytest.mark.parametrize("devname", ["a2", "a3"])
def test_one_row_mat_load_moves_the_views_row_not_validcol(devname):
    run, _, words, got = _run(devname, "uint64", VALID, COLS)
    np.testing.assert_array_equal(got, words)  # all 64 words, the 3 past validCol too
    assert not [f for f in run.findings if f.code == "F101"]  # no burst pitch to report


def test_one_row_mat_load_zero_fills_the_c0_block_its_row_ends_in():
    # 20 halves: the row ends 4 elements into its second 16-element C0 block; the ND2NZ zeros
    # the rest of that block (whatever the tile's PadValue) and leaves the next block alone
    run, fill, words, got = _run("a2", "float16", 8, 20, pad="Max")
    want = fill.copy()
    want[:20] = words
    want[20:32] = 0
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_a_vec_row_still_moves_validcol_elements():
    """The vector-input rule is the L1 load's: a one-row Vec tile keeps its validCol bursts."""
    dev = pto.Device("a2")
    words = np.arange(1, COLS + 1, dtype=np.float32)
    out = dev.gm_zeros((1, COLS), "float32")

    @pto.kernel
    def k(words, out):
        row = pto.Tile("Vec", "float32", 1, COLS, valid=(1, 40))
        whole = pto.Tile("Vec", "float32", 1, COLS)
        pto.TASSIGN(row, 0)
        pto.TASSIGN(whole, 0)
        pto.TEXPANDS(whole, 0.0)
        pto.pipe_barrier(pto.PIPE_ALL)
        pto.TLOAD(row, pto.GlobalTensor(words, (1, COLS)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, COLS)), whole)

    dev.run(k, dev.gm_array(words.reshape(1, COLS)), out)
    got = out.numpy().reshape(-1)
    np.testing.assert_array_equal(got[:40], words[:40])
    assert (got[40:] == 0).all()
