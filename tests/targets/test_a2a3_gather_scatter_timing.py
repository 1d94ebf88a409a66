"""Timed MGATHER / MSCATTER on Atlas A2/A3: results of synchronised and unsynchronised kernels,
the flag chains of semantics.md 4.3 in the trace, and timing relations that follow from the
model (Row vs Elem, per-row serialisation of MSCATTER None, linearity in rows, data cache).

Timing assertions are relations, never cycle counts. Kernels whose timing depends on the index
values synchronise with MTE2 -> S before the instruction: the scalar pipe then plans the
instruction once the index tile has landed (plans read memory at issue time).
"""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.devices import A2A3_TIMED

TIMED = A2A3_TIMED
S, V, MTE2, MTE3 = "PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3"
FLAG_KINDS = ("set_flag", "wait_flag")

# semantics.md 4.3, written out independently of the plans
GATHER_ROW = {
    "pro": [(V, S), (MTE3, S)],
    "epi": [(S, MTE2), (MTE2, V), (MTE2, MTE3), (S, V), (S, MTE3)],
}
GATHER_ELEM = {"pro": [(V, S), (MTE3, S), (MTE2, S)], "epi": [(S, V), (S, MTE2), (S, MTE3)]}
SCATTER_ELEM = {"pro": [(V, S), (MTE2, S), (MTE3, S)], "epi": [(S, V), (S, MTE2), (S, MTE3)]}


def _sync(src, dst):
    pto.set_flag(src, dst, pto.EVENT_ID0)
    pto.wait_flag(src, dst, pto.EVENT_ID0)


# -- kernels ---------------------------------------------------------------------------------
def gather(
    devname,
    table,
    index,
    *,
    mode="row",
    oob="clamp",
    sync="v",
    shape=None,
    layout="ND",
    dst_tile=None,
    store=True,
):
    """TLOAD(idx); [sync]; MGATHER; V->MTE3; TSTORE. Returns (run, out array, dst tile)."""
    dev = pto.Device(devname)
    index = np.asarray(index, np.int32)
    if mode == "row":
        index = index.reshape(1, -1)
        R = index.shape[1]
        C = table.shape[-1] if dst_tile is None else dst_tile.valid[1]
    else:
        R, C = index.shape
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(index)
    out = dev.gm_zeros((R, C), table.dtype.name)
    dst = dst_tile or pto.Tile("Vec", table.dtype.name, R, C)
    icols = -(-index.shape[1] // 8) * 8
    idx = pto.Tile("Vec", "int32", index.shape[0], icols, valid=index.shape)
    shape = shape or (1, 1, 1) + table.shape

    @pto.kernel
    def k():
        pto.TLOAD(idx, pto.GlobalTensor(ibuf, (1, 1, 1) + index.shape))
        if sync == "v":  # the documented caller pattern
            _sync(pto.PIPE_MTE2, pto.PIPE_V)
        elif sync == "s":  # S waits too: the plan sees the landed index
            _sync(pto.PIPE_MTE2, pto.PIPE_S)
        pto.MGATHER(dst, pto.GlobalTensor(tbuf, shape, layout=layout), idx, coalesce=mode, oob=oob)
        if store:
            _sync(pto.PIPE_V, pto.PIPE_MTE3)
            pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, R, C)), dst)

    run = dev.run(k)
    return run, out.numpy(), dst


def scatter(
    devname,
    table,
    src,
    index,
    *,
    mode="row",
    atomic="none",
    oob="undefined",
    shape=None,
    layout="ND",
    nz_valid=None,
):
    """TLOAD(src); TLOAD(idx); pipe_barrier(ALL); MSCATTER. Returns (run, table after).

    ``nz_valid``: src is loaded into an NZ tile of src's shape, then given this valid shape."""
    dev = pto.Device(devname)
    index = np.asarray(index, np.int32)
    index = index.reshape(1, -1) if mode == "row" else index
    R, C = src.shape
    src_gm = (1, 1, 1, R, C)
    if nz_valid is not None:
        c0 = 32 // src.itemsize
        src_gm = (1, C // c0, R // 16, 16, c0)
        src = src.reshape(R // 16, 16, C // c0, c0).transpose(2, 0, 1, 3).copy()
    tbuf, sbuf, ibuf = dev.gm_array(table), dev.gm_array(src), dev.gm_array(index)
    if nz_valid is None:
        s = pto.Tile("Vec", src.dtype.name, R, C)
    else:
        s = pto.Tile("Vec", src.dtype.name, R, C, "ColMajor", slayout="RowMajor")
    icols = -(-index.shape[1] // 8) * 8
    i = pto.Tile("Vec", "int32", index.shape[0], icols, valid=index.shape)
    shape = shape or (1, 1, 1) + table.shape

    @pto.kernel
    def k():
        pto.TLOAD(s, pto.GlobalTensor(sbuf, src_gm, layout="ND" if nz_valid is None else "NZ"))
        pto.TLOAD(i, pto.GlobalTensor(ibuf, (1, 1, 1) + index.shape))
        if nz_valid is not None:
            s.set_valid(*nz_valid)
        pto.pipe_barrier(pto.PIPE_ALL)
        pto.MSCATTER(
            pto.GlobalTensor(tbuf, shape, layout=layout),
            s,
            i,
            coalesce=mode,
            atomic=atomic,
            oob=oob,
        )

    run = dev.run(k)
    return run, tbuf.numpy()


# -- trace helpers ---------------------------------------------------------------------------
def state(run, opcode):
    (st,) = [s for s in run.instructions if s.instr.opcode == opcode]
    return st


def span(run, opcode) -> int:
    st = state(run, opcode)
    return st.end - st.start


def events(run, opcode, kind=None, pipe=None):
    pos = state(run, opcode).instr.position
    evs = [
        e
        for e in run.trace.events
        if e.instr == pos and (kind is None or e.kind == kind) and (pipe is None or e.pipe == pipe)
    ]
    return sorted(evs, key=lambda e: (e.start, e.start + e.dur))


def per_pipe(program, pipes):
    """Expected in-order sequence on each pipe of a program of ("flag", src, dst),
    ("body", pipe) and ("ctl", label) items; consecutive body markers collapse."""
    out = {}
    for p in pipes:
        seq = []
        for item in program:
            if item[0] == "flag":
                _, a, b = item
                if a == p:
                    seq.append(("set", a, b))
                if b == p:
                    seq.append(("wait", a, b))
            elif item[0] == "body" and item[1] == p:
                seq.append("body")
            elif item[0] == "ctl" and p == S:
                seq.append(item[1])
            if len(seq) >= 2 and seq[-1] == "body" and seq[-2] == "body":
                seq.pop()
        out[p] = seq
    return out


def observed(run, opcode, pipes):
    out = {}
    for p in pipes:
        seq = []
        for e in events(run, opcode, pipe=p):
            if e.kind == "set_flag":
                seq.append(("set", e.args["src"], e.args["dst"]))
            elif e.kind == "wait_flag":
                seq.append(("wait", e.args["src"], e.args["dst"]))
            elif e.name.startswith("set_atomic"):
                seq.append(e.name)
            elif not seq or seq[-1] != "body":
                seq.append("body")
        out[p] = seq
    return out


def flag_items(pairs):
    return [("flag", a, b) for a, b in pairs]


def mte3_s_waits(run, opcode):
    pos = state(run, opcode).instr.position
    return [
        w
        for w in run.trace.waits
        if w.instr == pos and w.pipe == S and w.what == "wait_flag(PIPE_MTE3, PIPE_S, EVENT_ID0)"
    ]


def rng(seed):
    return np.random.default_rng(seed)


# -- results ---------------------------------------------------------------------------------
@pytest.mark.parametrize("devname", TIMED)
@pytest.mark.parametrize("mode", ["row", "elem"])
def test_synchronised_gather_gives_the_reference(devname, mode):
    N, C, R = 32, 64, 8
    table = rng(1).standard_normal((N, C)).astype(np.float32)
    if mode == "row":
        index = rng(2).integers(0, N + 8, R)
        expected = table[np.minimum(index, N - 1)]
    else:
        index = rng(2).integers(0, N * C + 50, (R, C))
        expected = table.reshape(-1)[np.minimum(index, N * C - 1)]
    run, out, _ = gather(devname, table, index, mode=mode, oob="clamp")
    assert np.array_equal(out, expected)
    assert run.cycles > 0 and run.findings == []


@pytest.mark.parametrize("devname", TIMED)
def test_missing_mte2_v_wait_gathers_rows_with_the_stale_index(devname):
    """Row MGATHER's own prologue (V->S, MTE3->S) does not wait for the TLOAD on MTE2: the
    scalar unit reads the index tile before it lands, i.e. the UB poison 0xFFFFFFFF, which
    GatherOOB::Clamp maps to the last table row - deterministically."""
    N, C = 16, 32
    table = rng(3).standard_normal((N, C)).astype(np.float32)
    index = np.array([3, 0, 7, 12])
    good, ref, _ = gather(devname, table, index, sync="v")
    assert np.array_equal(ref, table[index])
    _, stale1, _ = gather(devname, table, index, sync=None)
    _, stale2, _ = gather(devname, table, index, sync=None)
    assert stale1.tobytes() == stale2.tobytes()
    assert not np.array_equal(stale1, ref)
    assert np.array_equal(stale1, np.broadcast_to(table[N - 1], ref.shape))


@pytest.mark.parametrize("devname", TIMED)
def test_elem_gather_prologue_waits_for_mte2_by_itself(devname):
    """Elem MGATHER's prologue includes MTE2->S, so the index TLOAD lands first even without
    the caller's MTE2->V wait."""
    table = rng(4).standard_normal((16, 32)).astype(np.float32)
    index = rng(5).integers(0, table.size, (4, 32))
    _, out, _ = gather(devname, table, index, mode="elem", sync=None)
    assert np.array_equal(out, table.reshape(-1)[index])


@pytest.mark.parametrize("devname", TIMED)
def test_scatter_row_none_and_add_results(devname):
    N, C = 16, 32
    table = rng(6).standard_normal((N, C)).astype(np.float32)
    src = rng(7).standard_normal((6, C)).astype(np.float32)
    index = np.array([4, 9, 4, 0, 15, 9])
    _, got = scatter(devname, table, src, index)
    want = table.copy()
    for r, k in enumerate(index):  # last writer wins
        want[k] = src[r]
    assert np.array_equal(got, want)
    _, got = scatter(devname, table, src, index, atomic="add")
    want = table.copy()
    for r, k in enumerate(index):
        want[k] = want[k] + src[r]
    assert np.array_equal(got, want)


# -- flag chains (semantics.md 4.3) ----------------------------------------------------------
def _nz_table(L, W, c0):
    table = rng(8).integers(-50, 50, (L, W)).astype(np.float32)
    buf = table.reshape(L // 16, 16, 1, W // c0, c0).transpose(2, 3, 0, 1, 4).copy()
    return table, buf, (1, W // c0, L // 16, 16, c0)


def _nz_tile(R, C, valid=None):
    return pto.Tile("Vec", "float32", R, C, "ColMajor", valid=valid, slayout="RowMajor")


@pytest.mark.parametrize("devname", TIMED)
@pytest.mark.parametrize("layout", ["ND", "NZ"])
def test_gather_row_flag_chain(devname, layout):
    R = 5
    if layout == "ND":
        table = rng(9).standard_normal((16, 32)).astype(np.float32)
        run, out, _ = gather(devname, table, [1, 5, 2, 9, 0], store=False)
        shape = None
    else:
        t2d, buf, shape = _nz_table(32, 16, 8)
        run, _, dst = gather(
            devname,
            buf,
            [1, 5, 31, 9, 0],
            shape=shape,
            layout="NZ",
            dst_tile=_nz_tile(16, 16, (R, 16)),
            store=False,
        )
        assert np.array_equal(run.tile(dst), t2d[[1, 5, 31, 9, 0]])
    program = (
        flag_items(GATHER_ROW["pro"])
        + [("body", S), ("body", MTE2)] * R
        + flag_items(GATHER_ROW["epi"])
    )
    pipes = (S, V, MTE2, MTE3)
    assert observed(run, "MGATHER", pipes) == per_pipe(program, pipes)


@pytest.mark.parametrize("devname", TIMED)
@pytest.mark.parametrize("layout", ["ND", "NZ"])
def test_gather_elem_flag_chain(devname, layout):
    if layout == "ND":
        table = rng(10).standard_normal((16, 32)).astype(np.float32)
        index = rng(11).integers(0, table.size, (4, 32))
        run, out, _ = gather(devname, table, index, mode="elem")
        assert np.array_equal(out, table.reshape(-1)[index])
    else:
        t2d, buf, shape = _nz_table(32, 16, 8)
        index = rng(11).integers(0, t2d.size, (16, 16))
        run, _, dst = gather(
            devname,
            buf,
            index,
            mode="elem",
            shape=shape,
            layout="NZ",
            dst_tile=_nz_tile(16, 16),
            store=False,
        )
        assert np.array_equal(run.tile(dst), t2d.reshape(-1)[index])
    program = flag_items(GATHER_ELEM["pro"]) + [("body", S)] + flag_items(GATHER_ELEM["epi"])
    pipes = (S, V, MTE2, MTE3)
    assert observed(run, "MGATHER", pipes) == per_pipe(program, pipes)
    assert not events(run, "MGATHER", kind="dma")  # pure scalar copies


@pytest.mark.parametrize("devname", TIMED)
@pytest.mark.parametrize("atomic", ["none", "add"])
@pytest.mark.parametrize("layout", ["ND", "NZ"])
def test_scatter_row_flag_chain(devname, atomic, layout):
    R = 4
    index = [3, 0, 17, 3]
    src = rng(12).standard_normal((16 if layout == "NZ" else R, 16)).astype(np.float32)
    if layout == "ND":
        table = np.zeros((20, 16), np.float32)
        run, _ = scatter(devname, table, src, index, atomic=atomic)
    else:
        _, buf, shape = _nz_table(32, 16, 8)
        run, got = scatter(
            devname, buf, src, index, atomic=atomic, shape=shape, layout="NZ", nz_valid=(R, 16)
        )
        assert got.size == buf.size
    pro = [(V, S), (MTE2, S)]
    if atomic == "none":
        program = (
            flag_items(pro + [(S, MTE3)])
            + [("body", S), ("body", MTE3), ("flag", MTE3, S)] * R
            + flag_items([(MTE3, V), (MTE3, MTE2)])
        )
    else:
        program = (
            flag_items(pro)
            + [("ctl", "set_atomic_f32"), ("ctl", "set_atomic_add")]
            + flag_items([(S, MTE3)])
            + [("body", S), ("body", MTE3)] * R
            + flag_items([(MTE3, S)])
            + [("ctl", "set_atomic_none")]
            + flag_items([(S, V), (S, MTE2), (MTE3, V), (MTE3, MTE2)])
        )
    pipes = (S, V, MTE2, MTE3)
    assert observed(run, "MSCATTER", pipes) == per_pipe(program, pipes)


@pytest.mark.parametrize("devname", TIMED)
@pytest.mark.parametrize("atomic", ["none", "add"])
def test_scatter_elem_flag_chain(devname, atomic):
    table = np.zeros((8, 32), np.float32)
    src = rng(13).standard_normal((4, 32)).astype(np.float32)
    index = rng(14).permutation(table.size)[:128].reshape(4, 32)
    run, got = scatter(devname, table, src, index, mode="elem", atomic=atomic)
    want = table.reshape(-1).copy()
    want[index.reshape(-1)] = src.reshape(-1)  # distinct indices: None and Add agree here
    assert np.array_equal(got.reshape(-1), want)
    program = flag_items(SCATTER_ELEM["pro"]) + [("body", S)] + flag_items(SCATTER_ELEM["epi"])
    pipes = (S, V, MTE2, MTE3)
    assert observed(run, "MSCATTER", pipes) == per_pipe(program, pipes)
    assert not events(run, "MSCATTER", kind="dma")


# -- timing relations ------------------------------------------------------------------------
@pytest.mark.parametrize("devname", TIMED)
def test_row_gather_beats_elem_gather_in_bytes_per_cycle(devname):
    N, R, C = 128, 64, 256
    table = rng(15).standard_normal((N, C)).astype(np.float32)
    rows = rng(16).permutation(N)[:R]
    run_row, out_row, _ = gather(devname, table, rows, sync="s")
    elem_idx = rows[:, None] * C + np.arange(C)[None, :]
    run_elem, out_elem, _ = gather(devname, table, elem_idx, mode="elem", sync="s")
    assert np.array_equal(out_row, table[rows]) and np.array_equal(out_elem, table[rows])
    nbytes = R * C * 4
    assert state(run_row, "MGATHER").bytes == nbytes  # R DMAs of C*4 bytes
    row_bw = nbytes / span(run_row, "MGATHER")
    elem_bw = nbytes / span(run_elem, "MGATHER")
    assert row_bw > elem_bw
    assert run_row.cycles < run_elem.cycles


def _row_spans(devname, R, what):
    C = 64
    if what == "gather":
        table = rng(17).standard_normal((64, C)).astype(np.float32)
        run, _, _ = gather(devname, table, np.arange(R) % 64, sync="s")
        return span(run, "MGATHER")
    table = np.zeros((64, C), np.float32)
    src = rng(18).standard_normal((R, C)).astype(np.float32)
    run, _ = scatter(devname, table, src, np.arange(R) % 64, atomic=what)
    return span(run, "MSCATTER")


@pytest.mark.parametrize("devname", TIMED)
@pytest.mark.parametrize("what", ["gather", "none", "add"])
def test_row_mode_cycles_grow_linearly_in_rows(devname, what):
    R = 8
    c1, c2, c3 = (_row_spans(devname, n * R, what) for n in (1, 2, 3))
    d1, d2 = c2 - c1, c3 - c2
    assert d1 > 0 and d2 > 0
    assert abs(d2 - d1) <= 0.02 * d1


@pytest.mark.parametrize("devname", TIMED)
def test_scatter_row_add_does_not_wait_per_row(devname):
    R, C = 12, 64
    table = np.zeros((32, C), np.float32)
    src = rng(19).standard_normal((R, C)).astype(np.float32)
    index = rng(20).permutation(32)[:R]
    run_none, _ = scatter(devname, table, src, index, atomic="none")
    run_add, _ = scatter(devname, table, src, index, atomic="add")
    assert span(run_add, "MSCATTER") < span(run_none, "MSCATTER")
    # None: the scalar unit waits for each row's DMA; Add: one wait, after the last DMA
    assert len(mte3_s_waits(run_none, "MSCATTER")) == R
    waits_add = mte3_s_waits(run_add, "MSCATTER")
    assert len(waits_add) == 1
    last_dma = max(e.start + e.dur for e in events(run_add, "MSCATTER", kind="dma"))
    assert waits_add[0].end >= last_dma
    # every row's DMA finishes before the next row's DMA starts in both; with None the next
    # DMA cannot even be issued before the previous one completes (gap > 0)
    for run, gapped in ((run_none, True), (run_add, False)):
        dmas = events(run, "MSCATTER", kind="dma")
        assert len(dmas) == R
        gaps = [b.start - (a.start + a.dur) for a, b in zip(dmas, dmas[1:])]
        assert all(g > 0 for g in gaps) if gapped else all(g == 0 for g in gaps)


@pytest.mark.parametrize("devname", TIMED)
def test_elem_gather_scattered_indices_miss_the_data_cache(devname):
    R, C = 8, 64
    size = 1 << 16  # 256 KiB of float32, more than the 32 KiB data cache
    table = rng(21).standard_normal(size).astype(np.float32).reshape(1, size)
    contiguous = np.arange(R * C).reshape(R, C)
    scattered = ((np.arange(R * C) * 97 * 16) % size).reshape(R, C)  # one 64 B line each
    assert len(np.unique(scattered // 16)) == R * C
    spans, misses = [], []
    for index in (contiguous, scattered):
        run, out, _ = gather(devname, table, index, mode="elem", sync="s")
        assert np.array_equal(out, table[0, index])
        spans.append(span(run, "MGATHER"))
        misses.append(sum(e.args["gm_misses"] for e in events(run, "MGATHER", kind="scalar")))
    line_elems = pto.Device(devname).config.timing.scalar.dcache_line_bytes // 4
    assert misses[0] == R * C // line_elems and misses[1] == R * C
    assert spans[1] > spans[0]


@pytest.mark.parametrize("devname", TIMED)
def test_plan_follows_the_landed_index(devname):
    """With MTE2->S before MGATHER the plan reads the landed index: one DMA per row, from the
    remapped row, C*sizeof(T) bytes each."""
    N, C = 16, 32
    table = rng(22).standard_normal((N, C)).astype(np.float32)
    index = np.array([5, 40, 0, 15, 7])
    run, out, _ = gather(devname, table, index, sync="s")
    k = np.minimum(index, N - 1)
    assert np.array_equal(out, table[k])
    dmas = events(run, "MGATHER", kind="dma")
    assert [e.args["index"] for e in dmas] == k.tolist()
    assert all(e.args["nBurst"] == 1 and e.args["lenBurst"] == C * 4 for e in dmas)
    assert all(e.pipe == MTE2 for e in dmas)


@pytest.mark.parametrize("devname", TIMED)
def test_out_of_range_rows_cost_the_branch_but_no_dma(devname):
    N, C = 16, 64
    table = rng(23).standard_normal((N, C)).astype(np.float32)
    index = np.array([1, 99, 3, 200, 5, 7, 300, 2])
    live = index < N
    run_zero, out, _ = gather(devname, table, index, oob="zero", sync="s")
    want = np.where(live[:, None], table[np.minimum(index, N - 1)], 0)
    assert np.array_equal(out, want)
    assert len(events(run_zero, "MGATHER", kind="dma")) == live.sum()
    zero_rows = [e for e in events(run_zero, "MGATHER", kind="scalar") if e.args.get("oob")]
    assert sorted(e.args["row"] for e in zero_rows) == np.flatnonzero(~live).tolist()
    run_clamp, _, _ = gather(devname, table, index, oob="clamp", sync="s")
    assert len(events(run_clamp, "MGATHER", kind="dma")) == len(index)
    assert span(run_zero, "MGATHER") < span(run_clamp, "MGATHER")
    # MSCATTER Skip: the skipped rows have no DMA and no per-row MTE3->S wait
    src = rng(24).standard_normal((len(index), C)).astype(np.float32)
    run_skip, got = scatter(devname, np.zeros((N, C), np.float32), src, index, oob="skip")
    assert np.array_equal(got[index[live]], src[live])
    assert len(events(run_skip, "MSCATTER", kind="dma")) == live.sum()
    assert len(mte3_s_waits(run_skip, "MSCATTER")) == live.sum()


@pytest.mark.parametrize("devname", TIMED)
def test_nz_row_dma_descriptors(devname):
    """NZ Row: per readable row and per i < gShape0 one DMA of gShape1 bursts of 32 B."""
    L, W, R = 32, 32, 6
    table = rng(25).integers(-9, 9, (L, W)).astype(np.float32)
    s0, c0 = 2, 8
    s1 = W // c0 // s0
    buf = table.reshape(L // 16, 16, s0, s1, c0).transpose(2, 3, 0, 1, 4).copy()
    shape = (s0, s1, L // 16, 16, c0)
    index = np.array([0, 31, 77, 4, 16, 90])
    live = index < L
    run, _, dst = gather(
        devname,
        buf,
        index,
        oob="zero",
        sync="s",
        shape=shape,
        layout="NZ",
        dst_tile=_nz_tile(16, W, (R, W)),
        store=False,
    )
    want = np.where(live[:, None], table[np.minimum(index, L - 1)], 0)
    assert np.array_equal(run.tile(dst), want)
    dmas = events(run, "MGATHER", kind="dma")
    assert len(dmas) == live.sum() * s0
    assert all(e.args["nBurst"] == s1 and e.args["lenBurst"] == 32 for e in dmas)
    fills = [e for e in events(run, "MGATHER", kind="scalar") if e.name.startswith("zero fill")]
    assert sum(e.args["elements"] for e in fills) == 16 * W  # the whole tile, Rows*Cols
    assert max(e.start + e.dur for e in fills) <= min(e.start for e in dmas)


# -- GM -> L1 --------------------------------------------------------------------------------
def _l1_gather(devname, table, index, *, mode, oob, R, C):
    dev = pto.Device(devname)
    tbuf, ibuf = dev.gm_array(table), dev.gm_array(np.asarray(index, np.int32))
    sbuf = dev.gm_zeros((R * C,), "float32")
    dst = pto.Tile("Mat", "float32", R, C, "ColMajor", slayout="RowMajor")
    ishape = (1, 1, 1, 1, R) if mode == "row" else (1, 1, 1, R, C)

    @pto.kernel
    def k():
        extra = {} if mode == "row" else {"scratch": pto.GlobalTensor(sbuf, (1, 1, 1, 1, R * C))}
        pto.MGATHER(
            dst,
            pto.GlobalTensor(tbuf, (1, 1, 1) + table.shape),
            pto.GlobalTensor(ibuf, ishape),
            coalesce=mode,
            oob=oob,
            **extra,
        )

    return dev.run(k), dst


@pytest.mark.parametrize("devname", TIMED)
@pytest.mark.parametrize("oob", ["clamp", "zero"])
def test_gm_to_l1_row(devname, oob):
    N, R, C = 20, 16, 16
    table = rng(26).standard_normal((N, C)).astype(np.float32)
    index = rng(27).integers(0, N + 10, R)
    live = index < N if oob == "zero" else np.ones(R, bool)
    run, dst = _l1_gather(devname, table, index, mode="row", oob=oob, R=R, C=C)
    want = np.where(live[:, None], table[np.minimum(index, N - 1)], 0)
    assert np.array_equal(run.tile(dst), want)
    mte2 = events(run, "MGATHER", pipe=MTE2)
    dmas = [e for e in mte2 if e.name.endswith("nd2nz")]
    assert len(dmas) == live.sum() and all(e.args["lenBurst"] == C * 4 for e in dmas)
    if oob == "zero":  # the prefill runs on MTE2 before the row DMAs
        assert mte2[0].name.startswith("create_cbuf_matrix")
    program = [("body", S), ("body", MTE2)] + flag_items([(S, MTE2)])
    assert observed(run, "MGATHER", (S, MTE2)) == per_pipe(program, (S, MTE2))


@pytest.mark.parametrize("devname", TIMED)
def test_gm_to_l1_elem(devname):
    N, R, C = 64, 16, 16
    table = rng(28).standard_normal((N, C)).astype(np.float32)
    index = rng(29).integers(0, table.size, (R, C))
    run, dst = _l1_gather(devname, table, index, mode="elem", oob="clamp", R=R, C=C)
    assert np.array_equal(run.tile(dst), table.reshape(-1)[index])
    (copy,) = events(run, "MGATHER", kind="dma")
    assert copy.pipe == MTE2 and copy.bytes == R * C * 4
    program = [("body", S)] + flag_items([(S, MTE2)]) + [("body", MTE2)]
    assert observed(run, "MGATHER", (S, MTE2)) == per_pipe(program, (S, MTE2))
    scalar_end = max(e.start + e.dur for e in events(run, "MGATHER", kind="scalar"))
    assert copy.start >= scalar_end
