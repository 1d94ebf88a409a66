// Row softmax: out[i, :] = exp(x[i, :] - max_j x[i, j]) / sum_j exp(x[i, j] - max).
// C++ twin of examples/softmax.py: the same five vector instructions in the same order on the
// same UB addresses (those ptosim's allocator gives the Python twin), so the results are
// bit-identical on every device, including the per-target row-sum order.
//
// One kernel template, two extern "C" entries (the shapes of the Python twin):
//   TROWMAX(m, x, tmp); TROWEXPANDSUB(e, x, m); TEXP(e, e); TROWSUM(s, e, tmp);
//   TROWEXPANDDIV(x, e, s)  (the result reuses x's buffer),
// with a pipe_barrier(PIPE_V) between each dependent pair. m and s are [R, 1] ColMajor columns;
// tmp is the row-reduction scratch the a2a3 lowering needs.
//
//   ptosim run examples/cxx/softmax.cpp --entry softmax_8x256 --device 950pr
//       --arg x=x.bin --arg out=8x256:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int align32(int bytes) { return (bytes + 31) / 32 * 32; }

template <int R, int C>
AICORE inline void softmax_kernel(__gm__ float *x, __gm__ float *out)
{
    using DataTile = Tile<TileType::Vec, float, R, C>;
    using ColTile = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
    constexpr int tileBytes = R * C * sizeof(float);
    constexpr int colBytes = align32(R * sizeof(float));

    DataTile xt, tmp, e;
    ColTile m, s;
    TASSIGN(xt, 0);
    TASSIGN(m, tileBytes);
    TASSIGN(tmp, tileBytes + colBytes);
    TASSIGN(e, 2 * tileBytes + colBytes);
    TASSIGN(s, 3 * tileBytes + colBytes);
    Gm xGm(x), outGm(out);

    TLOAD(xt, xGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWMAX(m, xt, tmp);
    pipe_barrier(PIPE_V);
    TROWEXPANDSUB(e, xt, m);
    pipe_barrier(PIPE_V);
    TEXP(e, e);
    pipe_barrier(PIPE_V);
    TROWSUM(s, e, tmp);
    pipe_barrier(PIPE_V);
    TROWEXPANDDIV(xt, e, s);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, xt);
}
} // namespace

// C = 64: one 256-byte repeat per row (the a2a3 row sum is a single vcadd lane tree)
extern "C" __global__ AICORE void softmax_16x64(__gm__ float *x, __gm__ float *out)
{
    softmax_kernel<16, 64>(x, out);
}

// C = 256: four repeats per row (a2a3 adds the chunks pairwise first, a5 sums one tree per chunk)
extern "C" __global__ AICORE void softmax_8x256(__gm__ float *x, __gm__ float *out)
{
    softmax_kernel<8, 256>(x, out);
}
