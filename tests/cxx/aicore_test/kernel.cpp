// A mixed test folder (our own code, the shape of the reference library's pto_mix_st folders):
// the host launches cv_relay<<<2>>>; CMakeLists.txt says pto_mix_st, so ptosim builds the
// kernel twice and runs the cube half's build on each block's cube core.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kCols = 64;
using RowGM = GlobalTensor<float, Shape<1, 1, 1, 1, kCols>, Stride<kCols, kCols, kCols, kCols, 1>>;

__global__ AICORE void cv_relay(__gm__ float *out, __gm__ float *src)
{
    const int block = get_block_idx();
#if defined(__DAV_CUBE__)
    Tile<TileType::Mat, float, 1, kCols> m;
    TASSIGN(m, 0x0);
    RowGM srcGM(src + block * kCols);
    RowGM midGM(out + block * 3 * kCols);
    TLOAD(m, srcGM);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(midGM, m);
    ffts_cross_core_sync(PIPE_MTE3, 1 | (2 << 4) | (3 << 8));
#endif
#if defined(__DAV_VEC__)
    Tile<TileType::Vec, float, 1, kCols> t;
    TASSIGN(t, 0x0);
    RowGM midGM(out + block * 3 * kCols);
    RowGM mineGM(out + (block * 3 + 1 + get_subblockid()) * kCols);
    wait_flag_dev(3);
    TLOAD(t, midGM);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(mineGM, t);
#endif
}

void LaunchRelay(uint8_t *out, uint8_t *src, void *stream)
{
    cv_relay<<<2, nullptr, stream>>>(reinterpret_cast<float *>(out), reinterpret_cast<float *>(src));
}
