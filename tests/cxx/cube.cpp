// Cube-core kernels for tests/cxx/test_cube.py: every matmul form through the C++ front end
// (TMATMUL, TMATMUL_ACC, TMATMUL_BIAS, TGEMV, TGEMV_ACC, TGEMV_BIAS), TLOAD into L1 (ND -> NZ),
// TMOV into L0A / L0B / the bias table and the fixpipe store. Integer-valued inputs: every sum is
// exact, so the expected values are integer products.
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 16, K = 32, N = 16, KV = 256;
using AMat = Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor>;
using BMat = Tile<TileType::Mat, half, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor>;
using BiasMat = Tile<TileType::Mat, float, 1, N, BLayout::RowMajor, 1, N>;
using BiasT = Tile<TileType::Bias, float, 1, N, BLayout::RowMajor, 1, N>;
using Acc = TileAcc<float, M, N>;
using AGm = GlobalTensor<half, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>>;
using BGm = GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
using BiasGm = GlobalTensor<float, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;
using CGm = GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
// GEMV: a 1 x 256 vector (512 bytes, whole fractals) and a 256 x 16 matrix
using XMat = Tile<TileType::Mat, half, 1, KV, BLayout::RowMajor, 1, KV>;
using VMat = Tile<TileType::Mat, half, KV, N, BLayout::ColMajor, KV, N, SLayout::RowMajor>;
using XLeft = TileLeft<half, 16, KV, 1, KV>;
using VRight = TileRight<half, KV, N>;
using VAcc = TileAcc<float, 16, N, 1, N>;
using XGm = GlobalTensor<half, Shape<1, 1, 1, 1, KV>, Stride<KV, KV, KV, KV, 1>>;
using VGm = GlobalTensor<half, Shape<1, 1, 1, KV, N>, Stride<KV * N, KV * N, KV * N, N, 1>>;
using YGm = GlobalTensor<float, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;
// the MX scale-tile aliases and GetScaleAddr a 950 TMATMUL_MX kernel names compile
static_assert(TileLeftScale<float8_e8m0_t, 16, 2>::Loc == TileType::ScaleLeft, "TileLeftScale");
static_assert(TileRightScaleCompact<float8_e8m0_t, 2, 16>::Loc == TileType::ScaleRight, "TileRightScale");
static_assert(sizeof(GetScaleAddr(static_cast<float *>(nullptr))) == 8, "GetScaleAddr");
} // namespace

// c = a @ b + a @ b (TMATMUL, then TMATMUL_ACC), d = bias + a @ b (TMATMUL_BIAS)
extern "C" __global__ AICORE void matmuls(__gm__ half *a, __gm__ half *b, __gm__ float *bias, __gm__ float *c,
                                          __gm__ float *d)
{
    AMat aMat;
    BMat bMat;
    BiasMat biasMat;
    TileLeft<half, M, K> left;
    TileRight<half, K, N> right;
    BiasT bt;
    Acc acc, acc2;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x1000);
    TASSIGN(biasMat, 0x2000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(bt, 0x0);
    TASSIGN(acc, 0x0);
    TASSIGN(acc2, 0x2000);
    AGm aGm(a);
    BGm bGm(b);
    BiasGm biasGm(bias);
    CGm cGm(c), dGm(d);
    TLOAD(aMat, aGm);
    TLOAD(bMat, bGm);
    TLOAD(biasMat, biasGm);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(left, aMat);
    TMOV(right, bMat);
    TMOV(bt, biasMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);
    TMATMUL_ACC(acc, acc, left, right);
    TMATMUL_BIAS(acc2, left, right, bt);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(cGm, acc);
    TSTORE(dGm, acc2);
}

// y = x @ v (TGEMV), z = bias + x @ v + x @ v (TGEMV_BIAS, then TGEMV_ACC)
extern "C" __global__ AICORE void gemvs(__gm__ half *x, __gm__ half *v, __gm__ float *bias, __gm__ float *y,
                                        __gm__ float *z)
{
    XMat xMat;
    VMat vMat;
    BiasMat biasMat;
    XLeft left;
    VRight right;
    BiasT bt;
    VAcc acc, acc2;
    TASSIGN(xMat, 0x0);
    TASSIGN(vMat, 0x1000);
    TASSIGN(biasMat, 0x10000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(bt, 0x0);
    TASSIGN(acc, 0x0);
    TASSIGN(acc2, 0x2000);
    XGm xGm(x);
    VGm vGm(v);
    BiasGm biasGm(bias);
    YGm yGm(y), zGm(z);
    TLOAD(xMat, xGm);
    TLOAD(vMat, vGm);
    TLOAD(biasMat, biasGm);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TEXTRACT(left, xMat, 0, 0);
    TMOV(right, vMat);
    TMOV(bt, biasMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TGEMV(acc, left, right);
    TGEMV_BIAS(acc2, left, right, bt);
    TGEMV_ACC(acc2, acc2, left, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(yGm, acc);
    TSTORE(zGm, acc2);
}

// The quantised Acc -> Mat forms as kernels write them (explicit tile types, a pre-quant scalar
// or a Scaling tile, the compiler's QuantMode_t names): each stops the run naming its form.
extern "C" __global__ AICORE void acc_prequant_extract(__gm__ float *c)
{
    using Dst = Tile<TileType::Mat, half, M, N, BLayout::ColMajor, M, N, SLayout::RowMajor>;
    Acc acc;
    Dst dst;
    uint64_t preQuantScalar = QuantMode_t::NoQuant == NoQuant ? 0x3f800000 : 0;
    TEXTRACT<Dst, Acc>(dst, acc, preQuantScalar, 0, 0);
}
// the same with int indices (template constants of the kernel), and TEXTRACT / TINSERT into a
// Vec tile with an AccToVecMode (950 Acc -> Vec): all compile; each entry stops at its first
namespace {
using Vec = Tile<TileType::Vec, float, M, N>;
using Fb = Tile<TileType::Scaling, uint64_t, 1, N, BLayout::RowMajor, 1, N, SLayout::NoneBox>;
using Dst = Tile<TileType::Mat, half, M, N, BLayout::ColMajor, M, N, SLayout::RowMajor>;
template <int Row, int Col>
AICORE void acc_prequant_int_indices()
{
    Acc acc;
    Dst dst;
    uint64_t preQuantScalar = 0x3f800000;
    TEXTRACT<Dst, Acc, ReluPreMode::NormalRelu>(dst, acc, preQuantScalar, Row, Col);
}
template <int Row, int Col>
AICORE void acc_to_vec_forms()
{
    Acc acc;
    Vec vec;
    Fb fb;
    uint64_t preQuantScalar = 0x3f800000;
    TEXTRACT<Vec, Acc, AccToVecMode::DualModeSplitM, ReluPreMode::NormalRelu>(vec, acc, Row, Col);
    TINSERT<Vec, Acc, Fb, AccToVecMode::DualModeSplitN>(vec, acc, fb, Row, Col);
    TINSERT<Vec, Acc, AccToVecMode::SingleModeVec1>(vec, acc, preQuantScalar, Row, Col);
}
} // namespace
extern "C" __global__ AICORE void acc_prequant_int(__gm__ float *c)
{
    acc_prequant_int_indices<0, 0>();
}
extern "C" __global__ AICORE void acc_to_vec(__gm__ float *c)
{
    acc_to_vec_forms<0, 0>();
}
extern "C" __global__ AICORE void acc_fp_insert(__gm__ float *c)
{
    using Dst = Tile<TileType::Mat, half, M, N, BLayout::ColMajor, M, N, SLayout::RowMajor>;
    using Fb = Tile<TileType::Scaling, uint64_t, 1, N, BLayout::RowMajor, 1, N, SLayout::NoneBox>;
    Acc acc;
    Dst dst;
    Fb fb;
    TINSERT_FP<Dst, Acc, Fb>(dst, acc, fb, 0, 0);
}

// 950 quantised fixpipe stores: q = quantise(a @ b) with the preQuantScalar word s (int8, ReLU),
// h = quantise(a @ b) per column with the words in w (TSTORE_FP through a Scaling tile, half)
extern "C" __global__ AICORE void quant_stores(__gm__ half *a, __gm__ half *b, __gm__ uint64_t *w,
                                               __gm__ int8_t *q, __gm__ half *h, uint64_t s)
{
    using WMat = Tile<TileType::Mat, uint64_t, 1, N, BLayout::RowMajor, 1, N>;
    using Fb = Tile<TileType::Scaling, uint64_t, 1, N, BLayout::RowMajor, 1, N, SLayout::NoneBox>;
    using WGm = GlobalTensor<uint64_t, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;
    using QGm = GlobalTensor<int8_t, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
    using HGm = GlobalTensor<half, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
    AMat aMat;
    BMat bMat;
    WMat wMat;
    TileLeft<half, M, K> left;
    TileRight<half, K, N> right;
    Fb fb;
    Acc acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x1000);
    TASSIGN(wMat, 0x2000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(fb, 0x0);
    TASSIGN(acc, 0x0);
    AGm aGm(a);
    BGm bGm(b);
    WGm wGm(w);
    QGm qGm(q);
    HGm hGm(h);
    TLOAD(aMat, aGm);
    TLOAD(bMat, bGm);
    TLOAD(wMat, wGm);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(left, aMat);
    TMOV(right, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE<Acc, QGm, AtomicType::AtomicNone, ReluPreMode::NormalRelu>(qGm, acc, s);
    TMOV(fb, wMat);
    TSTORE_FP<Acc, HGm, Fb>(hGm, acc, fb);
}
