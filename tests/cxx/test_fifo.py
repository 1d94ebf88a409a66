"""TPipe, TPUSH, TPOP, TALLOC, TFREE through the C++ front end (tests/cxx/fifo.cpp, a mixed
kernel): both directions, tile and GlobalTensor forms, exact (out == X, computed here) and
finding-free on a2, a3 and cpu; the same instructions as the Python protocol records."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import ROOT

CPP = ROOT / "tests" / "cxx" / "fifo.cpp"
M, N = 16, 32


@pytest.fixture(scope="module")
def prog():
    mod = pytest.importorskip("ptosim.cxx")
    return mod.load(str(CPP), cores="mix")


@pytest.mark.cxx
@pytest.mark.parametrize("devname", ("a2", "a3", "cpu"))
def test_a_relay_through_two_pipes_is_exact(prog, devname):
    x = np.random.default_rng(7).integers(-8, 8, (M, N)).astype(np.float16)
    dev = pto.Device(devname)
    out = dev.gm_zeros((M, N), "float32")
    run = dev.run(
        prog.entry("relay"), dev.gm_array(x), dev.gm_array(np.eye(N, dtype=np.float16)), out,
        dev.gm_zeros((2 * M * N,), "float16"), dev.gm_zeros((2 * M * N,), "float32"),
    )  # fmt: skip
    assert run.findings == [], [str(f) for f in run.findings]
    assert np.array_equal(out.numpy(), x.astype(np.float32))
    # one tile through 2-slot pipes (period 2): no TALLOC credit wait, no TFREE post, no
    # destructor drain; the flags are the pushes' and pops'
    vias = {i.via for b in run.blocks for i in b.program if i.via}
    assert vias == {"TPUSH", "TPOP"}
    for b in run.blocks:
        assert all(i.source.startswith("fifo.cpp:") for i in b.program)


@pytest.mark.cxx
def test_a_pipe_rule_stops_at_the_cxx_line(prog):
    """On 950 a DIR_V2C pipe is on chip: its GlobalTensor form stops, the coded error naming
    fifo.cpp."""
    dev = pto.Device("950pr")
    with pytest.raises(pto.ConstraintError) as err:
        dev.run(
            prog.entry("relay"), dev.gm_zeros((M, N), "float16"), dev.gm_zeros((N, N), "float16"),
            dev.gm_zeros((M, N), "float32"), dev.gm_zeros((2 * M * N,), "float16"),
            dev.gm_zeros((2 * M * N,), "float32"),
        )  # fmt: skip
    assert "fifo.cpp:" in str(err.value) and err.value.rule == "fifo-form"
