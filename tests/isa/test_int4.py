"""int4b_t: the packed signed 4-bit dtype, its nibble codec and the a2a3 TCVT f16 <-> s4.

Expected values are derived by hand from the format (two's complement in four bits, the even
column in the low nibble, a2a3 rows keeping the tile's row stride in bytes) and from numpy
rounding (np.rint, np.floor ...) followed by a clamp to [-8, 7]; none comes from ptosim.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim import nibbles
from ptosim.errors import ConstraintError, KernelError, PtoSimError
from tests.helpers.kernels import tcvt_only, vec
from tests.helpers.layout import sync

# the sixteen 4-bit fields and their int4 values, written out from the format definition
FIELD_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1]


def test_int4_dtype_resolves_by_its_names():
    for name in ("int4b_t", "int4", "s4"):
        dt = D.dtype(name)
        assert dt is D.int4 and dt.packed and dt.bits == 4 and dt.size_bytes == 1
    assert D.int4 not in D.ALL  # listed by name where a target handles it
    with pytest.raises(KernelError, match="int3"):
        D.dtype("int3")


def test_int4_values_of_every_field():
    fields = np.arange(16, dtype=np.uint8)
    assert nibbles.int4_values(fields).tolist() == FIELD_VALUES
    assert nibbles.int4_fields(np.array(FIELD_VALUES)).tolist() == list(range(16))


def test_pack_low_nibble_first():
    # 1 then -1 (field 0xF) -> 0xF1; -8 (0x8) then 7 -> 0x78
    assert nibbles.pack_bytes(nibbles.int4_fields([1, -1, -8, 7])).tolist() == [0xF1, 0x78]
    assert nibbles.int4_values(nibbles.unpack_bytes([0xF1, 0x78])).tolist() == [1, -1, -8, 7]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-8, 7), min_size=0, max_size=40).filter(lambda v: len(v) % 2 == 0))
def test_int4_pack_round_trip(values):
    packed = nibbles.pack_bytes(nibbles.int4_fields(values))
    # an independent formulation: byte k = (v[2k] mod 16) + 16 * (v[2k+1] mod 16)
    want = [(values[2 * k] % 16) + 16 * (values[2 * k + 1] % 16) for k in range(len(values) // 2)]
    assert packed.tolist() == want
    assert nibbles.int4_values(nibbles.unpack_bytes(packed)).tolist() == values


def _s4_bytes(values) -> list[int]:
    """Hand packing of int4 values, two per byte, low nibble first."""
    return [(values[i] % 16) | (values[i + 1] % 16) << 4 for i in range(0, len(values), 2)]


def _f16_to_s4(device, src: np.ndarray, mode: str, cols: int = 64):
    """TCVT a (rows, cols) half array to int4 the way the library's a2a3 test does: the int4
    tile aliases a uint8 tile (TRESHAPE), whose bytes (pre-filled with 0x5A) come back."""
    rows = src.shape[0]
    dev = pto.Device(device)
    a = dev.gm_array(src.astype(np.float16))
    out = dev.gm_array(np.full((rows, cols), 0x5A, np.uint8))

    @pto.kernel
    def k(a, out):
        s = vec("half", rows, cols)
        q = vec("int4b_t", rows, cols)
        b = vec("uint8", rows, cols)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(q, 0x8000)
        pto.TASSIGN(b, 0x8000)
        pto.TRESHAPE(b, q)
        gb = pto.GlobalTensor(out, (1, 1, 1, rows, cols))
        pto.TLOAD(b, gb)
        pto.TLOAD(s, pto.GlobalTensor(a, (1, 1, 1, rows, cols)))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TCVT(q, s, mode)
        sync(pto.PIPE_V, pto.PIPE_MTE3)
        pto.TSTORE(gb, b)

    dev.run(k, a, out)
    return out.numpy()


ROUNDERS = {
    "CAST_RINT": np.rint,
    "CAST_FLOOR": np.floor,
    "CAST_CEIL": np.ceil,
    "CAST_TRUNC": np.trunc,
    "CAST_ROUND": lambda x: np.trunc(x + np.copysign(0.5, x)),  # ties away from zero
    "CAST_NONE": np.rint,  # the plain vconv_f162s4: nearest even (the spec's choice)
}


@pytest.mark.parametrize("device", ["a2", "a3"])
@pytest.mark.parametrize("mode", sorted(ROUNDERS))
def test_a2a3_f16_to_s4_rounds_saturates_and_packs_by_row(device, mode):
    rng = np.random.default_rng(7)
    specials = [2.5, -2.5, 3.5, -0.5, 7.4, 7.6, -8.6, 100.0, -100.0, 0.25]
    vals = np.concatenate([specials, rng.uniform(-12, 12, 2 * 64 - len(specials))])
    src = vals.astype(np.float16).reshape(2, 64)
    got = _f16_to_s4(device, src, mode)
    q = np.clip(ROUNDERS[mode](src.astype(np.float64)), -8, 7).astype(int)
    want = np.full((2, 64), 0x5A, np.uint8)  # row r's 32 bytes at byte r * 64, the rest kept
    for r in range(2):
        want[r, :32] = _s4_bytes(q[r].tolist())
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("device", ["a2", "a3"])
def test_a2a3_s4_to_f16_reads_each_nibble_signed(device):
    rows, cols = 2, 64
    rng = np.random.default_rng(3)
    vals = rng.integers(-8, 8, (rows, cols))
    raw = np.full((rows, cols), 0x33, np.uint8)  # the unused half of each row: ignored
    for r in range(rows):
        raw[r, :32] = _s4_bytes(vals[r].tolist())
    dev = pto.Device(device)
    a = dev.gm_array(raw)
    out = dev.gm_zeros((rows, cols), "half")

    @pto.kernel
    def k(a, out):
        b = vec("uint8", rows, cols)
        q = vec("int4b_t", rows, cols)
        h = vec("half", rows, cols)
        pto.TASSIGN(b, 0)
        pto.TASSIGN(q, 0)
        pto.TASSIGN(h, 0x8000)
        pto.TRESHAPE(q, b)
        pto.TLOAD(b, pto.GlobalTensor(a, (1, 1, 1, rows, cols)))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TCVT(h, q, "CAST_NONE")
        sync(pto.PIPE_V, pto.PIPE_MTE3)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, rows, cols)), h)

    dev.run(k, a, out)
    np.testing.assert_array_equal(out.numpy(), vals.astype(np.float16))


def test_int4_tcvt_refused_where_the_target_has_no_int4():
    with pytest.raises(PtoSimError, match="int4"):
        tcvt_only("950pr", vec("int4b_t", 1, 64), vec("half", 1, 64))


def test_int4_pairs_other_than_half_are_refused_on_a2a3():
    with pytest.raises(PtoSimError, match="conversion-pair"):
        tcvt_only("a2", vec("int4b_t", 1, 64), vec("float32", 1, 64))


def test_int4_tile_must_be_row_major():
    # nibbles.py places elements along RowMajor rows; a2a3's vector operands are all RowMajor
    with pytest.raises(ConstraintError, match="'row-major'"):
        tcvt_only("a2", vec("int4b_t", 64, 32, layout="ColMajor"), vec("half", 64, 32))
