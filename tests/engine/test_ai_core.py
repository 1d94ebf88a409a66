"""The AI core: a launch of a cube or mixed kernel runs one AIC (and AIV0, AIV1) per block, each
core with its own buffers; FFTS mode 2 links the cube core and the vector cores of one AI core
(a cube post reaches both vector cores, a cube wait needs both); cpu gives the same verdicts."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ptosim as pto
from ptosim.cores import Topology, launch_roles

N = 64  # float32 elements per row: 256 bytes


def _where_kernel(out):
    """Each core writes (block, is_cube, subblock, subblockdim, block_num) into its own row."""
    row = 3 * pto.get_block_idx() + (0 if pto.is_cube() else 1 + pto.get_subblockid())
    facts = (pto.get_block_idx(), pto.is_cube(), pto.get_subblockid(), pto.get_subblockdim(),
             pto.get_block_num(), pto.is_vec())  # fmt: skip
    gm = pto.GlobalTensor(out, (1, 8), offset=row * 8)
    if pto.is_cube():
        t = pto.Tile("Mat", "float32", 1, 8)
    else:
        t = pto.Tile("Vec", "float32", 1, 8)
    # the facts reach GM through the core's own buffer (L1 on the cube core, UB on a vector core)
    src = pto.GlobalTensor(out, (1, 8), offset=(row + 24) * 8)
    pto.TLOAD(t, src)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(gm, t)
    return facts


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_mixed_kernel_runs_on_the_cube_core_and_both_vector_cores_of_each_block(device):
    dev = pto.Device(device)
    seen = []

    @pto.kernel(cores="mix")
    def k(out):
        seen.append(_where_kernel(out))

    host = np.zeros((48, 8), np.float32)
    host[24:] = np.arange(24 * 8, dtype=np.float32).reshape(24, 8)  # row r + 24 holds r's tag
    out = dev.gm_array(host)
    run = dev.run(k, out, block_dim=2)
    # block, is_cube, subblock, subblockdim, block_num, is_vec: AIC, AIV0, AIV1 per block
    assert seen == [
        (0, True, 0, 1, 2, False), (0, False, 0, 2, 2, True), (0, False, 1, 2, 2, True),
        (1, True, 0, 1, 2, False), (1, False, 0, 2, 2, True), (1, False, 1, 2, 2, True),
    ]  # fmt: skip
    assert [b.role.label for b in run.blocks] == [
        "block 0 AIC", "block 0 AIV0", "block 0 AIV1", "block 1 AIC", "block 1 AIV0",
        "block 1 AIV1",
    ]  # fmt: skip
    # each core moved its own row through its own buffer: L1 on the AIC, UB on an AIV
    assert np.array_equal(out.numpy()[:6], host[24:30])
    cube, vec = {"L1", "L0A", "L0B", "L0C", "BT", "FB"}, {"UB"}
    if device == "cpu":  # the CPU simulator's tiles are host memory: every core has them all
        cube = vec = cube | vec
    assert set(run.blocks[0].buffers) == cube
    assert set(run.blocks[1].buffers) == vec
    assert not run.findings


def test_the_buffers_have_the_config_sizes_and_block_dim_counts_ai_cores():
    dev = pto.Device("a2")
    arch = dev.arch_of("aic", "mix")
    sizes = dict(arch.buffers)
    # reference/cube_isa.md 1.2 (buffer_limits.hpp): a2a3 L1 512 KiB, L0A/L0B 64 KiB, L0C 128
    # KiB, bias table 1 KiB, fixpipe buffer 2 KiB
    assert sizes == {"L1": 512 * 1024, "L0A": 64 * 1024, "L0B": 64 * 1024, "L0C": 128 * 1024,
                     "BT": 1024, "FB": 2048}  # fmt: skip
    assert dict(pto.Device("950pr").arch_of("aic", "cube").buffers)["L0C"] == 256 * 1024

    @pto.kernel(cores="cube")
    def k(out):
        pass

    # block_dim counts AI cores: the 25th block of a cube launch waits for a free AI core
    assert dev.run(k, dev.gm_zeros((1,), "float32"), block_dim=24).waves == {}
    run = dev.run(k, dev.gm_zeros((1,), "float32"), block_dim=25)
    assert len(run.blocks) == 25 and run.waves[24].wave == 2


def test_a_tile_of_another_cores_buffer_is_an_error_at_its_line():
    dev = pto.Device("a2")

    @pto.kernel(cores="mix")
    def k(out):
        if pto.is_cube():
            t = pto.Tile("Vec", "float32", 1, 8)  # UB belongs to the vector cores
            pto.TLOAD(t, pto.GlobalTensor(out, (1, 8)))

    with pytest.raises(pto.ConstraintError) as err:
        dev.run(k, dev.gm_zeros((1, 8), "float32"))
    e = err.value
    assert e.rule == "core-buffer" and e.instruction == "TLOAD"
    assert e.source is not None and e.source.startswith("test_ai_core.py:")
    assert "block 0 AIC" in str(e) and "TileType::Vec (UB" in str(e)

    @pto.kernel(cores="vec")
    def v(out):
        t = pto.Tile("Acc", "float32", 16, 16)  # L0C belongs to the cube core
        pto.TASSIGN(t, 0)

    with pytest.raises(pto.ConstraintError, match="core-buffer"):
        dev.run(v, dev.gm_zeros((1, 8), "float32"))


def test_a_kernel_that_does_not_say_runs_on_the_cube_core_when_it_uses_a_cube_buffer():
    dev = pto.Device("a2")

    @pto.kernel
    def k(out):
        t = pto.Tile("Acc", "float32", 16, 16)
        pto.TASSIGN(t, 0)

    run = dev.run(k, dev.gm_zeros((1, 8), "float32"), block_dim=2)
    assert [b.role.label for b in run.blocks] == ["block 0 AIC", "block 1 AIC"]

    @pto.kernel
    def v(out):
        t = pto.Tile("Vec", "float32", 1, 8)
        pto.TLOAD(t, pto.GlobalTensor(out, (1, 8)))

    assert [b.role.label for b in dev.run(v, dev.gm_zeros((1, 8), "float32")).blocks] == ["core 0"]


def test_the_cores_option_is_checked():
    with pytest.raises(pto.KernelError, match="'vec', 'cube', 'mix'"):
        pto.kernel(cores="cuda")


# -- FFTS mode 2 ----------------------------------------------------------------------------------
def test_mode_2_rounds_follow_the_ai_core():
    """Mode 2: a cube post is a round of one poster for both vector cores; a vector post joins
    the round of both vector cores, received by the cube core (reference/cube_isa.md 1.4)."""
    topo = Topology(launch_roles("mix", 2))
    aic, aiv0, aiv1 = 3, 4, 5  # block 1
    assert topo.round_of(aic, 2) == ((aic,), (aiv0, aiv1))
    assert topo.round_of(aiv0, 2) == ((aiv0, aiv1), (aic,))
    assert topo.round_of(aiv1, 2) == ((aiv0, aiv1), (aic,))
    assert topo.round_of(aiv1, 1) == ((aiv0, aiv1), (aiv0, aiv1))
    assert topo.round_of(aiv0, 0) == ((1, 2, 4, 5), (1, 2, 4, 5))  # every vector core
    assert topo.round_of(aic, 0) == ((0, 3), (0, 3))  # every cube core


def _c2v_kernel(vec_posts=(0, 1), cube_waits=True, cube_stores=True):
    """The cube core stores a row to GM and posts flag 3 (mode 2); each vector core waits for
    it, loads the row, adds nothing and stores it to its own row, then posts flag 4 (mode 2) if
    its subblock is in ``vec_posts``; the cube core waits for flag 4 (``cube_waits``)."""

    @pto.kernel(cores="mix")
    def k(src, out):
        if pto.is_cube():
            m = pto.Tile("Mat", "float32", 1, N)
            pto.TLOAD(m, pto.GlobalTensor(src, (1, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            if cube_stores:
                pto.TSTORE(pto.GlobalTensor(out, (1, N)), m)
            pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(2, 3))
            if cube_waits:
                pto.wait_flag_dev(4)
        else:
            sub = pto.get_subblockid()
            pto.wait_flag_dev(3)
            t = pto.Tile("Vec", "float32", 1, N)
            pto.TLOAD(t, pto.GlobalTensor(out, (1, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.TSTORE(pto.GlobalTensor(out, (1, N), offset=(1 + sub) * N), t)
            if sub in vec_posts:
                pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(2, 4))

    return k


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
def test_a_cube_post_in_mode_2_reaches_both_vector_cores(device):
    dev = pto.Device(device)
    host = np.arange(N, dtype=np.float32) + 1
    src, out = dev.gm_array(host), dev.gm_zeros((3, N), "float32")
    run = dev.run(_c2v_kernel(), src, out)
    assert np.array_equal(out.numpy(), np.tile(host, (3, 1)))  # both AIVs read the cube's row
    assert not run.findings, run.findings


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_cube_wait_in_mode_2_needs_both_vector_cores(device):
    """AIV1 never posts flag 4: the cube core's wait never returns. a2 deadlocks naming the
    missing poster; cpu reports the same hang from the kernel's structure."""
    dev = pto.Device(device)
    src, out = dev.gm_zeros((1, N), "float32"), dev.gm_zeros((3, N), "float32")
    with pytest.raises(pto.DeadlockError) as err:
        dev.run(_c2v_kernel(vec_posts=(0,)), src, out)
    text = str(err.value)
    assert "wait_flag_dev" in text.lower() and "block 0 AIV1" in text, text
    if device == "a2":
        assert "block 0 AIC PIPE_S blocked in wait_flag_dev(flag 4)" in text, text


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_vector_core_reading_the_cubes_store_without_the_flag_is_a_cross_core_race(device):
    """Without the mode-2 chain, the vector cores' loads and the cube core's store of the same
    GM row are unordered: F205, on every target alike."""

    @pto.kernel(cores="mix")
    def k(src, out):
        if pto.is_cube():
            m = pto.Tile("Mat", "float32", 1, N)
            pto.TLOAD(m, pto.GlobalTensor(src, (1, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.TSTORE(pto.GlobalTensor(out, (1, N)), m)
        else:
            t = pto.Tile("Vec", "float32", 1, N)
            pto.TLOAD(t, pto.GlobalTensor(out, (1, N)))

    dev = pto.Device(device)
    run = dev.run(k, dev.gm_zeros((1, N), "float32"), dev.gm_zeros((1, N), "float32"))
    races = [f for f in run.findings if f.code == "F205"]
    assert len(races) == 2, run.findings  # the cube's store against each vector core's load
    assert all("block 0 AIC" in f.message for f in races)
    assert {("block 0 AIV0" in f.message, "block 0 AIV1" in f.message) for f in races} == {
        (True, False),
        (False, True),
    }


def test_mode_2_needs_a_mixed_kernel_and_mode_1_a_vector_core():
    dev = pto.Device("a2")

    @pto.kernel(cores="cube")
    def k(out):
        pto.ffts_cross_core_sync(pto.PIPE_FIX, pto.ffts_config(2, 1))

    with pytest.raises(pto.ConstraintError, match="cores='mix'"):
        dev.run(k, dev.gm_zeros((1,), "float32"))

    @pto.kernel(cores="mix")
    def m(out):
        if pto.is_cube():
            pto.ffts_cross_core_sync(pto.PIPE_FIX, pto.ffts_config(1, 1))

    with pytest.raises(pto.ConstraintError, match="mode 1 on the cube core"):
        dev.run(m, dev.gm_zeros((1,), "float32"))


def test_the_trace_has_one_process_per_core_and_one_thread_per_pipe(tmp_path):
    dev = pto.Device("a2")
    host = np.arange(N, dtype=np.float32)
    run = dev.run(_c2v_kernel(), dev.gm_array(host), dev.gm_zeros((3, N), "float32"))
    path = tmp_path / "t.json"
    run.write_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    assert [names[p] for p in sorted(names)[:3]] == [
        "block 0 AIC (a2)", "block 0 AIV0 (a2)", "block 0 AIV1 (a2)"
    ]  # fmt: skip
    threads = {(e["pid"], e["args"]["name"]) for e in events if e.get("name") == "thread_name"}
    assert (0, "PIPE_MTE2") in threads and (0, "PIPE_MTE3") in threads and (1, "PIPE_V") in threads
    # the cube's mode-2 post releases both vector cores: a flow into each
    flows = [e for e in events if e.get("ph") == "f" and e.get("cat") == "flag"]
    assert {e["pid"] for e in flows if "flag" in e["name"]} >= {1, 2}
