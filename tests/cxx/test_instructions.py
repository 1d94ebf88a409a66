"""Every elementwise instruction (tile-tile, unary, tile-scalar) called from C++ in its plain
form (tests/cxx/instructions.cpp) gives the bits, cycles and findings of the same instruction
issued from Python, in float and half, on every target family."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "instructions.cpp"
R, C = 16, 32
BINARY = ["TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN"]
UNARY = ["TEXP", "TLOG", "TSQRT", "TRSQRT", "TRECIP", "TABS", "TNEG", "TRELU"]
SCALAR = ["TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS"]
TYPES = {"f32": ("float32", np.float32), "f16": ("half", np.float16)}
ENTRIES = [f"{op}_{t}" for t in TYPES for op in BINARY + UNARY + SCALAR]


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def python_twin(op: str, dtype: str):
    """The same kernel written in Python (the same addresses, flags and operands)."""

    @pto.kernel
    def k(out, a, b):
        shape = (1, 1, 1, R, C)
        ta, tb, tc = (pto.Tile("Vec", dtype, R, C) for _ in range(3))
        pto.TASSIGN(ta, 0x0)
        pto.TASSIGN(tb, 0x1000)
        pto.TASSIGN(tc, 0x2000)
        pto.TLOAD(ta, pto.GlobalTensor(a, shape))
        pto.TLOAD(tb, pto.GlobalTensor(b, shape))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        fn = getattr(pto, op)
        if op in BINARY:
            fn(tc, ta, tb)
        elif op in UNARY:
            fn(tc, ta)
        else:
            fn(tc, ta, 1.5)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, shape), tc)

    return k


def inputs(np_t):
    def make(dev):
        rng = np.random.default_rng(7)
        # positive, away from zero: every unary (log, sqrt, rsqrt, recip) is defined
        a = rng.uniform(0.25, 4.0, (R, C)).astype(np_t)
        b = rng.uniform(0.25, 4.0, (R, C)).astype(np_t)
        return [dev.gm_zeros((R, C), np.dtype(np_t).name), dev.gm_array(a), dev.gm_array(b)]

    return make


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("entry", ENTRIES)
def test_cxx_instruction_matches_python(prog, assert_twins, entry, device):
    op, t = entry.rsplit("_", 1)
    dtype, np_t = TYPES[t]
    res = assert_twins(prog.entry(entry), python_twin(op, dtype), device, inputs(np_t), [op])
    assert len([i for i in res.blocks[0].program if i.opcode == op]) == 1
