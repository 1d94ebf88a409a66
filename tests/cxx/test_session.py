"""Data-dependent scalar code in C++ kernels (tests/cxx/session.cpp): a loop bound read from GM
and row ids read from a tile with GetValue steer the DMAs; ptosim's session answers each read
with the simulated value, on every device, several blocks taking turns."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "session.cpp"
DIM, MAX_IDS, BLOCKS = 16, 8, 2


def line(tag: str) -> str:
    for n, text in enumerate(SRC.read_text().splitlines(), 1):
        if re.search(rf"// @{tag}\b", text):
            return f"session.cpp:{n}"
    raise AssertionError(tag)


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ["gather_rows_by_id", "gather_rows_no_wait"])


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


def run(prog, entry, device, table, ids, count):
    dev = pto.Device(device)
    bufs = [dev.gm_array(table), dev.gm_array(ids), dev.gm_array(count)]
    out = dev.gm_zeros((BLOCKS * MAX_IDS, DIM), "float32")
    res = dev.run(prog.entry(entry), *bufs, out, block_dim=BLOCKS)
    return res, out.numpy()


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_values_read_in_cpp_steer_the_kernel(prog, device, seed):
    table, ids, count = inputs(seed)
    res, out = run(prog, "gather_rows_by_id", device, table, ids, count)
    assert np.array_equal(out, expected(table, ids, count))
    assert res.findings == []
    reads = [i for i in res.blocks[1].program if i.opcode == "GetValue"]
    assert len(reads) == 1 + count[1]  # the bound, then one id per row
    assert all(i.source.startswith("session.cpp:") for i in reads)


def test_session_runs_are_deterministic(prog, tmp_path):
    table, ids, count = inputs(3)
    traces = []
    for n in range(2):
        res, _ = run(prog, "gather_rows_by_id", "a2", table, ids, count)
        res.write_trace(tmp_path / f"t{n}.json")
        traces.append((tmp_path / f"t{n}.json").read_bytes())
    assert traces[0] == traces[1]


def test_a_read_without_its_wait_is_a_race_at_the_cpp_line(prog):
    table, ids, count = inputs(0)
    res, _ = run(prog, "gather_rows_no_wait", "cpu", table, ids, count)
    races = [f for f in res.findings if f.code == "F203"]
    assert races and all(line("read_id") in str(f) or "session.cpp" in str(f) for f in races)
    assert any(line("read_id") in str(f) for f in races)


def test_a_stale_read_on_a_timed_device_is_blamed_on_the_race(prog):
    """On a2 the read happens before the TLOAD landed: the run reports the race, naming the
    C++ lines of both, not a bare wrong value."""
    table, ids, count = inputs(0)
    try:
        res, out = run(prog, "gather_rows_no_wait", "a2", table, ids, count)
    except pto.errors.RaceFailureError as exc:
        assert "F203" in str(exc) and line("read_id") in str(exc)
    else:
        assert any(f.code == "F203" and line("read_id") in str(f) for f in res.findings)
