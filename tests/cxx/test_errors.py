"""Errors and findings of C++ kernels name the C++ line (tests/cxx/errors.cpp, `// @tag` marks
the expected line)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ptosim as pto
from ptosim.cxx.raw import RAW_ACCESS_SERVED
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "errors.cpp"
SERVED = pytest.mark.skipif(not RAW_ACCESS_SERVED, reason="raw accesses: x86_64 Linux only")
NOT_SERVED = pytest.mark.skipif(RAW_ACCESS_SERVED, reason="raw accesses are served here")
ENTRIES = [
    "bad_dtype", "matmul", "raw_tile", "raw_gm", "raw_unplaced", "raw_straddle", "outside",
    "no_wait", "get_value", "missing_wait", "fine", "value_used",
]  # fmt: skip


def line(tag: str) -> str:
    for n, text in enumerate(SRC.read_text().splitlines(), 1):
        if re.search(rf"// @{tag}\b", text):
            return f"errors.cpp:{n}"
    raise AssertionError(tag)


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def run(prog, entry, device="a2"):
    dev = pto.Device(device)
    a = dev.gm_array(np.ones((16, 16), np.float32))
    out = dev.gm_zeros((16, 16), "float32")
    return dev.run(prog.entry(entry), out, a), out


def test_constraint_error_names_the_cpp_line(prog):
    with pytest.raises(pto.ConstraintError) as exc:
        run(prog, "bad_dtype")
    assert exc.value.source == line("bad_dtype")
    assert "same-dtype" in str(exc.value)


def test_unimplemented_instruction_stops_with_one_line(prog):
    with pytest.raises(pto.errors.CxxError) as exc:
        run(prog, "matmul")
    assert str(exc.value) == f"[PTO103] {line('matmul')}: TIMG2COL is not implemented by ptosim"


@SERVED
def test_raw_accesses_are_scalar_instructions_at_their_lines(prog):
    """tile.data()[i] and a[i] are GetValue / SetValue at the C++ line (tests/cxx/test_raw.py
    checks their values)."""
    res, out = run(prog, "raw_tile")
    ops = [(i.opcode, i.source) for i in res.blocks[0].program]
    assert ops[-2:] == [("GetValue", line("raw_tile")), ("SetValue", line("raw_tile_store"))]
    res, _ = run(prog, "raw_gm")
    assert [(i.opcode, i.source) for i in res.blocks[0].program] == [("GetValue", line("raw_gm"))]


@pytest.mark.parametrize(
    "entry, what",
    [
        pytest.param("raw_unplaced", "storage of a tile without TASSIGN", marks=SERVED),
        pytest.param("raw_straddle", "straddles two pages", marks=SERVED),
        pytest.param("raw_tile", "on x86_64 Linux only", marks=NOT_SERVED),
    ],
)
def test_raw_access_ptosim_cannot_serve_is_reported_at_its_line(prog, entry, what):
    with pytest.raises(pto.errors.CxxError) as exc:
        run(prog, entry)
    assert str(exc.value).startswith(f"[PTO103] {line(entry)}: ")
    assert what in str(exc.value) and "GetValue" in str(exc.value)
    # the process and the library are fine afterwards
    res, out = run(prog, "fine")
    assert np.array_equal(out.numpy(), np.ones((16, 16), np.float32))


def test_gm_pointer_outside_the_buffers(prog):
    with pytest.raises(pto.errors.CxxError) as exc:
        run(prog, "outside")
    assert line("outside") in str(exc.value)
    assert "not inside any GM buffer passed to the kernel" in str(exc.value)


def test_scalar_read_is_served_by_the_session(prog):
    """Tile::GetValue in C++ is a GetValue instruction at the C++ line, answered by the session
    (the tile was never written: any value, but the run completes)."""
    res, _ = run(prog, "get_value")
    reads = [i for i in res.blocks[0].program if i.opcode == "GetValue"]
    assert [i.source for i in reads] == [line("get_value")]


def test_findings_name_cpp_lines(prog):
    res, _ = run(prog, "missing_wait")
    texts = [str(f) for f in res.findings]
    assert texts, "a set_flag without its wait_flag must be found"
    joined = "\n".join(texts)
    assert line("missing_wait_load") in joined and line("missing_wait_adds") in joined
    res, _ = run(prog, "no_wait")
    joined = "\n".join(str(f) for f in res.findings)
    assert line("no_wait_load") in joined and line("no_wait_adds") in joined


def test_trace_slices_name_cpp_lines(prog, tmp_path):
    import json

    res, _ = run(prog, "fine")
    res.write_trace(tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    slices = [e for e in events if e.get("ph") == "X" and e.get("cat") != "stall"]
    named = [
        e for e in slices if "instruction" in e.get("args", {}) and "#" in e["args"]["instruction"]
    ]
    assert named and all(e["args"].get("source", "").startswith("errors.cpp:") for e in named)


def test_scalar_reads_are_served_by_the_tiles_getvalue_when_present(prog, monkeypatch):
    """The hook for ptosim's simulation session: Tile.GetValue(i) answers the C++ read."""
    asked = []

    def get_value(self, i):
        asked.append(i)
        return 2.0 * i

    monkeypatch.setattr(pto.Tile, "GetValue", get_value, raising=False)
    _, out = run(prog, "value_used")
    assert asked == [3]
    assert np.array_equal(out.numpy(), np.full((16, 16), 7.0, np.float32))


def test_call_sites_without_pyelftools_use_addr2line(prog, monkeypatch):
    import shutil

    if shutil.which("addr2line") is None:
        pytest.skip("binutils addr2line not installed")

    def sources():
        fresh = pto.cxx.load(SRC)  # a new site map (the library is cached)
        for e in ENTRIES:
            fresh.entry(e)
        res, _ = run(fresh, "fine")
        return [i.source for i in res.blocks[0].program]

    with_elf = sources()
    monkeypatch.setenv("PTOSIM_CXX_NO_PYELFTOOLS", "1")
    assert sources() == with_elf
    assert len(with_elf) >= 4 and all(s.startswith("errors.cpp:") for s in with_elf)
