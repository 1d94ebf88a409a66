"""Event<SrcOp, DstOp> and TSYNC from C++ follow the library's rules (semantics.md, "Event ids"
and "Higher-level forms"): ids round-robin per (src pipe, dst pipe) modulo 8, an event between
two ops of one pipe is a pipe_barrier at its Wait(), TSYNC<Op>() is a pipe_barrier on Op's pipe,
and every flag names the C++ line that posted or waited it."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "events.cpp"
ENTRIES = ["ev_pairs", "ev_round_robin", "ev_same_pipe"]
LINES = SRC.read_text().splitlines()


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def _run(prog, entry, device="a2"):
    dev = pto.Device(device)
    a = dev.gm_array(np.arange(64, dtype=np.float32).reshape(8, 8))
    out = dev.gm_zeros((8, 8), "float32")
    return dev.run(prog.entry(entry), out, a), out.numpy(), a.numpy()


def _flags(res):
    return [
        (i.opcode, i.src.name, i.dst.name, i.event_id)
        for i in res.blocks[0].program
        if i.opcode in ("SET_FLAG", "WAIT_FLAG")
    ]


def _line(source: str) -> str:
    return LINES[int(source.rsplit(":", 1)[1]) - 1].strip()


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_ids_are_allocated_per_pipe_pair(prog, device):
    res, out, a = _run(prog, "ev_pairs", device)
    sets = [(s, d, e) for op, s, d, e in _flags(res) if op == "SET_FLAG"]
    assert sets == [
        ("PIPE_MTE2", "PIPE_V", 0),
        ("PIPE_MTE2", "PIPE_V", 1),
        ("PIPE_V", "PIPE_MTE3", 0),
    ]
    assert np.array_equal(out, a + 1)
    assert not res.findings, res.findings


def test_ids_wrap_modulo_eight(prog):
    res, out, a = _run(prog, "ev_round_robin")
    ids = [e for op, s, d, e in _flags(res) if op == "SET_FLAG" and s == "PIPE_V"]
    assert ids == [0, 1, 2, 3, 4, 5, 6, 7, 0]
    assert np.array_equal(out, a + 9)
    assert not res.findings, res.findings


def test_same_pipe_event_and_tsync_are_barriers_at_their_lines(prog):
    res, out, a = _run(prog, "ev_same_pipe")
    program = res.blocks[0].program
    barriers = [i for i in program if i.opcode == "PIPE_BARRIER"]
    assert [_line(i.source) for i in barriers] == [
        "TMULS(u, t, 2.0f, same);",  # the Wait() of a V->V event, before TMULS
        "TSYNC<Op::TMULS>();",
    ]
    assert all(i.pipe.name == "PIPE_V" for i in barriers)
    # no flag for the V->V event; the explicit Record()/Wait() at their own lines
    v_flags = [
        i for i in program if i.opcode in ("SET_FLAG", "WAIT_FLAG") and i.src.name == "PIPE_V"
    ]
    assert [_line(i.source) for i in v_flags] == ["done.Record();", "done.Wait();"]
    assert np.array_equal(out, (a + 1) * 2)
    assert not res.findings, res.findings
