"""The C++ front end: run unchanged pto-isa-style C++ kernels on ptosim's devices.

    prog = pto.cxx.load("add.cpp")
    res = dev.run(prog.entry("add_kernel"), x, y, block_dim=4)

See docs/guide-cxx.md.
"""

from __future__ import annotations

from .build import INCLUDE_DIR, compiler_command
from .kernel import CxxKernel, CxxProgram, load

__all__ = ["INCLUDE_DIR", "CxxKernel", "CxxProgram", "compiler_command", "load"]
