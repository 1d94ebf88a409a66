"""Run the library's A2/A3 GEMM kernel unchanged on 24 a3 AI cores at m = k = n = 1536 and
check the result exactly (benchmarks/cxx/gemm_performance_1536.cpp instantiates it).

    python benchmarks/bench_gemm.py [--pto-isa DIR] [--device a3] [--trace out.json]

Needs the reference library (for the kernel file); prints the wall time of the simulation, the
simulated time and the summary with the per-pipe busy ratios. The expected C follows the NPU
rule of decision D18, computed here with numpy: the kernel issues one mad per 64-wide K slice
(TMATMUL, then TMATMUL_ACC in place), each adds the float64 product of its half inputs to the
float32 accumulator and rounds once to float32.
"""

from __future__ import annotations

import os

# one BLAS thread: the simulation issues thousands of small float64 products (one per mad);
# BLAS threads contending for a shared 2-core machine made them 4x slower (measured: 110 s
# against 27 s wall at load average 14). Set before numpy loads the library.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import ptosim as pto  # noqa: E402

HERE = Path(__file__).resolve().parent
KERNEL_DIR = "kernels/manual/a2a3/gemm_performance"
M = K = N = 1536
BASE_K = 64  # the kernel's K slice per mad
# the public hardware figure for this kernel and shape: 0.0388 ms wall time on an Ascend A3
# (24 cores, fp16 in, fp32 out), in the reference library's performance figure
# (docs/figures/performance/gemm_performance_a3.svg, "Measured Performance (Reference)")
PUBLIC_A3_US = 38.8


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pto-isa", default="/work/shared/pto-isa", help="the reference library")
    ap.add_argument("--device", default="a3")
    ap.add_argument("--trace", default=None, help="write a Chrome trace here")
    args = ap.parse_args(argv)
    kdir = Path(args.pto_isa) / KERNEL_DIR
    if not (kdir / "gemm_performance_kernel.cpp").exists():
        print(f"bench_gemm: {kdir} not found (the reference library is needed)", file=sys.stderr)
        return 2
    rng = np.random.default_rng(1536)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    dev = pto.Device(args.device)
    prog = pto.cxx.load(HERE / "cxx" / "gemm_performance_1536.cpp", include_dirs=[kdir],
                        cores="cube")  # fmt: skip
    out = dev.gm_zeros((M, N), "float32")
    # B is read as a DN matrix: each column of B contiguous, i.e. B^T stored row by row
    src0, src1 = dev.gm_array(a), dev.gm_array(np.ascontiguousarray(b.T))
    t0 = time.perf_counter()
    run = dev.run(prog.entry("GemmPerformance1536"), out, src0, src1, block_dim=24)
    wall = time.perf_counter() - t0
    want = np.zeros((M, N), np.float32)
    for k0 in range(0, K, BASE_K):
        part = a[:, k0 : k0 + BASE_K].astype(np.float64) @ b[k0 : k0 + BASE_K].astype(np.float64)
        want = (want.astype(np.float64) + part).astype(np.float32)
    exact = bool(np.array_equal(out.numpy(), want))
    if args.trace:
        run.write_trace(args.trace)
    print(run.summary())
    print(f"bench_gemm: {M}x{K}x{N} on 24 {args.device} AI cores: simulated in {wall:.1f} s "
          f"wall, result {'exact' if exact else 'WRONG'}")  # fmt: skip
    sim_us = run.cycles / dev.config.timing.clock_ghz / 1e3
    print(f"simulated time {sim_us:.1f} us (the model's estimate: see the summary's timing basis)"
          f" against {PUBLIC_A3_US} us public hardware wall time on an A3 (24 cores): "
          f"ratio {sim_us / PUBLIC_A3_US:.2f}")  # fmt: skip
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
