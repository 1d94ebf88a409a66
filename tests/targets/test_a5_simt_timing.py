"""Timed MGATHER / MSCATTER on the 950 (a5): SIMT launches on PIPE_V expanded by the warp
schedulers, the scalar (1, 1) fallback, the GM -> L1 paths, and the relations that follow from
the SIMT model (coalescing, latency hiding, atomics, the Conflict::Last reverse scan, the
schedule-decided Conflict::Default, the 950DT bandwidth).

Timing assertions are relations, never cycle counts. Kernels follow the a5 caller pattern of
semantics.md 4.3 (TLOAD; MTE2 -> V; op; ...): the SIMT launch reads its index tile when PIPE_V
starts it.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import ptosim as pto

A5 = ("950pr", "950dt")
S, V, MTE2 = "PIPE_S", "PIPE_V", "PIPE_MTE2"
SCHEDULERS = tuple(f"SIMT_SCHED{k}" for k in range(4))
CFG = pto.load_config("950pr").timing.simt


def _sync(src, dst):
    pto.set_flag(src, dst, pto.EVENT_ID0)
    pto.wait_flag(src, dst, pto.EVENT_ID0)


def _tile(dtype, rows, cols, layout="RowMajor"):
    """A tile of valid (rows, cols), padded to the 32-byte rule of its layout."""
    per_block = 32 // np.dtype(dtype).itemsize
    if layout == "RowMajor":
        return pto.Tile("Vec", dtype, rows, -(-cols // per_block) * per_block, valid=(rows, cols))
    return pto.Tile(
        "Vec", dtype, -(-rows // per_block) * per_block, cols, "ColMajor", valid=(rows, cols)
    )


def _load(tile, buf, values, layout):
    """TLOAD (rows, cols) values held row-major (ND) or column-major (DN) in ``buf``."""
    shape = (1, 1, 1) + values.shape
    pto.TLOAD(tile, pto.GlobalTensor(buf, shape, layout="ND" if layout == "RowMajor" else "DN"))


def _host(values, layout):
    return values if layout == "RowMajor" else values.T.copy()


# -- kernels ---------------------------------------------------------------------------------
def gather(devname, table, index, mode="row", *, oob="undefined", sync=True):
    """TLOAD(idx); MTE2->V; MGATHER. Returns (run, dst tile contents)."""
    dev = pto.Device(devname)
    index = np.asarray(index, np.int32)
    if mode == "row":
        index = index.reshape(1, -1)
        R, C = index.shape[1], table.shape[-1]
    else:
        R, C = index.shape
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(index)
    dst = _tile(table.dtype.name, R, C)
    idx = _tile("int32", *index.shape)

    @pto.kernel
    def k():
        _load(idx, ibuf, index, "RowMajor")
        if sync:
            _sync(pto.PIPE_MTE2, pto.PIPE_V)
        tab = pto.GlobalTensor(tbuf, (1, 1, 1) + table.shape)
        pto.MGATHER(dst, tab, idx, coalesce=mode, oob=oob)

    run = dev.run(k)
    return run, run.tile(dst)


def _scatter_once(devname, table, src, index, mode, idx_layout, policy):
    dev = pto.Device(devname)
    R, C = src.shape
    tbuf, sbuf = dev.gm_array(table), dev.gm_array(src)
    ibuf = dev.gm_array(_host(index, idx_layout))
    s = _tile(src.dtype.name, R, C)
    i = _tile("int32", *index.shape, idx_layout)

    @pto.kernel
    def k():
        _load(s, sbuf, src, "RowMajor")
        _load(i, ibuf, index, idx_layout)
        _sync(pto.PIPE_MTE2, pto.PIPE_V)
        tab = pto.GlobalTensor(tbuf, (1, 1, 1) + table.shape)
        pto.MSCATTER(tab, s, i, coalesce=mode, **policy)
        pto.pipe_barrier(pto.PIPE_ALL)

    run = dev.run(k)
    return run, tbuf.numpy()


def scatter(devname, table, src, index, *, mode="elem", idx_layout="RowMajor", runs=1, **policy):
    """TLOAD(src); TLOAD(idx); MTE2->V; MSCATTER; pipe_barrier(ALL). Returns (run, table), or
    (last run, [table per run]) when ``runs`` > 1."""
    index = np.asarray(index, np.int32)
    index = index.reshape(1, -1) if mode == "row" else index
    done = [
        _scatter_once(devname, table, src, index, mode, idx_layout, policy) for _ in range(runs)
    ]
    if runs == 1:
        return done[0]
    return done[-1][0], [out for _, out in done]


# -- trace helpers ---------------------------------------------------------------------------
def state(run, opcode):
    (st,) = [s for s in run.instructions if s.instr.opcode == opcode]
    return st


def span(run, opcode) -> int:
    st = state(run, opcode)
    return st.end - st.start


def events(run, opcode, *, kind=None, pipe=None):
    pos = state(run, opcode).instr.position
    return [
        e
        for e in run.trace.events
        if e.instr == pos and (kind is None or e.kind == kind) and (pipe is None or e.pipe == pipe)
    ]


def launch(run, opcode):
    (ev,) = events(run, opcode, kind="simt")
    return ev


def warp_events(run, opcode):
    return events(run, opcode, kind="warp")


def rng(seed=0):
    return np.random.default_rng(seed)


TABLE = rng(1).standard_normal((64, 256)).astype(np.float32)
ROWS = rng(2).permutation(64)


# -- Row vs Elem, coalescing, latency hiding --------------------------------------------------
@pytest.mark.parametrize("devname", A5)
def test_row_gather_reaches_more_gm_bytes_per_cycle_than_elem(devname):
    # the same 64 table rows: Row moves whole rows, Elem one element per lane
    run_r, got_r = gather(devname, TABLE, ROWS, mode="row")
    eidx = ROWS[:, None] * 256 + np.arange(256)
    run_e, got_e = gather(devname, TABLE.reshape(-1), eidx, mode="elem")
    np.testing.assert_array_equal(got_r, TABLE[ROWS])
    np.testing.assert_array_equal(got_e, TABLE[ROWS])
    st_r, st_e = state(run_r, "MGATHER"), state(run_e, "MGATHER")
    assert st_r.bytes == st_e.bytes == TABLE.nbytes
    assert st_r.bytes / span(run_r, "MGATHER") > st_e.bytes / span(run_e, "MGATHER")
    # same useful bytes, same sectors: Elem pays the per-element index load and remap
    assert launch(run_r, "MGATHER").args["sectors"] == launch(run_e, "MGATHER").args["sectors"]


@pytest.mark.parametrize("devname", A5)
def test_scattered_elem_indices_touch_more_sectors_and_take_longer(devname):
    flat = TABLE.reshape(-1)
    contiguous = np.arange(64 * 256).reshape(64, 256)
    scattered = (np.arange(64 * 256) * 37 % flat.size).reshape(64, 256)  # 148 B apart
    run_c, got_c = gather(devname, flat, contiguous, mode="elem")
    run_s, got_s = gather(devname, flat, scattered, mode="elem")
    np.testing.assert_array_equal(got_c, flat[contiguous])
    np.testing.assert_array_equal(got_s, flat[scattered])
    sec_c = launch(run_c, "MGATHER").args["sectors"]
    sec_s = launch(run_s, "MGATHER").args["sectors"]
    assert sec_c == flat.nbytes // CFG.gm_sector_bytes  # one sector per 32-lane load
    assert sec_s > 8 * sec_c
    assert span(run_s, "MGATHER") > span(run_c, "MGATHER")


def test_more_warps_hide_more_latency():
    flat = TABLE.reshape(-1)
    run1, got1 = gather("950pr", flat, np.arange(32).reshape(1, 32), mode="elem")
    run32, got32 = gather("950pr", flat, np.arange(1024).reshape(4, 256), mode="elem")
    assert launch(run1, "MGATHER").args["warps"] == 1
    assert launch(run32, "MGATHER").args["warps"] == 32
    np.testing.assert_array_equal(got32.reshape(-1), flat[:1024])
    per_elem_1 = span(run1, "MGATHER") / 32
    per_elem_32 = span(run32, "MGATHER") / 1024
    assert per_elem_32 < per_elem_1 / 4


@pytest.mark.parametrize("mode", ["row", "elem"])
def test_950dt_is_not_slower_than_950pr(mode):
    if mode == "row":  # the bandwidth-heavy Row gather of whole table rows
        (run_pr, got_pr), (run_dt, got_dt) = (gather(d, TABLE, ROWS) for d in A5)
    else:  # one sector per lane: the GM port is the bottleneck, 950DT's wider port wins
        flat = TABLE.reshape(-1)
        idx = (np.arange(64 * 256) * 37 % flat.size).reshape(64, 256)
        (run_pr, got_pr), (run_dt, got_dt) = (gather(d, flat, idx, mode="elem") for d in A5)
    np.testing.assert_array_equal(got_pr, got_dt)
    assert span(run_dt, "MGATHER") <= span(run_pr, "MGATHER")
    if mode == "elem":
        assert span(run_dt, "MGATHER") < span(run_pr, "MGATHER")


def test_missing_mte2_v_wait_launches_on_the_stale_index():
    # the launch reads the index tile when PIPE_V starts it: without MTE2 -> V the TLOAD of
    # the index has not landed yet, every row reads the same stale UB index (clamped)
    run, got = gather("950pr", TABLE, ROWS, mode="row", oob="clamp", sync=False)
    assert not np.array_equal(got, TABLE[ROWS])
    assert any(np.array_equal(got, np.broadcast_to(row, got.shape)) for row in TABLE)
    tload = [e for e in run.trace.events if e.opcode == "TLOAD"][0]
    assert launch(run, "MGATHER").start < tload.start + tload.dur


# -- MSCATTER: atomics, Conflict::Last, Conflict::Default -------------------------------------
def test_atomics_on_one_hot_address_serialise():
    src = np.ones((32, 32), np.float32)
    table = np.zeros((1, 1024), np.float32)
    run_hot, out_hot = scatter("950pr", table, src, np.zeros((32, 32)), atomic="add")
    run_cold, out_cold = scatter("950pr", table, src, np.arange(1024).reshape(32, 32), atomic="add")
    assert out_hot[0, 0] == 1024 and np.all(out_hot[0, 1:] == 0)
    assert np.all(out_cold == 1)
    assert span(run_hot, "MSCATTER") > span(run_cold, "MSCATTER")
    hot = [e.args for e in warp_events(run_hot, "MSCATTER") if e.args["op"] == "atom_gm"]
    assert hot and all(a["same_address_lanes"] == a["lanes"] for a in hot)
    assert run_hot.findings == []  # atomics ignore the conflict policy


def test_conflict_last_costs_more_than_default_and_grows_with_rc():
    table = np.zeros((64, 64), np.float32)
    spans = []
    for R in (16, 32, 64):
        src = rng(R).standard_normal((R, 64)).astype(np.float32)
        idx = rng(R + 1).permutation(64 * 64)[: R * 64].reshape(R, 64)
        run_l, out_l = scatter("950pr", table, src, idx, conflict="last")
        run_d, out_d = scatter("950pr", table, src, idx, conflict="default")
        np.testing.assert_array_equal(out_l, out_d)  # distinct indices: same result
        assert span(run_l, "MSCATTER") > span(run_d, "MSCATTER")
        assert launch(run_l, "MSCATTER").args["kernel"] == "simt_mscatter_elem_last_kernel"
        assert launch(run_l, "MSCATTER").args["warps"] == 32  # W from the table size
        spans.append(span(run_l, "MSCATTER"))
    assert spans[0] < spans[1] < spans[2]


@pytest.mark.parametrize("mode", ["row", "elem"])
def test_conflict_last_is_deterministic_largest_flat_index_wins(mode):
    if mode == "row":
        src = np.arange(40 * 64, dtype=np.float32).reshape(40, 64) + 1
        idx = rng(3).integers(0, 6, 40)
        table = np.full((8, 64), -1, np.float32)
    else:
        src = np.arange(24 * 40, dtype=np.float32).reshape(24, 40) + 1
        idx = rng(4).integers(0, 100, (24, 40))
        table = np.full((1, 128), -1, np.float32)
    run, outs = scatter("950pr", table, src, idx, mode=mode, conflict="last", runs=2)
    assert np.array_equal(outs[0], outs[1])
    expect = table.copy()
    if mode == "row":
        for r in range(40):  # sequential: the largest row wins
            expect[idx[r]] = src[r]
    else:
        flat = expect.reshape(-1)
        flat[idx.reshape(-1)] = src.reshape(-1)  # numpy keeps the last (largest r*C + c)
    np.testing.assert_array_equal(outs[0], expect)
    assert np.all(outs[0][:, 100:] == -1) if mode == "elem" else np.all(outs[0][6:] == -1)
    assert run.findings == []


def test_conflict_last_row_copies_column_by_column_for_the_winning_slots():
    src = np.arange(4 * 64, dtype=np.float32).reshape(4, 64)
    idx = np.array([5, 2, 5, 9])
    run, out = scatter("950pr", np.zeros((48, 64), np.float32), src, idx, mode="row")
    np.testing.assert_array_equal(out[[2, 5, 9]], src[[1, 2, 3]])
    ev = launch(run, "MSCATTER")
    assert ev.args["kernel"] == "simt_mscatter_row_last_kernel"
    assert ev.args["warps"] == 2 and ev.args["written_slots"] == 3  # ceil(48 / 32) warps
    stores = [e.args for e in warp_events(run, "MSCATTER") if e.args["op"] == "st_gm"]
    loops = [e.args for e in warp_events(run, "MSCATTER") if e.args["op"] == "loop"]
    assert len(loops) == 2  # one reverse scan per slot iteration of each warp
    # slots 2, 5 and 9 belong to warp 0: 64 column stores of 3 lanes; warp 1 stores nothing
    assert len(stores) == 64 and all(a["lanes"] == 3 and a["warp"] == 0 for a in stores)


def test_conflict_default_follows_the_simulated_schedule():
    # Elem 2 x 40 with a ColMajor index tile, every source on table element 0. Warp 1 (flat
    # 32..63) reads its indices from 32 UB blocks (4 per bank group), warp 2 (64..79) from
    # 16: warp 1's index load is slower, so its store lands after warp 2's and the last lane
    # of warp 1 (flat 63) survives - not the largest flat index as under Conflict::Last.
    src = np.arange(80, dtype=np.float32).reshape(2, 40) + 1
    idx = np.zeros((2, 40))
    table = np.zeros((1, 8), np.float32)
    run, outs = scatter("950pr", table, src, idx, idx_layout="ColMajor", conflict="default", runs=2)
    assert np.array_equal(outs[0], outs[1])  # deterministic per config
    instr = state(run, "MSCATTER").instr
    landed = np.asarray(instr.simt_store_order)
    assert sorted(landed.tolist()) == list(range(80))  # every source stored once
    stores = [e.args for e in warp_events(run, "MSCATTER") if e.args["op"] == "st_gm"]
    assert sum(a["lanes"] for a in stores) == 80
    winner = int(landed[-1])
    assert outs[0][0, 0] == src.reshape(-1)[winner]
    assert np.all(outs[0][0, 1:] == 0)
    if CFG.ub_conflict_cycles > 0:
        assert winner == 63
    (f,) = run.findings
    assert f.kind == "scatter-collision"
    assert "table element 0" in f.message and f"kept ({winner // 40}, {winner % 40})" in f.message


def test_conflict_default_row_keeps_per_column_the_last_landing_row():
    R, C = 40, 64
    src = np.arange(R * C, dtype=np.float32).reshape(R, C) + 1
    idx = rng(5).integers(0, 4, R)
    run, outs = scatter(
        "950pr", np.zeros((8, C), np.float32), src, idx, mode="row", conflict="default", runs=2
    )
    assert np.array_equal(outs[0], outs[1])
    landed = np.asarray(state(run, "MSCATTER").instr.simt_store_order)
    expect = np.zeros((8, C), np.float32)
    for tag in landed:  # replay the stores in landing order
        r, c = divmod(int(tag), C)
        expect[idx[r], c] = src[r, c]
    np.testing.assert_array_equal(outs[0], expect)
    (f,) = run.findings
    assert f.kind == "scatter-collision" and "table row" in f.message


# -- trace: scheduler threads, PIPE_V, registers ----------------------------------------------
def test_simt_work_appears_on_the_scheduler_threads():
    eidx = ROWS[:, None] * 256 + np.arange(256)
    run, _ = gather("950pr", TABLE.reshape(-1), eidx, mode="elem")
    ev = launch(run, "MGATHER")
    assert ev.pipe == V and ev.dur == span(run, "MGATHER")
    assert ev.args["warps"] == 32 and ev.args["threads"] == 1024
    assert ev.args["registers_per_thread"] == 32
    warps = warp_events(run, "MGATHER")
    assert {e.pipe for e in warps} == set(SCHEDULERS)
    for e in warps:
        assert e.pipe == f"SIMT_SCHED{e.args['warp'] % 4}"
        assert 1 <= e.args["lanes"] <= 32
        assert ev.start <= e.start and e.start + e.dur <= ev.start + ev.dur
    ops = {e.args["op"] for e in warps}
    assert ops == {"ld_ub", "alu", "ld_gm", "st_ub"}
    loads = [e.args for e in warps if e.args["op"] == "ld_gm"]
    assert sum(a["sectors"] for a in loads) == ev.args["sectors"]
    assert run.pipe_busy[V] >= ev.dur


def test_row_launch_shape_and_registers():
    # R = 4 rows of 256 columns: rowWarps 4, warpsPerRow min(32 // 4, 8) = 8, W = 32
    run, got = gather("950pr", TABLE, ROWS[:4])
    np.testing.assert_array_equal(got, TABLE[ROWS[:4]])
    ev = launch(run, "MGATHER")
    assert (ev.args["rowWarps"], ev.args["warpsPerRow"], ev.args["warps"]) == (4, 8, 32)
    # R = 8 rows of 16 columns: one column chunk, W = 8 warps of 256 threads: 127 registers
    narrow = TABLE[:, :16].copy()
    run, got = gather("950pr", narrow, ROWS[:8])
    np.testing.assert_array_equal(got, narrow[ROWS[:8]])
    ev = launch(run, "MGATHER")
    assert ev.args["warps"] == 8 and ev.args["registers_per_thread"] == 127
    lanes = {e.args["lanes"] for e in warp_events(run, "MGATHER") if e.args["op"] == "ld_gm"}
    assert lanes == {16}  # the lanes past the valid columns are inactive


# -- scalar fallback and GM -> L1 -------------------------------------------------------------
def _flag_seq(run, opcode):
    return [
        (e.kind, e.pipe)
        for e in sorted(events(run, opcode), key=lambda e: (e.start, e.kind != "set_flag"))
        if e.kind in ("set_flag", "wait_flag", "scalar")
    ]


def test_static_1x1_elem_gather_is_the_scalar_fallback():
    flat = TABLE.reshape(-1)
    run, got = gather("950pr", flat, np.array([[777]]), mode="elem")
    assert got[0, 0] == flat[777]
    assert events(run, "MGATHER", kind="simt") == []
    assert _flag_seq(run, "MGATHER") == [
        ("set_flag", V),
        ("wait_flag", S),
        ("scalar", S),
        ("set_flag", S),
        ("wait_flag", V),
    ]
    (step,) = events(run, "MGATHER", kind="scalar")
    assert step.args["gm_loads"] == 1 and step.args["gm_misses"] == 1


def test_static_1x1_elem_scatter_is_the_scalar_fallback():
    steps = {}
    for atomic in ("none", "add"):
        table = np.full((1, 16), 2, np.float32)
        run, out = scatter("950pr", table, np.full((1, 1), 5, np.float32), [[9]], atomic=atomic)
        assert out[0, 9] == (5 if atomic == "none" else 7)
        assert events(run, "MSCATTER", kind="simt") == []
        assert _flag_seq(run, "MSCATTER") == [
            ("set_flag", V),
            ("wait_flag", S),
            ("scalar", S),
            ("set_flag", S),
            ("wait_flag", V),
        ]
        (steps[atomic],) = events(run, "MSCATTER", kind="scalar")
    # the read-modify-write adds the GM load (through the data cache) and the add
    assert steps["add"].dur > steps["none"].dur
    assert steps["add"].args["gm_loads"] == 1


def _gm2l1(devname, gather_exec, mode="elem"):
    dev = pto.Device(devname)
    R, C, size = 32, 64, 4096
    table = rng(6).standard_normal(size).astype(np.float32)
    if mode == "row":
        table = table.reshape(64, C)
        index = rng(7).integers(0, 64, R).astype(np.int32)
    else:
        index = rng(7).integers(0, size, (R, C)).astype(np.int32)
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(index)
    sbuf = dev.gm_zeros((R * C,), "float32")
    dst = pto.Tile("Mat", "float32", R, C, "ColMajor", slayout="RowMajor")

    @pto.kernel
    def k():
        tab = pto.GlobalTensor(tbuf, (1, 1, 1) + ((1, size) if mode == "elem" else table.shape))
        idx = pto.GlobalTensor(ibuf, (1, 1, 1) + ((R, C) if mode == "elem" else (1, R)))
        scratch = None
        if mode == "elem":
            scratch = pto.GlobalTensor(sbuf, (1, 1, 1, 1, R * C))
        pto.MGATHER(dst, tab, idx, coalesce=mode, scratch=scratch, gather_exec=gather_exec)

    run = dev.run(k)
    want = table[index]
    r, c = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    nz = (c // 8) * R * 8 + r * 8 + c % 8
    got = run.tile_storage(dst)[nz]
    np.testing.assert_array_equal(got, want)
    return run


def test_gm_to_l1_simt_stages_through_scratch_then_one_mte2_copy():
    run = _gm2l1("950pr", "simt")
    ev = launch(run, "MGATHER")
    assert ev.pipe == V and ev.args["warps"] == 32
    stores = [e.args for e in warp_events(run, "MGATHER") if e.args["op"] == "st_gm"]
    assert sum(a["lanes"] for a in stores) == 32 * 64  # the whole padded NZ tile
    (copy,) = events(run, "MGATHER", kind="dma", pipe=MTE2)
    assert copy.bytes == 32 * 64 * 4
    waits = [e for e in events(run, "MGATHER", kind="wait_flag")]
    assert [(e.args["src"], e.args["dst"]) for e in sorted(waits, key=lambda e: e.start)] == [
        (V, S),
        (S, MTE2),
    ]
    assert ev.start + ev.dur <= copy.start  # V -> S -> MTE2 orders the copy after the launch
    scalar = _gm2l1("950pr", "scalar")
    assert events(scalar, "MGATHER", kind="simt") == []
    assert span(run, "MGATHER") < span(scalar, "MGATHER")  # 2048 scalar GM loads vs SIMT


def test_gm_to_l1_row_is_the_dma_plan():
    run = _gm2l1("950pr", "scalar", mode="row")
    dmas = events(run, "MGATHER", kind="dma", pipe=MTE2)
    assert len(dmas) == 32 and all(d.bytes == 64 * 4 for d in dmas)
    assert events(run, "MGATHER", kind="simt") == []
    names = [e.name for e in events(run, "MGATHER", pipe=S)]
    assert "set_mte2_nz_para" in names


# -- benchmark-like sanity --------------------------------------------------------------------
def test_benchmark_sized_launches_simulate_quickly():
    cases = [
        lambda: gather("950pr", TABLE, ROWS, mode="row"),
        lambda: gather(
            "950pr", TABLE.reshape(-1), ROWS[:, None] * 256 + np.arange(256), mode="elem"
        ),
        lambda: scatter(
            "950pr",
            np.zeros((64, 64), np.float32),
            np.ones((64, 64), np.float32),
            rng(8).integers(0, 64 * 64, (64, 64)),
            conflict="last",
        ),
    ]
    for case in cases:
        t0 = time.perf_counter()
        run, _ = case()
        assert time.perf_counter() - t0 < 2.0
        assert run.cycles > 0
