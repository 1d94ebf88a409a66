// Embedding lookup: out[r, :] = table[index[r], :] with MGATHER<Coalesce::Row, GatherOOB::Clamp>.
// C++ twin of examples/embedding_lookup.py (same instructions, same UB addresses).
//
// A 1024 x 64 float32 table in GM, 16 token ids per call. Out-of-range ids (1024, and -1 which
// reads as 0xFFFFFFFF) are clamped to the last row by GatherOOB::Clamp. The documented gather
// pattern: TLOAD(idx); MTE2 -> V; MGATHER; V -> MTE3; TSTORE.
//
//   ptosim run examples/cxx/embedding_lookup.cpp --entry embedding_lookup --device a2
//       --arg table=table.bin --arg ids=ids.bin --arg out=16x64:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int TABLE_ROWS = 1024;
constexpr int DIM = 64;
constexpr int LOOKUPS = 16;
using RowsTile = Tile<TileType::Vec, float, LOOKUPS, DIM>;
using IdxTile = Tile<TileType::Vec, int32_t, 1, LOOKUPS>;
using TableGm = GlobalTensor<float, Shape<1, 1, 1, TABLE_ROWS, DIM>,
                             Stride<TABLE_ROWS * DIM, TABLE_ROWS * DIM, TABLE_ROWS * DIM, DIM, 1>>;
using IdsGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, LOOKUPS>, Stride<LOOKUPS, LOOKUPS, LOOKUPS, LOOKUPS, 1>>;
using OutGm = GlobalTensor<float, Shape<1, 1, 1, LOOKUPS, DIM>, Stride<LOOKUPS * DIM, LOOKUPS * DIM, LOOKUPS * DIM, DIM, 1>>;
} // namespace

extern "C" __global__ AICORE void embedding_lookup(__gm__ float *table, __gm__ int32_t *ids, __gm__ float *out)
{
    TableGm tab(table);
    IdsGm idsGm(ids);
    OutGm outGm(out);
    RowsTile rows;
    IdxTile idx;
    TASSIGN(rows, 0x0000);
    TASSIGN(idx, 0x4000);
    TLOAD(idx, idsGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    MGATHER<Coalesce::Row, GatherOOB::Clamp>(rows, tab, idx);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, rows);
}
