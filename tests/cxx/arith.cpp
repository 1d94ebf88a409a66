// C++ kernels for tests/cxx/test_arith.py: one entry per (instruction, C++ form, element type)
// of the arithmetic families (row / column broadcasts, partial ops, integer and bitwise ops, the
// remaining elementwise math, the *Algorithm template forms, the 20 plain elementwise ops in
// bfloat16 / int32 / int16). The test builds the same kernel in Python from its case table
// (keep them in step): tiles at slot * 0x1000 in the order x, y, d, t (xi, yi, di for the arg
// forms), loads in argument order after the outputs, one flag pair around the instruction.
#include <pto/pto-inst.hpp>
using namespace pto;

namespace {
constexpr int R = 16, C = 32;
template <typename T, int Rows = R, int Cols = C, int VR = Rows, int VC = Cols>
using RM = Tile<TileType::Vec, T, Rows, Cols, BLayout::RowMajor, VR, VC>;
template <typename T, int Rows = R>
using CM = Tile<TileType::Vec, T, Rows, 1, BLayout::ColMajor, Rows, 1>;

// packed GM for a tile's valid region: ND for RowMajor tiles, DN for ColMajor ones
template <typename TT, int VR = TT::ValidRow, int VC = TT::ValidCol>
using G = GlobalTensor<typename TT::DType, Shape<1, 1, 1, VR, VC>,
                       std::conditional_t<TT::isRowMajor, Stride<VR * VC, VR * VC, VR * VC, VC, 1>,
                                          Stride<VR * VC, VR * VC, VR * VC, 1, VR>>,
                       TT::isRowMajor ? Layout::ND : Layout::DN>;

template <typename TT>
AICORE void ld(TT &t, __gm__ typename TT::DType *p)
{
    G<TT> g(p);
    TLOAD(t, g);
}
template <typename TT>
AICORE void st(__gm__ typename TT::DType *p, TT &t)
{
    G<TT> g(p);
    TSTORE(g, t);
}

// full [R, C] tiles, [R, 1] ColMajor columns, [1, C] rows, [R, 32 B] blocks, partial shapes
using F = RM<float>;
using H = RM<half>;
using B = RM<bfloat16>;
using I = RM<int32_t>;
using S = RM<int16_t>;
using U = RM<uint16_t>;
using CF = CM<float>;
using CH = CM<half>;
using CB = CM<bfloat16>;
using CI = CM<int32_t>;
using CS = CM<int16_t>;
using CU = CM<uint16_t>;
using RF = RM<float, 1, C>;
using RH = RM<half, 1, C>;
using RB = RM<bfloat16, 1, C>;
using RI = RM<int32_t, 1, C>;
using RS = RM<int16_t, 1, C>;
using RU = RM<uint16_t, 1, C>;
using BLF = RM<float, R, 8>;
using BLH = RM<half, R, 16>;
using F8x1 = RM<float, R, 8, R, 1>;  // a RowMajor source whose valid width is 1
using F8 = RM<float, R, C, 8, C>;    // valid rows 8 of 16
using I8 = RM<int32_t, R, C, 8, C>;
using S8 = RM<int16_t, R, C, 8, C>;
using B8 = RM<bfloat16, R, C, 8, C>;
using H16 = RM<half, R, C, R, 16>;   // valid columns 16 of 32
using U8 = RM<uint8_t, 32, 32>;      // TPRELU's tmp: more rows than dst
// TREM's tmp: one row of C plus its compare mask (2 per 64 columns), 32-byte rows
using FRem = RM<float, 1, 40>;
using HRem = RM<half, 1, 48>;
using IRem = RM<int32_t, 1, 40>;
} // namespace

#define IN_SYNC                                  \
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);      \
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)
#define OUT_SYNC                                 \
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);      \
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)

// one source x -> d
#define K1(NAME, D, X, ...)                                                                    \
    extern "C" __global__ AICORE void NAME(__gm__ D::DType *out, __gm__ X::DType *a)            \
    {                                                                                          \
        X x;                                                                                   \
        D d;                                                                                   \
        TASSIGN(x, 0x0000);                                                                    \
        TASSIGN(d, 0x2000);                                                                    \
        ld(x, a);                                                                              \
        IN_SYNC;                                                                               \
        __VA_ARGS__;                                                                           \
        OUT_SYNC;                                                                              \
        st(out, d);                                                                            \
    }
// one source x and a tmp tile t -> d
#define K1T(NAME, D, X, T, ...)                                                                \
    extern "C" __global__ AICORE void NAME(__gm__ D::DType *out, __gm__ X::DType *a)            \
    {                                                                                          \
        X x;                                                                                   \
        D d;                                                                                   \
        T t;                                                                                   \
        TASSIGN(x, 0x0000);                                                                    \
        TASSIGN(d, 0x2000);                                                                    \
        TASSIGN(t, 0x3000);                                                                    \
        ld(x, a);                                                                              \
        IN_SYNC;                                                                               \
        __VA_ARGS__;                                                                           \
        OUT_SYNC;                                                                              \
        st(out, d);                                                                            \
    }
// two sources x, y -> d
#define K2(NAME, D, X, Y, ...)                                                                 \
    extern "C" __global__ AICORE void NAME(__gm__ D::DType *out, __gm__ X::DType *a,            \
                                           __gm__ Y::DType *b)                                 \
    {                                                                                          \
        X x;                                                                                   \
        Y y;                                                                                   \
        D d;                                                                                   \
        TASSIGN(x, 0x0000);                                                                    \
        TASSIGN(y, 0x1000);                                                                    \
        TASSIGN(d, 0x2000);                                                                    \
        ld(x, a);                                                                              \
        ld(y, b);                                                                              \
        IN_SYNC;                                                                               \
        __VA_ARGS__;                                                                           \
        OUT_SYNC;                                                                              \
        st(out, d);                                                                            \
    }
// two sources x, y and a tmp tile t -> d
#define K2T(NAME, D, X, Y, T, ...)                                                             \
    extern "C" __global__ AICORE void NAME(__gm__ D::DType *out, __gm__ X::DType *a,            \
                                           __gm__ Y::DType *b)                                 \
    {                                                                                          \
        X x;                                                                                   \
        Y y;                                                                                   \
        D d;                                                                                   \
        T t;                                                                                   \
        TASSIGN(x, 0x0000);                                                                    \
        TASSIGN(y, 0x1000);                                                                    \
        TASSIGN(d, 0x2000);                                                                    \
        TASSIGN(t, 0x3000);                                                                    \
        ld(x, a);                                                                              \
        ld(y, b);                                                                              \
        IN_SYNC;                                                                               \
        __VA_ARGS__;                                                                           \
        OUT_SYNC;                                                                              \
        st(out, d);                                                                            \
    }
// d is read and written (TAXPY): x from a, d from b, d stored to out
#define KIO(NAME, D, X, ...)                                                                   \
    extern "C" __global__ AICORE void NAME(__gm__ D::DType *out, __gm__ X::DType *a,            \
                                           __gm__ D::DType *b)                                 \
    {                                                                                          \
        X x;                                                                                   \
        D d;                                                                                   \
        TASSIGN(x, 0x0000);                                                                    \
        TASSIGN(d, 0x2000);                                                                    \
        ld(x, a);                                                                              \
        ld(d, b);                                                                              \
        IN_SYNC;                                                                               \
        __VA_ARGS__;                                                                           \
        OUT_SYNC;                                                                              \
        st(out, d);                                                                            \
    }

// ---- row broadcast (vector_isa.md 3.6): the [R,1] ColMajor operand gives one scalar per row
K1(TROWEXPAND_f32, F, CF, TROWEXPAND(d, x))
K2(TROWEXPANDADD_f32, F, F, CF, TROWEXPANDADD(d, x, y))
K2T(TROWEXPANDADD_tmp_f32, F, F, CF, BLF, TROWEXPANDADD(d, x, y, t))
K2(TROWEXPANDSUB_f32, F, F, CF, TROWEXPANDSUB(d, x, y))
K2T(TROWEXPANDSUB_tmp_f32, F, F, CF, BLF, TROWEXPANDSUB(d, x, y, t))
K2(TROWEXPANDMUL_f32, F, F, CF, TROWEXPANDMUL(d, x, y))
K2T(TROWEXPANDMUL_tmp_f32, F, F, CF, BLF, TROWEXPANDMUL(d, x, y, t))
K2(TROWEXPANDDIV_f32, F, F, CF, TROWEXPANDDIV(d, x, y))
K2T(TROWEXPANDDIV_tmp_f32, F, F, CF, BLF, TROWEXPANDDIV(d, x, y, t))
K2(TROWEXPANDMAX_f32, F, F, CF, TROWEXPANDMAX(d, x, y))
K2T(TROWEXPANDMAX_tmp_f32, F, F, CF, BLF, TROWEXPANDMAX(d, x, y, t))
K2(TROWEXPANDMIN_f32, F, F, CF, TROWEXPANDMIN(d, x, y))
K2T(TROWEXPANDMIN_tmp_f32, F, F, CF, BLF, TROWEXPANDMIN(d, x, y, t))
K2(TROWEXPANDEXPDIF_f32, F, F, CF, TROWEXPANDEXPDIF(d, x, y))
K2T(TROWEXPANDEXPDIF_tmp_f32, F, F, CF, BLF, TROWEXPANDEXPDIF(d, x, y, t))
K1(TROWEXPAND_f16, H, CH, TROWEXPAND(d, x))
K2(TROWEXPANDADD_f16, H, H, CH, TROWEXPANDADD(d, x, y))
K2T(TROWEXPANDADD_tmp_f16, H, H, CH, BLH, TROWEXPANDADD(d, x, y, t))
K2(TROWEXPANDSUB_f16, H, H, CH, TROWEXPANDSUB(d, x, y))
K2T(TROWEXPANDSUB_tmp_f16, H, H, CH, BLH, TROWEXPANDSUB(d, x, y, t))
K2(TROWEXPANDMUL_f16, H, H, CH, TROWEXPANDMUL(d, x, y))
K2T(TROWEXPANDMUL_tmp_f16, H, H, CH, BLH, TROWEXPANDMUL(d, x, y, t))
K2(TROWEXPANDDIV_f16, H, H, CH, TROWEXPANDDIV(d, x, y))
K2T(TROWEXPANDDIV_tmp_f16, H, H, CH, BLH, TROWEXPANDDIV(d, x, y, t))
K2(TROWEXPANDMAX_f16, H, H, CH, TROWEXPANDMAX(d, x, y))
K2T(TROWEXPANDMAX_tmp_f16, H, H, CH, BLH, TROWEXPANDMAX(d, x, y, t))
K2(TROWEXPANDMIN_f16, H, H, CH, TROWEXPANDMIN(d, x, y))
K2T(TROWEXPANDMIN_tmp_f16, H, H, CH, BLH, TROWEXPANDMIN(d, x, y, t))
K2(TROWEXPANDEXPDIF_f16, H, H, CH, TROWEXPANDEXPDIF(d, x, y))
K2T(TROWEXPANDEXPDIF_tmp_f16, H, H, CH, BLH, TROWEXPANDEXPDIF(d, x, y, t))
K1(TROWEXPAND_rowmajor_f32, F, F8x1, TROWEXPAND(d, x))
K1(TROWEXPAND_i16, S, CS, TROWEXPAND(d, x))
K1(TROWEXPAND_i32, I, CI, TROWEXPAND(d, x))
K1(TROWEXPAND_bf16, B, CB, TROWEXPAND(d, x))
// the expanded operand first (the result keeps the operand order); mode 2: one 32 B block per row
K2(TROWEXPANDSUB_src0_f32, F, CF, F, TROWEXPANDSUB(d, x, y))
K2(TROWEXPANDDIV_src0_f16, H, CH, H, TROWEXPANDDIV(d, x, y))
K2(TROWEXPANDEXPDIF_src0_f32, F, CF, F, TROWEXPANDEXPDIF(d, x, y))
K2(TROWEXPANDMUL_mode2_f32, F, F, BLF, TROWEXPANDMUL(d, x, y))
K2(TROWEXPANDADD_i32, I, I, CI, TROWEXPANDADD(d, x, y))
K2(TROWEXPANDMAX_i16, S, S, CS, TROWEXPANDMAX(d, x, y))
K2(TROWEXPANDADD_bf16, B, B, CB, TROWEXPANDADD(d, x, y))
K2(TROWEXPANDMIN_u16, U, U, CU, TROWEXPANDMIN(d, x, y))

// ---- column broadcast (3.18): the [1,C] operand is added to every row
K1(TCOLEXPAND_f32, F, RF, TCOLEXPAND(d, x))
K2(TCOLEXPANDADD_f32, F, F, RF, TCOLEXPANDADD(d, x, y))
K2(TCOLEXPANDSUB_f32, F, F, RF, TCOLEXPANDSUB(d, x, y))
K2(TCOLEXPANDMUL_f32, F, F, RF, TCOLEXPANDMUL(d, x, y))
K2(TCOLEXPANDDIV_f32, F, F, RF, TCOLEXPANDDIV(d, x, y))
K2(TCOLEXPANDMAX_f32, F, F, RF, TCOLEXPANDMAX(d, x, y))
K2(TCOLEXPANDMIN_f32, F, F, RF, TCOLEXPANDMIN(d, x, y))
K2(TCOLEXPANDEXPDIF_f32, F, F, RF, TCOLEXPANDEXPDIF(d, x, y))
K1(TCOLEXPAND_f16, H, RH, TCOLEXPAND(d, x))
K2(TCOLEXPANDADD_f16, H, H, RH, TCOLEXPANDADD(d, x, y))
K2(TCOLEXPANDSUB_f16, H, H, RH, TCOLEXPANDSUB(d, x, y))
K2(TCOLEXPANDMUL_f16, H, H, RH, TCOLEXPANDMUL(d, x, y))
K2(TCOLEXPANDDIV_f16, H, H, RH, TCOLEXPANDDIV(d, x, y))
K2(TCOLEXPANDMAX_f16, H, H, RH, TCOLEXPANDMAX(d, x, y))
K2(TCOLEXPANDMIN_f16, H, H, RH, TCOLEXPANDMIN(d, x, y))
K2(TCOLEXPANDEXPDIF_f16, H, H, RH, TCOLEXPANDEXPDIF(d, x, y))
K1(TCOLEXPAND_i32, I, RI, TCOLEXPAND(d, x))
K2(TCOLEXPANDSUB_src0_f32, F, RF, F, TCOLEXPANDSUB(d, x, y))
K2(TCOLEXPANDADD_i32, I, I, RI, TCOLEXPANDADD(d, x, y))
K2(TCOLEXPANDMAX_i16, S, S, RS, TCOLEXPANDMAX(d, x, y))
K2(TCOLEXPANDADD_bf16, B, B, RB, TCOLEXPANDADD(d, x, y))
K2(TCOLEXPANDMUL_u16, U, U, RU, TCOLEXPANDMUL(d, x, y))

// ---- partial ops (3.22): src1 smaller in rows (f32), src0 smaller in columns (f16)
K2(TPARTADD_f32, F, F, F8, TPARTADD(d, x, y))
K2(TPARTADD_f16, H, H16, H, TPARTADD(d, x, y))
K2(TPARTMUL_f32, F, F, F8, TPARTMUL(d, x, y))
K2(TPARTMUL_f16, H, H16, H, TPARTMUL(d, x, y))
K2(TPARTMAX_f32, F, F, F8, TPARTMAX(d, x, y))
K2(TPARTMAX_f16, H, H16, H, TPARTMAX(d, x, y))
K2(TPARTMIN_f32, F, F, F8, TPARTMIN(d, x, y))
K2(TPARTMIN_f16, H, H16, H, TPARTMIN(d, x, y))
K2(TPARTADD_i32, I, I, I8, TPARTADD(d, x, y))
K2(TPARTMAX_i16, S, S, S8, TPARTMAX(d, x, y))
K2(TPARTADD_bf16, B, B, B8, TPARTADD(d, x, y))
// value + index tiles in the library's C++ order (dst, src0, src1, dstIdx, src0Idx, src1Idx);
// ptosim's Python order is (dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx)
#define KARG(NAME, OP)                                                                         \
    extern "C" __global__ AICORE void NAME(__gm__ float *out, __gm__ int32_t *out_idx,         \
                                           __gm__ float *a, __gm__ int32_t *a_idx,             \
                                           __gm__ float *b, __gm__ int32_t *b_idx)             \
    {                                                                                          \
        F x, d;                                                                                \
        F8 y;                                                                                  \
        I xi, di;                                                                              \
        I8 yi;                                                                                 \
        TASSIGN(x, 0x0000);                                                                    \
        TASSIGN(y, 0x1000);                                                                    \
        TASSIGN(d, 0x2000);                                                                    \
        TASSIGN(xi, 0x4000);                                                                   \
        TASSIGN(yi, 0x5000);                                                                   \
        TASSIGN(di, 0x6000);                                                                   \
        ld(x, a);                                                                              \
        ld(xi, a_idx);                                                                         \
        ld(y, b);                                                                              \
        ld(yi, b_idx);                                                                         \
        IN_SYNC;                                                                               \
        OP(d, x, y, di, xi, yi);                                                               \
        OUT_SYNC;                                                                              \
        st(out, d);                                                                            \
        st(out_idx, di);                                                                       \
    }
KARG(TPARTARGMAX_f32, TPARTARGMAX)
KARG(TPARTARGMIN_f32, TPARTARGMIN)

// valid shapes set at run time (DYNAMIC), e.g. a tail block; GM holds the valid region
extern "C" __global__ AICORE void TPARTADD_dynamic_f32(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    F x, d;
    Tile<TileType::Vec, float, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC> y(8, C);
    TASSIGN(x, 0x0000);
    TASSIGN(y, 0x1000);
    TASSIGN(d, 0x2000);
    ld(x, a);
    G<decltype(y), 8, C> gb(b);
    TLOAD(y, gb);
    IN_SYNC;
    TPARTADD(d, x, y);
    OUT_SYNC;
    st(out, d);
}
extern "C" __global__ AICORE void TROWEXPANDMAX_dynamic_f16(__gm__ half *out, __gm__ half *a, __gm__ half *b)
{
    using HD = Tile<TileType::Vec, half, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    HD x(12, 20), d(12, 20);
    Tile<TileType::Vec, half, R, 1, BLayout::ColMajor, DYNAMIC, 1> y(12);
    TASSIGN(x, 0x0000);
    TASSIGN(y, 0x1000);
    TASSIGN(d, 0x2000);
    G<HD, 12, 20> ga(a), go(out);
    G<decltype(y), 12, 1> gb(b);
    TLOAD(x, ga);
    TLOAD(y, gb);
    IN_SYNC;
    TROWEXPANDMAX(d, x, y);
    OUT_SYNC;
    TSTORE(go, d);
}
extern "C" __global__ AICORE void TCOLEXPANDSUB_dynamic_f32(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    using FD = Tile<TileType::Vec, float, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    FD x(10, 24), d(10, 24);
    Tile<TileType::Vec, float, 1, C, BLayout::RowMajor, 1, DYNAMIC> y(24);
    TASSIGN(x, 0x0000);
    TASSIGN(y, 0x1000);
    TASSIGN(d, 0x2000);
    G<FD, 10, 24> ga(a), go(out);
    G<decltype(y), 1, 24> gb(b);
    TLOAD(x, ga);
    TLOAD(y, gb);
    IN_SYNC;
    TCOLEXPANDSUB(d, x, y);
    OUT_SYNC;
    TSTORE(go, d);
}

// ---- integer / bitwise (3.3, 3.4, 3.8)
K2(TAND_i32, I, I, I, TAND(d, x, y))
K2(TOR_i32, I, I, I, TOR(d, x, y))
K2(TSHL_i32, I, I, I, TSHL(d, x, y))
K2(TSHR_i32, I, I, I, TSHR(d, x, y))
K2T(TXOR_i32, I, I, I, I, TXOR(d, x, y, t))
K1(TNOT_i32, I, I, TNOT(d, x))
K1(TANDS_i32, I, I, TANDS(d, x, (int32_t)0x0F0F))
K1(TORS_i32, I, I, TORS(d, x, (int32_t)0x0F0F))
K1(TSHLS_i32, I, I, TSHLS(d, x, (int32_t)3))
K1(TSHRS_i32, I, I, TSHRS(d, x, (int32_t)3))
K1T(TXORS_i32, I, I, I, TXORS(d, x, (int32_t)0x0F0F, t))
K2(TAND_i16, S, S, S, TAND(d, x, y))
K2(TOR_i16, S, S, S, TOR(d, x, y))
K2(TSHL_i16, S, S, S, TSHL(d, x, y))
K2(TSHR_i16, S, S, S, TSHR(d, x, y))
K2T(TXOR_i16, S, S, S, S, TXOR(d, x, y, t))
K1(TNOT_i16, S, S, TNOT(d, x))
K1(TANDS_i16, S, S, TANDS(d, x, (int16_t)0x0F0F))
K1(TORS_i16, S, S, TORS(d, x, (int16_t)0x0F0F))
K1(TSHLS_i16, S, S, TSHLS(d, x, (int16_t)3))
K1(TSHRS_i16, S, S, TSHRS(d, x, (int16_t)3))
K1T(TXORS_i16, S, S, S, TXORS(d, x, (int16_t)0x0F0F, t))
K2(TAND_u16, U, U, U, TAND(d, x, y))
K2(TOR_u16, U, U, U, TOR(d, x, y))
K2(TSHL_u16, U, U, U, TSHL(d, x, y))
K2(TSHR_u16, U, U, U, TSHR(d, x, y))
K2T(TXOR_u16, U, U, U, U, TXOR(d, x, y, t))
K1(TNOT_u16, U, U, TNOT(d, x))
K1(TANDS_u16, U, U, TANDS(d, x, (uint16_t)0x0F0F))
K1(TORS_u16, U, U, TORS(d, x, (uint16_t)0x0F0F))
K1(TSHLS_u16, U, U, TSHLS(d, x, (uint16_t)3))
K1(TSHRS_u16, U, U, TSHRS(d, x, (uint16_t)3))
K1T(TXORS_u16, U, U, U, TXORS(d, x, (uint16_t)0x0F0F, t))

// ---- remaining elementwise math (3.23, 3.4)
K2(TFMOD_f32, F, F, F, TFMOD(d, x, y))
K2T(TREM_f32, F, F, F, FRem, TREM(d, x, y, t))
K1(TFMODS_f32, F, F, TFMODS(d, x, (float)1.5f))
K1T(TREMS_f32, F, F, F, TREMS(d, x, (float)1.5f, t))
K2T(TPOW_f32, F, F, F, F, TPOW(d, x, y, t))
K1T(TPOWS_f32, F, F, F, TPOWS(d, x, (float)1.5f, t))
K2(TFMOD_f16, H, H, H, TFMOD(d, x, y))
K2T(TREM_f16, H, H, H, HRem, TREM(d, x, y, t))
K1(TFMODS_f16, H, H, TFMODS(d, x, (half)1.5f))
K1T(TREMS_f16, H, H, H, TREMS(d, x, (half)1.5f, t))
K2T(TPOW_f16, H, H, H, H, TPOW(d, x, y, t))
K1T(TPOWS_f16, H, H, H, TPOWS(d, x, (half)1.5f, t))
K2(TFMOD_i32, I, I, I, TFMOD(d, x, y))
K2T(TREM_i32, I, I, I, IRem, TREM(d, x, y, t))
K1(TFMODS_i32, I, I, TFMODS(d, x, (int32_t)3))
K1T(TREMS_i32, I, I, I, TREMS(d, x, (int32_t)3, t))
K2T(TPOW_i32, I, I, I, I, TPOW(d, x, y, t))
K1T(TPOWS_i32, I, I, I, TPOWS(d, x, (int32_t)3, t))
K2(TFMOD_hp_f32, F, F, F, TFMOD<FmodAlgorithm::HIGH_PRECISION>(d, x, y))
// the algorithm and every operand type given (the library's tfmod / trem kernels)
K2(TFMOD_types_f32, F, F, F, TFMOD<FmodAlgorithm::HIGH_PRECISION, F, F, F>(d, x, y))
K2T(TREM_types_f32, F, F, F, FRem, TREM<RemAlgorithm::DEFAULT, F, F, F, FRem>(d, x, y, t))
K1(TFMODS_hp_f32, F, F, TFMODS<FmodAlgorithm::HIGH_PRECISION>(d, x, (float)1.5f))
K2T(TREM_hp_f32, F, F, F, FRem, TREM<RemAlgorithm::HIGH_PRECISION>(d, x, y, t))
K1T(TREMS_hp_f32, F, F, F, TREMS<RemAlgorithm::HIGH_PRECISION>(d, x, (float)1.5f, t))
K1(TFMODS_shp_f32, F, F, TFMODS<FmodSAlgorithm::HIGH_PRECISION>(d, x, (float)1.5f))
K1T(TREMS_shp_f32, F, F, F, TREMS<RemSAlgorithm::HIGH_PRECISION>(d, x, (float)1.5f, t))
K2T(TPOW_hp_f32, F, F, F, F, TPOW<PowAlgorithm::HIGH_PRECISION>(d, x, y, t))
K1T(TPOWS_hp_f32, F, F, F, TPOWS<PowAlgorithm::HIGH_PRECISION>(d, x, (float)1.5f, t))
KIO(TAXPY_f32, F, F, TAXPY(d, x, (float)1.5f))
K1(TLRELU_f32, F, F, TLRELU(d, x, (float)0.25f))
K2T(TPRELU_f32, F, F, F, U8, TPRELU(d, x, y, t))
KIO(TAXPY_f16, H, H, TAXPY(d, x, (half)1.5f))
K1(TLRELU_f16, H, H, TLRELU(d, x, (half)0.25f))
K2T(TPRELU_f16, H, H, H, U8, TPRELU(d, x, y, t))
KIO(TAXPY_bf16, B, B, TAXPY(d, x, (bfloat16)1.5f))
K1(TLRELU_bf16, B, B, TLRELU(d, x, (bfloat16)0.25f))
K2T(TPRELU_bf16, B, B, B, U8, TPRELU(d, x, y, t))
KIO(TAXPY_f32_f16, F, H, TAXPY(d, x, (half)1.5f))

// ---- the *Algorithm template forms, TRSQRT with tmp, TDIVS(dst, scalar, src)
K1(TEXP_hp_f32, F, F, TEXP<ExpAlgorithm::HIGH_PRECISION>(d, x))
K1(TLOG_hp_f32, F, F, TLOG<LogAlgorithm::HIGH_PRECISION>(d, x))
K1(TSQRT_hp_f32, F, F, TSQRT<SqrtAlgorithm::HIGH_PRECISION>(d, x))
K1(TRSQRT_hp_f32, F, F, TRSQRT<RsqrtAlgorithm::HIGH_PRECISION>(d, x))
K1(TRECIP_hp_f32, F, F, TRECIP<RecipAlgorithm::HIGH_PRECISION>(d, x))
K1T(TRSQRT_tmp_f32, F, F, F, TRSQRT(d, x, t))
K1(TDIVS_scalar_first_f32, F, F, TDIVS(d, (float)1.5f, x))
K1(TEXP_hp_f16, H, H, TEXP<ExpAlgorithm::HIGH_PRECISION>(d, x))
K1(TLOG_hp_f16, H, H, TLOG<LogAlgorithm::HIGH_PRECISION>(d, x))
K1(TSQRT_hp_f16, H, H, TSQRT<SqrtAlgorithm::HIGH_PRECISION>(d, x))
K1(TRSQRT_hp_f16, H, H, TRSQRT<RsqrtAlgorithm::HIGH_PRECISION>(d, x))
K1(TRECIP_hp_f16, H, H, TRECIP<RecipAlgorithm::HIGH_PRECISION>(d, x))
K1T(TRSQRT_tmp_f16, H, H, H, TRSQRT(d, x, t))
K1(TDIVS_scalar_first_f16, H, H, TDIVS(d, (half)1.5f, x))
K1(TEXP_default_f32, F, F, TEXP<ExpAlgorithm::DEFAULT>(d, x))
// the scalar converts to the source's element type (the API's `typename Src::DType scalar`)
K1(TANDS_literal_ffff_i16, S, S, TANDS(d, x, 0xFFFF))
K1(TADDS_float_literal_i32, I, I, TADDS(d, x, 1.5f))
K1(TMAXS_int_literal_f16, H, H, TMAXS(d, x, 2))
K1(TDIVS_scalar_first_int_literal_f32, F, F, TDIVS(d, 3, x))
// DivAlgorithm::DEFAULT where ptosim's Python call has no algorithm: the plain call
K2(TDIV_default_f32, F, F, F, TDIV<DivAlgorithm::DEFAULT>(d, x, y))
K1(TDIVS_default_f16, H, H, TDIVS<DivAlgorithm::DEFAULT>(d, x, (half)1.5f))
K2(TROWEXPANDDIV_default_f32, F, F, CF, TROWEXPANDDIV<DivAlgorithm::DEFAULT>(d, x, y))
K2T(TROWEXPANDDIV_default_tmp_f16, H, H, CH, BLH, TROWEXPANDDIV<DivAlgorithm::DEFAULT>(d, x, y, t))
K1T(TRSQRT_tmp_hp_f32, F, F, F, TRSQRT<RsqrtAlgorithm::HIGH_PRECISION>(d, x, t))

// ---- the 20 elementwise ops of instructions.cpp in bfloat16, int32, int16
K2(TADD_bf16, B, B, B, TADD(d, x, y))
K2(TSUB_bf16, B, B, B, TSUB(d, x, y))
K2(TMUL_bf16, B, B, B, TMUL(d, x, y))
K2(TDIV_bf16, B, B, B, TDIV(d, x, y))
K2(TMAX_bf16, B, B, B, TMAX(d, x, y))
K2(TMIN_bf16, B, B, B, TMIN(d, x, y))
K1(TEXP_bf16, B, B, TEXP(d, x))
K1(TLOG_bf16, B, B, TLOG(d, x))
K1(TSQRT_bf16, B, B, TSQRT(d, x))
K1(TRECIP_bf16, B, B, TRECIP(d, x))
K1(TABS_bf16, B, B, TABS(d, x))
K1(TNEG_bf16, B, B, TNEG(d, x))
K1(TRELU_bf16, B, B, TRELU(d, x))
K1(TADDS_bf16, B, B, TADDS(d, x, (bfloat16)1.5f))
K1(TSUBS_bf16, B, B, TSUBS(d, x, (bfloat16)1.5f))
K1(TMULS_bf16, B, B, TMULS(d, x, (bfloat16)1.5f))
K1(TDIVS_bf16, B, B, TDIVS(d, x, (bfloat16)1.5f))
K1(TMAXS_bf16, B, B, TMAXS(d, x, (bfloat16)1.5f))
K1(TMINS_bf16, B, B, TMINS(d, x, (bfloat16)1.5f))
K2(TADD_i32, I, I, I, TADD(d, x, y))
K2(TSUB_i32, I, I, I, TSUB(d, x, y))
K2(TMUL_i32, I, I, I, TMUL(d, x, y))
K2(TDIV_i32, I, I, I, TDIV(d, x, y))
K2(TMAX_i32, I, I, I, TMAX(d, x, y))
K2(TMIN_i32, I, I, I, TMIN(d, x, y))
K1(TLOG_i32, I, I, TLOG(d, x))
K1(TRECIP_i32, I, I, TRECIP(d, x))
K1(TABS_i32, I, I, TABS(d, x))
K1(TNEG_i32, I, I, TNEG(d, x))
K1(TRELU_i32, I, I, TRELU(d, x))
K1(TADDS_i32, I, I, TADDS(d, x, (int32_t)3))
K1(TSUBS_i32, I, I, TSUBS(d, x, (int32_t)3))
K1(TMULS_i32, I, I, TMULS(d, x, (int32_t)3))
K1(TDIVS_i32, I, I, TDIVS(d, x, (int32_t)3))
K1(TMAXS_i32, I, I, TMAXS(d, x, (int32_t)3))
K1(TMINS_i32, I, I, TMINS(d, x, (int32_t)3))
K2(TADD_i16, S, S, S, TADD(d, x, y))
K2(TSUB_i16, S, S, S, TSUB(d, x, y))
K2(TMUL_i16, S, S, S, TMUL(d, x, y))
K2(TDIV_i16, S, S, S, TDIV(d, x, y))
K2(TMAX_i16, S, S, S, TMAX(d, x, y))
K2(TMIN_i16, S, S, S, TMIN(d, x, y))
K1(TLOG_i16, S, S, TLOG(d, x))
K1(TRECIP_i16, S, S, TRECIP(d, x))
K1(TABS_i16, S, S, TABS(d, x))
K1(TNEG_i16, S, S, TNEG(d, x))
K1(TRELU_i16, S, S, TRELU(d, x))
K1(TADDS_i16, S, S, TADDS(d, x, (int16_t)3))
K1(TSUBS_i16, S, S, TSUBS(d, x, (int16_t)3))
K1(TMULS_i16, S, S, TMULS(d, x, (int16_t)3))
K1(TDIVS_i16, S, S, TDIVS(d, x, (int16_t)3))
K1(TMAXS_i16, S, S, TMAXS(d, x, (int16_t)3))
K1(TMINS_i16, S, S, TMINS(d, x, (int16_t)3))

// ---- C++ forms ptosim's Python API cannot express: each stops with PTO103 at its line
K2(TDIV_hp_f32, F, F, F, TDIV<DivAlgorithm::HIGH_PRECISION>(d, x, y))
K1(TDIVS_hp_f32, F, F, TDIVS<DivAlgorithm::HIGH_PRECISION>(d, x, (float)1.5f))
K2(TROWEXPANDDIV_hp_f32, F, F, CF, TROWEXPANDDIV<DivAlgorithm::HIGH_PRECISION>(d, x, y))

