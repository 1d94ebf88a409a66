"""The 950 cube's 8-bit float mads (reference/cube_isa.md 3.4: a5 TMatmul takes e4m3 / e5m2 in
any pairing and hifloat8 x hifloat8, into a float accumulator), and the hifloat8 values the mad
reads, checked against values worked out here by hand from the published HiF8 format."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import ConstraintError
from tests.helpers.cube import multiply_into_acc

M, K, N = 16, 64, 32

# hifloat8 bytes and their values, worked out by hand (sign | dot | exponent | mantissa)
HIF8_BY_HAND = {
    0x00: 0.0,  # denormal field, m = 0: zero
    0x01: 2.0**-22,  # 0 0000 001: denormal 2^(1-23)
    0x07: 2.0**-16,  # 0 0000 111
    0x08: 1.0,  # 0 0001 000: D = 0, exponent 0
    0x0C: 1.5,  # 0 0001 100
    0x10: 2.0,  # 0 001 0 000: D = 1, exponent +1
    0x18: 0.5,  # 0 001 1 000: exponent -1
    0x20: 4.0,  # 0 01 00 000: D = 2, exponent +(2+0)
    0x38: 0.125,  # 0 01 11 000: exponent -(2+1)
    0x40: 16.0,  # 0 10 000 00: D = 3, exponent +4
    0x43: 28.0,  # 0 10 000 11: 16 * 1.75
    0x60: 256.0,  # 0 11 0000 0: D = 4, exponent +8
    0x6E: 32768.0,  # 0 11 0111 0: exponent +15
    0x6F: np.inf,  # exponent +15, mantissa 1: infinity
    0xEF: -np.inf,
    0x88: -1.0,
    0xA0: -4.0,
}


def test_hifloat8_values_match_the_format_worked_by_hand():
    from ptosim.hifloat8 import decode

    keys = np.array(sorted(HIF8_BY_HAND), np.uint8)
    got = decode(keys)
    assert np.array_equal(got, np.array([HIF8_BY_HAND[int(k)] for k in keys], np.float32))
    assert np.isnan(decode(np.array([0x80], np.uint8)))[0]  # negative zero pattern is NaN


def test_hifloat8_values_agree_with_en_dtypes_on_all_256_bytes():
    en = pytest.importorskip("en_dtypes")
    from ptosim.hifloat8 import TABLE

    want = np.arange(256, dtype=np.uint8).view(en.hifloat8).astype(np.float32)
    assert np.array_equal(TABLE, want, equal_nan=True)


def _kernel(da, db, m=M, k=K, n=N):
    @pto.kernel(cores="cube")
    def gemm(a, b, c):
        acc = multiply_into_acc(a, b, m, k, n, da, db)
        pto.TSTORE(pto.GlobalTensor(c, (m, n)), acc)

    return gemm


def _fp8(rng, np_dtype, shape):
    """Random fp8 values with magnitudes in [1/16, 16]: every product and every sum of 64 of
    them lies on a grid that float64 holds exactly, so the one rounding is the final one."""
    mag = rng.uniform(1 / 16, 16, shape) * rng.choice([-1, 1], shape)
    return mag.astype(np_dtype)


@pytest.mark.parametrize(
    "da,db",
    [("float8_e4m3", "float8_e4m3"), ("float8_e4m3", "float8_e5m2"),
     ("float8_e5m2", "float8_e4m3"), ("float8_e5m2", "float8_e5m2")],
)  # fmt: skip
def test_fp8_mads_on_950_round_the_exact_sum_once(da, db):
    rng = np.random.default_rng(3)
    npt = {"float8_e4m3": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}
    a, b = _fp8(rng, npt[da], (M, K)), _fp8(rng, npt[db], (K, N))
    dev = pto.Device("950pr")
    c = dev.gm_zeros((M, N), "float32")
    run = dev.run(_kernel(da, db), dev.gm_array(a), dev.gm_array(b), c)
    assert run.findings == []
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    assert np.array_equal(c.numpy(), want)


def test_a_hifloat8_mad_on_950_multiplies_the_decoded_values():
    rng = np.random.default_rng(5)
    keys = np.array([k for k, v in HIF8_BY_HAND.items() if np.isfinite(v) and abs(v) < 1000])
    ia, ib = rng.integers(0, len(keys), (M, K)), rng.integers(0, len(keys), (K, N))
    vals = np.array([HIF8_BY_HAND[int(k)] for k in keys], np.float64)
    dev = pto.Device("950dt")
    c = dev.gm_zeros((M, N), "float32")
    a = dev.gm_array(keys[ia].astype(np.uint8), dtype="hifloat8")
    b = dev.gm_array(keys[ib].astype(np.uint8), dtype="hifloat8")
    run = dev.run(_kernel("hifloat8", "hifloat8"), a, b, c)
    assert run.findings == []
    assert np.array_equal(c.numpy(), (vals[ia] @ vals[ib]).astype(np.float32))


def test_a_950_mad_of_hifloat8_with_fp8_is_refused_at_its_line():
    dev = pto.Device("950pr")
    a = dev.gm_zeros((M, K), "float8_e4m3")
    b = dev.gm_zeros((K, N), "hifloat8")
    with pytest.raises(ConstraintError) as exc:
        dev.run(_kernel("float8_e4m3", "hifloat8"), a, b, dev.gm_zeros((M, N), "float32"))
    assert exc.value.code == "PTO101" and "same-dtype" in str(exc.value)
    assert "cube.py:" in str(exc.value)  # the TMATMUL line of the helper that issues it
