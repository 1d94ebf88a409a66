"""Issue 10 items 17-19: the public API rejects bad arguments with coded errors, values that do
not fit are refused (never wrapped or truncated), and reruns print identical names."""

import numpy as np
import pytest

import ptosim as pto

BAD_SHAPES = [None, 3.5, -3, "abc", (2, None), (4, 2.0), (10**10, 10**10), [[1, 2]]]


@pytest.fixture(scope="module")
def dev():
    return pto.Device("a2")


@pytest.mark.parametrize("shape", BAD_SHAPES)
def test_gm_allocations_reject_bad_shapes(dev, shape):
    for make in (
        lambda: dev.gm_zeros(shape, "float32"),
        lambda: dev.gm_full(shape, "float32", 1.0),
    ):
        with pytest.raises(pto.KernelError):
            make()


def test_giant_allocations_fail_fast(dev):
    with pytest.raises(pto.KernelError, match="simulated GM holds at most"):
        dev.gm_zeros((10**6, 10**6), "float32")


@pytest.mark.parametrize(
    "dtype,value",
    [("int8", 300), ("int8", 1.5), ("uint16", -1), ("half", 1e6), ("float8_e4m3", float("inf"))],
)
def test_values_that_do_not_fit_are_rejected_not_wrapped(dev, dtype, value):
    with pytest.raises(pto.ConstraintError) as e:
        dev.gm_full(4, dtype, value)
    assert e.value.rule == "scalar-range"
    with pytest.raises(pto.ConstraintError) as e:
        dev.gm_array(np.array([value] * 4), dtype)
    assert e.value.rule == "values-range"
    buf = dev.gm_zeros(4, dtype)
    with pytest.raises(pto.ConstraintError):
        buf.write(np.array([value] * 4))
    assert not buf.numpy().any()  # unchanged


def test_values_that_fit_are_converted(dev):
    assert dev.gm_full(2, "int8", 3.0).numpy().tolist() == [3, 3]
    assert dev.gm_array(np.array([1.0, -2.0]), "int16").numpy().tolist() == [1, -2]
    with pytest.raises(pto.ConstraintError) as e:
        dev.gm_full(2, "float32", "x")
    assert e.value.rule == "scalar-numeric"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rows": None},
        {"rows": 3.5},
        {"rows": 10**20},
        {"fractal": "x"},
        {"name": 5},
        {"valid": (3.5, 2)},
        {"pad": 1.5, "dtype": "int32"},
        {"pad": 1e300, "dtype": "half", "cols": 16},
    ],
)
def test_tile_rejects_bad_arguments(kwargs):
    args = {"loc": "Vec", "dtype": "float32", "rows": 16, "cols": 8} | kwargs
    with pytest.raises(pto.PtoSimError):
        pto.Tile(**args)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"shape": None},
        {"shape": (3.5, 2)},
        {"shape": (2**40, 2**40, 2**40)},
        {"shape": (2**70,)},
        {"shape": (4,), "stride": (-1,)},
        {"shape": (4,), "offset": None},
        {"shape": (4,), "offset": 1.5},
    ],
)
def test_global_tensor_rejects_bad_arguments(dev, kwargs):
    buf = dev.gm_zeros((16, 16), "float32")
    with pytest.raises(pto.KernelError):
        pto.GlobalTensor(buf, **kwargs)


def test_global_tensor_view_of_a_buffer_with_a_partial_last_element():
    """The library's TPART tests allocate n * sizeof(T) + 1 bytes: the view holds the n whole
    elements (a load moves them exactly), and an element past them is out of bounds."""
    dev = pto.Device("a2")
    raw = np.arange(9, dtype=np.uint8)  # bytes 0..7 are the two float32 elements
    buf = dev.gm_array(raw)
    want = raw[:8].view(np.float32).reshape(1, 2)
    tile = pto.Tile("Vec", "float32", 1, 8, valid=(1, 2))

    @pto.kernel
    def k(buf):
        pto.TLOAD(tile, pto.GlobalTensor(buf, (1, 2), dtype="float32"))

    run = dev.run(k, buf)
    assert run.tile(tile).view(np.uint32).tolist() == want.view(np.uint32).tolist()
    # a view of 3 elements reaches 3 bytes past the 9-byte allocation: a load reads them as
    # zeros (D21, finding F110), a store there stops
    three = pto.Tile("Vec", "float32", 1, 8, valid=(1, 3))

    @pto.kernel
    def load3(buf):
        pto.TLOAD(three, pto.GlobalTensor(buf, (1, 3), dtype="float32"))

    run = dev.run(load3, buf)
    got = run.tile(three).view(np.uint8).ravel()
    assert got[:9].tolist() == raw.tolist() and got[9:12].tolist() == [0] * 3
    assert [f.code for f in run.findings] == ["F110"]

    @pto.kernel
    def store3(buf):
        pto.TSTORE(pto.GlobalTensor(buf, (1, 3), dtype="float32"), three)

    with pytest.raises(pto.OutOfBoundsError, match="would access element 2 of"):
        dev.run(store3, buf)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"block_dim": 10**6},
        {"block_dim": True},
        {"dyn_ubuf_size": -1},
        {"dyn_ubuf_size": "x"},
        {"strict": "x"},
        {"progress": 5},
    ],
)
def test_run_rejects_bad_options_before_recording(kwargs):
    recorded = []
    dev = pto.Device("a2")
    with pytest.raises(pto.KernelError):
        dev.run(pto.kernel(lambda: recorded.append(1)), **kwargs)
    assert not recorded


def test_device_and_config_reject_bad_arguments():
    for bad in (None, 5, ""):
        with pytest.raises(pto.ConfigError):
            pto.Device(bad)
    for overrides in ([1], {1: 2}, {"timing.mte2.bw_bytes_per_cycle": float("nan")}):
        with pytest.raises(pto.ConfigError):
            pto.Device("a2", overrides=overrides)
    for key, value in (
        ("timing.mte2.bw_bytes_per_cycle", 0.0),
        ("timing.mte2.bw_bytes_per_cycle", float("inf")),
        ("timing.mte2.latency_cycles", 1.5),  # strict: no silent truncation to 1
        ("timing.vector.repeat_bytes", 1),  # elements per repeat would be 0 (ZeroDivisionError)
    ):
        with pytest.raises(pto.ConfigError, match="invalid override"):
            pto.Device("a2", overrides={key: value})
    with pytest.raises(pto.KernelError):
        pto.kernel(dyn_ubuf_size="x")


def _timed_run():
    dev = pto.Device("a2")
    src, out = dev.gm_zeros((16, 16), "float32"), dev.gm_zeros((16, 16), "float32")

    @pto.kernel
    def k():
        t = pto.Tile("Vec", "float32", 16, 16)
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)

    return dev.run(k)


@pytest.mark.parametrize("path", [None, 3, 1, b"x.json", "", "/", "/no/such/dir/x.json"])
def test_writers_reject_bad_paths(path):
    run = _timed_run()
    for write in (run.write_trace, run.write_csv):
        with pytest.raises(pto.KernelError):
            write(path)


@pytest.mark.parametrize(
    "dtype,scalar,rule",
    [
        ("float32", "x", "scalar-numeric"),
        ("float32", None, "scalar-numeric"),
        ("int8", 300, "scalar-range"),
        ("int32", 2.5, "scalar-range"),
        ("half", 70000.0, "scalar-range"),
    ],
)
def test_texpands_scalar_must_be_a_number_that_fits(dtype, scalar, rule):
    dev = pto.Device("cpu")

    @pto.kernel
    def k():
        pto.TEXPANDS(pto.Tile("Vec", dtype, 8, 32), scalar)

    with pytest.raises(pto.ConstraintError) as e:
        dev.run(k)
    assert e.value.instruction == "TEXPANDS" and e.value.rule == rule
    assert e.value.source and e.value.source.startswith("test_api_validation.py:")


def test_identical_reruns_print_identical_tile_names():
    def message():
        dev = pto.Device("a2")

        @pto.kernel
        def k():
            small = pto.Tile("Vec", "float32", 16, 16)
            big = pto.Tile("Vec", "float32", 256, 256)  # 256 KiB: over the 192 KiB UB
            pto.TEXPANDS(small, 0.0)
            pto.TEXPANDS(big, 0.0)

        with pytest.raises(pto.UbBudgetError) as e:
            dev.run(k)
        return str(e.value)

    first = message()
    pto.Tile("Vec", "float32", 16, 16)  # a tile created in between must not shift the names
    assert message() == first
    assert "tile1<float32,256x256,ND>" in first


def test_global_tensor_strides_whose_product_overflows_are_accepted():
    """Only the span must fit int64: the library's TROWARGMAX test gives a (1, 1, 1, 2, 32761)
    view the strides (65536, 65536, 65536, 32768, 1), whose product exceeds 2**63."""
    dev = pto.Device("a2")
    buf = dev.gm_zeros(2 * 32768, "float32")
    g = pto.GlobalTensor(buf, (1, 1, 1, 2, 32761), stride=(65536, 65536, 65536, 32768, 1))
    assert g.stride == (65536, 65536, 65536, 32768, 1)
    with pytest.raises(pto.KernelError, match="overflows int64"):
        pto.GlobalTensor(buf, (1, 1, 1, 2, 2), stride=(1, 1, 1, 2**62, 2**62))
