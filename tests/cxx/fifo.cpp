// TPipe, TPUSH, TPOP, TALLOC, TFREE through the C++ front end (tests/cxx/test_fifo.py): a
// vector -> cube pipe in the GlobalTensor forms, then a cube -> vector pipe in the tile forms.
// The vector cores each load half of X (16 x 32 half) and push it; the cube pops X into L1,
// multiplies it by the identity, and pushes the 16 x 32 float result back; each vector core
// pops its half and stores it: out == X.
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 16, N = 32, HALF = M / 2;
using V2C = TPipe<0, Direction::DIR_V2C, M * N * sizeof(half), 2>;
using C2V = TPipe<2, Direction::DIR_C2V, M * N * sizeof(float), 2>;
using HalfX = GlobalTensor<half, Shape<1, 1, 1, HALF, N>, Stride<HALF * N, HALF * N, HALF * N, N, 1>>;
using IGm = GlobalTensor<half, Shape<1, 1, 1, N, N>, Stride<N * N, N * N, N * N, N, 1>>;
using OutHalf = GlobalTensor<float, Shape<1, 1, 1, HALF, N>, Stride<HALF * N, HALF * N, HALF * N, N, 1>>;
using MatX = Tile<TileType::Mat, half, M, N, BLayout::ColMajor, M, N, SLayout::RowMajor>;
using MatI = Tile<TileType::Mat, half, N, N, BLayout::ColMajor, N, N, SLayout::RowMajor>;
} // namespace

extern "C" __global__ AICORE void relay(__gm__ half *x, __gm__ half *eye, __gm__ float *out,
                                        __gm__ half *fifo_x, __gm__ float *fifo_y)
{
    V2C up(fifo_x, 0x0, 0x10000);
    C2V down(fifo_y, 0x0, 0x0);
#if defined(__DAV_CUBE__)
    MatX xm;
    MatI im;
    TileLeft<half, M, N> left;
    TileRight<half, N, N> right;
    TileAcc<float, M, N> acc;
    TASSIGN(im, 0x0);
    IGm iGm(eye);
    TLOAD(im, iGm);
    TPOP<V2C, MatX, TILE_UP_DOWN>(up, xm);  // the tile form: loads the whole slot into L1
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(left, xm);
    TMOV(right, im);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TPUSH<C2V, TileAcc<float, M, N>, TILE_UP_DOWN>(down, acc);
#else
    const int sub = get_subblockid();
    Tile<TileType::Vec, half, HALF, N> xv;
    Tile<TileType::Vec, float, HALF, N> yv;
    TASSIGN(xv, 0x8000);
    HalfX src(x + sub * HALF * N);
    TLOAD(xv, src);
    HalfX slot;
    TALLOC<V2C, HalfX, TILE_UP_DOWN>(up, slot);  // re-points slot at this core's half
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(slot, xv);
    TPUSH<V2C, HalfX, TILE_UP_DOWN>(up, slot);
    OutHalf part;
    TPOP<C2V, OutHalf, TILE_UP_DOWN>(down, part);  // the GlobalTensor form: our half of the slot
    TLOAD(yv, part);
    TFREE<C2V, OutHalf, TILE_UP_DOWN>(down, part);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);
    OutHalf dst(out + sub * HALF * N);
    TSTORE(dst, yv);
#endif
}
