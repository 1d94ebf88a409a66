// Bug gallery, C++ form of examples/bugs/missing_v_barrier.py (same kernel, same bug).
//
// BUG: y = x * 0.5 + 1: TMULS writes t on PIPE_V and TADDS reads it, also on PIPE_V, with no
// pipe_barrier(PIPE_V) between them. The vector pipe is pipelined and issues TADDS without
// waiting for TMULS's results to reach UB, so on Atlas A2/A3 TADDS may read stale t.
//
// Finding (a2 and the cpu reference; the 950 has no such rule in the reference, no finding):
//   [F207 vector-raw] TADDS reads UB[0x1000, 0x2000), which TMULS writes, with no
//   pipe_barrier(PIPE_V) between them ...; fix: pipe_barrier(PIPE_V) before TADDS
// `fixed` adds the barrier: exact, no finding.
//
//   ptosim run examples/cxx/bugs/missing_v_barrier.cpp --entry buggy --device a2
//       --arg x=x.bin --arg out=16x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int R = 16;
constexpr int C = 64;
using XTile = Tile<TileType::Vec, float, R, C>;
using XGm = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ float *x, __gm__ float *out)
{
    XTile xt, tt;
    XGm xGm(x), yGm(out);
    TASSIGN(xt, 0x0000);
    TASSIGN(tt, 0x1000);
    TLOAD(xt, xGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(tt, xt, 0.5f);
    // BUG: no pipe_barrier(PIPE_V): TADDS reads t while TMULS may still be writing it
    TADDS(xt, tt, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(yGm, xt);
}

extern "C" __global__ AICORE void fixed(__gm__ float *x, __gm__ float *out)
{
    XTile xt, tt;
    XGm xGm(x), yGm(out);
    TASSIGN(xt, 0x0000);
    TASSIGN(tt, 0x1000);
    TLOAD(xt, xGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(tt, xt, 0.5f);
    pipe_barrier(PIPE_V);
    TADDS(xt, tt, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(yGm, xt);
}
