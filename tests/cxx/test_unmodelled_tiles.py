"""A kernel that uses a cube form ptosim does not model (the quantisation parameters staged in
a Scaling tile for the fixpipe) stops at the first instruction that touches it, naming the
instruction, the form and the line, not with a message about tile kinds."""

import numpy as np
import pytest

import ptosim as pto

SRC = """\
#include <pto/pto-inst.hpp>
using namespace pto;

extern "C" __global__ AICORE void k(__gm__ float *x)
{
    Tile<TileType::Mat, uint64_t, 1, 64> m;
    Tile<TileType::Scaling, uint64_t, 1, 64> b;
    TASSIGN(m, 0x0);
    TASSIGN(b, 0x0);
    TMOV(b, m);
}
"""


def test_a_scaling_tile_stops_at_the_instruction_that_uses_it(tmp_path):
    src = tmp_path / "bias.cpp"
    src.write_text(SRC)
    kernel = pto.cxx.load(src).entry("k")
    dev = pto.Device("a2")
    kernel = pto.cxx.load(src, cores="cube").entry("k")
    with pytest.raises(pto.UnsupportedError) as err:
        dev.run(kernel, dev.gm_array(np.zeros(64, np.float32)))
    text = str(err.value)
    assert text.startswith("[PTO102] TMOV #") and "bias.cpp:10" in text
    assert "Mat -> Scaling" in text and "not modelled yet" in text
