// A GEMM with a fused epilogue: out = relu(A @ B + bias), the product on the cube core and the
// epilogue on the two vector cores of each AI core. C++ twin of examples/gemm_bias_relu.py (same
// instructions per core, same L1 / L0 / UB addresses). One source, two halves: built with
// __DAV_CUBE__ for the cube core and __DAV_VEC__ for the vector cores (--cores mix); 2 AI cores,
// each owns 32 rows. The cube half stores C to the GM scratch `c` through the fixpipe and posts
// flag 3 in mode 2 (config 1 | 2 << 4 | 3 << 8: one post counts on both vector cores' flags);
// each vector core waits on its own copy, loads its 16 rows of C and the bias, TCOLEXPANDADD,
// TRELU, and stores its rows of `out`.
//
//   ptosim run examples/cxx/gemm_bias_relu.cpp --entry gemm_bias_relu --cores mix --block-dim 2
//       --device a2 --arg a=a.bin --arg b=b.bin --arg bias=bias.bin --arg c=c.bin --arg out=out.bin
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 64, K = 64, N = 64;
constexpr int ROWS = 32;  // rows of the output per AI core
constexpr int HALF = 16;  // rows per vector core
constexpr uint64_t kCubeToVec = 1 | (2 << 4) | (3 << 8);  // mode 2, flag 3
using AMat = Tile<TileType::Mat, half, ROWS, K, BLayout::ColMajor, ROWS, K, SLayout::RowMajor>;
using BMat = Tile<TileType::Mat, half, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor>;
using AGm = GlobalTensor<half, Shape<1, 1, 1, ROWS, K>, Stride<ROWS * K, ROWS * K, ROWS * K, K, 1>>;
using BGm = GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
using CGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, N>, Stride<ROWS * N, ROWS * N, ROWS * N, N, 1>>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, HALF, N>, Stride<HALF * N, HALF * N, HALF * N, N, 1>>;
using BiasGm = GlobalTensor<float, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;
} // namespace

extern "C" __global__ AICORE void gemm_bias_relu(__gm__ half *a, __gm__ half *b, __gm__ float *bias,
                                                 __gm__ float *c, __gm__ float *out)
{
    const int row0 = get_block_idx() * ROWS;
#if defined(__DAV_CUBE__)
    {
    AMat aMat;
    BMat bMat;
    TileLeft<half, ROWS, K> left;
    TileRight<half, K, N> right;
    TileAcc<float, ROWS, N> acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x4000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(acc, 0x0);
    AGm aGm(a + row0 * K);
    BGm bGm(b);
    CGm cGm(c + row0 * N);
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
    // C is in GM once the fixpipe store has drained: tell both vector cores
    ffts_cross_core_sync(PIPE_FIX, kCubeToVec);
    }
#endif
#if defined(__DAV_VEC__)
    {
    const int r = row0 + get_subblockid() * HALF;
    Tile<TileType::Vec, float, HALF, N> ct;
    Tile<TileType::Vec, float, 1, N> bt;
    TASSIGN(ct, 0x0);
    TASSIGN(bt, 0x2000);
    RowsGm cGm(c + r * N);
    BiasGm biasGm(bias);
    RowsGm outGm(out + r * N);
    wait_flag_dev(3);  // this vector core's copy of the cube's post
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
}
