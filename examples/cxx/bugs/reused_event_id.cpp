// Bug gallery, C++ form of examples/bugs/reused_event_id.py (same kernel, same bug).
//
// BUG: one event id for two loads that the vector unit consumes in the other order. Events
// count: the n-th wait_flag of an event consumes its n-th post. The first wait, meant for the
// floors, consumes the post of the first load (x), so TROWEXPAND reads the floors while the
// second DMA may still be writing them. (Reusing an id is not wrong by itself: a ping-pong loop
// whose waits come in the order of its sets is paired correctly, see pingpong_row_scale.cpp.)
//
// The kernel clamps x from below by per-row floors (mode 2): TROWEXPAND broadcasts each floor
// over a [16, 8] block, TROWEXPANDMAX takes the maximum.
//
// Finding (a2 and 950pr, and the cpu reference, whatever the simulated timing):
//   [F203 race-raw] RAW race on UB[0x1000, 0x1040): TLOAD writes it on PIPE_MTE2 and
//   TROWEXPAND reads it on PIPE_V, and nothing orders them; fix: move the wait for EVENT_ID0,
//   wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) at WAIT_FLAG ..., before TROWEXPAND: it consumes the
//   post of SET_FLAG ... after TLOAD, but only after TROWEXPAND has run
// `fixed` uses one id per load (EVENT_ID0 for x, EVENT_ID1 for the floors): exact, no finding.
//
//   ptosim run examples/cxx/bugs/reused_event_id.cpp --entry buggy --device a2
//       --arg x=x.bin --arg floors=floors.bin --arg out=16x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int R = 16;
constexpr int C = 64;
constexpr int BLOCK = 8;  // float32 elements per 32-byte block
using XTile = Tile<TileType::Vec, float, R, C>;
using FloorTile = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;
using BlockTile = Tile<TileType::Vec, float, R, BLOCK>;
using XGm = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
using FloorGm = GlobalTensor<float, Shape<1, 1, 1, R, 1>, Stride<R, R, R, 1, R>, Layout::DN>;

struct Tiles {
    XTile xt, yt;
    FloorTile fl;
    BlockTile blk;
    Tiles()
    {
        TASSIGN(xt, 0x0000);
        TASSIGN(fl, 0x1000);
        TASSIGN(blk, 0x2000);
        TASSIGN(yt, 0x3000);
    }
};
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ float *x, __gm__ float *floors, __gm__ float *out)
{
    Tiles t;
    XGm xGm(x), yGm(out);
    FloorGm fGm(floors);
    TLOAD(t.xt, xGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // x is ready
    TLOAD(t.fl, fGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);   // BUG: the floors are ready, on the same id
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // meant for the floors: consumes the post of x
    TROWEXPAND(t.blk, t.fl);
    pipe_barrier(PIPE_V);  // the TROWEXPANDMAX below reads blk
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWEXPANDMAX(t.yt, t.xt, t.blk);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(yGm, t.yt);
}

extern "C" __global__ AICORE void fixed(__gm__ float *x, __gm__ float *floors, __gm__ float *out)
{
    Tiles t;
    XGm xGm(x), yGm(out);
    FloorGm fGm(floors);
    TLOAD(t.xt, xGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // x is ready
    TLOAD(t.fl, fGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);  // the floors are ready
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
    TROWEXPAND(t.blk, t.fl);
    pipe_barrier(PIPE_V);  // the TROWEXPANDMAX below reads blk
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWEXPANDMAX(t.yt, t.xt, t.blk);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(yGm, t.yt);
}
