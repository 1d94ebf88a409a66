"""Kernel plumbing shared by instruction tests: tiles, loads, constraint checks, bit equality."""

import zlib

import numpy as np
import pytest

import ptosim as pto


def assert_bits_equal(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    u = np.dtype(f"u{got.dtype.itemsize}")
    np.testing.assert_array_equal(got.view(u), want.view(u))


def seeded(*parts):
    return np.random.default_rng(zlib.crc32(repr(parts).encode()))


# -- kernel plumbing ----------------------------------------------------------------------
def vec(dt, rows, cols, layout="RowMajor", valid=None, **kw):
    """A Vec tile; ``layout`` (or ``blayout=``) is its BLayout, other keywords go to pto.Tile."""
    return pto.Tile("Vec", dt, rows, cols, kw.pop("blayout", layout), valid=valid, **kw)


def tcvt_only(devname, dst, src, mode="CAST_RINT"):
    """Run a kernel that places ``src`` at 0 and ``dst`` at 0x8000 and converts (its checks)."""
    dev = pto.Device(devname)

    @pto.kernel
    def k():
        pto.TASSIGN(src, 0)
        pto.TASSIGN(dst, 0x8000)
        pto.TCVT(dst, src, mode)

    return dev.run(k)


def run_kernel(devname, tiles, loads, body, places=None):
    """TASSIGN ``tiles`` (sequentially from 0 unless in ``places``), TLOAD each (tile, logical
    data) of ``loads`` (ND for RowMajor, DN for ColMajor tiles), then call ``body()``."""
    dev = pto.Device(devname)
    places = places or {}
    bufs = [dev.gm_array(np.ascontiguousarray(d if t.geom.is_row_major else d.T)) for t, d in loads]

    @pto.kernel
    def k(*bufs):
        addr = 0
        for t in tiles:
            if t in places:
                pto.TASSIGN(t, places[t])
            else:
                pto.TASSIGN(t, addr)
                addr += t.geom.size_bytes
        for (t, d), b in zip(loads, bufs):
            layout = "ND" if t.geom.is_row_major else "DN"
            pto.TLOAD(t, pto.GlobalTensor(b, (1, 1, 1) + d.shape, layout=layout))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)  # the loads land before V reads
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        body()

    return dev.run(k, *bufs)


# -- constraints --------------------------------------------------------------------------
def constraint(devname, body, rule, operand, opcode, cls=pto.ConstraintError):
    dev = pto.Device(devname)

    @pto.kernel
    def k():
        body()

    with pytest.raises(cls) as ei:
        dev.run(k)
    exc = ei.value
    assert exc.code == cls.code
    assert (exc.rule, exc.operand, exc.instruction) == (rule, operand, opcode)
    text = str(exc)
    assert opcode in text and f"'{operand}'" in text and f"'{rule}'" in text
    assert "expected" in text and "given" in text
    return exc
