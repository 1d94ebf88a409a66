"""Every matmul form through the C++ front end (tests/cxx/cube.cpp) on a2, a3 and cpu: built
for the cube core, exact against integer products computed here with numpy, no findings."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import ROOT

CPP = ROOT / "tests" / "cxx" / "cube.cpp"
DEVICES = ("a2", "a3", "cpu")


@pytest.fixture(scope="module")
def prog():
    mod = pytest.importorskip("ptosim.cxx")
    return mod.load(str(CPP), cores="cube")


def _ints(rng, shape, lo=-4, hi=5, dt=np.float16):
    return rng.integers(lo, hi, shape).astype(dt)


@pytest.mark.parametrize("devname", DEVICES)
def test_tmatmul_acc_bias_from_cxx(prog, devname):
    rng = np.random.default_rng(1)
    a, b = _ints(rng, (16, 32)), _ints(rng, (32, 16))
    bias = _ints(rng, (1, 16), -50, 50, np.float32)
    dev = pto.Device(devname)
    c, d = dev.gm_zeros((16, 16), "float32"), dev.gm_zeros((16, 16), "float32")
    run = dev.run(prog.entry("matmuls"), dev.gm_array(a), dev.gm_array(b), dev.gm_array(bias), c, d)
    p = a.astype(np.int64) @ b.astype(np.int64)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(c.numpy(), (2 * p).astype(np.float32))
    assert np.array_equal(d.numpy(), (p + bias.astype(np.int64)).astype(np.float32))
    assert all(i.source.startswith("cube.cpp:") for i in run.blocks[0].program)


@pytest.mark.parametrize("devname", DEVICES)
def test_tgemv_forms_from_cxx(prog, devname):
    rng = np.random.default_rng(2)
    x, v = _ints(rng, (1, 256), -2, 3), _ints(rng, (256, 16), -2, 3)
    bias = _ints(rng, (1, 16), -50, 50, np.float32)
    dev = pto.Device(devname)
    y, z = dev.gm_zeros((1, 16), "float32"), dev.gm_zeros((1, 16), "float32")
    run = dev.run(prog.entry("gemvs"), dev.gm_array(x), dev.gm_array(v), dev.gm_array(bias), y, z)
    p = x.astype(np.int64) @ v.astype(np.int64)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(y.numpy(), p.astype(np.float32))
    assert np.array_equal(z.numpy(), (2 * p + bias.astype(np.int64)).astype(np.float32))


@pytest.mark.parametrize(
    "entry, names",
    [
        ("acc_prequant_extract", ("TEXTRACT", "preQuantScalar")),
        ("acc_fp_insert", ("TINSERT_FP", "Scaling tile")),
        ("acc_prequant_int", ("TEXTRACT", "preQuantScalar")),  # int indices compile
        ("acc_to_vec", ("TEXTRACT", "AccToVecMode")),
    ],
)
def test_quantised_acc_to_mat_forms_stop_naming_the_form(prog, entry, names):
    dev = pto.Device("a2")
    with pytest.raises(pto.PtoSimError) as e:
        dev.run(prog.entry(entry), dev.gm_zeros((16, 16), "float32"))
    text = str(e.value)
    assert all(n in text for n in names) and "cube.cpp:" in text, text


def test_quantised_stores_from_cxx_on_950(prog):
    """TSTORE(gm, acc, preQuantScalar) passes its word; TSTORE_FP reads a Scaling tile staged
    by TMOV (tests/isa/cube/test_fixpipe_quant.py has the arithmetic)."""
    rng = np.random.default_rng(6)
    a, b = _ints(rng, (16, 32)), _ints(rng, (32, 16))
    p = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64)
    word = int(np.array(0.5, np.float32).view(np.uint32)) | (1 << 46)  # x 0.5, signed int8
    scales = np.arange(1, 17, dtype=np.float32) / 4  # exact in 10 mantissa bits
    dev = pto.Device("950pr")
    q, h = dev.gm_zeros((16, 16), "int8"), dev.gm_zeros((16, 16), "float16")
    w = dev.gm_array(scales.view(np.uint32).astype(np.uint64))
    run = dev.run(prog.entry("quant_stores"), dev.gm_array(a), dev.gm_array(b), w, q, h, word)
    assert run.findings == [], [str(f) for f in run.findings]
    want_q = np.maximum(np.clip(np.rint(np.clip(p * 0.5, -256, 255)), -128, 127), 0)
    assert np.array_equal(q.numpy(), want_q.astype(np.int8))
    assert np.array_equal(h.numpy(), (p * scales).astype(np.float16))
