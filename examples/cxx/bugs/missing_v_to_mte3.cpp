// Bug gallery, C++ form of examples/bugs/missing_v_to_mte3.py (same kernel, same bug).
//
// BUG: TSTORE copies a tile to GM while the vector unit is still writing it: there is no
// V -> MTE3 handshake between TROWEXPANDMAX (PIPE_V) and the TSTORE (PIPE_MTE3) of its result.
// The load is ordered; the store is not, so GM may receive the UB contents from before the op.
//
// The kernel is the ReLU of missing_mte2_to_v.cpp, y = max(x, 0).
//
// Finding (a2 and 950pr, and the cpu reference):
//   [F203 race-raw] RAW race on UB[0x1000, 0x2000): TROWEXPANDMAX writes it on PIPE_V and
//   TSTORE reads it on PIPE_MTE3, and nothing orders them; fix: set_flag(PIPE_V, PIPE_MTE3,
//   EVENT_ID0) after TROWEXPANDMAX and wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0) before TSTORE
// `fixed` adds the pair: exact, no finding.
//
//   ptosim run examples/cxx/bugs/missing_v_to_mte3.cpp --entry buggy --device a2
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
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWEXPANDMAX(yt, xt, zero);
    // BUG: no set_flag/wait_flag(PIPE_V, PIPE_MTE3) here
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
