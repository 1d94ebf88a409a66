// Bug gallery (C++ only in examples/; Python twin: examples/cxx/py/bugs/unconsumed_flag.py).
//
// BUG: a ping-pong loop primes its "buffer free" events and never drains them. The double-
// buffered row scaling of pingpong_row_scale.cpp without the two drain waits after the loop:
// after the last iteration one post of each (pipe pair, id) is left over. The results are
// right, but the kernel ends with events pending, and the next kernel on the core would start
// with stale flags (its first wait would pass too early).
//
// Finding (a2 and 950pr, and the cpu reference), one per leftover post, 4 in all:
//   [F201 flag-unconsumed] core 0: set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0) posted by SET_FLAG
//   (unconsumed_flag.cpp:LINE) was never waited (1 post(s) left); fix: add wait_flag(PIPE_V,
//   PIPE_MTE2, EVENT_ID0) after SET_FLAG (unconsumed_flag.cpp:LINE), the end of the kernel (the
//   drain of a primed event), or drop the set_flag
// `fixed` drains the four events after the loop: exact, no finding.
//
//   ptosim run examples/cxx/bugs/unconsumed_flag.cpp --entry buggy --device a2
//       --arg x=x.bin --arg scales=scales.bin --arg out=64x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int TILES = 4;
constexpr int ROWS = 16;
constexpr int COLS = 64;
using XTile = Tile<TileType::Vec, float, ROWS, COLS>;
using ScaleTile = Tile<TileType::Vec, float, ROWS, 1, BLayout::ColMajor>;
using XGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<ROWS * COLS, ROWS * COLS, ROWS * COLS, COLS, 1>>;
using ScaleGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, 1>, Stride<ROWS, ROWS, ROWS, 1, ROWS>, Layout::DN>;

template <bool kDrain>
AICORE inline void scale_loop(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    XTile xs[2], ys[2];
    ScaleTile ss[2];
    for (int b = 0; b < 2; ++b) {
        TASSIGN(xs[b], 0x0000 + b * 0x2040);
        TASSIGN(ss[b], 0x1000 + b * 0x2040);
        TASSIGN(ys[b], 0x1040 + b * 0x2040);
    }
    const event_t events[2] = {EVENT_ID0, EVENT_ID1};
    for (int b = 0; b < 2; ++b) {  // prime: both input and both output buffers start free
        set_flag(PIPE_V, PIPE_MTE2, events[b]);
        set_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
    for (int t = 0; t < TILES; ++t) {
        const int b = t % 2;
        const event_t ev = events[b];
        XGm xGm(x + t * ROWS * COLS), yGm(out + t * ROWS * COLS);
        ScaleGm sGm(scales + t * ROWS);
        wait_flag(PIPE_V, PIPE_MTE2, ev);
        TLOAD(xs[b], xGm);
        TLOAD(ss[b], sGm);
        set_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE3, PIPE_V, ev);
        TROWEXPANDMUL(ys[b], xs[b], ss[b]);
        set_flag(PIPE_V, PIPE_MTE2, ev);
        set_flag(PIPE_V, PIPE_MTE3, ev);
        wait_flag(PIPE_V, PIPE_MTE3, ev);
        TSTORE(yGm, ys[b]);
        set_flag(PIPE_MTE3, PIPE_V, ev);
    }
    if constexpr (kDrain) {
        for (int b = 0; b < 2; ++b) {
            wait_flag(PIPE_V, PIPE_MTE2, events[b]);
            wait_flag(PIPE_MTE3, PIPE_V, events[b]);
        }
    }
}
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    scale_loop<false>(x, scales, out);  // BUG: the primed events are never drained
}

extern "C" __global__ AICORE void fixed(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    scale_loop<true>(x, scales, out);
}
