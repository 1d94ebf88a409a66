// A small multi-core PTO kernel (our own code, from the C++ front-end prototype): every block
// gathers its share of rows of an embedding table (MGATHER Row), subtracts each row's maximum
// (TROWEXPANDSUB with a per-row scalar column), double-buffered over a loop, and stores the
// result. It exercises get_block_idx(), loops, ping-pong tiles, event ids held in variables,
// GlobalTensor re-pointing (TASSIGN on a GlobalTensor) and dynamic valid shapes.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kCols = 64;        // row width (floats)
constexpr int kRowsPerIter = 8;  // rows gathered per iteration

extern "C" __global__ AICORE void gather_center(__gm__ float *out, __gm__ float *table, __gm__ int32_t *index,
                                                __gm__ float *rowmax, int rowsPerBlock, int tableRows)
{
    using RowTile = Tile<TileType::Vec, float, kRowsPerIter, kCols, BLayout::RowMajor, -1, -1>;
    using IdxTile = Tile<TileType::Vec, int32_t, 1, kRowsPerIter, BLayout::RowMajor, -1, -1>;
    using ColTile = Tile<TileType::Vec, float, kRowsPerIter, 8, BLayout::RowMajor, -1, -1>;
    using TableGM = GlobalTensor<float, Shape<1, 1, 1, -1, kCols>, Stride<1, 1, 1, kCols, 1>>;
    using IdxGM = GlobalTensor<int32_t, Shape<1, 1, 1, 1, kRowsPerIter>, Stride<1, 1, 1, kRowsPerIter, 1>>;
    using RowGM = GlobalTensor<float, Shape<1, 1, 1, kRowsPerIter, kCols>, Stride<1, 1, 1, kCols, 1>>;
    using ColGM = GlobalTensor<float, Shape<1, 1, 1, kRowsPerIter, 8>, Stride<1, 1, 1, 8, 1>>;

    const int block = get_block_idx();
    const int first = block * rowsPerBlock;
    TableGM tableGM(table, Shape<1, 1, 1, -1, kCols>(tableRows));

    RowTile rows[2] = {RowTile(kRowsPerIter, kCols), RowTile(kRowsPerIter, kCols)};
    IdxTile idx[2] = {IdxTile(1, kRowsPerIter), IdxTile(1, kRowsPerIter)};
    ColTile col[2] = {ColTile(kRowsPerIter, 8), ColTile(kRowsPerIter, 8)};
    for (int b = 0; b < 2; ++b) {
        TASSIGN(rows[b], 0x0000 + b * 0x1000);
        TASSIGN(idx[b], 0x2000 + b * 0x100);
        TASSIGN(col[b], 0x2400 + b * 0x400);
    }
    IdxGM idxGM(index);
    ColGM colGM(rowmax);
    RowGM outGM(out);

    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    for (int it = 0, r = first; r < first + rowsPerBlock; ++it, r += kRowsPerIter) {
        const int b = it & 1;
        event_t ev = (event_t)b;
        TASSIGN(idxGM, index + r);
        TASSIGN(colGM, rowmax + r * 8);
        TASSIGN(outGM, out + r * kCols);
        wait_flag(PIPE_V, PIPE_MTE2, ev);
        TLOAD(idx[b], idxGM);
        TLOAD(col[b], colGM);
        set_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE3, PIPE_V, ev);
        MGATHER<Coalesce::Row, GatherOOB::Clamp>(rows[b], tableGM, idx[b]);
        TROWEXPANDSUB(rows[b], rows[b], col[b]);
        set_flag(PIPE_V, PIPE_MTE2, ev);
        set_flag(PIPE_V, PIPE_MTE3, ev);
        wait_flag(PIPE_V, PIPE_MTE3, ev);
        TSTORE(outGM, rows[b]);
        set_flag(PIPE_MTE3, PIPE_V, ev);
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}
