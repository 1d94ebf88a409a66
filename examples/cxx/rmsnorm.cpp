// RMSNorm over the last axis: out = x * rsqrt(mean_j(x[i, j]^2) + eps) * gamma.
// C++ twin of examples/rmsnorm.py (same instructions, same order, same UB addresses), in float32
// (rmsnorm_f32) and half (rmsnorm_f16) from one kernel template.
//
//   TMUL(sq, x, x); TROWSUM(rstd, sq, tmp)            rstd: a [16, 1] ColMajor column
//   on rstd_row, a [1, 16] RowMajor TRESHAPE view of the same bytes (the scalar ops want RowMajor):
//   TMULS(1/128); TADDS(eps); TRSQRT
//   TROWEXPANDMUL(sq, x, rstd); TCOLEXPANDMUL(sq, sq, gamma)   gamma: a [1, 128] row
// with a pipe_barrier(PIPE_V) between every dependent pair.
//
//   ptosim run examples/cxx/rmsnorm.cpp --entry rmsnorm_f16 --device 950pr
//       --arg x=x.bin --arg gamma=gamma.bin --arg out=16x128:float16
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int ROWS = 16;
constexpr int COLS = 128;
constexpr float EPS = 1.0f / 65536.0f;  // 2^-16: exact in half (a subnormal) and in float32

constexpr int align32(int bytes) { return (bytes + 31) / 32 * 32; }

template <typename T>
AICORE inline void rmsnorm_kernel(__gm__ T *x, __gm__ T *gamma, __gm__ T *out)
{
    using DataTile = Tile<TileType::Vec, T, ROWS, COLS>;
    using RowTile = Tile<TileType::Vec, T, 1, COLS>;
    using ColTile = Tile<TileType::Vec, T, ROWS, 1, BLayout::ColMajor>;
    using ColAsRow = Tile<TileType::Vec, T, 1, ROWS>;
    using DataGm = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<ROWS * COLS, ROWS * COLS, ROWS * COLS, COLS, 1>>;
    using RowGm = GlobalTensor<T, Shape<1, 1, 1, 1, COLS>, Stride<COLS, COLS, COLS, COLS, 1>>;
    constexpr int tileBytes = ROWS * COLS * sizeof(T);
    constexpr int colBytes = align32(ROWS * sizeof(T));
    constexpr int rowBytes = COLS * sizeof(T);

    DataTile xt, sq, tmp;  // sq: x squared, later the result; tmp: row-reduction scratch (a2a3)
    RowTile g;
    ColTile rstd;
    ColAsRow rstdRow;
    TASSIGN(rstd, 0);
    TASSIGN(xt, colBytes);
    TASSIGN(g, colBytes + tileBytes);
    TASSIGN(sq, colBytes + tileBytes + rowBytes);
    TASSIGN(tmp, colBytes + 2 * tileBytes + rowBytes);
    TRESHAPE(rstdRow, rstd);  // an alias of rstd's bytes, no data moves
    DataGm xGm(x), outGm(out);
    RowGm gGm(gamma);

    TLOAD(xt, xGm);
    TLOAD(g, gGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMUL(sq, xt, xt);
    pipe_barrier(PIPE_V);
    TROWSUM(rstd, sq, tmp);
    pipe_barrier(PIPE_V);
    TMULS(rstdRow, rstdRow, (T)(1.0f / COLS));
    pipe_barrier(PIPE_V);
    TADDS(rstdRow, rstdRow, (T)EPS);
    pipe_barrier(PIPE_V);
    TRSQRT(rstdRow, rstdRow);
    pipe_barrier(PIPE_V);
    TROWEXPANDMUL(sq, xt, rstd);
    pipe_barrier(PIPE_V);
    TCOLEXPANDMUL(sq, sq, g);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, sq);
}
} // namespace

extern "C" __global__ AICORE void rmsnorm_f32(__gm__ float *x, __gm__ float *gamma, __gm__ float *out)
{
    rmsnorm_kernel<float>(x, gamma, out);
}

extern "C" __global__ AICORE void rmsnorm_f16(__gm__ half *x, __gm__ half *gamma, __gm__ half *out)
{
    rmsnorm_kernel<half>(x, gamma, out);
}
