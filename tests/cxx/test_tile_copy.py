"""A C++ copy of an assigned tile (a by-value helper parameter, ``a = b``) is the tile it copies
while it keeps its address: writing it writes that tile, so the live-overlap check (F204) sees
one binding, as in the library's flash-attention update macros. A different tile on the same
bytes, and a copy moved elsewhere, stay tiles of their own."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import CXX_DIR

pytestmark = pytest.mark.cxx

SRC = CXX_DIR / "tilecopy.cpp"
ENTRIES = ["copy_writes_the_tile", "other_tile_clobbers", "moved_copy"]


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def _run(prog, entry, device):
    dev = pto.Device(device)
    a = dev.gm_array(np.arange(64, dtype=np.float32).reshape(8, 8))
    out = dev.gm_zeros((8, 8), "float32")
    res = dev.run(prog.entry(entry), out, a)
    return res, out.numpy(), a.numpy()


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_by_value_and_an_assigned_copy_write_the_tile(prog, device):
    res, out, a = _run(prog, "copy_writes_the_tile", device)
    assert np.array_equal(out, a * 2 + 1)
    assert not res.findings, res.findings


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_another_tile_on_the_same_bytes_is_still_reported(prog, device):
    res, out, _ = _run(prog, "other_tile_clobbers", device)
    assert np.all(out == 5.0)
    assert [f.code for f in res.findings] == ["F204"]


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_copy_moved_elsewhere_is_a_tile_of_its_own(prog, device):
    res, out, a = _run(prog, "moved_copy", device)
    assert np.array_equal(out, a)
    assert not res.findings, res.findings
