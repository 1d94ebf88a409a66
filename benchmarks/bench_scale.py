"""How simulation cost grows with kernel length, and the 950 SIMT launch model's speed.

Run:  python benchmarks/bench_scale.py [--quick] [--before DIR]

``--before DIR`` measures another checkout too and prints both side by side. An export needs
its ``ptosim/targets`` link (the checkout has it; ``git archive`` does not)::

    git archive <commit> | tar -x -C DIR && ln -s ../targets DIR/ptosim/targets

Without it ``ptosim.targets`` would come from another installed tree; the run refuses that.

Three measurements (not part of the test suite: timing on a shared machine is noisy), each
run in a fresh interpreter:

1. A ping-pong loop (the structure of examples/pingpong_row_scale.py: TLOAD x, TLOAD scales
   -> TROWEXPANDMUL -> TSTORE, two buffers, two event ids) of N and 10 N iterations on a2 and
   950pr: wall time of each, and the growth exponent log(t(10 N) / t(N)) / log(10). Linear
   cost gives 1.0; a per-instruction cost that grows with the program gives about 2.
   N = 1000 (``--quick``: 100).
2. A 48-core embedding lookup on 950pr: 4096 ids into a 4096 x 1024 float32 table, as 256
   MGATHER<Row> of 16 x 1024 (each with its TLOAD of the ids and TSTORE), tile t on core
   t % 48 (``--quick``: 512 ids on 8 cores).
3. One 128 x 256 float32 MGATHER<Row> on a2 and on 950pr, and their wall-time ratio.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not os.environ.get("PYTHONPATH"):  # this checkout's ptosim
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ptosim as pto  # noqa: E402

S, V, MTE2, MTE3 = pto.PIPE_S, pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
ROWS, COLS = 16, 64


def pingpong(dev, tiles: int):
    """The ping-pong row-scale loop of ``tiles`` iterations (examples/pingpong_row_scale.py)."""
    rng = np.random.default_rng(31)
    x = dev.gm_array(rng.standard_normal((tiles * ROWS, COLS)).astype(np.float32))
    scales = dev.gm_array(rng.uniform(0.5, 2.0, tiles * ROWS).astype(np.float32))
    out = dev.gm_zeros((tiles * ROWS, COLS), "float32")
    ev = (pto.EVENT_ID0, pto.EVENT_ID1)

    @pto.kernel
    def loop(x, scales, out):
        xs = [pto.Tile("Vec", "float32", ROWS, COLS) for _ in (0, 1)]
        ss = [pto.Tile("Vec", "float32", ROWS, 1, blayout="ColMajor") for _ in (0, 1)]
        ys = [pto.Tile("Vec", "float32", ROWS, COLS) for _ in (0, 1)]
        for b in (0, 1):
            pto.set_flag(V, MTE2, ev[b])
            pto.set_flag(MTE3, V, ev[b])
        for t in range(tiles):
            b, e = t % 2, ev[t % 2]
            x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
            s_gm = pto.GlobalTensor(scales, shape=(1, 1, 1, ROWS, 1), layout="DN", offset=t * ROWS)
            y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, COLS), offset=t * ROWS * COLS)
            pto.wait_flag(V, MTE2, e)
            pto.TLOAD(xs[b], x_gm)
            pto.TLOAD(ss[b], s_gm)
            pto.set_flag(MTE2, V, e)
            pto.wait_flag(MTE2, V, e)
            pto.wait_flag(MTE3, V, e)
            pto.TROWEXPANDMUL(ys[b], xs[b], ss[b])
            pto.set_flag(V, MTE2, e)
            pto.set_flag(V, MTE3, e)
            pto.wait_flag(V, MTE3, e)
            pto.TSTORE(y_gm, ys[b])
            pto.set_flag(MTE3, V, e)
        for b in (0, 1):
            pto.wait_flag(V, MTE2, ev[b])
            pto.wait_flag(MTE3, V, ev[b])

    def check(run) -> bool:
        want = x.numpy() * scales.numpy()[:, None]
        return np.array_equal(out.numpy(), want.astype(np.float32))

    return loop, (x, scales, out), {}, check


TABLE_ROWS, DIM, GATHER_ROWS = 4096, 1024, 16


def embedding(dev, cores: int, tiles: int):
    """``tiles`` x 16 lookups into a 4096 x 1024 float32 table: tile t (one 16 x 1024
    MGATHER<Row> and its TSTORE) runs on core t % cores."""
    rng = np.random.default_rng(7)
    n = tiles * GATHER_ROWS
    table = dev.gm_array(rng.standard_normal((TABLE_ROWS, DIM)).astype(np.float32))
    ids = dev.gm_array(rng.integers(0, TABLE_ROWS, n).astype(np.int32))
    out = dev.gm_zeros((n, DIM), "float32")

    @pto.kernel
    def lookup(table, ids, out):
        core = pto.get_block_idx()
        tab = pto.GlobalTensor(table, shape=(1, 1, 1, TABLE_ROWS, DIM))
        rows = pto.Tile("Vec", "float32", GATHER_ROWS, DIM)
        idx = pto.Tile("Vec", "int32", 1, GATHER_ROWS)
        for t in range(core, tiles, cores):
            first = t * GATHER_ROWS
            pto.TLOAD(idx, pto.GlobalTensor(ids, shape=(1, 1, 1, 1, GATHER_ROWS), offset=first))
            pto.set_flag(MTE2, V, pto.EVENT_ID0)
            pto.wait_flag(MTE2, V, pto.EVENT_ID0)
            pto.MGATHER(rows, tab, idx, coalesce="row")
            pto.set_flag(V, MTE3, pto.EVENT_ID0)
            pto.wait_flag(V, MTE3, pto.EVENT_ID0)
            out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, GATHER_ROWS, DIM), offset=first * DIM)
            pto.TSTORE(out_gm, rows)
            pto.pipe_barrier(pto.PIPE_ALL)  # the next TLOAD / MGATHER reuse idx and rows

    def check(run) -> bool:
        return np.array_equal(out.numpy(), table.numpy()[ids.numpy()])

    return lookup, (table, ids, out), {"block_dim": cores}, check


def row_gather(dev, rows: int = 128, cols: int = 256):
    """One rows x cols float32 MGATHER<Row> (TLOAD idx; MTE2 -> V; MGATHER; V -> MTE3; TSTORE)."""
    rng = np.random.default_rng(0)
    table = dev.gm_array(rng.standard_normal((4096, cols)).astype(np.float32))
    ids = dev.gm_array(rng.integers(0, 4096, rows).astype(np.int32))
    out = dev.gm_zeros((rows, cols), "float32")

    @pto.kernel
    def gather(table, ids, out):
        dst = pto.Tile("Vec", "float32", rows, cols)
        idx = pto.Tile("Vec", "int32", 1, rows)
        pto.TLOAD(idx, pto.GlobalTensor(ids, shape=(1, 1, 1, 1, rows)))
        pto.set_flag(MTE2, V, 0)
        pto.wait_flag(MTE2, V, 0)
        pto.MGATHER(dst, pto.GlobalTensor(table, (1, 1, 1, 4096, cols)), idx, coalesce="row")
        pto.set_flag(V, MTE3, 0)
        pto.wait_flag(V, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, rows, cols)), dst)

    def check(run) -> bool:
        return np.array_equal(out.numpy(), table.numpy()[ids.numpy()])

    return gather, (table, ids, out), {"dyn_ubuf_size": 200 * 1024}, check


def timed(device: str, build, *args) -> tuple[float, int]:
    """(wall seconds of Device.run, simulated cycles); raises if the result is wrong."""
    dev = pto.Device(device)
    kernel, kargs, kwargs, check = build(dev, *args)
    t0 = time.perf_counter()
    run = dev.run(kernel, *kargs, **kwargs)
    wall = time.perf_counter() - t0
    if not check(run):
        raise SystemExit(f"{device}: wrong result")
    if run.findings:
        raise SystemExit(f"{device}: unexpected findings {run.findings}")
    return wall, run.cycles


CASES = {"pingpong": pingpong, "embedding": embedding, "row_gather": row_gather}


def isolated(device: str, case: str, *args) -> tuple[float, int]:
    """``timed`` in a fresh interpreter of the same checkout: a run measured after several
    long runs in one process was up to 2x slower (heap growth), whichever tree."""
    cmd = [sys.executable, __file__, "--case", json.dumps([device, case, *args])]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"{device} {case} {args} failed:\n{res.stderr}")
    wall, cycles = json.loads(res.stdout.strip().splitlines()[-1])
    return wall, cycles


def measure(quick: bool) -> list[tuple[str, str, str, int, float]]:
    """Rows (measurement, device, size, cycles, wall seconds) of the three measurements."""
    small = 100 if quick else 1000
    cores, tiles = (8, 32) if quick else (48, 256)
    rows = []
    for device in ("a2", "950pr"):
        for n in (small, 10 * small):
            t, c = isolated(device, "pingpong", n)
            rows.append(("ping-pong loop", device, f"{n} iterations", c, t))
    t, c = isolated("950pr", "embedding", cores, tiles)
    rows.append(("embedding 4096x1024", "950pr", f"{cores} cores, {tiles} MGATHERs", c, t))
    for device in ("a2", "950pr"):
        t, c = isolated(device, "row_gather")
        rows.append(("MGATHER Row 128x256", device, "1", c, t))
    return rows


def _derived(rows) -> list[tuple[str, float]]:
    """The growth exponent per device and the 950pr / a2 wall ratio of the Row gather."""
    wall = {(m, d, s): t for m, d, s, _, t in rows}
    pp = [(d, s, t) for m, d, s, _, t in rows if m == "ping-pong loop"]
    out = []
    for device in ("a2", "950pr"):
        (_, _, t1), (_, _, t2) = [r for r in pp if r[0] == device]
        out.append((f"growth exponent {device} (x10 iterations)", math.log10(t2 / t1)))
    g = {d: t for (m, d, _), t in wall.items() if m == "MGATHER Row 128x256"}
    out.append(("MGATHER Row 128x256: 950pr / a2 wall", g["950pr"] / g["a2"]))
    return out


def _check_checkout() -> None:
    """Refuse to measure a checkout whose ``ptosim.targets`` lives elsewhere."""
    import ptosim.targets

    root = Path(pto.__file__).resolve().parent.parent
    where = Path(ptosim.targets.__file__).resolve()
    if root not in where.parents:
        raise SystemExit(
            f"ptosim from {root} but ptosim.targets from {where.parent}: "
            f"run `ln -s ../targets {root}/ptosim/targets`"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller sizes (about 10 s in total)")
    ap.add_argument(
        "--before",
        metavar="DIR",
        help="also measure the ptosim checkout in DIR (e.g. an export of an older commit), in "
        "a subprocess, and print both side by side with the speed-up",
    )
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # for --before
    ap.add_argument("--case", help=argparse.SUPPRESS)  # one measurement, for isolated()
    args = ap.parse_args(argv)
    if args.case:
        device, case, *rest = json.loads(args.case)
        timed(device, row_gather)  # warm-up: the first run imports the target's modules
        print(json.dumps(timed(device, CASES[case], *rest)))
        return
    if args.json:
        _check_checkout()
        print(json.dumps(measure(args.quick)))
        return
    before = None
    if args.before:
        env = dict(os.environ, PYTHONPATH=str(Path(args.before).resolve()))
        cmd = [sys.executable, __file__, "--json"] + (["--quick"] if args.quick else [])
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if res.returncode:
            raise SystemExit(f"--before {args.before} failed:\n{res.stderr}")
        before = json.loads(res.stdout.strip().splitlines()[-1])
    rows = measure(args.quick)
    if before is None:
        print("| measurement | device | size | cycles | wall s |")
        print("|---|---|---|---:|---:|")
        for m, d, s, c, t in rows:
            print(f"| {m} | {d} | {s} | {c} | {t:.2f} |")
        for name, v in _derived(rows):
            print(f"| {name} | | | | {v:.2f} |")
        return
    print("| measurement | device | size | cycles before / after | wall s before | after | x |")
    print("|---|---|---|---|---:|---:|---:|")
    for (m, d, s, c0, t0), (_, _, _, c1, t1) in zip(before, rows):
        cyc = str(c1) if c0 == c1 else f"{c0} / {c1}"
        print(f"| {m} | {d} | {s} | {cyc} | {t0:.2f} | {t1:.2f} | {t0 / t1:.1f} |")
    for (name, v0), (_, v1) in zip(_derived(before), _derived(rows)):
        print(f"| {name} | | | | {v0:.2f} | {v1:.2f} | |")


if __name__ == "__main__":
    main()
