"""950: the fixpipe L0C -> L1 (TMOV / TEXTRACT / TINSERT from an Acc tile into a Mat tile).
TMOV writes ND and DN Mat tiles too (nz2nd: row r of the valid region at r * Cols; nz2dn:
column c at c * Rows), TEXTRACT copies the destination's valid rows, and the quantised forms
(a preQuantScalar word, TMOV_FP's Scaling tile of one word per column) run as for TSTORE.

Expected values are numpy by hand: the product of small integers (exact in float32), then the
destination's bytes in L1 laid out here from the layout's definition, the rest of the tile
keeping the sentinel it was loaded with; the quant words' fields (scale bits [31:13], offset
bits [45:37], bit 46 signed) decoded here."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.cube import multiply_into_acc

M, K, N = 32, 16, 32
MAT_AT = 0x8000  # the destination Mat tile's L1 address
SENTINEL = 77


def _data():
    a = (np.arange(M * K) % 7 - 3).reshape(M, K).astype(np.float16)
    b = (np.arange(K * N) % 5 - 2).reshape(K, N).astype(np.float16)
    return a, b, a.astype(np.float64) @ b.astype(np.float64)


def f32_bits(x: float) -> int:
    return int(np.array(x, np.float32).view(np.uint32))


def _kernel(dst_args: tuple, move, *, valid=(M, N), words: bool = False):
    """A cube kernel: the Mat tile ``dst_args`` (loc, dtype, rows, cols, kwargs) at MAT_AT is
    loaded from ``init``; C = A @ B into an Acc tile of valid ``valid``; then ``move(dst, acc,
    fb)`` (fb: a Scaling tile of N words loaded from ``w`` when ``words``)."""

    @pto.kernel(cores="cube")
    def kern(a, b, init, w=None):
        dtype, rows, cols, kw = dst_args
        dst = pto.Tile("Mat", dtype, rows, cols, **kw)
        flat = pto.Tile("Mat", dtype, 1, rows * cols)  # dst's bytes, in order
        pto.TASSIGN(dst, MAT_AT)
        pto.TASSIGN(flat, MAT_AT)
        pto.TLOAD(flat, pto.GlobalTensor(init, (1, rows * cols)))
        fb = None
        if words:
            wm, fb = pto.Tile("Mat", "uint64", 1, N), pto.Tile("Scaling", "uint64", 1, N)
            pto.TLOAD(wm, pto.GlobalTensor(w, (1, N)))
        acc = multiply_into_acc(a, b, M, K, N, acc_valid=valid)
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
        if words:
            pto.TMOV(fb, wm)
        move(dst, acc, fb)

    return kern


def _run(kern, dtype: str, rows: int, cols: int, *extra, device="950pr"):
    """(the destination tile's L1 elements in storage order, the product, the sentinel
    array the tile was loaded with)."""
    a, b, p = _data()
    np_t = np.dtype(dtype)  # float16, float32, int8
    init = np.full(rows * cols, SENTINEL, np_t)
    dev = pto.Device(device)
    args = [dev.gm_array(a), dev.gm_array(b), dev.gm_array(init)]
    args += [dev.gm_array(x) for x in extra]
    run = dev.run(kern, *args)
    assert run.findings == [], [str(f) for f in run.findings]
    raw = run.blocks[0].buffers["L1"].data[MAT_AT : MAT_AT + rows * cols * np_t.itemsize]
    return raw.view(np_t), p, init


ND = {"blayout": "RowMajor", "slayout": "NoneBox"}
DN = {"blayout": "ColMajor", "slayout": "NoneBox"}


def test_tmov_into_an_nd_mat_tile_writes_the_valid_rows_cols_apart():
    rows, cols, vr, vc = 40, 48, 27, 19  # dst larger than the valid region; Cols 96 bytes
    kern = _kernel(("float16", rows, cols, ND), lambda d, acc, fb: pto.TMOV(d, acc), valid=(vr, vc))
    got, p, init = _run(kern, "float16", rows, cols)
    want = init.copy().reshape(rows, cols)
    want[:vr, :vc] = p[:vr, :vc].astype(np.float16)  # row r at r * Cols
    assert np.array_equal(got, want.reshape(-1))


def test_tmov_into_a_dn_mat_tile_writes_the_valid_columns_rows_apart():
    rows, cols, vr, vc = 40, 32, 27, 19  # Rows 160 bytes of float
    kern = _kernel(
        ("float32", rows, cols, DN), lambda d, acc, fb: pto.TMOV(d, acc, relu="NormalRelu"),
        valid=(vr, vc),
    )  # fmt: skip
    got, p, init = _run(kern, "float32", rows, cols)
    want = init.copy().reshape(cols, rows)  # column c at c * Rows
    want[:vc, :vr] = np.maximum(p[:vr, :vc], 0).T
    assert (p[:vr, :vc] < 0).any()
    assert np.array_equal(got, want.reshape(-1))


def test_scalar_quantised_tmov_into_an_nd_int8_tile():
    word = f32_bits(0.75) | (5 << 37) | (1 << 46)  # scale 0.75, offset 5, signed
    kern = _kernel(("int8", M, N, ND), lambda d, acc, fb: pto.TMOV(d, acc, quant=word))
    got, p, _ = _run(kern, "int8", M, N)
    t = np.clip(np.rint(np.clip(p * 0.75, -256, 255)) + 5, -128, 127)  # ties to even
    assert (p * 0.75 % 1 == 0.5).any()
    assert np.array_equal(got, t.astype(np.int8).reshape(-1))


def test_vector_quantised_tmov_fp_into_a_dn_half_tile_scales_each_column():
    scales = (0.25 + 0.125 * np.arange(N)).astype(np.float32)  # exact in 10 mantissa bits
    words = scales.view(np.uint32).astype(np.uint64)
    kern = _kernel(("float16", M, N, DN), lambda d, acc, fb: pto.TMOV(d, acc, quant=fb), words=True)
    got, p, _ = _run(kern, "float16", M, N, words)
    want = (p * scales.astype(np.float64)).astype(np.float32).astype(np.float16)
    assert len(np.unique(scales)) == N
    assert np.array_equal(got, want.T.reshape(-1))


def _nz_flat(x: np.ndarray, c0: int) -> np.ndarray:
    """A matrix in NZ order: column block of c0, then row, then column in the block."""
    rows, cols = x.shape
    return x.reshape(rows, cols // c0, c0).transpose(1, 0, 2).reshape(-1)


def test_textract_copies_the_destination_valid_rows_from_the_index():
    # dst 32 x 16 NZ, valid 16 x 16: index row 16 + Rows 32 passes src's 32 rows, but the copy
    # is 16 rows (a5 TExtractAccToMat: dst.GetValidRow()), inside the source
    rows, cols = 32, 16
    nz = {"blayout": "ColMajor", "slayout": "RowMajor", "valid": (16, 16)}
    kern = _kernel(("float16", rows, cols, nz), lambda d, acc, fb: pto.TEXTRACT(d, acc, 16, 16))
    got, p, init = _run(kern, "float16", rows, cols)
    want = init.copy().reshape(rows, cols)
    want[:16, :16] = p[16:32, 16:32].astype(np.float16)
    assert np.array_equal(got, _nz_flat(want, 16))


def test_scalar_quantised_tinsert_into_an_nz_tile_at_an_index():
    word = f32_bits(2.0)  # half output: scale only
    rows, cols = 64, 64
    nz = {"blayout": "ColMajor", "slayout": "RowMajor"}
    kern = _kernel(
        ("float16", rows, cols, nz), lambda d, acc, fb: pto.TINSERT(d, acc, 16, 32, quant=word)
    )
    got, p, init = _run(kern, "float16", rows, cols)
    want = init.copy().reshape(rows, cols)
    want[16 : 16 + M, 32 : 32 + N] = (p * 2.0).astype(np.float32).astype(np.float16)
    assert np.array_equal(got, _nz_flat(want, 16))


def test_textract_into_an_nd_mat_tile_stops_naming_nz():
    kern = _kernel(("float16", M, N, ND), lambda d, acc, fb: pto.TEXTRACT(d, acc, 0, 0))
    with pytest.raises(pto.PtoSimError) as e:
        _run(kern, "float16", M, N)
    text = str(e.value)
    assert "TEXTRACT" in text and "fractal-layout" in text and "expected NZ, given ND" in text


def test_a2_keeps_the_nz_only_fixpipe_into_l1():
    kern = _kernel(("float16", M, N, ND), lambda d, acc, fb: pto.TMOV(d, acc))
    with pytest.raises(pto.PtoSimError) as e:
        _run(kern, "float16", M, N, device="a2")
    assert "expected NZ, given ND" in str(e.value)
