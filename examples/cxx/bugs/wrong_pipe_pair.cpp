// Bug gallery, C++ form of examples/bugs/wrong_pipe_pair.py (same kernel, same bug).
//
// BUG: a handshake on the wrong pipe pair. The author copied the handshake of a plain copy
// kernel (TLOAD; MTE2 -> MTE3; TSTORE) and put a vector op in between. The pair is consistent
// with itself (every set is waited: no F201, no deadlock), but it makes PIPE_MTE3 wait for the
// load, and PIPE_MTE3 is not the pipe that reads the tile: TROWEXPANDMAX on PIPE_V still races
// with the DMA. An event is the whole (src pipe, dst pipe, id) triple.
//
// Finding (a2 and 950pr, and the cpu reference):
//   [F203 race-raw] RAW race on UB[0x0, 0x1000): TLOAD writes it on PIPE_MTE2 and
//   TROWEXPANDMAX reads it on PIPE_V, and nothing orders them; fix: set_flag(PIPE_MTE2, PIPE_V,
//   EVENT_ID0) after TLOAD and wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) before TROWEXPANDMAX
// `fixed` names the pipes of the real dependency, MTE2 -> V: exact, no finding.
//
//   ptosim run examples/cxx/bugs/wrong_pipe_pair.cpp --entry buggy --device a2
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
    // BUG: the pair of a copy kernel; the tile is read by PIPE_V, not PIPE_MTE3
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
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
