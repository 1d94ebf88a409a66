"""The 950 fixpipe's quantised stores (ptosim/isa/cube/quant.py; reference/cube_isa.md 3.5):
the scale is bits [31:13] of the word (a float32 with its low 13 mantissa bits dropped), the
offset bits [45:37] (9 bits, added as they are, as the a5 tstore_acc2gm golden reads them), bit
46 the int8 / uint8 choice; ReLU (ReluPreMode) before the quantisation. The 950-only outputs
(float8_e4m3, float, hifloat8) and the HiF8 encoding. Expected values: numpy, from the word
fields written here by hand."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptosim as pto
from tests.helpers.cube import multiply_into_acc

M, K, N = 16, 32, 16


def f32_bits(x: float) -> int:
    return int(np.array(x, np.float32).view(np.uint32))


def _acc_kernel(store):
    @pto.kernel(cores="cube")
    def kern(a, b, out, w=None):
        acc = multiply_into_acc(a, b, M, K, N)
        if w is None:
            store(pto.GlobalTensor(out, (M, N)), acc)
            return
        wm, fb = pto.Tile("Mat", "uint64", 1, N), pto.Tile("Scaling", "uint64", 1, N)
        pto.TLOAD(wm, pto.GlobalTensor(w, (1, N)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_FIX, 0)
        pto.TMOV(fb, wm)  # the quantisation words into the fixpipe buffer (PIPE_FIX)
        store(pto.GlobalTensor(out, (M, N)), acc, fb)

    return kern


def _ab(lo=-6, hi=7):
    rng = np.random.default_rng(11)
    a = rng.integers(lo, hi, (M, K)).astype(np.float16)
    b = rng.integers(lo, hi, (K, N)).astype(np.float16)
    return a, b, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64)


def _run(kern, out_dtype, *extra, device="950pr"):
    a, b, p = _ab()
    dev = pto.Device(device)
    out = dev.gm_zeros((M, N), out_dtype)
    args = [dev.gm_array(a), dev.gm_array(b), out] + [dev.gm_array(x) for x in extra]
    run = dev.run(kern, *args)
    assert run.findings == [], [str(f) for f in run.findings]
    return out.numpy(), p


def test_scalar_quant_to_int8_relus_scales_rounds_offsets_clamps():
    # scale 0.75, offset 3, signed int8
    word = f32_bits(0.75) | (3 << 37) | (1 << 46)
    kern = _acc_kernel(lambda g, acc: pto.TSTORE(g, acc, quant=word, relu="NormalRelu"))
    got, p = _run(kern, "int8")
    t = np.clip(np.rint(np.clip(np.maximum(p, 0) * 0.75, -256, 255)) + 3, -128, 127)  # even ties
    assert np.array_equal(got, t.astype(np.int8))
    assert (p * 0.75 % 1 == 0.5).any() and (p * 0.75 > 130).any()  # ties and clamps happen


def test_scalar_quant_to_uint8_clamps_to_0_255():
    word = f32_bits(2.0)  # bit 46 clear: unsigned
    kern = _acc_kernel(lambda g, acc: pto.TSTORE(g, acc, quant=word))
    got, p = _run(kern, "uint8")
    assert np.array_equal(got, np.clip(np.rint(np.clip(p * 2, -256, 255)), 0, 255).astype(np.uint8))


def test_vector_quant_scales_each_column_by_its_word_truncated_to_10_mantissa_bits():
    rng = np.random.default_rng(4)
    scales = rng.uniform(0.1, 2.0, N).astype(np.float32)
    words = scales.view(np.uint32).astype(np.uint64)  # low 13 bits set in most of them
    kept = (words & 0xFFFFE000).astype(np.uint32).view(np.float32).astype(np.float64)
    assert not np.array_equal(kept, scales)
    kern = _acc_kernel(lambda g, acc, fb: pto.TSTORE(g, acc, quant=fb))
    got, p = _run(kern, "bfloat16", words)
    want = (p * kept).astype(np.float32).astype(ml_dtypes.bfloat16)
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))


def test_scalar_quant_to_half_saturates_at_65504():
    word = f32_bits(1000.0)
    kern = _acc_kernel(lambda g, acc: pto.TSTORE(g, acc, quant=word))
    got, p = _run(kern, "float16")
    want = np.clip((p * 1000.0).astype(np.float32), -65504, 65504).astype(np.float16)
    assert np.array_equal(got, want) and (np.abs(got) == 65504).any()


def test_hifloat8_encoding_rounds_ties_away_and_overflows_to_infinity():
    from ptosim.hifloat8 import encode

    # 18 lies halfway between 16 (0x40) and 20 (0x41); 1.0625 between 1 (0x08) and 1.125
    # (0x09); 2^-23 halfway between 0 and the smallest denormal 2^-22 (0x01); 40000 is below
    # the midpoint (40960) of 2^15 (0x6E) and the 1.5 x 2^15 that 0x6F (inf) would be
    x = [18.0, -18.0, 22.0, 1.0625, 2.0**-23, 40000.0, 40960.0, 1e9, np.nan, -0.0, 19.0]
    want = [0x41, 0xC1, 0x42, 0x09, 0x01, 0x6E, 0x6F, 0x6F, 0x80, 0x00, 0x41]
    assert encode(np.array(x, np.float32)).tolist() == want


def test_hifloat8_encoding_agrees_with_en_dtypes():
    en = pytest.importorskip("en_dtypes")
    from ptosim.hifloat8 import encode

    rng = np.random.default_rng(0)
    x = (rng.standard_normal(20000) * 10.0 ** rng.integers(-8, 6, 20000)).astype(np.float32)
    assert np.array_equal(encode(x), x.astype(en.hifloat8).view(np.uint8))


def test_a_hifloat8_quantised_output_rounds_the_scaled_value():
    word = f32_bits(3.0)
    kern = _acc_kernel(lambda g, acc: pto.TSTORE(g, acc, quant=word))
    a, b, p = _ab()
    dev = pto.Device("950pr")
    out = dev.gm_zeros((M, N), "hifloat8")
    dev.run(kern, dev.gm_array(a), dev.gm_array(b), out)
    from ptosim.hifloat8 import TABLE

    got = TABLE[out.numpy().view(np.uint8)].astype(np.float64)
    y = p * 3.0
    # the nearest hifloat8 value, ties away from zero: no value is nearer than the one stored
    finite = np.unique(TABLE[np.isfinite(TABLE)].astype(np.float64))
    dist = np.abs(finite[None, :] - y.reshape(-1, 1))
    best = dist.min(axis=1).reshape(y.shape)
    assert np.array_equal(np.abs(got - y), best)
    tie = ((dist == best.reshape(-1, 1)).sum(axis=1) == 2).reshape(y.shape)
    assert tie.any() and np.all(np.abs(got[tie]) > np.abs(y[tie]))  # ties went away from zero


def test_a_quantised_store_on_cpu_stops_naming_the_form():
    kern = _acc_kernel(lambda g, acc: pto.TSTORE(g, acc, quant=f32_bits(1.0)))
    with pytest.raises(pto.UnsupportedError) as e:
        _run(kern, "int8", device="cpu")
    assert "preQuantScalar" in str(e.value)
