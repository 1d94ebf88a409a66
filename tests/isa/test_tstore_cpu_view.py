"""cpu TSTORE into an ND view larger than the tile's valid region (the library's cpu tests of
TCMP and TGATHER store a few valid columns into a full-size GlobalTensor): the reference only
bounds the valid region by the view and writes each valid (row, col) at its GM offset. TLOAD
likewise in the Release build the library's tests use (its TPOW test loads 63x63 of 64x64)."""

import numpy as np
import pytest

import ptosim as pto


def _store(valid, shape):
    dev = pto.Device("cpu")
    src = dev.gm_array(np.arange(8 * 16, dtype=np.float32).reshape(8, 16))
    out = dev.gm_array(np.full((8, 16), -1.0, np.float32))

    @pto.kernel
    def k(src, out):
        t = pto.Tile("Vec", "float32", 8, 16, valid=valid)
        pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, *valid)))
        pto.TSTORE(pto.GlobalTensor(out, shape), t)

    dev.run(k, src, out)
    return src.numpy(), out.numpy()


def test_the_valid_region_lands_at_its_offsets_and_the_rest_is_untouched():
    src, out = _store((4, 8), (1, 1, 1, 8, 16))
    # TLOAD of a (4, 8) view reads rows of pitch 8 from src; TSTORE writes them at pitch 16
    loaded = src.reshape(-1)[: 4 * 8].reshape(4, 8)
    expect = np.full((8, 16), -1.0, np.float32)
    expect[:4, :8] = loaded
    assert np.array_equal(out, expect)


def test_a_valid_region_larger_than_the_view_is_refused():
    with pytest.raises(pto.ConstraintError) as e:
        _store((8, 16), (1, 1, 1, 4, 16))
    assert e.value.rule == "valid-shape" and "validRow <= 4" in str(e.value)


def test_a_load_of_a_valid_region_smaller_than_the_view_reads_it_at_its_offsets():
    """The library's tpow test loads a 63x63 valid region from a 64x64 view: the CPU
    simulator's Release build (its assert compiled out) reads each valid (r, c) at r*64 + c."""
    dev = pto.Device("cpu")
    src = dev.gm_array(np.arange(8 * 16, dtype=np.float32).reshape(8, 16))
    out = dev.gm_array(np.full((8, 16), -1.0, np.float32))

    @pto.kernel
    def k(src, out):
        t = pto.Tile("Vec", "float32", 8, 16, valid=(7, 15))
        pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, 8, 16)))
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 8, 16)), t)

    dev.run(k, src, out)
    expect = np.full((8, 16), -1.0, np.float32)
    expect[:7, :15] = src.numpy()[:7, :15]
    assert np.array_equal(out.numpy(), expect)


def test_a_load_of_a_valid_region_larger_than_the_view_is_refused():
    dev = pto.Device("cpu")

    @pto.kernel
    def k(src):
        pto.TLOAD(pto.Tile("Vec", "float32", 8, 16), pto.GlobalTensor(src, (1, 1, 1, 4, 16)))

    with pytest.raises(pto.ConstraintError) as e:
        dev.run(k, dev.gm_zeros((8, 16), "float32"))
    assert e.value.rule == "valid-shape" and "validRow <= 4" in str(e.value)
