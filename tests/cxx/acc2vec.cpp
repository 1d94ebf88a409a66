// The 950 fixpipe into the vector cores' UB from C++ (tests/cxx/test_acc2vec.py): the cube core
// multiplies A (32 x 16 half) by B (16 x 32 half) and moves the float accumulator to the UBs
// of both vector cores with TMOV<..., AccToVecMode::DualModeSplitM> (AIV0 the upper 16 rows,
// AIV1 the lower), then posts intra-block flag 0 to each; each vector core waits and writes its
// rows to GM with the raw copy_ubuf_to_gm_align_v2 (16 bursts of one 128-byte row, 128 bytes
// apart in UB and 256 bytes apart in GM: its rows land in the left half of a 32 x 64 output).
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 32, K = 16, N = 32, HALF = M / 2;
using GmA = GlobalTensor<half, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
using MatA = Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor>;
using Half = Tile<TileType::Vec, float, M, N, BLayout::RowMajor, HALF, N>;
} // namespace

extern "C" __global__ AICORE void split_rows(__gm__ float *out, __gm__ half *a, __gm__ half *b)
{
    Half c;
    TASSIGN(c, 0x0);
#if defined(__DAV_CUBE__)
    MatA am;
    MatB bm;
    TileLeft<half, M, K> left;
    TileRight<half, K, N> right;
    TileAcc<float, M, N> acc;
    TASSIGN(am, 0x0);
    TASSIGN(bm, 0x1000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(acc, 0x0);
    GmA ga(a);
    GmB gb(b);
    TLOAD(am, ga);
    TLOAD(bm, gb);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(left, am);
    TMOV(right, bm);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TMOV<Half, TileAcc<float, M, N>, AccToVecMode::DualModeSplitM>(c, acc);
    set_intra_block(PIPE_FIX, 0);
    set_intra_block(PIPE_FIX, 16);
#else
    wait_intra_block(PIPE_MTE3, 0);
    copy_ubuf_to_gm_align_v2(out + get_subblockid() * HALF * 2 * N, c.data(), 0, HALF, N * 4, 0, 2 * N * 4, N * 4);
#endif
}
