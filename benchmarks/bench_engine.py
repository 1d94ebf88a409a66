"""Wall time of representative simulations, and simulated steps per wall second.

Run:  python benchmarks/bench_engine.py [--device a2] [--repeat 3]
Prints one line per case: simulated cycles, trace events (steps), best wall time of the
repeats, and steps per second. The last cases are kernels of examples/ (softmax, layernorm),
loaded as kernel files; run it with --device a2 and with --device 950pr. Not part of the test
suite (timing on a shared 2-core machine is noisy); the numbers go into the issue notes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import ptosim as pto
from ptosim.kernelfile import load

R, C = 64, 256
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _gather(dev, coalesce):
    rng = np.random.default_rng(0)
    table = dev.gm_array(rng.standard_normal((4096, C)).astype(np.float32))
    shape = (1, R) if coalesce == "row" else (R, C)
    rows = 4096 if coalesce == "row" else 4096 * C
    index = dev.gm_array(rng.integers(0, rows, shape).astype(np.int32))
    out = dev.gm_zeros((R, C), "float32")
    dst = pto.Tile("Vec", "float32", R, C)
    idx = pto.Tile("Vec", "int32", shape[0], shape[1])

    @pto.kernel
    def gather(table, index, out):
        pto.TLOAD(idx, pto.GlobalTensor(index, (1, 1, 1) + shape))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.MGATHER(dst, pto.GlobalTensor(table, (1, 1, 1, 4096, C)), idx, coalesce=coalesce)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, R, C)), dst)

    return gather, (table, index, out)


def _scatter_add(dev, rows=64, cols=64, atomic="add", conflict=None):
    rng = np.random.default_rng(1)
    table = dev.gm_zeros(4096, "float32")
    src_h = dev.gm_array(rng.standard_normal((rows, cols)).astype(np.float32))
    idx_h = dev.gm_array(rng.integers(0, 4096, (rows, cols)).astype(np.int32))
    src = pto.Tile("Vec", "float32", rows, cols)
    idx = pto.Tile("Vec", "int32", rows, cols)

    @pto.kernel
    def scatter(table, src_h, idx_h):
        pto.TLOAD(src, pto.GlobalTensor(src_h, (rows, cols)))
        pto.TLOAD(idx, pto.GlobalTensor(idx_h, (rows, cols)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        extra = {"conflict": conflict} if conflict else {}
        pto.MSCATTER(
            pto.GlobalTensor(table, (1, 1, 1, 1, 4096)),
            src,
            idx,
            coalesce="elem",
            atomic=atomic,
            oob="skip",
            **extra,
        )

    return scatter, (table, src_h, idx_h)


def _pipeline(dev, tiles=32, rows=32, cols=64):
    src = dev.gm_array(np.ones((tiles * rows, cols), np.float32))
    out = dev.gm_zeros((tiles * rows, cols), "float32")
    bufs = [pto.Tile("Vec", "float32", rows, cols) for _ in range(2)]

    @pto.kernel
    def pipeline(src, out):
        for b in range(2):  # prime the reverse (buffer free) events
            pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, b)
        for i in range(tiles):
            b = i % 2
            pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, b)
            pto.TLOAD(bufs[b], pto.GlobalTensor(src, (rows, cols), offset=i * rows * cols))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, b)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, b)
            pto.TSTORE(pto.GlobalTensor(out, (rows, cols), offset=i * rows * cols), bufs[b])
            pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, b)
        for b in range(2):  # drain them
            pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, b)

    return pipeline, (src, out)


def _example(target: str):
    """A kernel of examples/ (``FILE.py:kernel``) with the inputs its file builds."""

    def build(dev):
        spec = load(str(EXAMPLES / target))
        args, kwargs = spec.build_inputs(dev)
        assert not kwargs and not spec.run_options()  # dev.run(kernel, *args) below
        return spec.kernel, args

    return build


CASES = {
    "MGATHER Row 64x256 fp32": lambda dev: _gather(dev, "row"),
    "MGATHER Elem 64x256 fp32": lambda dev: _gather(dev, "elem"),
    "MSCATTER Elem Add 64x64 fp32": _scatter_add,
    "TLOAD/TSTORE pipeline, 32 tiles": _pipeline,
    "softmax 16x64 fp32 (example)": _example("softmax.py:softmax_16x64"),
    "softmax 8x256 fp32 (example)": _example("softmax.py:softmax_8x256"),
    "layernorm 16x64 fp32 (example)": _example("layernorm.py:layernorm_16x64"),
    "layernorm 8x256 fp32 (example)": _example("layernorm.py:layernorm_8x256"),
}
A5_CASES = {  # ScatterConflict exists on the 950 only
    "MSCATTER Elem Last 64x64 fp32": lambda dev: _scatter_add(dev, atomic="none", conflict="last"),
}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default="a2")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"device {args.device}")
    print(f"{'case':<34} {'cycles':>10} {'steps':>8} {'wall s':>8} {'steps/s':>10}")
    cases = dict(CASES)
    if pto.Device(args.device).target == "a5":
        cases.update(A5_CASES)
    for name, build in cases.items():
        best, run = float("inf"), None
        for _ in range(args.repeat):
            dev = pto.Device(args.device)
            kernel, kargs = build(dev)
            t0 = time.perf_counter()
            run = dev.run(kernel, *kargs)
            best = min(best, time.perf_counter() - t0)
        steps = (
            len(run.trace.events)
            if run.trace is not None
            else sum(len(b.program) for b in run.blocks)
        )
        print(
            f"{name:<34} {run.cycles if run.cycles is not None else '-':>10} {steps:>8} "
            f"{best:8.3f} {steps / best:10.0f}"
        )


if __name__ == "__main__":
    main()
