"""fp4 (float4_e2m1x2_t, float4_e1m2x2_t) and float8_e8m0: the codecs, the 950's TCVT bf16 <->
fp4 and its fp4 TLOAD/TSTORE (columns counted in nibbles, two per byte, the first low).

Expected values: the OCP MX value lists written out by hand, ml_dtypes' float4_e2m1fn and
float8_e8m0fnu (checked here to be those formats bit for bit), en_dtypes' float4_e1m2 where
installed, and rounding worked by hand on the 8-value grids; none comes from ptosim.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim import nibbles
from ptosim.errors import PtoSimError
from tests.helpers.kernels import tcvt_only, vec
from tests.helpers.layout import sync

E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]  # OCP MX E2M1 magnitudes, fields 0..7
E1M2 = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]  # E1M2 (bias 1), fields 0..7
GRID = {"float4_e2m1": E2M1, "float4_e1m2": E1M2}


@pytest.mark.parametrize("name", sorted(GRID))
def test_fp4_tables_are_the_format(name):
    mags = GRID[name]
    want = mags + [-m for m in mags]  # bit 3 is the sign
    got = nibbles.float4_table(name)
    assert got.tolist() == want
    assert np.signbit(got[8]) and not np.signbit(got[0])  # field 8 is -0


def test_e2m1_agrees_with_ml_dtypes_float4_e2m1fn():
    fields = np.arange(16, dtype=np.uint8)
    want = fields.view(ml_dtypes.float4_e2m1fn).astype(np.float64)
    np.testing.assert_array_equal(nibbles.float4_table("float4_e2m1"), want)


def test_e1m2_agrees_with_en_dtypes():
    en = pytest.importorskip("en_dtypes")
    want = np.arange(16, dtype=np.uint8).view(en.float4_e1m2).astype(np.float64)
    np.testing.assert_array_equal(nibbles.float4_table("float4_e1m2"), want)


def test_e8m0_is_ml_dtypes_float8_e8m0fnu():
    assert D.dtype("float8_e8m0_t") is D.float8_e8m0 and D.float8_e8m0 not in D.ALL
    b = np.array([0, 1, 126, 127, 128, 254, 255], np.uint8)
    got = b.view(D.float8_e8m0.np).astype(np.float64)
    want = [2.0**-127, 2.0**-126, 0.5, 1.0, 2.0, 2.0**127, np.nan]  # 2^(b - 127), 0xFF NaN
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(GRID)), st.lists(st.integers(0, 15), min_size=1, max_size=16))
def test_fp4_fields_round_trip(name, fields):
    values = nibbles.float4_table(name)[fields]
    assert nibbles.float4_fields(values, name).tolist() == fields


# -- the 950's TCVT ------------------------------------------------------------------------
def _bf16_to_fp4(dst: str, values, mode="CAST_RINT", rows=1, cols=64, valid=None):
    """TCVT a rows x cols bf16 tile to fp4 (valid: its dynamic valid shape); the fp4 tile's
    GM bytes come back, rows x cols / 2 (pre-filled with 0x5A)."""
    dev = pto.Device("950pr")
    x = np.asarray(values, np.float32).astype(ml_dtypes.bfloat16).reshape(rows, cols)
    a = dev.gm_array(x)
    out = dev.gm_array(np.full((rows, cols // 2), 0x5A, np.uint8))
    vr, vc = valid or (rows, cols)

    @pto.kernel
    def k(a, out):
        s, d = vec("bfloat16", rows, cols), vec(dst, rows, cols)
        s.set_valid(vr, vc)
        d.set_valid(vr, vc)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x1000)
        pto.TLOAD(s, pto.GlobalTensor(a, (1, 1, 1, vr, cols)))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TCVT(d, s, mode)
        sync(pto.PIPE_V, pto.PIPE_MTE3)
        d.set_valid(vr, cols)  # store every byte of the valid rows
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, vr, cols), dtype=dst), d)

    dev.run(k, a, out)
    return out.numpy()


def _packed(fields) -> list[int]:
    return [fields[i] | fields[i + 1] << 4 for i in range(0, len(fields), 2)]


# value -> E2M1 field under RINT, by hand: ties go to the even field (2.5 between fields 4 and
# 5 -> 4; 5.0 between 6 and 7 -> 6; 0.25 between 0 and 1 -> 0), beyond 6 saturates to field 7
E2M1_RINT = [
    (2.5, 4), (5.0, 6), (0.25, 0), (0.75, 2), (1.25, 2), (7.0, 7), (100.0, 7), (-100.0, 15),
    (-2.5, 12), (-0.25, 8), (3.0, 5), (1.75, 4),
]  # fmt: skip
E2M1_FLOOR = [(2.9, 4), (-2.1, 13), (0.4, 0), (5.9, 6), (-0.1, 9)]  # toward -inf


def test_bf16_to_e2m1_rint_ties_to_even_and_saturates():
    vals = [v for v, _ in E2M1_RINT] + [0.0] * (64 - len(E2M1_RINT))
    got = _bf16_to_fp4("float4_e2m1", vals)
    fields = [f for _, f in E2M1_RINT] + [0] * (64 - len(E2M1_RINT))
    assert got[0].tolist() == _packed(fields)


def test_bf16_to_e2m1_floor():
    vals = [v for v, _ in E2M1_FLOOR] + [0.0] * (64 - len(E2M1_FLOOR))
    got = _bf16_to_fp4("float4_e2m1", vals, "CAST_FLOOR")
    fields = [f for _, f in E2M1_FLOOR] + [0] * (64 - len(E2M1_FLOOR))
    assert got[0].tolist() == _packed(fields)


def test_bf16_to_e1m2_steps_of_a_quarter():
    vals = [0.3, 0.375, 0.625, 1.1, 1.125, 2.0, -1.9] + [0.0] * 57
    # 0.3 -> 0.25 (f1); 0.375 tie of f1/f2 -> f2; 0.625 tie f2/f3 -> f2; 1.1 -> 1.0 (f4);
    # 1.125 tie f4/f5 -> f4; 2.0 saturates to 1.75 (f7); -1.9 -> -1.75 (f15)
    want = [1, 2, 2, 4, 4, 7, 15] + [0] * 57
    assert _bf16_to_fp4("float4_e1m2", vals)[0].tolist() == _packed(want)


def test_bf16_to_fp4_rows_follow_each_other_and_odd_valid_cols_leave_the_last_nibble_zero():
    rows, cols = 2, 64
    vals = np.full((rows, cols), 1.0, np.float32)  # E2M1 field 2 everywhere
    got = _bf16_to_fp4("float4_e2m1", vals, rows=rows, cols=cols, valid=(rows, 5))
    # each row: bytes 0-1 hold columns 0-3 (0x22), byte 2 column 4 alone (its pair is past
    # the valid columns: the byte is zeroed, then not written), the rest of the row zeroed
    row = [0x22, 0x22, 0x00] + [0x00] * 29
    assert got.tolist() == [row, row]


@pytest.mark.parametrize("name", sorted(GRID))
def test_fp4_to_bf16_reads_every_field(name):
    dev = pto.Device("950pr")
    fields = list(range(16)) * 4  # 64 elements
    a = dev.gm_array(np.array(_packed(fields), np.uint8).reshape(1, 32))
    out = dev.gm_zeros((1, 64), "bfloat16")

    @pto.kernel
    def k(a, out):
        s, d = vec(name, 1, 64), vec("bfloat16", 1, 64)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x1000)
        pto.TLOAD(s, pto.GlobalTensor(a, (1, 1, 1, 1, 64), dtype=name))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TCVT(d, s, "CAST_NONE")
        sync(pto.PIPE_V, pto.PIPE_MTE3)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 1, 64)), d)

    dev.run(k, a, out)
    mags = GRID[name]
    want = [mags[f & 7] * (-1 if f & 8 else 1) for f in fields]
    assert out.numpy().astype(np.float64).ravel().tolist() == want


def test_fp4_tcvt_refused_on_a2():
    with pytest.raises(PtoSimError, match="float4_e2m1"):
        tcvt_only("a2", vec("float4_e2m1", 1, 64), vec("bfloat16", 1, 64))


def test_fp4_transfer_at_an_odd_element_offset_is_refused():
    dev = pto.Device("950pr")
    a = dev.gm_array(np.zeros((1, 64), np.uint8))

    @pto.kernel
    def k(a):
        s = vec("float4_e2m1", 1, 64)
        pto.TASSIGN(s, 0)
        pto.TLOAD(s, pto.GlobalTensor(a, (1, 1, 1, 1, 64), offset=1, dtype="float4_e2m1"))

    with pytest.raises(PtoSimError, match="packed-bytes"):
        dev.run(k, a)
