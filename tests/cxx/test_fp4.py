"""fp4 in C++: the CPU simulator's numeric limits of its fp4 types, as the library's cpu tests
read them (its TLOAD test builds the PadValue::Max golden from ``numeric_limits<T>::max()``): no
infinity, max() the field 0x7, min() 0x1, lowest() 0xF (e2m1 6.0, 0.5, -6.0; e1m2 1.75, 0.25,
-1.75); and a GlobalTensor over an fp4 pointer moved in bytes (two elements per byte)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import ptosim as pto
from ptosim.cxx import build as B
from tests.helpers.paths import CXX_DIR

_SOURCE = r"""
#include <pto/pto-inst.hpp>
#include <limits>
template <typename T>
int limits()
{
    using L = std::numeric_limits<T>;
    return (L::is_specialized ? 1 : 0) | (L::has_infinity ? 2 : 0) | (L::max().bits << 4) |
           (L::min().bits << 8) | (L::lowest().bits << 12) | (L::infinity().bits << 16);
}
extern "C" int e2m1() { return limits<float4_e2m1x2_t>(); }
extern "C" int e1m2() { return limits<float4_e1m2x2_t>(); }
"""


@pytest.mark.cxx
@pytest.mark.parametrize("entry", ["e2m1", "e1m2"])
def test_fp4_limits_are_the_cpu_simulators(tmp_path, monkeypatch, entry):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "fp4_limits.cpp"
    src.write_text(_SOURCE)
    lib = ctypes.CDLL(str(B.build(src, [], target="cpu", compiler="g++").path))
    got = getattr(lib, entry)()
    # specialised, no infinity; max 0x7, min 0x1, lowest 0xF, infinity() the field 0
    assert got == 1 | 0x7 << 4 | 0x1 << 8 | 0xF << 12 | 0 << 16


@pytest.mark.cxx
@pytest.mark.parametrize("device", ["cpu", "950pr"])
def test_an_fp4_pointer_moved_by_bytes_moves_two_elements_per_byte(cxx_program, device):
    """``GlobalTensor g(src + 4)`` over ``float4_e2m1x2_t *src``: the pointer moves 4 bytes, 8
    elements (two per byte), so the 64 elements loaded are bytes 4..35 of the buffer."""
    prog = cxx_program(CXX_DIR / "fp4offset.cpp", ["fp4_offset"])
    dev = pto.Device(device)
    src = dev.gm_array(np.arange(64, dtype=np.uint8), dtype="float4_e2m1")
    out = dev.gm_zeros((32,), "uint8")
    dev.run(prog.entry("fp4_offset"), src, out)
    assert out.numpy().tolist() == list(range(4, 36))
