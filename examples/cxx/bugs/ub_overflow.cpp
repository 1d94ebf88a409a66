// Bug gallery (C++ only in examples/; Python twin: examples/cxx/py/bugs/ub_overflow.py).
//
// BUG: ping-pong buffers sized for the 950's 248 KiB usable UB overflow the a2's 192 KiB. A double-
// buffered row scaling of a 384 x 64 float32 activation with 192 rows per step: two input and
// two output buffers of 48 KiB fill 192 KiB, and the two [192, 1] scale columns are TASSIGNed
// after them, at 192 KiB and up. On 950pr/950dt `buggy` is exact and finding-free; on a2/a3
// the first TLOAD of a scale tile (a TASSIGN only sets an address) stops the run:
//   [PTO200] TLOAD #12 (ub_overflow.cpp:52) on target a2a3: operand 'tile' violates rule
//   'fits-in-memory': expected address + 768 bytes <= UB size 196608, given 0x30000 + 768 =
//   0x30300 (tile ..., placed by the TASSIGN at ub_overflow.cpp:38; this instruction accesses it)
// (MemoryLayoutError; `ptosim run` exits 2). `fixed` uses 96 rows per step: 97.5 KiB of UB in
// all, on every device. A kernel meant for several chips must fit the smallest UB.
//
//   ptosim run examples/cxx/bugs/ub_overflow.cpp --entry buggy --device a2
//       --arg x=x.bin --arg scales=scales.bin --arg out=384x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int TOTAL_ROWS = 384;
constexpr int COLS = 64;

template <int ROWS>
AICORE inline void scale_rows(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    using XTile = Tile<TileType::Vec, float, ROWS, COLS>;
    using ScaleTile = Tile<TileType::Vec, float, ROWS, 1, BLayout::ColMajor>;
    using XGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<ROWS * COLS, ROWS * COLS, ROWS * COLS, COLS, 1>>;
    using ScaleGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, 1>, Stride<ROWS, ROWS, ROWS, 1, ROWS>, Layout::DN>;
    constexpr int dataBytes = ROWS * COLS * sizeof(float);

    XTile xs[2], ys[2];
    ScaleTile ss[2];
    for (int b = 0; b < 2; ++b) {
        TASSIGN(xs[b], b * dataBytes);
        TASSIGN(ys[b], (2 + b) * dataBytes);
        TASSIGN(ss[b], 4 * dataBytes + b * ROWS * (int)sizeof(float));  // past 192 KiB when ROWS = 192
    }
    const event_t events[2] = {EVENT_ID0, EVENT_ID1};
    for (int b = 0; b < 2; ++b) {
        set_flag(PIPE_V, PIPE_MTE2, events[b]);
        set_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
    for (int t = 0; t < TOTAL_ROWS / ROWS; ++t) {
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
    for (int b = 0; b < 2; ++b) {
        wait_flag(PIPE_V, PIPE_MTE2, events[b]);
        wait_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
}
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    scale_rows<192>(x, scales, out);  // BUG: 4 x 48 KiB buffers + the scales exceed a2's 192 KiB UB
}

extern "C" __global__ AICORE void fixed(__gm__ float *x, __gm__ float *scales, __gm__ float *out)
{
    scale_rows<96>(x, scales, out);
}
