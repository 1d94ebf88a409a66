// Bug: the vector cores read the cube core's GEMM result from GM with no cross-core flag.
// C++ twin of examples/bugs/missing_cube_to_vec_flag.py (one AI core, --cores mix): the cube
// half computes A @ B and stores it to the GM scratch `c`; each vector core loads its 16 rows,
// adds the bias and applies ReLU. In `buggy` nothing orders a vector core's TLOAD after the
// cube's fixpipe store; ptosim reports it once per vector core (a2):
//
//   [F205 cross-core-race] block 0 AIC TSTORE #13 (missing_cube_to_vec_flag.cpp:...) and block 0
//   AIV0 TLOAD #0 (...) both touch GM[...] and one of them writes it (not as a hardware atomic),
//   and no cross-core flag orders them: fix: ffts_cross_core_sync(PIPE_FIX, ffts_config(2, F)) on
//   block 0 AIC after TSTORE #13, and wait_flag_dev(F) on block 0 AIV0 before TLOAD #0, ...
//
// `fixed` posts flag 3 in mode 2 from PIPE_FIX after the store (one post reaches both vector
// cores) and waits for it with wait_flag_dev(3) on each vector core before its loads.
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 32, K = 64, N = 64, HALF = 16;
constexpr uint64_t kCubeToVec = 1 | (2 << 4) | (3 << 8);  // mode 2, flag 3
using AMat = Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor>;
using BMat = Tile<TileType::Mat, half, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor>;
using AGm = GlobalTensor<half, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>>;
using BGm = GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
using CGm = GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, HALF, N>, Stride<HALF * N, HALF * N, HALF * N, N, 1>>;
using BiasGm = GlobalTensor<float, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;

#if defined(__DAV_CUBE__)
void cube(__gm__ half *a, __gm__ half *b, __gm__ float *c)
{
    AMat aMat;
    BMat bMat;
    TileLeft<half, M, K> left;
    TileRight<half, K, N> right;
    TileAcc<float, M, N> acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x4000);
    AGm aGm(a);
    BGm bGm(b);
    CGm cGm(c);
    TLOAD(aMat, aGm);
    TLOAD(bMat, bGm);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(left, aMat);
    TMOV(right, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(cGm, acc);
}
#endif
#if defined(__DAV_VEC__)
void vec(__gm__ float *c, __gm__ float *bias, __gm__ float *out)
{
    const int r = get_subblockid() * HALF;
    Tile<TileType::Vec, float, HALF, N> ct;
    Tile<TileType::Vec, float, 1, N> bt;
    RowsGm cGm(c + r * N);
    BiasGm biasGm(bias);
    RowsGm outGm(out + r * N);
    TLOAD(ct, cGm);
    TLOAD(bt, biasGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TCOLEXPANDADD(ct, ct, bt);
    pipe_barrier(PIPE_V);
    TRELU(ct, ct);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, ct);
}
#endif
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ half *a, __gm__ half *b, __gm__ float *bias, __gm__ float *c,
                                        __gm__ float *out)
{
#if defined(__DAV_CUBE__)
    cube(a, b, c);
    // BUG: no ffts_cross_core_sync(PIPE_FIX, kCubeToVec) after the store
#endif
#if defined(__DAV_VEC__)
    // BUG: no wait_flag_dev(3) before reading c
    vec(c, bias, out);
#endif
}

extern "C" __global__ AICORE void fixed(__gm__ half *a, __gm__ half *b, __gm__ float *bias, __gm__ float *c,
                                        __gm__ float *out)
{
#if defined(__DAV_CUBE__)
    cube(a, b, c);
    ffts_cross_core_sync(PIPE_FIX, kCubeToVec);
#endif
#if defined(__DAV_VEC__)
    wait_flag_dev(3);
    vec(c, bias, out);
#endif
}
