"""The chip's shared memory system (engine/chip.py): the cores of a launch share the chip's GM
bandwidth, and cores hitting the same GM lines serialise; one core on an idle chip is unchanged.
"""

import csv
import json

import numpy as np
import pytest

import ptosim as pto

ROWS, COLS = 128, 128  # one float32 tile of 64 KiB
TILE_ELEMS = ROWS * COLS


def _load_kernel(rows: int = ROWS, same: bool = False):
    @pto.kernel
    def load(src):
        t = pto.Tile("Vec", "float32", rows, COLS)
        b = 0 if same else pto.get_block_idx()
        pto.TLOAD(t, pto.GlobalTensor(src, (rows, COLS), offset=b * TILE_ELEMS))

    return load


def _run(device: str, cores: int, overrides=None, **kw):
    dev = pto.Device(device, overrides=overrides) if overrides else pto.Device(device)
    src = dev.gm_zeros(48 * TILE_ELEMS, "float32")
    return dev, dev.run(_load_kernel(**kw), src, block_dim=cores)


def test_48_cores_streaming_do_not_exceed_the_chip_limit():
    dev, one = _run("a2", 1)
    _, many = _run("a2", 48)
    limit = dev.config.timing.chip.gm_bw_bytes_per_cycle
    total = 48 * TILE_ELEMS * 4
    single_rate = TILE_ELEMS * 4 / one.cycles  # one core's achieved rate (latency included)
    achieved = many.trace.chip.achieved(many.cycles)
    assert achieved["bytes"] == total
    assert achieved["span"] <= limit * 1.01
    assert achieved["peak_window"] <= limit * 1.0001
    assert many.cycles >= total / limit  # the bytes cannot cross the chip faster
    assert total / many.cycles < 0.25 * 48 * single_rate  # far below 48 independent cores
    # the limit is what slows them: a chip with 100x the bandwidth runs them concurrently
    _, fast = _run("a2", 48, {"timing.chip.gm_bw_bytes_per_cycle": 100 * limit})
    assert fast.cycles == one.cycles < many.cycles / 3


def test_one_core_on_an_idle_chip_is_unchanged():
    _, limited = _run("a2", 1)
    _, unlimited = _run("a2", 1, {"timing.chip.gm_bw_bytes_per_cycle": 1e9})
    assert limited.cycles == unlimited.cycles
    load = limited.instructions[0]
    dma = [e for e in limited.trace.events if e.kind == "dma"]
    assert sum(e.dur for e in dma) == load.end - load.start
    assert all("planned_cycles" not in e.args for e in dma)  # nothing was throttled


def test_950dt_chip_moves_48_streams_faster_than_950pr():
    _, pr = _run("950pr", 48)
    _, dt = _run("950dt", 48)
    assert dt.cycles < pr.cycles
    for run, dev in ((pr, "950pr"), (dt, "950dt")):
        limit = pto.Device(dev).config.timing.chip.gm_bw_bytes_per_cycle
        assert run.trace.chip.achieved(run.cycles)["span"] <= limit * 1.01


@pytest.mark.parametrize("cores", [8, 48])
def test_cores_on_one_gm_address_serialise(cores):
    _, apart = _run("a2", cores, rows=1)
    _, same = _run("a2", cores, rows=1, same=True)
    hold = pto.Device("a2").config.timing.chip.same_address_cycles
    assert same.cycles >= apart.cycles + (cores - 1) * hold  # one after another on the line
    loads = sorted(s.end for s in same.instructions if s.instr.opcode == "TLOAD")
    assert loads[-1] - loads[0] >= (cores - 1) * hold


def test_summary_csv_and_trace_report_core_and_chip_bandwidth(tmp_path):
    dev, run = _run("a2", 4)
    text = run.summary()
    assert "chip GM: " in text and "limit 864.9 B/cycle" in text
    assert "per core GM" in text and "core 3" in text
    run.write_csv(tmp_path / "s.csv")
    rows = list(csv.DictReader((tmp_path / "s.csv").open()))
    mte2 = [r for r in rows if r["pipe"] == "PIPE_MTE2"]
    assert [int(r["gm_bytes"]) for r in mte2] == [TILE_ELEMS * 4] * 4
    assert float(mte2[0]["core_gm_bytes_per_cycle"]) == pytest.approx(
        TILE_ELEMS * 4 / run.cycles, rel=1e-3
    )
    assert float(mte2[0]["chip_gm_bytes_per_cycle"]) == pytest.approx(
        4 * TILE_ELEMS * 4 / run.cycles, rel=1e-3
    )
    run.write_trace(tmp_path / "t.json")
    doc = json.loads((tmp_path / "t.json").read_text())
    lane = [e for e in doc["traceEvents"] if e.get("cat") == "chip"]
    assert lane and sum(e["args"]["bytes"] for e in lane) == 4 * TILE_ELEMS * 4
    assert all(e["args"]["bytes_per_cycle"] <= 864.9 + 1e-6 for e in lane)


def _gather_run(overrides=None, cores: int = 48):
    """Each block gathers 64 rows of 256 B from its own part of a table (SIMT GM traffic)."""
    dev = pto.Device("950pr", overrides=overrides) if overrides else pto.Device("950pr")
    rows, cols = 64, 64
    table = dev.gm_zeros((cores * rows, cols), "float32")
    index = dev.gm_array((np.arange(cores * rows, dtype=np.int32)).reshape(cores, rows))

    @pto.kernel
    def k():
        b = pto.get_block_idx()
        idx = pto.Tile("Vec", "int32", 1, rows)
        dst = pto.Tile("Vec", "float32", rows, cols)
        pto.TLOAD(idx, pto.GlobalTensor(index, (1, 1, 1, 1, rows), offset=b * rows))
        pto.set_flag("MTE2", "V", 0)
        pto.wait_flag("MTE2", "V", 0)
        pto.MGATHER(
            dst, pto.GlobalTensor(table, (1, 1, 1, cores * rows, cols)), idx, coalesce="row"
        )

    return dev.run(k, block_dim=cores)


def test_simt_gm_sectors_share_the_chip_limit():
    limited = _gather_run()
    free = _gather_run({"timing.chip.gm_bw_bytes_per_cycle": 1e9})
    launches = [e for e in limited.trace.events if e.kind == "simt"]
    assert len(launches) == 48 and any("planned_cycles" in e.args for e in launches)
    assert limited.cycles > free.cycles
    limit = limited.config.timing.chip.gm_bw_bytes_per_cycle
    assert limited.trace.chip.achieved(limited.cycles)["peak_window"] <= limit * 1.0001


def test_a_multi_core_run_is_deterministic(tmp_path):
    for n in range(2):
        _, run = _run("a2", 48)
        run.write_trace(tmp_path / f"{n}.json")
        run.write_csv(tmp_path / f"{n}.csv")
    assert (tmp_path / "0.json").read_bytes() == (tmp_path / "1.json").read_bytes()
    assert (tmp_path / "0.csv").read_bytes() == (tmp_path / "1.csv").read_bytes()
