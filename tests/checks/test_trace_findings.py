"""Findings in the Chrome trace: an instant event on the pipe thread of each side, flow arrows
linking the sides, args with code/kind/message/fix; a deadlock still writes its trace."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import ROOT

PIPE_TIDS = ("PIPE_S", "PIPE_V", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_M", "PIPE_FIX")


def _validate(doc: dict) -> dict:
    """Structure of a Chrome Trace Event document; returns the findings by flow id."""
    assert set(doc) >= {"traceEvents", "otherData"}
    events = doc["traceEvents"]
    slices: dict = {}
    flows: dict = {}
    instants = []
    for ev in events:
        assert ev["ph"] in ("M", "X", "s", "t", "f", "i"), ev
        assert isinstance(ev["pid"], int) and isinstance(ev["tid"], int)
        if ev["ph"] == "X":
            slices.setdefault((ev["pid"], ev["tid"]), []).append((ev["ts"], ev["dur"]))
        elif ev["ph"] in ("s", "t", "f"):
            assert isinstance(ev["ts"], int) and "id" in ev and "cat" in ev
            flows.setdefault((ev["cat"], ev["id"]), []).append(ev)
        elif ev["ph"] == "i":
            assert ev["s"] == "t" and isinstance(ev["ts"], int) and ev["ts"] >= 0
            instants.append(ev)
    for chain in flows.values():  # one start, one end, forward in time
        phases = [e["ph"] for e in chain]
        assert phases[0] == "s" and phases[-1] == "f" and phases.count("s") == 1, phases
        assert all(a["ts"] <= b["ts"] for a, b in zip(chain, chain[1:]))
    found: dict = {}
    for ev in instants:
        assert ev["cat"] == "finding"
        args = ev["args"]
        assert {"code", "kind", "message", "fix", "instruction", "finding", "flow"} <= set(args)
        found.setdefault(args["finding"], []).append(ev)
    for sides in found.values():
        fids = {e["args"]["flow"] for e in sides}
        assert len(fids) == 1
        if len(sides) == 1:  # a one-sided finding has no arrow
            assert fids == {None}
            continue
        chain = flows[("finding", fids.pop())]
        # every side of a finding is one end of its flow, on the same thread and time
        assert sorted((e["pid"], e["tid"], e["ts"]) for e in sides) == sorted(
            (e["pid"], e["tid"], e["ts"]) for e in chain
        )
        for e in chain:  # flows bind to the slice around them: there must be one
            spans = slices.get((e["pid"], e["tid"]), [])
            assert any(t <= e["ts"] <= t + d for t, d in spans) or e["ph"] == "f", e
    return found


def _racy_copy():
    t = pto.Tile("Vec", "float32", 16, 16, name="t")

    @pto.kernel
    def copy(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)  # no MTE2 -> MTE3 flag

    return copy


@pytest.mark.parametrize("devname", ["a2", "950pr"])
def test_race_finding_is_two_linked_instants_on_the_two_pipes(devname, tmp_path):
    dev = pto.Device(devname)
    src, out = dev.gm_zeros((16, 16), "float32"), dev.gm_zeros((16, 16), "float32")
    run = dev.run(_racy_copy(), src, out)
    (race,) = [f for f in run.findings if f.code == "F203"]
    run.write_trace(tmp_path / "race.json")
    doc = json.loads((tmp_path / "race.json").read_text())
    found = _validate(doc)
    assert len(found) == len(run.findings)
    (sides,) = [s for s in found.values() if s[0]["args"]["code"] == "F203"]
    tids = {e["args"]["instruction"]: e["tid"] for e in sides}
    assert tids == {
        "TLOAD #0": PIPE_TIDS.index("PIPE_MTE2"),
        "TSTORE #1": PIPE_TIDS.index("PIPE_MTE3"),
    }
    assert all(e["args"]["message"] == race.message for e in sides)
    assert all(e["args"]["kind"] == "race-raw" for e in sides)
    # each instant sits at the start of its instruction's slice on that pipe
    for e in sides:
        starts = [
            x["ts"]
            for x in doc["traceEvents"]
            if x["ph"] == "X"
            and x["tid"] == e["tid"]
            and x["args"].get("instruction") == e["args"]["instruction"]
        ]
        assert e["ts"] == min(starts)


def test_finding_free_trace_has_no_finding_events(tmp_path):
    dev = pto.Device("a2")
    t = pto.Tile("Vec", "float32", 16, 16)

    @pto.kernel
    def ok(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)

    run = dev.run(ok, dev.gm_zeros((16, 16), "float32"), dev.gm_zeros((16, 16), "float32"))
    run.write_trace(tmp_path / "ok.json")
    doc = json.loads((tmp_path / "ok.json").read_text())
    assert _validate(doc) == {} and run.findings == []
    # ... and a racy run does have them (the instants are not always there)
    racy = dev.run(
        _racy_copy(), dev.gm_zeros((16, 16), "float32"), dev.gm_zeros((16, 16), "float32")
    )
    racy.write_trace(tmp_path / "racy.json")
    assert _validate(json.loads((tmp_path / "racy.json").read_text()))


DEADLOCK_FILE = """
import numpy as np
import ptosim as pto

t = pto.Tile("Vec", "float32", 16, 16, name="t")


@pto.kernel
def mistyped(src, out):
    pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID1)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)


def inputs(dev):
    return dev.gm_array(np.ones((16, 16), np.float32)), dev.gm_zeros((16, 16), "float32")
"""


@pytest.mark.slow
def test_deadlock_trace_has_the_steps_and_the_unconsumed_post(tmp_path):
    kernel_file = tmp_path / "mistyped.py"
    kernel_file.write_text(textwrap.dedent(DEADLOCK_FILE))
    trace = tmp_path / "dead.json"
    proc = subprocess.run(
        [sys.executable, "-m", "ptosim", "run", str(kernel_file), "--trace", str(trace)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "PTO400" in proc.stderr, proc.stderr
    assert "EVENT_ID1" in proc.stderr  # the deadlock names the unconsumed post
    doc = json.loads(trace.read_text())
    found = _validate(doc)
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert any(e["args"]["instruction"] == "TLOAD #0" for e in slices)
    assert not any(e["args"]["instruction"] == "TSTORE #3" for e in slices)  # never ran
    stuck = [e for e in slices if e["cat"] == "stall" and "deadlock" in e["name"]]
    assert [(e["args"]["instruction"], e["tid"]) for e in stuck] == [
        ("WAIT_FLAG #2", PIPE_TIDS.index("PIPE_MTE3"))
    ]
    assert stuck[0]["ts"] + stuck[0]["dur"] == doc["otherData"]["cycles"]
    (post,) = [s for s in found.values() if s[0]["args"]["code"] == "F201"]
    assert [e["args"]["instruction"] for e in post] == ["SET_FLAG #1"]
    assert post[0]["tid"] == PIPE_TIDS.index("PIPE_MTE2")
    assert doc["otherData"]["deadlock"].startswith("deadlock at cycle")


def test_same_racy_kernel_gives_a_byte_identical_trace(tmp_path):
    paths = []
    for n in range(2):
        dev = pto.Device("a2")
        src = dev.gm_array(np.ones((16, 16), np.float32))
        run = dev.run(_racy_copy(), src, dev.gm_zeros((16, 16), "float32"))
        paths.append(tmp_path / f"{n}.json")
        run.write_trace(paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert b'"finding"' in paths[0].read_bytes()


def test_per_core_races_and_the_cross_core_race_sit_on_their_cores(tmp_path):
    """block_dim=2: the analysis reports the same UB race once per core (same text) and the
    shared-GM store across the cores; each goes to its own core(s) in the trace."""
    dev = pto.Device("a2")
    run = dev.run(
        _racy_copy(),
        dev.gm_zeros((16, 16), "float32"),
        dev.gm_zeros((16, 16), "float32"),
        block_dim=2,
    )
    assert sorted(f.code for f in run.all_findings()) == ["F203", "F203", "F205"]
    run.write_trace(tmp_path / "two.json")
    found = _validate(json.loads((tmp_path / "two.json").read_text()))
    cores = {
        code: sorted(tuple(sorted({e["pid"] for e in sides})) for sides in found.values()
                     if sides[0]["args"]["code"] == code)
        for code in ("F203", "F205")
    }  # fmt: skip
    assert cores == {"F203": [(0,), (1,)], "F205": [(0, 1)]}
