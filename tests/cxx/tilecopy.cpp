// tests/cxx/test_tile_copy.py: a C++ copy of a tile (a by-value parameter, an assignment) is
// the same storage as the tile it copies while it keeps its address.
#include <pto/pto-inst.hpp>
using namespace pto;

namespace {
using T = Tile<TileType::Vec, float, 8, 8>;
using G = GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<64, 64, 64, 8, 1>>;

// the shape of the library's flash-attention update macros: tiles by value, written in place
template <typename TileT>
AICORE inline void scale_in_place(TileT t)
{
    TMULS(t, t, 2.0f);
    pipe_barrier(PIPE_V);
}

AICORE inline void load(T &t, G &ga)
{
    TLOAD(t, ga);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
}

AICORE inline void store(G &go, T &t)
{
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, t);
}
} // namespace

// out = a * 2 + 1, through a by-value helper and an assigned copy
extern "C" __global__ AICORE void copy_writes_the_tile(__gm__ float *out, __gm__ float *a)
{
    G ga(a), go(out);
    T t;
    TASSIGN(t, 0x0);
    load(t, ga);
    scale_in_place(t);
    T same;
    same = t;
    TADDS(same, same, 1.0f);
    pipe_barrier(PIPE_V);
    store(go, t);
}

// a second tile placed on t's bytes clobbers t's loaded data before t is stored: F204
extern "C" __global__ AICORE void other_tile_clobbers(__gm__ float *out, __gm__ float *a)
{
    G ga(a), go(out);
    T t, other;
    TASSIGN(t, 0x0);
    TASSIGN(other, 0x0);
    load(t, ga);
    TEXPANDS(other, 5.0f);
    pipe_barrier(PIPE_V);
    store(go, t);
}

// a copy moved to other bytes is a tile of its own there: t keeps its data
extern "C" __global__ AICORE void moved_copy(__gm__ float *out, __gm__ float *a)
{
    G ga(a), go(out);
    T t;
    TASSIGN(t, 0x0);
    load(t, ga);
    T moved = t;
    TASSIGN(moved, 0x100);
    TEXPANDS(moved, 5.0f);
    pipe_barrier(PIPE_V);
    store(go, t);
}
