"""TCOLEXPAND and TCOLEXPAND<OP> (vector_isa.md 3.18): expected values from numpy, a2a3 block
padding, the cpu src1-is-the-row-vector rule, and the a2a3 lowering's call structure."""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import vec

DEVICES = ("cpu", "a2", "950pr")


def run(devname, full, rowv, body, outs, valid_cols):
    dev = pto.Device(devname)
    R, C = full.shape
    a = vec(full.dtype, R, 16 * -(-C // 16), valid=(R, C))
    b = vec(full.dtype, 1, 16 * -(-C // 16), valid=(1, C))
    g1, g2 = dev.gm_array(full), dev.gm_array(rowv)

    @pto.kernel
    def k(g1, g2):
        addr = 0
        for t in (a, b, *outs):
            pto.TASSIGN(t, addr)
            addr += t.geom.size_bytes
        pto.TLOAD(a, pto.GlobalTensor(g1, (1, 1, 1, R, C)))
        pto.TLOAD(b, pto.GlobalTensor(g2, (1, 1, 1, 1, C)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        body(a, b, *outs)

    return dev.run(k, g1, g2)


OPS = {
    "ADD": np.add,
    "SUB": np.subtract,
    "MUL": np.multiply,
    "DIV": np.divide,
    "MAX": np.maximum,
    "MIN": np.minimum,
}


@pytest.mark.parametrize("devname", DEVICES)
@pytest.mark.parametrize("op", list(OPS) + ["EXPDIF"])
@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_binary_matches_numpy(devname, op, dt):
    rng = np.random.default_rng(7)
    R, C = 5, 20
    full = rng.uniform(-3, 3, (R, C)).astype(dt)
    rowv = rng.uniform(0.5, 3, (1, C)).astype(dt)
    d = vec(dt, R, 32, valid=(R, C))
    r = run(devname, full, rowv, lambda a, b, o: getattr(pto, f"TCOLEXPAND{op}")(o, a, b), [d], C)
    x, y = full.astype(np.float64), np.repeat(rowv, R, 0).astype(np.float64)
    if op == "EXPDIF":
        want = np.exp((x - y).astype(dt).astype(np.float64)).astype(dt)
    else:
        want = OPS[op](x, y).astype(dt)
    np.testing.assert_array_equal(r.tile(d), want)


@pytest.mark.parametrize("devname", DEVICES)
def test_row_vector_in_src0(devname):
    full = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    rowv = np.array([[10, 20, 30, 40]], np.float32)
    d = vec("float32", 3, 8, valid=(3, 4))

    def body(a, b, o):
        pto.TCOLEXPANDSUB(o, b, a)  # row vector first: dst = row - full on the NPU

    if devname == "cpu":
        with pytest.raises(pto.ConstraintError, match="cpu-row-vector"):
            run(devname, full, rowv, body, [d], 4)
        return
    r = run(devname, full, rowv, body, [d], 4)
    np.testing.assert_array_equal(r.tile(d), np.repeat(rowv, 3, 0) - full)


@pytest.mark.parametrize("devname", DEVICES)
def test_colexpand_and_a2a3_padding(devname):
    full = np.zeros((2, 8), np.float32)
    rowv = np.arange(8, dtype=np.float32).reshape(1, 8)
    d = vec("float32", 3, 16, valid=(3, 5))
    view = vec("float32", 1, 16, valid=(1, 5))

    def body(a, b, o, v):
        pto.TASSIGN(v, a.geom.size_bytes)  # b's address: b seen with a 5-column valid region
        pto.TCOLEXPAND(o, v)

    r = run(devname, full, rowv, body, [d, view], 8)
    raw = r.tile_storage(d).reshape(3, 16)[:, :8]
    np.testing.assert_array_equal(raw[:, :5], np.repeat(rowv[:, :5], 3, 0))
    if devname == "a2":  # whole 32-byte blocks copied from src row 0
        np.testing.assert_array_equal(raw[:, 5:], np.repeat(rowv[:, 5:], 3, 0))
    else:
        assert np.all(raw[:, 5:].view(np.uint32) == 0xFFFFFFFF)


def test_a2a3_binary_norm_vs_count_mode():
    """Continuous dst: rows are repeats (one call); a partial valid width: one call per row."""
    rng = np.random.default_rng(1)
    full, rowv = rng.random((6, 64)).astype(np.float32), rng.random((1, 64)).astype(np.float32)
    d = vec("float32", 6, 64)
    r = run("a2", full, rowv, lambda a, b, o: pto.TCOLEXPANDADD(o, a, b), [d], 64)
    calls = [e for e in r.trace.events if e.opcode == "TCOLEXPANDADD" and e.kind == "vector"]
    assert len(calls) == 1 and calls[0].args["repeats"] == 6 and not calls[0].args["count_mode"]
    full2 = full[:, :40].copy()
    d2 = vec("float32", 6, 64, valid=(6, 40))
    r2 = run("a2", full2, rowv[:, :40].copy(), lambda a, b, o: pto.TCOLEXPANDADD(o, a, b), [d2], 40)
    calls2 = [e for e in r2.trace.events if e.opcode == "TCOLEXPANDADD" and e.kind == "vector"]
    assert len(calls2) == 6 and all(c.args["count_mode"] for c in calls2)
