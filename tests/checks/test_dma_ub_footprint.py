"""A TLOAD/TSTORE touches the UB bytes of its bursts, not its tile's whole storage.

The library's flash-attention kernel loads a 128-column half of a 256-column buffer through a
tile of the buffer's full width placed at the half's column offset: the tile's storage then runs
past the buffer's end, into the next tile, but the DMA writes only its 8 rows x 128 columns. A
vector instruction on that next tile, unordered with the DMA, is no race; one on the bytes the
bursts do write is. (F203 falsely reported, before, on every such pair.)
"""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
R, C, HALF = 8, 64, 32  # a buffer of 8 x 64 float32 (2 KiB at 0x0), loaded in two halves
ROW_BYTES, HALF_BYTES = C * 4, HALF * 4
# the right half's tile is placed at 0x80: its storage claims [0x80, 0x880), its bursts write
# row r's bytes [0x80 + r * 0x100, 0x100 + r * 0x100), the last ending at 0x800
BUFFER_END = R * ROW_BYTES


def _kernel(transfer: str, neighbour_address: int):
    @pto.kernel
    def k(x, out, nb_out):
        half = pto.Tile("Vec", "float32", R, C, valid=(R, HALF))
        pto.TASSIGN(half, HALF_BYTES)  # the right half of the buffer at 0x0
        nb = pto.Tile("Vec", "float32", 1, C)
        pto.TASSIGN(nb, neighbour_address)
        view = pto.GlobalTensor(x, (1, 1, 1, R, HALF), stride=(1, 1, 1, C, 1), offset=HALF)
        if transfer == "TLOAD":
            pto.TLOAD(half, view)
        else:
            pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, R, HALF), stride=(1, 1, 1, C, 1)), half)
        pto.TEXPANDS(nb, 3.0)  # PIPE_V, nothing orders it with the DMA
        pto.set_flag(V, MTE3, pto.EVENT_ID0)
        pto.wait_flag(V, MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(nb_out, (1, 1, 1, 1, C)), nb)
        if transfer == "TLOAD":  # the loaded half reaches GM in order after the load
            pto.set_flag(MTE2, MTE3, pto.EVENT_ID0)
            pto.wait_flag(MTE2, MTE3, pto.EVENT_ID0)

    return k


def _races(transfer: str, neighbour_address: int, device: str):
    dev = pto.Device(device)
    x = dev.gm_array(np.arange(R * C, dtype=np.float32).reshape(R, C))
    out = dev.gm_zeros((R, C), "float32")
    nb_out = dev.gm_zeros((C,), "float32")
    res = dev.run(_kernel(transfer, neighbour_address), x, out, nb_out)
    assert np.all(nb_out.numpy() == 3.0)
    return [f for f in res.findings if f.code == "F203"]


@pytest.mark.parametrize("device", ["a2", "950pr"])
@pytest.mark.parametrize("transfer", ["TLOAD", "TSTORE"])
def test_a_tile_past_the_bursts_is_not_in_a_race_with_them(device, transfer):
    # the neighbour starts where the buffer (and the last burst) ends, inside the tile's storage
    assert HALF_BYTES + R * C * 4 > BUFFER_END
    assert _races(transfer, BUFFER_END, device) == []


@pytest.mark.parametrize("device", ["a2", "950pr"])
@pytest.mark.parametrize("transfer", ["TLOAD", "TSTORE"])
def test_a_tile_on_the_bursts_bytes_is_in_a_race_with_them(device, transfer):
    # 0x700: the last row's first (left-half) bytes, then its burst [0x780, 0x800)
    (f,) = _races(transfer, BUFFER_END - ROW_BYTES, device)
    assert "0x780" in f.message and "0x800" in f.message
