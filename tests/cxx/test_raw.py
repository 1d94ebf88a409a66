"""Raw element accesses in C++ kernels (tests/cxx/raw.cpp): `tile.data()[i]` and `*gm_ptr` are
served by ptosim's simulation session as GetValue / SetValue instructions (PIPE_S, timed, seen by
the hazard checker), at the C++ line of the access (x86_64 Linux: the shim maps the page for one
single-stepped access)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ptosim as pto
from ptosim.cxx.raw import RAW_ACCESS_SERVED
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "raw.cpp"
DIM, MAX_IDS, BLOCKS = 16, 8, 2
ENTRIES = [
    "raw_gather", "raw_gather_no_wait", "raw_write", "raw_gm_write", "raw_outside", "raw_memcpy",
    "raw_acc", "raw_fill",
]  # fmt: skip

pytestmark = pytest.mark.skipif(
    not RAW_ACCESS_SERVED, reason="raw accesses are served on x86_64 Linux only"
)


def line(tag: str) -> str:
    for n, text in enumerate(SRC.read_text().splitlines(), 1):
        if re.search(rf"// @{tag}\b", text):
            return f"raw.cpp:{n}"
    raise AssertionError(tag)


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def inputs(seed: int):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((64, DIM)).astype(np.float32)
    ids = rng.integers(0, 64, (BLOCKS, MAX_IDS)).astype(np.int32)
    count = rng.integers(1, MAX_IDS + 1, BLOCKS).astype(np.int32)
    return table, ids, count


def expected(table, ids, count):
    """Independent formulation: block b copies table[ids[b, r]] to out row b*MAX_IDS + r for
    r < count[b]; the other rows stay zero."""
    want = np.zeros((BLOCKS * MAX_IDS, DIM), np.float32)
    for b in range(BLOCKS):
        rows = ids[b, : count[b]]
        want[b * MAX_IDS : b * MAX_IDS + len(rows)] = table[rows]
    return want


def gather(prog, entry, device, table, ids, count):
    dev = pto.Device(device)
    bufs = [dev.gm_array(table), dev.gm_array(ids), dev.gm_array(count)]
    out = dev.gm_zeros((BLOCKS * MAX_IDS, DIM), "float32")
    res = dev.run(prog.entry(entry), *bufs, out, block_dim=BLOCKS)
    return res, out.numpy()


def two(prog, entry, device, values):
    dev = pto.Device(device)
    a = dev.gm_array(values)
    out = dev.gm_zeros((DIM,), "float32")
    return dev.run(prog.entry(entry), a, out), out.numpy()


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("seed", [0, 1])
def test_raw_reads_steer_the_kernel(prog, device, seed):
    """A loop bound read through a raw __gm__ pointer and row ids read with tile.data()[r]."""
    table, ids, count = inputs(seed)
    res, out = gather(prog, "raw_gather", device, table, ids, count)
    assert np.array_equal(out, expected(table, ids, count))
    assert res.findings == []
    for b in range(BLOCKS):
        reads = [i.source for i in res.blocks[b].program if i.opcode == "GetValue"]
        assert reads == [line("read_count")] + [line("read_id")] * int(count[b])


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
def test_raw_tile_writes_land_in_gm_through_tstore(prog, device):
    values = np.linspace(-3, 5, DIM, dtype=np.float32)
    res, out = two(prog, "raw_write", device, values)
    assert np.array_equal(out, values + np.arange(DIM, dtype=np.float32))
    assert res.findings == []
    prog_ = res.blocks[0].program
    writes = [i for i in prog_ if i.opcode == "SetValue"]
    assert [i.index for i in writes] == list(range(DIM))  # one element each, in order
    assert all(i.source == line("raw_write") for i in writes)


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_raw_fill_is_one_setvalue(prog, device):
    """A std::fill over 2048 floats (two 4 KiB pages) is one SetValue of 2048 consecutive
    elements (the shim logs the single-stepped writes and sends them in one batch), the later
    single write its own SetValue. On a2 each element is still one PIPE_S store."""
    dev = pto.Device(device)
    out = dev.gm_zeros((64 * 32,), "float32")
    res = dev.run(prog.entry("raw_fill"), out, -2.5)
    want = np.full(64 * 32, -2.5, np.float32)
    want[5] = 7.0
    assert np.array_equal(out.numpy(), want)
    assert res.findings == []
    writes = [i for i in res.blocks[0].program if i.opcode == "SetValue"]
    assert [(i.index, i.count, i.source) for i in writes] == [
        (0, 2048, line("raw_fill")),
        (5, 1, line("raw_fill_one")),
    ]
    if device == "a2":  # one PIPE_S store step per element, each of its 4 bytes
        from types import SimpleNamespace

        from ptosim.targets.a2a3.scalar_access import plan_set_value

        steps = plan_set_value(writes[0], SimpleNamespace(config=dev.config))
        store = dev.config.timing.scalar.ub_store_cycles
        assert [(s.cycles, s.writes[0].end - s.writes[0].start) for s in steps] == [
            (store, 4)
        ] * 2048
        assert steps[3].writes[0].start == writes[0].byte_range()[1] + 12


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_raw_gm_store_then_raw_read_back(prog, device):
    values = np.arange(DIM, dtype=np.float32) + 1
    res, out = two(prog, "raw_gm_write", device, values)
    want = np.zeros(DIM, np.float32)
    want[3] = values[2] * 2
    want[4] = want[3] + 1
    assert np.array_equal(out, want)
    ops = [(i.opcode, i.source) for i in res.blocks[0].program]
    assert ops[:2] == [("GetValue", line("raw_gm_write")), ("SetValue", line("raw_gm_write"))]


def test_a_raw_read_by_a_libc_routine_is_named_by_the_kernels_line(prog):
    values = np.arange(DIM, dtype=np.float32) * 3
    res, out = two(prog, "raw_memcpy", "a2", values)
    assert out[0] == values[4] + values[5]
    reads = [i.source for i in res.blocks[0].program if i.opcode == "GetValue"]
    assert reads and reads[0] == line("raw_memcpy_read")


def test_a_raw_read_without_its_wait_is_a_race_at_the_cpp_line(prog):
    table, ids, count = inputs(0)
    res, _ = gather(prog, "raw_gather_no_wait", "cpu", table, ids, count)
    races = [f for f in res.findings if f.code == "F203"]
    assert any(line("read_id") in str(f) for f in races)


def test_a_stale_raw_read_on_a_timed_device_is_blamed_on_the_race(prog):
    table, ids, count = inputs(0)
    try:
        res, _ = gather(prog, "raw_gather_no_wait", "a2", table, ids, count)
    except pto.errors.RaceFailureError as exc:
        assert "F203" in str(exc) and line("read_id") in str(exc)
    else:
        assert any(f.code == "F203" and line("read_id") in str(f) for f in res.findings)


def test_a_raw_gm_pointer_outside_the_buffers_is_a_clear_error(prog):
    with pytest.raises(pto.errors.CxxError) as exc:
        two(prog, "raw_outside", "a2", np.ones(DIM, np.float32))
    assert line("raw_outside") in str(exc.value)
    assert "not inside any GM buffer passed to the kernel" in str(exc.value)
    # the process and the library are fine afterwards
    values = np.arange(DIM, dtype=np.float32)
    _, out = two(prog, "raw_write", "a2", values)
    assert np.array_equal(out, 2 * values)


def test_a_raw_accumulator_access_is_host_memory_on_cpu_only(prog):
    """cpu: acc.data()[5] = 0x5a5a5a, then out[0] = acc.data()[5] + 1 (L0C is host memory in the
    CPU simulator); a2: the vector core's scalar unit has no path to L0C - a coded error at the
    line (there the Acc tile's TASSIGN is only an address of the cube core's buffer, so the
    message says that no tile of this core covers the address)."""
    _, out = two(prog, "raw_acc", "cpu", np.zeros(DIM, np.float32))
    assert out[0] == np.float32(0x5A5A5A + 1)
    with pytest.raises(pto.PtoSimError) as err:
        two(prog, "raw_acc", "a2", np.zeros(DIM, np.float32))
    assert err.value.code == "PTO103", err.value
    assert line("raw_acc") in str(err.value)


def test_raw_access_runs_are_deterministic(prog, tmp_path):
    table, ids, count = inputs(3)
    traces = []
    for n in range(2):
        res, _ = gather(prog, "raw_gather", "a2", table, ids, count)
        res.write_trace(tmp_path / f"t{n}.json")
        traces.append((tmp_path / f"t{n}.json").read_bytes())
    assert traces[0] == traces[1]


def test_host_code_touching_device_memory_in_place_reads_and_writes_gm(tmp_path, monkeypatch):
    """`ptosim test`: host code (outside a <<<...>>> launch) reading and writing device memory
    in place (the library's cpu tests fill aclrtMalloc buffers that way) is served from GM:
    element 0 of input 1, read back and written plus one, changes exactly output element 0."""
    import shutil

    from ptosim.cxx.testdir import run_test_dir

    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PTOSIM_CXX", "g++")
    folder = tmp_path / "vadd_peek"
    shutil.copytree(SRC.parent / "vadd_test", folder)
    main_cpp = folder / "main.cpp"
    text = main_cpp.read_text()
    anchor = "    aclrtMemcpy(dB, n, hB, n, ACL_MEMCPY_HOST_TO_DEVICE);\n"
    assert anchor in text
    main_cpp.write_text(text.replace(anchor, anchor + "    dA[0] = dA[0] + 1.0f;\n"))
    reports = run_test_dir(folder, ["cpu"], work=tmp_path / "w", case_filter="case_16x16")
    assert [r.verdict for r in reports] == ["FAIL"]  # the test's own comparison
    gold = np.fromfile(tmp_path / "w/data/VaddTest.case_16x16/golden.bin", np.float32)
    out = np.fromfile(tmp_path / "w/data/VaddTest.case_16x16/output.bin", np.float32)
    assert out[0] == gold[0] + np.float32(1) and np.array_equal(out[1:], gold[1:])
