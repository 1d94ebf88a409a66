// Bug gallery, C++ form of examples/bugs/wait_without_set.py (same kernel, same bug).
//
// BUG: a wait_flag that no set_flag ever posts. The author wrote the consumer half of the
// MTE2 -> V handshake, wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0), and forgot the producer half
// after the TLOAD. On hardware PIPE_V waits forever and everything queued behind it too.
//
// Not a finding: the run stops with pto.DeadlockError, code PTO400 ("deadlock at cycle N: core 0
// PIPE_V blocked in wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) of WAIT_FLAG ...: no set_flag(PIPE_MTE2,
// PIPE_V, EVENT_ID0) is pending ..."), also naming PIPE_MTE3, stuck behind it on the V -> MTE3
// event; `ptosim run` exits 2. Same on a2 and 950pr. `fixed` adds the set: exact, no finding.
//
//   ptosim run examples/cxx/bugs/wait_without_set.cpp --entry buggy --device a2
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
    // BUG: the set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) that should post this event is missing
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
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
