"""Issue 9 items 1-2: the speed-ups change nothing observable.

- Merged plan steps (``plan.merge_steps``) and memoised plans (``targets.common.PLAN_CACHE``):
  random kernels give the same cycles, findings, trace slices (as a set: merged parts are
  appended together), waits, flows, GM and errors with both on and both off, on a2 and 950pr;
  merging really removes engine steps.
- The SIMT schedule memo (``simt.MEMO``): random launches give the same LaunchResult with the
  memo on (and a warm memo) and off.
- The row-wise launch statistics match a per-op count for launches of equal lane counts.
- A TLOAD / TSTORE computes its DMA bursts once (validation, plan and execution share them).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import plan
from ptosim.engine import simt
from ptosim.isa import data as isa_data
from ptosim.plan import SimtLaunch, WarpOp
from ptosim.targets import common, spec_of

ROWS, COLS = 8, 64
GM_ELEMS = 4 * ROWS * COLS
PIPES = ("MTE2", "V", "MTE3", "S")


@st.composite
def programs(draw):
    """A random kernel over three float32 tiles: loads, stores, vector work with many steps
    (row expansions, element-wise, reductions), flags (possibly missing: races or deadlocks)
    and barriers."""
    out = []
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(("load", "store", "rowexp", "binary", "unary", "flag", "bar")))
        t = draw(st.integers(0, 2))
        if kind in ("load", "store"):
            out.append((kind, t, draw(st.integers(0, 3)) * ROWS * COLS))
        elif kind in ("rowexp", "binary"):
            op = draw(st.sampled_from(("ADD", "MUL", "MAX", "EXPDIF")))
            out.append((kind, op, t, draw(st.integers(0, 2)), draw(st.integers(0, 2))))
        elif kind == "unary":
            out.append((kind, draw(st.sampled_from(("TEXP", "TABS", "TROWSUM"))), t))
        elif kind == "flag":
            a, b = draw(st.sampled_from(PIPES)), draw(st.sampled_from(PIPES))
            out.append((kind, draw(st.sampled_from(("set", "wait", "both"))), a, b))
        else:
            out.append((kind, draw(st.sampled_from(PIPES + ("ALL",)))))
    return out


def _outcome(device: str, program) -> tuple:
    dev = pto.Device(device)
    rng = np.random.default_rng(1)
    x = dev.gm_array(rng.uniform(-2, 2, GM_ELEMS).astype(np.float32))
    y = dev.gm_zeros(GM_ELEMS, "float32")

    @pto.kernel
    def k(x, y):
        tiles = [pto.Tile("Vec", "float32", ROWS, COLS) for _ in range(3)]
        col = pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor")
        for op in program:
            kind = op[0]
            if kind in ("load", "store"):
                gt = pto.GlobalTensor(y if kind == "store" else x, (ROWS, COLS), offset=op[2])
                if kind == "store":
                    pto.TSTORE(gt, tiles[op[1]])
                else:
                    pto.TLOAD(tiles[op[1]], gt)
            elif kind == "rowexp":
                pto.TROWEXPAND(tiles[op[2]], col)
            elif kind == "binary":
                getattr(pto, f"TROWEXPAND{op[1]}")(tiles[op[2]], tiles[op[3]], col)
            elif kind == "unary" and op[1] == "TROWSUM":
                pto.TROWSUM(col, tiles[op[2]], tiles[(op[2] + 1) % 3])
            elif kind == "unary":
                getattr(pto, op[1])(tiles[op[2]], tiles[op[2]])
            elif kind == "flag":
                _, which, a, b = op
                if which in ("set", "both"):
                    pto.set_flag(a, b, 0)
                if which in ("wait", "both"):
                    pto.wait_flag(a, b, 0)
            else:
                pto.pipe_barrier(op[1])

    try:
        run = dev.run(k, x, y)
    except pto.PtoSimError as exc:
        return ("error", type(exc).__name__, str(exc), y.numpy().tobytes())
    events = sorted(
        (e.core, e.pipe, e.name, e.start, e.dur, e.kind, e.instr, e.bytes, repr(e.args))
        for e in run.trace.events
    )
    waits = sorted(map(repr, run.trace.waits))
    flows = sorted(map(repr, run.trace.flows))
    findings = [str(f) for f in run.findings]
    return ("ok", run.cycles, findings, events, waits, flows, y.numpy().tobytes())


@pytest.mark.parametrize("device", ["a2", "950pr"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs())
def test_merged_steps_and_cached_plans_change_nothing(device, program):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plan, "MERGE_STEPS", False)
        mp.setattr(common, "PLAN_CACHE", False)
        plain = _outcome(device, program)
    assert plan.MERGE_STEPS and common.PLAN_CACHE
    assert _outcome(device, program) == plain


def _rowexpand_loop(dev):
    x = dev.gm_array(np.ones(ROWS * COLS, np.float32))

    @pto.kernel
    def k(x):
        t = pto.Tile("Vec", "float32", ROWS, COLS)
        s = pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor")
        pto.TLOAD(t, pto.GlobalTensor(x, (ROWS, COLS)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.TROWEXPANDMUL(t, t, s)

    return k, (x,)


def _issued_steps(device: str, merge: bool, monkeypatch) -> tuple[int, int]:
    """(cycles, engine steps issued) of the row-expand kernel."""
    from ptosim.engine import core

    monkeypatch.setattr(plan, "MERGE_STEPS", merge)
    issued = []
    real = core.simulate

    def spy(*a, **kw):
        sim = real(*a, **kw)
        issued.extend(len(c.issued) for c in sim.cores)
        return sim

    monkeypatch.setattr(core, "simulate", spy)
    dev = pto.Device(device)
    k, args = _rowexpand_loop(dev)
    run = dev.run(k, *args)
    return run.cycles, sum(issued)


def test_merged_rowexpand_issues_few_steps(monkeypatch):
    cycles0, steps0 = _issued_steps("950pr", False, monkeypatch)
    cycles1, steps1 = _issued_steps("950pr", True, monkeypatch)
    assert cycles1 == cycles0
    # ROWS rows x (vbr, vmul, vsts) loops become one step between vf_startup and vf_drain
    assert steps0 - steps1 >= 3 * ROWS - 2
    assert steps1 <= 12


# -- the SIMT schedule memo ---------------------------------------------------------------------
KINDS = ("ld_gm", "st_gm", "atom_gm", "ld_ub", "st_ub", "alu", "loop")


@st.composite
def launches(draw):
    """A launch of 1-6 warps of random ops (equal lane counts or not), some async loads,
    some tagged stores."""
    lanes = draw(st.sampled_from((None, 8, 32)))  # None: each op its own lane count
    warps = []
    for _ in range(draw(st.integers(1, 6))):
        prog = []
        for _ in range(draw(st.integers(0, 8))):
            kind = draw(st.sampled_from(KINDS))
            n = lanes if lanes is not None else draw(st.integers(1, 32))
            addrs = None
            if kind not in ("alu", "loop"):
                base = draw(st.integers(0, 4096))
                step = draw(st.sampled_from((0, 4, 32, 128)))
                addrs = base + step * np.arange(n, dtype=np.int64)
            prog.append(
                WarpOp(
                    kind,
                    n,
                    addrs,
                    draw(st.sampled_from((1, 4, 8))),
                    cycles=draw(st.integers(0, 12)),
                    label=f"op {draw(st.integers(0, 3))}",
                    tags=np.arange(n, dtype=np.int64) + 100 * len(prog)
                    if kind == "st_gm" and draw(st.booleans())
                    else None,
                    async_load=kind == "ld_gm" and draw(st.booleans()),
                    uses_load=draw(st.booleans()),
                )
            )
        warps.append(prog)
    return SimtLaunch(warps)


def _same(a: simt.LaunchResult, b: simt.LaunchResult) -> bool:
    return (
        a.cycles == b.cycles
        and a.events == b.events
        and np.array_equal(a.store_tags, b.store_tags)
        and (a.sectors, a.gm_bytes) == (b.sectors, b.gm_bytes)
    )


@settings(max_examples=80, deadline=None)
@given(launch=launches(), policy=st.sampled_from(("lrr", "gto")))
def test_memoised_schedules_are_identical(launch, policy):
    cfg = pto.Device("950pr").config.timing.simt.model_copy(update={"policy": policy})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simt, "MEMO", False)
        plain = simt.simulate_launch(launch, cfg)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simt, "_MEMO", {})
        first = simt.simulate_launch(launch, cfg)
        again = simt.simulate_launch(launch, cfg)  # from the memo
    assert _same(first, plain) and _same(again, plain)


def test_memo_takes_labels_and_tags_from_the_new_launch(monkeypatch):
    """Two launches that differ only in labels and tag values share a schedule, not names."""
    monkeypatch.setattr(simt, "_MEMO", {})
    cfg = pto.Device("950pr").config.timing.simt

    def launch(label: str, tag0: int) -> SimtLaunch:
        a = np.arange(32, dtype=np.int64) * 4
        return SimtLaunch(
            [
                [WarpOp("ld_gm", 32, a, 4, label=label), WarpOp("st_gm", 32, a, 4, tags=a + tag0)]
                for _ in range(3)
            ]
        )

    one, two = simt.simulate_launch(launch("x", 0), cfg), simt.simulate_launch(launch("y", 7), cfg)
    assert len(simt._MEMO) == 1
    assert one.cycles == two.cycles
    assert {e[1] for e in two.events} == {"y", "st_gm"}
    assert np.array_equal(two.store_tags, one.store_tags + 7)


# -- row-wise launch statistics -----------------------------------------------------------------
def _reference(op: WarpOp, cfg) -> tuple[int, int]:
    """(GM sectors, extra UB bank-group conflicts) of one op, counted directly."""
    a = np.asarray(op.addrs, dtype=np.int64)
    sec = cfg.gm_sector_bytes
    sectors = len(set((a // sec).tolist()) | set(((a + op.size - 1) // sec).tolist()))
    blocks = set((a // cfg.ub_block_bytes).tolist())
    groups = [sum(1 for b in blocks if b % cfg.ub_bank_groups == g) for g in range(8)]
    return sectors, max(groups) - 1


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(1, 40),
    spec=st.lists(
        st.tuples(
            st.sampled_from(("ld_gm", "st_gm", "ld_ub", "st_ub", "alu")),
            st.integers(0, 4096),
            st.sampled_from((0, 1, 4, 32, 100)),
            st.sampled_from((1, 2, 4, 8, 200)),
        ),
        min_size=1,
        max_size=12,
    ),
)
def test_row_wise_launch_stats_match_per_op_counts(width, spec):
    cfg = pto.Device("950pr").config.timing.simt
    ops = [
        WarpOp(kind, width, None if kind == "alu" else base + step * np.arange(width), size)
        for kind, base, step, size in spec
    ]
    stats = simt.launch_stats(ops, cfg)
    for i, op in enumerate(ops):
        if op.kind == "alu":
            continue
        sectors, conflicts = _reference(op, cfg)
        if op.kind.endswith("_gm"):
            assert stats.sectors[i] == sectors
        else:
            assert stats.bank_conflicts[i] == conflicts


# -- DMA bursts computed once ---------------------------------------------------------------------
@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_dma_bursts_once_per_transfer(device, monkeypatch):
    calls = []
    real = isa_data.dma_bursts

    def counting(*a, **kw):
        calls.append(a[0])
        return real(*a, **kw)

    monkeypatch.setattr(isa_data, "dma_bursts", counting)
    monkeypatch.setattr(isa_data, "_BURSTS", {})  # the shape memo starts empty
    dev = pto.Device(device)
    x = dev.gm_array(np.arange(ROWS * COLS, dtype=np.float32))
    y = dev.gm_zeros(ROWS * COLS, "float32")

    @pto.kernel
    def k(x, y):
        t = pto.Tile("Vec", "float32", ROWS, COLS)
        pto.TLOAD(t, pto.GlobalTensor(x, (ROWS, COLS)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(y, (ROWS, COLS)), t)

    dev.run(k, x, y)
    assert np.array_equal(y.numpy(), x.numpy())
    assert len(calls) == 2  # one per transfer (was three: validate, plan, execute)


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("layout", ["ND", "DN"])
@pytest.mark.parametrize("load", [True, False])
def test_memoised_bursts_equal_fresh_ones_at_any_offset(target, layout, load):
    """The burst memo keys a transfer's shape without its GM offset and adds the offset back:
    the bursts of every offset equal a fresh ``dma_bursts``."""
    dev = pto.Device("a2")
    buf = dev.gm_zeros(64 * 64, "float32")
    rows, cols = (16, 8) if layout == "ND" else (8, 16)
    blayout = "RowMajor" if layout == "ND" else "ColMajor"
    tile = pto.Tile("Vec", "float32", rows, cols, blayout=blayout).ref()
    shape = (1, 1, 2, rows // 2, cols) if layout == "ND" else (1, 1, 1, rows, cols)
    for offset in (0, 8, 40, 1000):
        gm = pto.GlobalTensor(buf, shape, layout=layout, offset=offset).ref()
        rules = spec_of(target).dma
        fresh = isa_data.dma_bursts(rules, tile, gm, load=load)
        memo = isa_data._memo_bursts(rules, tile, gm, load)
        assert np.array_equal(memo.gm_start, fresh.gm_start)
        assert np.array_equal(memo.tile_start, fresh.tile_start)
        assert (memo.length, memo.pad) == (fresh.length, fresh.pad)


# -- validation memo ------------------------------------------------------------------------------
def test_a_loop_validates_each_transfer_shape_once(monkeypatch):
    """TLOAD / TSTORE of a loop (same tile and GM shape at another offset) and its flags are
    validated once per signature; the run is unchanged with the memo off; a failing validation
    is not remembered."""
    from ptosim.isa import base, sync

    calls = []
    for cls in (isa_data.TLoad, isa_data.TStore, sync.SetFlag, sync.WaitFlag):
        real = cls.validate

        def counting(self, arch, _real=real):
            calls.append(self.opcode)
            return _real(self, arch)

        monkeypatch.setattr(cls, "validate", counting)
    monkeypatch.setattr(base, "_VALID", {})

    def run():
        dev = pto.Device("a2")
        x = dev.gm_array(np.arange(8 * ROWS * COLS, dtype=np.float32))
        y = dev.gm_zeros(8 * ROWS * COLS, "float32")

        @pto.kernel
        def k(x, y):
            t = pto.Tile("Vec", "float32", ROWS, COLS)
            for i in range(8):
                off = i * ROWS * COLS
                pto.TLOAD(t, pto.GlobalTensor(x, (ROWS, COLS), offset=off))
                pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.TSTORE(pto.GlobalTensor(y, (ROWS, COLS), offset=off), t)
                pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)

        r = dev.run(k, x, y)
        assert np.array_equal(y.numpy(), x.numpy())
        return r.cycles, [(e.name, e.start, e.dur) for e in r.trace.events]

    memo = run()
    assert sorted(calls) == sorted(["TLOAD", "TSTORE"] + ["SET_FLAG", "WAIT_FLAG"] * 2)
    monkeypatch.setattr(base, "VALIDATE_CACHE", False)
    assert run() == memo
    monkeypatch.setattr(base, "VALIDATE_CACHE", True)
    dev = pto.Device("a2")
    ints = dev.gm_zeros(ROWS * COLS, "int32")

    @pto.kernel
    def bad(ints):
        pto.TLOAD(pto.Tile("Vec", "float32", ROWS, COLS), pto.GlobalTensor(ints, (ROWS, COLS)))

    for _ in range(2):  # it raises every time
        with pytest.raises(pto.PtoSimError, match="same-dtype"):
            dev.run(bad, ints)


@pytest.mark.parametrize("device", ["a2", "950pr"])
@pytest.mark.parametrize("layout", ["ND", "DN"])
def test_moved_transfer_plans_equal_fresh_ones(device, layout, monkeypatch):
    """A TLOAD / TSTORE plan is computed once per shape and moved to each GM address (same
    address modulo the GM request size): equal to the plan computed at that address."""
    from ptosim.isa.base import ExecContext
    from ptosim.targets.a2a3 import data as transfer

    monkeypatch.setattr(transfer, "_MOVABLE", {})
    dev = pto.Device(device)
    ctx = ExecContext(dev.arch, None, None, dev.gm)
    ctx.config = dev.config
    buf = dev.gm_zeros(64 * 1024, "float32")
    rows, cols = (16, 8) if layout == "ND" else (8, 16)
    blayout = "RowMajor" if layout == "ND" else "ColMajor"
    tile = pto.Tile("Vec", "float32", rows, cols, blayout=blayout).ref()
    tile.placement.address = 4096
    shape = (1, 1, 2, rows // 2, cols) if layout == "ND" else (1, 1, 1, rows, cols)
    moved = 0
    for cls, cfg in (
        (isa_data.TLoad, dev.config.timing.mte2),
        (isa_data.TStore, dev.config.timing.mte3),
    ):
        for offset in (0, 8, 1024, 40, 4096 * 3, 4096 * 3 + 8, 20000):
            gm = pto.GlobalTensor(buf, shape, layout=layout, offset=offset).ref()
            instr = cls(tile, gm) if cls is isa_data.TLoad else cls(gm, tile)
            load = cls is isa_data.TLoad
            hits = len(transfer._MOVABLE)
            plan = transfer.plan_transfer(instr, ctx)
            moved += len(transfer._MOVABLE) == hits
            assert plan == transfer._plan_transfer(instr, ctx, load, cfg), (cls, offset)
    assert moved >= 4  # the aligned offsets reuse a plan
