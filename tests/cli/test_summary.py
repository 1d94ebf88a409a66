"""The run summary scales with kernel length, and its critical path is a real chain."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import ptosim as pto
from ptosim.summary import critical_path
from tests.helpers.paths import ROOT


def _pingpong(tiles: int, device: str):
    spec = importlib.util.spec_from_file_location("pp", ROOT / "examples/pingpong_row_scale.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.TILES = tiles
    dev = pto.Device(device)
    args = mod.inputs(dev)
    return dev.run(mod.pingpong_row_scale, *args)


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_the_critical_path_is_a_backward_chain_from_the_end_to_cycle_zero(device):
    run = _pingpong(4, device)
    path = critical_path(run)
    assert path[0].end == run.cycles
    assert path[-1].start == 0
    for later, earlier in zip(path, path[1:]):
        assert earlier.end <= later.start or earlier.start <= later.start
        assert earlier.start <= later.start
    # the loads and stores dominate this loop, and the path crosses pipes through real waits
    pipes = {seg.pipe for seg in path}
    assert {"PIPE_MTE2", "PIPE_MTE3"} <= pipes
    assert any("wait_flag" in seg.via for seg in path)


def test_the_summary_does_not_grow_with_the_iteration_count():
    short, long = _pingpong(4, "a2"), _pingpong(16, "a2")
    assert len(long.summary().splitlines()) == len(short.summary().splitlines())
    per_short = len(short.summary(per_instruction=True).splitlines())
    per_long = len(long.summary(per_instruction=True).splitlines())
    assert per_long - per_short == 12 * 12  # 12 more iterations of 12 instructions each
    assert "x16" in long.summary()  # TROWEXPANDMUL counted per kind


def test_the_critical_path_follows_the_slow_pipe():
    """A long vector op between short copies: the path is mostly PIPE_V."""
    dev = pto.Device("a2")
    x = dev.gm_array(np.ones((64, 256), np.float32))
    s = dev.gm_array(np.ones(64, np.float32))
    out = dev.gm_zeros((64, 256), "float32")

    @pto.kernel
    def k(x, s, out):
        xt = pto.Tile("Vec", "float32", 64, 256)
        st = pto.Tile("Vec", "float32", 64, 1, blayout="ColMajor")
        yt = pto.Tile("Vec", "float32", 64, 256)
        pto.TLOAD(st, pto.GlobalTensor(s, shape=(1, 1, 1, 64, 1), layout="DN"))
        pto.TLOAD(xt, pto.GlobalTensor(x, shape=(1, 1, 1, 64, 256)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        for _ in range(8):
            pto.TROWEXPANDMUL(yt, xt, st)
            pto.pipe_barrier(pto.PIPE_V)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, 64, 256)), yt)

    run = dev.run(k, x, s, out)
    path = critical_path(run)
    on_v = sum(seg.end - seg.start for seg in path if seg.pipe == "PIPE_V")
    assert on_v > 0.3 * run.cycles
    assert on_v == max(
        sum(seg.end - seg.start for seg in path if seg.pipe == p) for p in {s.pipe for s in path}
    )


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_progress_reports_every_phase(device):
    class Recorder:
        def __init__(self):
            self.phases, self.counts = [], []

        def phase(self, name):
            self.phases.append(name)

        def __call__(self, done, total):
            self.counts.append((done, total))

    rec = Recorder()
    dev = pto.Device(device)
    x = dev.gm_array(np.ones((16, 16), np.float32))
    y = dev.gm_zeros((16, 16), "float32")

    @pto.kernel
    def k(x, y):
        t = pto.Tile("Vec", "float32", 16, 16)
        pto.TLOAD(t, pto.GlobalTensor(x, shape=(1, 1, 1, 16, 16)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(y, shape=(1, 1, 1, 16, 16)), t)

    dev.run(k, x, y, block_dim=2, progress=rec)
    assert rec.phases[:2] == ["recording block 1/2", "recording block 2/2"]
    assert rec.phases[-1] == "analysing"
    if device != "cpu":
        assert "simulating" in rec.phases
    assert rec.counts  # the simulation (or the program-order run) reported counts


def test_progress_of_a_block_that_reads_values_has_no_total():
    """A block that reads values runs as a session: its length is unknown up front, so the
    progress callable gets total None (and the CLI prints a count, not 'n/0')."""
    counts = []
    dev = pto.Device("a2")
    x = dev.gm_array(np.arange(8, dtype=np.int32))

    @pto.kernel
    def k(x):
        t = pto.Tile("Vec", "int32", 1, 8)
        pto.TLOAD(t, pto.GlobalTensor(x, shape=(1, 1, 1, 1, 8)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_S, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_S, pto.EVENT_ID0)
        t.GetValue(3)

    dev.run(k, x, progress=lambda done, total: counts.append((done, total)))
    assert counts and all(total is None for _, total in counts)
