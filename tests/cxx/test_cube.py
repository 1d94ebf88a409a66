"""Every matmul form through the C++ front end (tests/cxx/cube.cpp) on a2, a3 and cpu: built
for the cube core, exact against integer products computed here with numpy, no findings."""

from __future__ import annotations

import ml_dtypes
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
    "entry, device, names",
    [
        # cpu models no quantised fixpipe copy; the int indices compile
        ("acc_prequant_int", "cpu", ("TEXTRACT", "preQuantScalar")),
        # Acc -> Vec is the 950 fixpipe path: on a2a3 the form rule names it and the fix
        ("acc_to_vec", "a2", ("TEXTRACT", "Acc -> Vec", "on 950 only", "TSTORE")),
    ],
)
def test_unmodelled_acc_forms_stop_naming_the_form(prog, entry, device, names):
    dev = pto.Device(device)
    with pytest.raises(pto.PtoSimError) as e:
        dev.run(prog.entry(entry), dev.gm_zeros((16, 16), "float32"))
    text = str(e.value)
    assert all(n in text for n in names) and "cube.cpp:" in text, text


def test_mx_intrinsics_from_cxx_on_950(prog):
    """load_cbuf_to_ca_mx / _cb_mx and mad_mx as the library's a5 textract test calls them:
    C = (A * 2^(sA - 127)) @ (B * 2^(sB - 127)), one scale per row (column) and 32-wide K group,
    in numpy (tests/isa/test_mx_matmul.py has the layouts and fp4)."""
    rng = np.random.default_rng(11)
    a = rng.choice([-2.0, -0.5, 0.0, 1.0, 1.5, 3.0], (16, 64))
    b = rng.choice([-1.0, 0.25, 0.0, 2.0, 0.75], (64, 16))
    sa = rng.integers(124, 131, (16, 2)).astype(np.uint8)  # scale of A[i, 32 g : 32 g + 32]
    sb = rng.integers(124, 131, (2, 16)).astype(np.uint8)  # scale of B[32 g : 32 g + 32, j]
    # one 16 x 2 fractal each, row by row: A's scales, then B's transposed
    scales = np.concatenate([sa.reshape(-1), sb.T.reshape(-1)]).reshape(1, 64)
    want = (a * np.repeat(np.ldexp(1.0, sa.astype(int) - 127), 32, axis=1)) @ (
        b * np.repeat(np.ldexp(1.0, sb.astype(int) - 127), 32, axis=0)
    )
    e4m3 = ml_dtypes.float8_e4m3fn
    dev = pto.Device("950pr")
    c = dev.gm_zeros((16, 16), "float32")
    bt = np.ascontiguousarray(b.T).astype(e4m3)  # B column-major (DN)
    args = (dev.gm_array(a.astype(e4m3)), dev.gm_array(bt), dev.gm_array(scales), c)
    run = dev.run(prog.entry("mx_raw"), *args)
    assert run.findings == [], [str(f) for f in run.findings]
    np.testing.assert_array_equal(c.numpy(), want.astype(np.float32))


def test_tgemv_mx_and_the_gemv_mad_mx_from_cxx_on_950(prog):
    """TGEMV_MX and mad_mx(m = 1, gemvCtrl 0) over the same L0 operands: y[j] = sum_k x[k]
    2^(sx[k // 32] - 127) w[k, j] 2^(sw[k // 32, j] - 127), in numpy."""
    rng = np.random.default_rng(21)
    x = rng.choice([-2.0, -0.75, 0.0, 0.5, 1.0, 3.0], 64)
    w = rng.choice([-1.5, -0.25, 0.0, 1.0, 2.0], (64, 32))
    sx = rng.integers(124, 131, 2).astype(np.uint8)
    sw = rng.integers(124, 131, (2, 32)).astype(np.uint8)
    want = (x * np.repeat(np.exp2(sx - 127.0), 32)) @ (w * np.repeat(np.exp2(sw - 127.0), 32, 0))
    sw_nn = sw.reshape(1, 2, 2, 16).transpose(2, 0, 3, 1).reshape(1, -1)  # [N/16][K/64][16][2]
    e4m3 = ml_dtypes.float8_e4m3fn
    dev = pto.Device("950pr")
    y, y2 = dev.gm_zeros((1, 32), "float32"), dev.gm_zeros((1, 32), "float32")
    args = (dev.gm_array(x.reshape(1, 64).astype(e4m3)), dev.gm_array(w.astype(e4m3)),
            dev.gm_array(sx.reshape(1, 2)), dev.gm_array(sw_nn), y, y2)  # fmt: skip
    run = dev.run(prog.entry("mx_gemv"), *args)
    assert run.findings == [], [str(f) for f in run.findings]
    np.testing.assert_array_equal(y.numpy()[0], want.astype(np.float32))
    np.testing.assert_array_equal(y2.numpy()[0], want.astype(np.float32))


def test_mx_scale_tloads_from_cxx_lay_the_zz_fractals(prog):
    # 32 x 4 scales: ZZ in GM is already the L1 order; ND row by row becomes 16 x 2 fractals,
    # row block by row block, the two fractals of a block left to right (built here by hand)
    rng = np.random.default_rng(12)
    scales = rng.integers(0, 255, (32, 4)).astype(np.uint8)
    blocks = [scales[r : r + 16, c : c + 2] for r in (0, 16) for c in (0, 2)]
    zz = np.concatenate([b.reshape(-1) for b in blocks])
    dev = pto.Device("950pr")
    run = dev.run(prog.entry("mx_scale_tload"), dev.gm_array(zz.reshape(1, -1)),
                  dev.gm_array(scales))  # fmt: skip
    assert run.findings == []
    l1 = run.blocks[0].buffers["L1"].data
    np.testing.assert_array_equal(l1[:128], zz)
    np.testing.assert_array_equal(l1[0x100 : 0x100 + 128], zz)


def test_quantised_stores_from_cxx_on_950(prog):
    """TSTORE(gm, acc, preQuantScalar) passes its word; TSTORE_FP reads a Scaling tile staged
    by TMOV (tests/isa/cube/test_fixpipe_quant_950.py has the arithmetic)."""
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


def test_quantised_fixpipe_forms_from_cxx(prog):
    """The preQuantScalar word and the TSTORE_FP Scaling tile reach the fixpipe (a2): int8 =
    round(p * 0.5) ties to even, saturated; half = relu(p) * the column's scale (bits [31:13]).
    An NDC1HWC0 store writes C0 = 8 column blocks, block j at j * N * stride(C1) = 160 elements,
    its rows one after another (a2a3 TStoreAccNz2NDC1HWC0's destination stride)."""
    rng = np.random.default_rng(3)
    a, b = _ints(rng, (16, 32), -9, 10), _ints(rng, (32, 16), -9, 10)
    scales = (np.arange(16) % 4 + 1) * np.float32(0.25)
    words = scales.astype(np.float32).view(np.uint32).astype(np.uint64)
    dev = pto.Device("a2")
    q8, q16 = dev.gm_zeros((16, 16), "int8"), dev.gm_zeros((16, 16), "float16")
    conv = dev.gm_zeros((480,), "float32")
    run = dev.run(prog.entry("acc_quant"), dev.gm_array(a), dev.gm_array(b), dev.gm_array(words),
                  q8, q16, conv)  # fmt: skip
    p = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(q8.numpy(), np.clip(np.round(p * 0.5), -128, 127).astype(np.int8))
    assert np.array_equal(q16.numpy(), (np.maximum(p, 0) * scales).astype(np.float16))
    want = np.zeros(480, np.float32)
    for j in range(2):
        want[j * 160 : j * 160 + 128] = p[:, j * 8 : j * 8 + 8].reshape(-1)
    assert np.array_equal(conv.numpy(), want)


def test_conv_tile_load_and_raw_l1_to_gm_copy(prog):
    """TLOAD into a ConvTile copies the NC1HWC0 view densely into L1 (a2a3); copy_cbuf_to_gm
    moves nBurst bursts of lenBurst 32-byte blocks with srcGap / dstGap blocks between."""
    src = (np.arange(2 * 3 * 5 * 6 * 16) % 2039).astype(np.float16).reshape(2, 3, 5, 6, 16)
    view = src[:1, :2, :3, :4, :]
    dev = pto.Device("a2")
    out, out2 = dev.gm_zeros((view.size,), "float16"), dev.gm_zeros((6 * 3 * 16,), "float16")
    run = dev.run(prog.entry("conv_load"), dev.gm_array(src), out, out2)
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(out.numpy(), view.reshape(-1))
    want = np.zeros((6, 3, 16), np.float16)
    want[:, :2, :] = view.reshape(6, 4, 16)[:, :2, :]
    assert np.array_equal(out2.numpy().reshape(6, 3, 16), want)


def test_a_dynamic_conv_tile_keeps_its_shape_and_img2col_parameters(prog):
    """ConvTile(h) fills its -1 dim; the img2col setters keep what they were given."""
    dev = pto.Device("a2")
    out = dev.gm_zeros((6,), "int32")
    dev.run(prog.entry("conv_dynamic_shape"), out)
    # shape (1, 2, 3, 8, 16); fmap 3 x 8; 32 channels, a 3 x 3 filter; pads (0, _, 1, _)
    assert out.numpy().tolist() == [2, 3, 8, 308, 3233, 1]


def test_setfmatrix_stops_at_its_line_naming_what_is_not_modelled(prog):
    line = next(
        n for n, text in enumerate(CPP.read_text().splitlines(), 1) if "@conv_setfmatrix" in text
    )
    with pytest.raises(pto.PtoSimError) as e:
        pto.Device("a2").run(prog.entry("conv_setfmatrix"))
    msg = str(e.value)
    assert f"cube.cpp:{line}: SETFMATRIX" in msg and "not modelled" in msg, msg
    assert len(msg.splitlines()) == 1, msg


def test_raw_l1_to_gm_copy_past_its_buffer_stops_at_its_line(prog):
    """copy_cbuf_to_gm moves whole 32-byte blocks: 7 blocks into a 201-byte buffer write 23
    bytes past it, a GM write past an allocation (PTO202), named at the copy's C++ line."""
    dev = pto.Device("a2")
    src = dev.gm_array(np.arange(201).astype(np.int8))
    out = dev.gm_zeros((201,), "int8")
    with pytest.raises(pto.OutOfBoundsError) as exc:
        dev.run(prog.entry("raw_copy_past_end"), src, out)
    text = str(exc.value)
    tag = next(
        n for n, s in enumerate(CPP.read_text().splitlines(), 1) if "// @raw_copy_past_end" in s
    )
    assert text.startswith(f"[PTO202] cube.cpp:{tag}: copy_cbuf_to_gm(nBurst 1, lenBurst 7")
    assert "GM bytes [0, 224)" in text and "allocation is 201 bytes" in text
    assert "23 byte(s) past its end" in text and (out.numpy() == 0).all()


def test_raw_gm_to_l1_copy_on_950(prog):
    """copy_gm_to_cbuf_align_v2 moves nBurst bursts of lenBurst bytes, the strides in bytes from
    one burst's start to the next (GM and L1), on MTE2; bytes between the bursts keep theirs."""
    src = (np.arange(512) * 7 % 251).astype(np.uint8)
    dev = pto.Device("950pr")
    run = dev.run(prog.entry("raw_gm_to_l1"), dev.gm_array(src))
    assert run.findings == [], [str(f) for f in run.findings]
    l1 = run.blocks[0].buffers["L1"].data
    want = np.full(l1.size, 0xFF, np.uint8)  # L1 starts as poison bytes (ptosim.memory)
    for i in range(3):
        want[0x100 + 128 * i : 0x100 + 128 * i + 64] = src[96 * i : 96 * i + 64]
    want[0x1000 : 0x1000 + 256] = src[8 : 8 + 256]
    assert np.array_equal(l1, want)
    assert run.pipe_busy.get("PIPE_MTE2", 0) > 0  # a GM -> L1 copy is MTE2 work
