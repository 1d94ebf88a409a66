// Double-buffered row scaling over many tiles: out[t] = x[t] * s[t][:, None].
// C++ twin of examples/pingpong_row_scale.py: the same instructions in the same order, on the
// same UB addresses (the ones ptosim's allocator gives the Python twin), so the results are
// bit-identical and the schedules the same.
//
// A (TILES*16) x 64 float32 activation is scaled row by row with TROWEXPANDMUL, 16 rows per tile,
// in the vendor's ping-pong pattern: two input and two output buffers, two event ids
// (b = t % 2), so the load of tile t+1 (MTE2), the multiply of tile t (V) and the store of tile
// t-1 (MTE3) overlap. The "buffer free" events (V -> MTE2, MTE3 -> V) are primed before the loop
// and drained after it. `single_buffer` does the same work with one buffer of each kind and a
// full barrier per tile: exact too, and slower on the timed devices.
//
//   ptosim run examples/cxx/pingpong_row_scale.cpp --entry pingpong_row_scale --device a2
//       --arg x=x.bin --arg scales=scales.bin --arg out=128x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int TILES = 8;
constexpr int ROWS = 16;
constexpr int COLS = 64;
using XTile = Tile<TileType::Vec, float, ROWS, COLS>;
using ScaleTile = Tile<TileType::Vec, float, ROWS, 1, BLayout::ColMajor>;  // one scale per row
using XGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<ROWS * COLS, ROWS * COLS, ROWS * COLS, COLS, 1>>;
// the scales of a tile: a column of 16 consecutive floats, read through a DN view
using ScaleGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, 1>, Stride<ROWS, ROWS, ROWS, 1, ROWS>, Layout::DN>;
} // namespace

extern "C" __global__ AICORE void pingpong_row_scale(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    XTile xs[2], ys[2];
    ScaleTile ss[2];
    TASSIGN(xs[0], 0x0000);
    TASSIGN(ss[0], 0x1000);
    TASSIGN(ys[0], 0x1040);
    TASSIGN(xs[1], 0x2040);
    TASSIGN(ss[1], 0x3040);
    TASSIGN(ys[1], 0x3080);
    const event_t events[2] = {EVENT_ID0, EVENT_ID1};
    for (int b = 0; b < 2; ++b) {  // prime: both input and both output buffers start free
        set_flag(PIPE_V, PIPE_MTE2, events[b]);
        set_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
    for (int t = 0; t < TILES; ++t) {
        const int b = t % 2;
        const event_t ev = events[b];
        XGm xGm(x + t * ROWS * COLS);
        ScaleGm sGm(scales + t * ROWS);
        XGm yGm(out + t * ROWS * COLS);
        wait_flag(PIPE_V, PIPE_MTE2, ev);  // input buffer b is free
        TLOAD(xs[b], xGm);
        TLOAD(ss[b], sGm);
        set_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE2, PIPE_V, ev);  // input buffer b has landed
        wait_flag(PIPE_MTE3, PIPE_V, ev);  // output buffer b is free
        TROWEXPANDMUL(ys[b], xs[b], ss[b]);
        set_flag(PIPE_V, PIPE_MTE2, ev);  // input buffer b may be overwritten
        set_flag(PIPE_V, PIPE_MTE3, ev);
        wait_flag(PIPE_V, PIPE_MTE3, ev);  // output buffer b is ready
        TSTORE(yGm, ys[b]);
        set_flag(PIPE_MTE3, PIPE_V, ev);  // output buffer b may be overwritten
    }
    for (int b = 0; b < 2; ++b) {  // drain the primed events
        wait_flag(PIPE_V, PIPE_MTE2, events[b]);
        wait_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
}

extern "C" __global__ AICORE void single_buffer(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    XTile xt, yt;
    ScaleTile st;
    TASSIGN(xt, 0x0000);
    TASSIGN(st, 0x1000);
    TASSIGN(yt, 0x1040);
    for (int t = 0; t < TILES; ++t) {
        XGm xGm(x + t * ROWS * COLS);
        ScaleGm sGm(scales + t * ROWS);
        XGm yGm(out + t * ROWS * COLS);
        TLOAD(xt, xGm);
        TLOAD(st, sGm);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TROWEXPANDMUL(yt, xt, st);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(yGm, yt);
        pipe_barrier(PIPE_ALL);  // the next load overwrites x, s and y only after this
    }
}
