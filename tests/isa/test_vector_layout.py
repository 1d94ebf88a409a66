"""Layout / fill / gather / views: TFILLPAD(+_INPLACE, _EXPAND), TTRANS, TTRI, TEXTRACT, TINSERT,
TGATHER, TGATHERB, TRESHAPE, TSUBVIEW (vector_isa.md 3.1, 3.2, 3.9, 3.11-3.14).

Expected values are independent numpy formulations of the reference text (per target where the
reference says the targets differ); UB starts filled with 0xFF bytes, so bytes an instruction
does not write keep that pattern.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.errors import ConstraintError, UnsupportedError
from tests.helpers.kernels import vec
from tests.helpers.layout import NP, Kern, sync

DEVICES = ("cpu", "a2", "950pr")
TARGET = {"cpu": "cpu", "a2": "a2a3", "a3": "a2a3", "950pr": "a5", "950dt": "a5"}
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


def poison(dtype, n):
    return np.full(n * np.dtype(NP[dtype]).itemsize, 0xFF, np.uint8).view(NP[dtype])


def rand(rng, dtype, shape):
    npdt = np.dtype(NP[dtype])
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        return rng.integers(info.min, int(info.max) + 1, shape).astype(npdt)
    return rng.standard_normal(shape).astype(npdt)


PAD = {"Zero": lambda dt: 0, "Max": lambda dt: "max", "Min": lambda dt: "min"}


def pad_value(dtype, pad):
    npdt = np.dtype(NP[dtype])
    if pad == "Zero":
        return npdt.type(0)
    if npdt.kind == "f":
        return npdt.type(np.inf if pad == "Max" else -np.inf)
    info = np.iinfo(npdt)
    return npdt.type(info.max if pad == "Max" else info.min)


# -- TFILLPAD ---------------------------------------------------------------------------------
def fillpad_expected(target, src, Rs, Cs, Rd, pad, dtype, pads_differ, dst_before):
    R, C = src.shape
    out = dst_before.copy()
    if target != "a2a3":  # cpu / a5: the whole static tile
        out[:] = pad
        out[:Rs, :Cs] = src[:Rs, :Cs]
        return out
    per = 32 // np.dtype(NP[dtype]).itemsize
    cb = -(-Cs // per) * per
    out[:Rs, :] = src[:Rs, :]
    if pads_differ:
        out[:Rs, Cs:cb] = pad
    out[:Rs, cb:] = pad
    out[Rs:Rd, :] = pad
    return out


@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(
    dtype=st.sampled_from(("float32", "half", "int16", "int32", "uint8")),
    shape=st.tuples(st.integers(1, 6), st.integers(1, 3)),
    data=st.data(),
)
def test_tfillpad_property(device, dtype, shape, data):
    sz = np.dtype(NP[dtype]).itemsize
    R, C = shape[0], shape[1] * 32 // sz
    Rs, Cs = data.draw(st.integers(0, R)), data.draw(st.integers(1, C))
    Rd = data.draw(st.integers(1, R))
    pad = data.draw(st.sampled_from(("Zero", "Max", "Min")))
    same_pad = data.draw(st.booleans())
    src_h = rand(np.random.default_rng(R * C + Rs), dtype, (R, C))
    k = Kern(device, [src_h])

    def body(k, src):
        src.set_valid(Rs, Cs)
        s = src
        if same_pad:  # a view of the same bytes whose PadValue equals dst's
            s = vec(dtype, R, C, pad=pad)
            pto.TRESHAPE(s, src)
            s.set_valid(Rs, Cs)
        k.dst = k.place(vec(dtype, R, C, pad=pad))
        k.dst.set_valid(Rd, C)
        pto.TFILLPAD(k.dst, s)

    k.run(body)
    got = k.storage(k.dst)
    want = fillpad_expected(
        TARGET[device], src_h, Rs, Cs, Rd, pad_value(dtype, pad), dtype, not same_pad,
        poison(dtype, R * C).reshape(R, C),
    )  # fmt: skip
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("device", DEVICES)
def test_tfillpad_expand_and_inplace(device):
    src_h = np.arange(4 * 8, dtype=np.float32).reshape(4, 8)
    k = Kern(device, [src_h])

    def body(k, src):
        src.set_valid(3, 5)
        k.big = k.place(vec("float32", 6, 16, pad="Min"))
        pto.TFILLPAD_EXPAND(k.big, src)
        k.same = vec("float32", 4, 8, pad="Zero")
        pto.TRESHAPE(k.same, src)
        k.same.set_valid(3, 5)
        pto.TFILLPAD_INPLACE(k.same, k.same)

    k.run(body)
    big = k.storage(k.big)
    t = TARGET[device]
    assert (big[:3, :5] == src_h[:3, :5]).all()
    assert (big[:3, 8:] == -np.inf).all()
    if t == "a2a3":  # rows [0, Rs): whole src rows copied; pad from the next 32 B block on
        assert (big[:3, 5:8] == -np.inf).all()  # pads differ (Null vs Min): block padded
        assert (big[3:6] == -np.inf).all()  # rows up to dst valid rows (all 6)
    else:
        assert (big[3:] == -np.inf).all() and (big[:3, 5:] == -np.inf).all()
    same = k.storage(k.same)
    assert (same[:3, :5] == src_h[:3, :5]).all()
    if t == "a2a3":  # dst valid rows == src valid rows (3): row 3 is not padded
        np.testing.assert_array_equal(same[3], src_h[3])
    else:
        assert (same[3:] == 0).all()
    if t == "a2a3":  # one tile, so equal PadVals: the partial block keeps its bytes
        np.testing.assert_array_equal(same[:3, 5:8], src_h[:3, 5:8])
    else:
        assert (same[:3, 5:] == 0).all()


def test_tfillpad_rejects_null_pad(device):
    k = Kern(device.name, [np.zeros((2, 8), np.float32)])
    with pytest.raises(ConstraintError) as e:
        k.run(lambda k, src: pto.TFILLPAD(k.place(vec("float32", 2, 8)), src))
    assert e.value.rule == "pad-value"


# -- TTRANS -----------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(
    dtype=st.sampled_from(("float32", "half", "uint8", "int16")),
    R=st.integers(1, 40),
    C=st.integers(1, 40),
)
def test_ttrans_property(device, dtype, R, C):
    sz = np.dtype(NP[dtype]).itemsize
    per = 32 // sz
    Y = 32 if sz == 1 else 16
    src_cols = -(-C // per) * per
    dst_cols = -(-R // Y) * Y  # a multiple of Y: the a2a3 vector path
    src_h = rand(np.random.default_rng(R * 100 + C), dtype, (R, src_cols))
    k = Kern(device, [src_h])
    fill = 5

    def body(k, src):
        src.set_valid(R, C)
        k.dst = k.place(vec(dtype, C, dst_cols))
        k.tmp = k.place(vec(dtype, C, dst_cols))
        pto.TEXPANDS(k.dst, fill)
        pto.TEXPANDS(k.tmp, fill + 1)
        pto.pipe_barrier("PIPE_V")
        k.dst.set_valid(C, R)
        pto.TTRANS(k.dst, src, k.tmp)

    k.run(body)
    got = k.storage(k.dst)
    want = np.full((C, dst_cols), fill, NP[dtype])
    want[:, :R] = src_h[:R, :C].T
    if TARGET[device] == "a2a3":  # dst rows take whole 32 B blocks from tmp (writes padding)
        nb = -(-R // per) * per
        want[:, R:nb] = fill + 1
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_cpu_ttrans_moves_hifloat8_bits():
    """cpu TTRANS is a bit copy checking element sizes only (the CPU system test transposes
    hifloat8): the bytes of the 5x3 valid region, transposed."""
    dev = pto.Device("cpu")
    host = np.arange(8 * 32, dtype=np.uint8).reshape(8, 32)
    src_gm = dev.gm_array(host, dtype="hifloat8")
    out = dev.gm_zeros((32, 32), "hifloat8")

    @pto.kernel
    def k(src_gm, out):
        src = pto.Tile("Vec", "hifloat8", 8, 32, valid=(5, 3))
        dst = pto.Tile("Vec", "hifloat8", 32, 32, valid=(3, 5))
        pto.TLOAD(src, pto.GlobalTensor(src_gm, (1, 1, 1, 5, 3), stride=(256, 256, 256, 32, 1)))
        pto.set_flag("MTE2", "V", 0)
        pto.wait_flag("MTE2", "V", 0)
        pto.TTRANS(dst, src)
        pto.set_flag("V", "MTE3", 0)
        pto.wait_flag("V", "MTE3", 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 3, 5), stride=(1024, 1024, 1024, 32, 1)), dst)

    dev.run(k, src_gm, out)
    got = out.numpy().view(np.uint8)
    assert np.array_equal(got[:3, :5], host[:5, :3].T)


def test_ttrans_a2a3_scalar_path_is_exact():
    src_h = np.arange(8 * 8, dtype=np.float32).reshape(8, 8)
    k = Kern("a2", [src_h])

    def body(k, src):  # dst Cols = 8 is not a multiple of Y = 16: the scalar transpose
        src.set_valid(5, 3)
        k.dst = k.place(vec("float32", 8, 8))
        pto.TEXPANDS(k.dst, 1.0)
        pto.pipe_barrier("PIPE_V")
        k.dst.set_valid(3, 5)
        pto.TTRANS(k.dst, src, None)

    k.run(body)
    got = k.storage(k.dst)
    want = np.ones((8, 8), np.float32)
    want[:3, :5] = src_h[:5, :3].T
    np.testing.assert_array_equal(got, want)
    names = [e.args.get("intrinsic") for e in k.result.trace.events if e.opcode == "TTRANS"]
    assert not any(n and n.startswith("scatter_vnchwconv") for n in names)


def test_ttrans_a2a3_tmp_too_small():
    k = Kern("a2", [np.zeros((16, 16), np.float32)])
    with pytest.raises(ConstraintError) as e:
        k.run(lambda k, src: pto.TTRANS(k.place(vec("float32", 16, 16)), src,
                                        k.place(vec("float32", 8, 16))))  # fmt: skip
    assert e.value.rule == "tmp-size"


# -- TTRI -------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(
    dtype=st.sampled_from(("float32", "half", "int32", "int16")),
    R=st.integers(1, 12),
    C=st.integers(1, 40),
    diag=st.integers(-50, 50),
    upper=st.integers(0, 1),
)
def test_ttri_property(device, dtype, R, C, diag, upper):
    per = 32 // np.dtype(NP[dtype]).itemsize
    cols = -(-C // per) * per
    k = Kern(device, [])

    def body(k):
        k.dst = k.place(vec(dtype, R, cols, valid=(R, C)))
        pto.TTRI(k.dst, diag, is_upper_or_lower=upper)

    k.run(body)
    i, j = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    tri = (j >= i + diag) if upper else (j <= i + diag)
    want = poison(dtype, R * cols).reshape(R, cols)
    want[:, :C] = tri.astype(NP[dtype])
    np.testing.assert_array_equal(k.storage(k.dst).view(np.uint8), want.view(np.uint8))


# -- TEXTRACT / TINSERT -----------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(dtype=st.sampled_from(("float32", "half", "int8")), data=st.data())
def test_textract_property(device, dtype, data):
    sz = np.dtype(NP[dtype]).itemsize
    per = 32 // sz
    R, cols = data.draw(st.integers(2, 8)), per * data.draw(st.integers(2, 4))
    r0 = data.draw(st.integers(0, R - 1))
    c0 = per * data.draw(st.integers(0, cols // per - 1))  # 32-byte aligned (a2a3 rule)
    vr, vc = data.draw(st.integers(1, R - r0)), data.draw(st.integers(2, cols - c0))
    src_h = rand(np.random.default_rng(vr * 7 + vc), dtype, (R, cols))
    k = Kern(device, [src_h])

    def body(k, src):
        k.dst = k.place(vec(dtype, vr, -(-vc // per) * per, valid=(vr, vc)))
        pto.TEXTRACT(k.dst, src, r0, c0)

    k.run(body)
    got = k.storage(k.dst)
    want = poison(dtype, got.size).reshape(got.shape)
    n = vc
    if TARGET[device] == "a2a3" and sz == 1 and (vc % 32) % 2:  # the 16-bit vcopy tail
        n = vc - 1
    want[:, :n] = src_h[r0 : r0 + vr, c0 : c0 + n]
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_textract_cube_path_unsupported(device):
    k = Kern(device.name, [])

    def body(k):
        src = pto.Tile("Mat", "half", 16, 16, "ColMajor", slayout="RowMajor")
        pto.TASSIGN(src, 0)
        pto.TEXTRACT(k.place(vec("half", 16, 16)), src, 0, 0)

    with pytest.raises(UnsupportedError, match="cube"):
        k.run(body)


@pytest.mark.parametrize("device", ("cpu", "950pr"))
def test_tinsert(device):
    src_h = np.arange(3 * 8, dtype=np.float32).reshape(3, 8)
    k = Kern(device, [src_h])

    def body(k, src):
        src.set_valid(2, 5)
        k.dst = k.place(vec("float32", 6, 16))
        pto.TEXPANDS(k.dst, 0.0)
        pto.pipe_barrier("PIPE_V")
        pto.TINSERT(k.dst, src, 3, 8)

    k.run(body)
    want = np.zeros((6, 16), np.float32)
    want[3:5, 8:13] = src_h[:2, :5]
    np.testing.assert_array_equal(k.storage(k.dst), want)


def test_tinsert_a2a3_unsupported():
    k = Kern("a2", [np.zeros((2, 8), np.float32)])
    with pytest.raises(UnsupportedError, match="Acc to Mat"):
        k.run(lambda k, src: pto.TINSERT(k.place(vec("float32", 4, 8)), src, 0, 0))


# -- TGATHER ----------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(
    dtype=st.sampled_from(("float32", "half", "int32", "int16")),
    R=st.integers(1, 4),
    C=st.integers(1, 16),
    data=st.data(),
)
def test_tgather_index_property(device, dtype, R, C, data):
    sz = np.dtype(NP[dtype]).itemsize
    per = 32 // sz
    dcols = -(-C // per) * per
    icols = -(-C // 8) * 8
    src_h = rand(np.random.default_rng(R + C), dtype, (4, 2 * per))
    n = src_h.size
    idx_h = np.array(
        data.draw(st.lists(st.integers(0, n - 1), min_size=R * icols, max_size=R * icols)),
        np.int32,
    ).reshape(R, icols)
    k = Kern(device, [src_h, idx_h])

    def body(k, src, idx):
        idx.set_valid(R, C)
        k.dst = k.place(vec(dtype, R, dcols, valid=(R, C)))
        tmp = k.place(vec("int32", R, C if C % 8 == 0 else icols))
        if TARGET[device] == "a2a3":
            tmp = k.place(pto.Tile("Vec", "int32", R, icols, valid=(R, C)))
            tmp = k.place(vec("int32", R, icols))
            tmp.set_valid(R, icols)
        pto.TGATHER(k.dst, src, idx, tmp if TARGET[device] != "a2a3" or icols == C else None)

    if TARGET[device] == "a2a3" and icols != C:
        return  # the a2a3 tmp must be shaped like idx's valid region: covered below
    k.run(body)
    got = k.storage(k.dst)[:, :C]
    np.testing.assert_array_equal(
        got.view(np.uint8), src_h.reshape(-1)[idx_h[:, :C]].view(np.uint8)
    )


def test_tgather_out_of_range_per_target():
    src_h = np.arange(8, dtype=np.float32).reshape(1, 8) + 1
    nxt_h = np.full((1, 8), 42, np.float32)
    idx_h = np.array([[0, 8, -1, 3, 0, 0, 0, 0]], np.int32)
    got = {}
    for device in DEVICES:
        k = Kern(device, [src_h, nxt_h, idx_h])

        def body(k, src, nxt, idx):
            k.dst = k.place(vec("float32", 1, 8))
            k.tmp = k.place(vec("int32", 1, 8))
            pto.TGATHER(k.dst, src, idx, k.tmp)

        if device == "a2":  # -1 * 4 = 0xFFFFFFFC bytes past src0: past the end of UB
            with pytest.raises(pto.PtoSimError):
                k.run(body)
            idx_h2 = idx_h.copy()
            idx_h2[0, 2] = 9
            k = Kern(device, [src_h, nxt_h, idx_h2])
        elif device == "950pr":
            idx_h2 = idx_h.copy()
            idx_h2[0, 2] = 9
            k = Kern(device, [src_h, nxt_h, idx_h2])
        k.run(body)
        got[device] = k.storage(k.dst)[0]
    np.testing.assert_array_equal(got["cpu"], [1, 0, 0, 4, 1, 1, 1, 1])  # OOB -> 0
    for d in ("a2", "950pr"):  # no bounds check: the next tile's bytes
        np.testing.assert_array_equal(got[d], [1, 42, 42, 4, 1, 1, 1, 1])


def test_tgather_a2a3_b16_writes_offsets_to_tmp():
    src_h = np.arange(16, dtype=np.float16).reshape(1, 16)
    idx_h = np.array([[3, 1, 2, 0, 5, 6, 7, 4]], np.int32)
    k = Kern("a2", [src_h, idx_h])

    def body(k, src, idx):
        k.dst = k.place(vec("half", 1, 16, valid=(1, 8)))
        k.tmp = k.place(vec("int32", 1, 8))
        pto.TGATHER(k.dst, src, idx, k.tmp)

    k.run(body)
    np.testing.assert_array_equal(k.storage(k.dst)[0, :8], src_h[0, idx_h[0]])
    np.testing.assert_array_equal(k.storage(k.tmp)[0], idx_h[0] * 2)
    ev = [e.args.get("intrinsic") for e in k.result.trace.events if e.opcode == "TGATHER"]
    assert [x for x in ev if x in ("vmuls", "vgather")] == ["vmuls", "vgather"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mask", ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"))
def test_tgather_mask(device, mask):
    times = {"P1111": 1, "P0101": 2, "P1010": 2}.get(mask, 4)
    pos = {"P0101": 0, "P1010": 1, "P0001": 0, "P0010": 1, "P0100": 2, "P1000": 3}.get(mask, 0)
    src_h = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    k = Kern(device, [src_h])

    def body(k, src):
        src.set_valid(8, 13)
        k.row = k.place(vec("float32", 8, 16))
        pto.TGATHER(k.row, src, mask=mask, axis="GATHER_ROW")
        k.col = k.place(vec("float32", 8 // times, 16, valid=(8 // times, 13)))
        pto.TGATHER(k.col, src, mask=mask, axis="GATHER_COL")

    k.run(body)
    dense = src_h[:8, :13][:, pos::times].reshape(-1)
    np.testing.assert_array_equal(k.storage(k.row).reshape(-1)[: dense.size], dense)
    np.testing.assert_array_equal(k.storage(k.col)[:, :13], src_h[pos::times, :13])


@pytest.mark.parametrize("mask", ["P1010", "P0001"])
def test_a5_b64_tgather_mask_rows_keep_their_pitch(mask):
    """npu/a5 Int64GatherPattern: per src row the first validCol // times kept elements (the
    element at lane * times + pos), written from dst element row * (Cols // times); the rest
    of dst keeps its contents. Here 3 valid rows of 15 columns, dst 4 x 24 with 3 x 7 valid
    (the library's dynamic-shape case; a dense packing would give 8 elements a row for P1010)."""
    times, pos = {"P1010": (2, 1), "P0001": (4, 0)}[mask]
    src_h = (np.arange(4 * 24, dtype=np.int64) * 1000003 - (1 << 40)).reshape(4, 24)
    k = Kern("950pr", [src_h])

    def body(k, src):
        src.set_valid(3, 15)
        k.dst = k.place(vec("int64", 4, 24, valid=(3, 15 // times)))
        pto.TEXPANDS(k.dst, -1)
        pto.TGATHER(k.dst, src, mask=mask, axis="GATHER_ROW")

    k.run(body)
    want = np.full(4 * 24, -1, np.int64)
    count, pitch = 15 // times, 24 // times
    for r in range(3):
        want[r * pitch : r * pitch + count] = src_h[r, pos : pos + times * count : times]
    np.testing.assert_array_equal(k.storage(k.dst).reshape(-1), want)


@pytest.mark.parametrize("device", DEVICES)
def test_tgather_mask_between_types_of_one_size_copies_bits(device):
    """float32 src -> int32 dst (the CPU system test's xtype case): the kept elements' bits, not
    their values converted; a dst of another size is rule same-size."""
    src_h = (np.arange(4 * 16, dtype=np.float32) * 0.75 - 5).reshape(4, 16)
    k = Kern(device, [src_h])

    def body(k, src):
        k.row = k.place(vec("int32", 4, 8))
        pto.TGATHER(k.row, src, mask="P1010", axis="GATHER_ROW")
        k.col = k.place(vec("uint32", 2, 16))
        pto.TGATHER(k.col, src, mask="P0101", axis="GATHER_COL")

    k.run(body)
    bits = src_h.view(np.int32)
    np.testing.assert_array_equal(k.storage(k.row), bits[:, 1::2])
    np.testing.assert_array_equal(k.storage(k.col), bits[0::2].view(np.uint32))

    def wrong(k, src):
        pto.TGATHER(k.place(vec("half", 4, 16)), src, mask="P1010", axis="GATHER_ROW")

    with pytest.raises(ConstraintError) as err:
        Kern(device, [src_h]).run(wrong)
    assert err.value.rule == "same-size"


@pytest.mark.parametrize("device", DEVICES)
def test_tgatherb(device):
    src_h = np.arange(4 * 16, dtype=np.float32).reshape(4, 16)
    off_h = np.array([[64, 0, 96, 32, 0, 0, 0, 0], [128, 160, 0, 0, 0, 0, 0, 0]], np.uint32)
    k = Kern(device, [src_h, off_h])

    def body(k, src, off):
        off.set_valid(2, 2)
        k.dst = k.place(vec("float32", 2, 16))
        pto.TGATHERB(k.dst, src, off)

    k.run(body)
    flat = src_h.reshape(-1)
    want = np.stack([np.r_[flat[16:24], flat[0:8]], np.r_[flat[32:40], flat[40:48]]])
    np.testing.assert_array_equal(k.storage(k.dst), want)


# -- views ------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_treshape_and_tsubview_alias(device):
    src_h = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    k = Kern(device, [src_h])

    def body(k, src):
        k.flat = vec("float32", 16, 8)
        pto.TRESHAPE(k.flat, src)
        k.win = vec("float32", 4, 16, valid=(2, 8))
        pto.TSUBVIEW(k.win, src, 4, 8)
        pto.TEXPANDS(k.win, -1.0)  # writes src rows 4, 5, columns 8..15
        k.src = src

    k.run(body)
    want = src_h.copy()
    want[4:6, 8:16] = -1
    np.testing.assert_array_equal(k.storage(k.src), want)
    np.testing.assert_array_equal(k.storage(k.flat), want.reshape(16, 8))
    assert not [f for f in k.result.findings if f.code == "F204"]
    assert not [e for e in k.result.trace.events if e.opcode in ("TRESHAPE", "TSUBVIEW")
                and e.pipe == "PIPE_V"] if k.result.trace else True  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
def test_views_of_auto_placed_tiles_and_no_false_overlap(device):
    dev = pto.Device(device)
    out = dev.gm_zeros((4, 16), "float32")

    @pto.kernel
    def k(out):
        a = vec("float32", 4, 16)  # placed by the allocator
        b = vec("float32", 4, 16)
        pto.TEXPANDS(a, 1.0)
        half = vec("float32", 2, 16)
        pto.TSUBVIEW(half, a, 2, 0)
        pto.TEXPANDS(half, 3.0)  # written while a is live: same bytes, not an overlap bug
        pto.TEXPANDS(b, 2.0)
        sync("PIPE_V", "PIPE_MTE3")
        pto.TSTORE(pto.GlobalTensor(out, shape=(4, 16)), a)

    run = dev.run(k, out)
    np.testing.assert_array_equal(out.numpy(), np.r_[np.ones((2, 16)), np.full((2, 16), 3.0)])
    assert not [f for f in run.findings if f.code == "F204"]


def test_treshape_rejects_different_sizes(device):
    k = Kern(device.name, [])

    def body(k):
        a = k.place(vec("float32", 4, 16))
        pto.TRESHAPE(vec("float32", 4, 8), a)

    with pytest.raises(ConstraintError) as e:
        k.run(body)
    assert e.value.rule == "same-bytes"


# -- a2a3 timing (intrinsic sequences of the reference lowering) -------------------------------
def intrinsics(run, opcode):
    evs = sorted((e for e in run.trace.events if e.opcode == opcode), key=lambda e: e.start)
    return [e.args.get("intrinsic") or e.name for e in evs]


def test_a2a3_tfillpad_sequence():
    k = Kern("a2", [np.zeros((4, 16), np.float32)])

    def body(k, src):
        src.set_valid(3, 5)
        k.dst = k.place(vec("float32", 4, 16, pad="Zero"))
        pto.TFILLPAD(k.dst, src)

    k.run(body)
    seq = [x for x in intrinsics(k.result, "TFILLPAD") if x != "pipe_barrier(PIPE_V)"]
    # (1) copy rows, (2) partial block, (3) row 0 pad + copy to rows 1.., (4) rows 3..4
    assert seq == ["vcopy", "vector_dup", "vector_dup", "vcopy", "vector_dup"]


def test_a2a3_ttri_two_dups_per_row_and_rows_cost_more():
    def run(R):
        k = Kern("a2", [])
        k.run(lambda k: pto.TTRI(k.place(vec("float32", R, 64)), 0))
        return k.result

    small, big = run(4), run(16)
    seq = intrinsics(small, "TTRI")
    assert seq.count("vector_dup") == 8 and seq.count("pipe_barrier(PIPE_V)") == 8
    assert big.cycles > small.cycles


def test_a2a3_ttrans_vnchwconv_then_one_copy():
    k = Kern("a2", [np.zeros((32, 16), np.float32)])

    def body(k, src):  # b32: Y = 16 rows, 8 columns per sub-tile: 2 sub-tiles x 2 row groups
        pto.TTRANS(k.place(vec("float32", 16, 32)), src, k.place(vec("float32", 16, 32)))

    k.run(body)
    seq = [x for x in intrinsics(k.result, "TTRANS") if not x.startswith("set_va")]
    conv = [e for e in k.result.trace.events if e.args.get("intrinsic") == "scatter_vnchwconv_b32"]
    assert len(conv) == 2 and all(e.args["repeats"] == 2 for e in conv)
    assert seq[-2:] == ["pipe_barrier(PIPE_V)", "copy_ubuf_to_ubuf"]


def test_a2a3_tgather_rows_cost_more():
    def run(R):
        k = Kern("a2", [np.zeros((1, 64), np.float32), np.zeros((R, 64), np.int32)])

        def body(k, src, idx):
            pto.TGATHER(k.place(vec("float32", R, 64)), src, idx, k.place(vec("int32", R, 64)))

        k.run(body)
        return k.result

    one, four = run(1), run(4)
    assert intrinsics(four, "TGATHER").count("vgather") == 4
    assert four.cycles > one.cycles


def test_a5_views_and_fills_are_vector_functions():
    k = Kern("950pr", [np.zeros((4, 16), np.float32)])

    def body(k, src):
        src.set_valid(2, 5)
        pto.TFILLPAD(k.place(vec("float32", 4, 16, pad="Max")), src)

    k.run(body)
    seq = intrinsics(k.result, "TFILLPAD")
    assert seq[0] == "vf_startup" and seq[-1] == "vf_drain" and "vsts" in seq
