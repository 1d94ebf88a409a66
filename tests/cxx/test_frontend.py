"""The C++ front end (ptosim.cxx): C++ kernels run like Python kernels, bit for bit.

Each entry of cxx/families.cpp is the twin of a Python kernel below (same instructions, same
operands); both run on the same device and their outputs, cycles and findings must agree. The
library is built once per module (g++, the compiler present on every CI runner); the build
cache lives in a per-module temporary directory.
"""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import CXX_DIR

HERE = CXX_DIR.parent
FAMILIES = HERE / "cxx" / "families.cpp"
R = C = 16


@pytest.fixture(scope="module")
def prog():
    p = pto.cxx.load(FAMILIES)
    for name in ENTRIES:  # one library serves every entry asked for before the first run
        p.entry(name)
    return p


def gt(buf, rows=R, cols=C):
    return pto.GlobalTensor(buf, (1, 1, 1, rows, cols))


def vec(dtype="float32", rows=R, cols=C, **kw):
    return pto.Tile("Vec", dtype, rows, cols, **kw)


def sync(a, b):
    pto.set_flag(a, b, pto.EVENT_ID0)
    pto.wait_flag(a, b, pto.EVENT_ID0)


@pto.kernel
def py_binary(out, a, b):
    off = pto.get_block_idx() * R * C
    ga = pto.GlobalTensor(a, (1, 1, 1, R, C), offset=off)
    gb = pto.GlobalTensor(b, (1, 1, 1, R, C), offset=off)
    go = pto.GlobalTensor(out, (1, 1, 1, R, C), offset=off)
    ta, tb, tc = vec(), vec(), vec()
    pto.TASSIGN(ta, 0x0)
    pto.TASSIGN(tb, 0x400)
    pto.TASSIGN(tc, 0x800)
    pto.TLOAD(ta, ga)
    pto.TLOAD(tb, gb)
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TADD(tc, ta, tb)
    pto.pipe_barrier(pto.PIPE_V)
    pto.TMULS(tc, tc, 3.0)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(go, tc)


@pto.kernel
def py_unary(out, a):
    ta, tc = vec(), vec()
    pto.TLOAD(ta, gt(a))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TEXP(tc, ta, algorithm="HIGH_PRECISION")
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out), tc)


@pto.kernel
def py_reduce(out, a):
    ta, tr = vec(), vec(rows=1)
    pto.TLOAD(ta, gt(a))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TCOLSUM(tr, ta)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out, 1, C), tr)


@pto.kernel
def py_convert(out, a):
    ta, th = vec(), vec("half")
    pto.TASSIGN(ta, 0x0)  # (a2a3 TCVT's overlap check needs placed tiles)
    pto.TASSIGN(th, 0x400)
    pto.TLOAD(ta, gt(a))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TCVT(th, ta, "CAST_RINT")
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out), th)


@pto.kernel
def py_index(out, start):
    t = vec("int32", rows=1)
    pto.TCI(t, start, descending=True)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out, 1, C), t)


@pto.kernel
def py_rowexpand(out, col):
    tcol = vec(cols=8)
    tcol.set_valid(R, 1)
    td = vec()
    pto.TLOAD(tcol, gt(col, R, 1))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TROWEXPAND(td, tcol)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out), td)


@pto.kernel
def py_gather(out, table, index):
    dst, idx = vec(), vec("int32")
    pto.TLOAD(idx, gt(index))
    sync(pto.PIPE_MTE2, pto.PIPE_S)
    pto.MGATHER(dst, pto.GlobalTensor(table, (1, 1, 1, 1, 1024)), idx, coalesce="Elem", oob="Clamp")
    sync(pto.PIPE_MTE2, pto.PIPE_MTE3)
    pto.TSTORE(gt(out), dst)


@pto.kernel
def py_events(out, a):
    t = vec()
    pto.TLOAD(t, gt(a))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TADDS(t, t, 1.0)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID1)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID1)
    pto.TSTORE(gt(out), t)


@pto.kernel
def py_colexpand(out, a, row):
    ta, td, tr = vec(), vec(), vec(rows=1)
    pto.TLOAD(ta, gt(a))
    pto.TLOAD(tr, gt(row, 1, C))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TCOLEXPANDADD(td, ta, tr)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out), td)


@pto.kernel
def py_trans(out, a):
    ta, td, tmp = vec(), vec(), vec()
    for t, addr in ((ta, 0x0), (td, 0x400), (tmp, 0x800)):
        pto.TASSIGN(t, addr)
    pto.TLOAD(ta, gt(a))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TTRANS(td, ta, tmp)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out), td)


@pto.kernel
def py_sort(out, scores, index):
    src, idx, dst = vec(rows=1, cols=32), vec("uint32", 1, 32), vec(rows=1, cols=64)
    for t, addr in ((src, 0x0), (idx, 0x100), (dst, 0x200)):
        pto.TASSIGN(t, addr)
    pto.TLOAD(src, gt(scores, 1, 32))
    pto.TLOAD(idx, gt(index, 1, 32))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TSORT32(dst, src, idx)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(gt(out, 1, 64), dst)


@pto.kernel
def py_scatter(table, src, index):
    s, i = vec(rows=1, cols=8), vec("int32", 1, 8)
    pto.TASSIGN(s, 0x0)
    pto.TASSIGN(i, 0x80)
    pto.TLOAD(s, gt(src, 1, 8))
    pto.TLOAD(i, gt(index, 1, 8))
    pto.pipe_barrier(pto.PIPE_ALL)
    pto.MSCATTER(gt(table, 1, 64), s, i, coalesce="Elem")


@pto.kernel
def py_crosscore(out, a, tmp):
    b = pto.get_block_idx()
    view = lambda buf, k: pto.GlobalTensor(buf, (1, 1, 1, R, C), offset=k * R * C)  # noqa: E731
    t = vec()
    pto.TASSIGN(t, 0x0)
    pto.TLOAD(t, view(a, b))
    sync(pto.PIPE_MTE2, pto.PIPE_MTE3)
    pto.TSTORE(view(tmp, 1 - b), t)
    pto.pipe_barrier(pto.PIPE_ALL)
    pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(0, 14))
    pto.wait_flag_dev(14)
    pto.TLOAD(t, view(tmp, b))
    sync(pto.PIPE_MTE2, pto.PIPE_V)
    pto.TADDS(t, t, 1.0)
    sync(pto.PIPE_V, pto.PIPE_MTE3)
    pto.TSTORE(view(out, b), t)


def _inputs(rng):
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    return {
        "fam_binary": (py_binary, 2, [("z", (2, R, C), "float32"), f(2, R, C), f(2, R, C)]),
        "fam_unary": (py_unary, 1, [("z", (R, C), "float32"), f(R, C)]),
        "fam_reduce": (py_reduce, 1, [("z", (1, C), "float32"), f(R, C)]),
        "fam_convert": (py_convert, 1, [("z", (R, C), "half"), f(R, C) * 1000]),
        "fam_index": (py_index, 1, [("z", (1, C), "int32"), 5]),
        "fam_rowexpand": (py_rowexpand, 1, [("z", (R, C), "float32"), f(R)]),
        "fam_colexpand": (py_colexpand, 1, [("z", (R, C), "float32"), f(R, C), f(1, C)]),
        "fam_trans": (py_trans, 1, [("z", (R, C), "float32"), f(R, C)]),
        "fam_sort": (
            py_sort, 1,
            [("z", (1, 64), "float32"), rng.integers(-4, 4, 32).astype(np.float32),
             np.arange(32, dtype=np.uint32)[::-1].copy()],
        ),
        "fam_scatter": (
            py_scatter, 1,
            [("z", (1, 64), "float32"), f(8), rng.permutation(64)[:8].astype(np.int32)],
        ),
        "fam_crosscore": (
            py_crosscore, 2, [("z", (2, R, C), "float32"), f(2, R, C), ("z", (2, R, C), "float32")],
        ),
        "fam_events": (py_events, 1, [("z", (R, C), "float32"), f(R, C)]),
        "fam_gather": (
            py_gather, 1,
            [("z", (R, C), "float32"), f(1024), rng.integers(-50, 1100, (R, C)).astype(np.int32)],
        ),
    }  # fmt: skip


ENTRIES = list(_inputs(np.random.default_rng(0)))


def _run(dev_name, kernel, block_dim, spec):
    dev = pto.Device(dev_name)
    args = []
    for item in spec:
        if isinstance(item, tuple):
            args.append(dev.gm_zeros(item[1], item[2]))
        elif isinstance(item, np.ndarray):
            args.append(dev.gm_array(item))
        else:
            args.append(item)
    res = dev.run(kernel, *args, block_dim=block_dim)
    return args[0].numpy(), res


@pytest.mark.parametrize("device", ["a2", "950pr"])
@pytest.mark.parametrize("entry", ENTRIES)
def test_cxx_kernel_matches_its_python_twin(prog, entry, device):
    py_kernel, blocks, spec = _inputs(np.random.default_rng(7))[entry]
    out_cxx, res_cxx = _run(device, prog.entry(entry), blocks, spec)
    out_py, res_py = _run(device, py_kernel, blocks, spec)
    assert out_cxx.tobytes() == out_py.tobytes()
    assert np.any(out_py != 0)  # the kernels really wrote their output
    if entry == "fam_crosscore":  # each block reads what the other block wrote
        assert out_py.tobytes() == (spec[1][::-1] + np.float32(1)).tobytes()
    assert res_cxx.cycles == res_py.cycles
    assert [f.code for f in res_cxx.findings] == [f.code for f in res_py.findings]
    # every recorded instruction names its C++ line
    for block in res_cxx.blocks:
        assert all(i.source and i.source.startswith("families.cpp:") for i in block.program)


def test_identical_runs_give_identical_programs(prog):
    """Event ids, tile names and sources do not depend on what ran before in the process."""
    runs = []
    for _ in range(2):
        dev = pto.Device("a2")
        a = dev.gm_array(np.ones((R, C), np.float32))
        res = dev.run(prog.entry("fam_events"), dev.gm_zeros((R, C), "float32"), a)
        prog_ = res.blocks[0].program
        runs.append([(i.label, i.source, getattr(i, "event_id", None)) for i in prog_])
    assert runs[0] == runs[1]


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_multicore_loop_ping_pong_kernel_matches_numpy(device):
    """4 blocks, a loop with double buffers, GlobalTensor re-pointing (TASSIGN on a tensor),
    event ids in variables, dynamic valid shapes, integer parameters (tests/cxx/multicore.cpp)."""
    rng = np.random.default_rng(7)
    blocks, rows_per_block, table_rows = 4, 16, 100
    n = blocks * rows_per_block
    table = rng.standard_normal((table_rows, 64)).astype(np.float32)
    index = rng.integers(-5, table_rows + 5, n).astype(np.int32)  # some out of range: Clamp
    clamped = np.clip(index, 0, table_rows - 1)
    clamped[index < 0] = table_rows - 1  # a negative index is a huge unsigned one: clamps high
    rowmax = np.repeat(table[clamped].max(axis=1, keepdims=True), 8, axis=1).astype(np.float32)
    dev = pto.Device(device)
    out = dev.gm_zeros((n, 64), "float32")
    args = [dev.gm_array(table), dev.gm_array(index), dev.gm_array(rowmax)]
    kernel = pto.cxx.load(HERE / "cxx" / "multicore.cpp").entry("gather_center")
    res = dev.run(kernel, out, *args, rows_per_block, table_rows, block_dim=blocks)
    assert np.array_equal(out.numpy(), table[clamped] - rowmax[:, :1])
    assert res.findings == []
    assert {b.program.block_idx for b in res.blocks} == set(range(blocks))
