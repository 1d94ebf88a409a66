"""Linear-time data effects (write footprints) and the vectorised 950 launch statistics.

The data effects of an instruction snapshot only the bytes it can write (the views it took of
the memories it writes, the GM ranges it bounds-checked). These tests guard that footprint:
a write outside it is caught in check mode, the snapshot does not grow with the GM buffer, a
stale read across pipes still reads the stale bytes, an equal-value write changes nothing, a
wide view commits only what changed, and multi-core hardware atomics still all land.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.dtypes import dtype as as_dtype
from ptosim.engine import effects
from ptosim.engine.simt import launch_stats
from ptosim.errors import ExecutionError
from ptosim.isa.base import Instruction
from ptosim.memory import GlobalMemory
from ptosim.plan import WarpOp

MTE2, MTE3, V = pto.PIPE_MTE2, pto.PIPE_MTE3, pto.PIPE_V


@pytest.fixture
def check_footprint(monkeypatch):
    monkeypatch.setattr(effects, "CHECK_FOOTPRINT", True)


def _ctx(device: str = "a2"):
    arch = pto.Device(device).arch
    ub = effects.TrackedScratchpad("UB", arch.ub_size_bytes)
    l1 = effects.TrackedScratchpad("L1", arch.l1_size_bytes)
    return effects.TrackedContext(arch, ub, l1, GlobalMemory())


class _Poke(Instruction):
    """Writes ``value`` into UB bytes [lo, hi) through a view of [view_lo, view_hi) (or behind
    the tracked views, through the raw array, when ``raw``)."""

    opcode = "POKE"
    writes = ("dst",)

    def __init__(self, dst, lo, hi, value, view=None, raw=False):
        self.dst, self.lo, self.hi, self.value, self.view, self.raw = dst, lo, hi, value, view, raw

    def execute(self, ctx):
        if self.raw:
            ctx.ub.data[self.lo : self.hi] = self.value
            return
        v_lo, v_hi = self.view or (self.lo, self.hi)
        view = ctx.ub.typed(v_lo, as_dtype("uint8"), v_hi - v_lo)
        view[self.lo - v_lo : self.hi - v_lo] = self.value


def _ub_tile(address: int, rows: int = 1, cols: int = 32):
    t = pto.Tile("Vec", "uint8", rows, cols)
    ref = t.ref()
    ref.placement.address = address
    return ref


def test_a_write_outside_the_footprint_is_detected(check_footprint):
    ctx = _ctx()
    dst = _ub_tile(0)
    ok = effects.begin(_Poke(dst, 0, 32, 7), ctx)  # through its own view: fine
    assert ok.changes and (ctx.ub.data[:32] == 0xFF).all()  # held back
    with pytest.raises(effects.FootprintError, match="outside its write footprint"):
        effects.begin(_Poke(dst, 64, 96, 7, raw=True), ctx)  # behind the tracked views
    assert (ctx.ub.data[64:96] == 0xFF).all()  # and nothing stayed written


def test_without_check_mode_the_footprint_is_what_is_snapshotted(monkeypatch):
    ctx = _ctx()
    monkeypatch.setattr(effects, "CHECK_FOOTPRINT", False)
    pending = effects.begin(_Poke(_ub_tile(0), 64, 96, 7, raw=True), ctx)
    # the raw write is not in the footprint, so it is neither held back nor committed
    assert pending.changes == []
    assert (ctx.ub.data[64:96] == 7).all()


def test_a_wide_view_commits_only_the_bytes_it_changed():
    ctx = _ctx()
    whole = ctx.ub.size_bytes
    pending = effects.begin(_Poke(_ub_tile(0), 0, 32, 1, view=(0, whole)), ctx)
    assert (ctx.ub.data[:32] == 0xFF).all()  # held back until the commit
    ctx.ub.data[4096:4128] = 5  # another pipe writes elsewhere in the view meanwhile
    pending.commit()
    assert (ctx.ub.data[:32] == 1).all() and (ctx.ub.data[4096:4128] == 5).all()


def test_an_equal_value_write_changes_nothing():
    ctx = _ctx()
    ctx.ub.data[:32] = 3
    pending = effects.begin(_Poke(_ub_tile(0), 0, 32, 3), ctx)
    assert pending.changes == []
    ctx.ub.data[:32] = 9  # a later write by another pipe is not undone by the commit
    pending.commit()
    assert (ctx.ub.data[:32] == 9).all()


def _copy_loop(dev, tiles: int):
    """TLOAD / TSTORE of ``tiles`` 8 x 32 float32 tiles through one buffer."""
    src = dev.gm_array(np.arange(tiles * 256, dtype=np.float32).reshape(tiles * 8, 32))
    out = dev.gm_zeros((tiles * 8, 32), "float32")

    @pto.kernel
    def copy(src, out):
        t = pto.Tile("Vec", "float32", 8, 32)
        for i in range(tiles):
            pto.TLOAD(t, pto.GlobalTensor(src, (8, 32), offset=i * 256))
            pto.set_flag(MTE2, MTE3, 0)
            pto.wait_flag(MTE2, MTE3, 0)
            pto.TSTORE(pto.GlobalTensor(out, (8, 32), offset=i * 256), t)
            pto.set_flag(MTE3, MTE2, 0)
            pto.wait_flag(MTE3, MTE2, 0)

    return copy, src, out


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_snapshots_do_not_grow_with_the_buffers(device, monkeypatch, check_footprint):
    spans = []
    touch = effects.Footprint.touch

    def record(self, arr, lo, hi):
        if id(arr) in self.written:
            spans.append(hi - lo)
        touch(self, arr, lo, hi)

    monkeypatch.setattr(effects.Footprint, "touch", record)
    dev = pto.Device(device)
    copy, src, out = _copy_loop(dev, 64)  # a 64 KiB output buffer
    run = dev.run(copy, src, out)
    assert np.array_equal(out.numpy(), src.numpy()) and not run.findings
    assert spans and max(spans) <= 8 * 32 * 4  # one tile, never a whole buffer or UB


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_a_missing_flag_still_reads_stale_data(device, check_footprint):
    dev = pto.Device(device)
    src = dev.gm_array(np.ones((8, 32), np.float32))
    out = dev.gm_zeros((8, 32), "float32")

    @pto.kernel
    def racy(src, out):
        t = pto.Tile("Vec", "float32", 8, 32)
        pto.TLOAD(t, pto.GlobalTensor(src, (8, 32)))
        pto.TSTORE(pto.GlobalTensor(out, (8, 32)), t)  # no MTE2 -> MTE3 flag

    run = dev.run(racy, src, out)
    assert "F203" in {f.code for f in run.findings}
    assert (out.data == 0xFF).all()  # the UB poison the store read before the load landed


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_overlapping_pipes_each_see_the_bytes_of_their_start(device, check_footprint):
    """MTE3 stores tile t while MTE2 is already loading the next data into it (no flag in
    between): the store started first, so it stores the old contents."""
    dev = pto.Device(device)
    first = dev.gm_array(np.full((8, 32), 2.0, np.float32))
    second = dev.gm_array(np.full((8, 32), 3.0, np.float32))
    out = dev.gm_zeros((8, 32), "float32")

    @pto.kernel
    def overlap(first, second, out):
        t = pto.Tile("Vec", "float32", 8, 32)
        pto.TLOAD(t, pto.GlobalTensor(first, (8, 32)))
        pto.set_flag(MTE2, MTE3, 0)
        pto.wait_flag(MTE2, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (8, 32)), t)
        pto.TLOAD(t, pto.GlobalTensor(second, (8, 32)))  # WAR race with the store

    run = dev.run(overlap, first, second, out)
    assert "F203" in {f.code for f in run.findings}
    assert (out.numpy() == 2.0).all()


def test_multi_core_hardware_atomics_all_land(check_footprint):
    dev = pto.Device("950pr")
    cores, n = 4, 64
    table = dev.gm_zeros(n, "float32")
    src_h = dev.gm_array(np.ones((1, n), np.float32))
    idx_h = dev.gm_array((np.arange(n, dtype=np.int32) * 7 % 16).reshape(1, n))

    @pto.kernel
    def scatter_add(table, src_h, idx_h):
        src = pto.Tile("Vec", "float32", 1, n)
        idx = pto.Tile("Vec", "int32", 1, n)
        pto.TLOAD(src, pto.GlobalTensor(src_h, (1, n)))
        pto.TLOAD(idx, pto.GlobalTensor(idx_h, (1, n)))
        pto.set_flag(MTE2, V, 0)
        pto.wait_flag(MTE2, V, 0)
        g = pto.GlobalTensor(table, (1, 1, 1, 1, n))
        pto.MSCATTER(g, src, idx, coalesce="elem", atomic="add")

    dev.run(scatter_add, table, src_h, idx_h, block_dim=cores)
    want = np.bincount(np.arange(n) * 7 % 16, minlength=n) * cores
    assert np.array_equal(table.numpy(), want.astype(np.float32))


# -- the vectorised launch statistics against a per-op numpy formulation ----------------------
def _reference(op: WarpOp, cfg) -> tuple[int, int, int]:
    a = np.asarray(op.addrs, dtype=np.int64)
    if a.size == 0:
        return 0, 0, 0
    sec = cfg.gm_sector_bytes
    sectors = len(set((a // sec).tolist()) | set(((a + op.size - 1) // sec).tolist()))
    blocks = set((a // cfg.ub_block_bytes).tolist())
    groups = [sum(1 for b in blocks if b % cfg.ub_bank_groups == g) for g in range(8)]
    same = max(list(a).count(x) for x in set(a.tolist()))
    return sectors, max(groups) - 1, same


KINDS = ("ld_gm", "st_gm", "atom_gm", "ld_ub", "st_ub", "alu")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(KINDS),
            st.lists(st.integers(0, 4096), min_size=0, max_size=40),
            st.sampled_from([1, 2, 4, 8, 200]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_launch_stats_match_per_op_counts(spec):
    cfg = pto.Device("950pr").config.timing.simt
    ops = [
        WarpOp(kind, len(addrs), None if kind == "alu" else np.asarray(addrs, np.int64), size)
        for kind, addrs, size in spec
    ]
    stats = launch_stats(ops, cfg)
    for i, op in enumerate(ops):
        if op.kind == "alu":
            continue
        sectors, conflicts, same = _reference(op, cfg)
        if op.kind.endswith("_gm"):
            assert stats.sectors[i] == sectors
        else:
            assert stats.bank_conflicts[i] == conflicts
        if op.kind == "atom_gm":
            assert stats.same_address[i] == same


def test_footprint_error_inside_a_run_names_the_instruction(monkeypatch, check_footprint):
    """In a run, a footprint violation stops the simulation as an internal error."""
    real = effects._check_inside

    def strict(instr, fp, full):
        fp.spans.clear()  # pretend the footprint were empty: every write is outside it
        real(instr, fp, full)

    monkeypatch.setattr(effects, "_check_inside", strict)
    dev = pto.Device("a2")
    copy, src, out = _copy_loop(dev, 1)
    with pytest.raises(ExecutionError, match="TLOAD #0.*outside its write footprint"):
        dev.run(copy, src, out)
