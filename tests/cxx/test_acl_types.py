"""The ACL host types as the library's tests see them: on the NPU targets ``aclFloat16`` is the
runtime's 16-bit integer holding a half's bits (a test instantiates ``LaunchT<aclFloat16>`` in
main.cpp and the kernel source defines ``LaunchT<uint16_t>``); the library's CPU build declares
it as its half type."""

from __future__ import annotations

import ctypes

import pytest

from ptosim.cxx import build as B

_SOURCE = r"""
#include "acl/acl.h"
#include <type_traits>
extern "C" int is_uint16() { return std::is_same_v<aclFloat16, uint16_t>; }
extern "C" int is_half() { return std::is_same_v<aclFloat16, _Float16>; }
extern "C" float to_float(uint16_t bits)
{
    aclFloat16 v;
    std::memcpy(&v, &bits, sizeof v);
    return aclFloat16ToFloat(v);
}
extern "C" uint16_t from_float(float f)
{
    aclFloat16 v = aclFloatToFloat16(f);
    uint16_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
}
"""


@pytest.mark.cxx
@pytest.mark.parametrize(("target", "integer"), [("a2a3", True), ("a5", True), ("cpu", False)])
def test_aclfloat16_is_the_runtimes_integer_on_npu_and_half_on_cpu(
    tmp_path, monkeypatch, target, integer
):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "acl_types.cpp"
    src.write_text(_SOURCE)
    lib = ctypes.CDLL(str(B.build(src, [], target=target, compiler="g++").path))
    lib.to_float.restype, lib.to_float.argtypes = ctypes.c_float, [ctypes.c_uint16]
    lib.from_float.restype, lib.from_float.argtypes = ctypes.c_uint16, [ctypes.c_float]
    assert (lib.is_uint16(), lib.is_half()) == (int(integer), int(not integer))
    # IEEE half bits (hand-encoded): 1.0 = 0x3C00, -2.0 = 0xC000, 65504 = 0x7BFF
    assert [lib.to_float(b) for b in (0x3C00, 0xC000, 0x7BFF)] == [1.0, -2.0, 65504.0]
    # 1 + 2**-11 is halfway between 1.0 and the next half: ties to even gives 0x3C00
    assert [lib.from_float(f) for f in (0.5, 1.0 + 2.0**-11, -0.0)] == [0x3800, 0x3C00, 0x8000]


_FP16_SOURCE = r"""
#include "acl/acl.h"
#include <type_traits>
extern "C" int fp16_is_half() { return std::is_same_v<__fp16, half>; }
extern "C" float fp16_sum(float a, float b) { return (float)((__fp16)a + (__fp16)b); }
"""


@pytest.mark.cxx
@pytest.mark.parametrize("compiler", ["g++", "zig"])
def test_fp16_spelling_is_half(tmp_path, monkeypatch, compiler):
    """The device compiler's ``__fp16`` (the library's trowprod main.cpp and kernel use it) is
    ptosim's half with either compiler: g++ has no such type, clang's is storage-only."""
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "fp16.cpp"
    src.write_text(_FP16_SOURCE)
    lib = ctypes.CDLL(str(B.build(src, [], target="a2a3", compiler=compiler).path))
    lib.fp16_sum.restype, lib.fp16_sum.argtypes = ctypes.c_float, [ctypes.c_float] * 2
    assert lib.fp16_is_half() == 1
    # 1 + 2**-11 rounds to 1.0 in half (ties to even): the sum is done in half, not float
    assert lib.fp16_sum(1.0, 2.0**-11) == 1.0 and lib.fp16_sum(2.0, 0.5) == 2.5
