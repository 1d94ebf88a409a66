// Layer normalisation over the last axis: out = (x - mean) * rsqrt(var + eps) * gamma + beta.
// C++ twin of examples/layernorm.py (same instructions, same order, same UB addresses); one
// kernel template, two entries (16 x 64 and 8 x 256, float32).
//
//   TROWSUM(mean, x, tmp); TMULS(mean_row, 1/C)         mean: an [R, 1] ColMajor column
//   TROWEXPANDSUB(xc, x, mean); TMUL(sq, xc, xc); TROWSUM(rstd, sq, tmp)
//   TMULS(rstd_row, 1/C); TADDS(eps); TRSQRT             on [1, R] RowMajor TRESHAPE views
//   TROWEXPANDMUL(sq, xc, rstd); TCOLEXPANDMUL(sq, sq, gamma); TCOLEXPANDADD(sq, sq, beta)
// with a pipe_barrier(PIPE_V) between every dependent pair. The scalar instructions want
// RowMajor tiles and the row reductions/broadcasts the ColMajor column: TRESHAPE views the same
// bytes both ways (an alias, no data moves).
//
//   ptosim run examples/cxx/layernorm.cpp --entry layernorm_8x256 --device a2
//       --arg x=x.bin --arg gamma=gamma.bin --arg beta=beta.bin --arg out=8x256:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr float EPS = 1e-5f;

constexpr int align32(int bytes) { return (bytes + 31) / 32 * 32; }

template <int R, int C>
AICORE inline void layernorm_kernel(__gm__ float *x, __gm__ float *gamma, __gm__ float *beta, __gm__ float *out)
{
    using DataTile = Tile<TileType::Vec, float, R, C>;
    using RowTile = Tile<TileType::Vec, float, 1, C>;
    using ColTile = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;
    using ColAsRow = Tile<TileType::Vec, float, 1, R>;
    using DataGm = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
    using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, C>, Stride<C, C, C, C, 1>>;
    constexpr int tileBytes = R * C * sizeof(float);
    constexpr int colBytes = align32(R * sizeof(float));
    constexpr int rowBytes = C * sizeof(float);

    DataTile xt, xc, sq, tmp;  // sq: (x - mean) squared, later the result; tmp: a2a3 scratch
    RowTile g, b;
    ColTile mean, rstd;
    ColAsRow meanRow, rstdRow;
    TASSIGN(mean, 0);
    TASSIGN(rstd, colBytes);
    TASSIGN(xt, 2 * colBytes);
    TASSIGN(g, 2 * colBytes + tileBytes);
    TASSIGN(b, 2 * colBytes + tileBytes + rowBytes);
    TASSIGN(tmp, 2 * colBytes + tileBytes + 2 * rowBytes);
    TASSIGN(xc, 2 * colBytes + 2 * tileBytes + 2 * rowBytes);
    TASSIGN(sq, 2 * colBytes + 3 * tileBytes + 2 * rowBytes);
    TRESHAPE(meanRow, mean);
    TRESHAPE(rstdRow, rstd);
    DataGm xGm(x), outGm(out);
    RowGm gGm(gamma), bGm(beta);

    TLOAD(xt, xGm);
    TLOAD(g, gGm);
    TLOAD(b, bGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWSUM(mean, xt, tmp);
    pipe_barrier(PIPE_V);
    TMULS(meanRow, meanRow, 1.0f / C);
    pipe_barrier(PIPE_V);
    TROWEXPANDSUB(xc, xt, mean);
    pipe_barrier(PIPE_V);
    TMUL(sq, xc, xc);
    pipe_barrier(PIPE_V);
    TROWSUM(rstd, sq, tmp);
    pipe_barrier(PIPE_V);
    TMULS(rstdRow, rstdRow, 1.0f / C);
    pipe_barrier(PIPE_V);
    TADDS(rstdRow, rstdRow, EPS);
    pipe_barrier(PIPE_V);
    TRSQRT(rstdRow, rstdRow);
    pipe_barrier(PIPE_V);
    TROWEXPANDMUL(sq, xc, rstd);
    pipe_barrier(PIPE_V);
    TCOLEXPANDMUL(sq, sq, g);
    pipe_barrier(PIPE_V);
    TCOLEXPANDADD(sq, sq, b);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, sq);
}
} // namespace

extern "C" __global__ AICORE void layernorm_16x64(__gm__ float *x, __gm__ float *gamma, __gm__ float *beta,
                                                  __gm__ float *out)
{
    layernorm_kernel<16, 64>(x, gamma, beta, out);
}

extern "C" __global__ AICORE void layernorm_8x256(__gm__ float *x, __gm__ float *gamma, __gm__ float *beta,
                                                  __gm__ float *out)
{
    layernorm_kernel<8, 256>(x, gamma, beta, out);
}
