"""D21: a GM read past the end of its allocation proceeds (bytes there read as zeros) with ONE
finding F110 per (instruction site, tensor); a GM write past it stops with OutOfBoundsError.

Expected values are built by hand from the buffer bytes and the zero fill; the finding count
is checked over a loop that repeats the same read."""

from pathlib import Path

import numpy as np
import pytest

import ptosim as pto

DEVICES = ["cpu", "a2", "a3", "950pr"]


def _view_past_end(buf):
    # 8 rows of 8 float32 over a 32-byte (8-element) buffer: the library's trowexpand tests
    # read a (1,1,1,8,8) view of a 32-byte src1 buffer the same way
    return pto.GlobalTensor(buf, (1, 1, 1, 8, 8))


@pytest.mark.parametrize("devname", DEVICES)
def test_a_read_past_the_end_is_one_finding_and_exact_inside(devname):
    dev = pto.Device(devname)
    host = np.arange(1, 9, dtype=np.float32)
    buf = dev.gm_array(host)
    out = dev.gm_zeros((8, 8), "float32")
    tile = pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(buf, out):
        for _ in range(3):  # the same site and tensor three times: reported once
            pto.TLOAD(tile, _view_past_end(buf))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 8, 8)), tile)

    run = dev.run(k, buf, out)
    got = out.numpy()
    np.testing.assert_array_equal(got[0], host)  # the allocation's own bytes, exact
    assert (got[1:].view(np.uint32) == 0).all()  # the zero fill past it
    f110 = [f for f in run.findings if f.code == "F110"]
    assert len(f110) == 1, run.findings
    msg = f110[0].message
    assert "TLOAD" in msg and "operand 'gm'" in msg
    assert "224 byte(s) past the end of GM buffer #0" in msg  # 256 bytes read, 32 allocated
    assert "allocation is 32 bytes" in msg and "shape [1, 1, 1, 8, 8]" in msg
    assert f110[0].kind == "gm-read-past-end"


def test_two_sites_reading_past_the_end_are_two_findings():
    dev = pto.Device("a2")
    buf = dev.gm_array(np.arange(8, dtype=np.float32))
    a, b = pto.Tile("Vec", "float32", 8, 8), pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(buf):
        pto.TLOAD(a, _view_past_end(buf))
        pto.TLOAD(b, _view_past_end(buf))

    run = dev.run(k, buf)
    assert [f.code for f in run.findings].count("F110") == 2


@pytest.mark.parametrize("devname", DEVICES)
def test_a_write_past_the_end_still_stops(devname):
    dev = pto.Device(devname)
    buf = dev.gm_zeros((8,), "float32")
    tile = pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def k(buf):
        pto.TSTORE(_view_past_end(buf), tile)  # @store-past-end

    with pytest.raises(pto.OutOfBoundsError) as e:
        dev.run(k, buf)
    assert e.value.code == "PTO202"
    here = Path(__file__)
    line = next(
        n for n, s in enumerate(here.read_text().splitlines(), 1) if "# @store-past-end" in s
    )
    assert f"TSTORE #0 ({here.name}:{line}): " in str(e.value)  # the user's line
    assert "TSTORE" in str(e.value) and "which holds 8 elements; nothing was written" in str(
        e.value
    )
    assert (buf.numpy() == 0).all()


def test_a_scalar_read_past_the_end_reads_the_fill():
    dev = pto.Device("a2")
    buf = dev.gm_array(np.array([7, 8], dtype=np.int32))
    seen = []

    @pto.kernel
    def k(buf):
        g = pto.GlobalTensor(buf, (4,))
        seen.append((g.GetValue(1), g.GetValue(3)))

    run = dev.run(k, buf)
    assert seen[-1] == (8, 0)  # the zero fill
    assert [f.code for f in run.findings] == ["F110"]


def test_a_view_starting_past_the_end_is_refused():
    dev = pto.Device("a2")
    buf = dev.gm_zeros((8,), "float32")
    with pytest.raises(pto.OutOfBoundsError, match="starts past its end"):
        pto.GlobalTensor(buf, (4,), offset=8)
