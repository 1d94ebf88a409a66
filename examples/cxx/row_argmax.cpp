// Row argmax (greedy decoding over a vocabulary slice): idx[i] = first j of max_j x[i, j].
// C++ twin of examples/row_argmax.py (same instructions, same UB addresses).
//
// 16 rows of 256 float32 logits; TROWARGMAX(val, idx, x, tmp) writes each row's maximum into a
// [16, 1] ColMajor float32 column and the first column index reaching it into a [16, 1] ColMajor
// int32 column, both stored through DN views. tmp is the a2a3 lowering's scratch: one vcmax
// per 256-byte chunk (4 chunks per row), reduced again row by row at tmp's row pitch (a row
// of 16 floats per logit row).
// Devices: cpu, a2, a3. TROWARGMAX is not defined on a5 (950pr, 950dt): ptosim stops with an
// UnsupportedError there (row_topk.cpp runs everywhere).
//
//   ptosim run examples/cxx/row_argmax.cpp --entry row_argmax --device a2
//       --arg x=x.bin --arg values=16:float32 --arg indices=16:int32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int ROWS = 16;
constexpr int COLS = 256;
using LogitTile = Tile<TileType::Vec, float, ROWS, COLS>;
using TmpTile = Tile<TileType::Vec, float, ROWS, 16>;  // a scratch row per logit row
using ValTile = Tile<TileType::Vec, float, ROWS, 1, BLayout::ColMajor>;
using IdxTile = Tile<TileType::Vec, int32_t, ROWS, 1, BLayout::ColMajor>;
using LogitGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<ROWS * COLS, ROWS * COLS, ROWS * COLS, COLS, 1>>;
template <typename T>
using ColumnGm = GlobalTensor<T, Shape<1, 1, 1, ROWS, 1>, Stride<ROWS, ROWS, ROWS, 1, ROWS>, Layout::DN>;
} // namespace

extern "C" __global__ AICORE void row_argmax(__gm__ float *x, __gm__ float *values, __gm__ int32_t *indices)
{
    LogitTile xt;
    TmpTile tmp;
    ValTile val;
    IdxTile idx;
    TASSIGN(xt, 0x0000);
    TASSIGN(val, 0x4000);
    TASSIGN(idx, 0x4040);
    TASSIGN(tmp, 0x4080);
    LogitGm xGm(x);
    ColumnGm<float> valGm(values);
    ColumnGm<int32_t> idxGm(indices);

    TLOAD(xt, xGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWARGMAX(val, idx, xt, tmp);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(valGm, val);
    TSTORE(idxGm, idx);
}
