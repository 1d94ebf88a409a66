"""Exact GM footprints: column-split tilings are disjoint byte sets, not overlapping ranges.

Each core (or one core twice) stores / loads a column slice of a row-major matrix through a
strided GlobalTensor view (``stride=(1, 1, 1, COLS, 1)``, ``offset=first column``). The bytes of
the slices are disjoint although their bounding ranges overlap: no finding, and the output is
the input copied (numpy). Slices that really share a column still give F205 across cores.
"""

import numpy as np
import pytest

import ptosim as pto
from ptosim.footprint import MAX_RUNS, merged_runs, view_runs

DEVICES = ("cpu", "a2", "950pr")
ROWS = 4


def _view(buf, cols: int, width: int, first: int):
    return pto.GlobalTensor(
        buf, shape=(1, 1, 1, ROWS, width), stride=(1, 1, 1, cols, 1), offset=first
    )


def _copy_slices(cores: int, width: int, step: int):
    """Each block copies its slice [b * step, b * step + width) of every row, x -> out."""
    cols = step * (cores - 1) + width

    @pto.kernel
    def k(x, out):
        b = pto.get_block_idx()
        t = pto.Tile("Vec", "float32", ROWS, width)
        pto.TLOAD(t, _view(x, cols, width, b * step))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(_view(out, cols, width, b * step), t)

    return k, cols


@pytest.mark.parametrize("devname", DEVICES)
@pytest.mark.parametrize("cores", (2, 4, 8))
def test_column_split_store_and_load_over_cores_is_clean_and_exact(devname, cores):
    width = 8
    kernel, cols = _copy_slices(cores, width, width)
    dev = pto.Device(devname)
    host = np.arange(ROWS * cols, dtype=np.float32).reshape(ROWS, cols)
    x, out = dev.gm_array(host), dev.gm_zeros((ROWS, cols), "float32")
    run = dev.run(kernel, x, out, block_dim=cores)
    assert run.all_findings() == [], [str(f) for f in run.all_findings()]
    assert np.array_equal(out.numpy(), host)


@pytest.mark.parametrize("devname", DEVICES)
def test_overlapping_column_slices_over_cores_are_still_f205(devname):
    kernel, cols = _copy_slices(2, 8, 4)  # core 1's slice starts inside core 0's
    dev = pto.Device(devname)
    host = np.arange(ROWS * cols, dtype=np.float32).reshape(ROWS, cols)
    run = dev.run(kernel, dev.gm_array(host), dev.gm_zeros((ROWS, cols), "float32"), block_dim=2)
    assert "F205" in {f.code for f in run.all_findings()}


@pytest.mark.parametrize("devname", DEVICES)
def test_one_core_storing_both_halves_needs_no_barrier(devname):
    """Two TSTOREs on PIPE_MTE3 to the two column halves: disjoint bytes, no F206."""
    cols, half = 32, 16

    @pto.kernel
    def k(x, out):
        t = pto.Tile("Vec", "float32", ROWS, half)
        u = pto.Tile("Vec", "float32", ROWS, half)
        pto.TLOAD(t, _view(x, cols, half, 0))
        pto.TLOAD(u, _view(x, cols, half, half))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(_view(out, cols, half, 0), t)
        pto.TSTORE(_view(out, cols, half, half), u)

    dev = pto.Device(devname)
    host = np.arange(ROWS * cols, dtype=np.float32).reshape(ROWS, cols)
    out = dev.gm_zeros((ROWS, cols), "float32")
    run = dev.run(k, dev.gm_array(host), out)
    assert run.all_findings() == [], [str(f) for f in run.all_findings()]
    assert np.array_equal(out.numpy(), host)


@pytest.mark.parametrize("devname", DEVICES)
def test_storing_one_half_and_loading_the_other_needs_no_flag(devname):
    """TSTORE (MTE3) of the left half, then TLOAD (MTE2) of the right half of the same matrix:
    disjoint bytes, no F203."""
    cols, half = 32, 16

    @pto.kernel
    def k(buf, out):
        t = pto.Tile("Vec", "float32", ROWS, half)
        u = pto.Tile("Vec", "float32", ROWS, half)
        pto.TEXPANDS(t, 2.0)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(_view(buf, cols, half, 0), t)
        pto.TLOAD(u, _view(buf, cols, half, half))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 1)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 1)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, half)), u)

    dev = pto.Device(devname)
    host = np.arange(ROWS * cols, dtype=np.float32).reshape(ROWS, cols)
    buf, out = dev.gm_array(host), dev.gm_zeros((ROWS, half), "float32")
    run = dev.run(k, buf, out)
    assert run.all_findings() == [], [str(f) for f in run.all_findings()]
    assert np.array_equal(out.numpy(), host[:, half:])
    assert np.array_equal(buf.numpy()[:, :half], np.full((ROWS, half), 2.0, np.float32))


def test_view_runs_are_the_bytes_numpy_enumerates():
    """The runs of a 5-D strided view equal the byte set of its element offsets (numpy)."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        shape = tuple(int(n) for n in rng.integers(1, 4, 5))
        stride = tuple(int(s) for s in rng.integers(0, 40, 5))
        offset, size = int(rng.integers(0, 9)), int(rng.choice([1, 2, 4]))
        grids = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
        elems = offset + sum(g * s for g, s in zip(grids, stride)).reshape(-1)
        want = set()
        for e in elems.tolist():
            want.update(range(1000 + e * size, 1000 + (e + 1) * size))
        runs = view_runs(1000, offset, shape, stride, size)
        got = set()
        for lo, hi in runs:
            got.update(range(lo, hi))
        assert got == want, (shape, stride, offset, size)
        assert all(a[1] < b[0] for a, b in zip(runs, runs[1:]))  # disjoint, sorted, merged


def test_a_footprint_past_the_run_limit_is_its_bounding_range():
    starts = np.arange(MAX_RUNS + 1, dtype=np.int64) * 8
    assert merged_runs(starts, 4) == [(0, int(starts[-1]) + 4)]
