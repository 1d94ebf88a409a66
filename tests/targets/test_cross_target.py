"""Cross-target agreement: random small kernels give bit-identical GM on all five devices.

Each example draws one kernel: data movement (TLOAD/TSTORE over ND, DN and NZ views with gaps,
offsets and pad values, TMOV, TEXPANDS) or a seed instruction (MGATHER, MSCATTER, TSCATTER,
TROWEXPAND*) fed by TLOADs and stored by TSTORE, optionally followed by a TMOV. Every kernel is
synchronised the way the reference tests are (semantics.md 4.3), so the timed targets must give
the reference result. The kernel then runs on cpu, a2, a3, 950pr and 950dt and every GM buffer
is compared bit for bit.

The generator only draws kernels inside the region where the documented decisions
(docs/decisions.md D1-D17) say the targets agree; each restriction below cites its decision.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D

pytestmark = pytest.mark.slow  # hypothesis over every device: about 20 s in all

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")

# TLOAD/TSTORE dtypes on every target (a2a3 has no fp8/hifloat8: docs/reference/data-movement.md)
MOVE_DTYPES = (
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "half",
    "bfloat16",
    "float32",
)
# MGATHER/MSCATTER dtypes of a2a3, the smallest set (docs/reference/gather-scatter.md)
GATHER_DTYPES = MOVE_DTYPES[:6] + ("half", "bfloat16", "float32")
# MSCATTER Add: a2a3 {int8,int16,int32,half,bf16,float} & a5 {int32,uint32,float,half,bf16}
ADD_DTYPES = ("int32", "half", "bfloat16", "float32")
# TSCATTER (dst, idx) pairs a2a3 accepts: sizes (4,4), (2,2), (1,2)
TSCATTER_PAIRS = (
    ("int32", "uint32"),
    ("float32", "int32"),
    ("half", "uint16"),
    ("bfloat16", "int16"),
    ("int16", "uint16"),
    ("uint8", "uint16"),
    ("int8", "int16"),
)
# TROWEXPAND*: the a2a3 dtype list is a subset of cpu's and a5's
ROWEXPAND_DTYPES = ("int32", "int16", "half", "float32")
ROWEXPAND_OPS = ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF")


def _values(rng, dt_name: str, shape, *, nonzero=False) -> np.ndarray:
    """Random finite values of a dtype (no NaN: cpu keeps std::max/std::min's first operand
    where the NPUs propagate NaN, a documented difference; small integers so integer ops
    cannot overflow)."""
    dt = D.dtype(dt_name)
    if dt.kind == "float":
        v = rng.uniform(-8, 8, size=shape).round(2)
        if nonzero:
            v = np.where(np.abs(v) < 0.5, 1.5, v)
        return v.astype(dt.np)
    info = np.iinfo(dt.np)
    lo, hi = max(info.min, -100), min(info.max, 100)
    v = rng.integers(lo, hi + 1, size=shape)
    if nonzero:
        v = np.where(v == 0, 3, v)
    return v.astype(dt.np)


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


def _sync(src: str, dst: str) -> None:
    pto.set_flag(src, dst, 0)
    pto.wait_flag(src, dst, 0)


class Kernel:
    """A drawn kernel: host inputs, output shapes and a body(bufs) using them."""

    def __init__(self):
        self.inputs: list[tuple[np.ndarray, str]] = []  # (host array, dtype name)
        self.body = None

    def buffer(self, host: np.ndarray, dt: str) -> int:
        self.inputs.append((np.ascontiguousarray(host), dt))
        return len(self.inputs) - 1


def run_everywhere(kernel: Kernel) -> dict[str, list[bytes]]:
    results = {}
    for devname in DEVICES:
        dev = pto.Device(devname)
        bufs = [dev.gm_array(h, dtype=dt) for h, dt in kernel.inputs]

        @pto.kernel
        def k(*bufs):
            kernel.body(bufs)

        dev.run(k, *bufs)
        results[devname] = [b.numpy().tobytes() for b in bufs]
    return results


def assert_agree(kernel: Kernel, label: str) -> None:
    results = run_everywhere(kernel)
    ref = results["cpu"]
    for devname, got in results.items():
        for n, (a, b) in enumerate(zip(ref, got)):
            assert a == b, f"{label}: GM buffer {n} differs between cpu and {devname}"


# -- data movement ----------------------------------------------------------------------------
@st.composite
def copy_kernels(draw):
    """TLOAD a strided view, maybe TMOV / TEXPANDS, TSTORE into another strided view."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dt = draw(st.sampled_from(MOVE_DTYPES))
    c0 = D.dtype(dt).c0
    layout = draw(st.sampled_from(("ND", "DN", "NZ")))
    if layout == "NZ":  # Shape<1, C/C0, R/16, 16, C0>, packed inside each fractal
        s1, s2 = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        rows, cols = 16 * s2, s1 * c0
        shape = (1, s1, s2, 16, c0)
        # block stride >= one block column (a2a3 gmGap >= 0, D13)
        stride_of = lambda gap: (s1 * (rows * c0 + gap), rows * c0 + gap, 16 * c0, c0, 1)  # noqa: E731
        tile_kw = dict(rows=rows, cols=cols, blayout="ColMajor", slayout="RowMajor")
        valid = (rows, cols)
    else:
        outer = draw(st.integers(1, 2))
        inner_n = draw(st.integers(1, 6))
        burst = draw(st.integers(1, 3 * c0 + 1))  # elements along the burst (contiguous)
        if layout == "ND":  # [1, 1, outer, n_rows, burst]
            shape = (1, 1, outer, inner_n, burst)
            rows, cols = outer * inner_n, burst
            tile_kw = dict(rows=rows, cols=_round_up(cols, c0))

            def stride_of(gap, shape=shape):
                pitch = shape[4] + gap  # D13: stride[3] >= shape[4] (a2a3 gmGap)
                return (0, 0, shape[3] * pitch + gap, pitch, 1)

        else:  # DN: [1, 1, outer, burst rows, n_cols]
            shape = (1, 1, outer, burst, inner_n)
            rows, cols = burst, outer * inner_n
            tile_kw = dict(rows=_round_up(rows, c0), cols=cols, blayout="ColMajor")

            def stride_of(gap, shape=shape):
                pitch = shape[3] + gap
                return (0, 0, shape[4] * pitch + gap, 1, pitch)

        valid = (rows, cols)
    in_gap, out_gap = draw(st.integers(0, 5)), draw(st.integers(0, 5))
    in_stride, out_stride = stride_of(in_gap), stride_of(out_gap)
    in_off, out_off = draw(st.integers(0, 7)), draw(st.integers(0, 7))
    extent = lambda stride: 1 + sum((s - 1) * t for s, t in zip(shape, stride))  # noqa: E731
    # D8: the pad value fills different elements per target, but only non-valid ones,
    # and TSTORE writes only the valid region
    pad = draw(st.sampled_from(("Null", "Zero", "Max", "Min")))
    if D.dtype(dt).size_bytes == 8 or pad in ("Max", "Min") and dt == "int64":
        pad = "Null"
    post = draw(st.sampled_from(("none", "tmov", "texpands", "both")))
    fill = _values(rng, dt, ())

    k = Kernel()
    src = k.buffer(_values(rng, dt, in_off + extent(in_stride)), dt)
    out = k.buffer(_values(rng, dt, out_off + extent(out_stride)), dt)
    label = f"copy {dt} {layout} {shape} in {in_stride}+{in_off} out {out_stride}+{out_off} {post}"

    def body(bufs):
        a = pto.Tile("Vec", dt, valid=valid, pad=pad, **tile_kw)
        b = pto.Tile("Vec", dt, valid=valid, **tile_kw)
        pto.TLOAD(a, pto.GlobalTensor(bufs[src], shape, in_stride, layout, offset=in_off))
        last = a
        if post != "none":
            _sync("MTE2", "V")
            if post in ("tmov", "both"):
                pto.TMOV(b, a)
                last = b
            if post in ("texpands", "both"):
                pto.TEXPANDS(last, fill)
            _sync("V", "MTE3")
        else:
            _sync("MTE2", "MTE3")
        pto.TSTORE(pto.GlobalTensor(bufs[out], shape, out_stride, layout, offset=out_off), last)

    k.body = body
    return k, label


# -- seed instructions --------------------------------------------------------------------------
def _store(bufs, out: int, tile: pto.Tile, after: str, tmov: bool) -> None:
    """Store ``tile`` (valid region) after the producing pipe, maybe through a TMOV first."""
    if tmov:
        copy = pto.Tile("Vec", tile.dtype, tile.rows, tile.cols, valid=tile.valid)
        if after != "V":
            _sync(after, "V")
        pto.TMOV(copy, tile)
        tile, after = copy, "V"
    _sync(after, "MTE3")
    r, c = tile.valid
    pto.TSTORE(pto.GlobalTensor(bufs[out], (1, 1, 1, r, c), (0, 0, 0, c, 1)), tile)


def _load_nd(bufs, n: int, tile: pto.Tile) -> None:
    r, c = tile.valid
    pto.TLOAD(tile, pto.GlobalTensor(bufs[n], (1, 1, 1, r, c), (0, 0, 0, c, 1)))


@st.composite
def mgather_kernels(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dt = draw(st.sampled_from(GATHER_DTYPES))
    idx_dt = draw(st.sampled_from(("int32", "uint32")))
    mode = draw(st.sampled_from(("row", "elem")))
    oob = draw(st.sampled_from(("undefined", "clamp", "wrap", "zero")))
    R, C = draw(st.integers(1, 6)), draw(st.integers(1, 40))
    n_rows = draw(st.integers(1, 12))
    # D3: Row capacity shape[3] agrees when shape0..2 == 1; the a5 row pitch is validCol,
    # so the table is packed with shape[4] == C
    table = _values(rng, dt, (n_rows, C))
    cap = n_rows if mode == "row" else n_rows * C
    ishape = (1, R) if mode == "row" else (R, C)
    hi = cap - 1 if oob == "undefined" else 3 * cap
    # D2: a negative index converts through size_t on cpu and uint32 on the NPUs (a
    # documented difference under Wrap), so indices are drawn non-negative
    idx = rng.integers(0, hi + 1, size=ishape).astype(D.dtype(idx_dt).np)
    tmov = draw(st.booleans())
    k = Kernel()
    tb, ib = k.buffer(table, dt), k.buffer(idx, idx_dt)
    out = k.buffer(_values(rng, dt, (R, C)), dt)
    label = f"MGATHER {mode} {oob} {dt}/{idx_dt} R={R} C={C} rows={n_rows} tmov={tmov}"

    def body(bufs):
        dst = pto.Tile("Vec", dt, R, _round_up(C, D.dtype(dt).c0), valid=(R, C))
        it = pto.Tile("Vec", idx_dt, ishape[0], _round_up(ishape[1], 8), valid=ishape)
        _load_nd(bufs, ib, it)
        _sync("MTE2", "V")
        g = pto.GlobalTensor(bufs[tb], (1, 1, 1, n_rows, C), (0, 0, 0, C, 1))
        pto.MGATHER(dst, g, it, coalesce=mode, oob=oob)
        _store(bufs, out, dst, "V", tmov)

    k.body = body
    return k, label


@st.composite
def mscatter_kernels(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    atomic = draw(st.sampled_from(("none", "add")))
    dt = draw(st.sampled_from(GATHER_DTYPES if atomic == "none" else ADD_DTYPES))
    idx_dt = draw(st.sampled_from(("int32", "uint32")))
    mode = draw(st.sampled_from(("row", "elem")))
    oob = draw(st.sampled_from(("undefined", "skip", "clamp", "wrap")))
    R, C = draw(st.integers(1, 6)), draw(st.integers(1, 40))
    n_rows = draw(st.integers(1, 12))
    cap = n_rows if mode == "row" else n_rows * C
    ishape = (1, R) if mode == "row" else (R, C)
    hi = cap - 1 if oob == "undefined" else 3 * cap
    # duplicates allowed: D6 (cpu/a2a3 last writer in row-major order; a5 Conflict::Last keeps
    # the largest flat source index, the same element); D12 for Add (source order)
    idx = rng.integers(0, hi + 1, size=ishape).astype(D.dtype(idx_dt).np)
    k = Kernel()
    tb = k.buffer(_values(rng, dt, (n_rows, C)), dt)
    sb, ib = k.buffer(_values(rng, dt, (R, C)), dt), k.buffer(idx, idx_dt)
    label = f"MSCATTER {mode} {atomic} {oob} {dt}/{idx_dt} R={R} C={C} rows={n_rows}"

    def body(bufs):
        s = pto.Tile("Vec", dt, R, _round_up(C, D.dtype(dt).c0), valid=(R, C))
        it = pto.Tile("Vec", idx_dt, ishape[0], _round_up(ishape[1], 8), valid=ishape)
        _load_nd(bufs, sb, s)
        _load_nd(bufs, ib, it)
        pto.pipe_barrier("ALL")  # the a2a3 caller pattern; a5 needs MTE2 -> V
        g = pto.GlobalTensor(bufs[tb], (1, 1, 1, n_rows, C), (0, 0, 0, C, 1))
        pto.MSCATTER(g, s, it, coalesce=mode, atomic=atomic, oob=oob)

    k.body = body
    return k, label


@st.composite
def tscatter_kernels(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dt, idx_dt = draw(st.sampled_from(TSCATTER_PAIRS))
    c0 = D.dtype(dt).c0
    tmov = draw(st.booleans())
    k = Kernel()
    if draw(st.booleans()):  # index mode
        R, C = draw(st.integers(1, 4)), draw(st.integers(1, 20))
        dr, dc = draw(st.integers(1, 4)), _round_up(draw(st.integers(1, 40)), c0)
        n = min(R * C, dr * dc)
        R, C = (1, n) if n < R * C else (R, C)
        # D6: a5 resolves duplicates inside one vscatter by lowest lane, so indices are
        # distinct; D5: all inside the tile
        idx = rng.permutation(dr * dc)[: R * C].reshape(R, C).astype(D.dtype(idx_dt).np)
        sb, ib = k.buffer(_values(rng, dt, (R, C)), dt), k.buffer(idx, idx_dt)
        out = k.buffer(_values(rng, dt, (dr, dc)), dt)
        label = f"TSCATTER index {dt}/{idx_dt} src {R}x{C} dst {dr}x{dc} tmov={tmov}"

        def body(bufs):
            s = pto.Tile("Vec", dt, R, _round_up(C, c0), valid=(R, C))
            it = pto.Tile("Vec", idx_dt, R, _round_up(C, D.dtype(idx_dt).c0), valid=(R, C))
            d = pto.Tile("Vec", dt, dr, dc)
            _load_nd(bufs, sb, s)
            _load_nd(bufs, ib, it)
            _sync("MTE2", "V")
            # D5: a2a3/a5 zero the whole dst first, cpu does not: zero it on every target
            pto.TEXPANDS(d, 0)
            pto.TSCATTER(d, s, it)
            _store(bufs, out, d, "V", tmov)

    else:  # mask mode (the cpu reference takes 16- and 32-bit elements only)
        dt = draw(st.sampled_from([d for d, _ in TSCATTER_PAIRS if D.dtype(d).size_bytes > 1]))
        c0 = D.dtype(dt).c0
        mask = draw(st.sampled_from(("P0101", "P1010", "P0001", "P0010", "P0100", "P1000")))
        axis = draw(st.sampled_from(("SCATTER_ROW", "SCATTER_COL")))
        times = 2 if mask in ("P0101", "P1010") else 4
        R = draw(st.integers(1, 4))
        # cpu SCATTER_ROW reads its source cursor at the padded width: valid == Cols agrees
        C = c0 * draw(st.integers(1, 2))
        dshape = (R, C * times) if axis == "SCATTER_ROW" else (R * times, C)
        sb = k.buffer(_values(rng, dt, (R, C)), dt)
        out = k.buffer(_values(rng, dt, dshape), dt)
        label = f"TSCATTER {mask} {axis} {dt} {R}x{C} tmov={tmov}"

        def body(bufs):
            s = pto.Tile("Vec", dt, R, C)
            d = pto.Tile("Vec", dt, *dshape)
            _load_nd(bufs, sb, s)
            _sync("MTE2", "V")
            pto.TSCATTER(d, s, mask=mask, axis=axis)
            _store(bufs, out, d, "V", tmov)

    k.body = body
    return k, label


@st.composite
def rowexpand_kernels(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    op = draw(st.sampled_from(ROWEXPAND_OPS + ("EXPAND",)))
    dtypes = ROWEXPAND_DTYPES if op != "EXPDIF" else ("half", "float32")  # EXPDIF: floats only
    dt = draw(st.sampled_from(dtypes))
    bs = D.dtype(dt).c0
    R = draw(st.integers(1, 10))
    cols = _round_up(draw(st.integers(1, 3 * bs)), bs)
    C = draw(st.integers(1, cols))
    mode = draw(st.sampled_from((1, 2)))
    swap = op != "EXPAND" and draw(st.booleans())  # expanded operand as src0
    tmov = draw(st.booleans())
    # D9: mode 2 reads E at row pitch 32/sizeof(T); cpu honours Cols: E.Cols == bs agrees
    eshape = (R, 1) if mode == 1 or op == "EXPAND" else (R, bs)
    if op != "EXPAND" and eshape[1] == C:
        # both operands would have dst's valid shape: cpu/a5 take src0 as the full operand,
        # a2a3 compares RowStrides (documented in isa/rowexpand.py); keep them distinct
        cols = max(cols, 2 * bs)
        C = cols if op == "MAX" else C + 1
    k = Kernel()
    fb = k.buffer(_values(rng, dt, (R, C), nonzero=op == "DIV"), dt)
    eb = k.buffer(_values(rng, dt, eshape, nonzero=op == "DIV"), dt)
    out = k.buffer(_values(rng, dt, (R, C)), dt)
    label = f"TROWEXPAND{op if op != 'EXPAND' else ''} mode {mode} {dt} {R}x{C} swap={swap}"

    def body(bufs):
        d = pto.Tile("Vec", dt, R, cols, valid=(R, C))
        f = pto.Tile("Vec", dt, R, cols, valid=(R, C))
        if eshape[1] == 1:
            e = pto.Tile("Vec", dt, _round_up(R, bs), 1, "ColMajor", valid=(R, 1))
            pto.TLOAD(e, pto.GlobalTensor(bufs[eb], (1, 1, 1, R, 1), layout="DN"))
        else:
            e = pto.Tile("Vec", dt, R, bs)
            _load_nd(bufs, eb, e)
        _load_nd(bufs, fb, f)
        _sync("MTE2", "V")
        if op == "EXPAND":
            pto.TROWEXPAND(d, e)
        else:
            fn = getattr(pto, f"TROWEXPAND{op}")
            fn(d, e, f) if swap else fn(d, f, e)
        _store(bufs, out, d, "V", tmov)

    k.body = body
    return k, label


SETTINGS = settings(
    max_examples=int(os.environ.get("PTOSIM_XT_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(copy_kernels())
def test_data_movement_agrees_on_every_device(drawn):
    assert_agree(*drawn)


@SETTINGS
@given(mgather_kernels())
def test_mgather_agrees_on_every_device(drawn):
    assert_agree(*drawn)


@SETTINGS
@given(mscatter_kernels())
def test_mscatter_agrees_on_every_device(drawn):
    assert_agree(*drawn)


@SETTINGS
@given(tscatter_kernels())
def test_tscatter_agrees_on_every_device(drawn):
    assert_agree(*drawn)


@SETTINGS
@given(rowexpand_kernels())
def test_rowexpand_agrees_on_every_device(drawn):
    assert_agree(*drawn)
