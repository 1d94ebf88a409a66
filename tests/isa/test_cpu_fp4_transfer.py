"""cpu TLOAD / TSTORE of fp4 move nibble by nibble, as the CPU simulator copies element (r, c)
through its nibble accessors: element k of a tile or GlobalTensor is nibble k % 2 (low first) of
byte k // 2, so a GlobalTensor row of an odd number of columns starts in the middle of a byte.
TLOAD first fills every byte of the tile (Rows * Cols / 2) with the pad field in both nibbles:
0 for Null, the simulator's numeric limits for Max (field 7) and Min (field 1).

Expected bytes are built here nibble by nibble from that rule (Python loops), not by ptosim.
"""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import seeded, vec

ROWS, COLS = 4, 64
ODD = COLS - 1  # a GlobalTensor row of an odd number of fp4 elements


def nibble(data: np.ndarray, k: int) -> int:
    return int(data[k // 2] >> 4) if k % 2 else int(data[k // 2] & 0xF)


def set_nibble(data: np.ndarray, k: int, v: int) -> None:
    i = k // 2
    data[i] = (data[i] & 0x0F) | (v << 4) if k % 2 else (data[i] & 0xF0) | v


def _load_then_store_whole(dtype, src: np.ndarray, gm_cols: int, valid_cols: int, pad):
    """TLOAD a ROWS x ``gm_cols`` fp4 GlobalTensor (row stride ``gm_cols`` nibbles) into a
    ROWS x COLS tile of ``valid_cols`` valid columns and ``pad``; TSTORE the whole tile (an alias
    with every column valid) to a dense ROWS x COLS GlobalTensor: its bytes are the tile's."""
    dev = pto.Device("cpu")
    a = dev.gm_array(src)
    out = dev.gm_array(np.full(ROWS * COLS // 2, 0xA5, np.uint8))

    @pto.kernel
    def k(a, out):
        t = vec(dtype, ROWS, COLS, valid=(ROWS, valid_cols), pad=pad)
        whole = vec(dtype, ROWS, COLS)
        pto.TASSIGN(t, 0)
        pto.TASSIGN(whole, 0)
        pto.TLOAD(t, pto.GlobalTensor(a, (1, 1, 1, ROWS, gm_cols), dtype=dtype))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, ROWS, COLS), dtype=dtype), whole)

    dev.run(k, a, out)
    return out.numpy().ravel()


@pytest.mark.parametrize("dtype", ["float4_e2m1", "float4_e1m2"])
@pytest.mark.parametrize(
    "gm_cols,pad,pad_field",
    [(ODD, "Max", 7), (ODD, "Min", 1), (ODD, "Null", 0), (COLS - 2, "Max", 7)],
)
def test_a_load_of_odd_or_padded_columns_moves_nibbles_and_pads_both(
    dtype, gm_cols, pad, pad_field
):
    src = seeded("fp4-load", dtype, gm_cols).integers(0, 256, (ROWS * gm_cols + 1) // 2, np.uint8)
    want = np.full(ROWS * COLS // 2, pad_field * 0x11, np.uint8)
    for r in range(ROWS):
        for c in range(gm_cols):
            set_nibble(want, r * COLS + c, nibble(src, r * gm_cols + c))
    got = _load_then_store_whole(dtype, src, gm_cols, gm_cols, getattr(pto.PadValue, pad))
    assert got.tolist() == want.tolist()


def test_a_store_into_odd_columns_keeps_the_neighbouring_nibbles():
    """TSTORE of ROWS x ODD valid fp4 elements into a GlobalTensor of row stride ODD: each element
    lands in its nibble, the nibble after the last element (another row's, or past the view)
    keeps its value."""
    dev = pto.Device("cpu")
    tile_bytes = seeded("fp4-store").integers(0, 256, ROWS * COLS // 2, np.uint8)
    a = dev.gm_array(tile_bytes)
    out = dev.gm_array(np.full((ROWS * ODD + 1) // 2 + 1, 0xC3, np.uint8))
    want = np.full(out.nbytes, 0xC3, np.uint8)
    for r in range(ROWS):
        for c in range(ODD):
            set_nibble(want, r * ODD + c, nibble(tile_bytes, r * COLS + c))

    @pto.kernel
    def k(a, out):
        whole = vec("float4_e2m1", ROWS, COLS)
        t = vec("float4_e2m1", ROWS, COLS, valid=(ROWS, ODD))
        pto.TASSIGN(whole, 0)
        pto.TASSIGN(t, 0)
        pto.TLOAD(whole, pto.GlobalTensor(a, (1, 1, 1, ROWS, COLS), dtype="float4_e2m1"))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, ROWS, ODD), dtype="float4_e2m1"), t)

    dev.run(k, a, out)
    assert out.numpy().ravel().tolist() == want.tolist()


def test_an_odd_fp4_row_is_still_refused_where_the_dma_moves_bytes():
    """a5's DMA moves whole bytes: a row of an odd number of fp4 elements cannot start
    mid-byte there."""
    dev = pto.Device("950pr")
    a = dev.gm_zeros(ROWS * COLS, "uint8")

    @pto.kernel
    def k(a):
        t = vec("float4_e2m1", ROWS, COLS, valid=(ROWS, ODD))
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, pto.GlobalTensor(a, (1, 1, 1, ROWS, ODD), dtype="float4_e2m1"))

    with pytest.raises(pto.ConstraintError) as e:
        dev.run(k, a)
    assert e.value.rule == "packed-bytes"


def test_the_checker_sees_the_bytes_an_fp4_view_touches():
    """Rows of 3 fp4 elements 5 apart from element 1: nibbles 1-3 and 6-8, so bytes 0-1 and
    3-4 (the race analysis's regions)."""
    from ptosim.checks.structural import operand_regions

    dev = pto.Device("cpu")
    buf = dev.gm_zeros(16, "uint8")
    g = pto.GlobalTensor(
        buf, (1, 1, 1, 2, 3), stride=(1, 1, 1, 5, 1), offset=1, dtype="float4_e2m1"
    )

    class Op:
        gm = g.ref()

    base = g.ref().byte_address(0)
    got = [(r.start - base, r.end - base) for r in operand_regions(Op, ["gm"])]
    assert got == [(0, 2), (3, 5)]
