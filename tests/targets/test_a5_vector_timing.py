"""950 (a5) timing of the vector-function instructions TSCATTER, TROWEXPAND*, TMOV and TEXPANDS
(targets/a5/vector.py).

Every assertion is a relation that follows from the model (semantics.md 3.3.1, 3.3.2, 3.4, 4.3;
the 950 cost structure of timing.md 3): one __VEC_SCOPE__ per instruction on PIPE_V, no flags
inside, loop counts from the reference kernels, costs that grow with the work, no vbrcb on a5,
the 1-D / 2-D row-expand paths, flags order the data. No cycle count is copied from the
implementation.
"""

import numpy as np
import pytest

import ptosim as pto
from ptosim.isa.base import ExecContext
from ptosim.isa.tscatter import TScatterIndex
from ptosim.memory import POISON_BYTE, GlobalMemory, Scratchpad
from ptosim.plan import Region, StepKind
from ptosim.targets import a5
from ptosim.tensors import Placement
from tests.helpers.kernels import vec

A5 = ("950pr", "950dt")


# -- helpers ------------------------------------------------------------------------------
def sync(src, dst, event=0):
    pto.set_flag(src, dst, event)
    pto.wait_flag(src, dst, event)


def gt(buf, rows, cols, layout="ND"):
    return pto.GlobalTensor(buf, (1, 1, 1, rows, cols), layout=layout)


def events(run, *, opcode=None, pipe=None, kind=None, instr=None, intrinsic=None):
    return [
        e
        for e in run.trace.events
        if (opcode is None or e.opcode == opcode)
        and (pipe is None or e.pipe == pipe)
        and (kind is None or e.kind == kind)
        and (instr is None or e.instr == instr)
        and (intrinsic is None or e.args.get("intrinsic") == intrinsic)
    ]


def busy(evs):
    return sum(e.dur for e in evs)


def span(evs):
    return max(e.start + e.dur for e in evs) - min(e.start for e in evs)


def body(evs):
    """The intrinsic loops of a vector function (without vf_startup / vf_drain)."""
    return [e for e in evs if e.args.get("intrinsic") not in ("vf_startup", "vf_drain")]


def assert_one_vector_function(run, instr):
    """vf_startup first, vf_drain last, everything on PIPE_V, no set/wait flags."""
    evs = sorted(events(run, instr=instr), key=lambda e: e.start)
    assert evs and all(e.pipe == "PIPE_V" for e in evs)
    assert evs[0].args["intrinsic"] == "vf_startup"
    assert evs[-1].args["intrinsic"] == "vf_drain"
    assert [e for e in evs if e.args.get("intrinsic") == "vf_startup"] == evs[:1]
    assert [e for e in evs if e.args.get("intrinsic") == "vf_drain"] == evs[-1:]
    assert not [e for e in evs if e.kind in ("set_flag", "wait_flag")]
    return evs


def instr_of(run, opcode, n=0):
    return [i.position for i in run.program.instructions if i.opcode == opcode][n]


def rowexpand_run(device, R, C, *, cols=None, mode=2, dtype="float32", op="MAX", valid=True):
    """TLOAD full (R x C in an R x cols tile) and E; MTE2 -> V; TROWEXPAND<op>; return the run.
    ``valid=False`` gives dst a dynamic valid shape (set_valid)."""
    dev = pto.Device(device)
    cols = cols or C
    npdt = np.dtype(pto.dtypes.dtype(dtype).np)
    bs = 32 // npdt.itemsize
    rng = np.random.default_rng(R * 1000 + C)
    full = rng.integers(-50, 50, size=(R, C)).astype(npdt)
    f = vec(dtype, R, cols, valid=(R, C))
    d = vec(dtype, R, cols, valid=(R, C))
    if not valid:
        d.set_valid(R, C)
    if mode == 1:
        edata = rng.integers(-50, 50, size=(R, 1)).astype(npdt)
        e = vec(dtype, -(-R // bs) * bs, 1, "ColMajor", valid=(R, 1))
        e_gm = gt(dev.gm_array(edata.T.copy()), R, 1, "DN")
    else:
        edata = rng.integers(-50, 50, size=(R, bs)).astype(npdt)
        e = vec(dtype, R, bs)
        e_gm = gt(dev.gm_array(edata), R, bs)
    g = dev.gm_array(full)

    @pto.kernel
    def k(g):
        addr = 0
        for tile in (f, d, e):
            pto.TASSIGN(tile, addr)
            addr += tile.geom.size_bytes
        pto.TLOAD(f, gt(g, R, C))
        pto.TLOAD(e, e_gm)
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        getattr(pto, f"TROWEXPAND{op}")(d, f, e)

    run = dev.run(k, g)
    eb = np.repeat(edata, C, axis=1) if mode == 1 else edata[:, np.arange(C) % bs]
    if op == "MAX":
        np.testing.assert_array_equal(run.tile(d), np.maximum(full, eb))
    return run


def tscatter_run(device, idx_shape, dst_shape, *, synced=True, dtype="float32", seed=0):
    dev = pto.Device(device)
    ri, ci = idx_shape
    npdt = np.dtype(pto.dtypes.dtype(dtype).np)
    idt = "uint32" if npdt.itemsize >= 4 else "uint16"
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


# -- TSCATTER index -----------------------------------------------------------------------
@pytest.mark.parametrize("device", A5)
def test_tscatter_index_is_one_vector_function_without_flags(device):
    run, got, want = tscatter_run(device, (2, 16), (8, 16))
    np.testing.assert_array_equal(got, want)
    evs = assert_one_vector_function(run, instr_of(run, "TSCATTER"))
    kinds = [(e.kind, e.args.get("intrinsic")) for e in evs]
    assert kinds == [
        ("vector", "vf_startup"),
        ("vector", "vdup"),  # zero fill: broadcast 0 ...
        ("vector", "vsts"),  # ... and store it over the tile
        ("barrier", None),  # mem_bar(VST_VLD)
        ("barrier", None),  # mem_bar(VST_VST)
        ("vector", "vlds"),  # row 0: src + idx
        ("vector", "vscatter"),
        ("vector", "vlds"),  # row 1
        ("vector", "vscatter"),
        ("vector", "vf_drain"),
    ]
    assert not events(run, opcode="TSCATTER", pipe="PIPE_S", kind="scalar")  # no scalar loop
    assert not [f for f in run.trace.flows if f.set_instr == evs[0].instr]


@pytest.mark.parametrize("device", A5)
def test_tscatter_index_cost_grows_with_index_elements(device):
    """One vlds + vscatter step per index row, ceil(Ci / 64) batches (4-byte index: 64 u32
    lanes per vector); more index elements cost more."""
    costs = []
    for shape in ((1, 8), (2, 8), (4, 8), (4, 104), (8, 104)):
        run, got, want = tscatter_run(device, shape, (32, 32))
        np.testing.assert_array_equal(got, want)
        sc = events(run, opcode="TSCATTER", intrinsic="vscatter")
        batches = -(-shape[1] // 64)
        assert len(sc) == shape[0]  # one step per index row
        assert all(e.args["repeats"] == batches and e.args["lanes"] == 64 for e in sc)
        loads = [e for e in events(run, opcode="TSCATTER", intrinsic="vlds")]
        assert [e.args["repeats"] for e in loads] == [2 * batches] * shape[0]
        costs.append(busy(events(run, opcode="TSCATTER")))
    assert costs == sorted(costs) and len(set(costs)) == len(costs)
    # 2-byte index: 128 u16 lanes per vscatter, so 112 columns are one batch
    run, got, want = tscatter_run(device, (4, 112), (32, 32), dtype="half")
    np.testing.assert_array_equal(got, want)
    sc = events(run, opcode="TSCATTER", intrinsic="vscatter")
    assert [(e.args["repeats"], e.args["lanes"]) for e in sc] == [(1, 128)] * 4


@pytest.mark.parametrize("device", A5)
def test_tscatter_zero_fill_grows_with_rows_times_cols(device):
    def fill(dst_shape, idx_shape=(1, 8)):
        run, got, want = tscatter_run(device, idx_shape, dst_shape)
        np.testing.assert_array_equal(got, want)
        (dup,) = events(run, opcode="TSCATTER", intrinsic="vdup")
        sts = events(run, opcode="TSCATTER", intrinsic="vsts")
        assert len(sts) == 1  # the only stores are the zero fill's (vscatter writes the rest)
        assert sts[0].args["repeats"] == -(-dst_shape[0] * dst_shape[1] * 4 // 256)
        assert dup.args["repeats"] == 1
        return sts[0].dur

    small, mid, big = fill((8, 8)), fill((16, 64)), fill((64, 64))
    assert small < mid < big
    assert fill((64, 16)) == mid  # only Rows*Cols matters
    assert fill((16, 64), (4, 16)) == mid  # more index elements do not change it


@pytest.mark.parametrize("device", A5)
def test_tscatter_index_b64_int64scatter(device):
    """8-byte T: the zero fill covers 2*Numel u32 words; per row one de-interleaving load (two
    vectors), one idx load and two vscatters (low and high words)."""
    run, got, want = tscatter_run(device, (3, 40), (16, 16), dtype="int64")
    np.testing.assert_array_equal(got, want)
    sts = events(run, opcode="TSCATTER", intrinsic="vsts")
    assert [e.args["repeats"] for e in sts] == [-(-2 * 16 * 16 // 64)]
    sc = events(run, opcode="TSCATTER", intrinsic="vscatter")
    assert [e.args["repeats"] for e in sc] == [2, 2, 2]
    loads = events(run, opcode="TSCATTER", intrinsic="vlds")
    assert [e.args["repeats"] for e in loads] == [2, 1] * 3


def _ctx(device):
    dev = pto.Device(device)
    ctx = ExecContext(
        dev.arch,
        Scratchpad("UB", dev.arch.ub_size_bytes),
        Scratchpad("L1", dev.arch.l1_size_bytes),
        GlobalMemory(),
    )
    ctx.config = dev.config
    return dev, ctx


def _placed(tile, address):
    tile.placement = Placement(address, auto=False)
    return tile.ref()


@pytest.mark.parametrize("device", A5)
def test_vscatter_write_region_read_from_the_index_when_it_starts(device):
    """The bytes a row's vscatter writes are known only from the index values, which PIPE_V
    reads when the step starts: the step resolves its write region then."""
    dev, ctx = _ctx(device)
    d = _placed(vec("float32", 8, 16), 0x1000)
    s = _placed(vec("float32", 2, 8), 0)
    x = _placed(vec("uint32", 2, 8), 0x100)
    instr = TScatterIndex(d, s, x)
    instr.check(dev.arch)
    steps = a5.plan(instr, ctx)
    scatters = [st for st in steps if st.args.get("intrinsic") == "vscatter"]
    assert len(scatters) == 2 and all(st.resolve is not None for st in scatters)
    idx = ctx.tile_storage(x)
    idx[:8] = [5, 9, 3, 7, 6, 4, 8, 10]
    idx[8:] = [100, 90, 127, 64, 70, 80, 99, 65]
    got = [st.resolve(ctx) for st in scatters]
    assert got[0].writes == (Region("UB", 0x1000 + 3 * 4, 0x1000 + 11 * 4),)
    assert got[1].writes == (Region("UB", 0x1000 + 64 * 4, 0x1000 + 128 * 4),)
    assert [g.cycles for g in got] == [st.cycles for st in scatters]
    assert all(g.pipe is pto.PIPE_V and g.kind is StepKind.VECTOR for g in got)


# -- TSCATTER mask ------------------------------------------------------------------------
@pytest.mark.parametrize("device", A5)
def test_tscatter_mask_row_col_and_p1111(device):
    """ROW x2: per row per 256-B chunk one vlds, one vintlv, two vsts; ROW x4: two vintlv and
    four vsts; COL: chunked vlds/vsts into dst row times*i + pos; P1111 is exactly TMOV."""
    dev = pto.Device(device)
    R, C = 4, 80  # 320 bytes per float row: 2 chunks
    src = np.arange(R * C, dtype=np.float32).reshape(R, C)
    s = vec("float32", R, C)
    d2, d4, dcol = vec("float32", R, 2 * C), vec("float32", R, 4 * C), vec("float32", 2 * R, C)
    dmov, dtm = vec("float32", R, C), vec("float32", R, C)
    g = dev.gm_array(src)

    @pto.kernel
    def k(g):
        addr = 0
        for tile in (s, d2, d4, dcol, dmov, dtm):
            pto.TASSIGN(tile, addr)
            addr += tile.geom.size_bytes
        pto.TLOAD(s, gt(g, R, C))
        sync(pto.PIPE_MTE2, pto.PIPE_V)
        pto.TSCATTER(d2, s, mask="P0101", axis="SCATTER_ROW")
        pto.TSCATTER(d4, s, mask="P0100", axis="SCATTER_ROW")
        pto.TSCATTER(dcol, s, mask="P1010", axis="SCATTER_COL")
        pto.TSCATTER(dmov, s, mask="P1111")
        pto.TMOV(dtm, s)

    run = dev.run(k, g)
    w2 = np.zeros((R, 2 * C), np.float32)
    w2[:, 0::2] = src
    w4 = np.zeros((R, 4 * C), np.float32)
    w4[:, 2::4] = src
    wcol = np.zeros((2 * R, C), np.float32)
    wcol[1::2] = src
    np.testing.assert_array_equal(run.tile(d2), w2)
    np.testing.assert_array_equal(run.tile(d4), w4)
    np.testing.assert_array_equal(run.tile(dcol), wcol)
    np.testing.assert_array_equal(run.tile(dmov), src)
    row2, row4, col, mov = (instr_of(run, "TSCATTER", n) for n in range(4))
    tmov = instr_of(run, "TMOV")
    for i in (row2, row4, col, mov, tmov):
        assert_one_vector_function(run, i)

    def loops(i):
        evs = body(events(run, instr=i, kind="vector"))
        assert [e.args["intrinsic"] for e in evs[:2]] == ["vdup", "vsts"]  # zero fill
        return [(e.args["intrinsic"], e.args["repeats"]) for e in evs[2:]]

    assert loops(row2) == [("vlds", 2), ("vintlv", 2), ("vsts", 4)] * R
    assert loops(row4) == [("vlds", 2), ("vintlv", 4), ("vsts", 8)] * R
    assert loops(col) == [("vlds", 2), ("vsts", 2)] * R
    assert [e.args["dst_row"] for e in events(run, instr=col, intrinsic="vsts")[1:]] == [
        1,
        3,
        5,
        7,
    ]
    assert busy(events(run, instr=row4)) > busy(events(run, instr=row2))
    assert not events(run, instr=mov, intrinsic="vdup")  # P1111: no zero fill
    a, b = events(run, instr=mov), events(run, instr=tmov)
    assert [(e.kind, e.name, e.dur) for e in a] == [(e.kind, e.name, e.dur) for e in b]


# -- TMOV / TEXPANDS ----------------------------------------------------------------------
@pytest.mark.parametrize("device", A5)
def test_tmov_and_texpands_vector_loops(device):
    """TMOV: vlds + vsts per VL chunk (whole rows: one flat run; a narrower valid region: per
    row); TEXPANDS: one vdup then vsts per chunk. Both grow with the region."""
    dev = pto.Device(device)
    a, b = vec("float32", 16, 32), vec("float32", 16, 32)  # contiguous: 16*32*4/256 = 8
    c, e = vec("float32", 16, 64, valid=(16, 32)), vec("float32", 16, 64, valid=(16, 32))
    f8, f16 = vec("float32", 8, 64), vec("float32", 16, 64)

    @pto.kernel
    def k():
        addr = 0
        for tile in (a, b, c, e, f8, f16):
            pto.TASSIGN(tile, addr)
            addr += tile.geom.size_bytes
        for tile in (a, c):
            pto.TEXPANDS(tile, 3.0)
        pto.TMOV(b, a)
        pto.TMOV(e, c)
        pto.TEXPANDS(f8, 1.0)
        pto.TEXPANDS(f16, 1.0)

    run = dev.run(k)
    np.testing.assert_array_equal(run.tile(b), np.full((16, 32), 3.0, np.float32))
    np.testing.assert_array_equal(run.tile(e), np.full((16, 32), 3.0, np.float32))
    movs = [instr_of(run, "TMOV", n) for n in range(2)]
    for i in movs:
        assert_one_vector_function(run, i)
    flat, rows = (body(events(run, instr=i)) for i in movs)
    assert [(x.args["intrinsic"], x.args["repeats"]) for x in flat] == [("vlds", 8), ("vsts", 8)]
    assert [(x.args["intrinsic"], x.args["repeats"]) for x in rows] == [
        ("vlds", 16),
        ("vsts", 16),
    ]
    assert busy(rows) > busy(flat)
    fills = [instr_of(run, "TEXPANDS", n) for n in (2, 3)]
    small, big = (body(events(run, instr=i)) for i in fills)
    assert [(x.args["intrinsic"], x.args["repeats"]) for x in small] == [("vdup", 1), ("vsts", 8)]
    assert [(x.args["intrinsic"], x.args["repeats"]) for x in big] == [("vdup", 1), ("vsts", 16)]
    assert busy(big) > busy(small)


# -- TROWEXPAND* --------------------------------------------------------------------------
@pytest.mark.parametrize("device", A5)
@pytest.mark.parametrize("R, C", [(8, 64), (16, 200), (40, 96)])
def test_mode1_and_mode2_cost_the_same_on_a5_not_on_a2(device, R, C):
    """2-D path: mode 1 is one broadcast load (vbr) per row, mode 2 one BLK load per row: the
    same cost on a5 (no vbrcb, no pipe_barrier). On a2 mode 1 pays vbrcb + pipe_barrier(V)."""
    m1, m2 = rowexpand_run(device, R, C, mode=1), rowexpand_run(device, R, C, mode=2)
    v1 = events(m1, opcode="TROWEXPANDMAX", pipe="PIPE_V")
    v2 = events(m2, opcode="TROWEXPANDMAX", pipe="PIPE_V")
    a5_diff = busy(v1) - busy(v2)
    a2_diff = busy(events(rowexpand_run("a2", R, C, mode=1), opcode="TROWEXPANDMAX")) - busy(
        events(rowexpand_run("a2", R, C, mode=2), opcode="TROWEXPANDMAX")
    )
    assert a2_diff > 0
    assert abs(a5_diff) < a2_diff
    assert a5_diff == 0
    assert not [e for e in v1 + v2 if e.kind == "barrier" or e.args.get("intrinsic") == "vbrcb"]
    loads1 = [e for e in v1 if e.args.get("intrinsic") == "vbr"]
    assert len(loads1) == R and all(e.args["repeats"] == 1 for e in loads1)
    assert not [e for e in v2 if e.args.get("intrinsic") == "vbr"]
    # the op loops are the same in both modes: per row ceil(C/64) vectors
    ops1 = [(e.args["row"], e.args["repeats"]) for e in v1 if e.args.get("intrinsic") == "vmax"]
    ops2 = [(e.args["row"], e.args["repeats"]) for e in v2 if e.args.get("intrinsic") == "vmax"]
    assert ops1 == ops2 == [(i, -(-C // 64)) for i in range(R)]
    for run in (m1, m2):
        assert_one_vector_function(run, instr_of(run, "TROWEXPANDMAX"))


@pytest.mark.parametrize("device", A5)
def test_1d_path_for_narrow_contiguous_tiles_2d_otherwise(device):
    """dst Cols < 64 floats with a static ValidCol == Cols: the flat 1-D loop (one step per
    intrinsic over R*ceil(C/64) vectors); Cols = 64, a narrower static valid region, or a
    dynamic valid shape: the 2-D loop (per row)."""
    R = 12

    def paths(run):
        vs = body(events(run, opcode="TROWEXPANDMAX", kind="vector"))
        return {e.args["path"] for e in vs}, vs

    p, vs = paths(rowexpand_run(device, R, 32))
    assert p == {"1d"}
    assert [(e.args["intrinsic"], e.args["repeats"]) for e in vs] == [
        ("vlds", R),  # full
        ("vlds", R),  # the BLK block of each row
        ("vmax", R),
        ("vsts", R),
    ]
    for shape in ((R, 64, 64), (R, 24, 32)):
        p, vs = paths(rowexpand_run(device, shape[0], shape[1], cols=shape[2]))
        assert p == {"2d"}
        assert sorted({e.args["row"] for e in vs}) == list(range(R))
    p, _ = paths(rowexpand_run(device, R, 32, valid=False))  # dynamic valid: not contiguous
    assert p == {"2d"}
    p, _ = paths(rowexpand_run(device, 1, 24, cols=32, valid=False))  # Rows == 1
    assert p == {"1d"}
    # the flat loop pays each intrinsic's head once, the row loop once per row
    one_d = busy(events(rowexpand_run(device, R, 32), opcode="TROWEXPANDMAX"))
    two_d = busy(events(rowexpand_run(device, R, 32, valid=False), opcode="TROWEXPANDMAX"))
    assert one_d < two_d


@pytest.mark.parametrize("device", A5)
def test_1d_mode1_is_an_unaligned_load_plus_vdup(device):
    """On the 1-D path mode 1 loads E unaligned and duplicates its lowest lane; mode 2 loads
    the block: mode 1 has one more op per vector in its pipeline, so it never costs less."""
    R = 8
    m1, m2 = rowexpand_run(device, R, 32, mode=1), rowexpand_run(device, R, 32, mode=2)
    b1 = body(events(m1, opcode="TROWEXPANDMAX", kind="vector"))
    b2 = body(events(m2, opcode="TROWEXPANDMAX", kind="vector"))
    assert [e.args["intrinsic"] for e in b1] == ["vlds", "vlds", "vdup", "vmax", "vsts"]
    assert [e.args["intrinsic"] for e in b2] == ["vlds", "vlds", "vmax", "vsts"]
    (dup,) = [e for e in b1 if e.args["intrinsic"] == "vdup"]
    assert dup.args["repeats"] == R
    assert dup.dur >= 1 and busy(b1) >= busy(b2)


@pytest.mark.parametrize("device", A5)
def test_op_intrinsics_and_expdif(device):
    for op, names in (
        ("ADD", ["vadd"]),
        ("SUB", ["vsub"]),
        ("MUL", ["vmul"]),
        ("DIV", ["vdiv"]),
        ("MIN", ["vmin"]),
        ("MAX", ["vmax"]),
        ("EXPDIF", ["vsub", "vexp"]),
    ):
        run = rowexpand_run(device, 4, 128, op=op)
        vs = body(events(run, opcode=f"TROWEXPAND{op}", kind="vector"))
        per_row = [e.args["intrinsic"] for e in vs if e.args["row"] == 0]
        assert per_row == ["vlds", "vlds", *names, "vsts"]


@pytest.mark.parametrize("device", A5)
def test_plain_trowexpand_broadcast_load_and_store(device):
    dev = pto.Device(device)
    R, C = 16, 128
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
    evs = assert_one_vector_function(run, instr_of(run, "TROWEXPAND"))
    assert [(e.args["intrinsic"], e.args["repeats"]) for e in body(evs)] == [
        ("vbr", 1),
        ("vsts", 2),
    ] * R


# -- pipes and flags ----------------------------------------------------------------------
def load_op_store(device, op, *, synced):
    """TLOAD inputs; [MTE2 -> V]; op; V -> MTE3; TSTORE; returns (run, GM result, expected)."""
    dev = pto.Device(device)
    rng = np.random.default_rng(7)
    if op == "rowexpand":
        R, C = 8, 64
        full = rng.integers(0, 100, size=(R, C)).astype(np.int32)
        blk = rng.integers(0, 100, size=(R, 8)).astype(np.int32)
        f, e, d = vec("int32", R, C), vec("int32", R, 8), vec("int32", R, C)
        ins = [(f, full), (e, blk)]
        want = np.maximum(full, blk[:, np.arange(C) % 8])

        def run_op():
            pto.TROWEXPANDMAX(d, f, e)

    else:
        R, C = 4, 16
        src = rng.integers(1, 100, size=(2, 16)).astype(np.float16)
        idx = rng.permutation(R * C)[:32].astype(np.uint16).reshape(2, 16)
        s, x, d = vec("half", 2, 16), vec("uint16", 2, 16), vec("half", R, C)
        ins = [(s, src), (x, idx)]
        want = np.zeros((R, C), np.float16)
        want.reshape(-1)[idx.reshape(-1).astype(np.int64)] = src.reshape(-1)

        def run_op():
            pto.TSCATTER(d, s, x)

    bufs = [dev.gm_array(data) for _, data in ins]
    out = dev.gm_zeros((R, C), d.dtype.name)

    @pto.kernel
    def k(*gs):
        addr = 0
        for tile in [t for t, _ in ins] + [d]:
            pto.TASSIGN(tile, addr)
            addr += -(-tile.geom.size_bytes // 32) * 32
        for (t, data), g in zip(ins, gs):
            pto.TLOAD(t, gt(g, *data.shape))
        if synced:
            sync(pto.PIPE_MTE2, pto.PIPE_V)
        run_op()
        sync(pto.PIPE_V, pto.PIPE_MTE3)
        pto.TSTORE(gt(gs[-1], R, C), d)

    run = dev.run(k, *bufs, out)
    return run, out.numpy().copy(), want


@pytest.mark.parametrize("device", A5)
@pytest.mark.parametrize("op", ["rowexpand", "tscatter"])
def test_synchronised_kernel_is_exact_unsynchronised_reads_stale_data(device, op):
    run, got, want = load_op_store(device, op, synced=True)
    np.testing.assert_array_equal(got, want)
    assert run.findings == []
    stale1, got1, _ = load_op_store(device, op, synced=False)
    stale2, got2, _ = load_op_store(device, op, synced=False)
    assert not np.array_equal(got1, want)
    np.testing.assert_array_equal(got1.view(np.uint8), got2.view(np.uint8))  # deterministic
    assert stale1.cycles == stale2.cycles
    # the op ran on the UB contents before the loads landed (poison bytes)
    if op == "rowexpand":
        poison = np.full(1, POISON_BYTE, np.uint8).repeat(4).view(np.int32)[0]
        assert np.all(got1 == poison)  # max(poison, poison)
    else:
        assert not got1.any()  # the poison indices (0xFFFF) scatter past dst: zeros remain
    first_v = min(e.start for e in events(stale1, pipe="PIPE_V", kind="vector"))
    last_load = max(e.start + e.dur for e in events(stale1, opcode="TLOAD"))
    assert first_v < last_load
    first_v = min(e.start for e in events(run, pipe="PIPE_V", kind="vector"))
    last_load = max(e.start + e.dur for e in events(run, opcode="TLOAD"))
    assert first_v >= last_load


@pytest.mark.parametrize("device", A5)
def test_tload_overlaps_independent_vector_op(device):
    """A TLOAD on MTE2 and a V op on already-loaded tiles, with no flag between them, run at
    the same time; TLOADs share MTE2 and run one after the other."""
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
    loads = sorted(events(run, opcode="TLOAD", pipe="PIPE_MTE2"), key=lambda ev: ev.start)
    assert len(loads) == 3
    for a, b in zip(loads, loads[1:]):
        assert b.start >= a.start + a.dur  # serialised on MTE2
    vops = events(run, opcode="TROWEXPANDMAX", pipe="PIPE_V")
    both = [loads[2]] + vops
    assert span(both) < busy(both)  # the third TLOAD and the V op overlap
    assert min(ev.start for ev in vops) < loads[2].start + loads[2].dur


def pipeline(device, n_tiles, *, ping_pong):
    """out[i] = max(in[i], e) for n_tiles tiles, dst aliasing src0. Ping-pong: two buffers,
    forward flags MTE2->V and V->MTE3 and the reverse WAR flag MTE3->MTE2 on event ids 0/1,
    primed before the loop and drained after. Serial: one buffer, full handshakes."""
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
                pto.set_flag(mte3, mte2, b)
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
                pto.wait_flag(mte3, mte2, b)

    run = dev.run(k, g_in, g_e, g_out)
    want = np.maximum(data, np.tile(evec, (n_tiles, C)))
    np.testing.assert_array_equal(g_out.numpy(), want)
    assert run.findings == []
    return run


def test_ping_pong_pipeline_beats_serial_on_950pr():
    n = 6
    pp, serial = pipeline("950pr", n, ping_pong=True), pipeline("950pr", n, ping_pong=False)
    assert pp.cycles < serial.cycles

    def overlapping(run):
        loads = events(run, opcode="TLOAD", pipe="PIPE_MTE2")
        stores = events(run, opcode="TSTORE", pipe="PIPE_MTE3")
        return any(
            ld.start < st.start + st.dur and st.start < ld.start + ld.dur
            for ld in loads
            for st in stores
        )

    assert overlapping(pp) and not overlapping(serial)
    pp2, serial2 = (
        pipeline("950pr", 2 * n, ping_pong=True),
        pipeline("950pr", 2 * n, ping_pong=False),
    )
    assert serial2.cycles - pp2.cycles > serial.cycles - pp.cycles
