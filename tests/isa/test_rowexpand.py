"""TROWEXPAND and TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}: seed 002, semantics.md 3.4, D9, D10.

Every expected value is computed here with numpy from the seed's mathematics (float64 compute
rounded once to T, or exact integer arithmetic wrapped to T), never taken from the simulator.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from tests.helpers.devices import ONE_PER_TARGET
from tests.helpers.kernels import assert_bits_equal, constraint, run_kernel, seeded, vec

DEV = {"cpu": "cpu", "a2a3": "a2", "a5": "950pr"}
TARGETS = tuple(DEV)
TARGET_OF = {"cpu": "cpu", "a2": "a2a3", "a3": "a2a3", "950pr": "a5", "950dt": "a5"}
OPS = ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF")
FLOATS = ("half", "bfloat16", "float32")
NP = {
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "half": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float32": np.float32,
    "int64": np.int64,
    "uint64": np.uint64,
}
BASE = {
    "a2a3": ("int32", "int16", "half", "float32"),
    "a5": ("int32", "uint32", "float32", "int16", "uint16", "half", "bfloat16", "uint8", "int8"),
    "cpu": ("float32", "half", "int32", "int16", "uint32", "uint16"),
}
SCRATCH = 184 * 1024


def allowed(target, op):
    names = BASE[target] + (("uint8",) if target == "cpu" and op == "MUL" else ())
    return tuple(n for n in names if op != "EXPDIF" or n in FLOATS)


def bs_of(dt):
    return 32 // np.dtype(NP[dt]).itemsize


def is_int(dt):
    return np.issubdtype(np.dtype(NP[dt]), np.integer)


def op_fn(op):
    return getattr(pto, f"TROWEXPAND{op}")


# -- independent reference ----------------------------------------------------------------
def reference(op, dt, a, b):
    """``a OP b`` per the seed: float64 math rounded once to T; integers exact then wrapped."""
    npdt = NP[dt]
    if is_int(dt):
        x, y = a.astype(np.int64), b.astype(np.int64)
        with np.errstate(all="ignore"):
            r = {
                "ADD": lambda: x + y,
                "SUB": lambda: x - y,
                "MUL": lambda: x * y,
                "DIV": lambda: np.trunc(x / y).astype(np.int64),
                "MAX": lambda: np.maximum(x, y),
                "MIN": lambda: np.minimum(x, y),
            }[op]()
        return r.astype(npdt)
    if op == "EXPDIF":  # the difference rounded to T, then exp in double rounded once to T
        d = (a.astype(np.float64) - b.astype(np.float64)).astype(npdt)
        return np.exp(d.astype(np.float64)).astype(npdt)
    x, y = a.astype(np.float64), b.astype(np.float64)
    r = {
        "ADD": x + y,
        "SUB": x - y,
        "MUL": x * y,
        "DIV": x / y,
        "MAX": np.maximum(x, y),
        "MIN": np.minimum(x, y),
    }[op]
    return r.astype(npdt)


def rand(rng, dt, shape, *, divisor=False, small=False):
    npdt = NP[dt]
    if is_int(dt):
        info = np.iinfo(npdt)
        v = rng.integers(int(info.min), int(info.max), size=shape, endpoint=True, dtype=np.int64)
        if divisor:
            v[v == 0] = 1
        return v.astype(npdt)
    lim = 3.0 if small else 8.0
    v = rng.uniform(-lim, lim, size=shape)
    if divisor:
        v = np.where(np.abs(v) < 0.25, 0.5, v)
    return v.astype(npdt)


def colvec(dt, rows, valid_rows=None):
    """A ColMajor [Rows, 1] tile; Rows rounded up so that Rows*sizeof(T) is 32-byte aligned."""
    b = bs_of(dt)
    tile_rows = -(-rows // b) * b
    return vec(dt, tile_rows, 1, "ColMajor", valid=(valid_rows or rows, 1))


def binary_case(devname, op, dt, mode, expanded, *, R=6, C=None, rng=None, tmp=None):
    """Build and run one TROWEXPAND<op>; return (run, dst, expected, dst tile)."""
    rng = rng or seeded(devname, op, dt, mode, expanded, R, C)
    b = bs_of(dt)
    C = 2 * b + 3 if C is None else C
    cols = -(-max(C, 1) // b) * b
    full_t = vec(dt, R + 2, cols, valid=(R, C))
    e_t = colvec(dt, R) if mode == 1 else vec(dt, R + 2, b, valid=(R, b))
    dst = vec(dt, R + 2, cols, valid=(R, C))
    full_d = rand(
        rng, dt, (R, C), divisor=(op == "DIV" and expanded == "src0"), small=op == "EXPDIF"
    )
    e_d = rand(
        rng,
        dt,
        (R, 1 if mode == 1 else b),
        divisor=(op == "DIV" and expanded == "src1"),
        small=op == "EXPDIF",
    )
    src0, src1 = (full_t, e_t) if expanded == "src1" else (e_t, full_t)
    extra = [tmp] if tmp is not None else []

    def body():
        op_fn(op)(dst, src0, src1, *extra)

    run = run_kernel(devname, [full_t, e_t, dst] + extra, [(full_t, full_d), (e_t, e_d)], body)
    eb = e_d[:, np.zeros(C, dtype=int)] if mode == 1 else e_d[:, np.arange(C) % b]
    a, bb = (full_d, eb) if expanded == "src1" else (eb, full_d)
    return run, dst, reference(op, dt, a, bb)


def untouched_outside_valid(run, tile):
    raw = run.tile_storage(tile)
    r, c = tile.valid
    mask = np.ones((tile.rows, tile.cols), dtype=bool)
    mask[:r, :c] = False
    u = np.dtype(f"u{raw.dtype.itemsize}")
    outside = raw.reshape(tile.rows, tile.cols)[mask].view(u)
    assert np.all(outside == np.iinfo(u).max), "dst written outside its valid region"


# -- seed 002: the two modes of TROWEXPANDMAX on every device --------------------------------
@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_seed_mode1_scalar_per_row(devname):
    # dst[i,j] = max(src0[i,j], s_i) with s_i from a ColMajor [R,1] src1
    src0 = np.array(
        [
            [1, 5, -2, 7, 0, 3, 9, -8],
            [4, 4, 4, 4, 4, 4, 4, 4],
            [-1, -2, -3, -4, -5, -6, -7, -9],
            [10, 0, 10, 0, 10, 0, 10, 0],
        ],
        dtype=np.float32,
    )
    s = np.array([[3], [4], [-5], [20]], dtype=np.float32)
    t0, t1, d = vec("float32", 4, 8), colvec("float32", 4), vec("float32", 4, 8)
    run = run_kernel(
        devname, [t0, t1, d], [(t0, src0), (t1, s)], lambda: pto.TROWEXPANDMAX(d, t0, t1)
    )
    want = np.array(
        [[max(src0[i, j], s[i, 0]) for j in range(8)] for i in range(4)], dtype=np.float32
    )
    assert_bits_equal(run.tile(d), want)


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_seed_mode2_block_per_row(devname):
    # dst[i,j] = max(src0[i,j], b_i[j mod 16]) with a RowMajor [R,16] half src1
    rng = np.random.default_rng(2)
    src0 = rng.integers(-50, 50, size=(3, 40)).astype(np.float16)
    blk = rng.integers(-50, 50, size=(3, 16)).astype(np.float16)
    t0, t1, d = (
        vec("half", 3, 48, valid=(3, 40)),
        vec("half", 3, 16),
        vec("half", 3, 48, valid=(3, 40)),
    )
    run = run_kernel(
        devname, [t0, t1, d], [(t0, src0), (t1, blk)], lambda: pto.TROWEXPANDMAX(d, t0, t1)
    )
    want = np.array(
        [[max(src0[i, j], blk[i, j % 16]) for j in range(40)] for i in range(3)], dtype=np.float16
    )
    assert_bits_equal(run.tile(d), want)
    untouched_outside_valid(run, d)


# -- every op x target x dtype x mode x placement --------------------------------------------
SWEEP = [(t, op, dt) for t in TARGETS for op in OPS for dt in allowed(t, op)]


@pytest.mark.parametrize("expanded", ["src1", "src0"])
@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("target,op,dt", SWEEP)
def test_family_matches_reference(target, op, dt, mode, expanded):
    run, dst, want = binary_case(DEV[target], op, dt, mode, expanded)
    assert_bits_equal(run.tile(dst), want)
    untouched_outside_valid(run, dst)
    assert run.findings == []


@pytest.mark.parametrize("devname", ONE_PER_TARGET)
def test_plain_rowexpand_colmajor_and_rowmajor_sources(devname):
    rng = np.random.default_rng(5)
    col = rng.integers(-100, 100, size=(5, 1)).astype(np.int16)
    rowsrc = rng.integers(-100, 100, size=(5, 16)).astype(np.int16)
    s1, s2 = colvec("int16", 5), vec("int16", 5, 16)
    d1, d2 = vec("int16", 6, 32, valid=(5, 30)), vec("int16", 6, 32, valid=(5, 30))

    def body():
        pto.TROWEXPAND(d1, s1)
        pto.TROWEXPAND(d2, s2)

    run = run_kernel(devname, [s1, s2, d1, d2], [(s1, col), (s2, rowsrc)], body)
    assert_bits_equal(run.tile(d1), np.repeat(col, 30, axis=1))
    assert_bits_equal(run.tile(d2), np.repeat(rowsrc[:, :1], 30, axis=1))
    untouched_outside_valid(run, d1)


@pytest.mark.parametrize("dt", ["int8", "bfloat16", "float32", "uint32"])
@pytest.mark.parametrize("target", TARGETS)
def test_plain_rowexpand_dtypes(target, dt):
    rng = seeded(target, dt)
    col = rand(rng, dt, (4, 1))
    s, d = colvec(dt, 4), vec(dt, 4, 2 * bs_of(dt))
    run = run_kernel(DEV[target], [s, d], [(s, col)], lambda: pto.TROWEXPAND(d, s))
    assert_bits_equal(run.tile(d), np.repeat(col, 2 * bs_of(dt), axis=1))


@pytest.mark.parametrize("dt", ["int64", "uint64"])
def test_a5_plain_rowexpand_64bit(dt):
    # npu/a5 Int64RowExpand: element (r, 0) of src (RowMajor or a ColMajor vector) to the row
    big = [2**63 - 1, 2**62 + 5, 7, 2**40] if dt == "int64" else [2**64 - 1, 2**63, 7, 2**40]
    col = np.array([[v] for v in big], np.dtype(dt))
    rowsrc = np.array([[v, 1, 2, 3] for v in big[::-1]], np.dtype(dt))
    s1, s2 = colvec(dt, 4), vec(dt, 4, 4)
    d1, d2 = vec(dt, 4, 16, valid=(4, 13)), vec(dt, 4, 16, valid=(4, 13))

    def body():
        pto.TROWEXPAND(d1, s1)
        pto.TROWEXPAND(d2, s2)

    run = run_kernel("950pr", [s1, s2, d1, d2], [(s1, col), (s2, rowsrc)], body)
    assert_bits_equal(run.tile(d1), np.repeat(col, 13, axis=1))
    assert_bits_equal(run.tile(d2), np.repeat(rowsrc[:, :1], 13, axis=1))
    untouched_outside_valid(run, d1)


def test_a5_64bit_rowexpand_wider_than_one_register_pair_is_unsupported():
    # one interleaved store of two 64-lane b32 registers per row: 64 int64 columns at most
    def body():
        pto.TROWEXPAND(vec("int64", 2, 72), colvec("int64", 2))

    with pytest.raises(pto.UnsupportedError) as ei:
        run_kernel("950pr", [], [], body)
    assert "b64-row-width" in str(ei.value) and "72" in str(ei.value)


# -- hypothesis properties ----------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    target=st.sampled_from(TARGETS),
    data=st.data(),
    mode=st.sampled_from([1, 2]),
    expanded=st.sampled_from(["src0", "src1"]),
    R=st.integers(1, 20),
    seed=st.integers(0, 2**32 - 1),
)
def test_max_equals_numpy_maximum(target, data, mode, expanded, R, seed):
    dt = data.draw(st.sampled_from(allowed(target, "MAX")))
    b = bs_of(dt)
    # C == 1 in mode 1 makes both sources match dst (the tie-break, tested separately)
    C = data.draw(st.integers(2 if mode == 1 else 1, 3 * b))
    rng = np.random.default_rng(seed)
    full = rand(rng, dt, (R, C))
    e = rand(rng, dt, (R, 1 if mode == 1 else b))
    cols = -(-C // b) * b
    ft, dst = vec(dt, R, cols, valid=(R, C)), vec(dt, R, cols, valid=(R, C))
    et = colvec(dt, R) if mode == 1 else vec(dt, R, b)
    s0, s1 = (ft, et) if expanded == "src1" else (et, ft)
    run = run_kernel(
        DEV[target], [ft, et, dst], [(ft, full), (et, e)], lambda: pto.TROWEXPANDMAX(dst, s0, s1)
    )
    eb = np.broadcast_to(e, (R, C)) if mode == 1 else np.tile(e, (1, -(-C // b)))[:, :C]
    want = np.maximum(full, eb) if expanded == "src1" else np.maximum(eb, full)
    assert_bits_equal(run.tile(dst), want.astype(NP[dt]))


def _finite_bits(dt, n):
    u = np.uint16
    if dt == "half":
        return st.lists(
            st.integers(0, 0xFFFF).filter(lambda v: (v & 0x7C00) != 0x7C00), min_size=n, max_size=n
        ).map(lambda v: np.array(v, u).view(np.float16))
    return st.lists(
        st.integers(0, 0xFFFF).filter(lambda v: (v & 0x7F80) != 0x7F80), min_size=n, max_size=n
    ).map(lambda v: np.array(v, u).view(ml_dtypes.bfloat16))


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    dt=st.sampled_from(["half", "bfloat16"]),
    op=st.sampled_from(["ADD", "SUB", "MUL", "DIV"]),
)
def test_low_precision_is_float32_compute_single_rounding(data, dt, op):
    R, C = 4, 16
    full = data.draw(_finite_bits(dt, R * C)).reshape(R, C)
    e = data.draw(_finite_bits(dt, R)).reshape(R, 1)
    if op == "DIV":
        e = np.where(e.astype(np.float32) == 0, np.array(1, NP[dt]), e)
    target = "a5" if dt == "bfloat16" else data.draw(st.sampled_from(TARGETS))
    ft, et, dst = vec(dt, R, C), colvec(dt, R), vec(dt, R, C)
    run = run_kernel(
        DEV[target], [ft, et, dst], [(ft, full), (et, e)], lambda: op_fn(op)(dst, ft, et)
    )
    # float32 compute then one rounding to T ...
    x, y = full.astype(np.float32), np.broadcast_to(e, (R, C)).astype(np.float32)
    with np.errstate(all="ignore"):
        f32 = {"ADD": x + y, "SUB": x - y, "MUL": x * y, "DIV": x / y}[op]
        exact = {
            "ADD": x.astype(np.float64) + y,
            "SUB": x.astype(np.float64) - y,
            "MUL": x.astype(np.float64) * y,
            "DIV": x.astype(np.float64) / y,
        }[op]
    got = run.tile(dst)
    with np.errstate(over="ignore"):  # overflow to inf is the IEEE answer
        assert_bits_equal(got, f32.astype(NP[dt]))
        # ... which is the correctly rounded result (no double-rounding error)
        assert_bits_equal(got, exact.astype(NP[dt]))


# -- operand order, wrapping, integer division ---------------------------------------------
@pytest.mark.parametrize("op", ["SUB", "DIV"])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_operand_order_both_placements(devname, op):
    full = np.array(
        [[10, 20, 30, 40, 50, 60, 70, 80], [8, 16, 24, 32, 40, 48, 56, 64]], dtype=np.float32
    )
    e = np.array([[2], [8]], dtype=np.float32)
    outs = {}
    for placement in ("src1", "src0"):
        ft, et, d = vec("float32", 2, 8), colvec("float32", 2), vec("float32", 2, 8)
        s0, s1 = (ft, et) if placement == "src1" else (et, ft)
        run = run_kernel(
            devname,
            [ft, et, d],
            [(ft, full), (et, e)],
            lambda s0=s0, s1=s1, d=d: op_fn(op)(d, s0, s1),
        )
        outs[placement] = run.tile(d)
    if op == "SUB":
        np.testing.assert_array_equal(outs["src1"], full - e)  # src0 full - src1 expanded
        np.testing.assert_array_equal(outs["src0"], e - full)  # src0 expanded - src1 full
    else:
        np.testing.assert_array_equal(outs["src1"], full / e)
        np.testing.assert_array_equal(outs["src0"], e / full)


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("dt", ["int32", "int16"])
def test_add_wraps_integers(devname, dt):
    info = np.iinfo(NP[dt])
    bw = bs_of(dt)
    full = np.full((2, bw), info.max, dtype=NP[dt])
    full[1] = info.min
    e = np.array([[1], [-1]], dtype=NP[dt])
    ft, et, d = vec(dt, 2, bw), colvec(dt, 2), vec(dt, 2, bw)
    run = run_kernel(
        devname, [ft, et, d], [(ft, full), (et, e)], lambda: pto.TROWEXPANDADD(d, ft, et)
    )
    want = np.empty((2, bw), dtype=NP[dt])
    want[0], want[1] = info.min, info.max  # max + 1 -> min, min - 1 -> max
    assert_bits_equal(run.tile(d), want)


@pytest.mark.parametrize("devname", ["cpu", "950pr"])
def test_uint8_mul_wraps(devname):
    full = np.arange(200, 232, dtype=np.uint8).reshape(1, 32)
    e = np.array([[3]], dtype=np.uint8)
    ft, et, d = vec("uint8", 1, 32), colvec("uint8", 1), vec("uint8", 1, 32)
    run = run_kernel(
        devname, [ft, et, d], [(ft, full), (et, e)], lambda: pto.TROWEXPANDMUL(d, ft, et)
    )
    assert_bits_equal(run.tile(d), ((full.astype(np.int64) * 3) % 256).astype(np.uint8))


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_integer_div_truncates_toward_zero(devname):
    full = np.array([[7, -7, 7, -7, -2147483648, 9, 0, -1]], dtype=np.int32)
    e = np.array([[-2, -2, 2, 2, -1, 3, 5, 4]], dtype=np.int32)  # mode 2: one block per row
    ft, et, d = vec("int32", 1, 8), vec("int32", 1, 8), vec("int32", 1, 8)
    run = run_kernel(
        devname, [ft, et, d], [(ft, full), (et, e)], lambda: pto.TROWEXPANDDIV(d, ft, et)
    )
    assert run.tile(d).tolist() == [[-3, 3, 3, -3, -2147483648, 3, 0, 0]]


@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_integer_div_by_zero_raises(devname, mode):
    full = np.arange(1, 33, dtype=np.int32).reshape(4, 8)
    e = np.array([[1], [2], [3], [0]], dtype=np.int32)
    e = e if mode == 1 else np.repeat(e, 8, axis=1)
    ft, d = vec("int32", 4, 8), vec("int32", 4, 8)
    et = colvec("int32", 4) if mode == 1 else vec("int32", 4, 8)
    with pytest.raises(pto.ExecutionError) as ei:
        run_kernel(
            devname, [ft, et, d], [(ft, full), (et, e)], lambda: pto.TROWEXPANDDIV(d, ft, et)
        )
    assert ei.value.code == "PTO401"
    assert "TROWEXPANDDIV" in str(ei.value) and "row 3" in str(ei.value)


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_float_div_by_zero_is_ieee(devname):
    full = np.array([[1, -1, 0, 2, 3, 4, 5, 6]], dtype=np.float32)
    e = np.array([[0]], dtype=np.float32)
    ft, et, d = vec("float32", 1, 8), colvec("float32", 1), vec("float32", 1, 8)
    run = run_kernel(
        devname, [ft, et, d], [(ft, full), (et, e)], lambda: pto.TROWEXPANDDIV(d, ft, et)
    )
    got = run.tile(d)[0]
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


# -- D9: mode 2 row pitch; a5 mode 1 1-D path ----------------------------------------------
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_d9_mode2_pitch(devname):
    rng = np.random.default_rng(9)
    R, C = 6, 20
    storage = rng.integers(-99, 99, size=(8, 16)).astype(np.float32)  # E: 8x16 tile
    full = rng.integers(-99, 99, size=(R, C)).astype(np.float32)
    et, ft, d = (
        vec("float32", 8, 16),
        vec("float32", R, 24, valid=(R, C)),
        vec("float32", R, 24, valid=(R, C)),
    )

    def body():
        et.set_valid(R, 8)  # mode 2: valid_col == 8, but the tile's Cols is 16
        pto.TROWEXPANDSUB(d, ft, et)

    run = run_kernel(devname, [et, ft, d], [(et, storage), (ft, full)], body)
    flat = storage.reshape(-1)
    pitch = 16 if devname == "cpu" else 8  # cpu honours Cols; a2a3/a5 read at 32/sizeof(T)
    blocks = np.stack([flat[i * pitch : i * pitch + 8] for i in range(R)])
    assert_bits_equal(run.tile(d), full - blocks[:, np.arange(C) % 8])


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_mode1_colmajor_e_with_wide_cols(devname, dynamic):
    # E is a 16x4 ColMajor tile used with valid (16, 1). a5's 1-D path (dst Cols < 64 floats,
    # static valid == Cols) reads E + i*E.Cols; everything else reads E(i, 0) = storage[i].
    rng = np.random.default_rng(3)
    edata = rng.integers(-50, 50, size=(16, 4)).astype(np.float32)
    full = rng.integers(-50, 50, size=(16, 8)).astype(np.float32)
    et = vec("float32", 16, 4, "ColMajor")
    ft, d = vec("float32", 16, 8), vec("float32", 16, 8)

    def body():
        et.set_valid(16, 1)
        if dynamic:
            d.set_valid(16, 8)  # dynamic valid shape: a5 takes the 2-D path
        pto.TROWEXPANDADD(d, ft, et)

    run = run_kernel(devname, [et, ft, d], [(et, edata), (ft, full)], body)
    storage = edata.T.reshape(-1)  # ColMajor storage: (r, c) at c*16 + r
    if devname == "950pr" and not dynamic:
        s = storage[np.arange(16) * 4]
    else:
        s = storage[np.arange(16)]
    assert_bits_equal(run.tile(d), full + s[:, None])


# -- tie-break when both sources have dst's valid shape -------------------------------------
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tie_break_choice_of_full_operand(devname):
    # src0 ColMajor [16,1] and src1 RowMajor 16x8 with valid (16,1) both match dst (16,1).
    # cpu/a5 take src0 as full (ColMajor -> error); a2a3 takes src1 (RowStride 8 > 1).
    s0d = np.arange(16, dtype=np.float32).reshape(16, 1)
    s1d = (15 - np.arange(16, dtype=np.float32)).reshape(16, 1)
    s0, s1 = colvec("float32", 16), vec("float32", 16, 8, valid=(16, 1))
    d = vec("float32", 16, 8, valid=(16, 1))
    kw = dict(
        tiles=[s0, s1, d], loads=[(s0, s0d), (s1, s1d)], body=lambda: pto.TROWEXPANDMAX(d, s0, s1)
    )
    if devname == "a2":
        run = run_kernel(devname, **kw)
        assert_bits_equal(run.tile(d), np.maximum(s0d, s1d))
    else:
        with pytest.raises(pto.ConstraintError) as ei:
            run_kernel(devname, **kw)
        assert ei.value.rule == "full-layout" and ei.value.operand == "src0"


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tie_break_expanded_pitch(devname):
    # src0 8x8 and src1 8x16 (valid 8x8) both match dst 8x8. cpu: elementwise. a2a3: src1 is
    # full (RowStride 16 >= 8), src0 expanded at pitch 8 == its Cols: elementwise too. a5: src0
    # is full and src1 is expanded, read at pitch 8 (D9).
    rng = np.random.default_rng(4)
    a = rng.integers(-9, 9, size=(8, 8)).astype(np.float32)
    b = rng.integers(-9, 9, size=(8, 16)).astype(np.float32)
    s0, s1, d = vec("float32", 8, 8), vec("float32", 8, 16), vec("float32", 8, 8)

    def body():
        s1.set_valid(8, 8)
        pto.TROWEXPANDMIN(d, s0, s1)

    run = run_kernel(devname, [s0, s1, d], [(s0, a), (s1, b)], body)
    if devname == "950pr":
        want = np.minimum(a, b.reshape(-1)[:64].reshape(8, 8))
    else:
        want = np.minimum(a, b[:, :8])
    assert_bits_equal(run.tile(d), want)


# -- D10: the hidden a2a3 scratch and the tmp overload --------------------------------------
def _mode1_with_victim(devname, *, victim_at=SCRATCH, tmp=None, mode=1, R=8):
    rng = np.random.default_rng(10)
    full = rng.integers(-9, 9, size=(R, 8)).astype(np.float32)
    e = rng.integers(-9, 9, size=(R, 1 if mode == 1 else 8)).astype(np.float32)
    vict = np.full((8, 8), 42.0, dtype=np.float32)
    ft, d = vec("float32", R, 8), vec("float32", R, 8)
    et = colvec("float32", R) if mode == 1 else vec("float32", R, 8)
    victim = vec("float32", 8, 8, name="victim")
    tiles = [ft, et, d, victim] + ([tmp] if tmp is not None else [])
    loads = [(ft, full), (et, e), (victim, vict)]
    extra = [tmp] if tmp is not None else []
    places = {victim: victim_at} if victim_at is not None else {}
    run = run_kernel(
        devname, tiles, loads, lambda: pto.TROWEXPANDMAX(d, ft, et, *extra), places=places
    )
    eb = np.broadcast_to(e, (R, 8)) if mode == 1 else e
    assert_bits_equal(run.tile(d), np.maximum(full, eb))
    return run, victim, e


def test_d10_hidden_scratch_finding_on_a2():
    run, victim, e = _mode1_with_victim("a2")
    assert len(run.findings) == 1
    f = run.findings[0]
    assert f.code == "F104" and f.kind == "hidden-scratch"
    assert "victim" in f.message and "TROWEXPANDMAX" in f.message
    # vbrcb wrote 8 blocks of 32 bytes: block i = E[i] repeated 8 times, over the victim
    assert_bits_equal(run.tile(victim), np.repeat(e, 8, axis=1))


def test_d10_finding_for_tile_in_reserved_but_unwritten_part():
    run, victim, _ = _mode1_with_victim("a2", victim_at=190 * 1024)
    assert [f.code for f in run.findings] == ["F104"]
    assert np.all(run.tile(victim) == 42.0)  # 8 rows write only [184K, 184K + 256)


@pytest.mark.parametrize("devname", ["950pr", "cpu"])
def test_d10_no_hidden_scratch_elsewhere(devname):
    run, victim, _ = _mode1_with_victim(devname)
    assert run.findings == []
    assert np.all(run.tile(victim) == 42.0)


def test_d10_no_finding_without_overlap_mode2_or_tmp():
    run, _, _ = _mode1_with_victim("a2", victim_at=None)
    assert run.findings == []
    run, victim, _ = _mode1_with_victim("a2", mode=2)
    assert run.findings == [] and np.all(run.tile(victim) == 42.0)
    run, victim, _ = _mode1_with_victim("a2", tmp=vec("float32", 1, 64))
    assert run.findings == [] and np.all(run.tile(victim) == 42.0)


def _ub_floats(run, address, count):
    from ptosim import dtypes

    return run.blocks[0].ub.typed(address, dtypes.float32, count).copy()


def test_d10_scratch_layout_rounds_up_to_whole_repeats():
    # R = 12 -> ceil(12/8) = 2 repeats -> 16 blocks (512 bytes); rows 12..15 come from E's
    # storage beyond its valid rows (vbrcb reads whole repeats of 8 elements).
    rng = np.random.default_rng(12)
    e16 = rng.integers(-9, 9, size=(16, 1)).astype(np.float32)
    full = rng.integers(-9, 9, size=(12, 8)).astype(np.float32)
    et, ft, d = vec("float32", 16, 1, "ColMajor"), vec("float32", 12, 8), vec("float32", 12, 8)

    def body():
        et.set_valid(12, 1)
        pto.TROWEXPANDADD(d, ft, et)

    run = run_kernel("a2", [et, ft, d], [(et, e16), (ft, full)], body)
    assert_bits_equal(_ub_floats(run, SCRATCH, 128), np.repeat(e16[:, 0], 8))
    assert np.all(np.isnan(_ub_floats(run, SCRATCH + 512, 8)))  # untouched poison after
    assert_bits_equal(run.tile(d), full + e16[:12])


@pytest.mark.parametrize("with_tmp", [False, True])
def test_d10_chunks_of_240_rows_for_r_ge_256(with_tmp):
    R = 300
    rng = np.random.default_rng(300)
    e = rng.integers(-99, 99, size=(304, 1)).astype(np.float32)
    full = rng.integers(-99, 99, size=(R, 8)).astype(np.float32)
    et, ft, d = vec("float32", 304, 1, "ColMajor"), vec("float32", R, 8), vec("float32", R, 8)
    tmp = vec("float32", 240, 8)  # exactly 7680 bytes
    extra = [tmp] if with_tmp else []

    def body():
        et.set_valid(R, 1)
        pto.TROWEXPANDSUB(d, et, ft, *extra)  # expanded src0: dst = E - full

    run = run_kernel("a2", [et, ft, d] + extra, [(et, e), (ft, full)], body)
    assert_bits_equal(run.tile(d), e[:R] - full)
    # chunk 1 (rows 240..299) wrote 8 repeats = 64 blocks over chunk 0's 240 blocks
    want = np.concatenate([e[240:304, 0], e[64:240, 0]])
    buf = run.tile_storage(tmp) if with_tmp else _ub_floats(run, SCRATCH, 240 * 8)
    assert_bits_equal(buf, np.repeat(want, 8))


@pytest.mark.parametrize("devname", ["a2", "950pr", "cpu"])
def test_tmp_overload_writes_tmp_only_on_a2a3(devname):
    rng = np.random.default_rng(7)
    e16 = rng.integers(-9, 9, size=(16, 1)).astype(np.float32)
    full = rng.integers(-9, 9, size=(12, 8)).astype(np.float32)
    et, ft, d = vec("float32", 16, 1, "ColMajor"), vec("float32", 12, 8), vec("float32", 12, 8)
    tmp = vec("float32", 2, 64)  # 512 bytes = ceil(12/8)*256

    def body():
        et.set_valid(12, 1)
        pto.TROWEXPANDMUL(d, ft, et, tmp)

    run = run_kernel(devname, [et, ft, d, tmp], [(et, e16), (ft, full)], body)
    assert_bits_equal(run.tile(d), full * e16[:12])
    raw = run.tile_storage(tmp)
    if devname == "a2":
        assert_bits_equal(raw, np.repeat(e16[:, 0], 8))
    else:
        assert np.all(raw.view(np.uint32) == 0xFFFFFFFF)  # accepted and ignored
    assert run.findings == []


@pytest.mark.parametrize("devname", ["950pr", "cpu"])
def test_tmp_overload_accepts_mode2_off_a2a3(devname):
    run, _, _ = _mode1_with_victim(devname, victim_at=None, mode=2, tmp=vec("float32", 1, 8))
    assert run.findings == []


def _ok_tiles(dt="float32", R=8):
    return vec(dt, R, 16), colvec(dt, R), vec(dt, R, 16)


@pytest.mark.parametrize("operand", ["dst", "src0", "src1"])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rule_tile_location(devname, operand):
    t = {"dst": vec("float32", 8, 16), "src0": vec("float32", 8, 16), "src1": colvec("float32", 8)}
    t[operand] = pto.Tile("Mat", "float32", 8, 16)
    constraint(
        devname,
        lambda: pto.TROWEXPANDMAX(t["dst"], t["src0"], t["src1"]),
        "tile-location",
        operand,
        "TROWEXPANDMAX",
    )


BAD_DTYPES = [
    ("a2", "MAX", "bfloat16"),
    ("a2", "ADD", "uint16"),
    ("a2", "MUL", "int8"),
    ("a2", "MIN", "uint32"),
    ("a3", "SUB", "uint8"),
    ("950pr", "MAX", "int64"),
    ("cpu", "MAX", "int8"),
    ("cpu", "ADD", "uint8"),
    ("cpu", "MAX", "bfloat16"),
    ("cpu", "EXPDIF", "int32"),
    ("a2", "EXPDIF", "int16"),
    ("950dt", "EXPDIF", "uint8"),
    ("950pr", "EXPDIF", "int32"),
]


@pytest.mark.parametrize("devname,op,dt", BAD_DTYPES)
def test_rule_dtype(devname, op, dt):
    full, e, d = vec(dt, 8, bs_of(dt)), colvec(dt, 8), vec(dt, 8, bs_of(dt))
    exc = constraint(devname, lambda: op_fn(op)(d, full, e), "dtype", "dst", f"TROWEXPAND{op}")
    assert dt in str(exc)


@pytest.mark.parametrize("operand", ["src0", "src1"])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rule_same_dtype(devname, operand):
    f, e, d = _ok_tiles()
    if operand == "src0":
        f = vec("int32", 8, 16)
    else:
        e = colvec("int32", 8)
    constraint(devname, lambda: pto.TROWEXPANDADD(d, f, e), "same-dtype", operand, "TROWEXPANDADD")


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rule_dst_row_major(devname):
    f, e, _ = _ok_tiles()
    d = vec("float32", 8, 16, "ColMajor")
    constraint(devname, lambda: pto.TROWEXPANDMAX(d, f, e), "dst-layout", "dst", "TROWEXPANDMAX")


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rule_full_operand_needed(devname):
    d = vec("float32", 8, 16)
    f = vec("float32", 8, 16, valid=(8, 15))
    e = colvec("float32", 8)
    constraint(
        devname, lambda: pto.TROWEXPANDMAX(d, f, e), "full-operand", "src0/src1", "TROWEXPANDMAX"
    )


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rule_full_operand_row_major(devname):
    d = vec("float32", 16, 8, valid=(16, 2))
    f = vec("float32", 16, 8, "ColMajor", valid=(16, 2))
    e = colvec("float32", 16)
    constraint(devname, lambda: pto.TROWEXPANDMAX(d, f, e), "full-layout", "src0", "TROWEXPANDMAX")


@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rule_expanded_cols(devname, mode):
    d, f = vec("half", 8, 32), vec("half", 8, 32)
    if mode == 1:
        e = vec("half", 16, 2, "ColMajor", valid=(8, 2))
    else:
        e = vec("half", 8, 16, valid=(8, 8))  # half needs 16 = 32/sizeof(half)
    exc = constraint(
        devname, lambda: pto.TROWEXPANDMIN(d, e, f), "expanded-cols", "src0", "TROWEXPANDMIN"
    )
    assert ("16" in exc.expected) if mode == 2 else ("== 1" in exc.expected)


@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_rule_expanded_rows(devname, mode):
    d, f = vec("float32", 8, 16, valid=(6, 16)), vec("float32", 8, 16, valid=(6, 16))
    e = colvec("float32", 8, valid_rows=5) if mode == 1 else vec("float32", 8, 8, valid=(5, 8))
    constraint(
        devname, lambda: pto.TROWEXPANDDIV(d, f, e), "expanded-rows", "src1", "TROWEXPANDDIV"
    )


def test_rule_tmp_mode1_only_on_a2a3():
    d, f, e, t = (
        vec("float32", 8, 8),
        vec("float32", 8, 8),
        vec("float32", 8, 8),
        vec("float32", 8, 8),
    )
    constraint("a2", lambda: pto.TROWEXPANDMAX(d, f, e, t), "tmp-mode", "tmp", "TROWEXPANDMAX")


@pytest.mark.parametrize("R,tmp_rows", [(12, 1), (300, 239)])
def test_small_tmp_runs_on_a2a3(R, tmp_rows):
    """Only tmp's address matters (the vendor's own test passes a [16, 1] tmp): a tmp smaller
    than the ceil(R/8)*256 (7680 for R >= 256) bytes vbrcb writes is accepted; with nothing
    live past it there is no finding (overlaps: tests/isa/test_trust_semantics.py)."""
    rng = np.random.default_rng(R)
    d, f, e = vec("float32", R, 8), vec("float32", R, 8), colvec("float32", R)
    t = vec("float32", tmp_rows, 8 if R >= 256 else 64)  # 256 B < 512 B; 7648 B < 7680 B
    full, col = rand(rng, "float32", (R, 8)), rand(rng, "float32", (R, 1))
    run = run_kernel(
        "a2", [f, e, d, t], [(f, full), (e, col)], lambda: pto.TROWEXPANDADD(d, f, e, t)
    )
    assert_bits_equal(run.tile(d), reference("ADD", "float32", full, np.broadcast_to(col, (R, 8))))
    assert run.findings == []


def test_rule_tmp_location_on_a2a3():
    d, f, e = vec("float32", 8, 8), vec("float32", 8, 8), colvec("float32", 8)
    t = pto.Tile("Mat", "float32", 8, 8)
    constraint("a2", lambda: pto.TROWEXPANDADD(d, f, e, t), "tile-location", "tmp", "TROWEXPANDADD")


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_plain_rowexpand_rules(devname):
    d, s = vec("float32", 8, 8), colvec("float32", 8)
    constraint(
        devname,
        lambda: pto.TROWEXPAND(vec("float32", 8, 8, "ColMajor"), s),
        "dst-layout",
        "dst",
        "TROWEXPAND",
    )
    constraint(
        devname,
        lambda: pto.TROWEXPAND(d, colvec("float32", 8, valid_rows=7)),
        "src-rows",
        "src",
        "TROWEXPAND",
    )
    constraint(
        devname,
        lambda: pto.TROWEXPAND(d, vec("float32", 8, 8, "ColMajor", valid=(8, 0))),
        "src-cols",
        "src",
        "TROWEXPAND",
    )
    constraint(
        devname, lambda: pto.TROWEXPAND(d, colvec("int32", 8)), "same-dtype", "src", "TROWEXPAND"
    )
    constraint(
        devname,
        lambda: pto.TROWEXPAND(vec("float8_e4m3", 8, 32), vec("float8_e4m3", 8, 32)),
        "dtype",
        "dst",
        "TROWEXPAND",
    )
    constraint(
        devname,
        lambda: pto.TROWEXPAND(pto.Tile("Mat", "float32", 8, 8), s),
        "tile-location",
        "dst",
        "TROWEXPAND",
    )


def test_non_tile_operand_is_kernel_error():
    d = vec("float32", 8, 8)
    with pytest.raises(pto.KernelError):
        run_kernel("cpu", [d], [], lambda: pto.TROWEXPANDMAX(d, d, np.zeros(8)))
