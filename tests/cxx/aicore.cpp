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

// 950 on chip (our own code): AIV1 loads 8 x 32 floats GM -> UB with the raw copy, fills a
// 16 x 32 staging tile with 1.0 (vdup / vsts), moves the 8 rows ND -> NZ into it (the library's
// TMovToVecNd2Nz, called as its tests call it) and inserts all 16 rows into the cube core's L1 in two halves
// (TINSERT<SPLIT2>); then an intra-block flag; the cube core copies the L1 tile to AIV0's UB and
// flags AIV0 (id 0), which stores it to GM as NZ
extern "C" __global__ AICORE void onchip_950(__gm__ float *out, __gm__ float *src)
{
    constexpr int R = 16, C = 32;
    using Nd = Tile<TileType::Vec, float, R, C, BLayout::RowMajor, -1, -1>;
    using Nz = Tile<TileType::Vec, float, R, C, BLayout::ColMajor, -1, -1, SLayout::RowMajor>;
    using Mat = Tile<TileType::Mat, float, R, C, BLayout::ColMajor, R, C, SLayout::RowMajor>;
    using OutGM = GlobalTensor<float, Shape<1, C / 8, 1, 16, 8>, Stride<R * C, R * 8, 16 * 8, 8, 1>, Layout::NZ>;
    Nd nd(R, C);
    Nz nz(R, C);
    Mat mat;
    TASSIGN(nd, 0x0);
    TASSIGN(nz, 0x4000);
    TASSIGN(mat, 0x1000);
#if defined(__DAV_VEC__)
    if (get_subblockid() == 1) {
        copy_gm_to_ubuf(nd.data(), src, 0, 1, 8 * C * 4 / 32, 0, 0);
        __VEC_SCOPE__
        {
            RegTensor<float> v;
            uint32_t n = CCE_VL / sizeof(float);
            MaskReg all = CreatePredicate<float>(n);
            vdup(v, 1.0f, all, MODE_ZEROING);
            for (uint32_t i = 0; i < R * C / (CCE_VL / sizeof(float)); ++i) {
                vsts(v, nz.data(), i * (CCE_VL / sizeof(float)), NORM_B32, all);
            }
        }
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        pto::TMovToVecNd2Nz<float, Nz, Nd>(nz.data(), nd.data(), 8, C, 8);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TINSERT<TInsertMode::SPLIT2>(mat, nz);
        copy_ubuf_to_cbuf(mat.data() + R * C, nz.data(), 0, 1, 1, 0, 0);  // one block past the tile
        set_intra_block(PIPE_MTE3, 0);
    } else {
        wait_intra_block(PIPE_MTE3, 0);
        OutGM g(out);
        TSTORE(g, nz);
    }
#endif
#if defined(__DAV_CUBE__)
    wait_intra_block(PIPE_MTE1, 16);
    copy_cbuf_to_ubuf(nz.data(), mat.data(), 0, 1, R * C * 4 / 32, 0, 0);
    set_intra_block(PIPE_MTE1, 0);
#endif
}

// 950 vector registers (our own code), on AIV0: the unaligned-load pair (vldas / vldus) of a
// 256-byte register stored under a predicate of its first 40 lanes, between a vdup of 0 over the
// whole row and a vdup of 7 stored from byte 64 under a 192-lane predicate
extern "C" __global__ AICORE void vreg_copy_950(__gm__ uint8_t *out, __gm__ uint8_t *src)
{
#if defined(__DAV_VEC__)
    if (get_subblockid() == 0) {
        using Row = Tile<TileType::Vec, uint8_t, 1, CCE_VL>;
        using RowGM8 = GlobalTensor<uint8_t, Shape<1, 1, 1, 1, CCE_VL>, Stride<CCE_VL, CCE_VL, CCE_VL, CCE_VL, 1>>;
        Row a, b;
        TASSIGN(a, 0x0);
        TASSIGN(b, 0x1000);
        RowGM8 srcGM(src), outGM(out);
        TLOAD(a, srcGM);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        __VEC_SCOPE__
        {
            RegTensor<uint8_t> zero, seven, loaded;
            UnalignReg ureg;
            uint32_t all = CCE_VL, first = 40, tail = CCE_VL - 64;
            MaskReg full = CreatePredicate<uint8_t>(all);
            vdup(zero, 0, full, MODE_ZEROING);
            vdup(seven, 7, full, MODE_ZEROING);
            vsts(zero, b.data(), 0, NORM_B8, full);
            vldas(ureg, a.data());
            vldus(loaded, ureg, a.data());
            vsts(loaded, b.data(), 0, NORM_B8, CreatePredicate<uint8_t>(first));
            vsts(seven, b.data(), 64, NORM_B8, CreatePredicate<uint8_t>(tail));
        }
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(outGM, b);
    }
#endif
}
