"""Issue 10 "done when": a hypothesis fuzz test of the public API.

Random small kernels (loads, stores, fills, copies, row expansions, flags, barriers, dynamic
valid shapes) mixed with random bad arguments, on all five devices. Whatever happens:

- the only exception that escapes is a PtoSimError;
- GM changes only inside the elements the kernel's TSTOREs cover;
- an identical rerun (fresh device, same kernel) gives identical GM, cycles, findings, trace or
  error message.
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.trace_io import chrome_trace

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
DTYPES = ("float32", "half", "int32", "int16")
GM_ELEMS = 2048  # per buffer; every GlobalTensor the fuzzer builds lies inside or is rejected
PIPES = ("MTE2", "V", "MTE3", "S")

garbage = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**70), 2**70),
    st.text(max_size=3),
    st.tuples(st.integers(-4, 40), st.integers(-4, 40)),
    st.lists(st.integers(-2, 70), max_size=6),
)


def mostly(plausible, p_garbage=0.05):
    """``plausible`` most of the time, garbage with probability ``p_garbage``."""
    return st.floats(0, 1).flatmap(lambda u: garbage if u < p_garbage else plausible)


small = mostly(st.integers(0, 8))
scalar = mostly(st.one_of(st.integers(-100, 100), st.floats(-1e3, 1e3)), 0.3)


@st.composite
def tile_specs(draw):
    """Three tiles, usually of one dtype and legal shapes (a bad shape now and then)."""
    base = draw(st.sampled_from(DTYPES))
    out = []
    for _ in range(3):
        dt = draw(mostly(st.just(base), 0.15).filter(lambda v: v in DTYPES) | st.just(base))
        size = np.dtype("float16" if dt == "half" else dt).itemsize
        rows = draw(st.sampled_from((1, 2, 4, 8)))
        cols = draw(mostly(st.sampled_from((32 // size, 64 // size)), 0.1).filter(is_int))
        out.append((dt, rows, cols))
    return out


def is_int(v):
    return type(v) is int and 0 < v <= 64


@st.composite
def ops(draw):
    kind = draw(
        st.sampled_from(
            (
                "load",
                "store",
                "fill",
                "mov",
                "rowexpand",
                "binary",
                "flag",
                "barrier",
                "valid",
                "bad",
            )
        )
    )
    if kind in ("load", "store"):
        shape = draw(
            mostly(st.just(None), 0.3).flatmap(
                lambda v: st.tuples(small, small) if v is not None else st.just(None)
            )
        )
        return kind, draw(st.integers(0, 2)), shape, draw(mostly(st.integers(0, 64), 0.1))
    if kind == "fill":
        return kind, draw(st.integers(0, 2)), draw(scalar)
    if kind in ("mov", "rowexpand"):
        return kind, draw(st.integers(0, 2)), draw(st.integers(0, 2))
    if kind == "binary":
        op = draw(st.sampled_from(("ADD", "MAX", "MUL", "DIV")))
        return kind, op, draw(st.integers(0, 2)), draw(st.integers(0, 2)), draw(st.integers(0, 2))
    if kind == "flag":
        pipes = mostly(st.sampled_from(PIPES))
        event = mostly(st.integers(0, 9))
        return (
            kind,
            draw(st.sampled_from(("set", "wait", "both"))),
            draw(pipes),
            draw(pipes),
            draw(event),
        )
    if kind == "barrier":
        return kind, draw(mostly(st.sampled_from(PIPES + ("ALL",))))
    if kind == "valid":
        return kind, draw(st.integers(0, 2)), draw(small), draw(small)
    return kind, draw(st.sampled_from(BAD_CALLS)), draw(garbage)


# every public entry point, called with one garbage argument
BAD_CALLS = (
    "tile_rows",
    "tile_loc",
    "tile_pad",
    "tile_valid",
    "gt_shape",
    "gt_stride",
    "gt_offset",
    "gt_dtype",
    "tload_tile",
    "tassign",
    "texpands_tile",
    "gm_zeros",
    "gm_full",
    "gm_array",
)


def _bad(dev, which, value, tiles, bufs):
    buf = bufs[0][0]
    calls = {
        "tile_rows": lambda: pto.Tile("Vec", "float32", value, 8),
        "tile_loc": lambda: pto.Tile(value, "float32", 8, 8),
        "tile_pad": lambda: pto.Tile("Vec", "int16", 8, 16, pad=value),
        "tile_valid": lambda: pto.Tile("Vec", "float32", 8, 8, valid=value),
        "gt_shape": lambda: pto.GlobalTensor(buf, value),
        "gt_stride": lambda: pto.GlobalTensor(buf, (2, 2), stride=value),
        "gt_offset": lambda: pto.GlobalTensor(buf, (2, 2), offset=value),
        "gt_dtype": lambda: pto.GlobalTensor(buf, (2, 2), dtype=value),
        "tload_tile": lambda: pto.TLOAD(value, pto.GlobalTensor(buf, (1, 8))),
        "tassign": lambda: pto.TASSIGN(tiles[0], value),
        "texpands_tile": lambda: pto.TEXPANDS(value, 1),
        "gm_zeros": lambda: dev.gm_zeros(value, "float32"),
        "gm_full": lambda: dev.gm_full(4, "int16", value),
        "gm_array": lambda: dev.gm_array(value),
    }
    calls[which]()


def _make(device, tile_spec, program, block_dim):
    """A fresh device, its GM buffers (one input and one output per tile) and the kernel."""
    dev = pto.Device(device)
    rng = np.random.default_rng(0)
    bufs = []
    for dt, _, _ in tile_spec:
        host = (rng.standard_normal(GM_ELEMS) * 8).astype(pto.dtypes.dtype(dt).np)
        bufs.append((dev.gm_array(host), dev.gm_zeros(GM_ELEMS, dt)))
    stored: list = []  # GmRefs the kernel TSTOREs (the only GM it may change)

    @pto.kernel
    def k():
        tiles = [pto.Tile("Vec", dt, r, c) for dt, r, c in tile_spec]
        for op in program:
            kind = op[0]
            if kind in ("load", "store"):
                _, i, shape, offset = op
                t = tiles[i]
                gshape = (t.valid_row, t.valid_col) if shape is None else shape
                src, out = bufs[i]
                gt = pto.GlobalTensor(out if kind == "store" else src, gshape, offset=offset)
                if kind == "store":
                    pto.TSTORE(gt, t)
                    stored.append((gt.ref(), t.valid))
                else:
                    pto.TLOAD(t, gt)
            elif kind == "fill":
                pto.TEXPANDS(tiles[op[1]], op[2])
            elif kind == "mov":
                pto.TMOV(tiles[op[1]], tiles[op[2]])
            elif kind == "rowexpand":
                pto.TROWEXPAND(tiles[op[1]], tiles[op[2]])
            elif kind == "binary":
                fn = getattr(pto, f"TROWEXPAND{op[1]}")
                fn(tiles[op[2]], tiles[op[3]], tiles[op[4]])
            elif kind == "flag":
                _, which, a, b, e = op
                if which in ("set", "both"):
                    pto.set_flag(a, b, e)
                if which in ("wait", "both"):
                    pto.wait_flag(a, b, e)
            elif kind == "barrier":
                pto.pipe_barrier(op[1])
            elif kind == "valid":
                tiles[op[1]].set_valid(op[2], op[3])
            else:
                _bad(dev, op[1], op[2], tiles, bufs)

    return dev, bufs, k, stored


def _outcome(device, tile_spec, program, block_dim):
    """Run once; return a comparable description of everything observable."""
    dev, bufs, k, stored = _make(device, tile_spec, program, block_dim)
    before = [b.data.copy() for b in dev.gm.buffers]
    try:
        run = dev.run(k, block_dim=block_dim)
    except pto.PtoSimError as exc:
        result = ("error", type(exc).__name__, str(exc))
    except Exception as exc:  # the property: nothing but PtoSimError escapes
        pytest.fail(f"{type(exc).__name__} escaped on {device}: {exc!r}\nprogram={program}")
    else:
        trace = chrome_trace(run) if run.trace is not None else None
        result = ("ok", run.cycles, [str(f) for f in run.findings], trace)
    _check_gm(dev, before, stored, result)
    return result, [b.data.tobytes() for b in dev.gm.buffers]


def _check_gm(dev, before, stored, result):
    """GM bytes outside the TSTOREd elements are unchanged (inputs, and the rest of outputs)."""
    allowed: dict[int, set] = {}
    for ref, (vr, vc) in stored:
        r, c = np.meshgrid(np.arange(vr), np.arange(vc), indexing="ij")
        if ref.layout.name != "ND":
            return  # only ND views are recomputed here; other layouts are checked elsewhere
        rows, cols = ref.geom.logical_shape
        if vr > rows or vc > cols:
            return  # a finding/trace case whose covered set differs per target
        el = ref.offsets(r, c).reshape(-1)
        size = ref.dtype.size_bytes
        byte_ix = (el[:, None] * size + np.arange(size)).reshape(-1)
        allowed.setdefault(ref.buffer.buffer_id, set()).update(byte_ix.tolist())
    for buf, old in zip(dev.gm.buffers, before, strict=False):
        changed = np.nonzero(buf.data != old)[0]
        extra = set(changed.tolist()) - allowed.get(buf.buffer_id, set())
        assert not extra, (
            f"GM buffer #{buf.buffer_id} changed outside the stores: {sorted(extra)[:8]}"
        )


@settings(
    max_examples=int(os.environ.get("PTOSIM_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    device=st.sampled_from(DEVICES),
    tile_spec=tile_specs(),
    program=st.lists(ops(), min_size=1, max_size=6),
    block_dim=st.one_of(st.just(1), st.just(2)),
)
@pytest.mark.slow
def test_fuzz_public_api(device, tile_spec, program, block_dim):
    first, gm_first = _outcome(device, tile_spec, program, block_dim)
    event(f"{first[0]} {first[1] if first[0] == 'error' else ''}")
    second, gm_second = _outcome(device, tile_spec, program, block_dim)
    assert first == second, f"rerun differs on {device}"
    assert gm_first == gm_second, f"rerun GM differs on {device}"


@settings(max_examples=40, deadline=None)
@given(
    device=st.sampled_from(DEVICES),
    what=st.sampled_from(("block_dim", "dyn_ubuf_size", "strict", "progress", "overrides")),
    value=garbage,
)
def test_fuzz_bad_device_arguments(device, what, value):
    # a valid launch of many blocks runs them all (seconds each); tests/engine/test_waves.py
    # covers launches past the device's cores
    assume(not (what == "block_dim" and type(value) is int and 64 < value <= 4096))
    try:
        if what == "overrides":
            pto.Device(device, overrides={"timing.mte2.latency_cycles": value})
            assert device == "cpu" or (isinstance(value, int) and value >= 0)
            return
        dev = pto.Device(device)
        dev.run(pto.kernel(lambda: None), **{what: value})
    except pto.PtoSimError:
        pass
    else:
        ok = {
            "block_dim": lambda v: type(v) is int and 1 <= v <= 4096,  # more than the cores: waves
            "dyn_ubuf_size": lambda v: v is None or (type(v) is int and v >= 1),
            "strict": lambda v: isinstance(v, bool),
            "progress": lambda v: v is None,
        }[what](value)
        assert ok, f"{what}={value!r} was accepted"
