"""The SIMT warp-scheduler model (ptosim.engine.simt) on hand-built launches: relations that
follow from its rules (latency hiding, coalescing, atomics, banks, policies)."""

import numpy as np
import pytest

import ptosim as pto
from ptosim.engine.simt import simulate_launch
from ptosim.plan import SimtLaunch, WarpOp

CFG = pto.load_config("950pr").timing.simt


def _ld(addrs, kind="ld_gm", tags=None):
    a = np.asarray(addrs, dtype=np.int64)
    return WarpOp(kind, int(a.size), a, 4, tags=tags)


def test_more_warps_hide_gm_latency():
    # 1024 contiguous float loads: one warp doing 32 dependent-free loads in sequence versus 32
    # warps doing one load each
    lanes = np.arange(32) * 4
    one_warp = SimtLaunch([[_ld(lanes + 128 * i) for i in range(32)]])
    many = SimtLaunch([[_ld(lanes + 128 * i)] for i in range(32)])
    t1, t32 = simulate_launch(one_warp, CFG).cycles, simulate_launch(many, CFG).cycles
    assert t32 < t1 / 4
    # with 32 warps the loads overlap: far less than 32 latencies
    assert t32 < 2 * (CFG.gm_latency_cycles + CFG.launch_cycles)


def test_scattered_lanes_touch_more_sectors_and_take_longer():
    contiguous = SimtLaunch([[_ld(np.arange(32) * 4)] for _ in range(8)])
    scattered = SimtLaunch([[_ld(np.arange(32) * 4096)] for _ in range(8)])
    rc, rs = simulate_launch(contiguous, CFG), simulate_launch(scattered, CFG)
    assert rc.sectors == 8 and rs.sectors == 8 * 32
    assert rs.cycles > rc.cycles


def test_atomics_on_one_hot_address_serialise():
    hot = SimtLaunch([[_ld(np.zeros(32), "atom_gm")] for _ in range(8)])
    spread = SimtLaunch([[_ld(np.arange(32) * 4 + 128 * w, "atom_gm")] for w in range(8)])
    assert simulate_launch(hot, CFG).cycles > simulate_launch(spread, CFG).cycles
    # the hot launch pays at least one RMW per lane, in series
    assert simulate_launch(hot, CFG).cycles >= 8 * 32 * CFG.atomic_cycles


def test_ub_bank_conflicts_cost_cycles():
    # 32 lanes in 32 different blocks of one bank group vs 32 lanes spread over all groups
    same_group = SimtLaunch([[_ld(np.arange(32) * 32 * CFG.ub_bank_groups, "ld_ub")]])
    spread = SimtLaunch([[_ld(np.arange(32) * 4, "ld_ub")]])
    assert simulate_launch(same_group, CFG).cycles > simulate_launch(spread, CFG).cycles


@pytest.mark.parametrize("policy", ["lrr", "gto"])
def test_schedulers_own_warp_id_mod_4_and_are_deterministic(policy):
    cfg = CFG.model_copy(update={"policy": policy})
    launch = SimtLaunch([[WarpOp("alu", 32, cycles=3) for _ in range(4)] for _ in range(8)])
    a, b = simulate_launch(launch, cfg), simulate_launch(launch, cfg)
    assert a.cycles == b.cycles and a.events == b.events
    for thread, _, _, _, args in a.events:
        assert thread == f"SIMT_SCHED{args['warp'] % 4}"
    # each scheduler issues at most one instruction per cycle
    starts = {}
    for thread, _, start, _, _ in a.events:
        assert (thread, start) not in starts
        starts[(thread, start)] = True


def test_greedy_then_oldest_keeps_issuing_one_warp():
    launch = SimtLaunch([[WarpOp("alu", 32, cycles=1) for _ in range(3)] for _ in range(8)])
    gto = simulate_launch(launch, CFG.model_copy(update={"policy": "gto"}))
    lrr = simulate_launch(launch, CFG.model_copy(update={"policy": "lrr"}))
    first = [e[4]["warp"] for e in gto.events if e[0] == "SIMT_SCHED0"]
    assert first[:3] == [0, 0, 0]
    rr = [e[4]["warp"] for e in lrr.events if e[0] == "SIMT_SCHED0"]
    assert rr[:2] == [0, 4]


def test_store_tags_land_in_issue_order():
    w0 = [WarpOp("st_gm", 2, np.array([0, 4]), 4, tags=np.array([10, 11]))]
    w1 = [
        WarpOp("alu", 32, cycles=50),
        WarpOp("st_gm", 2, np.array([0, 4]), 4, tags=np.array([20, 21])),
    ]
    res = simulate_launch(SimtLaunch([w0, w1]), CFG)
    assert list(res.store_tags) == [10, 11, 20, 21]
