"""950: the fixpipe into a vector core's UB (TMOV / TEXTRACT / TINSERT from an Acc tile into a
Vec tile, ``acc_to_vec`` = AccToVecMode). Expected values are numpy by hand: the product of small
integers (exact in float32), ReLU, the conversion, then the destination layout the library's
TMovCcToUb programs (ND rows of Cols elements; DN columns of Rows; NZ column blocks of 32 bytes,
Rows x C0 apart), each AIV's half of a split as a tile of its own."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

M, K, N = 32, 16, 32


def _data():
    a = (np.arange(M * K) % 7 - 3).reshape(M, K).astype(np.float16)
    b = (np.arange(K * N) % 5 - 2).reshape(K, N).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


def _matmul(a, b):
    """The cube core's C = A x B into an Acc tile at L0C 0x0."""
    am, bm = pto.TileMatNZ("float16", M, K), pto.TileMatNZ("float16", K, N)
    la, rb = pto.TileLeft("float16", M, K), pto.TileRight("float16", K, N)
    acc = pto.TileAcc("float32", M, N)
    pto.TASSIGN(am, 0x0)
    pto.TASSIGN(bm, 0x1000)
    pto.TLOAD(am, pto.GlobalTensor(a, (M, K)))
    pto.TLOAD(bm, pto.GlobalTensor(b, (K, N)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
    pto.TMOV(la, am)
    pto.TMOV(rb, bm)
    pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
    pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
    pto.TMATMUL(acc, la, rb)
    pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
    pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
    return acc


def _kernel(vec_args, move, out_rows, out_cols, *, flags=True, store_on=(0, 1), init=False):
    """A mixed kernel: the cube core runs ``move(vec, acc)``, posts intra-block flag 0 to both
    vector cores; AIVk (k in ``store_on``) stores its Vec tile's bytes (as a flat row of the
    tile's dtype) to row k of ``out``. ``init``: the vector cores first fill their tile with
    -1 (TEXPANDS), and the cube core waits for that (AIVk's id 1 arrives as 1 + 16 k)."""

    @pto.kernel(cores="mix")
    def kern(a, b, out):
        dtype, rows, cols = vec_args[:3]
        vec = pto.Tile("Vec", *vec_args[:3], **vec_args[3])
        pto.TASSIGN(vec, 0x100)
        if pto.is_cube():
            if init:
                pto.wait_intra_block(pto.PIPE_FIX, 1)
                pto.wait_intra_block(pto.PIPE_FIX, 17)
            acc = _matmul(a, b)
            move(vec, acc)
            if flags:
                pto.set_intra_block(pto.PIPE_FIX, 0)
                pto.set_intra_block(pto.PIPE_FIX, 16)
        else:
            if init:
                pto.TEXPANDS(vec, -1)
                pto.set_intra_block(pto.PIPE_V, 1)
                pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
                pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
            if flags:
                pto.wait_intra_block(pto.PIPE_MTE3, 0)
            flat = pto.Tile("Vec", dtype, 1, rows * cols)
            pto.TASSIGN(flat, 0x100)
            for k in store_on:
                if pto.get_subblockid() == k:
                    view = pto.GlobalTensor(out, (1, rows * cols), offset=k * rows * cols)
                    pto.TSTORE(view, flat)

    return kern


def _run(kernel, dtype, rows, cols, device="950pr"):
    a, b, c = _data()
    dev = pto.Device(device)
    out = dev.gm_zeros((2, rows * cols), dtype)
    run = dev.run(kernel, dev.gm_array(a), dev.gm_array(b), out)
    return run, out.numpy(), c


def _nz(x: np.ndarray, c0: int) -> np.ndarray:
    """A matrix in NZ order: column blocks of c0, each block's rows one after another."""
    rows, cols = x.shape
    return x.reshape(rows, cols // c0, c0).transpose(1, 0, 2).reshape(-1)


@pytest.mark.parametrize("core", [0, 1])
def test_tmov_nd_with_relu_to_one_vector_core(core):
    mode = ("SingleModeVec0", "SingleModeVec1")[core]
    kern = _kernel(("float16", M, N, {}), lambda v, acc: pto.TMOV(v, acc, relu="NormalRelu",
                   acc_to_vec=mode), M, N, store_on=(core,))  # fmt: skip
    run, got, c = _run(kern, "float16", M, N)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(got[core], np.maximum(c, 0).astype(np.float16).reshape(-1))


def test_dual_split_m_sends_the_upper_rows_to_aiv0_and_the_lower_to_aiv1():
    kern = _kernel(("float32", M, N, {"valid": (M // 2, N)}),
                   lambda v, acc: pto.TMOV(v, acc, acc_to_vec="DualModeSplitM"), M, N)  # fmt: skip
    run, got, c = _run(kern, "float32", M, N)
    assert run.findings == [], [str(f) for f in run.findings]
    half = M // 2 * N  # each half at the tile's address, rows N elements apart
    assert np.array_equal(got[0, :half], c[: M // 2].reshape(-1))
    assert np.array_equal(got[1, :half], c[M // 2 :].reshape(-1))


def test_dual_split_n_sends_the_left_columns_to_aiv0_and_the_right_to_aiv1():
    kern = _kernel(("float32", M, N, {"valid": (M, N // 2)}),
                   lambda v, acc: pto.TMOV(v, acc, acc_to_vec="DualModeSplitN"), M, N)  # fmt: skip
    run, got, c = _run(kern, "float32", M, N)
    assert run.findings == [], [str(f) for f in run.findings]
    g0, g1 = got[0].reshape(M, N), got[1].reshape(M, N)  # rows N (the tile's Cols) apart
    assert np.array_equal(g0[:, : N // 2], c[:, : N // 2])
    assert np.array_equal(g1[:, : N // 2], c[:, N // 2 :])


def test_tmov_into_an_nz_and_a_dn_vec_tile():
    nz = {"blayout": "ColMajor", "slayout": "RowMajor"}
    kern = _kernel(("float16", M, N, nz), lambda v, acc: pto.TMOV(v, acc), M, N, store_on=(0,))
    run, got, c = _run(kern, "float16", M, N)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(got[0], _nz(c.astype(np.float16), 16))
    dn = {"blayout": "ColMajor"}
    kern = _kernel(("float32", M, N, dn), lambda v, acc: pto.TMOV(v, acc), M, N, store_on=(0,))
    run, got, c = _run(kern, "float32", M, N)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(got[0], c.T.reshape(-1))  # columns of Rows elements


def test_textract_copies_the_window_at_the_index():
    kern = _kernel(("float32", 16, 16, {}), lambda v, acc: pto.TEXTRACT(v, acc, 16, 16),
                   16, 16, store_on=(0,))  # fmt: skip
    run, got, c = _run(kern, "float32", 16, 16)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(got[0], c[16:32, 16:32].reshape(-1))


def test_tinsert_writes_the_accumulator_at_the_index_of_a_wider_tile():
    rows, cols = M + 8, N + 16
    kern = _kernel(("float32", rows, cols, {}), lambda v, acc: pto.TINSERT(v, acc, 4, 8),
                   rows, cols, store_on=(0,), init=True)  # fmt: skip
    run, got, c = _run(kern, "float32", rows, cols)
    assert run.findings == [], [str(f) for f in run.findings]
    want = np.full((rows, cols), -1, np.float32)
    want[4 : 4 + M, 8 : 8 + N] = c
    assert np.array_equal(got[0], want.reshape(-1))


def test_without_the_intra_block_flag_the_vector_cores_read_is_a_cross_core_race():
    kern = _kernel(("float32", M, N, {}), lambda v, acc: pto.TMOV(v, acc), M, N,
                   flags=False, store_on=(0,))  # fmt: skip
    run, _, _ = _run(kern, "float32", M, N)
    text = [str(f) for f in run.findings]
    assert any(
        "F205" in t and "UB[0x100, 0x1100) of block 0 AIV0" in t and "set_intra_block" in t
        for t in text
    ), text


def test_acc_to_vec_is_a_950_path():
    kern = _kernel(("float32", M, N, {}), lambda v, acc: pto.TMOV(v, acc), M, N, store_on=(0,))
    with pytest.raises(pto.PtoSimError) as e:
        _run(kern, "float32", M, N, device="a2")
    assert "Acc -> Vec" in str(e.value) or "core-buffer" in str(e.value)


def test_a_dual_mode_with_quantisation_is_refused_naming_the_rule():
    kern = _kernel(("float16", M, N, {}),
                   lambda v, acc: pto.TMOV(v, acc, quant=0x3F800000, acc_to_vec="DualModeSplitM"),
                   M, N)  # fmt: skip
    with pytest.raises(pto.ConstraintError) as e:
        _run(kern, "float16", M, N)
    assert "dual-mode" in str(e.value)


@pytest.mark.parametrize("opcode", ["TMOV", "TEXTRACT"])
def test_acc_to_vec_outside_a_mixed_kernel_stops_at_its_line(opcode):
    @pto.kernel(cores="cube")
    def kern(c):
        acc = pto.TileAcc("float32", 16, 16)
        vec = pto.Tile("Vec", "float32", 16, 16)
        getattr(pto, opcode)(vec, acc)

    dev = pto.Device("950pr")
    with pytest.raises(pto.ConstraintError) as e:
        dev.run(kern, dev.gm_zeros((16, 16), "float32"))
    text = str(e.value)
    assert "onchip-path" in text and "cores='mix'" in text and "test_acc_to_vec.py" in text, text


def test_a_vec_tile_without_an_address_is_refused():
    @pto.kernel(cores="mix")
    def kern(c):
        if pto.is_cube():
            acc = pto.TileAcc("float32", 16, 16)
            pto.TMOV(pto.Tile("Vec", "float32", 16, 16), acc)

    dev = pto.Device("950pr")
    with pytest.raises(pto.ConstraintError) as e:
        dev.run(kern, dev.gm_zeros((16, 16), "float32"))
    assert "'address'" in str(e.value), str(e.value)
