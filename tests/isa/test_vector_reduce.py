"""Row and column reductions (vector_isa.md 3.5, 3.17, 2.3): bit-exact per target.

Every expected value is computed here from the reference's description of each target's order,
written independently of ptosim (scalar loops; the lane tree as recursive halving of an
identity-padded power-of-two list), never taken from the simulator. Timing tests assert the
intrinsic sequences the reference lowering prescribes (timing.md V15-V18) and relations.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from tests.helpers.kernels import seeded, vec

DEV = {"cpu": "cpu", "a2a3": "a2", "a5": "950pr"}


# -- kernel plumbing ------------------------------------------------------------------------


def aligned(n, dt):
    b = 32 // np.dtype(dt).itemsize
    return -(-n // b) * b


def run(devname, x, body_fn, outs, extra=()):
    """TLOAD x into a src tile (cols padded to 32 B), sync, ``body_fn(src, *outs, *extra)``."""
    dev = pto.Device(devname)
    R, C = x.shape
    src = vec(x.dtype, R, aligned(C, x.dtype), valid=(R, C))
    g = dev.gm_array(x)

    @pto.kernel
    def k(g):
        addr = 0
        for t in (src, *outs, *extra):
            pto.TASSIGN(t, addr)
            addr += -(-t.geom.size_bytes // 32) * 32
        pto.TLOAD(src, pto.GlobalTensor(g, (1, 1, 1, R, C)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        body_fn(src, *outs, *extra)

    return dev.run(k, g)


def row_reduce(devname, op, x, dst_dt=None, tmp_cols=None):
    R, C = x.shape
    dst_dt = dst_dt or x.dtype
    dst = vec(dst_dt, aligned(R, dst_dt), 1, "ColMajor", valid=(R, 1))
    E = 256 // np.dtype(x.dtype).itemsize
    tmp = vec(x.dtype, R, tmp_cols or max(E, aligned(C, x.dtype)))
    r = run(devname, x, lambda s, d, t: getattr(pto, f"TROW{op}")(d, s, t), [dst], [tmp])
    return r.tile(dst).reshape(R), r


def col_reduce(devname, op, x, dst_dt=None, binary=False):
    R, C = x.shape
    dst_dt = dst_dt or x.dtype
    dst = vec(dst_dt, 1, aligned(C, dst_dt), valid=(1, C))
    extra = [vec(x.dtype, max(1, R // 2), aligned(C, x.dtype))] if binary else []

    def body(s, d, *t):
        if binary:
            pto.TCOLSUM(d, s, t[0], True)
        else:
            getattr(pto, f"TCOL{op}")(d, s)

    r = run(devname, x, body, [dst], extra)
    return r.tile(dst).reshape(C), r, dst


def bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def assert_bits(got, want):
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(bits(got), bits(want))


# -- independent formulations of each order ---------------------------------------------------
def halving_tree(vals, t):
    """The vcadd lane tree: recursive halving of the list padded with identities to 2^k."""
    n = 1
    while n < len(vals):
        n *= 2
    padded = list(vals) + [None] * (n - len(vals))

    def rec(v):
        if len(v) == 1:
            return v[0]
        a, b = rec(v[: len(v) // 2]), rec(v[len(v) // 2 :])
        if a is None or b is None:
            return a if b is None else b
        return t(np.add(t(a), t(b), dtype=t))

    return rec(padded)


def cpu_rowsum(row, dst_t):
    acc_t = np.float32 if dst_t in (np.float16,) else dst_t
    acc = acc_t(0)
    for v in row:
        acc = acc_t(acc + acc_t(v))
    return dst_t(acc)


def a2a3_rowsum(row, t):
    """vector_isa.md 3.5 step 3 written from the text, for one row, in T."""
    E = 256 // np.dtype(t).itemsize
    C = len(row)
    if C <= E:
        return halving_tree(row, t)
    n, r = divmod(C, E)
    ch = [np.array(row[k * E : (k + 1) * E], t) for k in range(n)]
    tmp = (
        [ch[0].copy()] if n == 1 else [(ch[2 * k] + ch[2 * k + 1]).astype(t) for k in range(n // 2)]
    )
    if n % 2 and n > 1:
        tmp[0] = (tmp[0] + ch[n - 1]).astype(t)
    for j in range(r):
        tmp[0][j] = t(tmp[0][j] + t(row[n * E + j]))
    m = len(tmp)
    while m > 1:
        new = [(tmp[2 * k] + tmp[2 * k + 1]).astype(t) for k in range(m // 2)]
        if m % 2:
            new[-1] = (new[-1] + tmp[m - 1]).astype(t)
        tmp, m = new, len(new)
    return halving_tree(list(tmp[0]), t)


def a5_rowsum(row, t):
    vle = 256 // np.dtype(t).itemsize
    acc = t(0)
    for c0 in range(0, len(row), vle):
        acc = t(acc + halving_tree(row[c0 : c0 + vle], t))
    return acc


ROWSUM = {"cpu": cpu_rowsum, "a2a3": a2a3_rowsum, "a5": a5_rowsum}

floats = st.floats(-1e3, 1e3, allow_nan=False, width=16)


@settings(max_examples=12, deadline=None)
@given(
    data=st.data(),
    dt=st.sampled_from([np.float16, np.float32]),
    C=st.integers(1, 700),
    R=st.integers(1, 3),
)
@pytest.mark.parametrize("target", DEV)
def test_rowsum_matches_the_targets_order(target, data, dt, C, R):
    vals = data.draw(st.lists(floats, min_size=R * C, max_size=R * C))
    x = np.array(vals, dtype=np.float64).reshape(R, C).astype(dt)
    got, _ = row_reduce(DEV[target], "SUM", x)
    want = np.array([ROWSUM[target](list(x[i]), dt) for i in range(R)], dtype=dt)
    assert_bits(got, want)


def test_rowsum_targets_differ_on_half():
    """f16: cpu accumulates in f32 and rounds once; a2a3/a5 round every add to f16."""
    x = np.array([[2048.0] + [1.0] * 127], dtype=np.float16)  # 2048 + 1 == 2048 in f16
    cpu, _ = row_reduce("cpu", "SUM", x)
    npu, _ = row_reduce("a2", "SUM", x)
    assert cpu[0] == np.float16(2048 + 127)
    assert npu[0] == a2a3_rowsum(list(x[0]), np.float16) != cpu[0]


def test_rowsum_half_into_float32_on_cpu():
    x = np.full((2, 40), 0.1, dtype=np.float16)
    got, _ = row_reduce("cpu", "SUM", x, dst_dt=np.float32)
    assert_bits(got, np.array([cpu_rowsum(list(r), np.float32) for r in x], np.float32))


@pytest.mark.parametrize("target", DEV)
def test_rowsum_special_static_shape(target):
    """a2a3 64x128 float32 with a DN dst: vcgadd groups of 8, adjacent blocks, vcgadd."""
    x = np.random.default_rng(1).standard_normal((64, 128)).astype(np.float32)
    got, r = row_reduce(DEV[target], "SUM", x)
    if target != "a2a3":
        want = np.array([ROWSUM[target](list(row), np.float32) for row in x], np.float32)
    else:
        g = np.array(
            [
                [halving_tree(list(row[b * 8 : b * 8 + 8]), np.float32) for b in range(16)]
                for row in x
            ]
        )
        blocks = (g[:, 0:8] + g[:, 8:16]).astype(np.float32)
        want = np.array([halving_tree(list(b), np.float32) for b in blocks], np.float32)
        names = [
            e.args["intrinsic"]
            for e in r.trace.events
            if e.opcode == "TROWSUM" and e.kind == "vector"
        ]
        assert names == ["vcgadd", "vadd", "vcgadd"]
    assert_bits(got, want)


@pytest.mark.parametrize("target", DEV)
@pytest.mark.parametrize("dt", [np.int16, np.int32])
def test_int_rowsum_wraps(target, dt):
    info = np.iinfo(dt)
    x = np.full((3, 37), info.max, dtype=dt)
    got, _ = row_reduce(DEV[target], "SUM", x)
    want = np.array(
        [(int(info.max) * 37 - int(info.min)) % (1 << (8 * x.itemsize)) + int(info.min)] * 3, dt
    )
    assert_bits(got, want)


def test_rowmax_leading_nan_cpu_vs_npu():
    x = np.array([[np.nan, 1.0, 5.0, 2.0], [1.0, np.nan, 5.0, 2.0]], dtype=np.float32)
    cpu, _ = row_reduce("cpu", "MAX", x)
    assert np.isnan(cpu[0]) and cpu[1] == 5.0  # std::max: a leading NaN sticks, later ignored
    for dev in ("a2", "950pr"):
        npu, _ = row_reduce(dev, "MAX", x)
        assert np.isnan(npu).all()  # IEEE maximum propagates NaN


@pytest.mark.parametrize("target", DEV)
def test_rowprod_order(target):
    x = np.random.default_rng(3).uniform(0.5, 1.5, (2, 70)).astype(np.float16)
    got, _ = row_reduce(DEV[target], "PROD", x)
    want = []
    for row in x:
        if target == "cpu":
            p = np.float16(1)
            for v in row:
                p = np.float16(np.float32(p) * np.float32(v))
        elif target == "a2a3":  # 16 lanes per block in f16, then a float32 lane product
            lanes = [np.float16(1)] * 16
            for j, v in enumerate(row):
                lanes[j % 16] = np.float16(np.float32(lanes[j % 16]) * np.float32(v))
            q = np.float32(1)
            for v in lanes:
                q = np.float32(q * np.float32(v))
            p = np.float16(q)
        else:
            p = np.float16(1)
            for c0 in range(0, 70, 128):
                seg = list(row[c0 : c0 + 128])
                while len(seg) > 1:
                    nxt = [
                        np.float16(np.float32(seg[k]) * np.float32(seg[k + 1]))
                        for k in range(0, len(seg) - 1, 2)
                    ]
                    seg = nxt + ([seg[-1]] if len(seg) % 2 else [])
                p = np.float16(np.float32(p) * np.float32(seg[0]))
        want.append(p)
    assert_bits(got, np.array(want, np.float16))


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rowargmax_first_index_and_value(devname):
    x = np.array([[1, 7, 3, 7], [9, 9, 0, 9], [-1, -5, -1, -5]], dtype=np.float32)
    R = 3
    idx = vec("int32", 8, 1, "ColMajor", valid=(R, 1))
    val = vec("float32", 8, 1, "ColMajor", valid=(R, 1))
    tmp = vec("float32", 1, 64)
    r = run(devname, x, lambda s, v, i, t: pto.TROWARGMAX(v, i, s, t), [val, idx], [tmp])
    assert r.tile(idx).ravel().tolist() == [1, 0, 0]
    assert r.tile(val).ravel().tolist() == [7, 9, -1]
    r = run(devname, x, lambda s, i, t: pto.TROWARGMIN(i, s, t), [idx], [tmp])
    assert r.tile(idx).ravel().tolist() == [0, 2, 1]


def test_a5_rowargmax_chunks_combine_by_a_strict_compare():
    """npu/a5/TRowReduceIdx.hpp: per 64-float chunk the first maximum (vcmax), chunks combined
    from (-inf, 0) by ``acc < chunk max``: ties across chunks keep the earlier chunk, and a
    chunk whose maximum is NaN never replaces (on a2 one IEEE scan: the NaN wins)."""
    x = np.ones((3, 130), np.float32)
    x[0, 3] = x[0, 100] = 8  # a tie across chunks 0 and 1: column 3
    x[1, 0] = np.nan  # chunk 0's maximum is NaN: not taken; chunk 1's 5 at column 70 is
    x[1, 70] = 5
    x[2, :] = -np.inf  # every value equals the identity: no chunk replaces it, index 0
    R = 3
    idx = vec("int32", 8, 1, "ColMajor", valid=(R, 1))
    val = vec("float32", 8, 1, "ColMajor", valid=(R, 1))
    tmp = vec("float32", 1, 64)
    body = lambda s, v, i, t: pto.TROWARGMAX(v, i, s, t)  # noqa: E731
    r = run("950pr", x, body, [val, idx], [tmp])
    assert r.tile(idx).ravel().tolist() == [3, 70, 0]
    assert r.tile(val).ravel().tolist() == [8, 5, -np.inf]
    r = run("a2", x, body, [val, idx], [vec("float32", 3, 16)])  # tmp: a row per src row
    assert r.tile(idx).ravel().tolist()[1] == 0


# -- column reductions ------------------------------------------------------------------------
def cpu_colsum(x, t):
    out = []
    for j in range(x.shape[1]):
        acc = t(0)
        for i in range(x.shape[0]):
            acc = t(acc + t(x[i, j]))
        out.append(acc)
    return np.array(out, t)


def a2a3_colsum(x, t):
    acc = x[0].astype(t)
    for i in range(1, x.shape[0]):
        acc = (acc + x[i]).astype(t)
    return acc


def a5_colsum(x, t):
    R = x.shape[0]
    acc = x[0].astype(t)
    for j in range((R - 1) // 2):
        acc = (acc + (x[2 * j + 1] + x[2 * j + 2]).astype(t)).astype(t)
    if (R - 1) % 2:
        acc = (acc + x[R - 1]).astype(t)
    return acc


def binary_colsum(x, t):
    rows = [x[i].astype(t) for i in range(x.shape[0])]
    if len(rows) == 1:
        return rows[0]
    tmp = [(rows[2 * k] + rows[2 * k + 1]).astype(t) for k in range(len(rows) // 2)]
    if len(rows) % 2:
        tmp[0] = (tmp[0] + rows[-1]).astype(t)
    while len(tmp) > 1:
        odd = tmp[-1] if len(tmp) % 2 else None
        tmp = [(tmp[2 * k] + tmp[2 * k + 1]).astype(t) for k in range(len(tmp) // 2)]
        if odd is not None:
            tmp[0] = (tmp[0] + odd).astype(t)
    return tmp[0]


COLSUM = {"cpu": cpu_colsum, "a2a3": a2a3_colsum, "a5": a5_colsum}


@settings(max_examples=10, deadline=None)
@given(data=st.data(), R=st.integers(1, 9), C=st.integers(1, 150))
@pytest.mark.parametrize("target", DEV)
def test_colsum_matches_the_targets_order(target, data, R, C):
    vals = data.draw(st.lists(floats, min_size=R * C, max_size=R * C))
    x = np.array(vals, dtype=np.float64).reshape(R, C).astype(np.float16)
    got, _, _ = col_reduce(DEV[target], "SUM", x)
    assert_bits(got, COLSUM[target](x, np.float16))
    if target != "cpu":
        got, _, _ = col_reduce(DEV[target], "SUM", x, binary=True)
        assert_bits(got, binary_colsum(x, np.float16))


@pytest.mark.parametrize("devname", ["cpu", "a2"])
def test_colmax_a2a3_writes_row0_padding(devname):
    """a2a3 copies src row 0 to dst in whole 32-byte blocks: dst[0, 5:8] = src[0, 5:8]."""
    x = np.arange(3 * 8, dtype=np.float32).reshape(3, 8)
    view = vec("float32", 3, 8, valid=(3, 5))
    dst = vec("float32", 1, 8, valid=(1, 5))

    def body(s, d, v):
        pto.TASSIGN(v, 0)  # the loaded 3x8 tile seen with a 3x5 valid region
        pto.TCOLMAX(d, v)

    r = run(devname, x, body, [dst], [view])
    raw = r.tile_storage(dst)
    assert raw[:5].tolist() == [16, 17, 18, 19, 20]
    if devname == "a2":
        assert raw[5:8].tolist() == [5, 6, 7]
    else:
        assert np.all(raw[5:8].view(np.uint32) == 0xFFFFFFFF)


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_colargmin_first_row(devname):
    x = np.array([[3, 1, 2], [1, 1, 5], [1, 0, 2]], dtype=np.float32)
    idx = vec("int32", 1, 8, valid=(1, 3))
    r = run(devname, x, lambda s, i, t: pto.TCOLARGMIN(i, s, t), [idx], [vec("float32", 1, 8)])
    assert r.tile(idx).ravel().tolist() == [1, 2, 0]


@pytest.mark.parametrize("dt,C", [("float32", 255), ("half", 300)])
def test_a2a3_colarg_tmp_is_a_scratch_address(dt, C):
    """npu/a2a3/TColReduceIdx.hpp uses only tmp's address and dtype: the library's tests pass a
    1x32 tmp for 255 columns; the first row index of each column's extreme, as numpy's."""
    rng = np.random.default_rng(7)
    x = rng.integers(-4, 5, size=(6, C)).astype(dt)  # small ints: many ties, first row wins
    idx_dt = "int32"
    idx = vec(idx_dt, 1, aligned(C, np.int32), valid=(1, C))
    for op, ref in (("MAX", np.argmax), ("MIN", np.argmin)):
        fn = getattr(pto, f"TCOLARG{op}")
        r = run("a2", x, lambda s, i, t, fn=fn: fn(i, s, t), [idx], [vec(dt, 1, 32)])
        assert r.tile(idx).ravel().tolist() == ref(x, axis=0).tolist()


@pytest.mark.parametrize("dt", ["int8", "uint16", "float32"])
def test_a5_colarg_first_row_as_numpy(dt):
    """npu/a5/TColReduceIdx.hpp: a strict compare row by row, any 1/2/4-byte source (int8 only
    on a5) with 32-bit indices: numpy's argmax/argmin (first occurrence)."""
    rng = np.random.default_rng(3)
    C = 150
    x = rng.integers(0, 6, size=(9, C)).astype(dt)  # many ties
    idx = vec("uint32", 1, aligned(C, np.uint32), valid=(1, C))
    for op, ref in (("MAX", np.argmax), ("MIN", np.argmin)):
        fn = getattr(pto, f"TCOLARG{op}")
        r = run("950pr", x, lambda s, i, t, fn=fn: fn(i, s, t), [idx], [vec(dt, 1, 32)])
        assert r.tile(idx).ravel().tolist() == ref(x, axis=0).tolist()


def test_a5_colargmax_signed_zero_tie_keeps_the_first_row():
    """a5 compares with vcmp_gt: -0 and +0 are equal, row 0 stays; a2's IEEE scan takes +0."""
    x = np.array([[-0.0, 1.0], [0.0, 1.0]], np.float32)
    idx = vec("int32", 1, 8, valid=(1, 2))
    val = vec("float32", 1, 8, valid=(1, 2))
    body = lambda s, v, i, t: pto.TCOLARGMAX(v, i, s, t)  # noqa: E731
    r = run("950pr", x, body, [val, idx], [vec("float32", 1, 8)])
    assert r.tile(idx).ravel().tolist() == [0, 0]
    assert np.signbit(r.tile(val).ravel()[0])
    r = run("a2", x, body, [val, idx], [vec("float32", 1, 8)])
    assert r.tile(idx).ravel().tolist() == [1, 0]


def test_a2a3_colarg_scratch_past_the_end_of_ub_is_an_error():
    x = np.zeros((2, 255), np.float32)
    idx = vec("int32", 1, 256, valid=(1, 255))
    tmp = vec("float32", 1, 32)
    top = pto.Device("a2").config.memory.ub_size_bytes - 128  # tmp's 128 bytes end UB

    def body(s, i):
        pto.TASSIGN(tmp, top)
        pto.TCOLARGMAX(i, s, tmp)  # the scratch is 2 x 64 floats = 512 bytes

    with pytest.raises(pto.OutOfBoundsError, match="tmp scratch of 128 elements"):
        run("a2", x, body, [idx])


# -- checks -----------------------------------------------------------------------------------
def test_dst_rows_must_match():
    x = np.zeros((4, 8), np.float32)
    dst = vec("float32", 8, 1, "ColMajor", valid=(3, 1))
    with pytest.raises(pto.ConstraintError, match="valid-rows"):
        run("cpu", x, lambda s, d, t: pto.TROWSUM(d, s, t), [dst], [vec("float32", 4, 64)])


def test_a2a3_tmp_too_small():
    x = np.zeros((4, 300), np.float32)
    dst = vec("float32", 8, 1, "ColMajor", valid=(4, 1))
    with pytest.raises(pto.ConstraintError, match="tmp-size"):
        run("a2", x, lambda s, d, t: pto.TROWSUM(d, s, t), [dst], [vec("float32", 4, 64)])


def _rowarg_a2(x, tmp_shape, with_val):
    R = x.shape[0]
    idx = vec("int32", aligned(R, np.int32), 1, "ColMajor", valid=(R, 1))
    tmp = vec("float32", *tmp_shape)
    if with_val:
        val = vec("float32", aligned(R, np.float32), 1, "ColMajor", valid=(R, 1))
        return run("a2", x, lambda s, v, i, t: pto.TROWARGMAX(v, i, s, t), [val, idx], [tmp]), idx
    return run("a2", x, lambda s, i, t: pto.TROWARGMAX(i, s, t), [idx], [tmp]), idx


@pytest.mark.parametrize(
    "C,with_val,small,enough",
    [
        (8, False, None, (1, 8)),  # one repeat, index only: vcmax straight into dst, no tmp
        (8, True, (1, 24), (1, 32)),  # one repeat with values: 16 packed (value, index) pairs
        (100, False, (16, 8), (16, 16)),  # two chunks: pairs in [0, 4), final pair at 8: 10
        (100, True, (8, 16), (16, 16)),  # ... on each of the 16 rows
        # 4100 > 64 * 64: 65 chunk indices, 2 second-level ones at 72, final pair at 72 + 8
        (4100, False, (2, 80), (2, 88)),
    ],
)
def test_a2a3_rowarg_tmp_size_by_lowering_path(C, with_val, small, enough):
    """a2a3/TRowReduceIdxOps.hpp: which paths use tmp and how much of it they read back."""
    R = enough[0] if C > 64 else 16
    x = seeded("rowarg-tmp", C).uniform(-8, 8, (R, C)).astype(np.float32)
    r, idx = _rowarg_a2(x, enough, with_val)
    assert r.tile(idx).ravel().tolist() == np.argmax(x, axis=1).tolist()
    if small is not None:
        with pytest.raises(pto.ConstraintError, match="tmp-size") as ei:
            _rowarg_a2(x, small, with_val)
        assert f"given {small[0]}x{small[1]}" in str(ei.value)


def test_rowsum_dtype_pair_rejected():
    x = np.zeros((2, 8), np.float32)
    dst = vec("half", 16, 1, "ColMajor", valid=(2, 1))
    with pytest.raises(pto.ConstraintError, match="dtype-pair"):
        run("cpu", x, lambda s, d, t: pto.TROWSUM(d, s, t), [dst], [vec("float32", 2, 64)])


# -- a2a3 timing: the reference intrinsic sequences -------------------------------------------
def vector_calls(r, opcode):
    return [e for e in r.trace.events if e.opcode == opcode and e.kind in ("vector", "barrier")]


def names(r, opcode):
    return [
        e.args.get("intrinsic", "barrier") if e.kind == "vector" else "barrier"
        for e in vector_calls(r, opcode)
    ]


def test_v15_rowmax_is_one_count_mode_vcmax():
    x = np.zeros((64, 64), np.float32)
    _, r = row_reduce("a2", "MAX", x)
    assert names(r, "TROWMAX") == ["vcmax", "barrier"]
    (e,) = [e for e in vector_calls(r, "TROWMAX") if e.kind == "vector"]
    assert e.args["count_mode"] and e.args["repeats"] == 64


def test_v16_rowsum_half_is_one_count_mode_vcadd():
    x = np.zeros((64, 128), np.float16)
    _, r = row_reduce("a2", "SUM", x)
    assert names(r, "TROWSUM") == ["vcadd", "barrier"]


def test_rowsum_chunk_tree_calls():
    """C = 5E + 3: 2 pair vadds, 1 odd-chunk vadd, 1 remainder vadd, tree of 2 -> 1 vadd, vcadd."""
    x = np.zeros((4, 5 * 64 + 3), np.float32)
    _, r = row_reduce("a2", "SUM", x)
    seq = [n for n in names(r, "TROWSUM") if n != "barrier"]
    assert seq == ["vadd"] * 5 + ["vcadd"]
    assert names(r, "TROWSUM").count("barrier") == 6


def test_v17_colmax_per_row_vmax_and_barrier():
    x = np.zeros((64, 64), np.float32)
    _, r, _ = col_reduce("a2", "MAX", x)
    seq = names(r, "TCOLMAX")
    assert seq[:2] == ["copy_ubuf_to_ubuf", "barrier"]
    assert seq[2:] == ["vmax", "barrier"] * 63


def test_v18_binary_colsum_tree():
    x = np.zeros((64, 64), np.float32)
    _, r, _ = col_reduce("a2", "SUM", x, binary=True)
    seq = names(r, "TCOLSUM")
    assert seq.count("vadd") == 63 and seq[-1] == "copy_ubuf_to_ubuf"
    assert seq[:33] == ["vadd"] * 32 + ["barrier"]


def test_int_rowsum_has_per_row_handshakes_and_scalar_combine():
    x = np.ones((5, 40), np.int32)
    _, r = row_reduce("a2", "SUM", x)
    evs = [e for e in r.trace.events if e.opcode == "TROWSUM"]
    scalars = [e for e in evs if e.kind == "scalar"]
    sets = [e for e in evs if e.kind == "set_flag"]
    assert len(scalars) == 5 and len(sets) == 10  # V->S and S->V per row
    dups = [e for e in evs if e.kind == "vector" and e.args["intrinsic"] == "vector_dup"]
    adds = [e for e in evs if e.kind == "vector" and e.args["intrinsic"] == "vadd"]
    assert len(dups) == 5 and len(adds) == 5 * 5  # ceil(40 / 8) blocks per row


def test_int_rowsum_costs_more_than_float_count_mode():
    xi, xf = np.ones((16, 64), np.int32), np.ones((16, 64), np.float32)
    _, ri = row_reduce("a2", "SUM", xi)
    _, rf = row_reduce("a2", "SUM", xf)
    assert ri.cycles > rf.cycles


def test_a5_row_reduce_more_columns_cost_more():
    _, small = row_reduce("950pr", "SUM", np.zeros((8, 64), np.float32))
    _, big = row_reduce("950pr", "SUM", np.zeros((8, 640), np.float32))
    assert big.cycles > small.cycles
    evs = [e for e in big.trace.events if e.opcode == "TROWSUM" and e.kind == "vector"]
    assert {e.args["intrinsic"] for e in evs} >= {"vf_startup", "vlds", "vcadd", "vsts"}
