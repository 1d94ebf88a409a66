"""Data model: dtypes, enums, tile geometry and GM tensor mapping against independent numpy
formulations (reshape/transpose of the storage instead of offset arithmetic)."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptosim as pto
from ptosim import dtypes as D
from ptosim.layout import GmGeom, TileGeom


def test_dtype_registry_covers_the_issue_list():
    wanted = {
        "int8": 1,
        "uint8": 1,
        "int16": 2,
        "uint16": 2,
        "int32": 4,
        "uint32": 4,
        "int64": 8,
        "uint64": 8,
        "half": 2,
        "bfloat16": 2,
        "float32": 4,
        "float8_e4m3": 1,
        "float8_e5m2": 1,
        "hifloat8": 1,
    }
    for name, size in wanted.items():
        assert D.dtype(name).size_bytes == size
    assert D.dtype("bf16") is D.bfloat16 and D.dtype(ml_dtypes.bfloat16) is D.bfloat16
    assert D.dtype(np.float16) is D.half and D.dtype("float") is D.float32
    assert D.dtype("float8_e4m3_t").np == np.dtype(ml_dtypes.float8_e4m3fn)
    assert D.hifloat8.kind == "opaque" and D.hifloat8 is not D.uint8


def test_unknown_dtype_is_a_kernel_error():
    with pytest.raises(pto.KernelError, match="unknown dtype 'float33'"):
        D.dtype("float33")


def test_enums_accept_members_and_case_insensitive_names():
    assert pto.Coalesce.parse("row") is pto.Coalesce.Row
    assert pto.GatherOOB.parse("ZERO") is pto.GatherOOB.Zero
    assert pto.ScatterAtomicOp.parse("none") is pto.ScatterAtomicOp.None_
    assert pto.ScatterAtomicOp.parse("ScatterAtomicOp::Add") is pto.ScatterAtomicOp.Add
    assert pto.Pipe.parse("mte2") is pto.PIPE_MTE2
    assert pto.MaskPattern.P1000.times == 4 and pto.MaskPattern.P1000.pos == 3
    with pytest.raises(pto.KernelError, match="expected one of Row, Elem"):
        pto.Coalesce.parse("rows")


def _geom(blayout, slayout, rows, cols, dt=D.half, fractal=512, loc=pto.TileType.Mat):
    return TileGeom(
        loc, dt, rows, cols, pto.BLayout.parse(blayout), pto.SLayout.parse(slayout), fractal
    )


def _logical_from_storage(g: TileGeom, storage: np.ndarray) -> np.ndarray:
    """The logical (rows, cols) matrix of a storage vector, by reshapes only."""
    R, C = g.rows, g.cols
    ir, ic = g.inner
    name = g.layout_name
    if name == "ND":
        return storage.reshape(R, C)
    if name == "DN":
        return storage.reshape(C, R).T
    if name == "NZ":  # column of boxes first; rows of C0 inside
        return storage.reshape(C // ic, R // ir, ir, ic).transpose(1, 2, 0, 3).reshape(R, C)
    if name == "ZZ":
        return storage.reshape(R // ir, C // ic, ir, ic).transpose(0, 2, 1, 3).reshape(R, C)
    if name == "ZN":
        return storage.reshape(R // ir, C // ic, ic, ir).transpose(0, 3, 1, 2).reshape(R, C)
    if name == "NN":
        return storage.reshape(C // ic, R // ir, ic, ir).transpose(1, 3, 0, 2).reshape(R, C)
    raise AssertionError(name)


@pytest.mark.parametrize(
    "blayout,slayout,dt,fractal",
    [
        ("RowMajor", "NoneBox", D.float32, 512),
        ("ColMajor", "NoneBox", D.float32, 512),
        ("ColMajor", "RowMajor", D.half, 512),
        ("ColMajor", "RowMajor", D.float32, 512),
        ("ColMajor", "RowMajor", D.int8, 512),
        ("RowMajor", "RowMajor", D.half, 512),
        ("RowMajor", "ColMajor", D.float32, 512),
        ("ColMajor", "ColMajor", D.half, 512),
        ("ColMajor", "RowMajor", D.half, 1024),
    ],
)
def test_tile_offsets_match_reshape_formulation(blayout, slayout, dt, fractal):
    g = _geom(blayout, slayout, 64, 64, dt, fractal)
    assert g.layout_problems() == []
    storage = np.arange(g.numel)
    r, c = g.grid(g.rows, g.cols)
    via_offsets = storage[g.offsets(r, c)]
    assert np.array_equal(via_offsets, _logical_from_storage(g, storage))
    # a bijection: every storage element is addressed exactly once
    assert np.array_equal(np.sort(g.offsets(r, c).ravel()), storage)


def test_nz_fractal_is_16_by_c0():
    assert _geom("ColMajor", "RowMajor", 32, 32, D.float32).inner == (16, 8)
    assert _geom("ColMajor", "RowMajor", 32, 32, D.half).inner == (16, 16)
    assert _geom("ColMajor", "RowMajor", 32, 64, D.int8).inner == (16, 32)


def test_tile_static_rules():
    with pytest.raises(pto.ConstraintError) as e:
        pto.Tile("Vec", "float32", 4, 6)
    assert e.value.rule == "row-32B-aligned" and "Cols*sizeof(T) % 32 == 0" in str(e.value)
    with pytest.raises(pto.ConstraintError) as e:
        pto.Tile("Vec", "float32", 6, 8, blayout="ColMajor")
    assert e.value.rule == "col-32B-aligned"
    with pytest.raises(pto.ConstraintError) as e:
        pto.Tile("Mat", "half", 24, 32, blayout="ColMajor", slayout="RowMajor")
    assert e.value.rule == "fractal-rows"
    with pytest.raises(pto.ConstraintError) as e:
        pto.Tile("Vec", "float32", 4, 8, valid=(5, 8))
    assert e.value.rule == "valid-within-shape" and e.value.code == "PTO101"
    t = pto.Tile("Vec", "float32", 4, 8)
    assert t.valid == (4, 8) and t.static_valid
    t.set_valid(2, 3)
    assert t.valid == (2, 3) and not t.static_valid


def test_gm_geometry_nd_dn_nz_against_numpy():
    # ND: a packed [2,1,3,4,8] tensor is a (24, 8) row-major matrix
    g = GmGeom((2, 1, 3, 4, 8), (96, 96, 32, 8, 1), pto.Layout.ND)
    r, c = np.meshgrid(np.arange(24), np.arange(8), indexing="ij")
    assert np.array_equal(g.offsets(r, c), np.arange(192).reshape(24, 8))
    # DN: shape [1,1,1,R,C] with stride3 = 1, stride4 = R is column-major
    g = GmGeom((1, 1, 1, 6, 5), (30, 30, 30, 1, 6), pto.Layout.DN)
    r, c = np.meshgrid(np.arange(6), np.arange(5), indexing="ij")
    assert np.array_equal(g.offsets(r, c), np.arange(30).reshape(5, 6).T)
    # NZ: [1, C/C0, R/16, 16, C0] packed; logical (r, c) lives in block c // C0
    c0, R, C = 8, 32, 24
    g = GmGeom((1, C // c0, R // 16, 16, c0), (R * C, R * c0, 16 * c0, c0, 1), pto.Layout.NZ)
    r, c = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    storage = np.arange(R * C)
    expect = storage.reshape(C // c0, R // 16, 16, c0).transpose(1, 2, 0, 3).reshape(R, C)
    assert np.array_equal(g.offsets(r, c), expect)
    assert g.logical_shape == (R, C)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=5, max_size=5), st.data())
def test_flat_offsets_follow_numpy_unravel(shape, data):
    strides = data.draw(st.lists(st.integers(0, 50), min_size=5, max_size=5))
    g = GmGeom(tuple(shape), tuple(strides), pto.Layout.ND)
    k = np.arange(int(np.prod(shape)))
    expect = np.ravel_multi_index(np.unravel_index(k, shape), shape)  # identity, sanity
    assert np.array_equal(expect, k)
    idx = np.stack(np.unravel_index(k, shape), axis=1)
    assert np.array_equal(g.flat_offsets(k), idx @ np.array(strides))


def test_global_tensor_must_start_inside_its_buffer():
    dev = pto.Device("cpu")
    buf = dev.gm_zeros((4, 8), "float32")
    pto.GlobalTensor(buf, (1, 1, 1, 4, 8))
    # a view may run past the end (reads there proceed, writes stop: D21) ...
    pto.GlobalTensor(buf, (1, 1, 1, 5, 8))
    pto.GlobalTensor(buf, (1, 1, 1, 4, 8), offset=1)
    # ... but not start past it
    with pytest.raises(pto.OutOfBoundsError, match="holds 32 float32 elements: the view starts"):
        pto.GlobalTensor(buf, (1, 1, 1, 1, 8), offset=32)
    with pytest.raises(pto.KernelError, match="GM buffer"):
        pto.GlobalTensor(np.zeros(4), (4,))


def test_configs_load_and_reject_unknown_keys(tmp_path):
    for name, target, ub in [
        ("cpu", "cpu", 512),
        ("a2", "a2a3", 192),
        ("a3", "a2a3", 192),
        ("950pr", "a5", 248),  # usable: 256 KiB physical less the 8 KiB reserved region
        ("950dt", "a5", 248),
    ]:
        cfg = pto.load_config(name)
        assert cfg.target == target and cfg.memory.ub_size_bytes == ub * 1024
    assert pto.load_config("950pr").memory.ub_physical_bytes == 256 * 1024
    assert pto.load_config("950pr").simt_max_dyn_ubuf_bytes == 216 * 1024
    text = (pto.load_config.__globals__["CONFIG_DIR"] / "a2.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text + "\nmystery = 3\n")
    with pytest.raises(pto.ConfigError, match="mystery"):
        pto.load_config(bad)
    good = tmp_path / "mine.toml"
    good.write_text(text.replace('name = "a2"', 'name = "mine"'))
    assert pto.Device(str(good)).name == "mine"
    with pytest.raises(pto.ConfigError, match="unknown device"):
        pto.Device("a9")


def test_every_config_number_has_a_source_comment():
    from ptosim.config import CONFIG_DIR

    for path in CONFIG_DIR.glob("*.toml"):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            code = line.split("#")[0]
            value = code.split("=", 1)[1].strip() if "=" in code else ""
            if value[:1].isdigit():
                assert lines[i - 1].lstrip().startswith("# source:"), (path.name, line)


def test_config_overrides_replace_estimates_and_are_validated():
    dev = pto.Device("950pr", overrides={"timing.simt.gm_latency_cycles": 600,
                                         "timing.simt.policy": "gto"})  # fmt: skip
    assert dev.config.timing.simt.gm_latency_cycles == 600
    assert dev.config.timing.simt.policy == "gto"
    assert pto.Device("950pr").config.timing.simt.gm_latency_cycles != 600
    with pytest.raises(pto.ConfigError, match="no setting 'gm_latncy'"):
        pto.Device("950pr", overrides={"timing.simt.gm_latncy": 1})
    with pytest.raises(pto.ConfigError, match="policy"):
        pto.Device("950pr", overrides={"timing.simt.policy": "random"})


def test_a_slower_gm_makes_a_simt_gather_slower():
    """Overrides reach the model: a larger GM latency cannot make a latency-bound gather faster."""
    cycles = []
    for latency in (300, 900):
        dev = pto.Device("950pr", overrides={"timing.simt.gm_latency_cycles": latency})
        table = dev.gm_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64))
        dst, idx = pto.Tile("Vec", "float32", 32, 64), pto.Tile("Vec", "int32", 1, 32)

        @pto.kernel
        def gather(table, dst=dst, idx=idx):
            pto.TEXPANDS(idx, 3)
            pto.MGATHER(dst, pto.GlobalTensor(table, (64, 64)), idx)

        cycles.append(dev.run(gather, table).cycles)
    assert cycles[1] > cycles[0]


def test_runtime_valid_past_the_tile_is_refused_by_the_instruction_that_reads_it():
    """``Tile(vr, vc)`` of a dynamic tile checks nothing in the library; an instruction whose
    operand's valid region leaves the tile refuses it, a scratch (tmp) operand is exempt."""
    t = pto.Tile("Vec", "float32", 4, 8)
    t.set_valid(5, 8)  # accepted here, as the library's constructor does
    assert t.valid == (5, 8)
    dev = pto.Device("a2")

    @pto.kernel
    def k():
        pto.TADD(t, t, t)

    with pytest.raises(pto.ConstraintError) as e:
        dev.run(k)
    assert e.value.rule == "valid-within-shape" and e.value.instruction == "TADD"
    assert e.value.operand == "src0" and "(5, 8)" in str(e.value)  # reads come first


def test_runtime_valid_of_a_scratch_tile_is_not_read():
    """The library's TROWEXPANDADD test gives its 16x1 tmp the (16, 16) valid shape of the
    data: a2a3 uses only tmp's address; dst = src0 + src1 broadcast along each row."""
    dev = pto.Device("a2")
    x = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    col = np.arange(16, dtype=np.float32).reshape(16, 1) * 100
    gx, gc = dev.gm_array(x), dev.gm_array(col)
    src0 = pto.Tile("Vec", "float32", 16, 16)
    src1 = pto.Tile("Vec", "float32", 16, 1, blayout="ColMajor")
    dst = pto.Tile("Vec", "float32", 16, 16)
    tmp = pto.Tile("Vec", "float32", 16, 1, blayout="ColMajor")
    tmp.set_valid(16, 16)

    @pto.kernel
    def k(gx, gc):
        pto.TASSIGN(src0, 0x0)
        pto.TASSIGN(dst, 0x400)
        pto.TASSIGN(src1, 0x800)
        pto.TASSIGN(tmp, 0x900)
        pto.TLOAD(src0, pto.GlobalTensor(gx, (1, 1, 1, 16, 16)))
        pto.TLOAD(src1, pto.GlobalTensor(gc, (1, 1, 1, 16, 1), layout="DN"))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.TROWEXPANDADD(dst, src0, src1, tmp)

    run = dev.run(k, gx, gc)
    assert np.array_equal(run.tile(dst), x + col)
