"""The 950 cube core: a GEMM exact on 950pr / 950dt (integer-valued inputs: every sum exact),
its cube costs labelled estimates (the vendor's a5 cost model has no cube entries), and the
a5 TF32 mode rounding fp32 inputs to an 8-bit exponent / 10-bit mantissa (reference/cube_isa.md
3.4), checked against a rounding written here element by element."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

M = K = N = 16


def _kernel(dt, tf32=None):
    @pto.kernel(cores="cube")
    def gemm(a, b, c):
        am, bm = pto.TileMatNZ(dt, M, K), pto.TileMatNZ(dt, K, N)
        la, rb = pto.TileLeft(dt, M, K), pto.TileRight(dt, K, N)
        acc = pto.TileAcc("float32", M, N)
        if tf32:
            la.SetMadTF32Mode(tf32)
        pto.TLOAD(am, pto.GlobalTensor(a, (M, K)))
        pto.TLOAD(bm, pto.GlobalTensor(b, (K, N)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.TMOV(la, am)
        pto.TMOV(rb, bm)
        pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.TMATMUL(acc, la, rb)
        pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.TSTORE(pto.GlobalTensor(c, (M, N)), acc)

    return gemm


def _run(devname, kern, a, b):
    dev = pto.Device(devname)
    c = dev.gm_zeros((M, N), "float32")
    run = dev.run(kern, dev.gm_array(a), dev.gm_array(b), c)
    assert run.findings == [], [str(f) for f in run.findings]
    return c.numpy(), run


@pytest.mark.parametrize("devname", ["950pr", "950dt"])
def test_a_gemm_on_the_950_cube_is_exact_and_its_cube_costs_are_estimates(devname):
    rng = np.random.default_rng(4)
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    got, run = _run(devname, _kernel("float16"), a, b)
    assert np.array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32))
    cube = [e for e in run.trace.events if e.pipe in ("PIPE_M", "PIPE_MTE1", "PIPE_FIX")]
    cube = [e for e in cube if "intrinsic" in e.args]
    assert {e.pipe for e in cube} == {"PIPE_M", "PIPE_MTE1", "PIPE_FIX"}
    assert all(e.args["source"] == "estimate" for e in cube)
    mad = [e for e in cube if e.opcode == "TMATMUL"]
    assert [e.dur for e in mad] == [6 + 1 * 1 * 1]  # the a2a3 model's formula, as an estimate


def _e8m10(x: float) -> np.float32:
    """One float32 to an 8-bit exponent, 10-bit mantissa (13 low bits dropped, ties to even)."""
    bits = int(np.array(x, np.float32).view(np.uint32))
    if (bits >> 23) & 0xFF == 0:
        return np.array(bits & 0x80000000, np.uint32).view(np.float32)
    lost, keep = bits & 0x1FFF, bits >> 13
    up = lost > 0x1000 or (lost == 0x1000 and keep & 1)
    return np.array(((keep + up) << 13) & 0xFFFFFFFF, np.uint32).view(np.float32)


def test_the_950_tf32_mode_keeps_10_mantissa_bits():
    rng = np.random.default_rng(8)
    a = rng.uniform(-10, 10, (M, K)).astype(np.float32)
    b = rng.uniform(-10, 10, (K, N)).astype(np.float32)
    a[0, 0] = np.array(0x3F801000, np.uint32).view(np.float32)  # a tie at bit 12: 1 + 2**-11
    f = np.vectorize(_e8m10, otypes=[np.float32])
    got, _ = _run("950pr", _kernel("float32", tf32="CAST_RINT"), a, b)
    want = (f(a).astype(np.float64) @ f(b).astype(np.float64)).astype(np.float32)
    assert np.array_equal(got, want)
    a2, _ = _run("a2", _kernel("float32", tf32="CAST_RINT"), a, b)
    assert not np.array_equal(a2, got)  # a2 keeps 11 bits
