"""Partial element-wise instructions TPARTADD/MUL/MAX/MIN and TPARTARGMAX/MIN (vector_isa.md
3.22, 2.3, 2.5 A, 2.6).

Expected values come from an independent per-element Python formulation of the reference rule
(both valid -> op, one valid -> copy, neither -> 0) with float32 arithmetic rounded once to T
-- never from the simulator. Timing tests assert the intrinsic sequence the reference lowering
prescribes and relations, never cycle counts.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.targets import spec_of
from tests.helpers.devices import NPU_DEVICES
from tests.helpers.kernels import assert_bits_equal, constraint, run_kernel, seeded, vec

DEV = {"cpu": "cpu", "a2a3": "a2", "a5": "950pr"}
DTYPES = {t: spec_of(t).dtypes_of("TPARTADD") for t in DEV}  # (every TPART<OP> shares them)
OPS = ("ADD", "MUL", "MAX", "MIN")


def npdt(dt):
    return pto.dtypes.dtype(dt).np


def bs_of(dt):
    return 32 // pto.dtypes.dtype(dt).size_bytes


def rand(rng, dt, shape):
    if pto.dtypes.dtype(dt).is_int:
        info = np.iinfo(npdt(dt))
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=npdt(dt))
    return rng.uniform(-8, 8, size=shape).astype(npdt(dt))


def scalar_op(op, dt, x, y):
    """One element of ``x OP y`` in T: Python ints wrapped, floats in float32 rounded to T."""
    if pto.dtypes.dtype(dt).is_int:
        v = {"ADD": x + y, "MUL": x * y, "MAX": max(x, y), "MIN": min(x, y)}[op]
        return np.array(int(v)).astype(np.int64).astype(npdt(dt))  # two's complement wrap
    a, b = np.float32(x), np.float32(y)
    v = {"ADD": a + b, "MUL": a * b, "MAX": max(a, b), "MIN": min(a, b)}[op]
    return np.array(v, dtype=np.float32).astype(npdt(dt))


def reference(op, dt, R, C, a, b):
    """The reference rule per element over dst's R x C (a, b: the sources' valid blocks)."""
    out = np.zeros((R, C), dtype=npdt(dt))
    for i in range(R):
        for j in range(C):
            in_a = i < a.shape[0] and j < a.shape[1]
            in_b = i < b.shape[0] and j < b.shape[1]
            if in_a and in_b:
                out[i, j] = scalar_op(op, dt, a[i, j].item(), b[i, j].item())
            elif in_a:
                out[i, j] = a[i, j]
            elif in_b:
                out[i, j] = b[i, j]
    return out


def part(devname, op, dt, R, C, a, b, *, cols=None, rows=None):
    """Run ``TPART<op>(dst, src0, src1)`` with dst valid (R, C) and sources holding ``a``/``b``
    as their valid blocks (inside tiles of ``rows x cols``)."""
    cols = cols or -(-max(C, a.shape[1], b.shape[1]) // bs_of(dt)) * bs_of(dt)
    rows = rows or max(R, a.shape[0], b.shape[0])
    d = vec(dt, rows, cols, valid=(R, C))
    t0 = vec(dt, rows, cols, valid=a.shape)
    t1 = vec(dt, rows, cols, valid=b.shape)
    run = run_kernel(
        devname,
        [d, t0, t1],
        [(t0, a), (t1, b)],
        lambda: getattr(pto, f"TPART{op}")(d, t0, t1),
    )
    return run, d


def _cases():
    return [(t, op, dt.name) for t in DEV for op in OPS for dt in DTYPES[t]]


# -- semantics per op x dtype x target -------------------------------------------------------
@pytest.mark.parametrize("shape", ["equal", "rows", "cols"])
@pytest.mark.parametrize("target,op,dt", _cases())
def test_every_op_dtype_target_matches_reference(target, op, dt, shape):
    rng = seeded(target, op, dt, shape)
    R, C = 4, bs_of(dt) + 3
    small = {"equal": (R, C), "rows": (2, C), "cols": (3, 2)}[shape]
    a, b = rand(rng, dt, (R, C)), rand(rng, dt, small)
    run, d = part(DEV[target], op, dt, R, C, a, b)
    assert_bits_equal(run.tile(d), reference(op, dt, R, C, a, b))
    run, d = part(DEV[target], op, dt, R, C, b, a)  # the small one as src0 (swapped on NPU)
    assert_bits_equal(run.tile(d), reference(op, dt, R, C, b, a))
    assert run.findings == []


def test_cpu_neither_valid_is_zero_and_sources_may_exceed_dst():
    a = np.full((2, 8), 3.0, np.float32)  # rows 0-1
    b = np.full((5, 3), 4.0, np.float32)  # cols 0-2, more rows than dst
    run, d = part("cpu", "ADD", "float32", 4, 8, a, b, cols=8, rows=5)
    want = np.zeros((4, 8), np.float32)
    want[:2, :] = 3.0
    want[:, :3] = 4.0
    want[:2, :3] = 7.0
    assert_bits_equal(run.tile(d), want)


@pytest.mark.parametrize("devname", NPU_DEVICES)
def test_npu_rejects_shapes_without_a_full_source(devname):
    def body():
        d = vec("float32", 4, 8)
        pto.TPARTADD(d, vec("float32", 4, 8, valid=(2, 8)), vec("float32", 4, 8, valid=(4, 3)))

    exc = constraint(devname, body, "part-shape", "src0", "TPARTADD")
    assert "(2, 8)" in str(exc) and "(4, 3)" in str(exc)


def test_npu_rejects_small_source_larger_than_dst():
    def body():
        d = vec("float32", 4, 8, valid=(4, 5))
        pto.TPARTMUL(d, vec("float32", 4, 8, valid=(4, 5)), vec("float32", 4, 8, valid=(2, 8)))

    constraint("a2", body, "part-shape", "src1", "TPARTMUL")


def test_max_min_nan_and_signed_zero_per_target():
    a = np.array([[np.nan, 1.0, 0.0, -0.0] + [0.0] * 4], np.float32)
    b = np.array([[1.0, np.nan, -0.0, 0.0] + [0.0] * 4], np.float32)
    cpu, d = part("cpu", "MAX", "float32", 1, 8, a, b)
    got = cpu.tile(d)[0, :4]
    assert np.isnan(got[0]) and got[1] == 1.0  # std::max keeps src0 unless src0 < src1
    assert not np.signbit(got[2]) and np.signbit(got[3])
    for devname in ("a2", "950pr"):
        run, d = part(devname, "MAX", "float32", 1, 8, a, b)
        got = run.tile(d)[0, :4]
        assert np.isnan(got[0]) and np.isnan(got[1])  # IEEE maximum: NaN propagates
        assert not np.signbit(got[2]) and not np.signbit(got[3])


@pytest.mark.parametrize("full_cols", [16, 8])
def test_untouched_outside_valid_on_cpu_and_a5_a2a3_copies_write_padding(full_cols):
    # dst valid 4 x 5 of a 4 x 16 fp32 tile; src1 valid 2 x 5 (rows-smaller): on a2a3 rows 2-3
    # are copied from src0 (a2a3/TPartOp.hpp): a source of dst's Cols in one copy of whole rows
    # (dst[2:4, 5:16] gets src0's padding), another one per row in whole 32 B blocks (8 floats:
    # dst[2:4, 5:8] gets src0's bytes)
    R, C, cols = 4, 5, 16
    full_data = np.arange(R * full_cols, dtype=np.float32).reshape(R, full_cols)
    copied = cols if full_cols == cols else 8
    for devname in ("cpu", "a2", "950pr"):
        d = vec("float32", R, cols, valid=(R, C))
        t0 = vec("float32", R, full_cols)  # loaded whole, so its padding holds known values
        t1 = vec("float32", R, cols, valid=(2, C))

        def body(d=d, t0=t0, t1=t1):
            t0.set_valid(R, C)
            pto.TPARTADD(d, t0, t1)

        run = run_kernel(
            devname, [d, t0, t1], [(t0, full_data), (t1, np.ones((2, C), np.float32))], body
        )
        raw = run.tile_storage(d).reshape(R, cols)
        assert_bits_equal(raw[:2, :C], full_data[:2, :C] + 1)
        assert_bits_equal(raw[2:, :C], full_data[2:, :C])
        untouched = np.uint32(0xFFFFFFFF)
        assert np.all(raw[:2, C:].view(np.uint32) == untouched), devname
        assert np.all(raw[:, copied:].view(np.uint32) == untouched), devname
        if devname == "a2":
            assert_bits_equal(raw[2:, C:copied], full_data[2:, C:copied])
        else:
            assert np.all(raw[2:, C:].view(np.uint32) == untouched), devname


# -- hypothesis: random shapes against the per-element formulation --------------------------
@settings(max_examples=30, deadline=None)
@given(
    target=st.sampled_from(tuple(DEV)),
    op=st.sampled_from(OPS),
    dt=st.sampled_from(["float32", "half", "int16", "int32"]),
    R=st.integers(1, 5),
    C=st.integers(1, 20),
    small_rows=st.integers(0, 5),
    small_cols=st.integers(0, 20),
    src0_small=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_shapes_match_reference(
    target, op, dt, R, C, small_rows, small_cols, src0_small, seed
):
    rng = np.random.default_rng(seed)
    if target == "cpu":  # any valid regions
        sr, sc = max(1, small_rows), max(1, small_cols)
    else:  # the NPU shape rule: the small source inside dst
        sr, sc = min(max(1, small_rows), R), min(max(1, small_cols), C)
    full, small = rand(rng, dt, (R, C)), rand(rng, dt, (sr, sc))
    a, b = (small, full) if src0_small else (full, small)
    run, d = part(DEV[target], op, dt, R, C, a, b)
    assert_bits_equal(run.tile(d), reference(op, dt, R, C, a, b))


# -- arg forms ------------------------------------------------------------------------------------
def part_arg(devname, op, a, ia, b, ib, R, C, vdt="float32", idt="int32"):
    cols = max(8, -(-C // 16) * 16)
    rows = max(R, a.shape[0], b.shape[0])
    dv, di = vec(vdt, rows, cols, valid=(R, C)), vec(idt, rows, cols, valid=(R, C))
    t = [
        vec(dt_, rows, cols, valid=x.shape) for x, dt_ in ((a, vdt), (ia, idt), (b, vdt), (ib, idt))
    ]
    run = run_kernel(
        devname,
        [dv, di, *t],
        list(zip(t, (a, ia, b, ib))),
        lambda: getattr(pto, f"TPARTARG{op}")(dv, di, *t),
    )
    return run.tile(dv), run.tile(di)


@pytest.mark.parametrize("op", ["MAX", "MIN"])
def test_cpu_arg_forms_pick_pairs(op):
    a = np.array([[1.0, 5.0, 2.0, np.nan], [7.0, 7.0, 7.0, 7.0]], np.float32)
    b = np.array([[3.0, 4.0, 2.0, 1.0]], np.float32)
    ia = np.arange(8, dtype=np.int32).reshape(2, 4)
    ib = np.array([[10, 11, 12, 13]], np.int32)
    # dst 3 x 5: row 2 and column 4 are valid in neither source -> (0, 0)
    v, i = part_arg("cpu", op, a, ia, b, ib, 3, 5)
    pick_b = [b[0, j] > a[0, j] if op == "MAX" else b[0, j] < a[0, j] for j in range(4)]
    want_v = np.zeros((3, 5), np.float32)
    want_i = np.zeros((3, 5), np.int32)
    for j in range(4):
        want_v[0, j], want_i[0, j] = (b[0, j], ib[0, j]) if pick_b[j] else (a[0, j], ia[0, j])
    want_v[1, :4], want_i[1, :4] = a[1], ia[1]
    assert_bits_equal(v, want_v)  # ties (column 2) and a NaN in src0 keep src0's pair
    assert_bits_equal(i, want_i)


@pytest.mark.parametrize("op", ["MAX", "MIN"])
def test_a5_arg_forms_half_with_int16_indices(op):
    """npu/a5/TPartArgBinOps.hpp: src1's pair where its value is strictly greater (smaller)
    (vcmp_gt: ties and NaN keep src0), the full source's pairs elsewhere; half takes 16-bit
    indices. src0 is the full one here (dst's valid shape), src1 covers 2 x 3 of it."""
    a = np.array([[1, 5, 2, np.nan, 4], [7, 7, 7, 7, 7], [0, 1, 2, 3, 4]], np.float16)
    b = np.array([[3, 4, 2], [8, 6, np.nan]], np.float16)
    ia = np.arange(15, dtype=np.int16).reshape(3, 5)
    ib = np.array([[100, 101, 102], [103, 104, 105]], np.int16)
    v, i = part_arg("950pr", op, a, ia, b, ib, 3, 5, vdt="half", idt="int16")
    want_v, want_i = a.copy(), ia.copy()
    for r in range(2):
        for c in range(3):
            take = b[r, c] > a[r, c] if op == "MAX" else b[r, c] < a[r, c]
            if take:
                want_v[r, c], want_i[r, c] = b[r, c], ib[r, c]
    assert_bits_equal(v, want_v)
    assert_bits_equal(i, want_i)


@pytest.mark.parametrize("devname", ["950pr", "cpu"])
def test_arg_forms_empty_source_copies_the_other(devname):
    """The library's a5 test views a 1 x 8 tile as 8 x 0: an empty valid region holds no
    element, whatever its row count (TLOAD moves nothing, the instruction reads nothing), and
    dst is src0's pairs."""
    a = np.arange(56, dtype=np.float32).reshape(8, 7)
    ia = np.arange(56, dtype=np.int32).reshape(8, 7) + 1000
    dv, di = vec("float32", 8, 8, valid=(8, 7)), vec("int32", 8, 8, valid=(8, 7))
    s0v, s0i = vec("float32", 8, 8, valid=(8, 7)), vec("int32", 8, 8, valid=(8, 7))
    s1v, s1i = vec("float32", 1, 8), vec("int32", 1, 8)
    s1v.set_valid(8, 0)  # a runtime valid shape, as the library's Tile(8, 0)
    s1i.set_valid(8, 0)
    empty_v, empty_i = np.zeros((8, 0), np.float32), np.zeros((8, 0), np.int32)
    run = run_kernel(
        devname,
        [dv, di, s0v, s0i, s1v, s1i],
        [(s0v, a), (s0i, ia), (s1v, empty_v), (s1i, empty_i)],
        lambda: pto.TPARTARGMAX(dv, di, s0v, s0i, s1v, s1i),
    )
    assert_bits_equal(run.tile(dv), a)
    assert_bits_equal(run.tile(di), ia)

    def one_col_too_many():  # a non-empty region past the tile is still refused
        bad_v, bad_i = vec("float32", 1, 8), vec("int32", 1, 8)
        bad_v.set_valid(8, 1)
        bad_i.set_valid(8, 1)
        pto.TPARTARGMAX(dv, di, s0v, s0i, bad_v, bad_i)

    constraint(devname, one_col_too_many, "valid-within-shape", "src1_val", "TPARTARGMAX")


@pytest.mark.parametrize("op", ["MAX", "MIN"])
@pytest.mark.parametrize("small_first", [False, True])
def test_a2a3_arg_forms_keep_src0_unless_its_compare_fails(op, small_first):
    """a2a3/TPartArgOp.hpp: vcmp_ge (MAX) / vcmp_le (MIN) of src0 against src1, then vsel:
    src0's pair where the compare holds (ties), src1's where it fails (a NaN on either side);
    the full source's pairs elsewhere. The small source covers 2 x 3 of dst's 3 x 5 (the
    copy-then-op stages) and is src1, or src0 (the stages with the roles swapped)."""
    full = np.array([[1, 5, 2, np.nan, 4], [7, np.nan, 7, 7, 7], [0, 1, 2, 3, 4]], np.float32)
    small = np.array([[3, 4, 2], [np.nan, 6, 1]], np.float32)
    i_full = np.arange(15, dtype=np.int32).reshape(3, 5)
    i_small = np.array([[100, 101, 102], [103, 104, 105]], np.int32)
    a, ia, b, ib = (small, i_small, full, i_full) if small_first else (full, i_full, small, i_small)
    v, i = part_arg("a2", op, a, ia, b, ib, 3, 5)
    want_v, want_i = full.copy(), i_full.copy()
    for r in range(2):
        for c in range(3):
            x, y = float(a[r, c]), float(b[r, c])
            keep_src0 = x >= y if op == "MAX" else x <= y  # False when either is NaN
            want_v[r, c], want_i[r, c] = (x, ia[r, c]) if keep_src0 else (y, ib[r, c])
    assert_bits_equal(v, want_v)
    assert_bits_equal(i, want_i)


@pytest.mark.parametrize("idt", ["uint32", "int16"])
def test_a2a3_arg_half_values_with_32_bit_indices_write_64_lanes_per_repeat(idt):
    """With half values (128 per repeat) and 32-bit indices the library's lane mask of the
    whole repeats is the low 64 lanes, and the index vsel has 64 lanes: of 200 columns, the
    pairs of columns 64-127 and the indices of columns 192-199 are not written. 16-bit indices
    run on the 128 value lanes: every pair is written."""
    C, cols = 200, 208
    rng = seeded("a2a3-part-arg-lanes", idt)
    a = rng.uniform(-8, 8, (1, C)).astype(np.float16)
    b = rng.uniform(-8, 8, (1, C)).astype(np.float16)
    ia = rng.integers(0, 30000, (1, C)).astype(npdt(idt))
    ib = rng.integers(0, 30000, (1, C)).astype(npdt(idt))
    old_v, old_i = np.full((1, cols), -7.0, np.float16), np.full((1, cols), 7777, npdt(idt))
    dv, di = vec("half", 1, cols), vec(idt, 1, cols)  # loaded whole with the old values
    t = [vec(dt, 1, cols, valid=(1, C)) for dt in ("half", idt, "half", idt)]

    def body():
        dv.set_valid(1, C)
        di.set_valid(1, C)
        pto.TPARTARGMAX(dv, di, *t)

    run = run_kernel("a2", [dv, di, *t], [(dv, old_v), (di, old_i), *zip(t, (a, ia, b, ib))], body)
    keep = a >= b
    want_v, want_i = np.where(keep, a, b), np.where(keep, ia, ib)
    if idt == "uint32":
        want_v[:, 64:128] = -7.0
        want_i[:, 64:128] = 7777
        want_i[:, 192:] = 7777
    assert_bits_equal(run.tile(dv), want_v)
    assert_bits_equal(run.tile(di), want_i)


@pytest.mark.parametrize("devname", ["950pr", "a2"])
def test_npu_arg_forms_float_needs_32_bit_indices_and_a_full_source(devname):
    def body():
        t = [vec(dt, 2, 16) for dt in ("float32", "int16") * 3]
        pto.TPARTARGMAX(*t)

    constraint(devname, body, "dtype", "dst_idx", "TPARTARGMAX")

    def body2():
        t = [vec(dt, 2, 16) for dt in ("float32", "int32") * 3]
        t[2], t[3] = vec("float32", 2, 16, valid=(1, 16)), vec("int32", 2, 16, valid=(1, 16))
        t[4], t[5] = vec("float32", 2, 16, valid=(2, 8)), vec("int32", 2, 16, valid=(2, 8))
        pto.TPARTARGMAX(*t)

    constraint(devname, body2, "part-shape", "src0_val", "TPARTARGMAX")


def test_arg_index_tile_needs_its_value_tiles_valid_shape():
    def body():
        t = [vec(dt, 2, 8) for dt in ("float32", "int32") * 3]
        t[3] = vec("int32", 2, 8, valid=(1, 8))
        pto.TPARTARGMIN(*t)

    constraint("cpu", body, "same-valid-shape", "src0_idx", "TPARTARGMIN")


def test_rule_dtype_per_target():
    def body():
        pto.TPARTADD(*(vec("bfloat16", 2, 16) for _ in range(3)))

    constraint("a2", body, "dtype", "dst", "TPARTADD")
    constraint("950pr", body, "dtype", "dst", "TPARTADD")


# -- a2a3 lowering and in-place hazard ----------------------------------------------------------
def events(run, opcode):
    return [e for e in run.trace.events if e.opcode == opcode]


def seq(run, opcode):
    return [(e.args.get("intrinsic", e.kind), e.args.get("repeats")) for e in events(run, opcode)]


def test_a2a3_rows_smaller_is_op_then_copy_of_the_rest():
    # fp32 16 x 64 tiles, src1 valid 6 rows: vadd over 6 rows (continuous: 6 full repeats),
    # then one copy of rows 6-15: 10 rows x 8 blocks
    full, small = np.ones((16, 64), np.float32), np.ones((6, 64), np.float32)
    run, d = part("a2", "ADD", "float32", 16, 64, full, small)
    assert seq(run, "TPARTADD") == [("vadd", 6), ("copy_ubuf_to_ubuf", 80)]


def test_a2a3_cols_smaller_is_copy_barrier_then_op():
    full, small = np.ones((16, 64), np.float32), np.ones((16, 40), np.float32)
    run, d = part("a2", "MAX", "float32", 16, 64, small, full)  # small as src0: swapped
    got = seq(run, "TPARTMAX")
    assert got[:2] == [("copy_ubuf_to_ubuf", 128), ("barrier", None)]
    assert {op for op, _ in got[2:]} == {"vmax"}
    assert_bits_equal(run.tile(d), reference("MAX", "float32", 16, 64, small, full))


def test_a2a3_more_copied_rows_cost_more():
    full = np.ones((32, 64), np.float32)
    durs = []
    for r in (24, 8):
        run, _ = part("a2", "ADD", "float32", 32, 64, full, np.ones((r, 64), np.float32))
        durs.append(
            sum(e.dur for e in events(run, "TPARTADD") if "copy" in e.args.get("intrinsic", ""))
        )
    assert durs[0] < durs[1]


def test_a2a3_cols_smaller_in_place_on_the_small_source_is_flagged():
    # dst and src1 (the small source) share UB bytes: a2a3 copies src0 into dst first, which
    # clobbers src1, so the op sees src0 twice (finding F105); cpu computes from the sources
    R, C = 4, 16
    full = np.arange(R * C, dtype=np.float32).reshape(R, C)
    for devname in ("a2", "cpu"):
        t0, d = vec("float32", R, C), vec("float32", R, C)
        s1 = vec("float32", R, C, valid=(R, 5))
        run = run_kernel(
            devname,
            [t0, d, s1],
            [(t0, full), (s1, np.full((R, 5), 100.0, np.float32))],
            lambda d=d, t0=t0, s1=s1: pto.TPARTADD(d, t0, s1),
            places={s1: R * C * 4},  # s1 at d's address
        )
        got = run.tile(d)
        codes = [f.code for f in run.findings]
        assert_bits_equal(got[:, 5:], full[:, 5:])
        if devname == "a2":
            assert_bits_equal(got[:, :5], full[:, :5] * 2)
            assert "F105" in codes
        else:
            assert_bits_equal(got[:, :5], full[:, :5] + 100)
            assert "F105" not in codes


# -- a5: one vector function ---------------------------------------------------------------------
def test_a5_equal_shapes_is_the_elementwise_vf_partial_is_per_row():
    a = np.ones((8, 64), np.float32)
    run, _ = part("950pr", "ADD", "float32", 8, 64, a, a)
    adds = [e for e in events(run, "TPARTADD") if e.args.get("intrinsic") == "vadd"]
    assert [(e.args["repeats"], e.args["path"]) for e in adds] == [(8, "1d")]
    run2, _ = part("950pr", "ADD", "float32", 8, 64, a, a[:3])
    adds2 = [e for e in events(run2, "TPARTADD") if e.args.get("intrinsic") == "vadd"]
    assert [(e.args["repeats"], e.args["row"]) for e in adds2] == [(1, r) for r in range(3)]
    run3, _ = part("950pr", "ADD", "float32", 8, 64, a, a[:6])  # more rows load both sources
    dur = [sum(e.dur for e in events(r, "TPARTADD")) for r in (run2, run3)]
    # the extra loads use the second load port: they may hide behind the row loop's gap, never
    # make the instruction faster
    assert dur[0] <= dur[1]
