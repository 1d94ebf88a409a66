// Multi-core, looped, double-buffered: out[r, :] = table[clamp(ids[r]), :] * weights[r].
// C++ twin of examples/cxx/py/multicore_scaled_lookup.py (same instructions per block, same UB
// addresses). Launch it on 4 blocks (--block-dim 4): block b = get_block_idx() takes rows
// [b * rows_per_block, (b + 1) * rows_per_block), 8 rows per step, ping-pong buffers and event
// ids (b = step % 2) primed before the loop and drained after it. Per step: TLOAD ids and
// weights; MTE2 -> V; MGATHER<Row, Clamp>; pipe_barrier(PIPE_V); TROWEXPANDMUL; V -> MTE3; TSTORE.
// The GlobalTensor views are re-pointed every step (TASSIGN on a GlobalTensor: no instruction).
//
//   ptosim run examples/cxx/multicore_scaled_lookup.cpp --entry multicore_scaled_lookup
//       --block-dim 4 --device 950pr --arg table=table.bin --arg ids=ids.bin
//       --arg weights=weights.bin --arg out=128x64:float32 --arg rows_per_block=32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int TABLE_ROWS = 300;
constexpr int DIM = 64;
constexpr int STEP = 8;  // rows per step
using RowsTile = Tile<TileType::Vec, float, STEP, DIM>;
using IdxTile = Tile<TileType::Vec, int32_t, 1, STEP>;
using WTile = Tile<TileType::Vec, float, STEP, 1, BLayout::ColMajor>;
using TableGm = GlobalTensor<float, Shape<1, 1, 1, TABLE_ROWS, DIM>,
                             Stride<TABLE_ROWS * DIM, TABLE_ROWS * DIM, TABLE_ROWS * DIM, DIM, 1>>;
using IdsGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, STEP>, Stride<STEP, STEP, STEP, STEP, 1>>;
using WGm = GlobalTensor<float, Shape<1, 1, 1, STEP, 1>, Stride<STEP, STEP, STEP, 1, STEP>, Layout::DN>;
using OutGm = GlobalTensor<float, Shape<1, 1, 1, STEP, DIM>, Stride<STEP * DIM, STEP * DIM, STEP * DIM, DIM, 1>>;
} // namespace

extern "C" __global__ AICORE void multicore_scaled_lookup(__gm__ float *table, __gm__ int32_t *ids,
                                                          __gm__ float *weights, __gm__ float *out,
                                                          int32_t rows_per_block)
{
    const int first = get_block_idx() * rows_per_block;
    TableGm tab(table);
    RowsTile rows[2];
    IdxTile idx[2];
    WTile w[2];
    const event_t events[2] = {EVENT_ID0, EVENT_ID1};
    for (int b = 0; b < 2; ++b) {
        TASSIGN(rows[b], 0x0000 + b * 0x800);
        TASSIGN(idx[b], 0x1000 + b * 0x20);
        TASSIGN(w[b], 0x1040 + b * 0x20);
        set_flag(PIPE_V, PIPE_MTE2, events[b]);  // prime: both buffers start free
        set_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
    IdsGm idsGm(ids);
    WGm wGm(weights);
    OutGm outGm(out);
    for (int step = 0, r = first; r < first + rows_per_block; ++step, r += STEP) {
        const int b = step % 2;
        const event_t ev = events[b];
        TASSIGN(idsGm, ids + r);
        TASSIGN(wGm, weights + r);
        TASSIGN(outGm, out + r * DIM);
        wait_flag(PIPE_V, PIPE_MTE2, ev);  // ids/weights buffer b is free
        TLOAD(idx[b], idsGm);
        TLOAD(w[b], wGm);
        set_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE2, PIPE_V, ev);  // ids/weights b have landed
        wait_flag(PIPE_MTE3, PIPE_V, ev);  // rows buffer b has been stored
        MGATHER<Coalesce::Row, GatherOOB::Clamp>(rows[b], tab, idx[b]);
        pipe_barrier(PIPE_V);
        TROWEXPANDMUL(rows[b], rows[b], w[b]);
        set_flag(PIPE_V, PIPE_MTE2, ev);
        set_flag(PIPE_V, PIPE_MTE3, ev);
        wait_flag(PIPE_V, PIPE_MTE3, ev);  // rows b are ready
        TSTORE(outGm, rows[b]);
        set_flag(PIPE_MTE3, PIPE_V, ev);
    }
    for (int b = 0; b < 2; ++b) {  // drain the primed events
        wait_flag(PIPE_V, PIPE_MTE2, events[b]);
        wait_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
}
