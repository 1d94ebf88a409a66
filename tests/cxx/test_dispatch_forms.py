"""Front-end decisions that need no C++ build: the packed 4-bit element types stop with a line
naming the type, and on cpu an FP form (TEXTRACT_FP / TINSERT_FP) of a pair the CPU simulator
does not quantise is the plain copy (cpu/common.hpp's vector pre-quant pairs)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import ptosim as pto
from ptosim import dtypes
from ptosim.cxx.dispatch import Dispatcher


@pytest.mark.parametrize(
    "name, want", [("float4_e2m1x2", "float4_e2m1"), ("float4_e1m2x2", "float4_e1m2"),
                   ("int4b_t", "int4")],
)  # fmt: skip
def test_packed_4bit_types_resolve_by_the_shims_names(name, want):
    dt = dtypes.dtype(name)  # the shim's name of the C++ type (describe.hpp dtype_name)
    assert dt.name == want and dt.packed and dt.bits == 4
    assert not dtypes.dtype("float8_e4m3").packed  # an 8-bit type is not a packed one


def _dispatcher(device: str) -> Dispatcher:
    arch = pto.Device(device).arch
    d = Dispatcher.__new__(Dispatcher)
    d.recorder = SimpleNamespace(program=SimpleNamespace(arch=arch))
    return d


def _tile(dt: str):
    return SimpleNamespace(geom=SimpleNamespace(dtype=SimpleNamespace(name=dt)))


@pytest.mark.parametrize(
    "src, dst, copy",
    [("float32", "float32", True), ("int32", "float32", True), ("half", "half", True),
     ("float32", "int8", False), ("int32", "half", False), ("int32", "int16", False)],
)  # fmt: skip
def test_cpu_fp_forms_copy_unquantised_pairs(src, dst, copy):
    ops = [_tile(dst), _tile(src), _tile("float32"), 0, 0]
    assert _dispatcher("cpu").fp_form_is_copy({"relu": "NoRelu"}, ops) is copy
    assert _dispatcher("cpu").fp_form_is_copy({"relu": "NormalRelu"}, ops) is False
    assert _dispatcher("a2").fp_form_is_copy({"relu": "NoRelu"}, ops) is False
