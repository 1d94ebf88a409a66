"""A kernel that uses a cube buffer ptosim does not model (a Bias tile on the way to TMATMUL)
stops at the first instruction that touches it, naming the instruction and the line, not with
a message about tile kinds."""

import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import CxxError

SRC = """\
#include <pto/pto-inst.hpp>
using namespace pto;

extern "C" __global__ AICORE void k(__gm__ float *x)
{
    Tile<TileType::Mat, float, 1, 64> m;
    Tile<TileType::Bias, float, 1, 64> b;
    TASSIGN(m, 0x0);
    TASSIGN(b, 0x0);
    TMOV(b, m);
}
"""


def test_a_bias_tile_stops_at_the_instruction_that_uses_it(tmp_path):
    src = tmp_path / "bias.cpp"
    src.write_text(SRC)
    kernel = pto.cxx.load(src).entry("k")
    dev = pto.Device("a2")
    with pytest.raises(CxxError) as err:
        dev.run(kernel, dev.gm_array(np.zeros(64, np.float32)))
    assert str(err.value).startswith(
        "[PTO103] bias.cpp:10: TMOV on a Bias tile is not implemented by ptosim"
    )
