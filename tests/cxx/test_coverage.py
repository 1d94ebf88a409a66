"""Every instruction ptosim implements is called from at least one C++ test kernel, and every
C++ test kernel file is run by a test module (each compares its entries with Python twins or
with numpy). Fails when an instruction is registered without a C++ twin test."""

from __future__ import annotations

import re

from ptosim.cxx.dispatch import NOT_CXX
from ptosim.isa import registry
from tests.helpers.paths import ROOT

KERNELS = sorted((ROOT / "tests" / "cxx").rglob("*.cpp"))


def test_every_implemented_instruction_is_called_from_a_cxx_test_kernel():
    text = "\n".join(p.read_text() for p in KERNELS)
    missing = [
        s.name
        for s in registry.specs()
        if s.name not in NOT_CXX and not re.search(rf"\b{s.name}\b", text)
    ]
    assert not missing, f"no C++ test kernel calls {missing}"


def test_every_cxx_test_kernel_file_is_used_by_a_test():
    tests = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    unused = [
        p.relative_to(ROOT).as_posix()
        for p in KERNELS
        if p.parent.name == "cxx" and f'"{p.name}"' not in tests
    ]
    assert not unused, unused
