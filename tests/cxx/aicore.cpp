// A mixed kernel (our own code): the cube half and the vector half of one source, compiled
// apart (__DAV_CUBE__ / __DAV_VEC__) and run on the AIC and the two AIVs of each block. The cube
// core copies a row GM -> L1 -> GM and posts FFTS flag 3 in mode 2 (it reaches both vector
// cores); each vector core waits, copies the row into its own output row through UB, and posts
// flag 4 in mode 2; the cube core waits for both.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kCols = 64;
using RowGM = GlobalTensor<float, Shape<1, 1, 1, 1, kCols>, Stride<kCols, kCols, kCols, kCols, 1>>;

extern "C" __global__ AICORE void cv_relay(__gm__ float *out, __gm__ float *src)
{
#if defined(__DAV_CUBE__)
    {
    Tile<TileType::Mat, float, 1, kCols> m;
    TASSIGN(m, 0x0);
    RowGM srcGM(src);
    RowGM midGM(out);
    TLOAD(m, srcGM);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(midGM, m);
    ffts_cross_core_sync(PIPE_MTE3, 1 | (2 << 4) | (3 << 8));
    wait_flag_dev(4);
    }
#endif
#if defined(__DAV_VEC__)
    {
    Tile<TileType::Vec, float, 1, kCols> t;
    TASSIGN(t, 0x0);
    RowGM midGM(out);
    RowGM mineGM(out + (1 + get_subblockid()) * kCols);
    wait_flag_dev(3);
    TLOAD(t, midGM);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(mineGM, t);
    ffts_cross_core_sync(PIPE_MTE3, 1 | (2 << 4) | (4 << 8));
    }
#endif
}

// where each core runs: its row of out (3 per block: AIC, AIV0, AIV1) gets block, subblock,
// subblock dim and 1 on the cube half / 2 on the vector half (scalar stores to GM)
extern "C" __global__ AICORE void where(__gm__ float *out)
{
    using Row = GlobalTensor<float, Shape<1, 1, 1, 1, 4>, Stride<4, 4, 4, 4, 1>>;
    int row = 3 * get_block_idx();
#if defined(__DAV_VEC__) && !defined(__DAV_CUBE__)
    row += 1 + get_subblockid();
#endif
    Row mine(out + 4 * row);
    mine.SetValue(0, (float)get_block_idx());
    mine.SetValue(1, (float)get_subblockid());
    mine.SetValue(2, (float)get_subblockdim());
#if defined(__DAV_CUBE__) && !defined(__DAV_VEC__)
    mine.SetValue(3, 1.0f);
#elif defined(__DAV_VEC__) && !defined(__DAV_CUBE__)
    mine.SetValue(3, 2.0f);
#else
    mine.SetValue(3, 3.0f);
#endif
}
