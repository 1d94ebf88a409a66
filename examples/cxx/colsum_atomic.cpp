// Multi-core column sums accumulated with atomic stores: out[0, :] = bias + sum over rows of x.
// C++ twin of examples/colsum_atomic.py (same instructions per block, same UB addresses).
// Launch it on 4 blocks (--block-dim 4): block b = get_block_idx() loads rows [16 b, 16 b + 16)
// of the 64 x 64 matrix, TCOLSUMs them into one row and adds that row into the shared `out` row
// with TSTORE<..., AtomicType::AtomicAdd>: the four adds all land, in any order, and the checker
// does not report them as a race (plain stores would be F205).
//
//   ptosim run examples/cxx/colsum_atomic.cpp --entry colsum_atomic --block-dim 4 --device a2
//       --arg x=x.bin --arg out=bias.bin
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int COLS = 64;
constexpr int SLAB = 16;  // rows per block
using SlabTile = Tile<TileType::Vec, float, SLAB, COLS>;
using RowTile = Tile<TileType::Vec, float, 1, COLS>;
using SlabGm = GlobalTensor<float, Shape<1, 1, 1, SLAB, COLS>, Stride<SLAB * COLS, SLAB * COLS, SLAB * COLS, COLS, 1>>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, COLS>, Stride<COLS, COLS, COLS, COLS, 1>>;
} // namespace

extern "C" __global__ AICORE void colsum_atomic(__gm__ float *x, __gm__ float *out)
{
    SlabTile slab;
    RowTile row;
    TASSIGN(slab, 0x0);
    TASSIGN(row, 0x1000);
    SlabGm src(x + get_block_idx() * SLAB * COLS);
    RowGm dst(out);
    TLOAD(slab, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TCOLSUM(row, slab);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE<RowTile, RowGm, AtomicType::AtomicAdd>(dst, row);
}
