// C++ kernels for tests/cxx/test_layoutsort.py: one entry per (instruction, C++ form, element type)
// of the layout / fill, sort, gather and data-movement families, each the twin of a Python kernel
// in the test (same tile shapes, TASSIGN addresses, flags and operands). Every entry takes four GM
// pointers (out, a, b, c); the helpers below load / store a tile's valid region.
#include <pto/pto-inst.hpp>
using namespace pto;

namespace {
template <typename T, int R, int C, int VR = R, int VC = C, PadValue P = PadValue::Null>
using V = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, VR, VC, SLayout::NoneBox, TileConfig::fractalABSize, P>;
template <typename T, int R, int C>
using G = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
using u8p = __gm__ uint8_t *;

template <int R, int C, typename TileT>
AICORE void load(TileT &t, u8p p)
{
    G<typename TileT::DType, R, C> g(reinterpret_cast<__gm__ typename TileT::DType *>(p));
    TLOAD(t, g);
}
template <int R, int C, typename TileT>
AICORE void store(u8p p, TileT &t)
{
    G<typename TileT::DType, R, C> g(reinterpret_cast<__gm__ typename TileT::DType *>(p));
    TSTORE(g, t);
}
#define SYNC(A, B)             \
    set_flag(A, B, EVENT_ID0); \
    wait_flag(A, B, EVENT_ID0)
#define ENTRY(NAME) extern "C" __global__ AICORE void NAME(u8p out, u8p a, u8p b, u8p c)
#define UNUSED (void)b, (void)c

// ---- layout / fill ----------------------------------------------------------------------------
template <typename T, typename F>
AICORE void extract(u8p out, u8p a, F op)  // src 16x32 -> dst 8x16
{
    V<T, 16, 32> src;
    V<T, 8, 16> dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x4000);
    load<16, 32>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    op(dst, src);
    SYNC(PIPE_V, PIPE_MTE3);
    store<8, 16>(out, dst);
}
template <typename T, typename F>
AICORE void insert(u8p out, u8p a, u8p b, F op)  // src 8x16 into dst 16x32
{
    V<T, 16, 32> dst;
    V<T, 8, 16> src;
    TASSIGN(dst, 0x0);
    TASSIGN(src, 0x4000);
    load<16, 32>(dst, a);
    load<8, 16>(src, b);
    SYNC(PIPE_MTE2, PIPE_V);
    op(dst, src);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, 32>(out, dst);
}
// src 16x32 with valid 8x20; dst DR x DC (full valid) with pad value P, at dst_addr
template <typename T, PadValue P, int DC, unsigned dst_addr, typename F>
AICORE void fillpad(u8p out, u8p a, F op)
{
    V<T, 16, 32, 8, 20> src;
    V<T, 16, DC, 16, DC, P> dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, dst_addr);
    load<8, 20>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    op(dst, src);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, DC>(out, dst);
}
// src 16x32 viewed as DR x DC (no TASSIGN on dst: an alias); dst's valid region is its left half,
// so the bytes stored depend on the shape
template <typename T, int DR, int DC, typename TS = T, bool AssignDst = false>
AICORE void reshape(u8p out, u8p a)
{
    V<T, 16, 32> src;
    V<TS, DR, DC, DR, DC / 2> dst;
    if constexpr (AssignDst) TASSIGN(dst, 0x4000);  // the view replaces the placement
    TASSIGN(src, 0x0);
    load<16, 32>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    TRESHAPE(dst, src);
    SYNC(PIPE_V, PIPE_MTE3);
    store<DR, DC / 2>(out, dst);
}
template <typename T, int RI, int CI, bool AssignDst = false>
AICORE void subview(u8p out, u8p a)  // an 8x16 window at (RI, CI) of a 16x32 tile
{
    V<T, 16, 32> src;
    V<T, 16, 32, 8, 16> dst;
    if constexpr (AssignDst) TASSIGN(dst, 0x4000);  // the view replaces the placement
    TASSIGN(src, 0x0);
    load<16, 32>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    TSUBVIEW(dst, src, RI, CI);
    SYNC(PIPE_V, PIPE_MTE3);
    store<8, 16>(out, dst);
}
template <typename T>
AICORE void trans(u8p out, u8p a)  // 16x32 -> 32x16 through tmp
{
    V<T, 16, 32> src;
    V<T, 32, 16> dst, tmp;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x4000);
    TASSIGN(tmp, 0x8000);
    load<16, 32>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    TTRANS(dst, src, tmp);
    SYNC(PIPE_V, PIPE_MTE3);
    store<32, 16>(out, dst);
}
template <typename T, int UpperOrLower, int Diagonal>
AICORE void tri(u8p out)
{
    using TileT = V<T, 16, 32>;
    TileT dst;
    TASSIGN(dst, 0x0);
    TTRI<TileT, UpperOrLower>(dst, Diagonal);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, 32>(out, dst);
}
} // namespace

ENTRY(TEXTRACT_f32) { UNUSED; extract<float>(out, a, [](auto &d, auto &s) { TEXTRACT(d, s); }); }
ENTRY(TEXTRACT_idx_f32) { UNUSED; extract<float>(out, a, [](auto &d, auto &s) { TEXTRACT(d, s, 4, 8); }); }
ENTRY(TEXTRACT_idx_f16) { UNUSED; extract<half>(out, a, [](auto &d, auto &s) { TEXTRACT(d, s, 4, 16); }); }
ENTRY(TEXTRACT_idx_i32) { UNUSED; extract<int32_t>(out, a, [](auto &d, auto &s) { TEXTRACT(d, s, 8, 16); }); }
ENTRY(TEXTRACT_idx_bf16) { UNUSED; extract<bfloat16_t>(out, a, [](auto &d, auto &s) { TEXTRACT(d, s, 0, 16); }); }
ENTRY(TINSERT_f32) { (void)c; insert<float>(out, a, b, [](auto &d, auto &s) { TINSERT(d, s, 4, 8); }); }
ENTRY(TINSERT_f16) { (void)c; insert<half>(out, a, b, [](auto &d, auto &s) { TINSERT(d, s, 8, 16); }); }
ENTRY(TINSERT_i32) { (void)c; insert<int32_t>(out, a, b, [](auto &d, auto &s) { TINSERT(d, s, 0, 16); }); }
ENTRY(TFILLPAD_zero_f32)
{ UNUSED; fillpad<float, PadValue::Zero, 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_max_f32)
{ UNUSED; fillpad<float, PadValue::Max, 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_min_f16)
{ UNUSED; fillpad<half, PadValue::Min, 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_max_i32)
{ UNUSED; fillpad<int32_t, PadValue::Max, 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_min_i32)
{ UNUSED; fillpad<int32_t, PadValue::Min, 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_EXPAND_max_f32)
{ UNUSED; fillpad<float, PadValue::Max, 64, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD_EXPAND(d, s); }); }
ENTRY(TFILLPAD_EXPAND_min_i32)
{ UNUSED; fillpad<int32_t, PadValue::Min, 64, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD_EXPAND(d, s); }); }
ENTRY(TFILLPAD_INPLACE_min_f32)
{ UNUSED; fillpad<float, PadValue::Min, 32, 0x0>(out, a, [](auto &d, auto &s) { TFILLPAD_INPLACE(d, s); }); }
ENTRY(TFILLPAD_INPLACE_zero_f16)
{ UNUSED; fillpad<half, PadValue::Zero, 32, 0x0>(out, a, [](auto &d, auto &s) { TFILLPAD_INPLACE(d, s); }); }
// custom pads (the pad element's bits above PadValue::CustomBase) and the TFillPadMode forms
static_assert(PadValueCustom(-1.0f) == static_cast<PadValue>(0x1BF800000ull));
static_assert(PadValueCustom((half)-1.0) == static_cast<PadValue>(0x10000BC00ull));
static_assert(PadValueCustom((bfloat16_t)-1.0) == static_cast<PadValue>(0x10000BF80ull));
static_assert(PadValueCustom(int16_t(-7)) == static_cast<PadValue>(0x10000FFF9ull));
#if __cplusplus >= 202002L  // a float template argument needs C++20: the cpu build (NPU units are C++17)
static_assert(PadCustom<2.5f> == PadValueCustom(2.5f));
#endif
static_assert(getCustomPadBits(PadCustom<42>) == 42u);
static_assert(isCustomPadValue(PadValueCustom(0.0f)) && !isCustomPadValue(PadValue::Min));
ENTRY(TFILLPAD_custom_f32)
{ UNUSED; fillpad<float, PadValueCustom(-1.0f), 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_custom_f16_expand)
{
    UNUSED;
    fillpad<half, PadValueCustom((half)-1.5), 64, 0x4000>(
        out, a, [](auto &d, auto &s) { TFILLPAD<TFillPadMode::Expand>(d, s); });
}
ENTRY(TFILLPAD_custom_i16_inplace)
{
    UNUSED;
    fillpad<int16_t, PadValueCustom(int16_t(-7)), 32, 0x0>(
        out, a, [](auto &d, auto &s) { TFILLPAD<TFillPadMode::InPlace>(d, s); });
}
ENTRY(TFILLPAD_mode_expand_f32)
{ UNUSED; fillpad<float, PadValue::Max, 64, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD<TFillPadMode::Expand>(d, s); }); }
ENTRY(TFILLPAD_mode_inplace_f16)
{ UNUSED; fillpad<half, PadValue::Min, 32, 0x0>(out, a, [](auto &d, auto &s) { TFILLPAD<TFillPadMode::InPlace>(d, s); }); }
ENTRY(TFILLPAD_custom16_f16)
{ UNUSED; fillpad<half, PadValueCustom16(0xBC00), 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_custom_i32)
{ UNUSED; fillpad<int32_t, PadValueCustom(int32_t(-7)), 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TFILLPAD_custom_two_u16)
{ UNUSED; fillpad<uint16_t, PadCustom<2>, 32, 0x4000>(out, a, [](auto &d, auto &s) { TFILLPAD(d, s); }); }
ENTRY(TRESHAPE_f32) { UNUSED; reshape<float, 32, 16>(out, a); }
ENTRY(TRESHAPE_f16) { UNUSED; reshape<half, 8, 64>(out, a); }
ENTRY(TRESHAPE_i32_u32) { UNUSED; reshape<int32_t, 64, 8, uint32_t>(out, a); }
ENTRY(TSUBVIEW_f32) { UNUSED; subview<float, 4, 8>(out, a); }
ENTRY(TSUBVIEW_f16) { UNUSED; subview<half, 2, 16>(out, a); }
ENTRY(TSUBVIEW_assigned_f32) { UNUSED; subview<float, 4, 8, true>(out, a); }
ENTRY(TRESHAPE_assigned_f32) { UNUSED; reshape<float, 32, 16, float, true>(out, a); }
ENTRY(TTRANS_f32) { UNUSED; trans<float>(out, a); }
ENTRY(TTRANS_f16) { UNUSED; trans<half>(out, a); }
ENTRY(TTRANS_i32) { UNUSED; trans<int32_t>(out, a); }
ENTRY(TTRANS_bf16) { UNUSED; trans<bfloat16_t>(out, a); }
ENTRY(TTRI_lower_f32) { (void)a, UNUSED; tri<float, 0, 0>(out); }
ENTRY(TTRI_upper_f32) { (void)a, UNUSED; tri<float, 1, 2>(out); }
ENTRY(TTRI_lower_i32) { (void)a, UNUSED; tri<int32_t, 0, -3>(out); }
ENTRY(TTRI_upper_f16) { (void)a, UNUSED; tri<half, 1, -2>(out); }
ENTRY(TTRI_lower_i16) { (void)a, UNUSED; tri<int16_t, 0, 5>(out); }
ENTRY(TTRI_upper_bf16) { (void)a, UNUSED; tri<bfloat16_t, 1, 1>(out); }

// ---- sorts ------------------------------------------------------------------------------------
namespace {
template <typename T, bool WithTmp>
AICORE void sort32(u8p out, u8p a, u8p b)  // 8 rows of 64 (score, index) pairs
{
    constexpr int DC = 64 * 8 / sizeof(T);  // 64 records of 8 bytes per row
    V<T, 8, 64> src, tmp;
    V<uint32_t, 8, 64> idx;
    V<T, 8, DC> dst;
    TASSIGN(src, 0x0);
    TASSIGN(idx, 0x1000);
    TASSIGN(dst, 0x4000);
    TASSIGN(tmp, 0x8000);
    load<8, 64>(src, a);
    load<8, 64>(idx, b);
    SYNC(PIPE_MTE2, PIPE_V);
    if constexpr (WithTmp) {
        TSORT32(dst, src, idx, tmp);
    } else {
        TSORT32(dst, src, idx);
    }
    SYNC(PIPE_V, PIPE_MTE3);
    store<8, DC>(out, dst);
}

// list k of a TMRGSORT case: N records (2N floats), loaded from `a` at float offset `at`
template <int N>
using List = V<float, 1, 2 * N>;
template <typename ListT>
AICORE void load_list(ListT &t, u8p a, int at, unsigned addr)
{
    TASSIGN(t, addr);
    load<1, ListT::Cols>(t, a + at * sizeof(float));
}
// the executed counts, as the kernel sees them after the call, into c[0..3] (scalar GM writes)
AICORE void counts(u8p c, MrgSortExecutedNumList &n)
{
    G<int32_t, 1, 8> g(reinterpret_cast<__gm__ int32_t *>(c));
    g.SetValue(0, n.mrgSortList0);
    g.SetValue(1, n.mrgSortList1);
    g.SetValue(2, n.mrgSortList2);
    g.SetValue(3, n.mrgSortList3);
}
} // namespace

ENTRY(TSORT32_f32) { (void)c; sort32<float, false>(out, a, b); }
ENTRY(TSORT32_tmp_f32) { (void)c; sort32<float, true>(out, a, b); }
ENTRY(TSORT32_f16) { (void)c; sort32<half, false>(out, a, b); }
ENTRY(TSORT32_tmp_f16) { (void)c; sort32<half, true>(out, a, b); }

ENTRY(TMRGSORT2_f32)
{
    (void)b;
    List<32> s0;
    List<16> s1;
    V<float, 1, 96> dst, tmp;
    load_list(s0, a, 0, 0x0);
    load_list(s1, a, 64, 0x400);
    TASSIGN(dst, 0x800);
    TASSIGN(tmp, 0xC00);
    SYNC(PIPE_MTE2, PIPE_V);
    MrgSortExecutedNumList n;
    TMRGSORT<decltype(dst), decltype(tmp), decltype(s0), decltype(s1), false>(dst, n, tmp, s0, s1);
    SYNC(PIPE_V, PIPE_MTE3);
    store<1, 96>(out, dst);
    counts(c, n);
}
ENTRY(TMRGSORT3_f32)
{
    (void)b;
    List<32> s0;
    List<16> s1;
    List<8> s2;
    V<float, 1, 112> dst, tmp;
    load_list(s0, a, 0, 0x0);
    load_list(s1, a, 64, 0x400);
    load_list(s2, a, 96, 0x600);
    TASSIGN(dst, 0x800);
    TASSIGN(tmp, 0xC00);
    SYNC(PIPE_MTE2, PIPE_V);
    MrgSortExecutedNumList n;
    TMRGSORT<decltype(dst), decltype(tmp), decltype(s0), decltype(s1), decltype(s2), false>(dst, n, tmp, s0, s1,
                                                                                             s2);
    SYNC(PIPE_V, PIPE_MTE3);
    store<1, 112>(out, dst);
    counts(c, n);
}
ENTRY(TMRGSORT4_f32)
{
    (void)b;
    List<32> s0;
    List<16> s1;
    List<8> s2;
    List<24> s3;
    V<float, 1, 160> dst, tmp;
    load_list(s0, a, 0, 0x0);
    load_list(s1, a, 64, 0x400);
    load_list(s2, a, 96, 0x600);
    load_list(s3, a, 112, 0x700);
    TASSIGN(dst, 0x800);
    TASSIGN(tmp, 0xC00);
    SYNC(PIPE_MTE2, PIPE_V);
    MrgSortExecutedNumList n;
    TMRGSORT<decltype(dst), decltype(tmp), decltype(s0), decltype(s1), decltype(s2), decltype(s3), false>(
        dst, n, tmp, s0, s1, s2, s3);
    SYNC(PIPE_V, PIPE_MTE3);
    store<1, 160>(out, dst);
    counts(c, n);
}
ENTRY(TMRGSORT_exhausted_f32)
{
    (void)b;
    List<32> s0;
    List<16> s1;
    V<float, 1, 96> dst, tmp;
    load_list(s0, a, 0, 0x0);
    load_list(s1, a, 64, 0x400);
    TASSIGN(dst, 0x800);
    TASSIGN(tmp, 0xC00);
    SYNC(PIPE_MTE2, PIPE_V);
    MrgSortExecutedNumList n;
    TMRGSORT<decltype(dst), decltype(tmp), decltype(s0), decltype(s1), true>(dst, n, tmp, s0, s1);
    SYNC(PIPE_V, PIPE_MTE3);
    store<1, 96>(out, dst);
    counts(c, n);
}
ENTRY(TMRGSORT_blocklen_f32)
{
    UNUSED;
    List<64> src;
    V<float, 1, 128> dst;
    load_list(src, a, 0, 0x0);
    TASSIGN(dst, 0x800);
    SYNC(PIPE_MTE2, PIPE_V);
    TMRGSORT(dst, src, 32);
    SYNC(PIPE_V, PIPE_MTE3);
    store<1, 128>(out, dst);
}

namespace {
template <typename T, HistByte B>
AICORE void hist(u8p out, u8p a, u8p b)
{
    V<T, 4, 64> src;
    V<uint8_t, 4, 32> idx;
    V<uint32_t, 4, 256> dst;
    TASSIGN(src, 0x0);
    TASSIGN(idx, 0x1000);
    TASSIGN(dst, 0x2000);
    load<4, 64>(src, a);
    load<4, 32>(idx, b);
    SYNC(PIPE_MTE2, PIPE_V);
    THISTOGRAM<B>(dst, src, idx);
    SYNC(PIPE_V, PIPE_MTE3);
    store<4, 256>(out, dst);
}
} // namespace

ENTRY(THISTOGRAM_u16_b0) { (void)c; hist<uint16_t, HistByte::BYTE_0>(out, a, b); }
ENTRY(THISTOGRAM_u16_b1) { (void)c; hist<uint16_t, HistByte::BYTE_1>(out, a, b); }
ENTRY(THISTOGRAM_u32_b0) { (void)c; hist<uint32_t, HistByte::BYTE_0>(out, a, b); }
ENTRY(THISTOGRAM_u32_b2) { (void)c; hist<uint32_t, HistByte::BYTE_2>(out, a, b); }
ENTRY(THISTOGRAM_u32_b3) { (void)c; hist<uint32_t, HistByte::BYTE_3>(out, a, b); }

// ---- gather -----------------------------------------------------------------------------------
namespace {
template <typename T>
AICORE void gather_index(u8p out, u8p a, u8p b)  // dst = src0_flat[idx], idx int32 with tmp
{
    V<T, 16, 32> src, dst;
    V<int32_t, 16, 32> idx, tmp;
    TASSIGN(src, 0x0);
    TASSIGN(idx, 0x2000);
    TASSIGN(tmp, 0x4000);
    TASSIGN(dst, 0x6000);
    load<16, 32>(src, a);
    load<16, 32>(idx, b);
    SYNC(PIPE_MTE2, PIPE_V);
    TGATHER(dst, src, idx, tmp);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, 32>(out, dst);
}
template <typename T, int DR, int DC, typename F>
AICORE void gather_mask(u8p out, u8p a, F op)  // a 16x32 src compacted into DR x DC
{
    V<T, 16, 32> src;
    V<T, DR, DC> dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x4000);
    load<16, 32>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    op(dst, src);
    SYNC(PIPE_V, PIPE_MTE3);
    store<DR, DC>(out, dst);
}
template <typename T>
AICORE void gatherb(u8p out, u8p a, u8p b)  // 32-byte blocks of a 1 KiB src by byte offsets
{
    constexpr int C = 128 / sizeof(T);
    V<T, 8, C> src, dst;
    V<uint32_t, 8, 8> off;
    TASSIGN(src, 0x0);
    TASSIGN(off, 0x1000);
    TASSIGN(dst, 0x2000);
    load<8, C>(src, a);
    load<8, 8>(off, b);
    SYNC(PIPE_MTE2, PIPE_V);
    TGATHERB(dst, src, off);
    SYNC(PIPE_V, PIPE_MTE3);
    store<8, C>(out, dst);
}
#define MASK2(P, AX) [](auto &d, auto &s) { TGATHER<MaskPattern::P, GatherAxis::AX>(d, s); }
} // namespace

ENTRY(TGATHER_idx_f32) { (void)c; gather_index<float>(out, a, b); }
ENTRY(TGATHER_idx_f16) { (void)c; gather_index<half>(out, a, b); }
ENTRY(TGATHER_idx_i32) { (void)c; gather_index<int32_t>(out, a, b); }
ENTRY(TGATHER_idx_bf16) { (void)c; gather_index<bfloat16_t>(out, a, b); }
ENTRY(TGATHER_P0101_row_f32) { UNUSED; gather_mask<float, 16, 16>(out, a, MASK2(P0101, GATHER_ROW)); }
ENTRY(TGATHER_P1010_f16)
{ UNUSED; gather_mask<half, 16, 16>(out, a, [](auto &d, auto &s) { TGATHER<MaskPattern::P1010>(d, s); }); }
ENTRY(TGATHER_P0001_row_i32) { UNUSED; gather_mask<int32_t, 16, 8>(out, a, MASK2(P0001, GATHER_ROW)); }
ENTRY(TGATHER_P0100_row_f32) { UNUSED; gather_mask<float, 16, 8>(out, a, MASK2(P0100, GATHER_ROW)); }
ENTRY(TGATHER_P1111_row_f32) { UNUSED; gather_mask<float, 16, 32>(out, a, MASK2(P1111, GATHER_ROW)); }
ENTRY(TGATHER_P0010_col_f32) { UNUSED; gather_mask<float, 4, 32>(out, a, MASK2(P0010, GATHER_COL)); }
ENTRY(TGATHER_P1000_col_f16) { UNUSED; gather_mask<half, 4, 32>(out, a, MASK2(P1000, GATHER_COL)); }
ENTRY(TGATHER_typed_P1010_f32)
{
    UNUSED;
    gather_mask<float, 16, 16>(out, a, [](auto &d, auto &s) {
        TGATHER<std::decay_t<decltype(d)>, std::decay_t<decltype(s)>, MaskPattern::P1010>(d, s);
    });
}
// the compare form (a2: its float kValue is refused at this line; other targets: not modelled)
ENTRY(TGATHER_cmp_f32)
{
    UNUSED, (void)a, (void)out;
    V<float, 16, 32> src, kvalue, tmp;
    V<uint32_t, 16, 32> dst, cdst;
    TASSIGN(src, 0x0);
    TASSIGN(kvalue, 0x2000);
    TASSIGN(tmp, 0x4000);
    TASSIGN(dst, 0x6000);
    TASSIGN(cdst, 0x8000);
    TGATHER<decltype(dst), decltype(src), CmpMode::GT>(dst, src, kvalue, cdst, tmp, 0u);
}
ENTRY(TGATHERB_f32) { (void)c; gatherb<float>(out, a, b); }
ENTRY(TGATHERB_f16) { (void)c; gatherb<half>(out, a, b); }
ENTRY(TGATHERB_u8) { (void)c; gatherb<uint8_t>(out, a, b); }

// ---- data movement and the seeds' template forms -----------------------------------------------
namespace {
template <typename T, typename F>
AICORE void one_tile(u8p out, u8p a, F op)  // dst = op(src) on 16x32 tiles
{
    V<T, 16, 32> src, dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x4000);
    load<16, 32>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    op(dst, src);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, 32>(out, dst);
}
} // namespace

ENTRY(TMOV_f32) { UNUSED; one_tile<float>(out, a, [](auto &d, auto &s) { TMOV(d, s); }); }
ENTRY(TMOV_f16) { UNUSED; one_tile<half>(out, a, [](auto &d, auto &s) { TMOV(d, s); }); }
ENTRY(TMOV_i32) { UNUSED; one_tile<int32_t>(out, a, [](auto &d, auto &s) { TMOV(d, s); }); }
ENTRY(TMOV_bf16) { UNUSED; one_tile<bfloat16_t>(out, a, [](auto &d, auto &s) { TMOV(d, s); }); }
ENTRY(TEXPANDS_f32) { UNUSED; one_tile<float>(out, a, [](auto &d, auto &) { TEXPANDS(d, 1.5f); }); }
ENTRY(TEXPANDS_f16) { UNUSED; one_tile<half>(out, a, [](auto &d, auto &) { TEXPANDS(d, (half)-2.5f); }); }
ENTRY(TEXPANDS_i32) { UNUSED; one_tile<int32_t>(out, a, [](auto &d, auto &) { TEXPANDS(d, -7); }); }
ENTRY(TEXPANDS_bf16) { UNUSED; one_tile<bfloat16_t>(out, a, [](auto &d, auto &) { TEXPANDS(d, (bfloat16_t)1.25f); }); }

// TASSIGN(tile, addr), TASSIGN<addr>(tile) and TASSIGN(tile, data() + bytes): windows of one
// loaded 16x32 tile (rows 8.., 4.., 2..) stored to out, b and c
ENTRY(TASSIGN_forms_f32)
{
    V<float, 16, 32> whole;
    V<float, 8, 32> w8, w4, w2;
    TASSIGN<0x0>(whole);
    load<16, 32>(whole, a);
    TASSIGN(w8, 0x400);
    TASSIGN<0x200>(w4);
    TASSIGN(w2, (uint64_t)whole.data() + 0x100);
    SYNC(PIPE_MTE2, PIPE_MTE3);
    store<8, 32>(out, w8);
    store<8, 32>(b, w4);
    store<8, 32>(c, w2);
}

namespace {
using TableGm = G<float, 64, 32>;
// Row: a 1x16 index tile selects 16 rows of the 64x32 table; Elem: a 16x32 index tile selects
// elements of the flat table
template <bool Row, typename F>
AICORE void mgather(u8p out, u8p table, u8p index, F op)
{
    TableGm tab(reinterpret_cast<__gm__ float *>(table));
    V<float, 16, 32> dst;
    V<int32_t, Row ? 1 : 16, Row ? 16 : 32> idx;
    TASSIGN(dst, 0x0);
    TASSIGN(idx, 0x4000);
    load<Row ? 1 : 16, Row ? 16 : 32>(idx, index);
    SYNC(PIPE_MTE2, PIPE_V);
    op(dst, tab, idx);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, 32>(out, dst);
}
template <bool Row, typename F>
AICORE void mscatter(u8p table, u8p source, u8p index, F op)
{
    TableGm tab(reinterpret_cast<__gm__ float *>(table));
    V<float, 16, 32> src;
    V<int32_t, Row ? 1 : 16, Row ? 16 : 32> idx;
    TASSIGN(src, 0x0);
    TASSIGN(idx, 0x4000);
    load<16, 32>(src, source);
    load<Row ? 1 : 16, Row ? 16 : 32>(idx, index);
    SYNC(PIPE_MTE2, PIPE_V);
    op(tab, src, idx);
}
#define GOP(...) [](auto &d, auto &t, auto &i) { MGATHER<__VA_ARGS__>(d, t, i); }
#define SOP(...) [](auto &t, auto &s, auto &i) { MSCATTER<__VA_ARGS__>(t, s, i); }
} // namespace

ENTRY(MGATHER_plain_row) { mgather<true>(out, a, b, [](auto &d, auto &t, auto &i) { MGATHER(d, t, i); }); (void)c; }
ENTRY(MGATHER_plain_elem) { mgather<false>(out, a, b, [](auto &d, auto &t, auto &i) { MGATHER(d, t, i); }); (void)c; }
ENTRY(MGATHER_row) { (void)c; mgather<true>(out, a, b, GOP(Coalesce::Row)); }
ENTRY(MGATHER_elem) { (void)c; mgather<false>(out, a, b, GOP(Coalesce::Elem)); }
ENTRY(MGATHER_row_clamp) { (void)c; mgather<true>(out, a, b, GOP(Coalesce::Row, GatherOOB::Clamp)); }
ENTRY(MGATHER_elem_wrap) { (void)c; mgather<false>(out, a, b, GOP(Coalesce::Elem, GatherOOB::Wrap)); }
ENTRY(MGATHER_elem_zero) { (void)c; mgather<false>(out, a, b, GOP(Coalesce::Elem, GatherOOB::Zero)); }
ENTRY(MGATHER_oob_zero_row) { (void)c; mgather<true>(out, a, b, GOP(GatherOOB::Zero)); }
ENTRY(MGATHER_exec_scalar)
{ (void)c; mgather<false>(out, a, b, GOP(Coalesce::Elem, GatherOOB::Clamp, GatherExec::Scalar)); }
ENTRY(MGATHER_exec_simt)
{ (void)c; mgather<false>(out, a, b, GOP(Coalesce::Elem, GatherOOB::Undefined, GatherExec::Simt)); }

// GM -> L1 Elem gather (an NZ Mat tile, idx a GM tensor, the GM scratch the library stages in)
template <GatherExec Exec>
AICORE void mgather_l1(u8p scratch_gm, u8p table, u8p index)
{
    using MatT = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor,
                      TileConfig::fractalABSize>;
    G<float, 1, 256> tab(reinterpret_cast<__gm__ float *>(table));
    G<int32_t, 16, 16> idx(reinterpret_cast<__gm__ int32_t *>(index));
    G<float, 1, 256> scratch(reinterpret_cast<__gm__ float *>(scratch_gm));
    MatT dst;
    TASSIGN(dst, 0x0);
    MGATHER<Coalesce::Elem, GatherOOB::Zero, Exec>(dst, tab, idx, scratch);
}
ENTRY(MGATHER_L1_scalar) { (void)c; mgather_l1<GatherExec::Scalar>(out, a, b); }
ENTRY(MGATHER_L1_simt) { (void)c; mgather_l1<GatherExec::Simt>(out, a, b); }

ENTRY(MSCATTER_plain_row) { mscatter<true>(out, a, b, [](auto &t, auto &s, auto &i) { MSCATTER(t, s, i); }); (void)c; }
ENTRY(MSCATTER_plain_elem) { mscatter<false>(out, a, b, [](auto &t, auto &s, auto &i) { MSCATTER(t, s, i); }); (void)c; }
ENTRY(MSCATTER_row) { (void)c; mscatter<true>(out, a, b, SOP(Coalesce::Row)); }
ENTRY(MSCATTER_elem_add_skip)
{ (void)c; mscatter<false>(out, a, b, SOP(Coalesce::Elem, ScatterAtomicOp::Add, ScatterOOB::Skip)); }
ENTRY(MSCATTER_elem_max_clamp)
{ (void)c; mscatter<false>(out, a, b, SOP(Coalesce::Elem, ScatterAtomicOp::Max, ScatterOOB::Clamp)); }
ENTRY(MSCATTER_row_min_wrap)
{ (void)c; mscatter<true>(out, a, b, SOP(Coalesce::Row, ScatterAtomicOp::Min, ScatterOOB::Wrap)); }
ENTRY(MSCATTER_elem_last)
{
    (void)c;
    mscatter<false>(out, a, b,
                    SOP(Coalesce::Elem, ScatterAtomicOp::None, ScatterOOB::Undefined, ScatterConflict::Last));
}
ENTRY(MSCATTER_elem_default)
{
    (void)c;
    mscatter<false>(out, a, b,
                    SOP(Coalesce::Elem, ScatterAtomicOp::None, ScatterOOB::Skip, ScatterConflict::Default));
}

namespace {
template <typename T, typename TI>
AICORE void tscatter_index(u8p out, u8p a, u8p b)  // dst_flat[idx] = src, a permutation
{
    V<T, 16, 32> src, dst;
    V<TI, 16, 32> idx;
    TASSIGN(src, 0x0);
    TASSIGN(idx, 0x2000);
    TASSIGN(dst, 0x4000);
    load<16, 32>(src, a);
    load<16, 32>(idx, b);
    SYNC(PIPE_MTE2, PIPE_V);
    TSCATTER(dst, src, idx);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, 32>(out, dst);
}
template <typename T, int SR, int SC, typename F>
AICORE void tscatter_mask(u8p out, u8p a, F op)  // an SR x SC src spread into a 16x32 dst
{
    V<T, SR, SC> src;
    V<T, 16, 32> dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x4000);
    load<SR, SC>(src, a);
    SYNC(PIPE_MTE2, PIPE_V);
    op(dst, src);
    SYNC(PIPE_V, PIPE_MTE3);
    store<16, 32>(out, dst);
}
} // namespace

ENTRY(TSCATTER_idx_f32) { (void)c; tscatter_index<float, int32_t>(out, a, b); }
ENTRY(TSCATTER_idx_i32) { (void)c; tscatter_index<int32_t, int32_t>(out, a, b); }
ENTRY(TSCATTER_idx_f16) { (void)c; tscatter_index<half, int16_t>(out, a, b); }
ENTRY(TSCATTER_default_f32)
{ UNUSED; tscatter_mask<float, 16, 32>(out, a, [](auto &d, auto &s) { TSCATTER(d, s); }); }
ENTRY(TSCATTER_P0101_f16)
{ UNUSED; tscatter_mask<half, 16, 16>(out, a, [](auto &d, auto &s) { TSCATTER<MaskPattern::P0101>(d, s); }); }
ENTRY(TSCATTER_P0100_row_f32)
{
    UNUSED;
    tscatter_mask<float, 16, 8>(
        out, a, [](auto &d, auto &s) { TSCATTER<MaskPattern::P0100, ScatterAxis::SCATTER_ROW>(d, s); });
}
ENTRY(TSCATTER_P0010_col_i32)
{
    UNUSED;
    tscatter_mask<int32_t, 4, 32>(
        out, a, [](auto &d, auto &s) { TSCATTER<MaskPattern::P0010, ScatterAxis::SCATTER_COL>(d, s); });
}
