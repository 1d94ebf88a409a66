"""cpu: int4b_t (one element per byte) and fp4 (two per byte) through TLOAD, TCVT and TSTORE as
the CPU simulator converts them (cpu/TCvt.hpp): sat ON clamps to its limits, float sources are
rounded to an integral value by the mode, fp4 is encoded by truncating the mantissa with the
exponent field taken modulo its width.

Expected fields are worked out by hand from the formats (value = 2^(e - 1) * (1 + m / 2^M),
bias 1), not by ptosim.
"""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import vec

N = 64


def _to_4bit(dst: str, values, mode="CAST_RINT", sat=None):
    """TCVT a 1 x 64 float32 tile to ``dst`` on cpu; the GM bytes of the result."""
    dev = pto.Device("cpu")
    x = np.zeros(N, np.float32)
    x[: len(values)] = values
    a = dev.gm_array(x.reshape(1, N))
    nbytes = N if dst == "int4" else N // 2
    out = dev.gm_array(np.full((1, nbytes), 0x5A, np.uint8))

    @pto.kernel
    def k(a, out):
        s, d = vec("float32", 1, N), vec(dst, 1, N)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x1000)
        pto.TLOAD(s, pto.GlobalTensor(a, (1, 1, 1, 1, N)))
        pto.TCVT(d, s, mode, sat)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 1, N), dtype=dst), d)

    dev.run(k, a, out)
    return out.numpy().ravel()


def test_int4_is_one_element_per_byte_clamped_after_rounding():
    vals = [2.5, 3.5, -2.5, 7.6, -9.0, 100.0, 0.4]
    got = _to_4bit("int4", vals)
    # rint: 2, 4, -2, 8 -> 7, -9 -> -8, 100 -> 7, 0; each byte holds v & 0xF
    want = [2, 4, 14, 7, 8, 7, 0]
    assert got[: len(vals)].tolist() == want
    assert got[len(vals) :].tolist() == [0] * (N - len(vals))  # zeros converted, whole bytes


def test_e2m1_truncates_and_wraps_past_its_range():
    vals = [5.0, 7.0, 8.0, -3.0, 0.5, 1.0]
    # RINT first (5, 7, 8, -3, 0 (ties to even), 1); then the fields: 5 = 1.25 x 2^2 ->
    # exponent 3, mantissa bit 0 (truncated) -> 0b0110 = 6; 7 = 1.75 x 2^2 -> 0b0111 = 7;
    # 8 = 2^3 -> exponent 4, which wraps to 0 -> field 0; -3 = -1.5 x 2 -> 0b1101;
    # 0 -> 0; 1 = 2^0 -> exponent 1 -> 0b0010
    fields = [6, 7, 0, 13, 0, 2]
    got = _to_4bit("float4_e2m1", vals)
    want = [fields[i] | fields[i + 1] << 4 for i in range(0, len(fields), 2)]
    assert got[:3].tolist() == want


def test_e2m1_saturates_to_the_simulator_limits_when_asked():
    # sat ON clamps to [-6, 6] first: 8 -> 6 = 1.5 x 2^2 -> 0b0111; -100 -> -6 -> 0b1111
    got = _to_4bit("float4_e2m1", [8.0, -100.0], sat="ON")
    assert got[0] == (7 | 15 << 4)


def test_e1m2_limits_are_the_simulators_own():
    # sat ON clamps e1m2 to [-4, 3.5] (its SafeLimits), then RINT: 3.5 -> 4 = 2^2 -> exponent
    # 3, wrapping to 1 (one bit) with mantissa 0 -> field 0b0100 = 4; 1 -> exponent 1 -> 4
    got = _to_4bit("float4_e1m2", [100.0, 1.0], sat="ON")
    assert got[0] == (4 | 4 << 4)


@pytest.mark.parametrize(
    "mode,want", [("CAST_RINT", [2.0, 2.0, -0.0]), ("CAST_NONE", [1.5, 2.0, -0.5])]
)
def test_fp4_to_float_rounds_to_an_integral_value_by_the_mode(mode, want):
    dev = pto.Device("cpu")
    # e2m1 fields 3 (1.5), 4 (2.0), 9 (-0.5), packed two per byte, the first low
    raw = np.zeros((1, N // 2), np.uint8)
    raw[0, :2] = [3 | 4 << 4, 9]
    a = dev.gm_array(raw)
    out = dev.gm_zeros((1, N), "float32")

    @pto.kernel
    def k(a, out):
        s, d = vec("float4_e2m1", 1, N), vec("float32", 1, N)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x1000)
        pto.TLOAD(s, pto.GlobalTensor(a, (1, 1, 1, 1, N), dtype="float4_e2m1"))
        pto.TCVT(d, s, mode)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 1, N)), d)

    dev.run(k, a, out)
    got = out.numpy().ravel()[:3]
    assert got.tolist() == want and np.signbit(got[2]) == np.signbit(want[2])
