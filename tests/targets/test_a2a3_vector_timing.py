"""A2/A3 timing of the vector-core instructions TSCATTER and TROWEXPAND* (targets/a2a3).

Every assertion is a relation that follows from the model (semantics.md 3.3, 3.4, 4.3; the cost
structure of timing.md 2): pipes overlap unless a flag orders them, scalar loops grow with the
element count, mode 1 pays vbrcb + pipe_barrier(V) over mode 2, the count/norm switch happens
where the reference's rule puts it, flags order the data. No cycle count is copied from the
implementation.
"""

import numpy as np
import pytest

import ptosim as pto
from ptosim.isa.base import ExecContext
from ptosim.isa.rowexpand import TRowExpandBinary, tmp_bytes_needed
from ptosim.memory import GlobalMemory, Scratchpad
from ptosim.plan import Region, StepKind
from ptosim.targets import a2a3
from ptosim.tensors import Placement
from tests.helpers.devices import A2A3_TIMED
from tests.helpers.kernels import vec

TIMED = A2A3_TIMED


# -- helpers ------------------------------------------------------------------------------
def sync(src, dst, event=0):
    pto.set_flag(src, dst, event)
    pto.wait_flag(src, dst, event)


def gt(buf, rows, cols, layout="ND"):
    return pto.GlobalTensor(buf, (1, 1, 1, rows, cols), layout=layout)


def events(run, *, opcode=None, pipe=None, kind=None, instr=None):
    return [
        e
        for e in run.trace.events
        if (opcode is None or e.opcode == opcode)
        and (pipe is None or e.pipe == pipe)
        and (kind is None or e.kind == kind)
        and (instr is None or e.instr == instr)
    ]


def busy(evs):
    return sum(e.dur for e in evs)


def span(evs):
    return max(e.start + e.dur for e in evs) - min(e.start for e in evs)


def rowexpand_run(device, R, C, *, cols=None, mode=2, dtype="float32", op="MAX", tmp=False):
    """TLOAD full (R x C, tile R x cols) and E; MTE2 -> V; TROWEXPAND<op>; return the run."""
    dev = pto.Device(device)
    cols = cols or C
    npdt = np.dtype(pto.dtypes.dtype(dtype).np)
    bs = 32 // npdt.itemsize
    rng = np.random.default_rng(R * 1000 + C)
    full = rng.integers(-50, 50, size=(R, C)).astype(npdt)
    f, d = vec(dtype, R, cols, valid=(R, C)), vec(dtype, R, cols, valid=(R, C))
    if mode == 1:
        e_rows = -(-R // bs) * bs
        edata = rng.integers(-50, 50, size=(R, 1)).astype(npdt)
        e = vec(dtype, e_rows, 1, "ColMajor", valid=(R, 1))
        e_gm = gt(dev.gm_array(edata.T.copy()), R, 1, "DN")
    else:
        edata = rng.integers(-50, 50, size=(R, bs)).astype(npdt)
        e = vec(dtype, R, bs)
        e_gm = gt(dev.gm_array(edata), R, bs)
    t = vec(dtype, 1, tmp_bytes_needed(R) // npdt.itemsize) if tmp else None
    g = dev.gm_array(full)

    @pto.kernel
    def k(g):
        addr = 0
        for tile in (f, d, e) + ((t,) if t is not None else ()):
            pto.TASSIGN(tile, addr)
            addr += tile.geom.size_bytes
        pto.TLOAD(f, gt(g, R, C))
        pto.TLOAD(e, e_gm)
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        getattr(pto, f"TROWEXPAND{op}")(d, f, e, *((t,) if t is not None else ()))

    run = dev.run(k, g)
    eb = np.repeat(edata, C, axis=1) if mode == 1 else edata[:, np.arange(C) % bs]
    if op == "MAX":
        np.testing.assert_array_equal(run.tile(d), np.maximum(full, eb))
    return run


def op_steps(run, opcode="TROWEXPANDMAX"):
    """The binary-op intrinsics (not vbrcb) of the instruction."""
    return [e for e in events(run, opcode=opcode, kind="vector") if e.args["intrinsic"] != "vbrcb"]


def plan_of(device, instr_factory):
    """Plan an instruction directly (regions are not in the trace)."""
    dev = pto.Device(device)
    ctx = ExecContext(
        dev.arch,
        Scratchpad("UB", dev.arch.ub_size_bytes),
        Scratchpad("L1", dev.arch.l1_size_bytes),
        GlobalMemory(),
    )
    ctx.config = dev.config
    instr = instr_factory()
    instr.check(dev.arch)
    return a2a3.plan(instr, ctx)


def placed(tile, address):
    tile.placement = Placement(address, auto=False)
    return tile.ref()


# -- pipes overlap unless ordered ---------------------------------------------------------
@pytest.mark.parametrize("device", TIMED)
def test_tload_overlaps_vector_op_but_tloads_serialise(device):
    """A TLOAD on MTE2 and a V op on already-loaded tiles, with no flag between them, run at
    the same time; two TLOADs share MTE2 and run one after the other."""
    dev = pto.Device(device)
    R, C = 32, 256
    rng = np.random.default_rng(1)
    full = rng.standard_normal((R, C)).astype(np.float32)
    blk = rng.standard_normal((R, 8)).astype(np.float32)
    other = rng.standard_normal((R, C)).astype(np.float32)
    f, d, e, x = (
        vec("float32", R, C),
        vec("float32", R, C),
        vec("float32", R, 8),
        vec("float32", R, C),
    )
    gf, ge, gx = dev.gm_array(full), dev.gm_array(blk), dev.gm_array(other)

    @pto.kernel
    def k(gf, ge, gx):
        for tile, addr in ((f, 0), (d, 0x8000), (e, 0x10000), (x, 0x11000)):
            pto.TASSIGN(tile, addr)
        pto.TLOAD(f, gt(gf, R, C))
        pto.TLOAD(e, gt(ge, R, 8))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TLOAD(x, gt(gx, R, C))  # independent of the V op below
        pto.TROWEXPANDMAX(d, f, e)

    run = dev.run(k, gf, ge, gx)
    np.testing.assert_array_equal(run.tile(d), np.maximum(full, blk[:, np.arange(C) % 8]))
    np.testing.assert_array_equal(run.tile(x), other)
    loads = events(run, opcode="TLOAD", pipe="PIPE_MTE2")
    assert len(loads) == 3
    first, second, third = sorted(loads, key=lambda ev: ev.start)
    assert second.start >= first.start + first.dur  # serialised on MTE2
    assert third.start >= second.start + second.dur
    vops = events(run, opcode="TROWEXPANDMAX", pipe="PIPE_V")
    both = [third] + vops
    assert span(both) < busy(both)  # the third TLOAD and the V op overlap
    assert min(ev.start for ev in vops) < third.start + third.dur


# -- TSCATTER -----------------------------------------------------------------------------
def tscatter_run(device, idx_shape, dst_shape, *, synced=True, dtype="float32", seed=0):
    dev = pto.Device(device)
    ri, ci = idx_shape
    npdt = np.dtype(pto.dtypes.dtype(dtype).np)
    idt = "uint32" if npdt.itemsize == 4 else "uint16"
    rng = np.random.default_rng(seed)
    src = rng.integers(1, 100, size=(ri, ci)).astype(npdt)
    idx = rng.permutation(dst_shape[0] * dst_shape[1])[: ri * ci].astype(idt).reshape(ri, ci)
    s, x, d = vec(dtype, ri, ci), vec(idt, ri, ci), vec(dtype, *dst_shape)
    gs, gx = dev.gm_array(src), dev.gm_array(idx)

    @pto.kernel
    def k(gs, gx):
        addr = 0
        for tile in (s, x, d):
            pto.TASSIGN(tile, addr)
            addr += -(-tile.geom.size_bytes // 32) * 32
        pto.TLOAD(s, gt(gs, ri, ci))
        pto.TLOAD(x, gt(gx, ri, ci))
        if synced:
            sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TSCATTER(d, s, x)

    run = dev.run(k, gs, gx)
    want = np.zeros(dst_shape, npdt)
    want.reshape(-1)[idx.reshape(-1).astype(np.int64)] = src.reshape(-1)
    return run, run.tile(d), want


@pytest.mark.parametrize("device", TIMED)
def test_tscatter_index_scalar_loop_grows_with_index_elements(device):
    costs = []
    for shape in ((1, 8), (2, 8), (4, 8), (4, 16)):
        run, got, want = tscatter_run(device, shape, (8, 16))
        np.testing.assert_array_equal(got, want)
        loop = events(run, opcode="TSCATTER", pipe="PIPE_S", kind="scalar")
        assert len(loop) == shape[0]  # one scalar step per index row
        assert sum(ev.args["elements"] for ev in loop) == shape[0] * shape[1]
        costs.append((busy(loop), run.cycles))
    for (s0, c0), (s1, c1) in zip(costs, costs[1:]):
        assert s1 > s0 and c1 > c0
    # the per-row cost is linear in the elements: 2 rows of 8 cost twice 1 row of 8
    assert costs[1][0] == 2 * costs[0][0]


@pytest.mark.parametrize("device", TIMED)
def test_tscatter_zero_fill_grows_with_rows_times_cols(device):
    def fill(dst_shape):
        run, got, want = tscatter_run(device, (1, 8), dst_shape)
        np.testing.assert_array_equal(got, want)
        (dup,) = events(run, opcode="TSCATTER", kind="vector")
        assert dup.pipe == "PIPE_V" and dup.args["intrinsic"] == "vector_dup"
        assert dup.args["repeats"] == -(-dst_shape[0] * dst_shape[1] * 4 // 256)
        return dup.dur

    small, mid, big = fill((8, 8)), fill((16, 64)), fill((64, 64))
    assert small < mid < big
    assert fill((64, 16)) == mid  # only Rows*Cols matters
    # the zero fill depends on dst only: more index elements do not change it
    run, _, _ = tscatter_run(device, (4, 16), (16, 64))
    (dup,) = events(run, opcode="TSCATTER", kind="vector")
    assert dup.dur == mid


@pytest.mark.parametrize("device", TIMED)
def test_tscatter_handshakes_in_trace(device):
    run, got, want = tscatter_run(device, (2, 8), (8, 16))
    np.testing.assert_array_equal(got, want)
    evs = sorted(events(run, opcode="TSCATTER"), key=lambda ev: (ev.start, ev.pipe != "PIPE_V"))
    kinds = [(ev.kind, ev.pipe) for ev in evs]
    assert kinds == [
        ("vector", "PIPE_V"),  # zero fill
        ("set_flag", "PIPE_V"),
        ("wait_flag", "PIPE_S"),  # V -> S
        ("scalar", "PIPE_S"),
        ("scalar", "PIPE_S"),  # one step per index row
        ("set_flag", "PIPE_S"),
        ("wait_flag", "PIPE_V"),  # S -> V
    ]
    tscatter = evs[0].instr
    keys = [f.key for f in run.trace.flows if f.set_instr == tscatter]
    assert keys == [("PIPE_V", "PIPE_S", 0), ("PIPE_S", "PIPE_V", 0)]
    dup, scalar = evs[0], evs[3]
    assert scalar.start >= dup.start + dup.dur  # the loop starts after the zero fill drained


@pytest.mark.parametrize("device", TIMED)
def test_tscatter_without_mte2_to_v_reads_stale_data(device):
    """Without MTE2 -> V the zero fill starts (and samples src/idx) before the TLOADs land:
    the uint16 indices are poison (0xFFFF), so every value goes to element 65535 and dst keeps
    only zeros. The synchronised kernel is exact."""
    run, got, want = tscatter_run(device, (2, 16), (4, 16), synced=True, dtype="half")
    np.testing.assert_array_equal(got, want)
    assert run.findings == []
    run, got, want = tscatter_run(device, (2, 16), (4, 16), synced=False, dtype="half")
    assert not np.array_equal(got, want)
    assert not got.any()
    codes = sorted(f.code for f in run.findings)
    assert codes[0] == "F102" and set(codes[1:]) == {"F203"}
    # the hazard checker names the missing handshake: TLOAD (MTE2) before TSCATTER (V zero fill
    # / S loop)
    races = [f for f in run.findings if f.code == "F203"]
    assert all("TLOAD" in f.message and "TSCATTER" in f.message for f in races)
    assert any("set_flag(PIPE_MTE2" in f.message for f in races)
    assert "65535" in next(f for f in run.findings if f.code == "F102").message
    (dup,) = events(run, opcode="TSCATTER", kind="vector")
    last_load = max(ev.start + ev.dur for ev in events(run, opcode="TLOAD"))
    assert dup.start < last_load


@pytest.mark.parametrize("device", TIMED)
def test_tscatter_mask_row_col_and_p1111(device):
    """ROW: scalar loop per source row; COL: one vcopy per source row on V; both after the
    zero fill + V -> S and before S -> V. P1111 is exactly the TMOV plan."""
    dev = pto.Device(device)
    src = np.arange(4 * 16, dtype=np.float32).reshape(4, 16)
    s = vec("float32", 4, 16)
    drow, dcol = vec("float32", 4, 32), vec("float32", 8, 16)
    dmov, dtm = vec("float32", 4, 16), vec("float32", 4, 16)
    g = dev.gm_array(src)

    @pto.kernel
    def k(g):
        for tile, addr in ((s, 0), (drow, 0x100), (dcol, 0x300), (dmov, 0x500), (dtm, 0x600)):
            pto.TASSIGN(tile, addr)
        pto.TLOAD(s, gt(g, 4, 16))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TSCATTER(drow, s, mask="P0101", axis="SCATTER_ROW")
        pto.TSCATTER(dcol, s, mask="P1010", axis="SCATTER_COL")
        pto.TSCATTER(dmov, s, mask="P1111")
        pto.TMOV(dtm, s)

    run = dev.run(k, g)
    want_row = np.zeros((4, 32), np.float32)
    want_row[:, 0::2] = src
    want_col = np.zeros((8, 16), np.float32)
    want_col[1::2] = src
    np.testing.assert_array_equal(run.tile(drow), want_row)
    np.testing.assert_array_equal(run.tile(dcol), want_col)
    np.testing.assert_array_equal(run.tile(dmov), src)
    pos = {i.opcode + str(n): i.position for n, i in enumerate(run.program.instructions)}
    ts = sorted(p for key, p in pos.items() if key.startswith("TSCATTER"))
    row_i, col_i, mov_i = ts
    row_s = events(run, instr=row_i, kind="scalar")
    assert len(row_s) == 4 and all(ev.args["elements"] == 16 for ev in row_s)
    col_v = events(run, instr=col_i, kind="vector")
    assert [ev.args["intrinsic"] for ev in col_v] == ["vector_dup"] + ["vcopy"] * 4
    assert [ev.args["dst_row"] for ev in col_v[1:]] == [1, 3, 5, 7]
    assert not events(run, instr=col_i, kind="scalar")
    for i in (row_i, col_i):
        flags = [
            (ev.kind, ev.pipe)
            for ev in events(run, instr=i)
            if ev.kind in ("set_flag", "wait_flag")
        ]
        assert flags == [
            ("set_flag", "PIPE_V"),
            ("wait_flag", "PIPE_S"),
            ("set_flag", "PIPE_S"),
            ("wait_flag", "PIPE_V"),
        ]
    tmov_i = max(p for key, p in pos.items() if key.startswith("TMOV"))
    mov, tmov = events(run, instr=mov_i), events(run, instr=tmov_i)
    assert [(ev.kind, ev.pipe, ev.dur) for ev in mov] == [(ev.kind, ev.pipe, ev.dur) for ev in tmov]


# -- TROWEXPAND* --------------------------------------------------------------------------
@pytest.mark.parametrize("device", TIMED)
@pytest.mark.parametrize("R, C", [(8, 64), (16, 200), (40, 32)])
def test_mode1_costs_more_than_mode2(device, R, C):
    m1 = rowexpand_run(device, R, C, mode=1)
    m2 = rowexpand_run(device, R, C, mode=2)
    v1 = events(m1, opcode="TROWEXPANDMAX", pipe="PIPE_V")
    v2 = events(m2, opcode="TROWEXPANDMAX", pipe="PIPE_V")
    assert busy(v1) > busy(v2)
    # the difference is the vbrcb + pipe_barrier(V): the op calls are the same
    assert [(e.args["repeats"], e.args["lanes"]) for e in op_steps(m1)] == [
        (e.args["repeats"], e.args["lanes"]) for e in op_steps(m2)
    ]
    assert [e.kind for e in v1[:2]] == ["vector", "barrier"]
    assert v1[0].args["intrinsic"] == "vbrcb" and v1[0].args["repeats"] == -(-R // 8)
    assert not [e for e in v2 if e.kind == "barrier" or e.args.get("intrinsic") == "vbrcb"]
    # no set/wait flags inside the instruction
    for run in (m1, m2):
        assert not events(run, opcode="TROWEXPANDMAX", kind="set_flag")
        assert not events(run, opcode="TROWEXPANDMAX", kind="wait_flag")


@pytest.mark.parametrize("device", TIMED)
def test_count_mode_for_one_wide_row_norm_mode_for_many_narrow_rows(device):
    """1 row of 4 repeats: C/epr = 4 > R = 1 -> count mode, one intrinsic per row with
    ceil(C/epr) repeats. 16 rows of one repeat: norm mode, one call whose repeats are the rows."""
    wide = op_steps(rowexpand_run(device, 1, 256))
    assert len(wide) == 1
    assert (wide[0].args["repeats"], wide[0].args["mask"]) == (4, "count")
    narrow = op_steps(rowexpand_run(device, 16, 64))
    assert len(narrow) == 1
    assert (narrow[0].args["repeats"], narrow[0].args["mask"]) == (16, "full")


@pytest.mark.parametrize("device", TIMED)
@pytest.mark.parametrize("R, C, count", [(2, 128, False), (2, 192, True), (3, 192, False)])
def test_count_switch_at_c_over_epr_greater_than_r(device, R, C, count):
    """useCount iff C/epr > R (float: epr = 64) for small strides."""
    steps = op_steps(rowexpand_run(device, R, C))
    if count:
        assert len(steps) == R
        assert all(e.args["mask"] == "count" and e.args["repeats"] == -(-C // 64) for e in steps)
    else:
        assert len(steps) == C // 64 + (C % 64 != 0)
        assert all(e.args["mask"] != "count" and e.args["repeats"] == R for e in steps)


@pytest.mark.parametrize("device", TIMED)
@pytest.mark.parametrize("blocks, count", [(255, False), (256, True)])
def test_count_switch_at_row_stride_over_255_blocks(device, blocks, count):
    """half: bs = 16 elements per block. A row stride of 256 blocks no longer fits the 8-bit
    repeat stride: count mode even though C/epr <= R."""
    R, C = 4, 128
    steps = op_steps(rowexpand_run(device, R, C, cols=blocks * 16, dtype="half"))
    assert len(steps) == (R if count else 1)
    assert all((e.args["mask"] == "count") == count for e in steps)


@pytest.mark.parametrize("device", TIMED)
def test_norm_mode_full_calls_plus_partial_tail(device):
    """Wide rows in norm mode: C // epr full-mask calls then one partial tail call; a row
    narrower than one repeat: a single partial call."""
    steps = op_steps(rowexpand_run(device, 8, 200, cols=208))
    assert [e.args["mask"] for e in steps] == ["full", "full", "full", "partial"]
    assert [e.args["lanes"] for e in steps] == [64, 64, 64, 8]
    steps = op_steps(rowexpand_run(device, 8, 20, cols=24))
    assert [(e.args["mask"], e.args["lanes"], e.args["repeats"]) for e in steps] == [
        ("partial", 20, 8)
    ]
    # a wider tail costs no less than a narrower one; cost grows with the rows
    assert busy(op_steps(rowexpand_run(device, 16, 64))) > busy(
        op_steps(rowexpand_run(device, 8, 64))
    )


@pytest.mark.parametrize("device", TIMED)
def test_expdif_is_vsub_then_vexp(device):
    run = rowexpand_run(device, 8, 64, op="EXPDIF")
    assert [e.args["intrinsic"] for e in op_steps(run, "TROWEXPANDEXPDIF")] == ["vsub", "vexp"]
    for op, name in (
        ("ADD", "vadd"),
        ("SUB", "vsub"),
        ("MUL", "vmul"),
        ("DIV", "vdiv"),
        ("MIN", "vmin"),
        ("MAX", "vmax"),
    ):
        run = rowexpand_run(device, 8, 64, op=op)
        assert [e.args["intrinsic"] for e in op_steps(run, f"TROWEXPAND{op}")] == [name]


@pytest.mark.parametrize("device", TIMED)
@pytest.mark.parametrize("mode, chunk", [(1, 240), (2, 255)])
def test_rows_ge_256_are_chunked_between_barriers(device, mode, chunk):
    R = 300
    run = rowexpand_run(device, R, 8, mode=mode)
    v = events(run, opcode="TROWEXPANDMAX", pipe="PIPE_V")
    ops = op_steps(run)
    assert [e.args["repeats"] for e in ops] == [chunk, R - chunk]
    kinds = [e.kind for e in v]
    if mode == 1:
        vb = [e for e in v if e.kind == "vector" and e.args["intrinsic"] == "vbrcb"]
        assert [e.args["repeats"] for e in vb] == [30, -(-(R - 240) // 8)]
        per_chunk = ["barrier", "vector", "barrier", "vector", "barrier"]
    else:
        per_chunk = ["barrier", "vector", "barrier"]
    assert kinds == per_chunk * 2
    # below 256 rows: one call over all rows, no chunk barriers (mode 1 keeps its vbrcb one)
    small = rowexpand_run(device, 200, 8, mode=mode)
    assert [e.args["repeats"] for e in op_steps(small)] == [200]
    assert len(events(small, opcode="TROWEXPANDMAX", kind="barrier")) == (1 if mode == 1 else 0)


def test_vbrcb_writes_hidden_scratch_or_tmp():
    """The 3-operand mode 1 vbrcb writes UB [184 KiB, 184 KiB + ceil(R/8)*256); with a tmp
    tile it writes the tmp tile instead; the op reads those blocks back."""
    R = 12

    def make(tmp):
        d = placed(vec("float32", R, 64), 0)
        f = placed(vec("float32", R, 64), 0x1000)
        e = placed(vec("float32", 16, 1, "ColMajor", valid=(R, 1)), 0x2000)
        t = placed(vec("float32", 2, 64), 0x3000) if tmp else None
        return lambda: TRowExpandBinary("ADD", d, f, e, t)

    # the hidden scratch of the 3-operand form starts at 184 KiB (D10)
    for tmp, base in ((False, 184 * 1024), (True, 0x3000)):
        steps = plan_of("a2", make(tmp))
        vbrcb = steps[0]
        assert vbrcb.args["intrinsic"] == "vbrcb"
        assert vbrcb.writes == (Region("UB", base, base + tmp_bytes_needed(R)),)
        assert vbrcb.reads == (Region("UB", 0x2000, 0x2000 + 16 * 4),)
        assert steps[1].kind is StepKind.BARRIER
        (op,) = steps[2:]
        assert Region("UB", base, base + R * 32) in op.reads
        assert op.writes == (Region("UB", 0, R * 64 * 4),)
        assert all(st.pipe is pto.PIPE_V for st in steps)


@pytest.mark.parametrize("device", TIMED)
def test_plain_trowexpand_general_path_per_row_handshakes_and_dup(device):
    """vector_isa.md 3.6: a [16, 64] dst is not the vbrcb fast path's [M, 32/sizeof T] shape,
    so each row takes V->S, a scalar read, S->V, then one count-mode vector_dup."""
    dev = pto.Device(device)
    R, C = 16, 64
    col = np.arange(R, dtype=np.float32).reshape(R, 1)
    s, d = vec("float32", R, 1, "ColMajor"), vec("float32", R, C)
    g = dev.gm_array(col.T.copy())

    @pto.kernel
    def k(g):
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x100)
        pto.TLOAD(s, gt(g, R, 1, "DN"))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TROWEXPAND(d, s)

    run = dev.run(k, g)
    np.testing.assert_array_equal(run.tile(d), np.repeat(col, C, axis=1))
    v = events(run, opcode="TROWEXPAND", pipe="PIPE_V")
    assert [(e.kind, e.args.get("intrinsic")) for e in v] == [
        ("set_flag", None),
        ("wait_flag", None),
        ("vector", "vector_dup"),
    ] * R
    assert all(e.args["count_mode"] for e in v if e.kind == "vector")
    assert len(events(run, opcode="TROWEXPAND", pipe="PIPE_S", kind="scalar")) == R


# -- a double-buffered pipeline -----------------------------------------------------------
def pipeline(device, n_tiles, *, ping_pong):
    """out[i] = max(in[i], e) for n_tiles tiles of R x C, dst aliasing src0 (as the reference
    test does). Ping-pong: two buffers, forward flags MTE2->V and V->MTE3 and the reverse WAR
    flag MTE3->MTE2 (the next TLOAD into a buffer waits for its TSTORE) on event ids 0/1, primed
    before the loop and drained after. Serial: one buffer, full handshakes every iteration."""
    dev = pto.Device(device)
    R, C = 16, 128
    rng = np.random.default_rng(n_tiles)
    data = rng.standard_normal((n_tiles * R, C)).astype(np.float32)
    evec = rng.standard_normal((R, 1)).astype(np.float32)
    g_in, g_e = dev.gm_array(data), dev.gm_array(evec.T.copy())
    g_out = dev.gm_zeros((n_tiles * R, C), "float32")
    bufs = [vec("float32", R, C) for _ in range(2 if ping_pong else 1)]
    e = vec("float32", R, 1, "ColMajor")
    mte2, v, mte3 = pto.PIPE_MTE2, pto.PIPE_V, pto.PIPE_MTE3

    def view(buf, i):
        return pto.GlobalTensor(buf, (1, 1, 1, R, C), offset=i * R * C)

    @pto.kernel
    def k(g_in, g_e, g_out):
        pto.TASSIGN(e, 0)
        for b, t in enumerate(bufs):
            pto.TASSIGN(t, 0x1000 + b * R * C * 4)
        pto.TLOAD(e, gt(g_e, R, 1, "DN"))
        if ping_pong:
            for b in range(2):
                pto.set_flag(mte3, mte2, b)  # both buffers start free
        for i in range(n_tiles):
            b = i % 2 if ping_pong else 0
            t = bufs[b]
            if ping_pong:
                pto.wait_flag(mte3, mte2, b)
            pto.TLOAD(t, view(g_in, i))
            sync(mte2, v, b)
            pto.TROWEXPANDMAX(t, t, e)
            sync(v, mte3, b)
            pto.TSTORE(view(g_out, i), t)
            if ping_pong:
                pto.set_flag(mte3, mte2, b)
            else:
                sync(mte3, mte2, b)
        if ping_pong:
            for b in range(2):
                pto.wait_flag(mte3, mte2, b)  # drain the reverse events

    run = dev.run(k, g_in, g_e, g_out)
    want = np.maximum(data, np.tile(evec, (n_tiles, C)))
    np.testing.assert_array_equal(g_out.numpy(), want)
    assert run.findings == []
    return run


@pytest.mark.parametrize("device", TIMED)
def test_ping_pong_pipeline_beats_serial(device):
    n = 6
    pp, serial = pipeline(device, n, ping_pong=True), pipeline(device, n, ping_pong=False)
    assert pp.cycles < serial.cycles
    # in the ping-pong run a load overlaps a store (MTE2 and MTE3 busy at the same time)
    loads = events(pp, opcode="TLOAD", pipe="PIPE_MTE2")
    stores = events(pp, opcode="TSTORE", pipe="PIPE_MTE3")
    assert any(
        ld.start < st.start + st.dur and st.start < ld.start + ld.dur
        for ld in loads
        for st in stores
    )
    # the serial run never overlaps them
    loads = events(serial, opcode="TLOAD", pipe="PIPE_MTE2")
    stores = events(serial, opcode="TSTORE", pipe="PIPE_MTE3")
    assert not any(
        ld.start < st.start + st.dur and st.start < ld.start + ld.dur
        for ld in loads
        for st in stores
    )
    # more tiles widen the gap
    pp2, serial2 = pipeline(device, 2 * n, ping_pong=True), pipeline(device, 2 * n, ping_pong=False)
    assert serial2.cycles - pp2.cycles > serial.cycles - pp.cycles
