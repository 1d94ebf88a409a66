"""Run the library's common flash-attention kernel unchanged on one a2 AI core at a small shape
(benchmarks/cxx/flash_attention_small.cpp instantiates it: 64 query rows, head 64, 512 keys).

    python benchmarks/bench_flash_attention.py [--pto-isa DIR] [--device a2]

Needs the reference library (for the kernel file); prints the wall time of the simulation, the
simulated time, the findings, whether the output is bit for bit the one numpy derives in the
kernel's own order and rounding (tests/helpers/fa_expected.py: "exact", else the largest
difference and how many elements differ) and how far it is from softmax(Q K^T / sqrt(64)) V
computed in float64. Measured here: exact, 11456 cycles, 2.2e-5 from the float64 value, about
2 s wall with the two builds cached, 22 s without. Findings: F207 between dependent vector
instructions of the softmax and update macros, which issue no pipe_barrier(PIPE_V) there (the
A2/A3 rule ptosim follows; the library's own lowerings put the barrier between dependent
vector steps).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see benchmarks/bench_gemm.py

import argparse  # noqa: E402
import collections  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the source tree's ptosim and tests.helpers

import ptosim as pto  # noqa: E402
from tests.helpers.fa_expected import expected_output  # noqa: E402

KERNEL_DIR = "kernels/manual/common/flash_atten"
S0, HEAD, S1 = 64, 64, 512
FIFO = 8  # kFaCvFifoSize
TILE_S1 = 256


def reference(q, k, v) -> np.ndarray:
    """softmax(Q K^T / sqrt(HEAD)) V in float64."""
    s = q.astype(np.float64) @ k.astype(np.float64).T / np.sqrt(HEAD)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pto-isa", default="/work/shared/pto-isa", help="the reference library")
    ap.add_argument("--device", default="a2")
    args = ap.parse_args(argv)
    kdir = Path(args.pto_isa) / KERNEL_DIR
    if not (kdir / "fa_performance_kernel.cpp").exists():
        print(f"bench_flash_attention: {kdir} not found (the reference library is needed)",
              file=sys.stderr)  # fmt: skip
        return 2
    rng = np.random.default_rng(64)
    q, k, v = (rng.uniform(-1, 1, shape).astype(np.float16) for shape in
               ((S0, HEAD), (S1, HEAD), (S1, HEAD)))  # fmt: skip
    dev = pto.Device(args.device)
    prog = pto.cxx.load(HERE / "cxx" / "flash_attention_small.cpp", include_dirs=[kdir],
                        cores="mix")  # fmt: skip
    bufs = {
        "q": dev.gm_array(q), "k": dev.gm_array(k), "v": dev.gm_array(v),
        "p_fifo": dev.gm_zeros((FIFO * S0 * TILE_S1,), "float16"),
        "exp_max_fifo": dev.gm_zeros((FIFO * S0,), "float32"),
        "global_sum": dev.gm_zeros((S0,), "float32"), "exp_max": dev.gm_zeros((S0,), "float32"),
        "o": dev.gm_zeros((S0, HEAD), "float32"), "o_parts": dev.gm_zeros((S0, HEAD), "float32"),
        "qk_fifo": dev.gm_zeros((FIFO * S0 * TILE_S1,), "float32"),
        "pv_fifo": dev.gm_zeros((FIFO * S0 * HEAD,), "float32"),
    }  # fmt: skip
    t0 = time.perf_counter()
    run = dev.run(prog.entry("FlashAttentionSmall"), **bufs, block_dim=1)
    wall = time.perf_counter() - t0  # the two builds included, unless cached
    out = bufs["o"].numpy()
    err = float(np.abs(out - reference(q, k, v)).max())
    want = expected_output(q, k, v, TILE_S1)
    differ = int(np.count_nonzero(out.view(np.uint32) != want.view(np.uint32)))
    exact = (
        "exact"
        if differ == 0
        else (f"NOT exact: {differ} elements differ, max {float(np.abs(out - want).max()):.2e}")
    )
    kinds = collections.Counter(f"{f.code} {f.kind}" for f in run.findings)
    print(run.summary())
    print(f"bench_flash_attention: S0 {S0}, head {HEAD}, S1 {S1} on 1 {args.device} AI core: "
          f"simulated in {wall:.1f} s wall, {run.cycles} cycles (model estimate), output "
          f"{exact} (kernel-order numpy), max |O - float64 reference| {err:.2e}, "
          f"findings {dict(kinds)}")  # fmt: skip
    return 0 if differ == 0 and err < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
