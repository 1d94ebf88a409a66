"""Agreement with the reference CPU simulator where the library's own test folders do not look.

Each expected value is computed here from the rule the reference's cpu implementation states
(TCMPS: ``fabs(double(a) - double(b))`` against 1e-9, NE true for a NaN operand; TSEL: one bit
stream over dst's valid elements), by hand or with Python loops - never from ptosim.
"""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import run_kernel, vec

INF = np.inf


def _mask_bits(got: np.ndarray, n: int) -> list[int]:
    return [(int(got[j // 8]) >> (j % 8)) & 1 for j in range(n)]


# -- TCMPS / TCMP with infinities and NaN --------------------------------------------------------
# columns: +inf, -inf, +inf, NaN, 1.0, 1.0 + 2**-20 (differs by more than 1e-9)
_A = [INF, -INF, INF, np.nan, 1.0, 1.0 + 2.0**-20, 0.0, 0.0]
_B = [INF, -INF, -INF, 1.0, 1.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tcmps_tile_form_ne_equal_infinities_is_false(devname):
    # cpu: NE = (a or b NaN) ? 1 : |a - b| > 1e-9; inf - inf is NaN so equal infinities are not
    # NE (and not EQ: |NaN| < 1e-9 is false). The NPUs compare IEEE-754: inf != inf is false.
    a = np.array([_A + [0.0] * 56], np.float32)
    b = np.array([_B + [0.0] * 56], np.float32)
    s0, s1, d = vec("float32", 1, 64), vec("float32", 1, 64), vec("uint8", 1, 32, valid=(1, 8))
    if devname != "cpu":  # the NPU tile forms compare every element with src1[0] (+inf)
        b = np.full_like(b, INF)
    r = run_kernel(devname, [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMPS(d, s0, s1, "NE"))
    got = _mask_bits(np.asarray(r.tile_storage(d)), 8)
    if devname != "cpu":
        assert got == [0, 1, 0, 1, 1, 1, 1, 1]
    else:
        assert got == [0, 0, 1, 1, 0, 1, 0, 0]


def test_cpu_tcmps_scalar_infinity_ne_and_eq():
    a = np.array([[INF, -INF, np.nan, 3.0] + [0.0] * 60], np.float32)
    s0, d = vec("float32", 1, 64), vec("uint8", 1, 32, valid=(1, 8))
    want = {
        "NE": [0, 1, 1, 1],  # inf vs inf: not NE; -inf - inf = -inf: NE; NaN: NE
        "EQ": [0, 0, 0, 0],  # |inf - inf| = NaN is not < 1e-9
        "GE": [1, 0, 0, 0],  # exact C comparisons
    }
    for mode, bits in want.items():
        r = run_kernel("cpu", [s0, d], [(s0, a)], lambda m=mode: pto.TCMPS(d, s0, INF, m))
        assert _mask_bits(np.asarray(r.tile_storage(d)), 4) == bits, mode


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tcmp_ne_equal_infinities_is_false(devname):
    # TCMP is a plain a != b on cpu (no tolerance) and IEEE on the NPUs
    a = np.array([_A + [0.0] * 56], np.float32)
    b = np.array([_B + [0.0] * 56], np.float32)
    s0, s1 = vec("float32", 1, 64), vec("float32", 1, 64)
    d = vec("uint8", 1, 32, valid=(1, 8))
    r = run_kernel(devname, [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMP(d, s0, s1, "NE"))
    assert _mask_bits(np.asarray(r.tile_storage(d)), 8) == [0, 0, 1, 1, 0, 1, 0, 0]


# -- TSEL with a mask narrower than the bit stream ----------------------------------------------
def test_cpu_tsel_stream_runs_past_the_mask_rows():
    # dst 2 x 64 float: 128 bits = 16 mask bytes; the mask (2 x 32 u8) has valid_col 4, so the
    # stream reads 4 bytes per mask row and needs mask rows 0..3: rows 2 and 3 lie past the mask
    # tile, in the UB bytes after it (here: the first 64 bytes of the tile placed after it).
    R, C = 2, 64
    mk = vec("uint8", 2, 32, valid=(2, 4))
    mk_full = vec("uint8", 2, 32)  # the mask's bytes, loaded whole through an alias
    after = vec("uint8", 2, 32)  # placed right after the mask
    s0, s1, d = (vec("float32", R, C) for _ in range(3))
    rng = np.random.default_rng(7)
    mbytes = rng.integers(0, 256, (2, 32)).astype(np.uint8)
    abytes = rng.integers(0, 256, (2, 32)).astype(np.uint8)
    a = np.arange(R * C, dtype=np.float32).reshape(R, C) + 1
    places = {mk: 0, mk_full: 0, after: 64, s0: 0x400, s1: 0x800, d: 0xC00}
    r = run_kernel(
        "cpu",
        [mk, mk_full, after, s0, s1, d],
        [(mk_full, mbytes), (after, abytes), (s0, a), (s1, -a)],
        lambda: pto.TSEL(d, mk, s0, s1, None),
        places=places,
    )
    ub = np.concatenate([mbytes.ravel(), abytes.ravel()])  # the mask's row-major storage onward
    got = np.asarray(r.tile_storage(d)).reshape(R, C)
    for p in range(R * C):
        e = p // 8
        byte = ub[(e // 4) * 32 + e % 4]  # mask element (e // valid_col, e % valid_col)
        want = a.flat[p] if (byte >> (p % 8)) & 1 else -a.flat[p]
        assert got.flat[p] == want, p


def test_cpu_tsel_stream_past_the_end_of_ub_is_a_coded_error():
    # the same stream from a mask in the last bytes of UB leaves the UB: PTO202, not IndexError
    R, C = 4, 64
    mk = vec("uint8", 1, 32, valid=(1, 1))
    s0, s1, d = (vec("float32", R, C) for _ in range(3))
    ub_bytes = pto.Device("cpu").config.memory.ub_size_bytes
    with pytest.raises(pto.PtoSimError) as e:
        run_kernel(
            "cpu",
            [s0, s1, d, mk],
            [],
            lambda: pto.TSEL(d, mk, s0, s1, None),
            places={mk: ub_bytes - 32},
        )
    assert e.value.code == "PTO202" and "TSEL" in str(e.value) and "mask" in str(e.value)


# -- TSORT32 on cpu: 2-byte records, partial last block -----------------------------------------
def _sorted_pairs(scores, index):
    """(score desc, index asc) of one block, with Python's sort on float keys."""
    order = sorted(range(len(scores)), key=lambda k: (-float(scores[k]), int(index[k])))
    return [(scores[k], int(index[k])) for k in order]


def _record_bytes(dtype, score, index):
    """tsort32.md's 8-byte record: [score][zero pad to 4 bytes][index u32, little-endian]."""
    sb = np.array([score], dtype).view(np.uint8).tolist()
    return sb + [0] * (4 - len(sb)) + list(int(index).to_bytes(4, "little"))


def _sort32_cpu_row(dtype, scores, index, dst_cols):
    """One dst row as the cpu reference lays it out: block b's records from element 2*32*b
    (8 bytes per record, so 2-byte blocks of more than 16 records run into the next block's
    place, which the next block then overwrites)."""
    size = np.dtype(dtype).itemsize
    row = bytearray(dst_cols * size)
    for b in range(0, len(scores), 32):
        at = 2 * b * size
        for s, i in _sorted_pairs(scores[b : b + 32], index[b : b + 32]):
            row[at : at + 8] = bytes(_record_bytes(dtype, s, i))
            at += 8
    return np.frombuffer(bytes(row), np.uint8)


@pytest.mark.parametrize(
    "dtype,valid_col",
    [("float16", 32), ("float16", 64), ("float32", 17), ("float32", 63), ("float16", 17)],
)
def test_cpu_tsort32_half_and_partial_blocks(dtype, valid_col):
    R, cols = 2, 64
    rng = np.random.default_rng(valid_col)
    scores = rng.integers(-4, 5, (R, cols)).astype(dtype)  # few values: many ties
    index = rng.permutation(R * cols).astype(np.uint32).reshape(R, cols)
    dst_cols = 4 * cols if dtype == "float16" else 2 * cols
    src, idx = (
        vec(dtype, R, cols, valid=(R, valid_col)),
        vec("uint32", R, cols, valid=(R, valid_col)),
    )
    src_full, idx_full = vec(dtype, R, cols), vec("uint32", R, cols)
    d, d_full = vec(dtype, R, dst_cols), vec(dtype, R, dst_cols)
    tmp = vec(dtype, 1, cols)
    zeros = np.zeros((R, dst_cols), dtype)
    places = {src: 0, src_full: 0, idx: 0x1000, idx_full: 0x1000, d: 0x2000, d_full: 0x2000,
              tmp: 0x4000}  # fmt: skip

    def body():
        if valid_col % 32:
            pto.TSORT32(d, src, idx, tmp)  # the four-operand form (tail block)
        else:
            pto.TSORT32(d, src, idx)

    r = run_kernel(
        "cpu",
        [src, src_full, idx, idx_full, d, d_full, tmp],
        [(src_full, scores), (idx_full, index), (d_full, zeros)],
        body,
        places=places,
    )
    got = np.ascontiguousarray(r.tile_storage(d)).view(np.uint8).reshape(R, -1)
    for i in range(R):
        want = _sort32_cpu_row(dtype, scores[i, :valid_col], index[i, :valid_col], dst_cols)
        np.testing.assert_array_equal(got[i], want, err_msg=f"row {i}")


def test_npu_tsort32_half_blocks_follow_each_other():
    # tsort32.md: block b is written at dst element b*32*4 for half (no overlap)
    scores = np.arange(64, dtype=np.float16).reshape(1, 64)
    index = np.arange(64, dtype=np.uint32).reshape(1, 64)
    src, idx, d = vec("float16", 1, 64), vec("uint32", 1, 64), vec("float16", 1, 256)
    r = run_kernel("a2", [src, idx, d], [(src, scores), (idx, index)],
                   lambda: pto.TSORT32(d, src, idx))  # fmt: skip
    got = np.ascontiguousarray(r.tile_storage(d)).view(np.uint8)
    want = []
    for b in (0, 32):
        for s, i in _sorted_pairs(scores[0, b : b + 32], index[0, b : b + 32]):
            want += _record_bytes("float16", s, i)
    np.testing.assert_array_equal(got, np.array(want, np.uint8))


# -- TMRGSORT: exhausted, dst shorter than the lists, single-list blockLen ----------------------
def _float_records(pairs):
    """(score, index) pairs -> float32 elements of 8-byte records."""
    out = np.zeros(2 * len(pairs), np.float32)
    for k, (s, i) in enumerate(pairs):
        out[2 * k] = s
        out[2 * k + 1] = np.array([i], np.uint32).view(np.float32)[0]
    return out


def _merge_by_hand(lists, limit, exhausted):
    """The documented merge: greatest head score, lower list on ties; stop at ``limit`` records
    or, exhausted, when a list runs out. Returns (records, consumed per list)."""
    pos, out = [0] * len(lists), []
    while len(out) < limit:
        live = [k for k in range(len(lists)) if pos[k] < len(lists[k])]
        if not live:
            break
        best = max(lists[k][pos[k]][0] for k in live)
        k = min(k for k in live if lists[k][pos[k]][0] == best)
        out.append(lists[k][pos[k]])
        pos[k] += 1
        if exhausted and any(p == len(v) for p, v in zip(pos, lists)):
            break
    return out, pos


@pytest.mark.parametrize("exhausted", [False, True])
def test_cpu_tmrgsort_exhausted_stops_when_a_list_runs_out(exhausted):
    a = [(9.0, 0), (3.0, 1)]  # merged: 9, 8, 5, 3 - list 0 runs out at the 4th record
    b = [(8.0, 10), (5.0, 11), (1.0, 12), (0.0, 13)]
    xa, xb = _float_records(a)[None, :], _float_records(b)[None, :]
    s0, s1 = vec("float32", 1, 8, valid=(1, 4)), vec("float32", 1, 8)
    d, d_full = vec("float32", 1, 16), vec("float32", 1, 16)
    zeros = np.full((1, 16), -7.0, np.float32)
    places = {s0: 0, s1: 0x100, d: 0x200, d_full: 0x200}
    r = run_kernel("cpu", [s0, s1, d, d_full], [(s0, xa), (s1, xb), (d_full, zeros)],
                   lambda: pto.TMRGSORT(d, s0, s1, exhausted=exhausted), places=places)  # fmt: skip
    recs, _ = _merge_by_hand([a, b], 8, exhausted)
    assert len(recs) == (4 if exhausted else 6)
    want = np.full(16, -7.0, np.float32)  # dst past the written records keeps its bytes
    want[: 2 * len(recs)] = _float_records(recs)
    np.testing.assert_array_equal(np.asarray(r.tile_storage(d)).view(np.uint32),
                                  want.view(np.uint32))  # fmt: skip


def test_cpu_tmrgsort_dst_valid_cols_limit_the_merge():
    # top-k: a dst of valid 6 columns takes the 3 best records of 2 lists of 4
    a = [(9.0, 0), (5.0, 1), (5.0, 2), (0.0, 3)]
    b = [(7.0, 10), (5.0, 11), (2.0, 12), (1.0, 13)]
    xa, xb = _float_records(a)[None, :], _float_records(b)[None, :]
    s0, s1 = vec("float32", 1, 8), vec("float32", 1, 8)
    d = vec("float32", 1, 16, valid=(1, 6))
    r = run_kernel("cpu", [s0, s1, d], [(s0, xa), (s1, xb)], lambda: pto.TMRGSORT(d, s0, s1))
    recs, _ = _merge_by_hand([a, b], 3, False)
    assert [i for _, i in recs] == [0, 10, 1]
    got = np.asarray(r.tile_storage(d))[:6]
    np.testing.assert_array_equal(got.view(np.uint32), _float_records(recs).view(np.uint32))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_cpu_tmrgsort_single_list_block_len(dtype):
    # blockLen 64 elements = one sorted list; each 4 blocks (256 elements) merge into one
    size = np.dtype(dtype).itemsize
    rec = 8 // size
    per_block = 64 // rec
    rng = np.random.default_rng(3)
    cols = 512  # two groups of 4 blocks
    raw = np.zeros(cols * size, np.uint8)
    lists = []
    for blk in range(cols // 64):
        scores = sorted(rng.integers(-8, 8, per_block).tolist(), reverse=True)
        pairs = [(float(s), 100 * blk + k) for k, s in enumerate(scores)]
        lists.append(pairs)
        for k, (s, i) in enumerate(pairs):
            at = (blk * 64 + k * rec) * size
            raw[at : at + 8] = _record_bytes(dtype, s, i)
    data = raw.view(dtype).reshape(1, cols)
    src, d = vec(dtype, 1, cols), vec(dtype, 1, cols)
    r = run_kernel("cpu", [src, d], [(src, data)], lambda: pto.TMRGSORT(d, src, block_len=64))
    got = np.ascontiguousarray(r.tile_storage(d)).view(np.uint8)
    for g in range(2):
        recs, _ = _merge_by_hand(lists[4 * g : 4 * g + 4], 4 * per_block, False)
        want = [byte for s, i in recs for byte in _record_bytes(dtype, s, i)]
        np.testing.assert_array_equal(got[g * 256 * size : (g + 1) * 256 * size], want)


# -- TLOG / TLRELU on integers (cpu/ElementOp.h: the expressions are written for any T) ---------
@pytest.mark.parametrize("dtype", ["int16", "int32"])
def test_cpu_tlog_integers_truncate_the_double_log(dtype):
    # (T)std::log(double(x)): log 1 = 0, log 2 = 0.69 -> 0, log 3 = 1.09 -> 1, log 8 = 2.07 -> 2,
    # log 20 = 2.99 -> 2, log 21 = 3.04 -> 3, log 30000 = 10.3 -> 10
    x = np.array([[1, 2, 3, 8, 20, 21, 30000, 7] * 2], dtype)
    want = np.array([[0, 0, 1, 2, 2, 3, 10, 1] * 2], dtype)
    s, d = vec(dtype, 1, 16), vec(dtype, 1, 16)
    r = run_kernel("cpu", [s, d], [(s, x)], lambda: pto.TLOG(d, s))
    np.testing.assert_array_equal(np.asarray(r.tile_storage(d)).reshape(1, 16), want)
    assert not r.findings


def test_cpu_tlog_integer_zero_is_reported_undefined():
    x = np.array([[0, 1] * 8], np.int32)
    s, d = vec("int32", 1, 16), vec("int32", 1, 16)
    r = run_kernel("cpu", [s, d], [(s, x)], lambda: pto.TLOG(d, s))
    assert [f.code for f in r.findings] == ["F109"]
    assert "TLOG int32: 8 element(s)" in r.findings[0].message
    # x86-64: cvttsd2si of -inf is the "integer indefinite" 0x80000000
    assert np.asarray(r.tile_storage(d))[0] == np.iinfo(np.int32).min


@pytest.mark.parametrize("dtype", ["int16", "int32"])
def test_cpu_tlrelu_integers(dtype):
    # src > 0 ? src : src * s, the product in int and stored back to T (wraps for int16)
    x = np.array([[5, -3, 0, -20000, 7, -1, 2, -2] * 2], dtype)
    slope = 3
    prod = [v if v > 0 else v * slope for v in x[0].tolist()]
    bits = 8 * np.dtype(dtype).itemsize
    want = [((p + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) for p in prod]
    s, d = vec(dtype, 1, 16), vec(dtype, 1, 16)
    r = run_kernel("cpu", [s, d], [(s, x)], lambda: pto.TLRELU(d, s, slope))
    np.testing.assert_array_equal(np.asarray(r.tile_storage(d)), np.array(want, dtype))
