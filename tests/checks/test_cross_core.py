"""Cross-core synchronisation: FFTS flags (ffts_cross_core_sync / wait_flag_dev) and SyncAll
order GM accesses of different cores, in the engine and in the happens-before analysis; a
missing flag is an F205 naming both cores; a wait no round will complete is a deadlock naming
the cores."""

import numpy as np
import pytest

import ptosim as pto

N = 64  # float32 elements one block writes


def _relay_kernel(sync: str):
    """Block 0 writes ``mid``; block 1 reads it back and writes ``out`` (a producer and a
    consumer of one GM buffer). ``sync``: "pair" (mode-1 flags), "all" (SyncAll), "early"
    (mode-1 flags before the producer's store), "none"."""

    @pto.kernel
    def relay(src, mid, out):
        t = pto.Tile("Vec", "float32", 1, N)
        b = pto.get_block_idx()
        if sync == "early":  # the flags sit before the producer's store: they order nothing
            pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(1, 3))
            pto.wait_flag_dev(3)
        if b == 0:
            pto.TLOAD(t, pto.GlobalTensor(src, (1, N)))
            pto.set_flag("MTE2", "MTE3", 0)
            pto.wait_flag("MTE2", "MTE3", 0)
            pto.TSTORE(pto.GlobalTensor(mid, (1, N)), t)
        if sync == "pair":
            pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(1, 3))
            pto.wait_flag_dev(3)
        elif sync == "all":
            pto.SyncAll()
        if b == 1:
            pto.TLOAD(t, pto.GlobalTensor(mid, (1, N)))
            pto.set_flag("MTE2", "MTE3", 0)
            pto.wait_flag("MTE2", "MTE3", 0)
            pto.TSTORE(pto.GlobalTensor(out, (1, N)), t)

    return relay


def _run(device: str, sync: str, block_dim: int = 2):
    dev = pto.Device(device)
    host = np.arange(N, dtype=np.float32).reshape(1, N) + 1
    src, mid = dev.gm_array(host), dev.gm_zeros((1, N), "float32")
    out = dev.gm_zeros((1, N), "float32")
    run = dev.run(_relay_kernel(sync), src, mid, out, block_dim=block_dim)
    return run, host, out.numpy()


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("sync", ["pair", "all"])
def test_cross_core_flags_order_gm_accesses(device, sync):
    run, host, out = _run(device, sync)
    assert not [f for f in run.findings if f.code == "F205"], run.findings
    assert np.array_equal(out, host)  # block 1 read what block 0 stored
    if device != "cpu":
        store = next(s for s in run.instructions if s.instr.opcode == "TSTORE")
        loads = [s for s in run.instructions if s.instr.opcode == "TLOAD"]
        assert loads[-1].start >= store.end  # the consumer's load waits for the store


@pytest.mark.parametrize("device", ["cpu", "a2"])
@pytest.mark.parametrize("sync", ["none", "early"])
def test_missing_cross_core_flag_is_a_cross_core_race_naming_both_cores(device, sync):
    run, _, _ = _run(device, sync)
    f205 = [f for f in run.findings if f.code == "F205"]
    assert len(f205) == 1
    assert "core 0" in f205[0].message and "core 1" in f205[0].message
    if device == "a2":  # unsynchronised, the consumer loads before the producer stored
        store = next(s for s in run.instructions if s.instr.opcode == "TSTORE")
        loads = [s for s in run.instructions if s.instr.opcode == "TLOAD"]
        assert loads[-1].start < store.end


def test_sync_all_orders_every_core_after_the_slowest():
    """Four blocks: block 0 stores late; after SyncAll every block reads block 0's data."""

    @pto.kernel
    def k(src, mid, out):
        t = pto.Tile("Vec", "float32", 1, N)
        b = pto.get_block_idx()
        if b == 0:
            big = pto.Tile("Vec", "float32", 64, 128)
            pto.TLOAD(big, pto.GlobalTensor(src, (64, 128)))  # a long load first
            pto.TLOAD(t, pto.GlobalTensor(src, (1, N)))
            pto.set_flag("MTE2", "MTE3", 0)
            pto.wait_flag("MTE2", "MTE3", 0)
            pto.TSTORE(pto.GlobalTensor(mid, (1, N)), t)
        pto.SyncAll()
        pto.TLOAD(t, pto.GlobalTensor(mid, (1, N)))
        pto.set_flag("MTE2", "MTE3", 0)
        pto.wait_flag("MTE2", "MTE3", 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, N), offset=b * N), t)

    dev = pto.Device("a2")
    host = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    src, mid = dev.gm_array(host), dev.gm_zeros((1, N), "float32")
    out = dev.gm_zeros((4, N), "float32")
    run = dev.run(k, src, mid, out, block_dim=4)
    assert not [f for f in run.findings if f.code == "F205"], run.findings
    assert np.array_equal(out.numpy(), np.tile(host[0, :N], (4, 1)))


def test_cross_core_wait_without_set_is_a_deadlock_naming_the_cores():
    @pto.kernel
    def k(src):
        if pto.get_block_idx() == 1:
            pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(1, 2))
        pto.wait_flag_dev(2)

    dev = pto.Device("a2")
    src = dev.gm_zeros((1, N), "float32")
    with pytest.raises(pto.DeadlockError) as err:
        dev.run(k, src, block_dim=2)
    text = str(err.value)
    assert "core 0 PIPE_S blocked in wait_flag_dev(flag 2)" in text
    assert "core 1 PIPE_S blocked in wait_flag_dev(flag 2)" in text
    assert "lacks ffts_cross_core_sync(flag 2) from core(s) 0" in text


def test_ffts_config_is_validated():
    @pto.kernel
    def k(src):
        pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(2, 1))

    dev = pto.Device("a2")
    with pytest.raises(pto.PtoSimError, match="ffts-mode"):
        dev.run(k, dev.gm_zeros((1, N), "float32"))


def _cross_set_only_kernel(mode: int, waiting: tuple[int, ...] = ()):
    """Every block posts FFTS flag 5 (``mode``); only the blocks in ``waiting`` wait for it."""

    @pto.kernel
    def k(src):
        pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(mode, 5))
        if pto.get_block_idx() in waiting:
            pto.wait_flag_dev(5)

    return k


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("mode", [0, 1])
def test_a_cross_core_flag_nobody_waits_on_is_an_unconsumed_flag(device, mode):
    dev = pto.Device(device)
    run = dev.run(_cross_set_only_kernel(mode, waiting=(0,)), dev.gm_zeros((1, N), "float32"),
                  block_dim=2)  # fmt: skip
    found = [f for f in run.findings if f.kind == "cross-flag-unconsumed"]
    assert [f.code for f in found] == ["F201"]  # core 0 waited; core 1's round is left
    f = found[0]
    assert "core 1" in f.message and "wait_flag_dev(5)" in f.message, f.message
    prog = run.blocks[1].program
    sync = next(i for i in prog if i.opcode == "FFTS_CROSS_CORE_SYNC")
    assert f.instructions == (sync.position,)
    (edit,) = f.fix  # the drain: wait_flag_dev(5) at the end of block 1's kernel
    assert (edit.action, edit.op, edit.where, edit.anchor) == ("insert", "wait_flag_dev", "after",
                                                               len(prog) - 1)  # fmt: skip
    assert edit.event_id == 5 and "wait_flag_dev(5)" in edit.describe()


def test_the_suggested_cross_core_drain_removes_the_finding():
    from ptosim.checks.fixes import apply_fixes

    dev = pto.Device("a2")
    src = dev.gm_zeros((1, N), "float32")
    run = dev.run(_cross_set_only_kernel(0), src, block_dim=2)
    found = [f for f in run.findings if f.kind == "cross-flag-unconsumed"]
    assert len(found) == 2  # one per core: a mode-0 round counts on every core of the launch
    fixed = [apply_fixes(b.program, [f for f in found if f"core {n}:" in f.message])
             for n, b in enumerate(run.blocks)]  # fmt: skip
    assert [i.opcode for i in fixed[1]][-1] == "WAIT_FLAG_DEV"
    again = dev.run(_cross_set_only_kernel(0, waiting=(0, 1)), src, block_dim=2)
    assert not again.findings
    for sync in ("pair", "all"):  # the consumed rounds of the relay kernels: no finding
        assert not [f for f in _run("a2", sync)[0].findings if f.code == "F201"]


def test_an_incomplete_cross_core_round_is_reported():
    """Mode 1 pairs blocks 0 and 1; a launch of one block leaves the round without its second
    post: nothing can ever consume it."""
    dev = pto.Device("a2")
    run = dev.run(_cross_set_only_kernel(1), dev.gm_zeros((1, N), "float32"))
    (f,) = [f for f in run.findings if f.kind == "cross-flag-unconsumed"]
    assert "never completed" in f.message and "core(s) 1" in f.message, f.message


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_a_cross_core_release_is_a_flow_from_the_posting_core_and_on_the_critical_path(device):
    """Block 1 waits (wait_flag_dev) for the round block 0's post completes: the trace has a flow
    arrow from block 0's ffts_cross_core_sync to block 1's wait, and the critical path of the
    run walks from block 1's consumer back through that hand-off into block 0's store."""
    from ptosim.summary import critical_path
    from ptosim.trace_io import chrome_trace

    run, _, _ = _run(device, "pair")
    cross = [f for f in run.trace.flows if f.set_core >= 0]
    waits = {
        (i.position, b)
        for b, blk in enumerate(run.blocks)
        for i in blk.program
        if i.opcode == "WAIT_FLAG_DEV"
    }
    assert {(f.wait_instr, f.core) for f in cross} == waits  # one release per wait
    (late,) = [f for f in cross if f.core == 1 and f.set_core == 0]
    assert late.set_time <= late.wait_time
    events = chrome_trace(run)["traceEvents"]
    arrows = [e for e in events if e.get("cat") == "flag" and "ffts_cross_core_sync" in e["name"]]
    starts = [e for e in arrows if e["ph"] == "s" and e["pid"] == 0]
    ends = [e for e in arrows if e["ph"] == "f" and e["pid"] == 1]
    assert {e["id"] for e in starts} & {e["id"] for e in ends}
    path = critical_path(run)
    assert path[0].core == 1 and any(seg.core == 0 for seg in path), path
    for seg in path:  # each segment named from its own core's program
        if seg.instr >= 0:
            assert seg.label == run.blocks[seg.core].program.instructions[seg.instr].label


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
def test_plain_mscatters_of_two_cores_into_one_table_are_a_race(device):
    """An MSCATTER without an atomic op is a plain store: two cores scattering into the same
    rows race (F205). It used to be taken for a hardware atomic (its ScatterAtomicOp::None was
    not recognised as "no atomic"), so the race was hidden."""

    @pto.kernel
    def k(table, src, idx):
        s = pto.Tile("Vec", "float32", 4, 32)
        i = pto.Tile("Vec", "int32", 1, 8, valid=(1, 4))
        pto.TLOAD(s, pto.GlobalTensor(src, (1, 1, 1, 4, 32)))
        pto.TLOAD(i, pto.GlobalTensor(idx, (1, 1, 1, 1, 4)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.MSCATTER(pto.GlobalTensor(table, (1, 1, 1, 8, 32)), s, i, coalesce="row")

    dev = pto.Device(device)
    run = dev.run(
        k, dev.gm_zeros((8, 32), "float32"), dev.gm_array(np.ones((4, 32), np.float32)),
        dev.gm_array(np.arange(4, dtype=np.int32)), block_dim=2,
    )  # fmt: skip
    assert "F205" in [f.code for f in run.findings]
