"""TINSERT(mat, acc, indexRow, indexCol): the accumulator written into a window of an NZ Mat
tile through the fixpipe. Expected values are numpy by hand: the NPU's fixpipe writes C0-wide
column blocks starting at the index's NZ address (reference/cube_isa.md 3.5: the destination
offset ``Rows*C0*(col//C0) + row*C0 + col%C0`` and a destination stride of ``Rows`` per block),
the CPU simulator the source's valid region element by element."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

M = K = N = 16
DST_ROWS, DST_COLS = 48, 48


def _kernel(index_row, index_col, *, quant=None):
    @pto.kernel(cores="cube")
    def kern(a, b, init, out):
        am, bm = pto.TileMatNZ("float16", M, K), pto.TileMatNZ("float16", K, N)
        la, rb = pto.TileLeft("float16", M, K), pto.TileRight("float16", K, N)
        acc = pto.TileAcc("float32", M, N)
        dst = pto.TileMatNZ("float16", DST_ROWS, DST_COLS)
        flat = pto.Tile("Mat", "float16", 1, DST_ROWS * DST_COLS)  # dst's L1 bytes, in order
        pto.TASSIGN(am, 0x0)
        pto.TASSIGN(bm, 0x1000)
        pto.TASSIGN(dst, 0x2000)
        pto.TASSIGN(flat, 0x2000)
        pto.TLOAD(am, pto.GlobalTensor(a, (M, K)))
        pto.TLOAD(bm, pto.GlobalTensor(b, (K, N)))
        pto.TLOAD(dst, pto.GlobalTensor(init, (DST_ROWS, DST_COLS)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.TMOV(la, am)
        pto.TMOV(rb, bm)
        pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.TMATMUL(acc, la, rb)
        pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
        pto.TINSERT(dst, acc, index_row, index_col, quant=quant)
        pto.set_flag(pto.PIPE_FIX, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_FIX, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, DST_ROWS * DST_COLS)), flat)

    return kern


def _data():
    a = (np.arange(M * K) % 7 - 3).reshape(M, K).astype(np.float16)
    b = (np.arange(K * N) % 5 - 2).reshape(K, N).astype(np.float16)
    init = (np.arange(DST_ROWS * DST_COLS) % 11 + 100).reshape(DST_ROWS, DST_COLS)
    return a, b, init.astype(np.float16)


def _nz_flat(x: np.ndarray) -> np.ndarray:
    """A half matrix in NZ order (C0 = 16): column block, then row, then column in block."""
    rows, cols = x.shape
    return x.reshape(rows, cols // 16, 16).transpose(1, 0, 2).reshape(-1)


def _run(devname, index_row, index_col):
    a, b, init = _data()
    dev = pto.Device(devname)
    out = dev.gm_zeros((DST_ROWS * DST_COLS,), "float16")
    kern = _kernel(index_row, index_col)
    run = dev.run(kern, dev.gm_array(a), dev.gm_array(b), dev.gm_array(init), out)
    assert run.findings == [], [str(f) for f in run.findings]
    return out.numpy(), (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16), init


@pytest.mark.parametrize("devname", ["a2", "cpu"])
def test_tinsert_acc_to_mat_at_a_fractal_aligned_index(devname):
    got, c, init = _run(devname, 16, 32)  # small integers: every sum is exact in float32
    want = init.copy()
    want[16:32, 32:48] = c
    assert np.array_equal(got, _nz_flat(want))


def test_a2_tinsert_inside_a_fractal_shifts_every_column_block():
    got, c, init = _run("a2", 0, 8)
    want = _nz_flat(init)
    base = DST_ROWS * 16 * (8 // 16) + 0 * 16 + 8 % 16
    for r in range(M):
        for col in range(N):  # C0 = 16: one column block of 16, stride Rows * 16
            want[base + (col // 16) * DST_ROWS * 16 + r * 16 + col % 16] = c[r, col]
    assert np.array_equal(got, want)


def test_tinsert_window_past_the_destination_is_a_coded_error():
    a, b, init = _data()
    dev = pto.Device("a2")
    with pytest.raises(pto.ConstraintError) as e:
        dev.run(_kernel(40, 0), dev.gm_array(a), dev.gm_array(b), dev.gm_array(init),
                dev.gm_zeros((DST_ROWS * DST_COLS,), "float16"))  # fmt: skip
    assert e.value.rule == "window-within-dst" and "test_acc_insert.py" in str(e.value)


def test_quantised_tinsert_on_cpu_stops_naming_the_form():
    # the quantised fixpipe is modelled on Atlas A2/A3 only (tests/isa/cube/test_fixpipe_quant.py)
    a, b, init = _data()
    dev = pto.Device("cpu")
    kern = _kernel(0, 0, quant=0x3F800000)
    out = dev.gm_zeros((DST_ROWS * DST_COLS,), "float16")
    with pytest.raises(pto.UnsupportedError) as e:
        dev.run(kern, dev.gm_array(a), dev.gm_array(b), dev.gm_array(init), out)
    assert "scalar quantisation (a preQuantScalar)" in str(e.value)
