"""Element-wise tile-scalar instructions TADDS ... TSHRS, TAXPY (vector_isa.md 3.4, 2.3, 2.5 B).

Expected values: Python integers wrapped to T and float32 arithmetic rounded once to T
(test_vector_binary.reference), plus the a2a3 quirks spelled out from the reference text
(TSUBS through float, TDIVS reciprocal in place, TDIVS s/src in place = s/s).
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.isa.vector.scalar import OPS
from ptosim.targets import spec_of
from tests.helpers.elementwise import (
    DEV,
    TARGETS,
    bs_of,
    intrinsics,
    rand,
    reference,
    vector_events,
)
from tests.helpers.kernels import assert_bits_equal, constraint, run_kernel, seeded, vec

NAMES = tuple(OPS)
DTYPES = {n: {t: spec_of(t).dtypes_of(n) for t in TARGETS} for n in NAMES}


def scalar_for(rng, name, dt):
    op = OPS[name]
    if pto.dtypes.dtype(dt).is_int:
        info = np.iinfo(pto.dtypes.dtype(dt).np)
        if op in ("SHL", "SHR"):
            return int(rng.integers(0, 8))
        lo, hi = (1, 100) if op == "DIV" else (int(info.min), int(info.max))
        return int(rng.integers(lo, hi, endpoint=True, dtype=pto.dtypes.dtype(dt).np))
    return float(rng.choice([-2.5, 0.75, 3.0, -0.375]))


def expected(name, dt, a, s, *, reverse=False):
    op = OPS[name]
    if op == "LRELU":
        return np.where(a > 0, a, reference("MUL", dt, a, np.array(s, a.dtype)))
    sv = np.array(s).astype(a.dtype)
    return reference(op, dt, sv, a) if reverse else reference(op, dt, a, sv)


def tile_scalar(devname, name, dt, a, s, *, cols=None, valid=None, same=False, reverse=False):
    """TLOAD a; run ``name(dst, src, s)`` (``same``: dst is src); return (run, dst, tmp)."""
    R, C = a.shape
    cols, valid = cols or C, valid or (R, C)
    src = vec(dt, R, cols, valid=valid)
    d = src if same else vec(dt, R, cols, valid=valid)
    t = vec(dt, R, cols, valid=valid) if name == "TXORS" else None
    tiles = [src] + ([] if same else [d]) + ([t] if t is not None else [])

    def body():
        fn = getattr(pto, name)
        if reverse:
            fn(d, s, src)
        elif t is not None:
            fn(d, src, s, t)
        else:
            fn(d, src, s)

    run = run_kernel(devname, tiles, [(src, a)], body)
    return run, d, t


def _cases():
    return [(t, n, dt.name) for t in TARGETS for n in NAMES for dt in DTYPES[n][t]]


@pytest.mark.parametrize("continuous", [True, False], ids=["full", "partial"])
@pytest.mark.parametrize("target,name,dt", _cases())
def test_every_op_dtype_target_matches_reference(target, name, dt, continuous):
    rng = seeded(target, name, dt, continuous)
    bs = bs_of(dt)
    R, C = (3, 2 * bs) if continuous else (3, bs + 3)
    a = rand(rng, dt, (R, C))
    s = scalar_for(rng, name, dt)
    if name == "TSUBS" and target == "a2a3" and dt == "int32":
        s = int(rng.integers(-(2**24), 2**24))  # exact through float (quirk tested below)
    kw = {} if continuous else {"cols": 2 * bs, "valid": (R, C)}
    run, d, _ = tile_scalar(DEV[target], name, dt, a, s, **kw)
    assert_bits_equal(run.tile(d), expected(name, dt, a, s))
    assert run.findings == []


@pytest.mark.parametrize("dt", ["int16", "int32", "half", "float32"])
@pytest.mark.parametrize("target", TARGETS)
def test_tdivs_scalar_first_is_scalar_over_src(target, dt):
    rng = seeded(target, dt)
    a = rand(rng, dt, (2, 2 * bs_of(dt)), role="b", op="DIV")
    run, d, _ = tile_scalar(DEV[target], "TDIVS", dt, a, 7, reverse=True)
    assert_bits_equal(run.tile(d), expected("TDIVS", dt, a, 7, reverse=True))
    assert run.findings == []


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tdivs_integer_zero_raises_before_writing(devname):
    a = np.array([[5, 6, 0, 8, 9, 10, 11, 12]], np.int32)
    with pytest.raises(pto.ExecutionError, match=r"TDIVS.*\(0, 0\).*scalar = 0"):
        tile_scalar(devname, "TDIVS", "int32", a, 0)
    with pytest.raises(pto.ExecutionError, match=r"TDIVS.*\(0, 2\).*src = 0"):
        tile_scalar(devname, "TDIVS", "int32", a, 3, reverse=True)


def _reciprocal_differs():
    """float32 pairs (x, s) where x * f32(1/s) != x / s (found by search, numpy only)."""
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 2, 4096).astype(np.float32)
    s = np.float32(3.0)
    diff = (x * (np.float32(1) / s)) != (x / s)
    return x[diff][:8], s


def test_a2a3_tdivs_in_place_multiplies_by_the_reciprocal():
    x, s = _reciprocal_differs()
    a = x.reshape(1, 8)
    outs = {}
    for devname in ("cpu", "a2", "950pr"):
        run, d, _ = tile_scalar(devname, "TDIVS", "float32", a, float(s), same=True)
        outs[devname] = run.tile(d)
    assert_bits_equal(outs["a2"], a * (np.float32(1) / s))
    assert_bits_equal(outs["cpu"], a / s)
    assert_bits_equal(outs["950pr"], a / s)
    run, d, _ = tile_scalar("a2", "TDIVS", "float32", a, float(s))  # not in place: a division
    assert_bits_equal(run.tile(d), a / s)


def test_a2a3_tdivs_half_reciprocal_rounds_through_float_then_half():
    a = np.linspace(1, 2, 16, dtype=np.float16).reshape(1, 16)
    s = 3.0
    run, d, _ = tile_scalar("a2", "TDIVS", "half", a, s, same=True)
    r = (np.float32(1) / np.float32(s)).astype(np.float16)
    want = (a.astype(np.float32) * r.astype(np.float32)).astype(np.float16)
    assert_bits_equal(run.tile(d), want)


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tdivs_scalar_over_src_in_place(devname):
    a = np.array([[2, 4, 8, 16, 0.5, 0.25, -1, 3]], np.float32)
    run, d, _ = tile_scalar(devname, "TDIVS", "float32", a, 6.0, same=True, reverse=True)
    if devname == "a2":  # the dup overwrites src: 6 / 6 everywhere, and a finding says so
        assert_bits_equal(run.tile(d), np.ones_like(a))
        assert [f.code for f in run.findings] == ["F107"]
        assert "s / s" in run.findings[0].message
    else:
        assert_bits_equal(run.tile(d), np.float32(6) / a)
        assert run.findings == []


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tsubs_int32_scalar_through_float(devname):
    s = 2**24 + 1  # float32(s) = 2**24: a2a3 adds -16777216 instead of -16777217
    a = np.arange(8, dtype=np.int32).reshape(1, 8)
    run, d, _ = tile_scalar(devname, "TSUBS", "int32", a, s)
    if devname == "a2":
        assert_bits_equal(run.tile(d), a - 2**24)
        assert [(f.code, f.kind) for f in run.findings] == [("F108", "scalar-rounded")]
    else:
        assert_bits_equal(run.tile(d), a - s)
        assert run.findings == []


def test_tsubs_int32_min_is_unsupported_on_a2a3():
    def body():
        pto.TSUBS(vec("int32", 1, 8), vec("int32", 1, 8), -(2**31))

    constraint("a2", body, "a2a3-tsubs-scalar", "scalar", "TSUBS", cls=pto.UnsupportedError)
    a = np.zeros((1, 8), np.int32)
    run, d, _ = tile_scalar("cpu", "TSUBS", "int32", a, -(2**31))
    assert_bits_equal(run.tile(d), np.full((1, 8), -(2**31), np.int32))  # 0 - INT_MIN wraps


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_scalar_must_fit_the_dtype(devname):
    def body():
        pto.TADDS(vec("int16", 1, 16), vec("int16", 1, 16), 40000)

    constraint(devname, body, "scalar-range", "scalar", "TADDS")


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_shift_scalar_count_range(devname):
    def body():
        pto.TSHLS(vec("int32", 1, 8), vec("int32", 1, 8), 32)

    constraint(devname, body, "shift-count", "scalar", "TSHLS")


@pytest.mark.parametrize("name", ["TSHLS", "TSHRS"])
def test_a5_64bit_scalar_shift_uses_the_count_mod_64(name):
    # npu/a5 Int64Binary (scalar form): the count anded with 63; 65 shifts by 1, -1 by 63
    a = np.array([[-(2**63), -3, 1, 2**62, 5, -1, 7, 2**63 - 1]], np.int64)
    for count, k in ((65, 1), (-1, 63), (64, 0)):
        run, d, _ = tile_scalar("950pr", name, "int64", a, count)
        xs = [int(x) for x in a[0]]
        if name == "TSHLS":
            vals = [(x << k) % 2**64 for x in xs]
            vals = [v - 2**64 if v >= 2**63 else v for v in vals]
        else:
            vals = [x >> k for x in xs]
        assert_bits_equal(run.tile(d), np.array([vals], np.int64))


def test_cpu_64bit_scalar_shift_count_64_is_refused():
    def body():
        pto.TSHLS(vec("int64", 1, 8), vec("int64", 1, 8), 64)

    constraint("cpu", body, "shift-count", "scalar", "TSHLS")


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tmaxs_nan_rules(devname):
    nan = np.float32("nan")
    a = np.array([[nan, 1, -0.0, 5, 6, 7, 8, 9]], np.float32)
    run, d, _ = tile_scalar(devname, "TMAXS", "float32", a, 0.0)
    got = run.tile(d)[0]
    assert np.isnan(got[0]) and got[1] == 1
    # cpu std::max(src, s) keeps src = -0 (0 < -0 is false); NPU IEEE maximum gives +0
    assert np.signbit(got[2]) == (devname == "cpu")
    run, d, _ = tile_scalar(devname, "TMAXS", "float32", np.ones((1, 8), np.float32), np.nan)
    got = run.tile(d)[0]
    assert np.all(got == 1) if devname == "cpu" else np.all(np.isnan(got))


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tlrelu(devname):
    a = np.array([[-2, -0.5, 0, 1, 3, -8, 0.25, -1]], np.float32)
    run, d, _ = tile_scalar(devname, "TLRELU", "float32", a, 0.1)
    want = np.where(a > 0, a, a * np.float32(0.1))
    assert_bits_equal(run.tile(d), want)


# -- TAXPY ---------------------------------------------------------------------------------
def axpy(devname, dst_dt, src_dt, acc, x, s):
    R, C = acc.shape
    d, t = vec(dst_dt, R, C), vec(src_dt, R, C)
    run = run_kernel(devname, [d, t], [(d, acc), (t, x)], lambda: pto.TAXPY(d, t, s))
    return run, d


@pytest.mark.parametrize("devname", ["cpu", "a2"])
def test_taxpy_half_rounds_product_then_sum(devname):
    rng = np.random.default_rng(4)
    acc = rng.uniform(-4, 4, (2, 16)).astype(np.float16)
    x = rng.uniform(-4, 4, (2, 16)).astype(np.float16)
    run, d = axpy(devname, "half", "half", acc, x, 1.1)
    s = np.float16(1.1)
    prod = (x.astype(np.float32) * np.float32(s)).astype(np.float16)
    want = (acc.astype(np.float32) + prod.astype(np.float32)).astype(np.float16)
    assert_bits_equal(run.tile(d), want)


def _nearest(exact: Fraction, npt):
    """``exact`` rounded to the float type ``npt``, nearest-even, by exact comparison."""
    f = npt(float(exact))
    cands = [np.nextafter(f, npt(-np.inf)), f, np.nextafter(f, npt(np.inf))]
    bits = np.dtype(f"u{np.dtype(npt).itemsize}")
    return min(
        cands, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.array(c).view(bits)) & 1)
    )


def test_a5_taxpy_rounds_once():
    # hand case: half s = 0x3555 (0.333251953125), 3 * s = 1 - 2**-12 is a tie between half
    # 1 - 2**-11 and 1.0: the rounded product is 1.0 and -1 + 1.0 = 0; rounded once it is -2**-12
    acc, x = np.full((1, 16), -1.0, np.float16), np.full((1, 16), 3.0, np.float16)
    s = float(np.array(0x3555, np.uint16).view(np.float16))
    for devname, want in (("950pr", 0x8C00), ("a2", 0x0000), ("cpu", 0x0000)):
        run, d = axpy(devname, "half", "half", acc, x, s)
        assert run.tile(d).view(np.uint16).tolist() == [[want] * 16], devname
    # random half and float32 with cancellation, against the exact sum rounded once
    rng = np.random.default_rng(11)
    for dt, npt in (("half", np.float16), ("float32", np.float32)):
        acc = rng.uniform(-100, 100, (4, 16)).astype(npt)
        x = rng.uniform(-100, 100, (4, 16)).astype(npt)
        sv = npt(rng.uniform(-8, 8))
        acc[0] = -(x[0].astype(np.float64) * np.float64(sv)).astype(npt)  # near-cancellation
        run, d = axpy("950pr", dt, dt, acc, x, float(sv))
        exact = [Fraction(float(a)) + Fraction(float(b)) * Fraction(float(sv))
                 for a, b in zip(acc.ravel(), x.ravel())]  # fmt: skip
        want = np.array([_nearest(e, npt) for e in exact], npt).reshape(acc.shape)
        assert_bits_equal(run.tile(d), want)


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_taxpy_float32_dst_half_src_keeps_the_product_in_float(devname):
    acc = np.full((1, 64), 1.0, np.float32)
    x = np.full((1, 64), 1 + 2**-10, np.float16)  # x * x needs 21 bits: not a half
    run, d = axpy(devname, "float32", "half", acc, x, float(1 + 2**-10))
    prod = np.float32(x[0, 0]) * np.float32(x[0, 0])
    assert np.float16(prod) != prod
    assert_bits_equal(run.tile(d), np.full((1, 64), np.float32(1) + prod, np.float32))


def test_taxpy_rules():
    def body():
        pto.TAXPY(vec("half", 1, 16), vec("float32", 1, 16), 1.0)

    constraint("cpu", body, "dtype", "src", "TAXPY")


# -- bitwise with a scalar -----------------------------------------------------------------
def test_a2a3_tands_in_place_is_rejected():
    def body():
        t = vec("int16", 1, 16)
        pto.TANDS(t, t, 3)

    constraint("a2", body, "distinct-buffers", "dst", "TANDS")
    run, d, _ = tile_scalar("cpu", "TANDS", "int16", np.full((1, 16), 7, np.int16), 3, same=True)
    assert np.all(run.tile(d) == 3)


def test_a5_tands_tors_txors_take_float_bits_and_refuse_64_bit():
    # the scalar is converted to T, then combined bit by bit (vbr then vand/vor/vxor):
    # float32 1.5 = 0x3FC00000, -2.0 = 0xC0000000
    a = np.array([[1.5] * 8], np.float32)
    run, d, _ = tile_scalar("950pr", "TANDS", "float32", a, -2.0)
    assert run.tile(d).view(np.uint32).tolist() == [[0x3FC00000 & 0xC0000000] * 8]
    run, d, _ = tile_scalar("950pr", "TORS", "float32", a, -2.0)
    assert run.tile(d).view(np.uint32).tolist() == [[0xFFC00000] * 8]
    h = np.array([[1.5] * 16], np.float16)  # 0x3E00; -2.0 = 0xC000
    run, d, _ = tile_scalar("950pr", "TXORS", "half", h, -2.0)
    assert run.tile(d).view(np.uint16).tolist() == [[0xFE00] * 16]
    # npu/a5 TAndS: sizeof(T) must be 1, 2 or 4
    with pytest.raises(pto.ConstraintError, match="rule 'dtype'"):
        tile_scalar("950pr", "TANDS", "int64", np.ones((1, 4), np.int64), 3)


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_txors_tmp_and_padding(devname):
    a = np.arange(21, dtype=np.uint8).reshape(3, 7)
    run, d, t = tile_scalar(devname, "TXORS", "uint8", a, 0x5A, cols=32, valid=(3, 7))
    assert_bits_equal(run.tile(d), a ^ np.uint8(0x5A))
    raw_d = run.tile_storage(d).reshape(3, 32)
    raw_t = run.tile_storage(t).reshape(3, 32)
    if devname == "a2":  # tmp = src | s; column 7 (padding 0xFF) also processed
        assert_bits_equal(run.tile(t), a | np.uint8(0x5A))
        assert np.all(raw_d[:, 7] == 0xFF ^ 0x5A) and np.all(raw_t[:, 7] == 0xFF)
        assert np.all(raw_d[:, 8:] == 0xFF)
    else:
        assert np.all(raw_d[:, 7:] == 0xFF) and np.all(raw_t == 0xFF)


# -- hypothesis ------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    target=st.sampled_from(TARGETS),
    name=st.sampled_from(["TADDS", "TMULS", "TMAXS", "TMINS", "TORS", "TSHRS"]),
    dt=st.sampled_from(["int16", "uint16", "int32", "uint32"]),
    s=st.integers(-(2**31), 2**32 - 1),
    R=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_integer_scalar_ops_like_numpy(target, name, dt, s, R, seed):
    T = pto.dtypes.dtype(dt)
    if T not in (DTYPES[name][target] or ()):
        return
    info = np.iinfo(T.np)
    s = s % 16 if name == "TSHRS" else min(max(s, int(info.min)), int(info.max))
    rng = np.random.default_rng(seed)
    a = rand(rng, dt, (R, 2 * bs_of(dt)))
    run, d, _ = tile_scalar(DEV[target], name, dt, a, s)
    sv = T.np.type(s)
    fn = {
        "TADDS": np.add,
        "TMULS": np.multiply,
        "TMAXS": np.maximum,
        "TMINS": np.minimum,
        "TORS": np.bitwise_or,
        "TSHRS": np.right_shift,
    }[name]
    with np.errstate(all="ignore"):
        assert_bits_equal(run.tile(d), fn(a, sv).astype(T.np))


# -- timing ----------------------------------------------------------------------------------
def test_a2a3_tmuls_narrow_tile_takes_row_repeats():
    # timing.md V10: fp32 256x16 TMULS = partial mask (16 lanes), vmuls 255 repeats + 1
    a = np.ones((256, 16), np.float32)
    run, d, _ = tile_scalar("a2", "TMULS", "float32", a, 1.0)
    evs = vector_events(run, "TMULS")
    assert [(e.args["repeats"], e.args["lanes"]) for e in evs] == [(255, 16), (1, 16)]


def test_a2a3_tadds_and_tdivs_lowering():
    a = np.ones((32, 64), np.float32)
    run, d, _ = tile_scalar("a2", "TADDS", "float32", a, 0.0)
    assert intrinsics(run, "TADDS") == [("vadds", 32)]  # timing.md V9
    div, d, _ = tile_scalar("a2", "TDIVS", "float32", a, 2.0)
    seq = [e.args.get("intrinsic", e.kind) for e in div.trace.events if e.opcode == "TDIVS"]
    assert seq == ["vector_dup", "barrier", "vdiv"]  # timing.md V12
    assert intrinsics(div, "TDIVS") == [("vector_dup", 32), ("vdiv", 32)]
    inplace, d, _ = tile_scalar("a2", "TDIVS", "float32", a, 2.0, same=True)
    assert intrinsics(inplace, "TDIVS") == [("vmuls", 32)]
    busy = [sum(e.dur for e in r.trace.events if e.opcode == "TDIVS") for r in (inplace, div)]
    assert busy[0] < busy[1]


def test_a2a3_integer_tdivs_is_a_scalar_loop():
    a = np.ones((4, 8), np.int32)
    run, d, _ = tile_scalar("a2", "TDIVS", "int32", a, 3)
    evs = [(e.pipe, e.kind) for e in run.trace.events if e.opcode == "TDIVS"]
    assert evs == [("PIPE_V", "set_flag"), ("PIPE_S", "wait_flag")] + [("PIPE_S", "scalar")] * 4 + [
        ("PIPE_S", "set_flag"),
        ("PIPE_V", "wait_flag"),
    ]


def test_a2a3_txors_sequence():
    a = np.ones((2, 16), np.int16)
    run, d, t = tile_scalar("a2", "TXORS", "int16", a, 3)
    seq = [e.args.get("intrinsic", e.kind) for e in run.trace.events if e.opcode == "TXORS"]
    assert seq == [
        "vector_dup", "barrier", "vor", "barrier",
        "vector_dup", "barrier", "vand", "barrier",
        "vnot", "barrier", "vand",
    ]  # fmt: skip


def test_a5_scalar_vf_paths():
    a = np.ones((4, 64), np.float32)
    run, d, _ = tile_scalar("950pr", "TADDS", "float32", a, 1.0)
    ops = [(e.args["intrinsic"], e.args["repeats"]) for e in vector_events(run, "TADDS")]
    assert ops == [("vf_startup", 0), ("vlds", 4), ("vadds", 4), ("vsts", 4), ("vf_drain", 0)]
    run2, d, _ = tile_scalar("950pr", "TADDS", "float32", a[:, :60], 1.0, cols=64, valid=(4, 60))
    n = [e.args["intrinsic"] for e in vector_events(run2, "TADDS")].count("vadds")
    assert n == 4  # one loop per row (2-D)
