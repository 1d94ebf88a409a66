"""The CPU simulator's L1 as host memory: TEXTRACT between Mat tiles (a window, converted to the
destination type as C++ converts), and SetValue / GetValue on a Mat tile. Neither exists on the
NPU (no L1 -> L1 extract; the scalar unit has no path to L1), where each is a coded error."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto


def _extract_kernel(src_dt, dst_dt, r0, c0):
    @pto.kernel(cores="cube")
    def kern(src, out):
        s = pto.Tile("Mat", src_dt, 32, 32)
        d = pto.Tile("Mat", dst_dt, 32, 32, valid=(32 - r0, 32 - c0))
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(d, 0x10000)
        pto.TLOAD(s, pto.GlobalTensor(src, (32, 32)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
        pto.TEXTRACT(d, s, r0, c0)
        pto.set_flag(pto.PIPE_MTE1, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (32 - r0, 32 - c0)), d)

    return kern


@pytest.mark.parametrize(
    "src_dt, dst_dt", [("float16", "float32"), ("int8", "int32"), ("float32", "int32")]
)
def test_cpu_textract_mat_to_mat_converts_the_window(src_dt, dst_dt):
    rng = np.random.default_rng(3)
    x = rng.uniform(-100, 100, (32, 32)).astype(src_dt)
    dev = pto.Device("cpu")
    out = dev.gm_zeros((24, 16), dst_dt)
    run = dev.run(_extract_kernel(src_dt, dst_dt, 8, 16), dev.gm_array(x), out)
    assert run.findings == [], [str(f) for f in run.findings]
    want = x[8:, 16:]
    if np.dtype(dst_dt).kind == "i" and x.dtype.kind == "f":
        want = np.trunc(want)  # static_cast<int32_t>(float): toward zero
    assert np.array_equal(out.numpy(), want.astype(dst_dt))


def test_mat_to_mat_textract_stops_on_the_npu():
    dev = pto.Device("a2")
    with pytest.raises(pto.UnsupportedError) as e:
        dev.run(_extract_kernel("float16", "float32", 0, 0), dev.gm_zeros((32, 32), "float16"),
                dev.gm_zeros((32, 32), "float32"))  # fmt: skip
    assert e.value.rule == "form" and "Mat -> Mat" in str(e.value)


def _set_value_kernel():
    @pto.kernel(cores="cube")
    def kern(out):
        m = pto.Tile("Mat", "float32", 1, 16)
        for i in range(16):
            m.SetValue(i, 0.5 * i)
        pto.set_flag(pto.PIPE_S, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_S, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 16)), m)

    return kern


@pytest.mark.parametrize("devname", ["cpu", "a2"])
def test_set_value_on_a_mat_tile_is_a_coded_error(devname):
    """GetValue / SetValue static_assert a Vec tile in the library's Tile (every target); on cpu a
    C++ raw access (tile.data()[i]) reaches a Mat tile instead (tests/cxx/test_raw.py)."""
    dev = pto.Device(devname)
    with pytest.raises(pto.ConstraintError) as e:
        dev.run(_set_value_kernel(), dev.gm_zeros((1, 16), "float32"))
    assert e.value.rule == "tile-location"
