"""The summary names the pipe that bounds the run (the one holding most of the critical path)
and says what the cycles rest on; its bandwidths are per simulated second.

The kernels are bottlenecked by construction: loads only (MTE2), a chain of exponentials on
one loaded tile (V), an A2 shift (a scalar loop on PIPE_S: the a2a3 library shifts element by
element).
"""

import re

import numpy as np
import pytest

import ptosim as pto
from ptosim.summary import bounding_pipe, critical_path


def _bound(run):
    core, pipe, share, kinds = bounding_pipe(critical_path(run))
    line = next(x for x in run.summary().splitlines() if x.startswith("bounded by"))
    assert line.startswith(f"bounded by {pipe}")
    assert f"{100 * share:.0f}% of the critical path" in line
    return pipe, share, kinds


@pytest.mark.parametrize("device", ("a2", "950pr"))
def test_a_load_only_kernel_is_bound_by_mte2(device):
    dev = pto.Device(device)
    g = dev.gm_array(np.ones((4, 64, 128), np.float32))

    @pto.kernel
    def loads(g):
        for k in range(4):
            t = pto.Tile("Vec", "float32", 64, 128)
            pto.TLOAD(t, pto.GlobalTensor(g, (1, 1, 1, 64, 128), offset=k * 64 * 128))

    pipe, share, kinds = _bound(dev.run(loads, g))
    assert (pipe, kinds) == ("PIPE_MTE2", ["TLOAD"]) and share > 0.9


@pytest.mark.parametrize("device", ("a2", "950pr"))
def test_a_chain_of_vector_ops_is_bound_by_v(device):
    dev = pto.Device(device)
    g = dev.gm_array(np.full((16, 64), 0.5, np.float32))

    @pto.kernel
    def chain(g):
        t = pto.Tile("Vec", "float32", 16, 64)
        pto.TLOAD(t, pto.GlobalTensor(g, (1, 1, 1, 16, 64)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        for _ in range(40):
            pto.TEXP(t, t)
            pto.pipe_barrier(pto.PIPE_V)

    pipe, share, kinds = _bound(dev.run(chain, g))
    assert pipe == "PIPE_V" and kinds[0] == "TEXP" and share > 0.5


def test_an_a2_shift_is_bound_by_the_scalar_pipe():
    dev = pto.Device("a2")

    @pto.kernel
    def shift():
        a, b, c = (pto.Tile("Vec", "int32", 32, 64) for _ in range(3))
        pto.TEXPANDS(a, 3)
        pto.TEXPANDS(b, 1)
        pto.pipe_barrier(pto.PIPE_V)
        pto.TSHL(c, a, b)

    pipe, share, kinds = _bound(dev.run(shift))
    assert (pipe, kinds) == ("PIPE_S", ["TSHL"]) and share > 0.9


def test_bandwidths_are_bytes_per_simulated_second_at_the_device_clock():
    """The same 32 KiB load: GB/s = bytes / (cycles / clock), whatever the device."""
    for device in ("a2", "950pr", "950dt"):
        dev = pto.Device(device)
        g = dev.gm_array(np.ones((64, 128), np.float32))

        @pto.kernel
        def load(g):
            t = pto.Tile("Vec", "float32", 64, 128)
            pto.TLOAD(t, pto.GlobalTensor(g, (1, 1, 1, 64, 128)))

        run = dev.run(load, g)
        (state,) = [s for s in run.instructions if s.instr.opcode == "TLOAD"]
        span = state.end - state.start
        line = next(x for x in run.summary().splitlines() if x.lstrip().startswith("TLOAD"))
        gbps = float(re.search(r"([0-9.]+) GB/s", line).group(1))
        assert gbps == pytest.approx(64 * 128 * 4 / (span / dev.config.timing.clock_ghz), abs=0.01)
