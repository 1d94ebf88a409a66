// Element gather: out[r, c] = table.flat[index[r, c]] with MGATHER<Coalesce::Elem, GatherOOB::Zero>.
// C++ twin of examples/cxx/py/embedding_gather_elem.py (same instructions, same UB addresses).
//
// A 64 x 64 float32 table in GM is read element by element: an [8, 32] int32 index tile picks
// one element per output position. Out-of-range indices (4096, and -1 which reads as
// 0xFFFFFFFF) give 0.0 under GatherOOB::Zero. An Elem index addresses the table's raw element
// pointer (table[k]), whatever the table's shape.
//
//   ptosim run examples/cxx/embedding_gather_elem.cpp --entry embedding_gather_elem --device 950pr
//       --arg table=table.bin --arg index=index.bin --arg out=8x32:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int TABLE_ROWS = 64;
constexpr int TABLE_COLS = 64;
constexpr int ROWS = 8;
constexpr int COLS = 32;
using ValTile = Tile<TileType::Vec, float, ROWS, COLS>;
using IdxTile = Tile<TileType::Vec, int32_t, ROWS, COLS>;  // one index per output element
using TableGm = GlobalTensor<float, Shape<1, 1, 1, TABLE_ROWS, TABLE_COLS>,
                             Stride<TABLE_ROWS * TABLE_COLS, TABLE_ROWS * TABLE_COLS, TABLE_ROWS * TABLE_COLS,
                                    TABLE_COLS, 1>>;
template <typename T>
using TileGm = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<ROWS * COLS, ROWS * COLS, ROWS * COLS, COLS, 1>>;
} // namespace

extern "C" __global__ AICORE void embedding_gather_elem(__gm__ float *table, __gm__ int32_t *index, __gm__ float *out)
{
    TableGm tab(table);
    TileGm<int32_t> idxGm(index);
    TileGm<float> outGm(out);
    ValTile vals;
    IdxTile idx;
    TASSIGN(vals, 0x0000);
    TASSIGN(idx, 0x0400);
    TLOAD(idx, idxGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    MGATHER<Coalesce::Elem, GatherOOB::Zero>(vals, tab, idx);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, vals);
}
