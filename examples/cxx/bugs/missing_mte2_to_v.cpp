// Bug gallery, C++ form of examples/bugs/missing_mte2_to_v.py (same kernel, same bug).
//
// BUG: a vector op reads a tile that TLOAD is still writing: there is no MTE2 -> V handshake
// between the TLOAD of x and the TROWEXPANDMAX that reads it. PIPE_MTE2 and PIPE_V run
// concurrently, so the vector unit may compute on whatever UB held before the DMA landed.
//
// The kernel is a ReLU, y = max(x, 0): TEXPANDS fills a [16, 1] ColMajor column with 0 and
// TROWEXPANDMAX (mode 1) takes the row-wise maximum.
//
// Finding (a2 and 950pr, and the cpu reference, which sees it from the program's structure):
//   [F203 race-raw] RAW race on UB[0x0, 0x1000): TLOAD writes it on PIPE_MTE2 and
//   TROWEXPANDMAX reads it on PIPE_V, and nothing orders them; fix: set_flag(PIPE_MTE2, PIPE_V,
//   EVENT_ID0) after TLOAD and wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) before TROWEXPANDMAX
// `fixed` is the same kernel with the handshake: exact, no finding.
//
//   ptosim run examples/cxx/bugs/missing_mte2_to_v.cpp --entry buggy --device a2
//       --arg x=x.bin --arg out=16x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int R = 16;
constexpr int C = 64;
using XTile = Tile<TileType::Vec, float, R, C>;
using ColTile = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;
using XGm = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ float *x, __gm__ float *out)
{
    XTile xt, yt;
    ColTile zero;
    XGm xGm(x), yGm(out);
    TASSIGN(xt, 0x0000);
    TASSIGN(yt, 0x1000);
    TASSIGN(zero, 0x2000);
    TEXPANDS(zero, 0.0f);
    pipe_barrier(PIPE_V);  // the TROWEXPANDMAX below reads zero
    TLOAD(xt, xGm);
    // BUG: no set_flag/wait_flag(PIPE_MTE2, PIPE_V) here
    TROWEXPANDMAX(yt, xt, zero);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(yGm, yt);
}

extern "C" __global__ AICORE void fixed(__gm__ float *x, __gm__ float *out)
{
    XTile xt, yt;
    ColTile zero;
    XGm xGm(x), yGm(out);
    TASSIGN(xt, 0x0000);
    TASSIGN(yt, 0x1000);
    TASSIGN(zero, 0x2000);
    TEXPANDS(zero, 0.0f);
    pipe_barrier(PIPE_V);  // the TROWEXPANDMAX below reads zero
    TLOAD(xt, xGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWEXPANDMAX(yt, xt, zero);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(yGm, yt);
}
