"""TSORT32, TMRGSORT, THISTOGRAM (vector_isa.md 3.16, 3.24): numpy formulations of the
reference text; the parts the reference does not pin down raise UnsupportedError."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.errors import ConstraintError, UnsupportedError
from tests.helpers.kernels import vec
from tests.helpers.layout import Kern

DEVICES = ("cpu", "a2", "950pr")
SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))


def records(scores, index):
    """Reference: per 32-block, (score desc, index asc) as [f32 score][u32 index] pairs."""
    out = []
    for b in range(0, scores.size, 32):
        s, i = scores[b : b + 32], index[b : b + 32]
        order = sorted(range(s.size), key=lambda k: (-float(s[k]), int(i[k])))
        for k in order:
            out.append((np.float32(s[k]).view(np.uint32), np.uint32(i[k])))
    return np.array(out, np.uint32).reshape(-1)


@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(rows=st.integers(1, 3), blocks=st.integers(1, 2), data=st.data())
def test_tsort32_property(device, rows, blocks, data):
    C = 32 * blocks
    vals = data.draw(st.lists(st.integers(-4, 4), min_size=rows * C, max_size=rows * C))
    scores = np.array(vals, np.float32).reshape(rows, C)  # few values: many ties
    index = np.arange(rows * C, dtype=np.uint32).reshape(rows, C)[:, ::-1].copy()
    k = Kern(device, [scores, index])

    def body(k, src, idx):
        k.dst = k.place(vec("float32", rows, 2 * C))
        pto.TSORT32(k.dst, src, idx)

    k.run(body)
    got = k.storage(k.dst).view(np.uint32)
    for r in range(rows):
        np.testing.assert_array_equal(got[r], records(scores[r], index[r]))


@pytest.mark.parametrize("device", DEVICES)
def test_tmrgsort_two_and_three_lists(device):
    a = np.array([[9, 0, 5, 1, 5, 2, 1, 3]], np.float32)  # (score, index) pairs, descending
    b = np.array([[7, 10, 5, 11, 0, 12, 0, 13]], np.float32)
    c = np.array([[8, 20, 5, 21, 2, 22, 1, 23]], np.float32)
    for arr in (a, b, c):
        arr[0, 1::2] = arr[0, 1::2].astype(np.uint32).view(np.float32)
    k = Kern(device, [a, b, c])

    def body(k, x, y, z):
        k.two = k.place(vec("float32", 1, 16))
        pto.TMRGSORT(k.two, x, y)
        k.three = k.place(vec("float32", 1, 24))
        pto.TMRGSORT(k.three, x, y, z)

    k.run(body)

    def merged(*lists):
        recs = [
            (float(lst[0, 2 * j]), n, j, lst[0, 2 * j : 2 * j + 2])
            for n, lst in enumerate(lists)
            for j in range(lst.shape[1] // 2)
        ]
        recs.sort(key=lambda r: (-r[0], r[1], r[2]))  # ties: the lower-numbered list first
        return np.concatenate([r[3] for r in recs]).view(np.uint32)

    np.testing.assert_array_equal(k.storage(k.two)[0].view(np.uint32), merged(a, b))
    np.testing.assert_array_equal(k.storage(k.three)[0].view(np.uint32), merged(a, b, c))


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_npu_tsort32_partial_block_rejected_without_tmp(device):
    # a2a3 and a5 sort a NaN-padded tail through tmp (the 4-operand form); cpu sorts the
    # tail's pairs
    k = Kern(device, [np.zeros((1, 32), np.float32), np.zeros((1, 32), np.uint32)])

    def body(k, src, idx):
        src.set_valid(1, 20)
        pto.TSORT32(k.place(vec("float32", 1, 64)), src, idx)

    with pytest.raises(ConstraintError) as e:
        k.run(body)
    assert e.value.rule == "sort-block"
    assert "tmp tile" in str(e.value)


@pytest.mark.parametrize("device", ["a2", "950pr"])
@pytest.mark.parametrize("C", [13, 2050, 8170])
def test_npu_tsort32_pads_the_last_block_through_tmp(device, C):
    """a2a3 and a5 TSort32.hpp, 4 operands: the last block is sorted whole, its C % 32 valid
    pairs first (descending), then 32 - C % 32 pads of -(0.0/0.0) (float bits 0xFFC00000) with
    the idx elements past column C. tmp ends holding the copied row, or only the tail block
    where the row is over 32 * 255 elements (a2a3) or bytes (a5: float rows over 2040)."""
    whole_row = C <= 8160 if device == "a2" else C * 4 <= 8160
    n, tail = divmod(C, 32)
    cols = (n + 1) * 32
    rng = np.random.default_rng(C)
    scores = rng.permutation(C).astype(np.float32).reshape(1, C)  # distinct: no ties
    src_store = np.zeros((1, cols), np.float32)
    src_store[0, :C] = scores[0]
    index = (np.arange(cols, dtype=np.uint32) * 7 + 3).reshape(1, cols)
    k = Kern(device, [src_store, index])

    def body(k, src, idx):
        src.set_valid(1, C)
        k.dst = k.place(vec("float32", 1, 2 * cols))
        k.tmp = k.place(vec("float32", 1, cols if whole_row else 32))
        pto.TSORT32(k.dst, src, idx, k.tmp)

    k.run(body)
    got = k.storage(k.dst)[0].view(np.uint32).reshape(-1, 2)  # (score bits, index) records
    whole = records(scores[0, : n * 32], index[0, : n * 32]).reshape(-1, 2)
    np.testing.assert_array_equal(got[: n * 32], whole)
    last = got[n * 32 :]
    want = records(scores[0, n * 32 :], index[0, n * 32 : C]).reshape(-1, 2)
    np.testing.assert_array_equal(last[:tail], want)
    assert np.all(last[tail:, 0] == 0xFFC00000)
    assert sorted(last[tail:, 1].tolist()) == index[0, C:].tolist()
    tmp = k.storage(k.tmp)[0]
    start = 0 if whole_row else n * 32
    np.testing.assert_array_equal(tmp[: C - start], src_store[0, start:C])
    assert np.all(tmp[C - start : cols - start].view(np.uint32) == 0xFFC00000)


def _half_records(scores, index):
    """8-byte half records [score f16][0][index u32] as 4 half elements each."""
    out = np.zeros((len(scores), 4), np.uint16)
    out[:, 0] = np.array(scores, np.float16).view(np.uint16)
    idx = np.array(index, np.uint32)
    out[:, 2], out[:, 3] = idx & 0xFFFF, idx >> 16
    return out.reshape(1, -1).view(np.float16)


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_npu_tmrgsort_half_records(device):
    """a2a3/ and a5/TMrgSort.hpp take half as well as float records: the scores are the first
    half of each 8-byte record (ties: the lower-numbered list first)."""
    a = _half_records([9, 5, 5, 1], [0, 1, 2, 3])
    b = _half_records([7, 5, 0.5, 0], [10, 11, 12, 13])
    k = Kern(device, [a, b])

    def body(k, x, y):
        k.dst = k.place(vec("half", 1, 32))
        pto.TMRGSORT(k.dst, x, y)

    k.run(body)
    want = _half_records([9, 7, 5, 5, 5, 1, 0.5, 0], [0, 10, 1, 2, 11, 3, 12, 13])
    np.testing.assert_array_equal(k.storage(k.dst).view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_npu_tmrgsort_block_len_merges_the_groups_of_src(device):
    """a2a3 and a5: TMRGSORT(dst, src, blockLen) is one vmrgsort4 repeated over src's valid
    columns in groups of 4 sorted blocks of blockLen elements (a multiple of 64)."""
    rng = np.random.default_rng(4)
    L, groups = 64, 2
    per_block = L // 2  # float records
    scores = rng.permutation(4 * groups * per_block).astype(np.float32)
    src = np.zeros((1, 4 * groups * L), np.float32)
    want = []
    for g in range(groups):
        recs = []
        for b in range(4):
            first = (g * 4 + b) * per_block
            block = sorted(scores[first : first + per_block], reverse=True)
            for j, v in enumerate(block):
                at = (g * 4 + b) * L + 2 * j
                src[0, at], src[0, at + 1] = v, np.uint32(first + j).view(np.float32)
                recs.append((v, first + j))
        want += sorted(recs, key=lambda r: -r[0])
    k = Kern(device, [src])

    def body(k, s):
        k.dst = k.place(vec("float32", 1, src.shape[1]))
        pto.TMRGSORT(k.dst, s, block_len=L)

    k.run(body)
    got = k.storage(k.dst)[0].view(np.uint32).reshape(-1, 2)
    np.testing.assert_array_equal(
        got[:, 0], np.array([v for v, _ in want], np.float32).view(np.uint32)
    )
    np.testing.assert_array_equal(got[:, 1], [i for _, i in want])

    for L, valid, rule in ((32, 256, "block-len"), (64, 320, "block-groups")):
        k = Kern(device, [np.zeros((1, 320), np.float32)])

        def bad(k, s, L=L, valid=valid):
            s.set_valid(1, valid)
            pto.TMRGSORT(k.place(vec("float32", 1, 320)), s, block_len=L)

        with pytest.raises(ConstraintError) as e:
            k.run(bad)
        assert e.value.rule == rule


@pytest.mark.parametrize("byte", (0, 1, 2, 3))
def test_thistogram_u32(byte):
    rng = np.random.default_rng(byte)
    src = rng.integers(0, 2**32, (2, 64), dtype=np.uint64).astype(np.uint32)
    src[:, ::2] = (src[:, ::2] & 0x0000FFFF) | 0x12340000  # many match the filter bytes
    filt = np.zeros((8, 32), np.uint8)
    filt[0, 0], filt[1, 0], filt[2, 0] = 0x12, 0x34, int(src[0, 0] >> 8) & 0xFF
    k = Kern("cpu", [src, filt])

    def body(k, s, idx):
        k.dst = k.place(vec("uint32", 2, 256))
        pto.THISTOGRAM(k.dst, s, idx, byte=f"BYTE_{byte}")

    k.run(body)
    for r in range(2):
        v = src[r].astype(np.int64)
        keep = np.ones(v.size, bool)
        for k_, hb in enumerate((3, 2, 1)):
            if hb > byte:
                keep &= ((v >> (8 * hb)) & 0xFF) == filt[k_, 0]
        want = np.array([np.sum(((v[keep] >> (8 * byte)) & 0xFF) <= b) for b in range(256)])
        np.testing.assert_array_equal(k.storage(k.dst)[r], want)


def test_thistogram_npu_unsupported():
    k = Kern("a2", [np.zeros((1, 16), np.uint16), np.zeros((1, 32), np.uint8)])
    with pytest.raises(UnsupportedError):
        k.run(lambda k, s, i: pto.THISTOGRAM(k.place(vec("uint32", 1, 256)), s, i))


def test_a2a3_tsort32_one_vbitsort_per_row():
    def run(rows):
        k = Kern("a2", [np.zeros((rows, 64), np.float32), np.zeros((rows, 64), np.uint32)])
        k.run(lambda k, s, i: pto.TSORT32(k.place(vec("float32", rows, 128)), s, i))
        return k.result

    one, three = run(1), run(3)
    ev = [e for e in three.trace.events if e.args.get("intrinsic") == "vbitsort"]
    assert len(ev) == 3 and all(e.args["repeats"] == 2 for e in ev)
    assert three.cycles > one.cycles
