"""TCVT (vector_isa.md 3.7, 2.3, 4 item 3): per-target conversion results and the a2a3/a5 plans.

Expected values come from independent formulations: rounding of float64 values with
np.floor/np.ceil/np.trunc/np.rint then range checks; float16 neighbours with np.nextafter;
bfloat16 neighbours from float32 bit patterns (no ml_dtypes rounding); int64 -> float32 with
Python's exact integers. Timing tests assert the reference's intrinsic sequence and relations.
"""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim.errors import ConstraintError, UnsupportedError
from ptosim.isa.vector.convert import Conversion
from ptosim.targets import spec_of
from tests.helpers.kernels import run_kernel, vec

DEV = {"cpu": "cpu", "a2a3": "a2", "a5": "950pr"}
MODES = ("CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC")


# -- kernel plumbing ----------------------------------------------------------------------


def run_cvt(devname, src_t, dst_t, data, *args, tmp=None, **kw):
    """TLOAD data into src_t (its full tile), fill dst with 0x5A bytes, TCVT, return (run, dst
    storage as a (rows, cols) array)."""
    dev = pto.Device(devname)
    data = np.ascontiguousarray(data[: src_t.valid_row, : src_t.valid_col])
    b = dev.gm_array(data)
    fill = np.full(dst_t.geom.size_bytes, 0x5A, np.uint8).view(dst_t.dtype.np)
    f = dev.gm_array(fill.reshape(dst_t.rows, dst_t.cols))
    whole = vec(dst_t.dtype, dst_t.rows, dst_t.cols)  # dst's bytes, fully valid, for the fill

    @pto.kernel
    def k(b, f):
        pto.TASSIGN(src_t, 0)
        pto.TASSIGN(dst_t, 0x10000)
        pto.TASSIGN(whole, 0x10000)
        if tmp is not None:
            pto.TASSIGN(tmp, 0x20000)
        pto.TLOAD(src_t, pto.GlobalTensor(b, (1, 1, 1) + data.shape))
        pto.TLOAD(whole, pto.GlobalTensor(f, (1, 1, 1, dst_t.rows, dst_t.cols)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        if tmp is None:
            pto.TCVT(dst_t, src_t, *args, **kw)
        else:
            pto.TCVT(dst_t, src_t, tmp, *args, **kw)

    run = dev.run(k, b, f)
    return run, run.tile_storage(dst_t).reshape(dst_t.rows, dst_t.cols)


def cvt(devname, sdt, ddt, values, *args, **kw):
    """Convert a flat array of values (padded to a 1 x n tile, n a multiple of 32 elements)."""
    v = np.asarray(values)
    n = max(32, -(-v.size // 32) * 32)
    data = np.zeros((1, n), dtype=D.dtype(sdt).np)
    data[0, : v.size] = v
    run, out = run_cvt(devname, vec(sdt, 1, n), vec(ddt, 1, n), data, *args, **kw)
    return run, out[0, : v.size]


def bits(a):
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


# -- independent references ---------------------------------------------------------------
def round_int_ref(x, mode):
    """float64 -> integral float64 by a RoundMode, independent of the simulator."""
    if mode == "CAST_RINT":
        return np.rint(x)
    if mode == "CAST_FLOOR":
        return np.floor(x)
    if mode == "CAST_CEIL":
        return np.ceil(x)
    if mode == "CAST_TRUNC":
        return np.trunc(x)
    if mode == "CAST_ROUND":  # ties away from zero
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    raise ValueError(mode)


def f16_ref(x, mode):
    """float64 (exact f32 values) -> float16 by mode, from np.nextafter neighbours."""
    out = []
    np.seterr(over="ignore")
    for v in np.asarray(x, dtype=np.float64):
        n = np.float16(v)  # nearest (even); may be inf
        if not np.isfinite(v) or float(n) == v:
            out.append(n)
            continue
        if np.isinf(n):  # past +-65504 the next step is +-2**16, which rounds to +-inf
            lo, hi = (np.float16(65504), n) if v > 0 else (n, np.float16(-65504))
        elif float(n) > v:
            hi, lo = n, np.nextafter(n, np.float16(-np.inf))
        else:
            lo, hi = n, np.nextafter(n, np.float16(np.inf))
        if mode == "CAST_RINT":
            pick = n
        elif mode == "CAST_FLOOR":
            pick = lo
        elif mode == "CAST_CEIL":
            pick = hi
        elif mode == "CAST_TRUNC":
            pick = lo if v > 0 else hi
        elif mode == "CAST_ROUND":  # past 65504 the next step up is 2**16 (-> inf)
            flo = float(lo) if np.isfinite(lo) else -65536.0
            fhi = float(hi) if np.isfinite(hi) else 65536.0
            dlo, dhi = v - flo, fhi - v
            pick = (hi if v > 0 else lo) if dlo == dhi else (lo if dlo < dhi else hi)
        else:  # CAST_ODD: the neighbour with an odd last bit
            pick = lo if int(bits(np.float16(lo))) & 1 else hi
        out.append(np.float16(pick))
    return np.array(out, dtype=np.float16)


def bf16_ref(x32, mode):
    """float32 -> bfloat16 bits by mode: the two candidates are the top 16 bits of the float32
    pattern (toward zero) and the next pattern (away from zero)."""
    b = np.asarray(x32, dtype=np.float32).view(np.uint32).astype(np.uint64)
    hi16, rest = b >> 16, b & 0xFFFF
    neg = (b >> 31) == 1
    away = hi16 + 1
    exact = rest == 0
    if mode == "CAST_TRUNC":
        r = hi16
    elif mode == "CAST_FLOOR":
        r = np.where(neg & ~exact, away, hi16)
    elif mode == "CAST_CEIL":
        r = np.where(~neg & ~exact, away, hi16)
    elif mode == "CAST_ROUND":
        r = np.where(rest >= 0x8000, away, hi16)
    else:  # CAST_RINT
        r = np.where((rest > 0x8000) | ((rest == 0x8000) & (hi16 & 1 == 1)), away, hi16)
    return r.astype(np.uint16)


# -- V19 and the a2a3 repeat structure ------------------------------------------------------
def tcvt_events(run):
    return [e for e in run.trace.events if e.opcode == "TCVT" and e.args.get("repeats")]


@pytest.mark.parametrize("devname", ["a2"])
def test_v19_f32_to_f16_4x64_cast_none_issues_vconv_r_1_then_3(devname):
    # timing.md V19: "vconv_f322f16r, 1 repeat, then 3 more" (head per row, E = 64)
    x = np.arange(256, dtype=np.float32).reshape(4, 64) / 7
    run, out = run_cvt(devname, vec("float32", 4, 64), vec("half", 4, 64), x, "CAST_NONE")
    ev = tcvt_events(run)
    assert [e.args["intrinsic"] for e in ev] == ["vconv_f322f16r"] * 4
    assert [e.args["repeats"] for e in ev] == [1, 1, 1, 1]
    assert all(e.args["lanes"] == 64 and e.args["count_mode"] is False for e in ev)
    np.testing.assert_array_equal(bits(out), bits(x.astype(np.float16)))


def test_a2a3_tail_is_one_row_repeat_call_and_costs_grow():
    # C = 100 fp32 -> fp16: E = 64; per row one head call of 1 repeat, then one tail call with
    # a 36-lane mask and repeat = R (rows)
    R, C = 5, 100
    x = np.ones((R, 104), dtype=np.float32)
    run, _ = run_cvt(
        "a2", vec("float32", R, 104, valid=(R, C)), vec("half", R, 112, valid=(R, C)), x
    )
    ev = tcvt_events(run)
    assert [e.args["repeats"] for e in ev] == [1] * R + [R]
    assert ev[-1].args["lanes"] == C - 64
    small, _ = run_cvt("a2", vec("float32", 2, 64), vec("half", 2, 64), x[:2, :64])
    big, _ = run_cvt("a2", vec("float32", 8, 64), vec("half", 8, 64), np.ones((8, 64), "f4"))
    tcvt = lambda r: sum(e.dur for e in r.trace.events if e.opcode == "TCVT")  # noqa: E731
    assert tcvt(big) > tcvt(small)


def test_a2a3_mode_picks_the_intrinsic_suffix_and_defaults():
    x = np.ones((1, 64), dtype=np.float32)
    for mode, suffix in [("CAST_FLOOR", "f"), ("CAST_ODD", "o"), ("CAST_NONE", "r")]:
        run, _ = run_cvt("a2", vec("float32", 1, 64), vec("half", 1, 64), x, mode)
        assert {e.args["intrinsic"] for e in tcvt_events(run)} == {"vconv_f322f16" + suffix}
    # f32 -> i32: CAST_NONE and CAST_ODD (not in the family) take the default z
    for mode in ("CAST_NONE", "CAST_ODD"):
        run, _ = run_cvt("a2", vec("float32", 1, 64), vec("int32", 1, 64), x, mode)
        assert {e.args["intrinsic"] for e in tcvt_events(run)} == {"vconv_f322s32z"}
    run, _ = run_cvt("a2", vec("int32", 1, 64), vec("half", 1, 64), x.astype(np.int32))
    names = [e.name for e in run.trace.events if e.opcode == "TCVT"]
    assert any(n.startswith("set_deqscale") for n in names)
    assert any("vconv_deq" in n for n in names)


def test_a5_one_d_vs_two_d_loops():
    x = np.ones((4, 64), dtype=np.float32)
    run, _ = run_cvt("950pr", vec("float32", 4, 64), vec("half", 4, 64), x)
    ev = [e for e in run.trace.events if e.opcode == "TCVT" and e.args.get("intrinsic") == "vcvt"]
    assert len(ev) == 1 and ev[0].args["path"] == "1d" and ev[0].args["repeats"] == 4
    run, _ = run_cvt(
        "950pr", vec("float32", 4, 64, valid=(4, 40)), vec("half", 4, 64, valid=(4, 40)), x
    )
    ev = [e for e in run.trace.events if e.opcode == "TCVT" and e.args.get("intrinsic") == "vcvt"]
    assert len(ev) == 4 and {e.args["path"] for e in ev} == {"2d"}


# -- float -> integer, per mode, per target ---------------------------------------------------
SPECIAL = np.array(
    [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 2.7, -2.7, 7.0, -7.0, 126.5, 300.0],
    dtype=np.float32,
)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_f32_to_i32_modes(target, mode):
    run, out = cvt(DEV[target], "float32", "int32", SPECIAL, mode)
    want = round_int_ref(SPECIAL.astype(np.float64), mode).astype(np.int32)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_cast_none_float_to_int_truncates(target):
    _, out = cvt(DEV[target], "float32", "int32", SPECIAL, "CAST_NONE")
    np.testing.assert_array_equal(out, np.trunc(SPECIAL).astype(np.int32))


def test_cpu_cast_none_truncates_and_odd_ties_to_odd():
    _, out = cvt("cpu", "float32", "int32", SPECIAL, "CAST_NONE")
    np.testing.assert_array_equal(out, np.trunc(SPECIAL).astype(np.int32))
    _, out = cvt("cpu", "float32", "int32", [0.5, 1.5, 2.5, -2.5, 2.6], "CAST_ODD")
    np.testing.assert_array_equal(out, [1, 1, 3, -3, 3])


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_saturation_defaults_f16_to_i8(target):
    x = np.array([300.0, -300.0, 127.0, 200.0], dtype=np.float16)
    _, out = cvt(DEV[target], "half", "int8", x, "CAST_RINT")  # default OFF: low bits
    np.testing.assert_array_equal(out, [44, -44, 127, -56])
    _, out = cvt(DEV[target], "half", "int8", x, "CAST_RINT", "ON")
    np.testing.assert_array_equal(out, [127, -128, 127, 127])


def test_a2a3_forces_saturation_on_for_other_pairs():
    x = np.array([3.0e9, -3.0e9, 1.0], dtype=np.float32)
    _, out = cvt("a2", "float32", "int32", x, "CAST_RINT", "OFF")  # OFF ignored: clamps
    np.testing.assert_array_equal(out, [2**31 - 1, -(2**31), 1])
    _, out5 = cvt("950pr", "float32", "int32", x, "CAST_RINT", "OFF")  # a5 honours OFF
    np.testing.assert_array_equal(out5, np.array([3000000000, -3000000000, 1], "i8").astype("i4"))


def test_a2a3_tmp_two_step_f32_to_i16_clamps_to_int32_first():
    x = np.zeros((1, 64), dtype=np.float32)
    x[0, :3] = [3.0e9, 70000.5, -40000.0]
    tmp = vec("int32", 1, 64)
    _, plain = run_cvt("a2", vec("float32", 1, 64), vec("int16", 1, 64), x, "CAST_RINT", "OFF")
    _, two = run_cvt(
        "a2", vec("float32", 1, 64), vec("int16", 1, 64), x, "CAST_RINT", "OFF", tmp=tmp
    )
    want_two = np.array([2**31 - 1, 70000, -40000], dtype=np.int64).astype(np.int16)
    want_plain = np.array([3000000000, 70000, -40000], dtype=np.int64).astype(np.int16)
    np.testing.assert_array_equal(two[0, :3], want_two)
    np.testing.assert_array_equal(plain[0, :3], want_plain)


TWO_STEP = [("float32", "int16"), ("half", "int16"), ("half", "int8")]


@pytest.mark.parametrize(("sdt", "ddt"), TWO_STEP)
def test_a2a3_tmp_two_step_infinities_go_through_int32(sdt, ddt):
    # the two-step path saturates to int32 first: +inf -> 0x7FFFFFFF, -inf -> 0x80000000, NaN
    # -> 0 (ptosim's NaN choice), then the destination keeps the low bits
    x = np.zeros((1, 64), dtype=D.dtype(sdt).np)
    x[0, :4] = [np.inf, -np.inf, np.nan, -200.0]
    _, two = run_cvt("a2", vec(sdt, 1, 64), vec(ddt, 1, 64), x, "CAST_TRUNC", "OFF",
                     tmp=vec("int32", 1, 64))  # fmt: skip
    want = np.array([0x7FFFFFFF, -0x80000000, 0, -200], np.int64).astype(D.dtype(ddt).np)
    np.testing.assert_array_equal(two[0, :4], want)


def test_npu_nan_inf_to_int_is_a_finding():
    x = np.array([np.nan, np.inf, -np.inf, 1.0], dtype=np.float32)
    run, out = cvt("a2", "float32", "int32", x, "CAST_RINT")
    np.testing.assert_array_equal(out, [0, 2**31 - 1, -(2**31), 1])
    assert "F109" in [f.code for f in run.findings]
    run, _ = cvt("a2", "float32", "int32", np.array([1.0], np.float32))
    assert "F109" not in [f.code for f in run.findings]


def test_cpu_saturation_clamps_in_double_and_rerounds_in_source():
    # f32 -> i16 ON: clamp to [-32768, 32767]; NaN -> the upper limit
    x = np.array([1e6, -1e6, np.nan, 5.7], dtype=np.float32)
    _, out = cvt("cpu", "float32", "int16", x, "CAST_TRUNC", "ON")
    np.testing.assert_array_equal(out, [32767, -32768, 32767, 5])
    # f32 -> f16 ON clamps to +-65504 (cpu float -> float otherwise overflows to inf)
    y = np.array([1e6, -np.inf], dtype=np.float32)
    _, out = cvt("cpu", "float32", "half", y, "CAST_RINT", "ON")
    np.testing.assert_array_equal(out, np.array([65504, -65504], np.float16))
    _, out = cvt("cpu", "float32", "half", y, "CAST_RINT")
    np.testing.assert_array_equal(out, np.array([np.inf, -np.inf], np.float16))


def test_cpu_out_of_range_float_to_int_is_a_finding():
    run, _ = cvt("cpu", "float32", "int8", np.array([300.0], np.float32), "CAST_RINT")
    assert "F109" in [f.code for f in run.findings]


# -- float -> float ------------------------------------------------------------------------
F32_SAMPLES = np.array(
    [1.0, 1.0 + 2**-11, 1.0 + 3 * 2**-11, -(1.0 + 2**-11), 65519.0, 65520.0, 1e-7, -3e-6, 0.1],
    dtype=np.float32,
)


@pytest.mark.parametrize("mode", MODES + ("CAST_ODD",))
def test_a2a3_f32_to_f16_every_mode(mode):
    _, out = cvt("a2", "float32", "half", F32_SAMPLES, mode)
    np.testing.assert_array_equal(bits(out), bits(f16_ref(F32_SAMPLES.astype(np.float64), mode)))


@pytest.mark.parametrize("devname", ["a2", "950pr"])
@pytest.mark.parametrize("mode", MODES)
def test_npu_f32_to_f32_rounds_to_an_integral_value(devname, mode):
    # a2a3 vconv_f322f32<m> (vector_isa.md 3.7): "rounding only", the result stays float32;
    # a5 TCvt.hpp: FP32 -> FP32 is vtrc with the mode (the a5 tcvt folder's golden is np.rint)
    x = np.array([-80.49, 52.5, -50.5, 2.5, -0.4, 0.6, 1e9 + 0.5, 7.0, np.inf, -np.inf], np.float32)
    _, out = cvt(devname, "float32", "float32", x, mode)
    want = round_int_ref(x.astype(np.float64), mode).astype(np.float32)
    np.testing.assert_array_equal(bits(out), bits(want))
    _, nan = cvt(devname, "float32", "float32", np.array([np.nan], np.float32), mode)
    assert np.isnan(nan[0])


def test_a5_f32_to_f32_without_a_mode_rounds_to_nearest_even():
    x = np.array([-80.49, 52.5, 0.25, 3.5], np.float32)
    _, out = cvt("950pr", "float32", "float32", x, "CAST_NONE")
    np.testing.assert_array_equal(out.ravel()[:4], np.array([-80.0, 52.0, 0.0, 4.0], np.float32))


@pytest.mark.parametrize("mode", MODES)
def test_cpu_float_to_float_ignores_the_mode(mode):
    _, out = cvt("cpu", "float32", "half", F32_SAMPLES, mode)
    np.testing.assert_array_equal(bits(out), bits(F32_SAMPLES.astype(np.float16)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_f32_to_bf16_modes(target, mode):
    x = np.array([1.0 + 2**-8, 1.0 + 3 * 2**-9, -(1.0 + 2**-8), 3.14159, -2.71828, 1e-40],
                 dtype=np.float32)  # fmt: skip
    _, out = cvt(DEV[target], "float32", "bfloat16", x, mode)
    np.testing.assert_array_equal(bits(out), bf16_ref(x, mode))


def test_a5_fp8_saturation():
    x = np.array([1000.0, -1000.0, 1.0, 0.3], dtype=np.float32)
    _, on = cvt("950pr", "float32", "float8_e4m3", x)  # default ON: clamp to +-448
    np.testing.assert_array_equal(on.astype(np.float32), [448, -448, 1.0, 0.3125])
    _, off = cvt("950pr", "float32", "float8_e4m3", x, "CAST_RINT", "OFF")
    assert np.isnan(off[:2].astype(np.float32)).all()
    _, off5 = cvt("950pr", "float32", "float8_e5m2", x, "CAST_RINT", "OFF")
    np.testing.assert_array_equal(off5.astype(np.float32)[:3], [1024, -1024, 1.0])


def test_fp8_to_f32_is_exact_on_a5():
    codes = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e5m2)
    _, out = cvt("950pr", "float8_e5m2", "float32", codes)
    want = codes.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(bits(out[ok]), bits(want[ok]))


# -- int -> float --------------------------------------------------------------------------
def test_a2a3_i64_to_f32_rounds_the_exact_integer():
    vals = [2**53 + 1, 2**60 + 2**36 + 1, -(2**40 + 3), 2**24 + 1, 2**63 - 1]
    x = np.array(vals, dtype=np.int64)
    for mode in MODES:
        _, out = cvt("a2", "int64", "float32", x, mode)
        want = []
        for v in vals:
            cands = []
            f = np.float32(float(v))  # nearby float32; find the bracketing pair exactly
            for c in (np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))):
                cands.append(Fraction(float(c)))
            lo = max(c for c in cands if c <= v)
            hi = min(c for c in cands if c >= v)
            if lo == hi:
                want.append(float(lo))
                continue
            pick = {
                "CAST_FLOOR": lo,
                "CAST_CEIL": hi,
                "CAST_TRUNC": lo if v > 0 else hi,
            }.get(mode)
            if pick is None:
                dl, dh = v - lo, hi - v
                if dl != dh:
                    pick = lo if dl < dh else hi
                elif mode == "CAST_ROUND":
                    pick = hi if v > 0 else lo
                else:
                    pick = lo if int(bits(np.float32(float(lo)))) % 2 == 0 else hi
            want.append(float(pick))
        np.testing.assert_array_equal(out, np.array(want, dtype=np.float32), err_msg=mode)


# -- domains, pairs, errors ----------------------------------------------------------------
def test_cpu_iterates_src_valid_npu_dst_valid():
    x = np.arange(2 * 64, dtype=np.float32).reshape(2, 64)
    s, d = vec("float32", 2, 64, valid=(2, 16)), vec("float32", 2, 64, valid=(1, 40))
    _, out_cpu = run_cvt("cpu", s, d, x, "CAST_TRUNC")
    untouched = np.full((), 0x5A5A5A5A, np.uint32).view(np.float32)
    assert np.array_equal(out_cpu[:2, :16], x[:, :16])
    assert np.all(bits(out_cpu[:, 16:]) == bits(untouched))
    s2, d2 = vec("float32", 2, 64, valid=(2, 16)), vec("float32", 2, 64, valid=(1, 40))
    run, out_a2 = run_cvt("a2", s2, d2, x, "CAST_TRUNC")
    src_row0 = run.tile_storage(s2).reshape(2, 64)[0, :40]  # past column 16: uninitialised UB
    assert np.array_equal(out_a2[0, :16], x[0, :16])
    np.testing.assert_array_equal(bits(out_a2[0, :40]), bits(np.trunc(src_row0)))
    assert np.all(bits(out_a2[1]) == bits(untouched)) and np.all(bits(out_a2[0, 40:]) == 0x5A5A5A5A)


@pytest.mark.parametrize(
    "devname,sdt,ddt",
    [("a2", "float32", "int8"), ("a2", "half", "bfloat16"), ("950pr", "float32", "uint8")],
)
def test_unsupported_pairs_are_refused(devname, sdt, ddt):
    with pytest.raises(UnsupportedError, match="conversion-pair"):
        cvt(devname, sdt, ddt, np.ones(4))


def test_bad_mode_is_a_constraint_error():
    with pytest.raises(ConstraintError, match="round-mode"):
        cvt("cpu", "float32", "half", np.ones(4), "CAST_NEAREST")


def test_a2a3_in_place_between_sizes_is_refused():
    dev = pto.Device("a2")
    s, d = vec("float32", 1, 64), vec("half", 1, 64)

    @pto.kernel
    def k():
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0)
        pto.TCVT(d, s)

    with pytest.raises(ConstraintError, match="in-place"):
        dev.run(k)


def test_a2a3_between_sizes_with_auto_placed_tiles_runs_exact():
    """Tiles the allocator places have no address while the kernel records: the in-place rule
    must not look at one (it raised a TypeError), and the run is exact."""
    dev = pto.Device("a2")
    x = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
    xb, ob = dev.gm_array(x), dev.gm_zeros((16, 16), "float16")

    @pto.kernel
    def k():
        a, b = vec("float32", 16, 16), vec("half", 16, 16)
        pto.TLOAD(a, pto.GlobalTensor(xb, shape=(16, 16)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.TCVT(b, a, "CAST_RINT")
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(ob, shape=(16, 16)), b)

    run = dev.run(k)
    assert run.findings == []
    assert np.array_equal(ob.numpy(), x.astype(np.float16))


# -- hypothesis properties of the numerics ----------------------------------------------------
f32s = st.floats(width=32, allow_nan=False, allow_infinity=False)
A2A3_CVT, A5_CVT = spec_of("a2a3").convert, spec_of("a5").convert


@settings(max_examples=300, deadline=None)
@given(x=f32s, mode=st.sampled_from(MODES + ("CAST_ODD",)))
def test_property_f32_to_f16_a2a3(x, mode):
    got = Conversion(A2A3_CVT, D.float32, D.half, mode, None, None).convert(np.array([x], "f4"))[0]
    np.testing.assert_array_equal(bits(got), bits(f16_ref(np.array([x], np.float64), mode)))


@settings(max_examples=300, deadline=None)
@given(x=f32s, mode=st.sampled_from(MODES))
def test_property_f32_to_bf16_a5(x, mode):
    got = Conversion(A5_CVT, D.float32, D.bfloat16, mode, "OFF", None).convert(np.array([x], "f4"))[
        0
    ]
    np.testing.assert_array_equal(bits(got), bf16_ref(np.array([x], np.float32), mode))


@settings(max_examples=300, deadline=None)
@given(
    x=f32s,
    mode=st.sampled_from(MODES),
    dt=st.sampled_from(["int32", "int16"]),
    sat=st.sampled_from(["ON", "OFF"]),
)
def test_property_f32_to_int_a5(x, mode, dt, sat):
    d = D.dtype(dt)
    got = Conversion(A5_CVT, D.float32, d, mode, sat, None).convert(np.array([x], "f4"))[0]
    r = round_int_ref(np.float64(x), mode)
    info = np.iinfo(d.np)
    if sat == "ON":
        want = int(min(max(r, info.min), info.max))
    else:  # low bits of the exact integer
        want = int(r) % 2 ** (8 * d.size_bytes)
        want = want - 2 ** (8 * d.size_bytes) if want > info.max else want
    assert int(got[0]) == want


@settings(max_examples=300, deadline=None)
@given(n=st.integers(-(2**31), 2**31 - 1), mode=st.sampled_from(MODES))
def test_property_i32_to_f32_modes_a5(n, mode):
    got = Conversion(A5_CVT, D.int32, D.float32, mode, None, None).convert(np.array([n], "i4"))[0]
    f = np.float32(n)  # RNE reference candidate, then the exact bracket
    down, up = np.nextafter(f, np.float32(-np.inf)), np.nextafter(f, np.float32(np.inf))
    cands = sorted({float(down), float(f), float(up)})
    lo = max(c for c in cands if c <= n)
    hi = min(c for c in cands if c >= n)
    if lo == hi:
        assert float(got[0]) == lo
        return
    want = {
        "CAST_FLOOR": lo,
        "CAST_CEIL": hi,
        "CAST_TRUNC": lo if n > 0 else hi,
        "CAST_RINT": float(f),
        "CAST_ROUND": (lo if n - lo < hi - n else hi)
        if n - lo != hi - n
        else (hi if n > 0 else lo),
    }[mode]
    assert float(got[0]) == want and math.isfinite(want)


# -- TQUANT / TDEQUANT / TCI ---------------------------------------------------------------------
def run_tiles(devname, loads, body, extra=()):
    """TASSIGN each tile at 4 KiB steps, TLOAD (tile, data) pairs, MTE2 -> V, body()."""
    dev = pto.Device(devname)
    bufs = [dev.gm_array(np.ascontiguousarray(d)) for _, d in loads]
    tiles = [t for t, _ in loads] + list(extra)

    @pto.kernel
    def k():
        for n, t in enumerate(tiles):
            pto.TASSIGN(t, 0x1000 * n)
        for (t, d), b in zip(loads, bufs):
            pto.TLOAD(t, pto.GlobalTensor(b, (1, 1, 1) + d.shape, layout="ND"))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        body()

    return dev.run(k)


@pytest.mark.parametrize("quant", ["INT8_SYM", "INT8_ASYM"])
@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tquant_int8(devname, quant):
    rng = np.random.default_rng(5)
    R, C = 4, 64
    x = rng.uniform(-40, 40, (R, C)).astype(np.float32)
    x[0, :4] = [0.5, 1.5, 2.5, -0.5]
    sc = np.array([1.0, 3.0, 0.25, 100.0] + [0] * 4, np.float32).reshape(8, 1)
    off = np.array([0.0, 128.0, 100.0, 7.0] + [0] * 4, np.float32).reshape(8, 1)
    src, dst = vec("float32", R, C), vec("int8" if quant == "INT8_SYM" else "uint8", R, C)
    s_t = pto.Tile("Vec", "float32", 8, 1, "ColMajor", valid=(R, 1))
    o_t = pto.Tile("Vec", "float32", 8, 1, "ColMajor", valid=(R, 1))
    tmp = vec("int32", R, C)
    loads = [(src, x), (s_t, sc[:R].T.copy()), (o_t, off[:R].T.copy())]

    def body():
        pto.TQUANT(dst, src, s_t, tmp, o_t if quant == "INT8_ASYM" else None, quant=quant)

    dev = pto.Device(devname)
    bufs = [dev.gm_array(np.ascontiguousarray(d)) for _, d in loads]

    @pto.kernel
    def k():
        for n, t in enumerate([src, s_t, o_t, dst, tmp]):
            pto.TASSIGN(t, 0x1000 * n)
        for (t, _d), b in zip(loads, bufs):
            layout = "DN" if t is not src else "ND"
            shape = (1, 1, 1, R, 1) if t is not src else (1, 1, 1, R, C)
            pto.TLOAD(t, pto.GlobalTensor(b, shape, layout=layout))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        body()

    r = dev.run(k)
    v = x * sc[:R]
    if quant == "INT8_ASYM":
        v = (v + off[:R]).astype(np.float32)
    lo, hi = (-128, 127) if quant == "INT8_SYM" else (0, 255)
    want = np.clip(np.rint(v.astype(np.float64)), lo, hi)
    np.testing.assert_array_equal(r.tile(dst).astype(np.int64), want.astype(np.int64))
    clobbered = not np.array_equal(r.tile(src), x)
    assert clobbered == (devname == "a2")  # a2a3 scales src in place


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("sdt", ["int8", "int16"])
def test_tdequant(devname, sdt):
    R, C = 3, 64
    x = np.arange(R * C).reshape(R, C).astype(D.dtype(sdt).np)
    sc = np.zeros((R, 8), np.float32)
    off = np.zeros((R, 8), np.float32)
    sc[:, 0], off[:, 0] = [0.1, 3.0, -0.5], [1.0, -2.5, 100.0]
    src, dst = vec(sdt, R, C), vec("float32", R, C)
    s_t, o_t = vec("float32", R, 8, valid=(R, 1)), vec("float32", R, 8, valid=(R, 1))
    r = run_tiles(
        devname,
        [(src, x), (s_t, sc[:, :1]), (o_t, off[:, :1])],
        lambda: pto.TDEQUANT(dst, src, s_t, o_t),
        [dst],
    )
    want = (x.astype(np.float32) - off[:, :1]) * sc[:, :1]
    np.testing.assert_array_equal(bits(r.tile(dst)), bits(want.astype(np.float32)))


@pytest.mark.parametrize("devname", ["a2", "950pr"])
def test_npu_tdequant_reads_column_0_of_parameter_tiles_of_any_layout(devname):
    # a2a3 and a5 read scale/offset [i * RowStride] per row; the library's a5 tdequant test
    # passes ColMajor R x 1 parameter tiles (only dst and src must be row-major)
    R, C = 5, 64
    x = (np.arange(R * C).reshape(R, C) % 200 - 100).astype(np.int8)
    sc = np.array([0.1, 3.0, -0.5, 7.25, 1e-3], np.float32).reshape(R, 1)
    off = np.array([1.0, -2.5, 100.0, 0.5, -7.0], np.float32).reshape(R, 1)
    src, dst = vec("int8", R, C), vec("float32", R, C)
    s_t = vec("float32", 8, 1, layout="ColMajor", valid=(R, 1))
    o_t = vec("float32", 8, 1, layout="ColMajor", valid=(R, 1))
    loads = [(src, x), (s_t, sc), (o_t, off)]  # the ColMajor tiles from DN views
    r = run_kernel(devname, [src, s_t, o_t, dst], loads, lambda: pto.TDEQUANT(dst, src, s_t, o_t))
    want = (x.astype(np.float32) - off) * sc
    np.testing.assert_array_equal(bits(r.tile(dst)), bits(want.astype(np.float32)))
    # two valid parameter columns: the NPU still reads column 0 (cpu would take column j)
    s2, o2 = vec("float32", R, 8, valid=(R, 2)), vec("float32", R, 8, valid=(R, 2))
    sc2, off2 = np.hstack([sc, sc * 2]), np.hstack([off, off + 1])
    r = run_tiles(
        devname, [(src, x), (s2, sc2), (o2, off2)], lambda: pto.TDEQUANT(dst, src, s2, o2), [dst]
    )
    np.testing.assert_array_equal(bits(r.tile(dst)), bits(want.astype(np.float32)))


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("descending", [False, True])
def test_tci(devname, descending):
    d = vec("int32", 1, 64, valid=(1, 50))
    r = run_tiles(devname, [], lambda: pto.TCI(d, 7, descending=descending), [d])
    j = np.arange(50)
    np.testing.assert_array_equal(r.tile(d)[0], 7 - j if descending else 7 + j)


def test_tci_a2a3_tmp_descending_negates_and_a5_rejects_half():
    d, tmp = vec("int32", 1, 64), vec("uint8", 1, 768)
    r = run_tiles("a2", [], lambda: pto.TCI(d, 7, tmp, descending=True), [d, tmp])
    np.testing.assert_array_equal(r.tile(d)[0], -(7 + np.arange(64)))
    h = vec("half", 1, 64)
    with pytest.raises(ConstraintError, match="dtype"):
        run_tiles("950pr", [], lambda: pto.TCI(h, 1), [h])
