"""TASSIGN, TLOAD, TSTORE, TMOV, TEXPANDS, flags and placement, per target.

Expected values are computed here with numpy from the layout definitions and the DMA arithmetic
of DESIGN.md D7/D8, never read back from the implementation.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.dtypes import dtype as as_dtype

DTYPES = {
    "cpu": [
        "int8",
        "uint16",
        "int32",
        "int64",
        "half",
        "bfloat16",
        "float32",
        "float8_e4m3",
        "float8_e5m2",
        "hifloat8",
    ],
    "a2": ["int8", "uint16", "int32", "int64", "half", "bfloat16", "float32"],
    "950pr": [
        "int8",
        "uint16",
        "int32",
        "uint64",
        "half",
        "bfloat16",
        "float32",
        "float8_e4m3",
        "float8_e5m2",
        "hifloat8",
    ],
}


def _host(dtype: str, shape, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = as_dtype(dtype)
    if dt.kind == "opaque" or dt.size_bytes == 1 and dt.kind == "float":
        bits = rng.integers(0, 256, size=shape, dtype=np.uint8)
        return bits if dt.kind == "opaque" else bits.view(dt.np)
    if dt.kind == "float":
        return rng.standard_normal(shape).astype(dt.np)
    info = np.iinfo(dt.np)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dt.np)


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _roundtrip(dev, host, tile_kwargs, gm_shape, layout="ND", gm_host=None):
    dtype = tile_kwargs["dtype"]
    src = dev.gm_array(gm_host if gm_host is not None else host, dtype=dtype)
    out = dev.gm_zeros(src.shape, dtype)
    tile = pto.Tile("Vec", **tile_kwargs)

    @pto.kernel
    def k(src, out):
        pto.TASSIGN(tile, 0x100)
        pto.TLOAD(tile, pto.GlobalTensor(src, gm_shape, layout=layout))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, gm_shape, layout=layout), tile)

    run = dev.run(k, src, out)
    return run, tile, src, out


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tload_tstore_nd_roundtrip_every_dtype(devname):
    dev = pto.Device(devname)
    for dtype in DTYPES[devname]:
        itemsize = as_dtype(dtype).size_bytes
        cols = max(32 // itemsize, 8)
        host = _host(dtype, (16, cols))
        run, tile, src, out = _roundtrip(
            dev, host, dict(dtype=dtype, rows=16, cols=cols), (1, 1, 1, 16, cols)
        )
        assert _same_bits(run.tile(tile), host), dtype
        assert _same_bits(out.numpy(), host), dtype


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tload_dn_and_nz_layouts(devname):
    dev = pto.Device(devname)
    # DN: a column-major GM matrix into a ColMajor tile
    logical = _host("float32", (16, 8), seed=1)
    gm_dn = logical.T.copy()  # storage order of a packed DN tensor: column after column
    src = dev.gm_array(gm_dn)
    t = pto.Tile("Vec", "float32", 16, 8, blayout="ColMajor")

    @pto.kernel
    def k(src):
        pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 16, 8), layout="DN"))

    assert np.array_equal(dev.run(k, src).tile(t), logical)
    # NZ: [1, C/C0, R/16, 16, C0] into an NZ tile
    R, C, c0 = 32, 32, 16
    logical = _host("half", (R, C), seed=2)
    nz = logical.reshape(R // 16, 16, C // c0, c0).transpose(2, 0, 1, 3).copy()
    src = dev.gm_array(nz.reshape(-1))
    tz = pto.Tile("Vec", "half", R, C, blayout="ColMajor", slayout="RowMajor")
    out = dev.gm_zeros(nz.size, "half")

    @pto.kernel
    def kz(src, out):
        pto.TLOAD(tz, pto.GlobalTensor(src, (1, C // c0, R // 16, 16, c0), layout="NZ"))
        pto.set_flag("MTE2", "MTE3", 0)
        pto.wait_flag("MTE2", "MTE3", 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, C // c0, R // 16, 16, c0), layout="NZ"), tz)

    run = dev.run(kz, src, out)
    assert np.array_equal(run.tile(tz), logical)
    assert np.array_equal(out.numpy(), nz.reshape(-1))


def _pad_case(devname, pad, valid_cols):
    dev = pto.Device(devname)
    host = _host("int16", (8, valid_cols), seed=3)
    src = dev.gm_array(host)
    t = pto.Tile("Vec", "int16", 8, 128, valid=(8, valid_cols), pad=pad)

    @pto.kernel
    def k(src):
        pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 8, valid_cols)))

    return dev.run(k, src).tile_storage(t).reshape(8, 128), host


@pytest.mark.parametrize("devname", ["a2", "950pr"])
def test_npu_tload_pads_only_to_the_32_byte_boundary(devname):
    storage, host = _pad_case(devname, "Max", 100)
    assert np.array_equal(storage[:, :100], host)
    # 100 int16 = 200 bytes; the row is padded up to 224 bytes = 112 elements (D8)
    assert (storage[:, 100:112] == np.iinfo(np.int16).max).all()
    assert (storage[:, 112:] == -1).all()  # never written: the 0xFF poison
    storage, _ = _pad_case(devname, "Null", 100)
    assert (storage[:, 100:] == -1).all()
    storage, _ = _pad_case(devname, "Min", 127)
    assert (storage[:, 127] == np.iinfo(np.int16).min).all()


def test_cpu_tload_fills_every_non_valid_element():
    storage, host = _pad_case("cpu", "Max", 100)
    assert np.array_equal(storage[:, :100], host)
    assert (storage[:, 100:] == np.iinfo(np.int16).max).all()
    storage, _ = _pad_case("cpu", "Null", 100)
    assert (storage[:, 100:] == 0).all()


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_float_pad_values_and_custom_pad(devname):
    dev = pto.Device(devname)
    for pad, expect in [("Max", np.inf), ("Min", -np.inf), (2.5, 2.5)]:
        for dtype in ("float32", "half", "bfloat16"):
            src = dev.gm_array(np.ones((2, 3), dtype=as_dtype(dtype).np))
            t = pto.Tile("Vec", dtype, 2, 32, valid=(2, 3), pad=pad)

            @pto.kernel
            def k(src, t=t):
                pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 2, 3)))

            s = dev.run(k, src).tile_storage(t).reshape(2, 32).astype(np.float64)
            assert (s[:, :3] == 1).all() and (s[:, 3] == expect).all(), (pad, dtype)


def test_a2a3_packed_valid_pitch_is_a_finding_and_follows_the_dma_arithmetic():
    """D7: a tile whose validCol differs from shape4 reads GM at pitch validCol+stride3-shape4."""
    dev = pto.Device("a2")
    gm_host = np.arange(4 * 16, dtype=np.float32)
    src = dev.gm_array(gm_host)
    t = pto.Tile("Vec", "float32", 4, 16, valid=(4, 8))

    @pto.kernel
    def k(src):
        pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 4, 16)))

    run = dev.run(k, src)
    pitch = 8 + 16 - 16
    expect = np.stack([gm_host[r * pitch : r * pitch + 8] for r in range(4)])
    assert np.array_equal(run.tile(t), expect)
    assert [f.code for f in run.findings] == ["F101"]
    assert "lenBurst" in run.findings[0].message and "TLOAD #0" in run.findings[0].message
    with pytest.raises(pto.FindingsError) as e:
        dev.run(k, src, strict=True)
    assert e.value.code == "PTO500" and len(e.value.findings) == 1
    # cpu (the Release build of the CPU simulator, its assert compiled out) loads each valid
    # (r, c) from its offset in the view: rows of pitch 16, no finding
    d = pto.Device("cpu")
    run = d.run(k, d.gm_array(gm_host))
    assert np.array_equal(run.tile(t), gm_host.reshape(4, 16)[:, :8]) and not run.findings
    # a5 loads validCol elements per row at the programmed stride3 (D13): no finding
    d = pto.Device("950pr")
    run = d.run(k, d.gm_array(gm_host))
    assert np.array_equal(run.tile(t), gm_host.reshape(4, 16)[:, :8]) and not run.findings


def test_a5_tstore_uses_stride3_and_a2a3_the_dma_pitch():
    host = _host("float32", (4, 8), seed=5)
    results = {}
    for devname in ("a2", "950pr", "cpu"):
        dev = pto.Device(devname)
        src = dev.gm_array(host)
        out = dev.gm_zeros((4, 16), "float32")
        t = pto.Tile("Vec", "float32", 4, 8)

        @pto.kernel
        def k(src, out, t=t):
            pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 4, 8)))
            pto.set_flag("MTE2", "MTE3", 0)
            pto.wait_flag("MTE2", "MTE3", 0)
            pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 4, 8), stride=(64, 64, 64, 16, 1)), t)

        dev.run(k, src, out)
        results[devname] = out.numpy()
    expect = np.zeros((4, 16), np.float32)
    expect[:, :8] = host
    # validCol == shape4, so every target honours stride3 = 16
    for devname, got in results.items():
        assert np.array_equal(got, expect), devname


def test_tload_checks():
    dev = pto.Device("a2")
    src = dev.gm_array(np.zeros((8, 8), np.float32))

    def run_with(body):
        @pto.kernel
        def k(src):
            body(src)

        return dev.run(k, src)

    with pytest.raises(pto.ConstraintError) as e:
        run_with(
            lambda s: pto.TLOAD(
                pto.Tile("Vec", "float32", 8, 8, blayout="ColMajor"),
                pto.GlobalTensor(s, (1, 1, 1, 8, 8)),
            )
        )
    assert e.value.rule == "layout-pairing" and "TLOAD #0" in str(e.value)
    with pytest.raises(pto.ConstraintError) as e:
        run_with(
            lambda s: pto.TLOAD(
                pto.Tile("Vec", "int32", 8, 8), pto.GlobalTensor(s, (1, 1, 1, 8, 8))
            )
        )
    assert e.value.rule == "same-dtype" and e.value.operand == "gm"
    # a2a3 moves the GlobalTensor's 8 rows into the 16-row tile (F106, D14); a5 rejects
    run = run_with(
        lambda s: pto.TLOAD(pto.Tile("Vec", "float32", 16, 8), pto.GlobalTensor(s, (1, 1, 1, 8, 8)))
    )
    assert [f.code for f in run.findings] == ["F106"]
    with pytest.raises(pto.ConstraintError) as e:

        @pto.kernel
        def k16(src):
            pto.TLOAD(pto.Tile("Vec", "float32", 16, 8), pto.GlobalTensor(src, (1, 1, 1, 8, 8)))

        pto.Device("950pr").run(k16, pto.Device("950pr").gm_array(np.zeros((8, 8), np.float32)))
    assert e.value.rule == "valid-shape" and "validRow == 8" in str(e.value)
    f8 = dev.gm_array(np.zeros(32, np.uint8), dtype="float8_e5m2")
    with pytest.raises(pto.ConstraintError) as e:
        run_with(
            lambda s: pto.TLOAD(
                pto.Tile("Vec", "float8_e5m2", 1, 32), pto.GlobalTensor(f8, (1, 1, 1, 1, 32))
            )
        )
    assert e.value.rule == "dtype" and "a2a3" in str(e.value) and "float8_e5m2" in str(e.value)


def test_tassign_alignment_and_capacity():
    dev = pto.Device("a2")
    t = pto.Tile("Vec", "float32", 64, 64)  # 16 KiB

    @pto.kernel
    def misaligned():
        pto.TASSIGN(t, 0x10)

    with pytest.raises(pto.MemoryLayoutError) as e:
        dev.run(misaligned)
    assert e.value.code == "PTO200" and e.value.rule == "alignment" and "0x10" in str(e.value)

    @pto.kernel
    def overflow():
        pto.TASSIGN(t, 192 * 1024 - 8 * 1024)
        pto.TEXPANDS(t, 1.0)

    with pytest.raises(pto.MemoryLayoutError) as e:  # at the TEXPANDS (D22)
        dev.run(overflow)
    assert e.value.rule == "fits-in-memory" and "196608" in str(e.value)
    pto.Device("950pr").run(overflow)  # 248 KiB usable UB: fits


def test_allocator_places_unassigned_tiles_apart_from_assigned_ones():
    dev = pto.Device("a2")
    a = pto.Tile("Vec", "float32", 8, 8)
    b = pto.Tile("Vec", "float32", 8, 8)
    c = pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k():
        pto.TASSIGN(a, 0)
        pto.TEXPANDS(a, 1.0)
        pto.TEXPANDS(b, 2.0)
        pto.TEXPANDS(c, 3.0)

    run = dev.run(k)
    spans = sorted((t.address, t.address + 256) for t in (a, b, c))
    assert all(hi <= lo for (_, hi), (lo, _) in zip(spans, spans[1:]))
    assert all(t.address % 32 == 0 for t in (a, b, c))
    assert (run.tile(a) == 1).all() and (run.tile(b) == 2).all() and (run.tile(c) == 3).all()


def test_tile_overflowing_ub_is_a_budget_error():
    dev = pto.Device("a2")
    big = [pto.Tile("Vec", "float32", 128, 128) for _ in range(4)]  # 4 x 64 KiB > 192 KiB

    @pto.kernel
    def k():
        for t in big:
            pto.TEXPANDS(t, 0.0)

    with pytest.raises(pto.UbBudgetError) as e:
        dev.run(k)
    assert e.value.code == "PTO201" and "65536 B" in str(e.value)


def test_unwritten_ub_reads_as_poison():
    dev = pto.Device("a2")
    out = dev.gm_zeros((8, 8), "float32")
    t = pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(out):
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 8, 8)), t)

    dev.run(k, out)
    assert np.isnan(out.numpy()).all()


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tmov_and_texpands(devname):
    dev = pto.Device(devname)
    host = _host("half", (16, 16), seed=7)
    src = dev.gm_array(host)
    a = pto.Tile("Vec", "half", 16, 16)
    b = pto.Tile("Vec", "half", 16, 16)
    c = pto.Tile("Vec", "int32", 4, 8, valid=(3, 5))

    @pto.kernel
    def k(src):
        pto.TLOAD(a, pto.GlobalTensor(src, (1, 1, 1, 16, 16)))
        pto.set_flag("MTE2", "V", 0)
        pto.wait_flag("MTE2", "V", 0)
        pto.TMOV(b, a)
        pto.TEXPANDS(c, 7)

    run = dev.run(k, src)
    assert np.array_equal(run.tile(b), host)
    storage = run.tile_storage(c).reshape(4, 8)
    assert (
        (storage[:3, :5] == 7).all() and (storage[3] == -1).all() and (storage[:, 5:] == -1).all()
    )


def test_tmov_checks_shapes_per_target():
    small = pto.Tile("Vec", "float32", 8, 8)
    other = pto.Tile("Vec", "float32", 8, 16, valid=(8, 8))

    @pto.kernel
    def k():
        pto.TMOV(small, other)

    with pytest.raises(pto.ConstraintError) as e:
        pto.Device("a2").run(k)
    assert e.value.rule == "same-shape"
    pto.Device("cpu").run(k)  # cpu/a5 only need equal valid shapes


def test_flag_checks():
    def run(devname, body):
        @pto.kernel
        def k():
            body()

        return pto.Device(devname).run(k)

    with pytest.raises(pto.ConstraintError) as e:
        run("a2", lambda: pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID8))
    assert e.value.rule == "event-id-range" and "0..7" in str(e.value)
    run("950pr", lambda: pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID15))
    with pytest.raises(pto.ConstraintError) as e:
        run("a2", lambda: pto.wait_flag(pto.PIPE_ALL, pto.PIPE_V, 0))
    assert e.value.rule == "flag-pipe"
    with pytest.raises(pto.ConstraintError) as e:
        run("a2", lambda: pto.set_flag("V", "V", 0))
    assert e.value.rule == "distinct-pipes" and "pipe_barrier" in str(e.value)
    with pytest.raises(pto.KernelError):
        run("a2", lambda: pto.set_flag("VEC", "S", 0))
    run("a2", lambda: pto.pipe_barrier("ALL"))


def test_instructions_outside_a_kernel_are_a_clear_error():
    with pytest.raises(pto.KernelError, match="inside a @pto.kernel"):
        pto.TEXPANDS(pto.Tile("Vec", "float32", 8, 8), 0)


def test_runs_are_deterministic_and_blocks_are_independent():
    def once():
        dev = pto.Device("a2")
        host = _host("float32", (4, 8, 8), seed=9)
        src = dev.gm_array(host)
        out = dev.gm_zeros((4, 8, 8), "float32")

        @pto.kernel
        def k(src, out):
            b = pto.get_block_idx()
            t = pto.Tile("Vec", "float32", 8, 8)
            pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 8, 8), offset=64 * b))
            pto.set_flag("MTE2", "MTE3", 0)
            pto.wait_flag("MTE2", "MTE3", 0)
            pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 8, 8), offset=64 * (3 - b)), t)

        run = dev.run(k, src, out, block_dim=4)
        assert len(run.blocks) == 4
        assert np.array_equal(out.numpy(), host[::-1])
        return out.numpy().tobytes()

    assert once() == once()


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 12),
    cols=st.integers(1, 24),
    extra=st.integers(0, 9),
    devname=st.sampled_from(["cpu", "a2", "950pr"]),
)
def test_strided_nd_load_matches_numpy_slicing(rows, cols, extra, devname):
    """TLOAD of a strided ND window equals numpy slicing of the host array (validCol == S4)."""
    dev = pto.Device(devname)
    pitch = cols + extra
    host = np.arange(rows * pitch, dtype=np.int32).reshape(rows, pitch)
    src = dev.gm_array(host)
    tile_cols = -(-cols // 8) * 8
    t = pto.Tile("Vec", "int32", rows, tile_cols, valid=(rows, cols))

    @pto.kernel
    def k(src):
        pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, rows, cols), stride=(0, 0, 0, pitch, 1)))

    assert np.array_equal(dev.run(k, src).tile(t), host[:, :cols])


# -- Trust fixes: views the DMA cannot express, per-target valid shapes, TMOV layouts --------
def _load_run(devname, host, tile, shape, stride=None, layout="ND"):
    dev = pto.Device(devname)
    src = dev.gm_array(host)

    @pto.kernel
    def k(src):
        pto.TLOAD(tile, pto.GlobalTensor(src, shape, stride=stride, layout=layout))

    return dev.run(k, src)


@pytest.mark.parametrize(
    "layout, shape, stride, bad",
    [
        ("ND", (1, 1, 1, 4, 8), (64, 64, 64, 16, 2), "stride[4]"),
        ("DN", (1, 1, 1, 8, 4), (64, 64, 64, 2, 16), "stride[3]"),
        ("NZ", (1, 2, 1, 16, 8), (512, 256, 256, 16, 1), "stride[3]"),
    ],
)
def test_strided_burst_dimension_is_exact_on_cpu_ignored_on_the_npus(layout, shape, stride, bad):
    """D13: a non-unit step along the DMA burst is honoured on cpu; the a2a3 and a5 DMAs never
    read that stride (their GM <-> UB copies take only the outer strides and a burst length),
    so they move contiguous bursts, with finding F112."""
    host = np.arange(1024, dtype=np.float32)
    s0, s1, s2, s3, s4 = shape
    blayout, slayout = {"ND": ("RowMajor", "NoneBox"), "DN": ("ColMajor", "NoneBox")}.get(
        layout, ("ColMajor", "RowMajor")
    )
    rows, cols = {"ND": (s3, s4), "DN": (s3, s4), "NZ": (s2 * s3, s1 * s4)}[layout]
    tile = pto.Tile("Vec", "float32", rows, cols, blayout, slayout=slayout)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")

    def offsets(st):
        if layout == "NZ":  # i1 = c // C0, i3 = r, i4 = c % C0
            return (c // s4) * st[1] + r * st[3] + (c % s4) * st[4]
        return r * st[3] + c * st[4]

    run = _load_run("cpu", host, tile, shape, stride, layout)
    assert np.array_equal(run.tile(tile), host[offsets(stride)])
    # a2 and 950pr: the burst-dimension strides as if contiguous (ND stride[4] = 1, DN
    # stride[3] = 1, NZ stride[4] = 1 and stride[3] = C0); the outer strides as given
    contiguous = {"ND": (*stride[:4], 1), "DN": (*stride[:3], 1, stride[4])}.get(
        layout, (*stride[:3], s4, 1)
    )
    for device in ("a2", "950pr"):
        run = _load_run(device, host, tile, shape, stride, layout)
        assert np.array_equal(run.tile(tile), host[offsets(contiguous)])
        f112 = [f for f in run.findings if f.code == "F112"]
        assert len(f112) == 1 and bad in f112[0].message and str(list(stride)) in f112[0].message


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_npu_ignored_burst_stride_is_reported_once_per_site(device):
    """The library's TGATHER compare-form tests (a2a3 and a5) load their k column through a DN
    view whose stride[3] is the row pitch of the source: the DMA reads 16 contiguous values."""
    host = np.arange(16 * 64, dtype=np.float32)
    dev = pto.Device(device)
    src = dev.gm_array(host)
    tile = pto.Tile("Vec", "float32", 16, 1, "ColMajor")

    @pto.kernel
    def k(src):
        for _ in range(2):
            pto.TLOAD(tile, pto.GlobalTensor(src, (1, 1, 1, 16, 1), (1, 1, 1, 64, 1), "DN"))

    run = dev.run(k, src)
    assert np.array_equal(run.tile(tile).reshape(-1), host[:16])  # not host[::64][:16]
    assert [f.code for f in run.findings] == ["F112"]


def test_a2a3_gm_gap_must_not_be_negative():
    """D13: overlapping ND rows (stride3 < shape4) need a negative gmGap on a2a3."""
    host = np.arange(64, dtype=np.int32)
    shape, stride = (1, 1, 1, 4, 8), (1, 1, 1, 4, 1)
    expect = host[np.arange(4)[:, None] * 4 + np.arange(8)]
    for devname in ("cpu", "950pr"):  # exact mapping / start-to-start stride
        tile = pto.Tile("Vec", "int32", 4, 8)
        assert np.array_equal(_load_run(devname, host, tile, shape, stride).tile(tile), expect)
    with pytest.raises(pto.UnsupportedError) as e:
        _load_run("a2", host, pto.Tile("Vec", "int32", 4, 8), shape, stride)
    assert e.value.rule == "a2a3-gm-gap" and "stride[3] >= 8" in str(e.value)


def test_cpu_loads_an_nd_tensor_into_a_colmajor_tile():
    """D15: the CPU simulator maps (r, c) through both layouts; the NPUs pair layouts."""
    host = _host("float32", (8, 16), seed=11)
    tile = pto.Tile("Vec", "float32", 8, 16, "ColMajor")
    run = _load_run("cpu", host, tile, (1, 1, 1, 8, 16))
    assert np.array_equal(run.tile(tile), host)
    assert np.array_equal(run.tile_storage(tile), host.T.reshape(-1))
    for devname in ("a2", "950pr"):
        with pytest.raises(pto.ConstraintError) as e:
            _load_run(
                devname, host, pto.Tile("Vec", "float32", 8, 16, "ColMajor"), (1, 1, 1, 8, 16)
            )
        assert e.value.rule == "layout-pairing"


def test_a5_tstore_writes_valid_col_elements_per_row_at_stride3():
    """D13: a5 TSTORE, like its TLOAD, takes the burst length from validCol."""
    host = _host("float32", (4, 8), seed=12)
    dev = pto.Device("950pr")
    src = dev.gm_array(host)
    out = dev.gm_full((4, 16), "float32", -3.0)
    t = pto.Tile("Vec", "float32", 4, 8, valid=(4, 5))

    @pto.kernel
    def k(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 4, 8)))
        pto.set_flag("MTE2", "MTE3", 0)
        pto.wait_flag("MTE2", "MTE3", 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 4, 16)), t)

    run = dev.run(k, src, out)
    expect = np.full((4, 16), -3.0, np.float32)
    expect[:, :5] = host[:, :5]
    assert np.array_equal(out.numpy(), expect) and not run.findings


def test_a2a3_dn_load_with_fewer_valid_columns_than_the_gm_row_runs():
    """D14, the hardware-measured 255x60 DN case: nBurst comes from the GlobalTensor."""
    logical = _host("float32", (255, 64), seed=13)
    gm = logical.T.copy()  # packed DN: column after column
    tile = pto.Tile("Vec", "float32", 256, 64, "ColMajor", valid=(255, 60))
    run = _load_run("a2", gm, tile, (1, 1, 1, 255, 64), layout="DN")
    assert np.array_equal(run.tile(tile), logical[:, :60])
    # all 64 columns were moved, at the UB pitch of 256 elements (lenBurst 1020 B -> 32 blocks)
    storage = run.tile_storage(tile).reshape(64, 256)
    assert np.array_equal(storage[:, :255], gm)
    assert [f.code for f in run.findings] == ["F106"] and "64 columns" in run.findings[0].message
    with pytest.raises(pto.ConstraintError) as e:
        _load_run(
            "950pr",
            gm,
            pto.Tile("Vec", "float32", 256, 64, "ColMajor", valid=(255, 60)),
            (1, 1, 1, 255, 64),
            layout="DN",
        )
    assert e.value.rule == "valid-shape" and "validCol == 64" in str(e.value)
    # cpu loads the valid region at its view offsets (the Release build: no assert)
    tile = pto.Tile("Vec", "float32", 256, 64, "ColMajor", valid=(255, 60))
    run = _load_run("cpu", gm, tile, (1, 1, 1, 255, 64), layout="DN")
    assert np.array_equal(run.tile(tile), logical[:, :60]) and not run.findings


def test_a2a3_dn_short_bursts_land_at_the_dma_ub_pitch():
    """D7/D14: validRow != shape3 on a2a3 DN: UB advances ceil(lenBurst, 32 B) + ubGap."""
    gm = np.arange(64, dtype=np.float32)
    tile = pto.Tile("Vec", "float32", 16, 4, "ColMajor", valid=(8, 4))
    run = _load_run("a2", gm, tile, (1, 1, 1, 16, 4), layout="DN")
    # lenBurst = 8*4 B = 1 block, ubGap = ((16 - 16)*4) >> 5 = 0: UB pitch 8 elements;
    # GM pitch = lenBurst + gmGap = 8 + 16 - 16 = 8 elements (D7)
    storage = run.tile_storage(tile)
    assert np.array_equal(storage[:32], gm[:32])
    assert (storage[32:].view(np.uint32) == 0xFFFFFFFF).all()
    assert [f.code for f in run.findings] == ["F101"]


def test_a2a3_dma_past_the_tile_moves_the_ub_bytes_after_it():
    """D14: the a2a3 DMA follows the GlobalTensor's 16 rows into an 8-row tile; the release
    build of the library checks nothing, so rows 8..15 land in the UB bytes after the tile
    (the library's TCMP test loads a 64x64 view into a 32x32 tile this way), finding F106."""
    host = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
    dev = pto.Device("a2")
    src, out = dev.gm_array(host), dev.gm_zeros((8, 8), "float32")
    tile, after = pto.Tile("Vec", "float32", 8, 8), pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(src, out):
        pto.TASSIGN(tile, 0x0)
        pto.TASSIGN(after, 8 * 8 * 4)  # the next 256 bytes
        pto.TLOAD(tile, pto.GlobalTensor(src, (1, 1, 1, 16, 8)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 8, 8)), after)

    run = dev.run(k, src, out)
    assert np.array_equal(run.tile(tile), host[:8])
    assert np.array_equal(out.numpy(), host[8:])  # written by the first TLOAD's rows 8..15
    f106 = [f for f in run.findings if f.code == "F106"]
    assert any("UB bytes [0x100, 0x200) past the end of tile" in f.message for f in f106)


def test_a2a3_tstore_past_the_tile_reads_the_ub_bytes_after_it():
    """D14, the other direction: a 16-row view stored from an 8-row tile reads 8 more rows."""
    host = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
    dev = pto.Device("a2")
    src, out = dev.gm_array(host), dev.gm_zeros((16, 8), "float32")
    a, b = pto.Tile("Vec", "float32", 8, 8), pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(src, out):
        pto.TASSIGN(a, 0x0)
        pto.TASSIGN(b, 0x100)
        pto.TLOAD(a, pto.GlobalTensor(src, (1, 1, 1, 8, 8)))
        pto.TLOAD(b, pto.GlobalTensor(src, (1, 1, 1, 8, 8), offset=64))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 16, 8)), a)

    run = dev.run(k, src, out)
    assert np.array_equal(out.numpy(), host)
    assert any("reads UB bytes [0x100, 0x200)" in f.message for f in run.findings)


def test_a2a3_dma_past_the_end_of_ub_is_an_error():
    host = np.zeros((16, 8), np.float32)
    tile = pto.Tile("Vec", "float32", 8, 8)
    dev = pto.Device("a2")
    src = dev.gm_array(host)
    top = dev.config.memory.ub_size_bytes - 8 * 8 * 4  # the tile ends at the end of UB

    @pto.kernel
    def k(src):
        pto.TASSIGN(tile, top)
        pto.TLOAD(tile, pto.GlobalTensor(src, (1, 1, 1, 16, 8)))

    with pytest.raises(pto.OutOfBoundsError, match="leave the UB"):
        dev.run(k, src)


def test_a2a3_tmov_between_layouts_is_a_storage_copy():
    """D16: a2a3 TMOV accepts every BLayout/SLayout pair and copies storage."""
    host = _host("float32", (16, 16), seed=14)
    combos = {
        "ND": ("RowMajor", "NoneBox", (1, 1, 1, 16, 16)),
        "DN": ("ColMajor", "NoneBox", (1, 1, 1, 16, 16)),
        "NZ": ("ColMajor", "RowMajor", (1, 2, 1, 16, 8)),
    }
    for sname, (sb, ss, sshape) in combos.items():
        for db, ds, _ in combos.values():
            dev = pto.Device("a2")
            src = dev.gm_array(host)
            a = pto.Tile("Vec", "float32", 16, 16, sb, slayout=ss)
            b = pto.Tile("Vec", "float32", 16, 16, db, slayout=ds)

            @pto.kernel
            def k(src, a=a, b=b, sname=sname, sshape=sshape):
                pto.TLOAD(a, pto.GlobalTensor(src, sshape, layout=sname))
                pto.set_flag("MTE2", "V", 0)
                pto.wait_flag("MTE2", "V", 0)
                pto.TMOV(b, a)

            run = dev.run(k, src)
            assert np.array_equal(run.tile_storage(b), host.reshape(-1)), (sname, db, ds)
    # partial valid region: per storage row, the 32-byte blocks covering validCol
    dev = pto.Device("a2")
    src = dev.gm_array(host)
    a = pto.Tile("Vec", "float32", 16, 16, "ColMajor")
    b = pto.Tile("Vec", "float32", 16, 16, "RowMajor", valid=(3, 5))

    @pto.kernel
    def kp(src):
        pto.TLOAD(a, pto.GlobalTensor(src, (1, 1, 1, 16, 16), layout="DN"))
        pto.set_flag("MTE2", "V", 0)
        pto.wait_flag("MTE2", "V", 0)
        pto.TMOV(b, a)

    run = dev.run(kp, src)
    got = run.tile_storage(b).reshape(16, 16)
    assert np.array_equal(got[:3, :8], run.tile_storage(a).reshape(16, 16)[:3, :8])
    assert (got[:3, 8:].view(np.uint32) == 0xFFFFFFFF).all() and np.isnan(got[3:]).all()
    # 950pr keeps equal layouts; cpu copies any layouts but needs equal valid shapes
    for devname, rule in (("cpu", "same-valid-shape"), ("950pr", "same-layout")):
        with pytest.raises(pto.ConstraintError) as e:
            pto.Device(devname).run(kp, pto.Device(devname).gm_array(host))
        assert e.value.rule in (rule, "layout-pairing")


@pytest.mark.parametrize("shape,valid", [((16, 0), (16, 0)), ((0, 32), (0, 32))])
def test_a2a3_empty_view_moves_nothing(shape, valid):
    """nBurst = 0 or lenBurst = 0: no element moves, the tile keeps its bytes (UB starts as
    0xFF) and the GM buffer is untouched, both directions."""
    dev = pto.Device("a2")
    src = dev.gm_array(np.arange(16 * 32, dtype=np.float32))
    out = dev.gm_array(np.zeros(16 * 32, dtype=np.float32))
    tile = pto.Tile("Vec", "float32", 16, 32, valid=valid)

    @pto.kernel
    def k(src, out):
        pto.TLOAD(tile, pto.GlobalTensor(src, (1, 1, 1, *shape)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, *shape)), tile)

    run = dev.run(k, src, out)
    assert (run.tile_storage(tile).view(np.uint32) == 0xFFFFFFFF).all()
    assert not out.numpy().any()


def test_npu_tstore_of_a_one_column_tile_to_an_nd_view_follows_the_tile_layout():
    """The library's TSTORE accepts a one-row/one-column tile with any view and walks the view
    in the tile's layout: a 16x1 ColMajor column (valid 13) stored to an ND (13, 1) view is
    one burst of 13 contiguous elements (the library's TROWARGMAX test stores its results so)."""
    col = np.arange(16, dtype=np.float32).reshape(16, 1) + 0.5
    for devname in ("a2", "950pr"):
        dev = pto.Device(devname)
        src = dev.gm_array(col)
        out = dev.gm_zeros((16,), "float32")
        tile = pto.Tile("Vec", "float32", 16, 1, "ColMajor", valid=(13, 1))

        @pto.kernel
        def k(src, out, tile=tile):
            pto.TLOAD(tile, pto.GlobalTensor(src, (1, 1, 1, 13, 1), layout="DN"))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 13, 1), stride=(16, 16, 16, 1, 1)), tile)

        dev.run(k, src, out)
        assert out.numpy().tolist() == col[:13, 0].tolist() + [0.0] * 3, devname


@pytest.mark.parametrize("devname", ["a2", "950pr"])
def test_tload_nd_to_an_nz_tile_is_the_cube_path(devname):
    # the library's cube tests (tmatmul, tload_gm2mat) load ND GM into NZ L1 tiles: on a2 the
    # cube core's TLOAD runs it, on a2 and 950; into a Vec tile it is a misuse on both
    dev = pto.Device(devname)
    a = dev.gm_array(np.zeros((16, 16), np.float16))

    def body(loc):
        @pto.kernel
        def k(a):
            g = pto.GlobalTensor(a, shape=(1, 1, 1, 16, 16))
            t = pto.Tile(loc, "half", 16, 16, blayout="ColMajor", slayout="RowMajor")
            pto.TASSIGN(t, 0)
            pto.TLOAD(t, g)

        return k

    dev.run(body("Mat"), a)
    with pytest.raises(pto.ConstraintError, match="layout-pairing"):  # a Vec tile: a misuse
        dev.run(body("Vec"), a)
