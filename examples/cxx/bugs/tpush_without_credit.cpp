// Bug gallery (C++ twin of examples/bugs/tpush_without_credit.py). A mixed kernel: load it with
// cores="mix" (`ptosim run ... --cores mix`).
//
// BUG: a TPUSH that never gets a free slot. The cube core pushes four 16 x 32 tiles (A_t @ I)
// through a 2-slot TPipe in GM; each vector core pops its 8-row half with the GlobalTensor form
// TPOP(pipe, slot), loads it and stores it, but never calls TFREE(pipe, slot), so no free credit
// returns to the cube: its push of tile 2 waits forever, and the vector cores wait for tile 2.
//
// DeadlockError (PTO400) on a2 and cpu; its F209 finding on the cube names both sides and the fix:
//   TPUSH of tile 2 on TPipe(flag 0, DIR_C2V, 2 slots of 2048 B) waits for a free slot ..., but
//   block 0 AIV0 popped 2 tile(s) with TPOP(pipe, gm) and freed 0 time(s) (1 due): a
//   GlobalTensor TPOP does not free its slot; fix: call TFREE(pipe, gm) on block 0 AIV0 after
//   its loads from the slot of TPOP (tpush_without_credit.cpp:LINE)
// `fixed` calls TFREE after the load: exact, no finding.
//
//   ptosim run examples/cxx/bugs/tpush_without_credit.cpp --entry buggy --cores mix --device a2
//       --arg a=a.bin --arg eye=eye.bin --arg out=64x32:float32 --arg fifo=1024:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int TILES = 4;
constexpr int M = 16;  // rows per tile
constexpr int N = 32;
constexpr int HALF = M / 2;  // rows per vector core (TILE_UP_DOWN)
using Pipe = TPipe<0, Direction::DIR_C2V, M * N * sizeof(float), 2>;
using MatA = Tile<TileType::Mat, half, M, N, BLayout::ColMajor, M, N, SLayout::RowMajor>;
using MatI = Tile<TileType::Mat, half, N, N, BLayout::ColMajor, N, N, SLayout::RowMajor>;
using VecT = Tile<TileType::Vec, float, HALF, N>;
using AGm = GlobalTensor<half, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
using IGm = GlobalTensor<half, Shape<1, 1, 1, N, N>, Stride<N * N, N * N, N * N, N, 1>>;
using HalfGm = GlobalTensor<float, Shape<1, 1, 1, HALF, N>, Stride<HALF * N, HALF * N, HALF * N, N, 1>>;

// Tile t = A_t @ I on the cube, pushed to the vector cores.
AICORE inline void cube(Pipe &pipe, __gm__ half *a, __gm__ half *eye)
{
    MatA am;
    MatI im;
    TileLeft<half, M, N> left;
    TileRight<half, N, N> right;
    TileAcc<float, M, N> acc;
    TASSIGN(am, 0x0);
    TASSIGN(im, 0x10000);
    IGm iGm(eye);
    TLOAD(im, iGm);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(right, im);
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    for (int t = 0; t < TILES; ++t) {
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        AGm aGm(a + t * M * N);
        TLOAD(am, aGm);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
        TMOV(left, am);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        TMATMUL(acc, left, right);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        TPUSH<Pipe, TileAcc<float, M, N>, TILE_UP_DOWN>(pipe, acc);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    }
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
}

// Each vector core pops its 8-row half of every tile (GlobalTensor form) and stores it.
AICORE inline void vector(Pipe &pipe, __gm__ float *out, __gm__ float *fifo, bool free)
{
    const int sub = get_subblockid();
    VecT v;
    TASSIGN(v, 0x0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    for (int t = 0; t < TILES; ++t) {
        HalfGm slot(fifo);
        TPOP<Pipe, HalfGm, TILE_UP_DOWN>(pipe, slot);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        TLOAD(v, slot);
        if (free) {
            TFREE<Pipe, HalfGm, TILE_UP_DOWN>(pipe, slot);
        }
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        HalfGm o(out + (t * M + sub * HALF) * N);
        TSTORE(o, v);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
}
} // namespace

extern "C" __global__ AICORE void buggy(__gm__ half *a, __gm__ half *eye, __gm__ float *out, __gm__ float *fifo)
{
    Pipe pipe(fifo, 0x0, 0x0);
#if defined(__DAV_CUBE__)
    cube(pipe, a, eye);
#else
    vector(pipe, out, fifo, false);  // BUG: no TFREE after the TPOP's load
#endif
}

extern "C" __global__ AICORE void fixed(__gm__ half *a, __gm__ half *eye, __gm__ float *out, __gm__ float *fifo)
{
    Pipe pipe(fifo, 0x0, 0x0);
#if defined(__DAV_CUBE__)
    cube(pipe, a, eye);
#else
    vector(pipe, out, fifo, true);
#endif
}
