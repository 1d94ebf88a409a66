// Row top-k with TSORT32: the K = 4 best of 32 candidate scores per row, with their ids.
// C++ twin of examples/row_topk.py (same instructions, same UB addresses), on every device.
//
// 8 rows of 32 float32 scores and an [8, 32] uint32 id tile go through
// TSORT32(sorted, scores, ids, tmp): each block of 32 (score, id) pairs sorted by score
// descending, ties by id position ascending, into 8-byte records [score f32][id u32], an [8, 64]
// float32 tile. The top K records of a row are its first 2K elements: a TSUBVIEW with valid shape
// (8, 2K) of the sorted tile is stored to an (8, 2K) GlobalTensor, so only they leave the core.
// (ptosim's TSORT32 does not use tmp; it is placed after the other tiles.)
//
//   ptosim run examples/cxx/row_topk.cpp --entry row_topk --device 950pr
//       --arg scores=scores.bin --arg ids=ids.bin --arg out=8x8:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int ROWS = 8;
constexpr int CANDIDATES = 32;
constexpr int K = 4;
using ScoreTile = Tile<TileType::Vec, float, ROWS, CANDIDATES>;
using IdTile = Tile<TileType::Vec, uint32_t, ROWS, CANDIDATES>;
using RecordTile = Tile<TileType::Vec, float, ROWS, 2 * CANDIDATES>;
// the same row pitch as RecordTile, valid on the first K records of each row
using TopTile = Tile<TileType::Vec, float, ROWS, 2 * CANDIDATES, BLayout::RowMajor, ROWS, 2 * K>;
template <typename T>
using CandGm = GlobalTensor<T, Shape<1, 1, 1, ROWS, CANDIDATES>,
                            Stride<ROWS * CANDIDATES, ROWS * CANDIDATES, ROWS * CANDIDATES, CANDIDATES, 1>>;
using TopGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, 2 * K>, Stride<ROWS * 2 * K, ROWS * 2 * K, ROWS * 2 * K, 2 * K, 1>>;
} // namespace

extern "C" __global__ AICORE void row_topk(__gm__ float *scores, __gm__ uint32_t *ids, __gm__ float *out)
{
    ScoreTile s;
    IdTile i;
    RecordTile tmp, srt;
    TopTile top;
    TASSIGN(s, 0x0000);
    TASSIGN(i, 0x0400);
    TASSIGN(srt, 0x0800);
    TASSIGN(tmp, 0x1000);
    CandGm<float> sGm(scores);
    CandGm<uint32_t> iGm(ids);
    TopGm outGm(out);

    TLOAD(s, sGm);
    TLOAD(i, iGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TSORT32(srt, s, i, tmp);
    TSUBVIEW(top, srt, 0, 0);  // the first K records of each row
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, top);
}
