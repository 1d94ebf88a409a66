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
// the MX scale views of a GlobalTensor: a 32 x 4 scale matrix of A in 16 x 2 fractals (ZZ), B's
// 4 x 32 one per 16 columns (NN); the fractals 32 bytes apart
using MxA = TileShape2D<float8_e8m0_t, 32, 4, Layout::MX_A_ZZ>;
using MxAS = BaseShape2D<float8_e8m0_t, 32, 4, Layout::MX_A_ZZ>;
using MxB = TileShape2D<float8_e8m0_t, 4, 32, Layout::MX_B_NN>;
static_assert(MxA::staticShape[1] == 2 && MxA::staticShape[2] == 2 && MxA::staticShape[3] == 16, "MX_A_ZZ");
static_assert(MxAS::staticStride[1] == 64 && MxAS::staticStride[2] == 32 && MxAS::staticStride[3] == 2, "MX_A_ZZ");
static_assert(MxB::staticShape[1] == 2 && MxB::staticShape[2] == 2 && MxB::staticShape[4] == 2, "MX_B_NN");
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

namespace {
using WMat = Tile<TileType::Mat, uint64_t, 1, N, BLayout::RowMajor, 1, N, SLayout::NoneBox>;
using WGm = GlobalTensor<uint64_t, Shape<1, 1, 1, 1, N>, Stride<N, N, N, N, 1>>;
// acc = a @ b (L0C at 0) and the quant words w in L1 (wMat at 0x2000), with the flags up to
// M -> FIX: what the quantised fixpipe kernels below do before their stores
AICORE void gemm_and_words(Acc &acc, WMat &wMat, __gm__ half *a, __gm__ half *b, __gm__ uint64_t *w)
{
    AMat aMat;
    BMat bMat;
    TileLeft<half, M, K> left;
    TileRight<half, K, N> right;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x1000);
    TASSIGN(wMat, 0x2000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(acc, 0x0);
    AGm aGm(a);
    BGm bGm(b);
    WGm wGm(w);
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
}
} // namespace

// the fixpipe's quantised forms: q8 = TSTORE(acc = a @ b, preQuantScalar word) as int8, q16 =
// TSTORE_FP<..., NormalRelu>(acc, the Scaling tile of words) as half; conv = acc stored into an
// NDC1HWC0 view (N 1, D 1, C1 2 of 3, H 4 of 5, W 4; float C0 = 8)
extern "C" __global__ AICORE void acc_quant(__gm__ half *a, __gm__ half *b, __gm__ uint64_t *words,
                                            __gm__ int8_t *q8, __gm__ half *q16, __gm__ float *conv)
{
    using ConvGm = GlobalTensor<float, Shape<1, 1, 2, 4, 4>, Stride<480, 480, 160, 32, 8>, Layout::NDC1HWC0>;
    ConvGm convGm(conv);
    using Fb = Tile<TileType::Scaling, uint64_t, 1, N, BLayout::RowMajor, 1, N, SLayout::NoneBox>;
    using Q8Gm = GlobalTensor<int8_t, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
    using Q16Gm = GlobalTensor<half, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
    WMat wMat;
    Acc acc;
    Fb fb;
    TASSIGN(fb, 0x0);
    Q8Gm q8Gm(q8);
    Q16Gm q16Gm(q16);
    gemm_and_words(acc, wMat, a, b, words);
    float half_scale = 0.5f;
    uint64_t preQuantScalar = static_cast<uint64_t>(*reinterpret_cast<uint32_t *>(&half_scale)) |
                              (static_cast<uint64_t>(1) << 46);  // signed int8 output
    TSTORE<Acc, Q8Gm>(q8Gm, acc, preQuantScalar);
    TSTORE(convGm, acc);
    TMOV(fb, wMat);
    SET_QUANT_SCALAR<int8_t>(0.5f);  // the quant registers a FixpipeParams TPUSH reads
    SET_QUANT_VECTOR(fb);
    TSTORE_FP<Acc, Q16Gm, Fb, AtomicType::AtomicNone, ReluPreMode::NormalRelu>(q16Gm, acc, fb);
}

// a convolution tile: TLOAD of an NC1HWC0 view cutting C1, H and W of a larger tensor, then the
// raw L1 -> GM copy of its bytes: whole (out) and in bursts with gaps (out2)
extern "C" __global__ AICORE void conv_load(__gm__ half *src, __gm__ half *out, __gm__ half *out2)
{
    constexpr int VN = 1, VC1 = 2, VH = 3, VW = 4, C0 = 16;  // the view
    constexpr int WC1 = 3, WH = 5, WW = 6;                   // the whole tensor (N = 2)
    using G = GlobalTensor<half, Shape<VN, VC1, VH, VW, C0>,
                           Stride<WC1 * WH * WW * C0, WH * WW * C0, WW * C0, C0, 1>, Layout::NC1HWC0>;
    using T = ConvTile<TileType::Mat, half, VN * VC1 * VH * VW * C0, Layout::NC1HWC0,
                       ConvTileShape<VN, VC1, VH, VW, C0>>;
    T t;
    static_assert(T::totalDimCount == 5);
    TASSIGN(t, 0x0);
    G g(src);
    TLOAD(t, g);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    copy_cbuf_to_gm(out, t.data(), 0, 1, VN * VC1 * VH * VW, 0, 0);
    copy_cbuf_to_gm(out2, t.data(), 0, VN * VC1 * VH, 2, VW - 2, 1);  // W 0..1 of each row, GM pitch 3
}

// a convolution tile of a dynamic H (the library's conv2d kernel: ConvTile(hinCount)) with its
// img2col parameters set; its shape and parameters read back into GM; then SETFMATRIX, which
// ptosim does not model, stops the run at its line
using ConvH = ConvTile<TileType::Mat, half, 2 * 4 * 8 * 16, Layout::NC1HWC0, ConvTileShape<1, 2, -1, 8, 16>>;
AICORE void conv_params(ConvH &t, int64_t h)
{
    t = ConvH(h);
    t.SetFmapH(h);
    t.SetFmapW(8);
    t.SetChannelSize(32);
    t.SetFilterH(3);
    t.SetFilterW(3);
    t.SetPadList(2, 1);
}
extern "C" __global__ AICORE void conv_dynamic_shape(__gm__ int32_t *out)
{
    ConvH t;
    conv_params(t, 3);
    out[0] = int32_t(t.GetShape(1));
    out[1] = int32_t(t.GetShape(2));
    out[2] = int32_t(t.GetShape(3));
    out[3] = t.GetFmapH() * 100 + t.GetFmapW();
    out[4] = t.GetChannelSize() * 100 + t.GetFilterH() * 10 + t.GetFilterW();
    out[5] = t.GetPadList(0) * 10 + t.GetPadList(2);
}
extern "C" __global__ AICORE void conv_setfmatrix()
{
    ConvH t;
    conv_params(t, 3);
    TASSIGN(t, 0x0);
    SETFMATRIX(t);  // @conv_setfmatrix
}

// a raw L1 -> GM copy whose burst, rounded up to whole 32-byte blocks, runs past its GM buffer
// (the library's tload_gm2mat kernel stores a 201-byte int8 row as 7 blocks, 224 bytes)
extern "C" __global__ AICORE void raw_copy_past_end(__gm__ int8_t *src, __gm__ int8_t *out)
{
    using Row = Tile<TileType::Mat, int8_t, 1, 224, BLayout::RowMajor, 1, 201>;
    using RowGm = GlobalTensor<int8_t, Shape<1, 1, 1, 1, 201>, Stride<201, 201, 201, 201, 1>>;
    Row t;
    TASSIGN(t, 0x0);
    RowGm g(src);
    TLOAD(t, g);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    copy_cbuf_to_gm(out, t.data(), 0, 1, (201 + 31) / 32, 0, 0);  // @raw_copy_past_end
}

// TEXTRACT with a preQuantScalar and int indices (template constants of the kernel), and
// TEXTRACT / TINSERT into a Vec tile with an AccToVecMode (950 Acc -> Vec): all compile; each
// entry stops at its first on a target without the form (cpu: no quantised copy into L1;
// a2a3: no Acc -> Vec)
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

// 950 quantised fixpipe stores: q = quantise(a @ b) with the preQuantScalar word s (int8, ReLU),
// h = quantise(a @ b) per column with the words in w (TSTORE_FP through a Scaling tile, half)
extern "C" __global__ AICORE void quant_stores(__gm__ half *a, __gm__ half *b, __gm__ uint64_t *w,
                                               __gm__ int8_t *q, __gm__ half *h, uint64_t s)
{
    using Fb = Tile<TileType::Scaling, uint64_t, 1, N, BLayout::RowMajor, 1, N, SLayout::NoneBox>;
    using QGm = GlobalTensor<int8_t, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
    using HGm = GlobalTensor<half, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
    WMat wMat;
    Fb fb;
    Acc acc;
    TASSIGN(fb, 0x0);
    QGm qGm(q);
    HGm hGm(h);
    gemm_and_words(acc, wMat, a, b, w);
    TSTORE<Acc, QGm, AtomicType::AtomicNone, ReluPreMode::NormalRelu>(qGm, acc, s);
    TMOV(fb, wMat);
    TSTORE_FP<Acc, HGm, Fb>(hGm, acc, fb);
}

// the a5 raw GM -> L1 copy: 3 bursts of 64 bytes, 96 bytes apart in GM and 128 apart in L1, to
// L1 byte 0x100 (out unused: the test reads L1); then one 256-byte burst to L1 byte 0x1000
extern "C" __global__ AICORE void raw_gm_to_l1(__gm__ uint8_t *src)
{
    using M = Tile<TileType::Mat, uint8_t, 3, 128, BLayout::RowMajor, 3, 128>;
    M t, u;
    TASSIGN(t, 0x100);
    TASSIGN(u, 0x1000);
    copy_gm_to_cbuf_align_v2((__cbuf__ uint8_t *)t.data(), src, 0, 3, 64, 0, 0, 0, 0, 96, 128);
    copy_gm_to_cbuf_align_v2((__cbuf__ uint8_t *)u.data(), src + 8, 0, 1, 256, 0, 0, 0, 0, 0, 0);
}

// TLOADs of MX scales from their GM layouts (the tile-level TMATMUL_MX path): A's 32 x 4 scales
// in MX_A_ZZ at L1 0x0 (the same 16 x 2 fractals), and in MX_A_ND (row by row) at L1 0x100
extern "C" __global__ AICORE void mx_scale_tload(__gm__ float8_e8m0_t *s, __gm__ float8_e8m0_t *nd)
{
    using G = GlobalTensor<float8_e8m0_t, MxA, MxAS, Layout::MX_A_ZZ>;
    using ShapeNd = TileShape2D<float8_e8m0_t, 32, 4, Layout::MX_A_ND>;
    using StrideNd = BaseShape2D<float8_e8m0_t, 32, 4, Layout::MX_A_ND>;
    using GNd = GlobalTensor<float8_e8m0_t, ShapeNd, StrideNd, Layout::MX_A_ND>;
    using T = Tile<TileType::Mat, float8_e8m0_t, 32, 4, BLayout::RowMajor, 32, 4, SLayout::RowMajor, 32>;
    G g(s);
    GNd gnd(nd);
    T t, u;
    TASSIGN(t, 0x0);
    TASSIGN(u, 0x100);
    TLOAD(t, g);
    TLOAD(u, gnd);
}

// the a5 MX intrinsics as the library's a5 textract test drives them: fp8 A (16 x 64, ND -> NZ) and
// B (64 x 16, DN -> ZN) through L1 into L0A / L0B, their scales (one 16 x 2 fractal each) by a raw
// GM -> L1 copy and load_cbuf_to_ca_mx / _cb_mx to the data addresses / 16, then mad_mx
extern "C" __global__ AICORE void mx_raw(__gm__ float8_e4m3_t *a, __gm__ float8_e4m3_t *b, __gm__ uint8_t *scales,
                                         __gm__ float *c)
{
    using XA = Tile<TileType::Mat, float8_e4m3_t, 16, 64, BLayout::ColMajor, 16, 64, SLayout::RowMajor>;
    using XB = Tile<TileType::Mat, float8_e4m3_t, 64, 16, BLayout::RowMajor, 64, 16, SLayout::ColMajor>;
    using S = Tile<TileType::Mat, uint8_t, 1, 64, BLayout::RowMajor, 1, 64>;
    using L = TileLeft<float8_e4m3_t, 16, 64>;
    using R = TileRight<float8_e4m3_t, 64, 16>;
    using C = TileAcc<float, 16, 16>;
    using AG = GlobalTensor<float8_e4m3_t, Shape<1, 1, 1, 16, 64>, Stride<1024, 1024, 1024, 64, 1>>;
    using BG = GlobalTensor<float8_e4m3_t, Shape<1, 1, 1, 64, 16>, Stride<1024, 1024, 1024, 1, 64>, Layout::DN>;
    AG ag(a);
    BG bg(b);
    CGm cg(c);
    XA xa;
    XB xb;
    S s;
    L l;
    R r;
    C acc;
    TASSIGN(xa, 0x0);
    TASSIGN(xb, 0x1000);
    TASSIGN(s, 0x2000);
    TASSIGN(l, 0x400);
    TASSIGN(r, 0x800);
    TASSIGN(acc, 0x0);
    TLOAD(xa, ag);
    TLOAD(xb, bg);
    copy_gm_to_cbuf_align_v2((__cbuf__ uint8_t *)s.data(), scales, 0, 1, 64, 0, 0, 0, 0, 0, 0);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(l, xa);
    TMOV(r, xb);
    uint64_t la = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(l.data())) / 16;
    uint64_t rb = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(r.data())) / 16;
    load_cbuf_to_ca_mx(la, static_cast<__cbuf__ void *>(s.data()), 0, 0, 1, 1, 1, 1);
    load_cbuf_to_cb_mx(rb, static_cast<__cbuf__ void *>(s.data() + 32), 0, 0, 1, 1, 1, 1);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    mad_mx(acc.data(), l.data(), r.data(), 16, 64, 16, false, false, false, true);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(cg, acc);
}

// TGEMV_MX (950): a 1 x 64 fp8 row (the valid part of a 1 x 512 Left vector) with its two scales
// loaded from a plain ND vector into a one-row ZZ Mat tile, B 64 x 32 (ND -> NZ) with its scales
// in MX_B_NN; then the same product by the raw mad_mx (m = 1, gemvCtrl 0: GEMV mode) into y2
extern "C" __global__ AICORE void mx_gemv(__gm__ float8_e4m3_t *x, __gm__ float8_e4m3_t *w, __gm__ float8_e8m0_t *sx,
                                          __gm__ float8_e8m0_t *sw, __gm__ float *y, __gm__ float *y2)
{
    constexpr int KX = 64, NX = 32, G = 2;
    using XM = Tile<TileType::Mat, float8_e4m3_t, 1, 512, BLayout::RowMajor, 1, KX>;
    using WM = Tile<TileType::Mat, float8_e4m3_t, KX, NX, BLayout::ColMajor, KX, NX, SLayout::RowMajor, 512>;
    using SXM = Tile<TileType::Mat, float8_e8m0_t, 1, G, BLayout::RowMajor, 1, G, SLayout::RowMajor, 32>;
    using SWM = Tile<TileType::Mat, float8_e8m0_t, G, NX, BLayout::ColMajor, G, NX, SLayout::ColMajor, 32>;
    using XG = GlobalTensor<float8_e4m3_t, Shape<1, 1, 1, 1, KX>, Stride<KX, KX, KX, KX, 1>>;
    using WG = GlobalTensor<float8_e4m3_t, Shape<1, 1, 1, KX, NX>, Stride<KX * NX, KX * NX, KX * NX, NX, 1>>;
    using SXG = GlobalTensor<float8_e8m0_t, Shape<1, 1, 1, 1, G>, Stride<G, G, G, G, 1>>;
    using SWShape = TileShape2D<float8_e8m0_t, G, NX, Layout::MX_B_NN>;
    using SWStride = BaseShape2D<float8_e8m0_t, G, NX, Layout::MX_B_NN>;
    using SWG = GlobalTensor<float8_e8m0_t, SWShape, SWStride, Layout::MX_B_NN>;
    using YG = GlobalTensor<float, Shape<1, 1, 1, 1, NX>, Stride<NX, NX, NX, NX, 1>>;
    XG xg(x);
    WG wg(w);
    SXG sxg(sx);
    SWG swg(sw);
    YG yg(y), yg2(y2);
    XM xm;
    WM wm;
    SXM sxm;
    SWM swm;
    TileLeft<float8_e4m3_t, 1, 512, 1, KX> xl;
    TileRightCompact<float8_e4m3_t, KX, NX, KX, NX> wr;
    TileLeftScaleCompact<float8_e8m0_t, 1, G, 1, G> sxl;
    TileRightScaleCompact<float8_e8m0_t, G, NX, G, NX> swr;
    TileAccCompact<float, 16, NX, 1, NX> ya, ya2;
    TASSIGN(xm, 0x0);
    TASSIGN(wm, 0x1000);
    TASSIGN(sxm, 0x2000);
    TASSIGN(swm, 0x3000);
    TASSIGN(xl, 0x0);
    TASSIGN(wr, 0x0);
    TASSIGN(sxl, GetScaleAddr(xl.data()));
    TASSIGN(swr, GetScaleAddr(wr.data()));
    TASSIGN(ya, 0x0);
    TASSIGN(ya2, 0x1000);
    TLOAD(xm, xg);
    TLOAD(wm, wg);
    TLOAD(sxm, sxg);
    TLOAD(swm, swg);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TEXTRACT(xl, xm, 0, 0);
    TMOV(wr, wm);
    TMOV(sxl, sxm);
    TMOV(swr, swm);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TGEMV_MX(ya, xl, sxl, wr, swr);
    mad_mx(ya2.data(), xl.data(), wr.data(), 1, KX, NX, false, false, false, true);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(yg, ya);
    TSTORE(yg2, ya2);
}
