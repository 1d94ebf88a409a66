"""Cost of the happens-before analysis on long pipelines, and its growth exponent.

Run:  python benchmarks/bench_checker.py [--small 1000] [--large 10000]

The kernel is the double-buffered clamp loop of ``examples/bugs/reused_event_id.py`` (fixed
form): per iteration a TLOAD, a TROWEXPANDMAX and a TSTORE with their six flags. The program is
recorded once per size and its issued steps are built without simulating it (the structural step
list of the cpu target, ``ptosim.checks.structural``: simulating 10,000 iterations on a timed
device takes far longer than analysing them). Only ``analyse`` is timed, for both sizes in the
same process. The growth exponent
is ``log(t_large / t_small) / log(large / small)``: about 1 for the O(n log n) sweep, 2 for a
pairwise check.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the source tree's ptosim

import ptosim as pto  # noqa: E402
from ptosim.checks.hazards import analyse  # noqa: E402
from ptosim.checks.structural import structural_issued  # noqa: E402
from ptosim.program import Kernel, record  # noqa: E402
from ptosim.run import place_tiles  # noqa: E402

T, COLS = 16, 64
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3


def pipeline(tiles: int):
    floor = pto.Tile("Vec", "float32", T, 1, blayout="ColMajor", name="floor")
    xbuf = [pto.Tile("Vec", "float32", T, COLS, name=f"x{b}") for b in range(2)]
    y = pto.Tile("Vec", "float32", T, COLS, name="y")

    def body(x, floors, out):
        def tin(i):
            return pto.GlobalTensor(x, shape=(1, 1, 1, T, COLS), offset=i * T * COLS)

        pto.TLOAD(floor, pto.GlobalTensor(floors, shape=(1, 1, 1, T, 1), layout="DN"))
        pto.set_flag(V, MTE2, 0)
        pto.set_flag(V, MTE2, 1)
        pto.set_flag(MTE3, V, 0)
        pto.wait_flag(V, MTE2, 0)
        pto.TLOAD(xbuf[0], tin(0))
        pto.set_flag(MTE2, V, 0)
        for i in range(tiles):
            b = i % 2
            if i + 1 < tiles:
                pto.wait_flag(V, MTE2, 1 - b)
                pto.TLOAD(xbuf[1 - b], tin(i + 1))
                pto.set_flag(MTE2, V, 1 - b)
            pto.wait_flag(MTE2, V, b)
            pto.wait_flag(MTE3, V, 0)
            pto.TROWEXPANDMAX(y, xbuf[b], floor)
            pto.set_flag(V, MTE2, b)
            pto.set_flag(V, MTE3, 0)
            pto.wait_flag(V, MTE3, 0)
            pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, T, COLS), offset=i * T * COLS), y)
            pto.set_flag(MTE3, V, 0)
        pto.wait_flag(V, MTE2, 0)
        pto.wait_flag(V, MTE2, 1)
        pto.wait_flag(MTE3, V, 0)

    return body


def measure(tiles: int) -> tuple[float, int, int]:
    """Seconds of ``analyse`` on the pipeline of ``tiles`` iterations, steps, findings."""
    dev = pto.Device("cpu")
    x = dev.gm_zeros((tiles * T, COLS), "float32")
    floors = dev.gm_zeros((T, 1), "float32")
    out = dev.gm_zeros((tiles * T, COLS), "float32")
    program = record(Kernel(pipeline(tiles)), dev.arch, (x, floors, out), {})
    place_tiles(program, dev.config)
    issued = structural_issued(program)
    t0 = time.perf_counter()
    findings = analyse([(0, issued)], dev.config.sync.event_ids, target=dev.target)
    return time.perf_counter() - t0, len(issued), len(findings)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--large", type=int, default=10000)
    args = ap.parse_args()
    rows = []
    for n in (args.small, args.large):
        secs, steps, nfind = measure(n)
        rows.append((n, secs))
        print(f"{n:6d} iterations: {steps:7d} steps, analysis {secs:7.2f} s, {nfind} findings")
    (n0, t0), (n1, t1) = rows
    exponent = math.log(t1 / t0) / math.log(n1 / n0)
    print(f"growth exponent {exponent:.2f} between {n0} and {n1} (1 = linear, 2 = quadratic)")


if __name__ == "__main__":
    main()
