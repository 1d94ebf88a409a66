// The library's A2/A3 GEMM kernel (kernels/manual/a2a3/gemm_performance, included unchanged
// through the include path benchmarks/bench_gemm.py gives) instantiated at m = k = n = 1536 on
// 24 AI cores: each core owns a 384 x 256 block of C (4 x 6 blocks), base tiles 128 x 64 x 256
// and L1 panels of 4 K-slices, as the library's 6144 configuration.
#define __COSTMODEL  // leave out the library file's host-side launcher
#include "gemm_performance_kernel.cpp"

extern "C" __global__ AICORE void GemmPerformance1536(__gm__ uint8_t *out, __gm__ uint8_t *src0,
                                                      __gm__ uint8_t *src1)
{
    GemmPerformance<uint16_t, 24, 1536, 1536, 1536, 384, 1536, 256, 128, 64, 256, 1, 4, 4, 1>(out, src0, src1);
}
