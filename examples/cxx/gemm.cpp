// A GEMM on the cube cores: C = A @ B for A [64 x 128] and B [128 x 64] in half, C in float.
// C++ twin of examples/gemm.py (same instructions per AI core, same L1 / L0 addresses).
// Launch it on 4 AI cores (--cores cube --block-dim 4): core b computes rows [16 b, 16 b + 16)
// of C: TLOAD (GM -> L1, ND -> NZ), TEXTRACT of two 64-wide K slices into L0A / L0B, TMATMUL
// then TMATMUL_ACC into one accumulator, TSTORE through the fixpipe (NZ -> ND).
//
//   ptosim run examples/cxx/gemm.cpp --entry gemm --cores cube --block-dim 4 --device a2
//       --arg a=a.bin --arg b=b.bin --arg c=c.bin
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 64, K = 128, N = 64;
constexpr int ROWS = 16;  // rows of C per AI core
constexpr int KS = 64;    // the K slice of one mad
using AMat = Tile<TileType::Mat, half, ROWS, K, BLayout::ColMajor, ROWS, K, SLayout::RowMajor>;
using BMat = Tile<TileType::Mat, half, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor>;
using Left = TileLeft<half, ROWS, KS>;
using Right = TileRight<half, KS, N>;
using Acc = TileAcc<float, ROWS, N>;
using AGm = GlobalTensor<half, Shape<1, 1, 1, ROWS, K>, Stride<ROWS * K, ROWS * K, ROWS * K, K, 1>>;
using BGm = GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
using CGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, N>, Stride<ROWS * N, ROWS * N, ROWS * N, N, 1>>;
} // namespace

extern "C" __global__ AICORE void gemm(__gm__ half *a, __gm__ half *b, __gm__ float *c)
{
    AMat aMat;
    BMat bMat;
    Left left[2];
    Right right[2];
    Acc acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x4000);
    for (int i = 0; i < 2; ++i) {
        TASSIGN(left[i], 0x2000 * i);
        TASSIGN(right[i], 0x2000 * i);
    }
    TASSIGN(acc, 0x0);
    const int row0 = get_block_idx() * ROWS;
    AGm aGm(a + row0 * K);
    BGm bGm(b);
    CGm cGm(c + row0 * N);
    TLOAD(aMat, aGm);
    TLOAD(bMat, bGm);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    for (int i = 0; i < 2; ++i) {
        TEXTRACT(left[i], aMat, 0, i * KS);
        TEXTRACT(right[i], bMat, i * KS, 0);
    }
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left[0], right[0]);
    TMATMUL_ACC(acc, acc, left[1], right[1]);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(cGm, acc);
}
