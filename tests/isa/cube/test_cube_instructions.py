"""The cube instructions on a2 (the NPU rules) and cpu (the CPU simulator's), against numpy
formulations written here, independent of ptosim/isa/cube: the fractal offsets by hand, the
sums as decision D18 states them (NPU: float64 sum rounded once; CPU: one float32 fused
multiply-add per k, checked with a float32 loop that is exact for half inputs)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

DT = {"float16": np.float16, "float32": np.float32, "int8": np.int8}


def _gemm_kernel(m, k, n, dt, acc_dt, *, kind="plain", tf32=None, relu="NoRelu", out_dt=None,
                 out_layout="ND"):  # fmt: skip
    """TLOAD A, B (ND -> NZ) [and C / bias], TMOV into L0A / L0B [/ BT], one mad, TSTORE."""
    c0 = 32 // np.dtype(DT.get(dt, np.float16)).itemsize
    rm, rk = -(-m // 16) * 16, -(-k // max(c0, 16)) * max(c0, 16)
    rn = -(-n // max(c0, 16)) * max(c0, 16)
    out_dt = out_dt or acc_dt

    @pto.kernel(cores="cube")
    def kern(a, b, c, bias):
        am = pto.TileMatNZ(dt, rm, rk, m, k)
        bm = pto.TileMatNZ(dt, rk, rn, k, n)
        la = pto.TileLeft(dt, rm, rk, m, k)
        rb = pto.TileRight(dt, rk, rn, k, n)
        acc = pto.TileAcc(acc_dt, rm, rn, m, n)
        if tf32:
            la.SetMadTF32Mode(tf32)
        pto.TLOAD(am, pto.GlobalTensor(a, (m, k)))
        pto.TLOAD(bm, pto.GlobalTensor(b, (k, n)))
        if kind == "bias":
            bmat = pto.Tile("Mat", acc_dt, 1, rn, valid=(1, n))
            bt = pto.Tile("Bias", acc_dt, 1, rn, valid=(1, n))
            pto.TLOAD(bmat, pto.GlobalTensor(bias, (1, n)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.TMOV(la, am)
        pto.TMOV(rb, bm)
        if kind == "bias":
            pto.TMOV(bt, bmat)
        pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        if kind == "plain":
            pto.TMATMUL(acc, la, rb)
        elif kind == "bias":
            pto.TMATMUL_BIAS(acc, la, rb, bt)
        else:  # twice: the second accumulates onto the first
            pto.TMATMUL(acc, la, rb)
            pto.TMATMUL_ACC(acc, acc, la, rb)
        pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        if out_layout == "NZ":
            cg = pto.GlobalTensor(c, shape=(1, rn // 16, rm // 16, 16, 16), layout="NZ")
        else:
            cg = pto.GlobalTensor(c, (m, n))
        pto.TSTORE(cg, acc, relu=relu)

    return kern


def _run(devname, kern, a, b, out_shape, out_dt, bias=None):
    dev = pto.Device(devname)
    bias = np.zeros((1, out_shape[-1]), np.float32) if bias is None else bias
    c = dev.gm_zeros(out_shape, out_dt)
    run = dev.run(kern, dev.gm_array(a), dev.gm_array(b), c, dev.gm_array(bias))
    assert run.findings == [], [str(f) for f in run.findings]
    return c.numpy(), run


def _npu_sum(a, b, start=None):
    out = a.astype(np.float64) @ b.astype(np.float64)
    if start is not None:
        out = out + start.astype(np.float64)
    return out.astype(np.float32)


def _cpu_sum_half(a, b):
    """float32 accumulation in k order: for half inputs each product is exact in float32, so
    ``acc + p`` rounded to float32 is the fused multiply-add."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for kk in range(a.shape[1]):
        p = a[:, kk : kk + 1].astype(np.float32) * b[kk : kk + 1, :].astype(np.float32)
        acc = (acc + p).astype(np.float32)
    return acc


@pytest.mark.parametrize("m, k, n", [(31, 120, 58), (16, 32, 16), (5, 75, 11)])
def test_tmatmul_half_npu_rounds_the_exact_sum_once(m, k, n):
    rng = np.random.default_rng(m * k + n)
    a = rng.uniform(-10, 10, (m, k)).astype(np.float16)
    b = rng.uniform(-10, 10, (k, n)).astype(np.float16)
    got, _ = _run("a2", _gemm_kernel(m, k, n, "float16", "float32"), a, b, (m, n), "float32")
    assert np.array_equal(got, _npu_sum(a, b))


@pytest.mark.parametrize("m, k, n", [(31, 120, 58), (5, 75, 11)])
def test_tmatmul_half_cpu_is_sequential_fma(m, k, n):
    rng = np.random.default_rng(m + k + n)
    a = rng.uniform(-10, 10, (m, k)).astype(np.float16)
    b = rng.uniform(-10, 10, (k, n)).astype(np.float16)
    got, _ = _run("cpu", _gemm_kernel(m, k, n, "float16", "float32"), a, b, (m, n), "float32")
    want = _cpu_sum_half(a, b)
    assert np.array_equal(got, want)
    assert not np.array_equal(want, _npu_sum(a, b))  # the two rules differ on these inputs


@pytest.mark.parametrize("devname", ["a2", "cpu"])
def test_tmatmul_int8_wraps_in_int32(devname):
    m, k, n = 16, 64, 32
    a = np.full((m, k), 127, np.int8)
    b = np.full((k, n), 127, np.int8)
    got, _ = _run(devname, _gemm_kernel(m, k, n, "int8", "int32"), a, b, (m, n), "int32")
    assert np.array_equal(got, np.full((m, n), 64 * 127 * 127, np.int32))
    b[0, :] = -128
    got, _ = _run(devname, _gemm_kernel(m, k, n, "int8", "int32"), a, b, (m, n), "int32")
    assert np.array_equal(got, np.full((m, n), 63 * 127 * 127 - 127 * 128, np.int32))


def test_tmatmul_acc_npu_accumulates_in_place():
    m, k, n = 16, 32, 16
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    got, _ = _run("a2", _gemm_kernel(m, k, n, "float16", "float32", kind="acc"), a, b, (m, n),
                  "float32")  # fmt: skip
    first = _npu_sum(a, b)
    assert np.array_equal(got, _npu_sum(a, b, start=first))


def test_tmatmul_acc_cpu_adds_c_in_after_the_product():
    m, k, n = 16, 32, 16
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    got, _ = _run("cpu", _gemm_kernel(m, k, n, "float16", "float32", kind="acc"), a, b, (m, n),
                  "float32")  # fmt: skip
    p = _cpu_sum_half(a, b)
    assert np.array_equal(got, (p + p).astype(np.float32))


def test_tmatmul_bias_npu_starts_at_the_bias_cpu_adds_it_after():
    m, k, n = 16, 16, 16
    a = np.ones((m, k), np.float16)
    b = np.full((k, n), 2.0**-12, np.float16)  # product 2**-8 per element
    bias = np.full((1, n), 2.0**17, np.float32)  # ulp(2**17) = 2**-6: the product alone rounds
    kern = _gemm_kernel(m, k, n, "float16", "float32", kind="bias")
    npu, _ = _run("a2", kern, a, b, (m, n), "float32", bias=bias)
    cpu, _ = _run("cpu", kern, a, b, (m, n), "float32", bias=bias)
    # exact start-at-bias sum: 2**17 + 2**-8 rounds to 2**17 in float32; so does the CPU's
    # (product, then + bias): both give the bias here, the rule is checked on a finer case below
    assert np.array_equal(npu, np.full((m, n), 2.0**17, np.float32))
    b2 = np.full((k, n), 2.0**-4, np.float16)  # 16 products of 2**-4: 1.0 exactly
    npu, _ = _run("a2", kern, a, b2, (m, n), "float32", bias=bias)
    cpu, _ = _run("cpu", kern, a, b2, (m, n), "float32", bias=bias)
    assert np.array_equal(npu, np.full((m, n), 2.0**17 + 1, np.float32))
    assert np.array_equal(cpu, np.full((m, n), 2.0**17 + 1, np.float32))


def test_a2_m1_runs_as_16_rows():
    """a2a3 issues m == 1 as 16 rows: accumulator rows 1-15 are written from L0A rows 1-15."""
    k, n = 32, 16
    a = np.arange(16 * k, dtype=np.float16).reshape(16, k) % 7
    b = np.eye(k, n, dtype=np.float16)

    @pto.kernel(cores="cube")
    def kern(ag, bg, cg):
        am = pto.TileMatNZ("float16", 16, k)
        bm = pto.TileMatNZ("float16", k, n)
        la = pto.TileLeft("float16", 16, k, 1, k)
        rb = pto.TileRight("float16", k, n)
        acc = pto.TileAcc("float32", 16, n, 1, n)
        full = pto.TileAcc("float32", 16, n)
        pto.TASSIGN(acc, 0)
        pto.TASSIGN(full, 0)  # the same L0C bytes, all 16 rows valid
        pto.TLOAD(am, pto.GlobalTensor(ag, (16, k)))
        pto.TLOAD(bm, pto.GlobalTensor(bg, (k, n)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.TEXTRACT(la, am, 0, 0)
        pto.TMOV(rb, bm)
        pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
        pto.TMATMUL(acc, la, rb)
        pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.TSTORE(pto.GlobalTensor(cg, (16, n)), full)

    want = a[:, :n].astype(np.float32)  # B = identity: C = A's first n columns
    for devname in ("a2", "cpu"):
        dev = pto.Device(devname)
        c = dev.gm_zeros((16, n), "float32")
        dev.run(kern, dev.gm_array(a), dev.gm_array(b), c)
        got = c.numpy()
        assert np.array_equal(got[0], want[0]), devname
        # a2: rows 1-15 computed too; cpu: only row 0 (the rest of L0C was never written)
        assert np.array_equal(got[1:], want[1:]) == (devname == "a2"), devname


def _hf32(x: float, ties_away: bool) -> np.float32:
    """One float32 to 8-bit exponent / 11-bit mantissa, element by element (the golden's rule)."""
    bits = int(np.array(x, np.float32).view(np.uint32))
    exp = (bits >> 23) & 0xFF
    if exp == 0:
        return np.array(bits & 0x80000000, np.uint32).view(np.float32)
    lost, keep = bits & 0xFFF, bits >> 12
    up = lost > 0x800 or (lost == 0x800 and (ties_away or keep & 1))
    return np.array(((keep + up) << 12) & 0xFFFFFFFF, np.uint32).view(np.float32)


@pytest.mark.parametrize("mode", ["CAST_RINT", "CAST_ROUND"])
def test_tf32_mode_rounds_float_inputs_on_a2_only(mode):
    m, k, n = 16, 16, 16
    rng = np.random.default_rng(11)
    a = rng.uniform(-10, 10, (m, k)).astype(np.float32)
    b = rng.uniform(-10, 10, (k, n)).astype(np.float32)
    a[0, 0] = np.array(0x3F800800, np.uint32).view(np.float32)  # a tie: 1 + 2**-12
    f = np.vectorize(lambda x: _hf32(x, mode == "CAST_ROUND"), otypes=[np.float32])
    kern = _gemm_kernel(m, k, n, "float32", "float32", tf32=mode)
    got, _ = _run("a2", kern, a, b, (m, n), "float32")
    assert np.array_equal(got, _npu_sum(f(a), f(b)))
    plain, _ = _run("a2", _gemm_kernel(m, k, n, "float32", "float32"), a, b, (m, n), "float32")
    assert np.array_equal(plain, _npu_sum(a, b)) and not np.array_equal(plain, got)


def test_fixpipe_relu_and_half_output():
    m, k, n = 16, 16, 16
    rng = np.random.default_rng(5)
    a = rng.uniform(-3, 3, (m, k)).astype(np.float16)
    b = rng.uniform(-3, 3, (k, n)).astype(np.float16)
    kern = _gemm_kernel(m, k, n, "float16", "float32", relu="NormalRelu")
    got, _ = _run("a2", kern, a, b, (m, n), "float16")
    want = np.maximum(_npu_sum(a, b), 0).astype(np.float16)  # ReLU in float, then RNE to half
    assert np.array_equal(got, want)


def test_fixpipe_nz_output_is_the_fractal_order():
    m, k, n = 32, 16, 32
    a = (np.arange(m * k) % 5).reshape(m, k).astype(np.float16)
    b = np.eye(k, n, dtype=np.float16)
    kern = _gemm_kernel(m, k, n, "float16", "float32", out_layout="NZ")
    got, _ = _run("a2", kern, a, b, (n // 16, m // 16, 16, 16), "float32")
    c = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float32)
    # NZ of 16 x 16 fractals: [column block][row][column in block]
    want = c.reshape(m, n // 16, 16).transpose(1, 0, 2).reshape(n // 16, m // 16, 16, 16)
    assert np.array_equal(got, want)


def test_tload_nd2nz_places_elements_in_nz_fractals():
    rows, cols = 32, 48

    @pto.kernel(cores="cube")
    def kern(src, dst):
        mat = pto.TileMatNZ("float16", rows, cols)
        flat = pto.Tile("Mat", "float16", 1, rows * cols)  # the same L1 bytes, row-major
        pto.TASSIGN(mat, 0)
        pto.TASSIGN(flat, 0)
        pto.TLOAD(mat, pto.GlobalTensor(src, (rows, cols)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(dst, (1, rows * cols)), flat)

    x = np.arange(rows * cols, dtype=np.float16).reshape(rows, cols)
    dev = pto.Device("a2")
    out = dev.gm_zeros((rows * cols,), "float16")
    dev.run(kern, dev.gm_array(x), out)
    want = np.zeros(rows * cols, np.float16)
    for r in range(rows):  # NZ: (c // 16) * (Rows * 16) + r * 16 + c % 16 (C0 = 16 for half)
        for c in range(cols):
            want[(c // 16) * rows * 16 + r * 16 + c % 16] = x[r, c]
    assert np.array_equal(out.numpy(), want)


def test_textract_window_and_fractal_rules_are_coded_errors():
    @pto.kernel(cores="cube")
    def bad_index(src):
        mat = pto.TileMatNZ("float16", 32, 64)
        la = pto.TileLeft("float16", 16, 32)
        pto.TLOAD(mat, pto.GlobalTensor(src, (32, 64)))
        pto.TEXTRACT(la, mat, 8, 0)  # index_row not a multiple of 16

    @pto.kernel(cores="cube")
    def outside(src):
        mat = pto.TileMatNZ("float16", 32, 64)
        la = pto.TileLeft("float16", 32, 64)
        pto.TLOAD(mat, pto.GlobalTensor(src, (32, 64)))
        pto.TEXTRACT(la, mat, 16, 0)  # 16 + 32 rows > 32

    dev = pto.Device("a2")
    src = dev.gm_zeros((32, 64), "float16")
    with pytest.raises(pto.ConstraintError) as e:
        dev.run(bad_index, src)
    assert e.value.rule == "fractal-multiple" and "test_cube_instructions.py" in str(e.value)
    with pytest.raises(pto.ConstraintError) as e:
        dev.run(outside, src)
    assert e.value.rule == "window-within-src"


def test_an_integer_output_without_a_quant_word_stops_naming_the_form():
    @pto.kernel(cores="cube")
    def kern(c):
        acc = pto.TileAcc("float32", 16, 16)
        pto.TSTORE(pto.GlobalTensor(c, (16, 16)), acc)

    dev = pto.Device("a2")
    with pytest.raises(pto.ConstraintError) as e:
        dev.run(kern, dev.gm_zeros((16, 16), "int8"))
    assert e.value.rule == "quant-needed" and "a preQuantScalar or TSTORE_FP" in str(e.value)


def test_mad_cost_is_the_vendor_formula():
    m, k, n = 31, 120, 58
    a = np.zeros((m, k), np.float16)
    b = np.zeros((k, n), np.float16)
    _, run = _run("a2", _gemm_kernel(m, k, n, "float16", "float32"), a, b, (m, n), "float32")
    mads = [e for e in run.trace.events if e.pipe == "PIPE_M" and e.opcode == "TMATMUL"]
    # 6 + ceil(31/16) * ceil(120/16) * ceil(58/16) (cube_isa.md 5)
    assert [e.dur for e in mads] == [6 + 2 * 8 * 4]
    assert mads[0].args["source"] == "vendor-model"


def test_tload_into_mat_reading_past_the_gm_allocation_is_f110_and_exact_inside():
    """D21 for the cube's TLOAD (the library's tmatmul case3 views more of its A matrix than it
    allocates): the read proceeds, the bytes past the allocation read as zeros, one F110."""
    rows, cols, have = 16, 16, 16 * 16 - 21  # 21 elements short, as the library's case

    @pto.kernel(cores="cube")
    def kern(src, dst):
        mat = pto.TileMatNZ("float16", rows, cols)
        flat = pto.Tile("Mat", "float16", 1, rows * cols)
        pto.TASSIGN(mat, 0)
        pto.TASSIGN(flat, 0)
        pto.TLOAD(mat, pto.GlobalTensor(src, (rows, cols)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(dst, (1, rows * cols)), flat)

    x = (np.arange(have) % 97).astype(np.float16)
    dev = pto.Device("a2")
    out = dev.gm_zeros((rows * cols,), "float16")
    run = dev.run(kern, dev.gm_array(x), out)
    full = np.zeros(rows * cols, np.uint16)  # past the allocation: zero bytes
    full[:have] = x.view(np.uint16)
    full = full.reshape(rows, cols)
    want = np.zeros(rows * cols, np.uint16)
    for r in range(rows):  # NZ with C0 = 16 (one column block here)
        for c in range(cols):
            want[(c // 16) * rows * 16 + r * 16 + c % 16] = full[r, c]
    assert np.array_equal(out.numpy().view(np.uint16), want)
    assert [f.code for f in run.findings] == ["F110"], run.findings


def test_split_k_past_the_gm_allocation_adds_nothing():
    """The library's tmatmul split-K case (m 5, k 75, n 11, K slices of 32): the last slice's
    TLOADs read 21 rows past B's allocation (and 21 elements past A's); its golden, met on the
    hardware, is the k = 75 product, so those bytes must add nothing (D21: they read as zeros;
    the 0xFF fill first chosen made them NaN). Integer-valued inputs: every sum is exact."""
    m, k, n, base_k = 5, 75, 11, 32

    @pto.kernel(cores="cube")
    def kern(a, b, c):
        am = pto.TileMatNZ("float16", 16, base_k, m, base_k)
        bm = pto.TileMatNZ("float16", base_k, 16, base_k, n)
        left = pto.TileLeft("float16", 16, base_k, m, base_k)
        right = pto.TileRight("float16", base_k, 16, base_k, n)
        acc = pto.TileAcc("float32", 16, 16, m, n)
        for i in range(3):
            pto.TFILLPAD(am, am)
            pto.TFILLPAD(bm, bm)
            pto.TLOAD(am, pto.GlobalTensor(a, (m, base_k), stride=(k, 1), offset=i * base_k))
            pto.TLOAD(bm, pto.GlobalTensor(b, (base_k, n), stride=(n, 1), offset=n * i * base_k))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
            pto.TMOV(left, am)
            pto.TMOV(right, bm)
            pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
            pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
            if i == 0:
                pto.TMATMUL(acc, left, right)
            else:
                pto.TMATMUL_ACC(acc, acc, left, right)
            pto.set_flag(pto.PIPE_M, pto.PIPE_MTE2, 0)
            pto.wait_flag(pto.PIPE_M, pto.PIPE_MTE2, 0)
        pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
        pto.TSTORE(pto.GlobalTensor(c, (m, n)), acc)

    x = (np.arange(m * k).reshape(m, k) % 7 - 3).astype(np.float16)
    y = (np.arange(k * n).reshape(k, n) % 5 - 2).astype(np.float16)
    dev = pto.Device("a2")
    out = dev.gm_zeros((m, n), "float32")
    run = dev.run(kern, dev.gm_array(x), dev.gm_array(y), out)
    assert np.array_equal(out.numpy(), x.astype(np.float64) @ y.astype(np.float64))
    assert [f.code for f in run.findings] == ["F110", "F110"], run.findings


@pytest.mark.parametrize("form", ["ND2NZ", "DN2ZN"])
def test_nd2nz_zeros_the_c0_block_a_moved_row_ends_in(form):
    """a2a3: the DMA writes whole 32-byte C0 blocks, zero after dValue (the library's
    tload_gm2mat goldens); the rows (ND2NZ) / columns (DN2ZN) it does not move keep their bytes
    (the 0xFF fill of L1 here)."""
    x = np.arange(5 * 35, dtype=np.float32).reshape(5, 35) + 1  # nValue 5, dValue 35, C0 8
    nd = form == "ND2NZ"

    @pto.kernel(cores="cube")
    def kern(src):
        if nd:
            mat = pto.TileMatNZ("float32", 16, 40)
            pto.TLOAD(mat, pto.GlobalTensor(src, (5, 35)))
        else:
            mat = pto.TileMatZN("float32", 40, 16)
            pto.TLOAD(mat, pto.GlobalTensor(src, (35, 5), layout="DN"))
        kern.mat = mat

    dev = pto.Device("a2")
    run = dev.run(kern, dev.gm_array(x))
    got = run.tile(kern.mat)
    got = got if nd else got.T  # DN2ZN: GM column j of x holds logical column j of the tile
    assert np.array_equal(got[:5, :35], x)
    assert (got[:5, 35:40] == 0).all()
    assert np.isnan(got[5:, :]).all()
