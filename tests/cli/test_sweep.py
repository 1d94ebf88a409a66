"""``ptosim sweep``: a grid of independent simulations on Dask, a tidy table out, resumable."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

import ptosim as pto
from ptosim.sweep import load_spec, make_spec, points, read_table, run_sweep, write_table
from tests.helpers.cli import ptosim as _ptosim
from tests.helpers.paths import ROOT

EXAMPLE = ROOT / "examples" / "sweeps" / "row_gather.toml"

# a kernel file whose points succeed, raise, or fail their check, by the ``mode`` parameter
KERNEL = """
import numpy as np
import ptosim as pto

PARAMS = {"mode": "ok"}


@pto.kernel
def copy(src, dst, *, rows, cols):
    t = pto.Tile("Vec", "float32", rows, cols)
    pto.TLOAD(t, pto.GlobalTensor(src, (1, 1, 1, rows, cols)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(dst, (1, 1, 1, rows, cols)), t)


def inputs(dev, *, shape, mode):
    if mode == "raise":
        raise ValueError("boom in inputs")
    data = np.arange(shape[0] * shape[1], dtype=np.float32).reshape(shape)
    args = (dev.gm_array(data), dev.gm_zeros(shape, "float32"))
    return {"args": args, "kwargs": {"rows": shape[0], "cols": shape[1]}}


def check(dev, args, run, *, shape, mode):
    if mode == "wrong":
        return False
    return np.array_equal(args[0].numpy(), args[1].numpy())


def metrics(dev, args, run, **params):
    return {"elements": int(args[0].numpy().size)}
"""


@pytest.fixture
def kernel_spec(tmp_path):
    (tmp_path / "copy_kernel.py").write_text(KERNEL)
    spec = tmp_path / "grid.toml"
    spec.write_text(
        textwrap.dedent(
            """\
            kernels = ["copy_kernel.py"]
            devices = ["a2", "950pr"]
            shapes = [[8, 64], [8, 3]]
            [params]
            mode = ["ok", "raise", "wrong"]
            """
        )
    )
    return spec


@pytest.fixture
def deadline():
    """A guard: a hung cluster fails the test after 120 s instead of hanging CI."""

    def expire(signum, frame):
        raise TimeoutError("the sweep test took more than 120 s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _no_wall(rows):
    return [{k: v for k, v in r.items() if k != "wall_s"} for r in rows]


def _key(row):
    return (row["device"], row["shape"], row["mode"])


def test_the_spec_is_a_grid_in_order(kernel_spec):
    spec = load_spec(kernel_spec)
    assert spec.name == "grid"
    pts = points(spec)
    assert len(pts) == 2 * 2 * 3  # devices x shapes x modes
    assert [(p.device, p.shape, dict(p.params)["mode"]) for p in pts[:4]] == [
        ("a2", (8, 64), "ok"),
        ("a2", (8, 64), "raise"),
        ("a2", (8, 64), "wrong"),
        ("a2", (8, 3), "ok"),
    ]
    assert len({p.point_id for p in pts}) == len(pts)
    assert pts[0].kernel == "copy_kernel.py:copy" and pts[0].kernel_params() == {
        "mode": "ok",
        "shape": (8, 64),
    }
    example = points(load_spec(EXAMPLE))
    assert len(example) == 32 and {p.device for p in example} == {"a2", "950pr"}


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"kernels": [], "devices": ["a2"]}, "kernels"),
        ({"kernels": ["k.py"], "devices": ["a2"], "colour": 1}, "colour"),
        ({"kernels": ["k.py"], "devices": ["a2"], "params": {"cycles": [1]}}, "params.cycles"),
        ({"kernels": ["k.py"], "devices": ["a2"], "params": {"x": []}}, "params.x"),
        ({"kernels": ["k.py"], "devices": ["a2"], "shapes": [[8, 0]]}, "shapes"),
    ],
)
def test_a_bad_spec_is_a_config_error_naming_the_key(fields, message):
    with pytest.raises(pto.ConfigError, match=message):
        make_spec(**fields)


def test_a_bad_device_or_override_fails_before_any_simulation(kernel_spec):
    spec = load_spec(kernel_spec)
    with pytest.raises(pto.ConfigError):
        points(spec.model_copy(update={"devices": ["a9"]}))
    with pytest.raises(pto.ConfigError):
        points(spec.model_copy(update={"overrides": {"timing.nope": [1]}}))


def test_failing_points_are_recorded_and_the_sweep_goes_on(kernel_spec, tmp_path):
    rows = run_sweep(load_spec(kernel_spec), tmp_path / "t.csv", scheduler="inline", progress=0)
    got = {_key(r): r for r in rows}
    assert len(rows) == 12
    for dev in ("a2", "950pr"):
        ok = got[(dev, "8x64", "ok")]
        assert ok["status"] == "ok" and ok["error"] is None and ok["check"] is True
        assert ok["cycles"] > 0 and ok["bytes"] == 2 * 8 * 64 * 4  # TLOAD + TSTORE
        clock = pto.load_config(dev).timing.clock_ghz
        assert ok["gbps"] == pytest.approx(ok["bytes"] / ok["cycles"] * clock)
        assert ok["busy_MTE2"] > 0 and ok["busy_MTE3"] > 0 and ok["findings"] == 0
        assert ok["elements"] == 8 * 64  # the file's metrics() column
        boom = got[(dev, "8x64", "raise")]
        assert boom["status"] == "error" and "ValueError: boom in inputs" in boom["error"]
        assert boom["cycles"] is None
        wrong = got[(dev, "8x64", "wrong")]
        assert wrong["status"] == "check-failed" and wrong["check"] is False
        bad = got[(dev, "8x3", "ok")]  # 12-byte tile rows: a constraint error of ptosim
        assert bad["status"] == "error" and bad["error"].startswith("[PTO")
    assert _no_wall(read_table(tmp_path / "t.csv")) == _no_wall(rows)


@pytest.mark.slow
def test_a_local_cluster_sweep_matches_inline_resumes_and_writes_parquet(
    kernel_spec, tmp_path, deadline
):
    distributed = pytest.importorskip("distributed")
    from ptosim.kernelfile import load
    from ptosim.sweep import _worker_sys_path

    # a kernel file named like a stdlib module puts its folder first on sys.path; the worker
    # processes, which inherit sys.path, must still import the stdlib's copy
    (tmp_path / "copy.py").write_text(KERNEL)
    load(str(tmp_path / "copy.py"))
    spec = load_spec(kernel_spec)
    inline = run_sweep(spec, None, scheduler="inline", progress=False)
    # the default: a new LocalCluster (2 worker processes x 1 thread), closed at the end
    out = tmp_path / "t.csv"
    seen = []
    rows = run_sweep(spec, out, workers=2, progress=lambda d, n, row: seen.append((d, n)))
    assert seen[-1] == (12, 12)
    assert _no_wall(rows) == _no_wall(inline)  # deterministic: the same table in grid order
    assert {r["status"] for r in rows} == {"ok", "error", "check-failed"}
    with _worker_sys_path():
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
    with cluster:
        address = cluster.scheduler_address
        # resume: drop three rows; only those three points run again
        table = read_table(out)
        write_table(table[:4] + table[7:], out, ["mode"])
        seen.clear()
        again = run_sweep(spec, out, scheduler=address, progress=lambda d, n, row: seen.append(row))
        assert sorted(r["point_id"] for r in seen) == sorted(r["point_id"] for r in table[4:7])
        assert _no_wall(again) == _no_wall(inline)
        # nothing left to do: no point runs
        assert run_sweep(spec, out, scheduler=address, progress=lambda *a: seen.append(a))
        assert len(seen) == 3
        # retry_failed runs the failed points (and only those) again
        seen.clear()
        run_sweep(
            spec,
            out,
            scheduler=address,
            retry_failed=True,
            progress=lambda d, n, row: seen.append(row),
        )
        assert len(seen) == sum(r["status"] != "ok" for r in inline) == 10
        if _has_pyarrow():  # CI has it; without it only the CSV path is checked
            pq = tmp_path / "t.parquet"
            parquet = run_sweep(spec, pq, scheduler=address, progress=False)
            assert _no_wall(read_table(pq)) == _no_wall(parquet) == _no_wall(inline)
            assert _no_wall(read_table(pq)) == _no_wall(read_table(out))  # CSV == Parquet


@pytest.mark.slow
def test_cli_sweep_exit_codes_and_resume(kernel_spec, tmp_path):
    out = tmp_path / "t.csv"
    res = _ptosim("sweep", str(kernel_spec), "-o", str(out), "--scheduler", "inline")
    assert res.returncode == 1, res.stderr  # some points failed: a negative verdict
    assert "12 point(s), 2 ok, 10 failed" in res.stdout
    assert "boom in inputs" in res.stdout and str(out) in res.stdout
    assert "12/12 points" in res.stderr  # the progress bar
    assert len(read_table(out)) == 12
    res = _ptosim("sweep", str(kernel_spec), "-o", str(out), "--scheduler", "inline")
    assert "12 of 12 points already in the output, skipped" in res.stderr
    good = tmp_path / "good.toml"
    good.write_text('kernels = ["copy_kernel.py"]\ndevices = "a2"\nshapes = [[8, 64]]\n')
    res = _ptosim("sweep", str(good), "--scheduler", "inline", "--no-progress", cwd=tmp_path)
    assert res.returncode == 0, res.stderr and res.stderr == ""
    default = tmp_path / ("good.parquet" if _has_pyarrow() else "good.csv")
    assert default.exists() and len(read_table(default)) == 1
    res = _ptosim("sweep", str(good), "-o", str(tmp_path / "t.json"), "--scheduler", "inline")
    assert res.returncode == 2 and ".parquet or .csv" in res.stderr


def _has_pyarrow() -> bool:
    from ptosim.sweep import has_pyarrow

    return has_pyarrow()


@pytest.mark.slow
def test_the_simulator_core_never_imports_dask():
    code = (
        "import sys, ptosim, ptosim.cli, ptosim.sweep, ptosim.bench\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'pyarrow')]\n"
        "print(bad)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"
