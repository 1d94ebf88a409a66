"""``ptosim bench row-vs-elem``: the Row vs Elem bandwidth study of MGATHER and MSCATTER."""

import errno
import json
import os
import time

import numpy as np
import pytest

import ptosim as pto
from ptosim import cli
from ptosim.bench import (
    DEVICE_COLOURS,
    BenchError,
    crossovers,
    default_shapes,
    format_table,
    measure,
    parse_shapes,
    row_vs_elem,
)
from ptosim.isa.gather import MGather
from tests.helpers.cli import ptosim as _ptosim
from tests.helpers.cli import ptosim_process
from tests.helpers.paths import ROOT as REPO

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROW_KEYS = {"device", "config", "clock_ghz", "op", "mode", "shape", "dtype", "cycles", "gbps"}
ROW_KEYS |= {"bytes", "bytes_per_cycle", "speedup", "row_bytes", "rows", "cols"}
CASES = ("Row", "Elem-rows", "Elem-half", "Elem")


ROOT = str(REPO)


def _by_key(rows):
    return {(r["device"], r["op"], r["shape"], r["mode"]): r for r in rows}


def test_row_beats_elem_for_gather_and_scatter_on_a2_and_950pr():
    shapes = [(8, 64), (32, 128)]
    rows = row_vs_elem(["a2", "950pr"], shapes, "float32")
    got = _by_key(rows)
    assert len(rows) == 2 * 2 * 2 * 4  # devices x ops x shapes x cases
    for dev in ("a2", "950pr"):
        clock = pto.load_config(dev).timing.clock_ghz
        for op in ("MGATHER", "MSCATTER"):
            for r, c in shapes:
                row = got[(dev, op, f"{r}x{c}", "Row")]
                elem = got[(dev, op, f"{r}x{c}", "Elem")]
                assert row["gbps"] > elem["gbps"], (dev, op, r, c)
                assert row["cycles"] < elem["cycles"], (dev, op, r, c)
                assert row["speedup"] == 1.0 and elem["speedup"] > 1
                assert elem["speedup"] == elem["cycles"] / row["cycles"]
                half = got[(dev, op, f"{r}x{c}", "Elem-half")]
                assert half["bytes"] == r * (c // 2) * 4  # only half of each row moves
                for x in (row, elem, half, got[(dev, op, f"{r}x{c}", "Elem-rows")]):
                    assert x["row_bytes"] == c * 4
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


@pytest.mark.slow
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
    for word in ("device", "op", "shape", "row B", "mode", "cycles", "B/cycle", "GB/s"):
        assert word in out
    assert "Row/Elem" in out and "crossover" in out
    table = [line.split() for line in out.split("\n\n")[0].splitlines() if line.startswith("a2 ")]
    assert len(table) == 16
    assert {(t[1], t[2], t[4]) for t in table} == {
        (op, shape, mode)
        for op in ("MGATHER", "MSCATTER")
        for shape in ("8x64", "16x64")
        for mode in CASES
    }
    assert "a2" in res.stderr  # progress
    rows = json.loads(js.read_text())
    assert isinstance(rows, list) and len(rows) == 16
    for row in rows:
        assert set(row) >= ROW_KEYS
        assert row["config"] == "a2" and row["clock_ghz"] == 1.85
    # the table shows the JSON's numbers
    cycles = {(t[1], t[2], t[4]): int(t[5]) for t in table}
    assert cycles == {(r["op"], r["shape"], r["mode"]): r["cycles"] for r in rows}
    data = png.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 10_000


def test_cli_rejects_the_cpu_device_with_one_line(tmp_path):
    res = _ptosim("bench", "row-vs-elem", "--device", "cpu", "--shapes", "8x64", cwd=tmp_path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "cpu" in lines[0] and "untimed" in lines[0]
    assert res.stdout == ""


@pytest.mark.slow
def test_cli_plot_without_matplotlib_says_how_to_install_it(tmp_path):
    fake = tmp_path / "fake" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no matplotlib here')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(fake.parent), env.get("PYTHONPATH")]))
    png = tmp_path / "x.png"
    res = ptosim_process(
        "bench", "row-vs-elem", "--device", "a2", "--shapes", "8x64", "--plot", str(png), env=env
    )
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and 'pip install -e ".[plot]"' in lines[0]
    assert not png.exists()


@pytest.mark.slow
def test_cli_all_devices_tiny_sweep_is_quick(tmp_path):
    t0 = time.perf_counter()
    res = _ptosim("bench", "row-vs-elem", "--device", "all", "--shapes", "8x64", cwd=tmp_path)
    assert time.perf_counter() - t0 < 60
    assert res.returncode == 0, res.stderr
    table, crossing = res.stdout.split("\n\n")
    lines = table.splitlines()[3:]
    devices = {line.split()[0] for line in lines}
    assert devices == {"a2", "a3", "950pr", "950dt"}
    speedups = [float(line.split()[8].rstrip("x")) for line in lines if " Elem " in line]
    assert len(speedups) == 8 and all(s > 1 for s in speedups)
    assert np.isfinite(speedups).all()
    # one crossover line per device and op (one row size only: Row wins there or it does not)
    cross = [line.split()[:2] for line in crossing.splitlines()[3:]]
    assert sorted(map(tuple, cross)) == sorted(
        (d, op) for d in devices for op in ("MGATHER", "MSCATTER")
    )


def test_elem_rows_moves_exactly_the_data_of_row():
    """Elem-rows fetches the rows Row fetches (same output, same payload); Elem-half half."""
    row = measure("950pr", "MGATHER", "Row", (16, 64))
    elem_rows = measure("950pr", "MGATHER", "Elem-rows", (16, 64))
    half = measure("950pr", "MGATHER", "Elem-half", (16, 64))
    assert row["bytes"] == elem_rows["bytes"] == 2 * half["bytes"] == 16 * 64 * 4
    assert row["row_bytes"] == half["row_bytes"] == 256


def _synthetic(speedups: dict[int, float], device="d", op="MGATHER", mode="Elem-rows"):
    return [
        {"device": device, "op": op, "mode": mode, "row_bytes": b, "rows": 8, "speedup": s}
        for b, s in speedups.items()
    ]


def test_crossover_interpolates_in_log_log_and_says_when_there_is_none():
    # Row 10 % slower at 32 B, twice as fast at 64 B: the speed-up reaches 1.05 where
    # log(s) = log(0.9) + t * (log(2) - log(0.9)) = log(1.05), at 32 * 2**t bytes
    t = (np.log(1.05) - np.log(0.9)) / (np.log(2.0) - np.log(0.9))
    got = crossovers(_synthetic({32: 0.9, 64: 2.0, 128: 4.0}))[("d", "MGATHER", "Elem-rows")]
    assert got["kind"] == "between" and got["bytes"] == pytest.approx(32 * 2**t)
    # a win that does not last is no crossover: the last loss counts
    got = crossovers(_synthetic({32: 2.0, 64: 0.5, 128: 3.0}))[("d", "MGATHER", "Elem-rows")]
    assert got["kind"] == "between" and 64 < got["bytes"] < 128
    got = crossovers(_synthetic({32: 1.2, 64: 2.0}))[("d", "MGATHER", "Elem-rows")]
    assert got["kind"] == "below" and got["text"] == "<= 32 B"
    tie = crossovers(_synthetic({32: 0.99, 64: 1.02}))[("d", "MGATHER", "Elem-rows")]
    assert tie["kind"] == "none" and "tie" in tie["text"] and "64 B" in tie["text"]
    loss = crossovers(_synthetic({32: 0.9, 64: 0.8}))[("d", "MGATHER", "Elem-rows")]
    assert loss["kind"] == "none" and "Elem wins" in loss["text"]


def test_the_table_prints_the_crossover_of_each_device():
    rows = row_vs_elem(["a2", "950pr"], [(32, 8), (32, 16), (32, 32)], "float32")
    text = format_table(rows)
    cross = crossovers(rows)
    section = text.split("crossover:")[1].splitlines()
    for dev in ("a2", "950pr"):
        for op in ("MGATHER", "MSCATTER"):
            line = next(x for x in section if x.split()[:2] == [dev, op])
            for mode in ("Elem-rows", "Elem-half", "Elem"):
                assert cross[(dev, op, mode)]["text"] in line


def test_default_shapes_span_32_bytes_to_1_kib_rows_for_any_dtype():
    for dtype, size in (("float32", 4), ("half", 2), ("int8", 1)):
        shapes = default_shapes(dtype)
        assert [c * size for _, c in shapes] == [32, 64, 128, 256, 512, 1024]


@pytest.mark.slow
def test_device_colours_are_fixed(tmp_path, monkeypatch):
    """A device keeps its colour whichever devices a chart shows."""
    pytest.importorskip("matplotlib")
    import matplotlib.axes

    used: dict[str, set] = {}
    original = matplotlib.axes.Axes.plot

    def spy(self, *args, **kwargs):
        used.setdefault(kwargs.get("color"), set())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", spy)
    from ptosim.bench import plot

    rows = row_vs_elem("950pr", [(32, 8), (32, 16)], "float32")
    plot(rows, tmp_path / "x.png")
    assert DEVICE_COLOURS["950pr"] in used and DEVICE_COLOURS["a2"] not in used


def test_a_full_disk_is_named_as_the_machines_problem_not_a_ptosim_bug(monkeypatch, capsys):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "/tmp/ptosim-work/out.bin")

    monkeypatch.setattr(cli, "row_vs_elem", full)
    assert cli.main(["bench", "row-vs-elem", "--device", "a2", "--shapes", "8x64"]) == 2
    err = capsys.readouterr().err
    assert "no space left on the disk writing /tmp/ptosim-work/out.bin" in err
    assert "PTOSIM_CACHE_DIR" in err and "internal error" not in err and err.count("\n") == 1
