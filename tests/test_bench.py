"""``ptosim bench row-vs-elem``: the Row vs Elem bandwidth study of MGATHER and MSCATTER."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import ptosim as pto
from ptosim import cli
from ptosim.bench import BenchError, measure, parse_shapes, row_vs_elem
from ptosim.isa.gather import MGather

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROW_KEYS = {"device", "config", "clock_ghz", "op", "mode", "shape", "dtype", "cycles", "gbps"}
ROW_KEYS |= {"bytes", "bytes_per_cycle", "speedup"}


def _ptosim(*args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "ptosim", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


def _by_key(rows):
    return {(r["device"], r["op"], r["shape"], r["mode"]): r for r in rows}


def test_row_beats_elem_for_gather_and_scatter_on_a2_and_950pr():
    shapes = [(8, 64), (32, 128)]
    rows = row_vs_elem(["a2", "950pr"], shapes, "float32")
    got = _by_key(rows)
    assert len(rows) == 2 * 2 * 2 * 2  # devices x ops x shapes x modes
    for dev in ("a2", "950pr"):
        clock = pto.load_config(dev).timing.clock_ghz
        for op in ("MGATHER", "MSCATTER"):
            for r, c in shapes:
                row = got[(dev, op, f"{r}x{c}", "Row")]
                elem = got[(dev, op, f"{r}x{c}", "Elem")]
                assert row["gbps"] > elem["gbps"], (dev, op, r, c)
                assert row["cycles"] < elem["cycles"], (dev, op, r, c)
                assert row["speedup"] == elem["speedup"] > 1
                for x in (row, elem):  # the GB/s definition of the study
                    assert x["bytes"] == r * c * 4
                    assert x["gbps"] == pytest.approx(r * c * 4 / x["cycles"] * clock)
                    assert x["config"] == dev and x["clock_ghz"] == clock
                    assert 0 < x["cycles"] <= x["total_cycles"]


def test_other_dtypes_and_the_950_conflict_policy():
    rows = _by_key(row_vs_elem("950pr", "16x64", "half"))
    assert rows[("950pr", "MGATHER", "16x64", "Row")]["bytes"] == 16 * 64 * 2
    # the slot-centric Conflict::Last scan is far slower than the plain stores of Default
    last = measure("950pr", "MSCATTER", "Elem", (8, 64), conflict="last")
    default = measure("950pr", "MSCATTER", "Elem", (8, 64), conflict="default")
    assert last["cycles"] > 10 * default["cycles"]
    row = measure("950dt", "MGATHER", "Row", (8, 64), "hifloat8")  # bits only, compared exactly
    assert row["bytes"] == 8 * 64


def test_a_wrong_result_fails_loudly(monkeypatch, capsys):
    original = MGather.execute

    def off_by_one(self, ctx):  # a simulator bug: one gathered element is wrong
        original(self, ctx)
        ctx.tile_storage(self.dst)[0] += 1

    monkeypatch.setattr(MGather, "execute", off_by_one)
    with pytest.raises(BenchError, match="differs from numpy"):
        measure("a2", "MGATHER", "Row", (8, 64))
    # on the command line it is an internal error (exit 3), never a table of wrong numbers
    assert cli.main(["bench", "row-vs-elem", "--device", "a2", "--shapes", "8x64"]) == 3
    out, err = capsys.readouterr()
    assert "internal error" in err and "differs from numpy" in err and "GB/s" not in out


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"devices": "cpu"}, "untimed"),
        ({"devices": "a2", "dtype": "hifloat8"}, "not allowed for MGATHER on target a2a3"),
        ({"devices": "a2", "shapes": "8x3"}, "multiple of 32 bytes"),
        ({"devices": "a2", "shapes": "256x256"}, "bytes of UB"),
        ({"devices": "a2", "shapes": "8by64"}, "expected RxC"),
    ],
)
def test_bad_arguments_are_pto_errors(kwargs, message):
    with pytest.raises(pto.PtoSimError, match=message):
        row_vs_elem(**{"shapes": "8x64", **kwargs})


def test_parse_shapes():
    assert parse_shapes("8x64, 16X128") == [(8, 64), (16, 128)]
    assert parse_shapes([(4, 32)]) == [(4, 32)]


def test_cli_prints_the_table_and_writes_json_and_png(tmp_path):
    js, png = tmp_path / "x.json", tmp_path / "x.png"
    res = _ptosim(
        "bench",
        "row-vs-elem",
        "--device",
        "a2",
        "--shapes",
        "8x64,16x64",
        "--json",
        str(js),
        "--plot",
        str(png),
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for word in ("device", "op", "shape", "mode", "cycles", "B/cycle", "GB/s", "Row/Elem"):
        assert word in out
    table = [line.split() for line in out.splitlines() if line.startswith("a2 ")]
    assert len(table) == 8
    assert {(t[1], t[2], t[3]) for t in table} == {
        (op, shape, mode)
        for op in ("MGATHER", "MSCATTER")
        for shape in ("8x64", "16x64")
        for mode in ("Row", "Elem")
    }
    assert "a2" in res.stderr  # progress
    rows = json.loads(js.read_text())
    assert isinstance(rows, list) and len(rows) == 8
    for row in rows:
        assert set(row) >= ROW_KEYS
        assert row["config"] == "a2" and row["clock_ghz"] == 1.85
    # the table shows the JSON's numbers
    cycles = {(t[1], t[2], t[3]): int(t[4]) for t in table}
    assert cycles == {(r["op"], r["shape"], r["mode"]): r["cycles"] for r in rows}
    data = png.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 10_000


def test_cli_rejects_the_cpu_device_with_one_line(tmp_path):
    res = _ptosim("bench", "row-vs-elem", "--device", "cpu", "--shapes", "8x64", cwd=tmp_path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "cpu" in lines[0] and "untimed" in lines[0]
    assert res.stdout == ""


def test_cli_plot_without_matplotlib_says_how_to_install_it(tmp_path):
    fake = tmp_path / "fake" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no matplotlib here')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(fake.parent), env.get("PYTHONPATH")]))
    png = tmp_path / "x.png"
    res = _ptosim(
        "bench", "row-vs-elem", "--device", "a2", "--shapes", "8x64", "--plot", str(png), env=env
    )
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and 'pip install -e ".[plot]"' in lines[0]
    assert not png.exists()


def test_cli_all_devices_tiny_sweep_is_quick(tmp_path):
    t0 = time.perf_counter()
    res = _ptosim("bench", "row-vs-elem", "--device", "all", "--shapes", "8x64", cwd=tmp_path)
    assert time.perf_counter() - t0 < 60
    assert res.returncode == 0, res.stderr
    devices = {line.split()[0] for line in res.stdout.splitlines()[3:] if line.strip()}
    assert devices == {"a2", "a3", "950pr", "950dt"}
    speedups = [
        float(line.split()[-1].rstrip("x"))
        for line in res.stdout.splitlines()[3:]
        if " Elem " in line
    ]
    assert len(speedups) == 8 and all(s > 1 for s in speedups)
    assert np.isfinite(speedups).all()
