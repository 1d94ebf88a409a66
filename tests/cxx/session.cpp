// Data-dependent scalar code in C++ (tests/cxx/test_session.py): a loop bound read from GM and
// row ids read from a tile with GetValue, each used to point a GlobalTensor at a table row.
// Served by ptosim's simulation session: the value read is the simulated value at that point.
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int ROWS = 64;  // table rows
constexpr int DIM = 16;
constexpr int MAX_IDS = 8;  // ids per block
using RowTile = Tile<TileType::Vec, float, 1, DIM>;
using IdxTile = Tile<TileType::Vec, int32_t, 1, MAX_IDS>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, DIM>, Stride<DIM, DIM, DIM, DIM, 1>>;
using IdsGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, MAX_IDS>, Stride<MAX_IDS, MAX_IDS, MAX_IDS, MAX_IDS, 1>>;
using CountGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>>;

template <bool WaitBeforeRead>
AICORE void gather_rows(__gm__ float *table, __gm__ int32_t *ids, __gm__ int32_t *count, __gm__ float *out)
{
    const int b = get_block_idx();
    CountGm countGm(count + b);
    IdsGm idsGm(ids + b * MAX_IDS);
    IdxTile idx;
    RowTile row;
    TASSIGN(idx, 0x0);
    TASSIGN(row, 0x100);
    TLOAD(idx, idsGm);
    if constexpr (WaitBeforeRead) {
        set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    }
    const int n = countGm.GetValue(0);  // a loop bound from GM
    for (int r = 0; r < n; ++r) {
        const int id = idx.GetValue(r);  // @read_id
        RowGm src(table + id * DIM);
        RowGm dst(out + (b * MAX_IDS + r) * DIM);
        if (r > 0) {  // the row buffer is free once the previous store has read it
            set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
            wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
        }
        TLOAD(row, src);
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);
        TSTORE(dst, row);
    }
}
} // namespace

extern "C" __global__ AICORE void gather_rows_by_id(__gm__ float *table, __gm__ int32_t *ids,
                                                    __gm__ int32_t *count, __gm__ float *out)
{
    gather_rows<true>(table, ids, count, out);
}

extern "C" __global__ AICORE void gather_rows_no_wait(__gm__ float *table, __gm__ int32_t *ids,
                                                      __gm__ int32_t *count, __gm__ float *out)
{
    gather_rows<false>(table, ids, count, out);
}
