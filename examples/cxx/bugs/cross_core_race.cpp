// Bug gallery (C++ only in examples/; Python twin: examples/cxx/py/bugs/cross_core_race.py).
//
// BUG: every block stores to the same GM rows: the output view ignores get_block_idx(). A ReLU,
// y = max(x, 0), over 64 x 64 float32 on 4 blocks (--block-dim 4): block b loads rows
// [16 b, 16 b + 16) and stores its result to rows [0, 16), so the four cores write the same
// 4 KiB of GM in an order nothing defines, and rows 16..63 are never written.
//
// Finding (a2 and 950pr, and the cpu reference), one per pair of blocks, 6 for 4 blocks:
//   [F205 cross-core-race] core 0 TSTORE (cross_core_race.cpp:LINE) and core 1 TSTORE
//   (cross_core_race.cpp:LINE) both touch GM[...] and one of them writes it (not as a hardware
//   atomic), and no cross-core flag orders them: give each block its own GM slice, or order them
//   with ffts_cross_core_sync / wait_flag_dev (or SyncAll) between the two accesses
// `fixed` offsets the output view by the block's first row: exact, no finding.
//
//   ptosim run examples/cxx/bugs/cross_core_race.cpp --entry buggy --block-dim 4 --device a2
//       --arg x=x.bin --arg out=64x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int R = 16;  // rows per block
constexpr int C = 64;
using XTile = Tile<TileType::Vec, float, R, C>;
using ColTile = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;
using XGm = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;

AICORE inline void relu_rows(__gm__ float *x, __gm__ float *y)
{
    XTile xt, yt;
    ColTile zero;
    TASSIGN(xt, 0x0000);
    TASSIGN(yt, 0x1000);
    TASSIGN(zero, 0x2000);
    XGm xGm(x), yGm(y);
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
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ float *x, __gm__ float *out)
{
    const int first = get_block_idx() * R;
    relu_rows(x + first * C, out);  // BUG: every block stores to rows [0, 16)
}

extern "C" __global__ AICORE void fixed(__gm__ float *x, __gm__ float *out)
{
    const int first = get_block_idx() * R;
    relu_rows(x + first * C, out + first * C);
}
