"""TCVT to and from hifloat8 on the 950 (a5): ties away whatever the mode, a5 saturation.

Expected bytes are worked out by hand from the HiF8 format (sign | dot | exponent | mantissa:
1.0 = 0x08 with the dot 0001 and a 3-bit mantissa, 2^15 = 0x6E, infinity 0x6F, NaN 0x80) and,
where the en_dtypes package is installed, compared with its hifloat8 casts (the library's own
golden generator uses them); none comes from ptosim.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.errors import PtoSimError
from tests.helpers.kernels import vec
from tests.helpers.layout import sync

N = 64


def _tcvt(src_dtype, dst_dtype, values, mode="CAST_RINT", sat=None, device="950pr"):
    """TCVT a 1 x 64 tile of ``values`` (given as the source's numpy values, or its bytes for
    hifloat8); the destination's storage comes back (bytes for hifloat8)."""
    dev = pto.Device(device)
    data = np.zeros(N, dtype=np.asarray(values).dtype)
    data[: len(values)] = values
    a = dev.gm_array(data.reshape(1, N), dtype=src_dtype)
    out = dev.gm_zeros((1, N), dst_dtype)

    @pto.kernel
    def k(a, out):
        s, d = vec(src_dtype, 1, N), vec(dst_dtype, 1, N)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x1000)
        pto.TLOAD(s, pto.GlobalTensor(a, (1, 1, 1, 1, N)))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TCVT(d, s, mode, sat)
        sync(pto.PIPE_V, pto.PIPE_MTE3)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 1, N)), d)

    dev.run(k, a, out)
    return out.numpy().ravel()[: len(values)]


# value -> hifloat8 byte, by hand: around 1.0 (dot 0001, 3 mantissa bits) the step is 1/8
BY_HAND = [
    (1.0, 0x08),
    (1.0625, 0x09),  # the tie between 1.0 and 1.125 goes away from zero (not to even 0x08)
    (-1.0625, 0x89),
    (1.1875, 0x0A),  # the tie between 1.125 and 1.25
    (0.0, 0x00),
    (2.0**15, 0x6E),  # the largest finite value
    (float("nan"), 0x80),
]


@pytest.mark.parametrize("src", ["float32", "half"])
@pytest.mark.parametrize("mode", ["CAST_RINT", "CAST_ROUND", "CAST_TRUNC"])
def test_to_hifloat8_rounds_ties_away_whatever_the_mode(src, mode):
    vals = np.array([v for v, _ in BY_HAND], dtype=np.float32 if src == "float32" else np.float16)
    got = _tcvt(src, "hifloat8", vals, mode)
    assert got.tolist() == [b for _, b in BY_HAND]


def test_to_hifloat8_saturates_by_default_and_overflows_with_sat_off():
    vals = np.array([40000.0, 1e6, -1e6, np.inf, -np.inf], np.float32)
    # sat ON (a5 default): every magnitude past 2^15 clamps to +-2^15 (0x6E / 0xEE)
    assert _tcvt("float32", "hifloat8", vals).tolist() == [0x6E, 0x6E, 0xEE, 0x6E, 0xEE]
    # sat OFF: below 1.5 x 2^15 (49152) rounds to 2^15, from there on infinity 0x6F / 0xEF
    off = _tcvt("float32", "hifloat8", vals, sat="OFF")
    assert off.tolist() == [0x6E, 0x6F, 0xEF, 0x6F, 0xEF]


def test_from_hifloat8_reads_the_format():
    got = _tcvt("hifloat8", "float32", np.array([0x08, 0x09, 0x89, 0x6E, 0x6F, 0x00], np.uint8))
    np.testing.assert_array_equal(got, np.array([1.0, 1.125, -1.125, 2.0**15, np.inf, 0.0]))


def test_hifloat8_conversions_agree_with_en_dtypes():
    en = pytest.importorskip("en_dtypes")
    rng = np.random.default_rng(11)
    # magnitudes across the whole exponent range, both signs, in 64-element batches
    x = (rng.standard_normal(4 * N) * 2.0 ** rng.integers(-24, 16, 4 * N)).astype(np.float32)
    for part in x.reshape(-1, N):
        want = part.astype(en.hifloat8).view(np.uint8)
        np.testing.assert_array_equal(_tcvt("float32", "hifloat8", part, sat="OFF"), want)
    for part in np.arange(256, dtype=np.uint8).reshape(-1, N):
        want = part.view(en.hifloat8).astype(np.float32)
        np.testing.assert_array_equal(_tcvt("hifloat8", "float32", part), want)


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_hifloat8_tcvt_refused_where_the_target_has_none(device):
    with pytest.raises(PtoSimError, match="hifloat8"):
        _tcvt("float32", "hifloat8", np.ones(4, np.float32), device=device)


# -- the codec (ptosim/hifloat8.py) against a brute-force formulation ------------------------
def _nearest_by_search(x: float) -> int:
    """The hifloat8 byte nearest x among all finite patterns of x's sign (ties: the larger
    magnitude), found by scanning the 256 decoded values."""
    from ptosim.hifloat8 import TABLE

    best, gap = 0, float("inf")
    for b in range(256):
        v = float(TABLE[b])
        if not np.isfinite(v) or (v != 0 and (v < 0) != (x < 0)):
            continue
        d = abs(v - x)
        if d < gap or (d == gap and abs(v) > abs(float(TABLE[best]))):
            best, gap = b, d
    return best


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-(2.0**15), max_value=2.0**15, allow_nan=False, width=32))
def test_hifloat8_encode_is_the_nearest_value_ties_away(x):
    from ptosim.hifloat8 import encode

    assert int(encode(np.float32(x))) == _nearest_by_search(float(np.float32(x)))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 255))
def test_hifloat8_decode_then_encode_is_the_identity(b):
    from ptosim.hifloat8 import decode, encode

    v = decode(np.array([b], np.uint8))
    if b == 0x80:  # the NaN pattern comes back as itself
        assert int(encode(v)[0]) == 0x80
    else:
        assert int(encode(v)[0]) == b
