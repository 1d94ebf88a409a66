"""The CPU simulator's numeric limits of its fp4 types, as the library's cpu tests read them (its
TLOAD test builds the PadValue::Max golden from ``numeric_limits<T>::max()``): no infinity, max()
the field 0x7, min() 0x1, lowest() 0xF (e2m1 6.0, 0.5, -6.0; e1m2 1.75, 0.25, -1.75)."""

from __future__ import annotations

import ctypes

import pytest

from ptosim.cxx import build as B

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
