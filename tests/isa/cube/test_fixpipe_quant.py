"""The fixpipe's quantised forms on a2 (scalar: a preQuantScalar word; vector: a Scaling tile of
one word per column), against expected values computed here from the word's fields as the
library's a2a3 goldens decode them (bits [31:13] a 1-8-10 float scale, [35:32] the int16 shift,
[45:37] an offset, bit 46 signed), independent of ptosim/isa/cube/quant.py."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import ConstraintError, UnsupportedError
from tests.helpers.cube import multiply_into_acc

M, N = 16, 32


def _word(scale: float, *, offset: int = 0, signed: bool = False, shift: int = 0) -> int:
    bits = int(np.array(scale, np.float32).view(np.uint32))
    return bits | (shift << 32) | (offset << 37) | (int(signed) << 46)


def _scale_of(word: int) -> np.float32:
    return np.array(word & 0xFFFFE000, np.uint32).view(np.float32)[()]


def _kernel(src_dt, acc_dt, out_dt, *, quant="scalar", word=0, relu="NoRelu", op="TSTORE",
            index_col=0):  # fmt: skip
    """acc = A @ I (so acc == A), then the quantised fixpipe copy to GM or through L1."""

    @pto.kernel(cores="cube")
    def kern(a, eye, words, out):
        am, im = pto.TileMatNZ(src_dt, M, N), pto.TileMatNZ(src_dt, N, N)
        left, right = pto.TileLeft(src_dt, M, N), pto.TileRight(src_dt, N, N)
        acc = pto.TileAcc(acc_dt, M, N)
        wm = pto.Tile("Mat", "uint64", 1, 2 * N, blayout="RowMajor", slayout="NoneBox")
        fb = pto.Tile("Scaling", "uint64", 1, 2 * N, blayout="RowMajor", slayout="NoneBox")
        pto.TASSIGN(am, 0)
        pto.TASSIGN(im, 0x8000)
        pto.TASSIGN(wm, 0x10000)
        pto.TLOAD(am, pto.GlobalTensor(a, (M, N)))
        pto.TLOAD(im, pto.GlobalTensor(eye, (N, N)))
        pto.TLOAD(wm, pto.GlobalTensor(words, (1, 2 * N)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.TMOV(left, am)
        pto.TMOV(right, im)
        pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.TMATMUL(acc, left, right)
        pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.TMOV(fb, wm)  # on PIPE_FIX, ordered before the copy that reads it
        q = fb if quant == "vector" else word
        if op == "TSTORE":
            pto.TSTORE(pto.GlobalTensor(out, (M, N)), acc, relu=relu, quant=q)
            return
        cols = N - index_col
        mat = pto.TileMatNZ(out_dt, M, cols)
        pto.TASSIGN(mat, 0x18000)
        if op == "TMOV":
            pto.TMOV(mat, acc, relu=relu, quant=q)
        else:
            pto.TEXTRACT(mat, acc, 0, index_col, relu=relu, quant=q)
        pto.set_flag(pto.PIPE_FIX, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_FIX, pto.PIPE_MTE3, 0)
        flat = pto.Tile("Mat", out_dt, 1, M * cols)
        pto.TASSIGN(flat, 0x18000)
        pto.TSTORE(pto.GlobalTensor(out, (1, M * cols)), flat)

    return kern


def _run(kern, a, words, out_shape, out_dt, devname="a2"):
    dev = pto.Device(devname)
    eye = np.eye(N, dtype=a.dtype)
    out = dev.gm_zeros(out_shape, out_dt)
    w = dev.gm_array(np.asarray(words, np.uint64).reshape(1, 2 * N))
    run = dev.run(kern, dev.gm_array(a), dev.gm_array(eye), w, out)
    assert run.findings == [], [str(f) for f in run.findings]
    return out.numpy()


def _int8_expected(x: np.ndarray, words: np.ndarray) -> np.ndarray:
    """round(x * M1) ties to even, saturated to [-256, 255], + offset, saturated to the range
    of the sign bit (the goldens' qf2b8_pre)."""
    scale = np.array([_scale_of(int(w)) for w in words], np.float32)
    offset = np.array([(int(w) >> 37) & 0x1FF for w in words])
    signed = np.array([(int(w) >> 46) & 1 for w in words], bool)
    r = np.clip(np.round(x.astype(np.float32) * scale), -256, 255) + offset
    return np.clip(r, np.where(signed, -128, 0), np.where(signed, 127, 255))


def test_scalar_quant_float_to_int8_rounds_ties_to_even_and_saturates():
    # x * 0.5 lands on every .5 tie and past both ends of int8
    x = (np.arange(M * N).reshape(M, N) - 256).astype(np.float16)
    word = _word(0.5, signed=True)
    got = _run(_kernel("float16", "float32", "int8", word=word), x, np.zeros(2 * N), (M, N),
               "int8")  # fmt: skip
    want = _int8_expected(x, np.full(N, word, np.uint64))
    assert np.array_equal(got, want.astype(np.int8))
    assert got.min() == -128 and got.max() == 127 and (got == 2).sum() > 0  # 4.5 -> 4, 5 -> 2.5..


def test_scalar_quant_unsigned_with_offset():
    x = (np.arange(M * N).reshape(M, N) % 200 - 100).astype(np.float16)
    word = _word(1.5, offset=7, signed=False)
    got = _run(_kernel("float16", "float32", "uint8", word=word), x, np.zeros(2 * N), (M, N),
               "uint8")  # fmt: skip
    assert np.array_equal(got, _int8_expected(x, np.full(N, word, np.uint64)).astype(np.uint8))


def test_vector_quant_int32_to_half_one_word_per_column():
    x = (np.arange(M * N).reshape(M, N) % 251 - 125).astype(np.int8)
    scales = (np.arange(2 * N) % 5 + 1) * 0.25
    words = np.array([_word(s) for s in scales], np.uint64)
    got = _run(_kernel("int8", "int32", "float16", quant="vector"), x, words, (M, N), "float16")
    want = (x.astype(np.float32) * scales[:N].astype(np.float32)).astype(np.float16)
    assert np.array_equal(got, want)


def test_scalar_quant_int32_to_int16_shifts_right():
    x = (np.arange(M * N).reshape(M, N) % 256 - 128).astype(np.int8)
    word = _word(0.0, shift=2)  # x >> 3
    got = _run(_kernel("int8", "int32", "int16", word=word, op="TMOV"), x, np.zeros(2 * N),
               (1, M * N), "int16")  # fmt: skip
    want = (x.astype(np.int32) >> 3).astype(np.int16)
    nz = want.reshape(M, N // 16, 16).transpose(1, 0, 2).reshape(-1)  # NZ, C0 = 16
    assert np.array_equal(got.reshape(-1), nz)


def test_textract_fp_reads_the_words_from_index_col():
    # index_col 16: the fixpipe is pointed at word 16 (128 bytes, one unit of its FPC register)
    x = (np.arange(M * N).reshape(M, N) % 9 - 4).astype(np.float16)
    scales = np.arange(2 * N) * 0.5 + 1.0
    words = np.array([_word(s) for s in scales], np.uint64)
    kern = _kernel("float16", "float32", "float16", quant="vector", op="TEXTRACT", index_col=16)
    got = _run(kern, x, words, (1, M * 16), "float16")
    want = (x[:, 16:].astype(np.float32) * scales[16:32].astype(np.float32)).astype(np.float16)
    assert np.array_equal(got.reshape(M, 16), want)  # one NZ column block: row-major


def test_relu_comes_before_the_quantisation():
    # ReluPreMode: negative sums become 0 first, then the offset is added
    x = np.full((M, N), -3, np.float16)
    word = _word(1.0, offset=5, signed=True)
    got = _run(_kernel("float16", "float32", "int8", word=word, relu="NormalRelu"), x,
               np.zeros(2 * N), (M, N), "int8")  # fmt: skip
    assert (got == 5).all()


def test_quant_dtype_pair_is_checked():
    with pytest.raises(ConstraintError, match="quant-dtype-pair"):
        _run(_kernel("float16", "float32", "int32", word=_word(1.0)), np.zeros((M, N), np.float16),
             np.zeros(2 * N), (M, N), "int32")  # fmt: skip


def test_quant_on_cpu_stops_naming_the_form():
    with pytest.raises(UnsupportedError, match="scalar quantisation"):
        kern = _kernel("float16", "float32", "int8", word=_word(1.0))
        _run(kern, np.zeros((M, N), np.float16), np.zeros(2 * N), (M, N), "int8", devname="cpu")


@pytest.mark.parametrize(
    "mode, setup, out_dt, expect",
    [
        ("F322F16", None, "float16", lambda p: p.astype(np.float16)),
        ("DEQF16", 0.25, "float16", lambda p: (p * 0.25).astype(np.float16)),
        ("QF322B8_PRE", 0.5, "int8", lambda p: np.clip(np.round(p * 0.5), -128, 127)),
        (
            "VDEQF16",
            "vector",
            "float16",
            lambda p: (p * (np.arange(32) % 3 + 1)).astype(np.float16),
        ),
    ],
)
def test_tpush_through_the_fixpipe_converts_or_quantises(mode, setup, out_dt, expect):
    """TPUSH<Pipe, Acc, FixpipeParams<NZ2ND, mode>>: the slot holds the fixpipe's output type
    (the library's FixpipeConsDType) and SET_QUANT_SCALAR's word scales it."""
    rows, cols = 16, 32
    size = np.dtype(np.int8 if out_dt == "int8" else np.float16).itemsize

    @pto.kernel(cores="mix")
    def kern(a, eye, words, out, fifo):
        with pto.TPipe(0, "DIR_C2V", rows * cols * size, 1, fifo) as pipe:
            if pto.is_cube():
                acc = multiply_into_acc(a, eye, rows, cols, cols)
                if setup == "vector":  # one word per column, staged L1 -> the fixpipe buffer
                    wm = pto.Tile("Mat", "uint64", 1, cols, blayout="RowMajor", slayout="NoneBox")
                    fb = pto.Tile("Scaling", "uint64", 1, cols, blayout="RowMajor",
                                  slayout="NoneBox")  # fmt: skip
                    pto.TASSIGN(wm, 0x10000)
                    pto.TLOAD(wm, pto.GlobalTensor(words, (1, cols)))
                    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
                    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
                    pto.TMOV(fb, wm)
                    pto.SET_QUANT_VECTOR(fb)
                elif setup is not None:
                    pto.SET_QUANT_SCALAR(setup, out_dt)
                pto.TPUSH(pipe, acc, "TILE_UP_DOWN", quant_mode=mode)
            else:
                half = pto.Tile("Vec", out_dt, rows // 2, cols)
                pto.TPOP(pipe, half, "TILE_UP_DOWN")
                pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                row = pto.get_subblockid() * (rows // 2)
                pto.TSTORE(pto.GlobalTensor(out, (rows // 2, cols), offset=row * cols), half)

    x = (np.arange(rows * cols).reshape(rows, cols) % 61 - 30).astype(np.float16)
    dev = pto.Device("a2")
    out = dev.gm_zeros((rows, cols), out_dt)
    fifo = dev.gm_zeros((rows * cols * size,), "int8")
    words = np.array([_word(s) for s in np.arange(cols) % 3 + 1], np.uint64).reshape(1, cols)
    eye = dev.gm_array(np.eye(cols, dtype=np.float16))
    run = dev.run(kern, dev.gm_array(x), eye, dev.gm_array(words), out, fifo)
    assert run.findings == [], [str(f) for f in run.findings]
    want = np.asarray(expect(x.astype(np.float64))).astype(out.numpy().dtype)
    assert np.array_equal(out.numpy(), want)


def test_set_quant_scalar_on_cpu_is_refused():
    @pto.kernel(cores="cube")
    def kern():
        pto.SET_QUANT_SCALAR(2.0, "int8")

    with pytest.raises(UnsupportedError, match="Atlas A2/A3 only"):
        pto.Device("cpu").run(kern)
