"""TSTORE with AtomicType::AtomicAdd: GM += tile with one rounding per add (D12), a hardware
atomic that several cores may aim at one region without a race, the set_atomic_* control steps
on the scalar pipe, the dtype rule, and the C++ form TSTORE<Tile, Gm, AtomicType::AtomicAdd>."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim.dtypes import dtype as as_dtype
from tests.helpers.paths import CXX_DIR

R, C = 8, 32
SHAPE = (1, 1, 1, R, C)
CXX = CXX_DIR / "atomic.cpp"
DTYPES = ("float32", "half", "bfloat16", "int32", "int16", "int8")


def np_type(name: str):
    return as_dtype(name).np


def accumulate(dtype: str, atomic="add"):
    """Every block loads its (R, C) slice of ``a`` and stores it into the one ``out``."""

    @pto.kernel
    def k(out, a):
        t = pto.Tile("Vec", dtype, R, C)
        pto.TASSIGN(t, 0x0)
        pto.TLOAD(t, pto.GlobalTensor(a, SHAPE, offset=pto.get_block_idx() * R * C))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, SHAPE), t, atomic=atomic)

    return k


def independent_add(cur: np.ndarray, val: np.ndarray, np_t) -> np.ndarray:
    """cur + val rounded once to the element type (float64 holds every sum of two float32 /
    half / bfloat16 values closely enough for one correct rounding), integers wrapping."""
    if np.issubdtype(np.dtype(np_t), np.integer):
        return (cur.astype(np.int64) + val.astype(np.int64)).astype(np_t)
    return (cur.astype(np.float64) + val.astype(np.float64)).astype(np_t)


def _values(np_t, draw_seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(draw_seed)
    if np.issubdtype(np.dtype(np_t), np.integer):
        info = np.iinfo(np_t)
        return rng.integers(info.min, info.max, n, endpoint=True).astype(np_t)
    return (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 1e3], n)).astype(np_t)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(DTYPES))
def test_one_atomic_store_adds_into_gm_with_one_rounding(seed, dtype):
    np_t = np_type(dtype)
    cur = _values(np_t, seed, R * C).reshape(R, C)
    val = _values(np_t, seed + 1, R * C).reshape(R, C)
    dev = pto.Device("cpu")
    out = dev.gm_array(cur.copy())
    dev.run(accumulate(dtype), out, dev.gm_array(val))
    got = out.numpy()
    want = independent_add(cur, val, np_t)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
def test_cores_adding_into_one_region_all_land_without_a_race(device):
    blocks = 4
    a = np.random.default_rng(3).integers(-1000, 1000, (blocks, R, C)).astype(np.int32)
    dev = pto.Device(device)
    out = dev.gm_array(np.full((R, C), 7, np.int32))
    res = dev.run(accumulate("int32"), out, dev.gm_array(a), block_dim=blocks)
    assert np.array_equal(out.numpy(), 7 + a.sum(axis=0))
    assert not res.findings, res.findings


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
def test_plain_stores_of_several_cores_into_one_region_are_a_race(device):
    dev = pto.Device(device)
    out = dev.gm_zeros((R, C), "int32")
    a = dev.gm_zeros((4, R, C), "int32")
    res = dev.run(accumulate("int32", atomic="none"), out, a, block_dim=4)
    assert "F205" in [f.code for f in res.findings]


def test_an_atomic_add_racing_a_plain_store_is_still_a_race():
    @pto.kernel
    def k(out, a):
        t = pto.Tile("Vec", "int32", R, C)
        pto.TASSIGN(t, 0x0)
        pto.TLOAD(t, pto.GlobalTensor(a, SHAPE))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        atomic = "add" if pto.get_block_idx() == 0 else "none"
        pto.TSTORE(pto.GlobalTensor(out, SHAPE), t, atomic=atomic)

    dev = pto.Device("a2")
    res = dev.run(k, dev.gm_zeros((R, C), "int32"), dev.gm_zeros((R, C), "int32"), block_dim=2)
    assert "F205" in [f.code for f in res.findings]


@pytest.mark.parametrize(
    ("device", "dtype"), [("a2", "uint8"), ("950pr", "uint16"), ("cpu", "hifloat8")]
)
def test_a_dtype_without_atomic_add_is_refused_naming_the_rule(device, dtype):
    dev = pto.Device(device)
    with pytest.raises(pto.PtoSimError) as err:
        dev.run(accumulate(dtype), dev.gm_zeros((R, C), dtype), dev.gm_zeros((R, C), dtype))
    text = str(err.value)
    assert "TSTORE" in text and "atomic" in text and dtype in text


def test_atomic_store_sets_the_atomic_mode_on_the_scalar_pipe_and_reads_gm():
    dev = pto.Device("a2")
    out, a = dev.gm_zeros((R, C), "float32"), dev.gm_zeros((R, C), "float32")
    plain = dev.run(accumulate("float32", atomic="none"), out, a)
    atomic = dev.run(accumulate("float32"), out, a)
    stores = [e for e in atomic.trace.events if e.opcode == "TSTORE"]
    kinds = [e.name for e in stores if e.pipe == "PIPE_S"]
    assert kinds == ["set_atomic_f32", "set_atomic_add", "set_atomic_none"]
    dmas = [e for e in stores if e.pipe == "PIPE_MTE3"]
    assert dmas and all(e.args.get("atomic") == "add" for e in dmas)
    # the control intrinsics are extra work; the DMA itself costs what a plain one does
    assert atomic.cycles >= plain.cycles


def test_unknown_atomic_mode_is_a_clear_error():
    dev = pto.Device("cpu")
    with pytest.raises(pto.KernelError, match="TSTORE atomic: 'max' is not a AtomicType"):
        dev.run(accumulate("float32", atomic="max"), dev.gm_zeros((R, C), "float32"),
                dev.gm_zeros((R, C), "float32"))  # fmt: skip


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize(("entry", "dtype"), [("add_f32", "float32"), ("add_i32", "int32"),
                                              ("add_f16", "half")])  # fmt: skip
def test_cxx_atomic_store_matches_python(cxx_program, assert_twins, entry, dtype, device):
    prog = cxx_program(CXX, ["add_f32", "add_i32", "add_f16"])
    np_t = np_type(dtype)

    def make(dev):
        cur = np.random.default_rng(5).uniform(-100, 100, (R, C)).astype(np_t)
        a = np.random.default_rng(9).uniform(-50, 50, (3, R, C)).astype(np_t)
        return [dev.gm_array(cur), dev.gm_array(a)]

    def run(kernel, dev_name):
        dev = pto.Device(dev_name)
        args = make(dev)
        return dev.run(kernel, *args, block_dim=3), args

    cx, (cx_out, _) = run(prog.entry(entry), device)
    py, (py_out, _) = run(accumulate(dtype), device)
    assert cx_out.numpy().tobytes() == py_out.numpy().tobytes()
    assert cx.cycles == py.cycles and not cx.findings and not py.findings
    stores = [i for b in cx.blocks for i in b.program if i.opcode == "TSTORE"]
    assert len(stores) == 3 and all(i.source.startswith("atomic.cpp:") for i in stores)
