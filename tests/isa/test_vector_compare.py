"""TCMP, TCMPS, TSEL, TSELS (vector_isa.md 3.19, 3.20, 4 items 4 and 5).

Expected masks are packed here bit by bit with Python loops (bit b of byte k of row i = column
8k + b), independently of numpy's packbits; selections are computed element by element.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.errors import ConstraintError
from tests.helpers.kernels import vec

DEV = {"cpu": "cpu", "a2a3": "a2", "a5": "950pr"}
MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")
PY = {
    "EQ": lambda a, b: a == b,
    "NE": lambda a, b: a != b,
    "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b,
    "GT": lambda a, b: a > b,
    "GE": lambda a, b: a >= b,
}
FILL = 0xA5


def run(devname, tiles, loads, body):
    """TASSIGN tiles at 4 KiB steps; fill every tile's bytes with 0xA5 then TLOAD (tile, data)
    pairs over their valid region; MTE2 -> V; body()."""
    dev = pto.Device(devname)
    fills, bufs = [], []
    for t in tiles:
        raw = np.full(t.geom.size_bytes, FILL, np.uint8).view(t.dtype.np)
        fills.append((vec(t.dtype, t.rows, t.cols), dev.gm_array(raw.reshape(t.rows, t.cols))))
    for t, d in loads:
        bufs.append(dev.gm_array(np.ascontiguousarray(d[: t.valid_row, : t.valid_col])))

    @pto.kernel
    def k():
        for n, t in enumerate(tiles):
            pto.TASSIGN(t, 0x1000 * n)
            pto.TASSIGN(fills[n][0], 0x1000 * n)
        for w, g in fills:
            pto.TLOAD(w, pto.GlobalTensor(g, (1, 1, 1, w.rows, w.cols)))
        for (t, _), b in zip(loads, bufs):
            pto.TLOAD(t, pto.GlobalTensor(b, (1, 1, 1, t.valid_row, t.valid_col)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        body()

    return dev.run(k)


def raw_bytes(r, t):
    return np.ascontiguousarray(r.tile_storage(t)).view(np.uint8).reshape(t.rows, -1)


def pack_row(flags, nbytes):
    out = [0] * nbytes
    for j, f in enumerate(flags):
        if f:
            out[j // 8] |= 1 << (j % 8)
    return np.array(out, dtype=np.uint8)


# -- TCMP ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_cpu_tcmp_u8_and_u32_pack_lsb_first_and_zero_the_rest(mode):
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 3, (4, 40)).astype(np.float32)
    b = rng.integers(-3, 3, (4, 40)).astype(np.float32)
    a[0, 0] = np.nan
    s0, s1 = vec("float32", 4, 48, valid=(4, 40)), vec("float32", 4, 48, valid=(4, 40))
    for ddt, bits in (("uint8", 8), ("uint32", 32)):
        d = vec(ddt, 4, 32 // np.dtype(ddt).itemsize * 2, valid=(4, 2))
        r = run("cpu", [s0, s1, d], [(s0, a), (s1, b)], lambda d=d: pto.TCMP(d, s0, s1, mode))
        got = raw_bytes(r, d)
        words = min(-(-40 // bits), 2)
        for i in range(4):
            flags = [PY[mode](float(a[i, j]), float(b[i, j])) for j in range(40)]
            want = np.zeros(got.shape[1], np.uint8)
            nb = words * bits // 8
            want[:nb] = pack_row(flags[: words * bits], nb)
            np.testing.assert_array_equal(got[i], want)


def test_a2a3_tcmp_writes_whole_repeats_with_garbage_bits_past_c():
    # f32: E = 64; C = 40 -> one repeat per row compares 64 elements (24 of row padding)
    a = np.zeros((2, 64), np.float32)
    a[:, :40] = np.arange(80).reshape(2, 40) % 3
    s0, s1 = vec("float32", 2, 64, valid=(2, 40)), vec("float32", 2, 64, valid=(2, 40))
    d = vec("uint8", 2, 32, valid=(2, 8))
    r = run("a2", [s0, s1, d], [(s0, a), (s1, a)], lambda: pto.TCMP(d, s0, s1, "EQ"))
    got = raw_bytes(r, d)
    pad = np.full((), 0xA5A5A5A5, np.uint32).view(np.float32)  # the padding: equal -> 1
    for i in range(2):
        flags = [True] * 40 + [bool(pad == pad)] * 24
        np.testing.assert_array_equal(got[i, :8], pack_row(flags, 8))
        assert np.all(got[i, 8:] == FILL)  # past E/8 bytes: untouched
    r2 = run("950pr", [s0, s1, d], [(s0, a), (s1, a)], lambda: pto.TCMP(d, s0, s1, "EQ"))
    got = raw_bytes(r2, d)
    want = pack_row([True] * 40, 16)  # a5: zeros past C, 16 bytes per store
    np.testing.assert_array_equal(got[0, :16], want)


def test_a2a3_tcmp_int32_always_eq_and_ne_inverts_whole_rows():
    a = np.array([[1, 2, 3, 4] * 16], np.int32)
    b = np.array([[2, 2, 2, 2] * 16], np.int32)
    s0, s1, d = vec("int32", 1, 64), vec("int32", 1, 64), vec("uint8", 1, 32, valid=(1, 8))
    eq = pack_row([x == y for x, y in zip(a[0], b[0])], 8)
    lt = pack_row([x < y for x, y in zip(a[0], b[0])], 8)
    r = run("a2", [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMP(d, s0, s1, "LT"))
    np.testing.assert_array_equal(raw_bytes(r, d)[0, :8], eq)  # LT ignored on int32
    r = run("950pr", [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMP(d, s0, s1, "LT"))
    np.testing.assert_array_equal(raw_bytes(r, d)[0, :8], lt)
    r = run("a2", [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMP(d, s0, s1, "NE"))
    got = raw_bytes(r, d)[0]
    np.testing.assert_array_equal(got[:8], ~eq)
    assert np.all(got[8:] == (~np.uint8(FILL)))  # vnot covers the whole mask row


def test_a2a3_tcmp_trace_repeats_and_ne_vnot():
    a = np.ones((3, 64), np.float32)
    s0, s1, d = vec("float32", 3, 64), vec("float32", 3, 64), vec("uint8", 3, 32, valid=(3, 8))
    for mode, tail in (("GE", None), ("NE", "vnot")):
        r = run("a2", [s0, s1, d], [(s0, a), (s1, a)], lambda m=mode: pto.TCMP(d, s0, s1, m))
        ev = [e for e in r.trace.events if e.opcode == "TCMP" and e.args.get("intrinsic")]
        names = [e.args["intrinsic"] for e in ev]
        op = "vcmpv_" + ("eq" if mode == "NE" else "ge")
        assert names[:3] == [op] * 3 and all(e.args["repeats"] == 1 for e in ev[:3])
        assert (names[3:] == ["vnot"]) == (tail == "vnot")


# -- TCMPS -----------------------------------------------------------------------------------
def test_cpu_tcmps_eq_tolerance_and_npu_exact():
    a = np.zeros((1, 64), np.float32)
    a[0, :3] = [1e-10, 0.0, -5e-10]
    s0, d = vec("float32", 1, 64), vec("uint8", 1, 32, valid=(1, 8))
    for devname, want0 in (("cpu", 0b111), ("950pr", 0b010)):
        r = run(devname, [s0, d], [(s0, a)], lambda: pto.TCMPS(d, s0, 0.0, "EQ"))
        assert raw_bytes(r, d)[0, 0] & 0b111 == want0


def test_cpu_tcmps_packs_by_src_cols_into_dst_valid_width():
    # src Cols 64 -> 8 bytes per source row; dst valid width 4 bytes per dst row
    a = np.arange(128, dtype=np.float32).reshape(2, 64)
    s0 = vec("float32", 2, 64, valid=(2, 20))
    d = vec("uint8", 4, 32, valid=(2, 4))
    r = run("cpu", [s0, d], [(s0, a)], lambda: pto.TCMPS(d, s0, 10.0, "GE"))
    stream = []
    for i in range(2):
        stream += list(pack_row([j < 20 and a[i, j] >= 10 for j in range(64)], 8))
    got = raw_bytes(r, d)
    for t, byte in enumerate(stream[:8]):  # bytes past dst's valid rows are dropped
        assert got[t // 4, t % 4] == byte
    assert np.all(got[:, 4:] == 0) and np.all(got[2:] == 0)  # the whole dst was zeroed first


def test_a2a3_tcmps_int16_compared_as_half_and_tile_form_uses_src1_0():
    a = np.zeros((1, 128), np.int16)
    a[0, :2] = [-1, 5]  # -1 = 0xFFFF is NaN as half
    s0, d = vec("int16", 1, 128), vec("uint8", 1, 32, valid=(1, 16))
    r = run("a2", [s0, d], [(s0, a)], lambda: pto.TCMPS(d, s0, 0, "LT"))
    assert raw_bytes(r, d)[0, 0] & 0b11 == 0b00  # NaN < 0 false, 5 (a subnormal) < 0 false
    r = run("cpu", [s0, d], [(s0, a)], lambda: pto.TCMPS(d, s0, 0, "LT"))
    assert raw_bytes(r, d)[0, 0] & 0b11 == 0b01
    x = np.array([[3.0] * 64], np.float32)
    y = np.array([[3.0] + [9.0] * 63], np.float32)
    f0, f1, m = vec("float32", 1, 64), vec("float32", 1, 64), vec("uint8", 1, 32, valid=(1, 8))
    r = run("a2", [f0, f1, m], [(f0, x), (f1, y)], lambda: pto.TCMPS(m, f0, f1, "EQ"))
    assert np.all(raw_bytes(r, m)[0, :8] == 0xFF)  # every element compared with y[0] = 3
    r = run("cpu", [f0, f1, m], [(f0, x), (f1, y)], lambda: pto.TCMPS(m, f0, f1, "EQ"))
    np.testing.assert_array_equal(raw_bytes(r, m)[0, :8], pack_row([True] + [False] * 63, 8))


def test_a5_tcmps_tile_form_compares_with_src1s_first_element():
    # npu/a5 TCmps: src1 is loaded once by a broadcast vlds of its element 0; a 1x1 valid src1
    # (the library's tcmps cases) is accepted
    x = np.array([[3.0, 4.0] * 32], np.float32)
    y = np.array([[3.0] + [4.0] * 7], np.float32)
    f0, f1 = vec("float32", 1, 64), vec("float32", 1, 8, valid=(1, 1))
    m = vec("uint8", 1, 32, valid=(1, 8))
    r = run("950pr", [f0, f1, m], [(f0, x), (f1, y)], lambda: pto.TCMPS(m, f0, f1, "EQ"))
    np.testing.assert_array_equal(raw_bytes(r, m)[0, :8], pack_row([True, False] * 32, 8))
    loads = [e for e in r.trace.events if e.opcode == "TCMPS" and "src1" in e.name]
    assert [e.name for e in loads] == ["vlds src1 broadcast x1"]  # once, not per row


def test_tcmps_scalar_must_fit():
    s0, d = vec("int16", 1, 16), vec("uint8", 1, 32, valid=(1, 2))
    with pytest.raises(ConstraintError, match="scalar-range"):
        run("cpu", [s0, d], [], lambda: pto.TCMPS(d, s0, 70000, "EQ"))


# -- TSEL / TSELS ----------------------------------------------------------------------------
def test_tsel_cpu_stream_vs_npu_row_aligned():
    # C = 12 != 8 * mask.valid_col (2 bytes) -> the cpu stream and the NPU rows differ
    R, C = 3, 12
    mbytes = np.zeros((R, 32), np.uint8)
    mbytes[:, :2] = np.array([[0b10110101, 0b1101], [0b01010011, 0b0110], [0xF0, 0x0F]])
    a = np.arange(R * 16, dtype=np.float32).reshape(R, 16)
    b = -a
    mk = vec("uint8", R, 32, valid=(R, 2))
    s0, s1, d = (vec("float32", R, 16, valid=(R, C)) for _ in range(3))
    tmp = vec("uint32", 1, 64)
    for devname in ("cpu", "a2", "950pr"):
        r = run(
            devname,
            [mk, s0, s1, d, tmp],
            [(mk, mbytes), (s0, a), (s1, b)],
            lambda: pto.TSEL(d, mk, s0, s1, tmp),
        )
        got = r.tile_storage(d).reshape(R, 16)[:, :C]
        for i in range(R):
            for j in range(C):
                if devname == "cpu":
                    p = i * C + j
                    byte = mbytes[(p // 8) // 2, (p // 8) % 2]
                    bit = (byte >> (p % 8)) & 1
                else:
                    bit = (mbytes[i, j // 8] >> (j % 8)) & 1
                assert got[i, j] == (a[i, j] if bit else b[i, j]), (devname, i, j)


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tsels_row_aligned(devname):
    R, C = 2, 20
    mbytes = np.zeros((R, 32), np.uint8)
    mbytes[:, :3] = [[0x0F, 0xAA, 0x05], [0xFF, 0x00, 0x0A]]
    a = np.arange(R * 32, dtype=np.int16).reshape(R, 32)
    mk, s, d = (
        vec("uint8", R, 32),
        vec("int16", R, 32, valid=(R, C)),
        vec("int16", R, 32, valid=(R, C)),
    )
    tmp = vec("int16", 1, 16)
    r = run(devname, [mk, s, d, tmp], [(mk, mbytes), (s, a)], lambda: pto.TSELS(d, mk, s, tmp, -7))
    got = r.tile_storage(d).reshape(R, 32)[:, :C]
    want = [
        [a[i, j] if (mbytes[i, j // 8] >> (j % 8)) & 1 else -7 for j in range(C)] for i in range(R)
    ]
    np.testing.assert_array_equal(got, np.array(want, np.int16))


def test_a2a3_tsel_requires_tmp_and_plans_per_row_vsel():
    mk, s0, s1, d = vec("uint8", 2, 32), vec("half", 2, 16), vec("half", 2, 16), vec("half", 2, 16)
    with pytest.raises(ConstraintError, match="tmp-required"):
        run("a2", [mk, s0, s1, d], [], lambda: pto.TSEL(d, mk, s0, s1))
    tmp = vec("uint32", 1, 64)
    r = run("a2", [mk, s0, s1, d, tmp], [], lambda: pto.TSEL(d, mk, s0, s1, tmp))
    names = [e.args.get("intrinsic") for e in r.trace.events if e.opcode == "TSEL"]
    assert names.count("vsel") == 2 and names.count("set_cmpmask") == 2


# -- property: cpu TCMP against a Python loop -------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(
    data=st.lists(st.integers(-4, 4), min_size=2 * 24, max_size=2 * 24),
    other=st.lists(st.integers(-4, 4), min_size=2 * 24, max_size=2 * 24),
    mode=st.sampled_from(MODES),
    devname=st.sampled_from(["cpu", "950pr"]),
)
def test_property_tcmp_bits(data, other, mode, devname):
    a = np.array(data, np.int32).reshape(2, 24)
    b = np.array(other, np.int32).reshape(2, 24)
    s0, s1 = vec("int32", 2, 24), vec("int32", 2, 24)
    d = vec("uint8", 2, 32, valid=(2, 3))
    r = run(devname, [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMP(d, s0, s1, mode))
    got = raw_bytes(r, d)
    for i in range(2):
        want = pack_row([PY[mode](int(x), int(y)) for x, y in zip(a[i], b[i])], 3)
        np.testing.assert_array_equal(got[i, :3], want)
