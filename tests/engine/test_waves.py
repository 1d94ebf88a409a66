"""A launch of more blocks than the device has cores runs in waves (ptosim/engine/waves.py): the
first ``cores`` blocks start at once, each later block starts on the first core that frees up,
in block-index order. Results are exact, the trace and the summary show the waves, and the
timing follows the schedule derived here by hand from one block's cycles."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ptosim as pto

R, C = 8, 64


def _add_block_index(x, out):
    """Block b: out[b] = x[b] + b (its own 8x64 float32 slab), TLOAD -> TADDS -> TSTORE."""
    b = pto.get_block_idx()
    t = pto.Tile("Vec", "float32", R, C)
    pto.TLOAD(t, pto.GlobalTensor(x, (R, C), offset=b * R * C))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TADDS(t, t, float(b))
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, (R, C), offset=b * R * C), t)


def _device(cores: int | None = None) -> pto.Device:
    # no shared-GM model: a block then takes the same cycles whatever runs beside it, so the
    # schedule can be derived from one block's cycles
    overrides = {"timing.chip": None}
    if cores is not None:
        overrides["vector_cores"] = cores
    return pto.Device("950pr", overrides=overrides)


def _run(dev, blocks):
    x = np.arange(blocks * R * C, dtype=np.float32).reshape(blocks, R, C) / 8
    gx, out = dev.gm_array(x), dev.gm_zeros((blocks, R, C), "float32")
    run = dev.run(pto.kernel(_add_block_index), gx, out, block_dim=blocks)
    return run, x, out.numpy()


def test_ten_blocks_on_four_cores_run_in_three_waves_with_exact_results():
    one_block = _run(_device(), 1)[0].cycles  # the same work as each block below
    run, x, got = _run(_device(cores=4), 10)
    # exact: numpy's float32 sum of each slab and its block index
    want = x + np.arange(10, dtype=np.float32)[:, None, None]
    assert np.array_equal(got, want)
    waves = run.waves
    # blocks 0-3 at once; 4-7 when the first wave ends; 8, 9 when the second does
    assert [waves[b].wave for b in range(10)] == [1] * 4 + [2] * 4 + [3] * 2
    assert {waves[b].core for b in range(4, 8)} == {0, 1, 2, 3}
    # every block takes one_block cycles: wave w starts at (w - 1) * one_block, on the core of
    # the block it followed, and the run ends when the third wave does
    for b in range(4, 10):
        p = waves[b]
        assert p.start_cycle == (p.wave - 1) * one_block
        assert waves[p.after_block].core == p.core and waves[p.after_block].wave == p.wave - 1
    assert run.cycles == 3 * one_block
    # a later block's first instruction starts no earlier than its wave
    first_slice = {}
    for e in run.trace.events:
        first_slice[e.core] = min(first_slice.get(e.core, e.start), e.start)
    assert all(first_slice[b] >= waves[b].start_cycle for b in range(10))


def test_waves_show_in_the_trace_and_the_summary(tmp_path):
    run, _, _ = _run(_device(cores=4), 6)
    assert "waves: 2 on 4 cores" in run.summary()
    path = tmp_path / "t.json"
    run.write_trace(path)
    trace = json.loads(path.read_text())
    names = {
        e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"
    }
    assert names[0] == "core 0 (wave 1 on core 0) (950pr)"
    assert names[4].startswith("core 4 (wave 2 on core ")
    stalls = [e for e in trace["traceEvents"] if e.get("cat") == "stall" and e["pid"] == 5]
    assert stalls[0]["name"].startswith("stall: waiting for a free core: wave 2 on core")
    assert stalls[0]["ts"] == 0 and stalls[0]["dur"] == run.waves[5].start_cycle > 0


def test_uneven_blocks_take_the_first_core_that_frees_up():
    """Block 0 works three times as long as block 1: on two cores, block 2 takes core 1 (freed
    first), block 3 the core that frees next."""

    def body(x, out):
        b = pto.get_block_idx()
        t = pto.Tile("Vec", "float32", R, C)
        pto.TLOAD(t, pto.GlobalTensor(x, (R, C), offset=b * R * C))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        for _ in range(3 if b == 0 else 1):
            pto.TADDS(t, t, 1.0)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (R, C), offset=b * R * C), t)

    dev = _device(cores=2)
    x = np.ones((4, R, C), np.float32)
    out = dev.gm_zeros((4, R, C), "float32")
    run = dev.run(pto.kernel(body), dev.gm_array(x), out, block_dim=4)
    assert np.array_equal(out.numpy()[0], np.full((R, C), 4, np.float32))
    assert np.array_equal(out.numpy()[1:], np.full((3, R, C), 2, np.float32))
    w = run.waves
    assert (w[2].core, w[2].after_block) == (1, 1)
    assert w[3].start_cycle >= w[2].start_cycle
    # block 3 starts when the first of block 0 (long) and block 2 (short, started later) ends,
    # on that block's core
    end = {}
    for e in run.trace.events:
        end[e.core] = max(end.get(e.core, 0), e.start + e.dur)
    expect = 0 if end[0] <= end[2] else 1
    assert w[3].core == expect and w[3].start_cycle == min(end[0], end[2])


def test_a_launch_that_fits_runs_as_before():
    run, _, _ = _run(_device(cores=4), 4)
    assert run.waves == {}
    assert "waves:" not in run.summary()


def test_blocks_that_wait_on_a_later_wave_deadlock_with_one_line():
    """Every block waits for a mode-0 round of all blocks: the blocks past the cores never start,
    so the first wave waits forever (as on the hardware)."""

    def body():
        pto.ffts_cross_core_sync(pto.PIPE_S, pto.ffts_config(0, 1))
        pto.wait_flag_dev(1)

    dev = _device(cores=2)
    with pytest.raises(pto.DeadlockError, match="core 2 never started: all 2 cores stayed busy"):
        dev.run(pto.kernel(body), block_dim=3)


def test_block_dim_bound():
    dev = pto.Device("950pr")
    with pytest.raises(pto.KernelError, match=r"block_dim \(1 to 4096; blocks past the 56 cores"):
        dev.run(pto.kernel(lambda: None), block_dim=4097)
