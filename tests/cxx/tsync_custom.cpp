// The library's TSync_Custom handshake object (pto/npu/*/custom/TSync_Custom.hpp) in a mixed
// kernel of our own: the cube core computes c = a @ b into GM (the fixpipe store), records
// "ready"; each vector core waits, adds 1 to its half of the rows, stores them to out and frees
// the slot; the cube core allocates it back before it ends. `nowait` drops the vector cores'
// wait (a handshake bug the checker must report).
#include <pto/pto-inst.hpp>
#include <pto/npu/a2a3/custom/TSync_Custom.hpp>

using namespace pto;

namespace {
constexpr int M = 16, K = 32, N = 16, H = M / 2;
using AMat = Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor>;
using BMat = Tile<TileType::Mat, half, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor>;
using Acc = TileAcc<float, M, N>;
using AGm = GlobalTensor<half, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>>;
using BGm = GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
using CGm = GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
using HalfGm = GlobalTensor<float, Shape<1, 1, 1, H, N>, Stride<H * N, H * N, H * N, N, 1>>;
using HalfVec = Tile<TileType::Vec, float, H, N>;
constexpr uint16_t kReady = 2;  // flag 2: c is in GM; flag 3: the vector cores are done with it

template <bool Wait>
AICORE void gemm_plus_one(__gm__ half *a, __gm__ half *b, __gm__ float *c, __gm__ float *out)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> sync = {kReady};
#if defined(__DAV_CUBE__)
    AMat aMat;
    BMat bMat;
    TileLeft<half, M, K> left;
    TileRight<half, K, N> right;
    Acc acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x1000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(acc, 0x0);
    AGm aGm(a);
    BGm bGm(b);
    CGm cGm(c);
    TLOAD(aMat, aGm);
    TLOAD(bMat, bGm);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(left, aMat);
    TMOV(right, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(cGm, acc);
    sync.record();  // @tsync_record
    sync.allocate();
#endif
#if defined(__DAV_VEC__)
    HalfVec t;
    TASSIGN(t, 0x0);
    HalfGm mine(c + get_subblockid() * H * N), dst(out + get_subblockid() * H * N);
    if constexpr (Wait) {
        sync.wait();
    }
    TLOAD(t, mine);  // @tsync_load
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(t, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, t);
    sync.free();
#endif
}
} // namespace

extern "C" __global__ AICORE void tsync(__gm__ half *a, __gm__ half *b, __gm__ float *c, __gm__ float *out)
{
    gemm_plus_one<true>(a, b, c, out);
}

extern "C" __global__ AICORE void tsync_nowait(__gm__ half *a, __gm__ half *b, __gm__ float *c,
                                               __gm__ float *out)
{
    gemm_plus_one<false>(a, b, c, out);
}
