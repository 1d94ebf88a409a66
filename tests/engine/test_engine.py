"""The timed engine on a2/a3: data at simulated time, flags, deadlocks, traces, calibration."""

import csv
import json

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.devices import A2A3_TIMED

TIMED = A2A3_TIMED


def _copy_kernel(sync: bool, wait_only: bool = False):
    t = pto.Tile("Vec", "float32", 16, 16, name="t")

    @pto.kernel
    def copy(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        if sync:
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        if sync or wait_only:
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)

    return copy


def _run_copy(devname, **kw):
    dev = pto.Device(devname)
    host = np.arange(256, dtype=np.float32).reshape(16, 16)
    src, out = dev.gm_array(host), dev.gm_zeros((16, 16), "float32")
    run = dev.run(_copy_kernel(**kw), src, out)
    return run, host, out.numpy()


@pytest.mark.parametrize("devname", TIMED)
def test_synchronised_kernel_is_exact_and_missing_wait_reads_stale_data(devname):
    run, host, got = _run_copy(devname, sync=True)
    assert np.array_equal(got, host) and run.cycles > 0 and run.findings == []
    _, _, stale1 = _run_copy(devname, sync=False)
    _, _, stale2 = _run_copy(devname, sync=False)
    # without the MTE2 -> MTE3 flag the store reads UB before the load lands: the poison
    assert np.isnan(stale1).all()
    assert stale1.tobytes() == stale2.tobytes()


def test_cpu_runs_in_program_order_without_timing():
    run, host, got = _run_copy("cpu", sync=False)
    assert run.cycles is None and np.array_equal(got, host)
    with pytest.raises(pto.KernelError, match="untimed"):
        run.write_trace("x.json")


def test_wait_without_set_is_a_deadlock_naming_pipe_instruction_and_flag():
    with pytest.raises(pto.DeadlockError) as e:
        _run_copy("a2", sync=False, wait_only=True)
    msg = str(e.value)
    assert e.value.code == "PTO400"
    assert "PIPE_MTE3 blocked in wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0)" in msg
    assert "WAIT_FLAG #1" in msg and "test_engine.py" in msg and "queued behind it" in msg


def test_deadlock_between_two_pipes_lists_both():
    a = pto.Tile("Vec", "float32", 8, 8)

    @pto.kernel
    def crossed(src):
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE2, 1)  # MTE2 waits for V ...
        pto.TLOAD(a, pto.GlobalTensor(src, (8, 8)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)  # ... and V waits for MTE2
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE2, 1)

    dev = pto.Device("a2")
    with pytest.raises(pto.DeadlockError) as e:
        dev.run(crossed, dev.gm_zeros((8, 8), "float32"))
    msg = str(e.value)
    assert "PIPE_MTE2 blocked in wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1)" in msg
    assert "PIPE_V blocked in wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)" in msg


def test_unconsumed_flags_are_findings():
    @pto.kernel
    def sloppy():
        pto.set_flag(pto.PIPE_S, pto.PIPE_V, 3)
        pto.set_flag(pto.PIPE_S, pto.PIPE_V, 3)
        pto.wait_flag(pto.PIPE_S, pto.PIPE_V, 3)

    run = pto.Device("a2").run(sloppy)
    codes = sorted(f.code for f in run.all_findings())
    # a second post before the wait is counted (one post is left), and is an F208 (the
    # reference's "Event ID still occupied")
    assert codes == ["F201", "F208"]
    unconsumed = next(f for f in run.all_findings() if f.code == "F201")
    assert "never waited" in unconsumed.message and "#1" in unconsumed.message
    with pytest.raises(pto.FindingsError):
        pto.Device("a2").run(sloppy, strict=True)


def test_pipe_barrier_all_orders_every_pipe():
    t = pto.Tile("Vec", "float32", 16, 16)

    @pto.kernel
    def k(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        pto.pipe_barrier(pto.PIPE_ALL)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)

    dev = pto.Device("a2")
    host = np.ones((16, 16), np.float32)
    src, out = dev.gm_array(host), dev.gm_zeros((16, 16), "float32")
    run = dev.run(k, src, out)
    assert np.array_equal(out.numpy(), host)
    load = next(s for s in run.instructions if s.instr.opcode == "TLOAD")
    store = next(s for s in run.instructions if s.instr.opcode == "TSTORE")
    assert store.start >= load.end


def test_two_tloads_serialise_on_mte2_and_blocks_run_concurrently():
    a, b = pto.Tile("Vec", "float32", 32, 32), pto.Tile("Vec", "float32", 32, 32)

    @pto.kernel
    def two(src):
        pto.TLOAD(a, pto.GlobalTensor(src, (32, 32)))
        pto.TLOAD(b, pto.GlobalTensor(src, (32, 32)))

    dev = pto.Device("a2")
    src = dev.gm_zeros((32, 32), "float32")
    run = dev.run(two, src)
    la, lb = [s for s in run.instructions if s.instr.opcode == "TLOAD"]
    assert lb.start >= la.end
    single = la.end - la.start
    assert run.cycles >= 2 * single
    four = dev.run(two, src, block_dim=4)
    # the blocks run concurrently (well below 4x); reading the same GM lines they serialise a
    # little on them (the chip's memory system, tests/engine/test_chip.py)
    assert run.cycles < four.cycles < 2 * run.cycles
    assert len({c for c, _ in four.pipes}) == 4


@pytest.mark.parametrize(
    "case,gm_shape,tile,measured",
    [
        ("T1", (1, 1, 1, 128, 128), dict(dtype="float32", rows=128, cols=128), 776),
        (
            "T2",
            (1, 1, 1, 128, 127),
            dict(dtype="int16", rows=128, cols=128, valid=(128, 127), pad="Max"),
            519,
        ),
        ("T3", (1, 1, 32, 2, 128), dict(dtype="int16", rows=64, cols=128), 8576),
    ],
)
def test_tload_calibration_against_hardware_measurements(case, gm_shape, tile, measured):
    """reference/timing.md section 1: single-TLOAD kernels measured on an Atlas A2, +-10%."""
    dev = pto.Device("a2")
    src = dev.gm_zeros(int(np.prod(gm_shape)), tile["dtype"])
    t = pto.Tile("Vec", **tile)

    @pto.kernel
    def k(src):
        pto.TLOAD(t, pto.GlobalTensor(src, gm_shape))

    run = dev.run(k, src)
    load = run.instructions[0]
    assert abs((load.end - load.start) - measured) <= 0.10 * measured, case


def _validate_chrome_trace(doc: dict) -> None:
    assert set(doc) >= {"traceEvents", "otherData"}
    slices: dict = {}
    flows: dict = {}
    for ev in doc["traceEvents"]:
        assert ev["ph"] in ("M", "X", "s", "f")
        assert isinstance(ev["pid"], int) and isinstance(ev["tid"], int)
        if ev["ph"] == "X":
            assert isinstance(ev["ts"], int) and isinstance(ev["dur"], int) and ev["dur"] >= 0
            assert "instruction" in ev["args"]
            if ev["cat"] != "stall":
                slices.setdefault((ev["pid"], ev["tid"]), []).append((ev["ts"], ev["dur"]))
        elif ev["ph"] in ("s", "f"):
            flows.setdefault(ev["id"], {})[ev["ph"]] = ev
    for spans in slices.values():  # one step at a time per pipe: monotone, non-overlapping
        for (t0, d0), (t1, _) in zip(spans, spans[1:]):
            assert t1 >= t0 + d0
    for pair in flows.values():  # every flow starts at a set and ends at a wait, forward
        assert set(pair) == {"s", "f"} and pair["s"]["ts"] <= pair["f"]["ts"]


def test_trace_json_csv_and_summary(tmp_path):
    run, _, _ = _run_copy("a2", sync=True)
    path = tmp_path / "copy.json"
    run.write_trace(path)
    doc = json.loads(path.read_text())
    _validate_chrome_trace(doc)
    assert doc["otherData"]["config"]["name"] == "a2"
    assert doc["otherData"]["cycles"] == run.cycles
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert {"PIPE_S", "PIPE_MTE2", "PIPE_MTE3", "PIPE_V"} <= names
    flows = [e for e in doc["traceEvents"] if e["ph"] == "s"]
    assert len(flows) == 1 and flows[0]["name"] == "flag PIPE_MTE2->PIPE_MTE3 EVENT_ID0"
    dma = [e for e in doc["traceEvents"] if e.get("cat") == "dma"]
    assert len(dma) == 2 and all(e["args"]["bytes"] == 1024 and "gm" in e["args"] for e in dma)
    csv_path = tmp_path / "copy.csv"
    run.write_csv(csv_path)
    rows = list(csv.DictReader(csv_path.open()))
    assert [r["pipe"] for r in rows] == [
        "PIPE_S",
        "PIPE_V",
        "PIPE_MTE1",
        "PIPE_MTE2",
        "PIPE_MTE3",
        "PIPE_M",
        "PIPE_FIX",
    ]
    mte2 = next(r for r in rows if r["pipe"] == "PIPE_MTE2")
    assert int(mte2["busy_cycles"]) == run.pipe_busy["PIPE_MTE2"] > 0
    text = run.summary()
    assert f"total: {run.cycles} cycles" in text and "GB/s" in text
    assert "waited" in text and "released by SET_FLAG #1" in text


def test_csv_has_a_row_per_core_and_pipe(tmp_path):
    dev = pto.Device("a3")
    src = dev.gm_zeros((16, 16), "float32")
    out = dev.gm_zeros((16, 16), "float32")
    run = dev.run(_copy_kernel(sync=True), src, out, block_dim=3)
    run.write_csv(tmp_path / "s.csv")
    rows = list(csv.DictReader((tmp_path / "s.csv").open()))
    assert len(rows) == 3 * 7 and {r["core"] for r in rows} == {"0", "1", "2"}


def test_same_kernel_same_config_gives_a_byte_identical_trace(tmp_path):
    paths = []
    for n in range(2):
        run, _, _ = _run_copy("a2", sync=True)
        paths.append(tmp_path / f"{n}.json")
        run.write_trace(paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_simt_trace_validates_and_shows_the_warp_schedulers(tmp_path):
    dev = pto.Device("950pr")
    table = dev.gm_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64))
    index = dev.gm_array(np.arange(64 * 4, dtype=np.int32).reshape(4, 64) * 7 % 4096)
    out = dev.gm_zeros((4, 64), "float32")
    dst, idx = pto.Tile("Vec", "float32", 4, 64), pto.Tile("Vec", "int32", 4, 64)

    @pto.kernel
    def gather(table, index, out):
        pto.TLOAD(idx, pto.GlobalTensor(index, (4, 64)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.MGATHER(dst, pto.GlobalTensor(table, (1, 1, 1, 1, 4096)), idx, coalesce="elem")
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (4, 64)), dst)

    run = dev.run(gather, table, index, out)
    assert np.array_equal(out.numpy(), table.numpy().reshape(-1)[index.numpy()])
    run.write_trace(tmp_path / "simt.json")
    doc = json.loads((tmp_path / "simt.json").read_text())
    _validate_chrome_trace(doc)
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert {"SIMT_SCHED0", "SIMT_SCHED1", "SIMT_SCHED2", "SIMT_SCHED3"} <= names
    warps = [e for e in doc["traceEvents"] if e.get("cat") == "warp"]
    assert warps and all({"warp", "lanes"} <= set(e["args"]) for e in warps)
    launch = next(e for e in doc["traceEvents"] if e.get("cat") == "simt")
    assert all(launch["ts"] <= e["ts"] <= launch["ts"] + launch["dur"] for e in warps)
