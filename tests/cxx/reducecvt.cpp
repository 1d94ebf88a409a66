// C++ kernels for tests/cxx/test_reducecvt.py: one entry per (instruction, C++ form, dtype) of the
// reductions, compare/select and conversion families. Each entry is the transcription of the
// test's case of the same name: its tiles TASSIGNed in order at 0x2000 steps, its TLOADs,
// MTE2 -> V, the instruction in the C++ form written in the entry, V -> MTE3, its TSTOREs.
// Kernel arguments: the output GM buffers, then the input ones. Keep the two files in step.
#include <pto/pto-inst.hpp>
using namespace pto;

namespace {
constexpr int R = 16, C = 64, SLOT = 0x2000;
template <typename T, int Rows = R, int Cols = C>
using V = Tile<TileType::Vec, T, Rows, Cols>;
template <typename T, int Rows = R>
using Col = Tile<TileType::Vec, T, Rows, 1, BLayout::ColMajor>;  // a column vector (DN in GM)
using Mask = V<uint8_t, R, 32>;  // 8 bytes of bits per row for C = 64 columns; row pitch 32 B

// the GlobalTensor a whole tile is loaded from / stored to: ND for row-major, DN for col-major
template <typename Tl, int r = Tl::Rows, int c = Tl::Cols>
using Gm = std::conditional_t<Tl::isRowMajor,
                              GlobalTensor<typename Tl::DType, Shape<1, 1, 1, r, c>, Stride<r * c, r * c, r * c, c, 1>>,
                              GlobalTensor<typename Tl::DType, Shape<1, 1, 1, r, c>, Stride<r * c, r * c, r * c, 1, r>,
                                           Layout::DN>>;

template <typename... Tl>
AICORE void place(Tl &...tiles)
{
    int n = 0;
    (TASSIGN(tiles, SLOT * n++), ...);
}
template <typename Tl>
AICORE void load(Tl &t, __gm__ typename Tl::DType *p)
{
    Gm<Tl> g(p);
    TLOAD(t, g);
}
template <typename Tl>
AICORE void store(__gm__ typename Tl::DType *p, Tl &t)
{
    Gm<Tl> g(p);
    TSTORE(g, t);
}
AICORE void to_vec()
{
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
}
AICORE void to_store()
{
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
}
template <typename T>
constexpr int tci_tmp_cols = sizeof(T) == 4 ? 256 : 1024;  // >= 768 B (b32), 1792 B (b16) on a2a3
} // namespace

// Each macro is one kernel skeleton; CALL is the instruction exactly as a kernel author writes it.
#define ROW_REDUCE(NAME, T, CALL)                                                   \
    extern "C" __global__ AICORE void NAME(__gm__ T *out, __gm__ T *in)             \
    {                                                                               \
        V<T> src; Col<T> dst; V<T> tmp;                                             \
        place(src, dst, tmp); load(src, in); to_vec();                              \
        CALL;                                                                       \
        to_store(); store(out, dst);                                                \
    }
#define COL_REDUCE(NAME, T, CALL)                                                   \
    extern "C" __global__ AICORE void NAME(__gm__ T *out, __gm__ T *in)             \
    {                                                                               \
        V<T> src; V<T, 1, C> dst;                                                   \
        place(src, dst); load(src, in); to_vec();                                   \
        CALL;                                                                       \
        to_store(); store(out, dst);                                                \
    }
#define COL_REDUCE_TMP(NAME, T, CALL)                                               \
    extern "C" __global__ AICORE void NAME(__gm__ T *out, __gm__ T *in)             \
    {                                                                               \
        V<T> src; V<T, 1, C> dst; V<T, R / 2, C> tmp;                               \
        place(src, dst, tmp); load(src, in); to_vec();                              \
        CALL;                                                                       \
        to_store(); store(out, dst);                                                \
    }
#define ARG_IDX_ROW(NAME, T, I, CALL)                                               \
    extern "C" __global__ AICORE void NAME(__gm__ I *out, __gm__ T *in)             \
    {                                                                               \
        V<T> src; Col<I> idx; V<T> tmp;                                             \
        place(src, idx, tmp); load(src, in); to_vec();                              \
        CALL;                                                                       \
        to_store(); store(out, idx);                                                \
    }
#define ARG_VAL_ROW(NAME, T, I, CALL)                                                          \
    extern "C" __global__ AICORE void NAME(__gm__ T *out_val, __gm__ I *out_idx, __gm__ T *in) \
    {                                                                                          \
        V<T> src; Col<T> val; Col<I> idx; V<T> tmp;                                            \
        place(src, val, idx, tmp); load(src, in); to_vec();                                    \
        CALL;                                                                                  \
        to_store(); store(out_val, val); store(out_idx, idx);                                  \
    }
#define ARG_IDX_COL(NAME, T, I, CALL)                                               \
    extern "C" __global__ AICORE void NAME(__gm__ I *out, __gm__ T *in)             \
    {                                                                               \
        V<T> src; V<I, 1, C> idx; V<T, 1, C> tmp;                                   \
        place(src, idx, tmp); load(src, in); to_vec();                              \
        CALL;                                                                       \
        to_store(); store(out, idx);                                                \
    }
#define ARG_VAL_COL(NAME, T, I, CALL)                                                          \
    extern "C" __global__ AICORE void NAME(__gm__ T *out_val, __gm__ I *out_idx, __gm__ T *in) \
    {                                                                                          \
        V<T> src; V<T, 1, C> val; V<I, 1, C> idx; V<T, 1, C> tmp;                              \
        place(src, val, idx, tmp); load(src, in); to_vec();                                    \
        CALL;                                                                                  \
        to_store(); store(out_val, val); store(out_idx, idx);                                  \
    }
#define CMP2(NAME, T, CALL)                                                                    \
    extern "C" __global__ AICORE void NAME(__gm__ uint8_t *out, __gm__ T *in0, __gm__ T *in1)  \
    {                                                                                          \
        V<T> a; V<T> b; Mask mask;                                                             \
        place(a, b, mask); load(a, in0); load(b, in1); to_vec();                               \
        CALL;                                                                                  \
        to_store(); store(out, mask);                                                          \
    }
#define CMP1(NAME, T, CALL)                                                         \
    extern "C" __global__ AICORE void NAME(__gm__ uint8_t *out, __gm__ T *in)       \
    {                                                                               \
        V<T> a; Mask mask;                                                          \
        place(a, mask); load(a, in); to_vec();                                      \
        CALL;                                                                       \
        to_store(); store(out, mask);                                               \
    }
#define SEL(NAME, T, CALL)                                                                                     \
    extern "C" __global__ AICORE void NAME(__gm__ T *out, __gm__ uint8_t *m, __gm__ T *in0, __gm__ T *in1)     \
    {                                                                                                          \
        Mask mask; V<T> s0; V<T> s1; V<T> dst; V<T> tmp;                                                       \
        place(mask, s0, s1, dst, tmp); load(mask, m); load(s0, in0); load(s1, in1); to_vec();                  \
        CALL;                                                                                                  \
        to_store(); store(out, dst);                                                                           \
    }
#define SELS(NAME, T, CALL)                                                                 \
    extern "C" __global__ AICORE void NAME(__gm__ T *out, __gm__ uint8_t *m, __gm__ T *in)  \
    {                                                                                       \
        Mask mask; V<T> src; V<T> dst; V<T> tmp;                                            \
        place(mask, src, dst, tmp); load(mask, m); load(src, in); to_vec();                 \
        CALL;                                                                               \
        to_store(); store(out, dst);                                                        \
    }
#define CVT(NAME, S, D, CALL)                                                       \
    extern "C" __global__ AICORE void NAME(__gm__ D *out, __gm__ S *in)             \
    {                                                                               \
        V<S> src; V<D> dst;                                                         \
        place(src, dst); load(src, in); to_vec();                                   \
        CALL;                                                                       \
        to_store(); store(out, dst);                                                \
    }
#define CVT_TMP(NAME, S, D, CALL)                                                   \
    extern "C" __global__ AICORE void NAME(__gm__ D *out, __gm__ S *in)             \
    {                                                                               \
        V<S> src; V<D> dst; V<int32_t> tmp;                                         \
        place(src, dst, tmp); load(src, in); to_vec();                              \
        CALL;                                                                       \
        to_store(); store(out, dst);                                                \
    }
#define CI(NAME, T, ...)                                                                \
    extern "C" __global__ AICORE void NAME(__gm__ T *out)                           \
    {                                                                               \
        using Idx = V<T, 1, C>;                                                     \
        Idx dst;                                                                    \
        place(dst); to_vec();                                                       \
        __VA_ARGS__;                                                                \
        to_store(); store(out, dst);                                                \
    }
#define CI_TMP(NAME, T, ...)                                                            \
    extern "C" __global__ AICORE void NAME(__gm__ T *out)                           \
    {                                                                               \
        using Idx = V<T, 1, C>;                                                     \
        Idx dst; V<T, 1, tci_tmp_cols<T>> tmp;                                      \
        place(dst, tmp); to_vec();                                                  \
        __VA_ARGS__;                                                                \
        to_store(); store(out, dst);                                                \
    }

// ---- row reductions: TROW<op>(dst, src, tmp); dst a column tile --------------------------------
ROW_REDUCE(TROWSUM_f32, float, TROWSUM(dst, src, tmp))
ROW_REDUCE(TROWSUM_f16, half, TROWSUM(dst, src, tmp))
ROW_REDUCE(TROWSUM_i32, int32_t, TROWSUM(dst, src, tmp))
ROW_REDUCE(TROWSUM_i16, int16_t, TROWSUM(dst, src, tmp))
ROW_REDUCE(TROWMAX_f32, float, TROWMAX(dst, src, tmp))
ROW_REDUCE(TROWMAX_i32, int32_t, TROWMAX(dst, src, tmp))
ROW_REDUCE(TROWMIN_f16, half, TROWMIN(dst, src, tmp))
ROW_REDUCE(TROWMIN_i16, int16_t, TROWMIN(dst, src, tmp))
ROW_REDUCE(TROWPROD_f32, float, TROWPROD(dst, src, tmp))
ROW_REDUCE(TROWPROD_i32, int32_t, TROWPROD(dst, src, tmp))

// ---- column reductions: TCOL<op>(dst, src); TCOLSUM(dst, src, tmp, isBinary) ---------------
COL_REDUCE(TCOLSUM_f32, float, TCOLSUM(dst, src))
COL_REDUCE(TCOLSUM_f16, half, TCOLSUM(dst, src))
COL_REDUCE(TCOLSUM_i32, int32_t, TCOLSUM(dst, src))
COL_REDUCE(TCOLMAX_f32, float, TCOLMAX(dst, src))
COL_REDUCE(TCOLMAX_i16, int16_t, TCOLMAX(dst, src))
COL_REDUCE(TCOLMIN_f16, half, TCOLMIN(dst, src))
COL_REDUCE(TCOLMIN_i32, int32_t, TCOLMIN(dst, src))
COL_REDUCE(TCOLPROD_f32, float, TCOLPROD(dst, src))
COL_REDUCE(TCOLPROD_i16, int16_t, TCOLPROD(dst, src))
COL_REDUCE_TMP(TCOLSUM_f32_tmp_seq, float, TCOLSUM(dst, src, tmp, false))
COL_REDUCE_TMP(TCOLSUM_f32_tmp_binary, float, TCOLSUM(dst, src, tmp, true))
COL_REDUCE_TMP(TCOLSUM_f16_tmp_seq, half, TCOLSUM(dst, src, tmp, false))
COL_REDUCE_TMP(TCOLSUM_f16_tmp_binary, half, TCOLSUM(dst, src, tmp, true))

// ---- arg reductions: (dstIdx, src, tmp) and (dstVal, dstIdx, src, tmp) ---------------------
ARG_IDX_ROW(TROWARGMAX_f32_idx, float, int32_t, TROWARGMAX(idx, src, tmp))
ARG_VAL_ROW(TROWARGMAX_f32_val, float, uint32_t, TROWARGMAX(val, idx, src, tmp))
ARG_IDX_ROW(TROWARGMIN_f16_idx, half, int16_t, TROWARGMIN(idx, src, tmp))
ARG_VAL_ROW(TROWARGMIN_f16_val, half, int32_t, TROWARGMIN(val, idx, src, tmp))
ARG_IDX_COL(TCOLARGMAX_f32_idx, float, uint32_t, TCOLARGMAX(idx, src, tmp))
ARG_VAL_COL(TCOLARGMAX_f32_val, float, int32_t, TCOLARGMAX(val, idx, src, tmp))
ARG_IDX_COL(TCOLARGMIN_f16_idx, half, int16_t, TCOLARGMIN(idx, src, tmp))
ARG_VAL_COL(TCOLARGMIN_f16_val, half, int32_t, TCOLARGMIN(val, idx, src, tmp))

// ---- TCMP(dst, src0, src1, CmpMode), TCMPS(dst, src0, scalar | src1 tile, CmpMode) ------------
CMP2(TCMP_f32_EQ, float, TCMP(mask, a, b, CmpMode::EQ))
CMP1(TCMPS_f32_EQ, float, TCMPS(mask, a, 1.0f, CmpMode::EQ))
CMP2(TCMP_f32_NE, float, TCMP(mask, a, b, CmpMode::NE))
CMP1(TCMPS_f32_NE, float, TCMPS(mask, a, 1.0f, CmpMode::NE))
CMP2(TCMP_f32_LT, float, TCMP(mask, a, b, CmpMode::LT))
CMP1(TCMPS_f32_LT, float, TCMPS(mask, a, 1.0f, CmpMode::LT))
CMP2(TCMP_f32_LE, float, TCMP(mask, a, b, CmpMode::LE))
CMP1(TCMPS_f32_LE, float, TCMPS(mask, a, 1.0f, CmpMode::LE))
CMP2(TCMP_f32_GT, float, TCMP(mask, a, b, CmpMode::GT))
CMP1(TCMPS_f32_GT, float, TCMPS(mask, a, 1.0f, CmpMode::GT))
CMP2(TCMP_f32_GE, float, TCMP(mask, a, b, CmpMode::GE))
CMP1(TCMPS_f32_GE, float, TCMPS(mask, a, 1.0f, CmpMode::GE))
CMP2(TCMP_i32_GT, int32_t, TCMP(mask, a, b, CmpMode::GT))
CMP2(TCMP_f16_LE, half, TCMP(mask, a, b, CmpMode::LE))
CMP1(TCMPS_i16_GE, int16_t, TCMPS(mask, a, (int16_t)3, CmpMode::GE))
CMP2(TCMPS_f32_tile_GT, float, TCMPS(mask, a, b, CmpMode::GT))

// ---- TSEL(dst, mask, src0, src1, tmp), TSELS(dst, mask, src, tmp, scalar) ------------------
SEL(TSEL_f32, float, TSEL(dst, mask, s0, s1, tmp))
SEL(TSEL_f16, half, TSEL(dst, mask, s0, s1, tmp))
SEL(TSEL_i32, int32_t, TSEL(dst, mask, s0, s1, tmp))
SELS(TSELS_f32, float, TSELS(dst, mask, src, tmp, 2.5f))
SELS(TSELS_f16, half, TSELS(dst, mask, src, tmp, (half)-1.5f))
SELS(TSELS_i16, int16_t, TSELS(dst, mask, src, tmp, (int16_t)7))

// ---- TCVT(dst, src, RoundMode[, SaturationMode]), TCVT(dst, src, tmp, ...), TCVT<NeedSetCtrl> ---
CVT(TCVT_f32_i32_CAST_NONE, float, int32_t, TCVT(dst, src, RoundMode::CAST_NONE))
CVT(TCVT_f32_i32_CAST_RINT, float, int32_t, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_f32_i32_CAST_ROUND, float, int32_t, TCVT(dst, src, RoundMode::CAST_ROUND))
CVT(TCVT_f32_i32_CAST_FLOOR, float, int32_t, TCVT(dst, src, RoundMode::CAST_FLOOR))
CVT(TCVT_f32_i32_CAST_CEIL, float, int32_t, TCVT(dst, src, RoundMode::CAST_CEIL))
CVT(TCVT_f32_i32_CAST_TRUNC, float, int32_t, TCVT(dst, src, RoundMode::CAST_TRUNC))
CVT(TCVT_f32_i32_CAST_ODD, float, int32_t, TCVT(dst, src, RoundMode::CAST_ODD))
CVT(TCVT_f32_f16_CAST_RINT, float, half, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_f32_f16_CAST_ROUND, float, half, TCVT(dst, src, RoundMode::CAST_ROUND))
CVT(TCVT_f32_f16_CAST_ODD, float, half, TCVT(dst, src, RoundMode::CAST_ODD))
CVT(TCVT_f32_f16_CAST_TRUNC, float, half, TCVT(dst, src, RoundMode::CAST_TRUNC))
CVT(TCVT_f32_i16_sat_ON, float, int16_t, TCVT(dst, src, RoundMode::CAST_RINT, SaturationMode::ON))
CVT(TCVT_f32_i16_sat_OFF, float, int16_t, TCVT(dst, src, RoundMode::CAST_RINT, SaturationMode::OFF))
CVT_TMP(TCVT_f32_i16_tmp_OFF, float, int16_t, TCVT(dst, src, tmp, RoundMode::CAST_TRUNC, SaturationMode::OFF))
CVT_TMP(TCVT_f16_i16_tmp, half, int16_t, TCVT(dst, src, tmp, RoundMode::CAST_ROUND))
CVT(TCVT_f32_i16_noctrl_OFF, float, int16_t, TCVT<false>(dst, src, RoundMode::CAST_RINT, SaturationMode::OFF))
CVT(TCVT_f32_i16_ctrl_OFF, float, int16_t, TCVT<true>(dst, src, RoundMode::CAST_RINT, SaturationMode::OFF))
CVT(TCVT_f16_f32, half, float, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_f32_bf16, float, bfloat16_t, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_bf16_f32, bfloat16_t, float, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_bf16_i32, bfloat16_t, int32_t, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_i32_f32, int32_t, float, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_i16_f16, int16_t, half, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_f16_i8, half, int8_t, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_i8_f16, int8_t, half, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_f16_i16, half, int16_t, TCVT(dst, src, RoundMode::CAST_RINT))
CVT(TCVT_i32_i8, int32_t, int8_t, TCVT(dst, src, RoundMode::CAST_RINT))

// ---- TCI<TileData, T, descending>(dst, start[, tmp]) -----------------------------------------
CI(TCI_i32_asc, int32_t, TCI<Idx, int32_t, 0>(dst, (int32_t)100))
CI_TMP(TCI_i32_asc_tmp, int32_t, TCI<Idx, int32_t, 0>(dst, (int32_t)100, tmp))
CI(TCI_i32_desc, int32_t, TCI<Idx, int32_t, 1>(dst, (int32_t)100))
CI_TMP(TCI_i32_desc_tmp, int32_t, TCI<Idx, int32_t, 1>(dst, (int32_t)100, tmp))
CI(TCI_i16_asc, int16_t, TCI<Idx, int16_t, 0>(dst, (int16_t)100))
CI_TMP(TCI_i16_asc_tmp, int16_t, TCI<Idx, int16_t, 0>(dst, (int16_t)100, tmp))
CI(TCI_i16_desc, int16_t, TCI<Idx, int16_t, 1>(dst, (int16_t)100))
CI_TMP(TCI_i16_desc_tmp, int16_t, TCI<Idx, int16_t, 1>(dst, (int16_t)100, tmp))
CI(TCI_i32_desc_bool, int32_t, TCI<Idx, int32_t, true>(dst, (int32_t)-7))

// ---- TQUANT<QuantType>: (dst, src, scale), (dst, src, scale, tmp), (dst, src, scale, offset),
// (dst, src, scale, tmp, offset); the optional offset also as a pointer (vector_isa.md 3.15) ----
#define QUANT(NAME, D, CALL)                                                                              \
    extern "C" __global__ AICORE void NAME(__gm__ D *out, __gm__ float *in, __gm__ float *sc, __gm__ float *of) \
    {                                                                                                     \
        V<float> src; Col<float> scale; Col<float> offset; V<D> dst;                                      \
        place(src, scale, offset, dst); load(src, in); load(scale, sc); load(offset, of); to_vec();       \
        CALL;                                                                                             \
        to_store(); store(out, dst);                                                                      \
    }
#define QUANT_TMP(NAME, D, CALL)                                                                          \
    extern "C" __global__ AICORE void NAME(__gm__ D *out, __gm__ float *in, __gm__ float *sc, __gm__ float *of) \
    {                                                                                                     \
        V<float> src; Col<float> scale; Col<float> offset; V<D> dst; V<int32_t> tmp;                      \
        place(src, scale, offset, dst, tmp); load(src, in); load(scale, sc); load(offset, of); to_vec();  \
        CALL;                                                                                             \
        to_store(); store(out, dst);                                                                      \
    }
QUANT(TQUANT_SYM, int8_t, TQUANT<QuantType::INT8_SYM>(dst, src, scale))
QUANT_TMP(TQUANT_SYM_tmp, int8_t, TQUANT<QuantType::INT8_SYM>(dst, src, scale, tmp))
QUANT(TQUANT_ASYM_offset, uint8_t, TQUANT<QuantType::INT8_ASYM>(dst, src, scale, offset))
QUANT(TQUANT_ASYM_offset_ptr, uint8_t, TQUANT<QuantType::INT8_ASYM>(dst, src, scale, &offset))
QUANT_TMP(TQUANT_ASYM_tmp_offset, uint8_t, TQUANT<QuantType::INT8_ASYM>(dst, src, scale, tmp, offset))
QUANT_TMP(TQUANT_ASYM_tmp_offset_ptr, uint8_t, TQUANT<QuantType::INT8_ASYM>(dst, src, scale, tmp, &offset))

// ---- TQUANT's MX form (exponent, group-max and scaling tiles by pointer; 950 and cpu) -------------
extern "C" __global__ AICORE void TQUANT_MXFP8(__gm__ int8_t *out, __gm__ float *in)
{
    V<float> src; V<uint8_t> exp; V<float> max; V<float> scaling; V<int8_t> dst;
    place(src, exp, max, scaling, dst); load(src, in); to_vec();
    TQUANT<QuantType::MXFP8>(dst, src, &exp, &max, &scaling);
    to_store(); store(out, dst);
}

// ---- TDEQUANT(dst, src, scale, offset) ------------------------------------------------------------
#define DEQUANT(NAME, S)                                                                                  \
    extern "C" __global__ AICORE void NAME(__gm__ float *out, __gm__ S *in, __gm__ float *sc, __gm__ float *of) \
    {                                                                                                     \
        V<S> src; V<float, R, 8> scale; V<float, R, 8> offset; V<float> dst;                              \
        place(src, scale, offset, dst); load(src, in); load(scale, sc); load(offset, of); to_vec();       \
        TDEQUANT(dst, src, scale, offset);                                                                \
        to_store(); store(out, dst);                                                                      \
    }
DEQUANT(TDEQUANT_i8, int8_t)
DEQUANT(TDEQUANT_i16, int16_t)

// ---- template forms with an Event operand: the instruction waits on the TLOAD's event --------
// (the same program as the case without "_event": TLOADs, set_flag MTE2 -> V, wait, the call)
extern "C" __global__ AICORE void TCVT_f32_i16_noctrl_OFF_event(__gm__ int16_t *out, __gm__ float *in)
{
    V<float> src; V<int16_t> dst;
    place(src, dst);
    Gm<V<float>> g(in);
    Event<Op::TLOAD, Op::TCVT> loaded;
    loaded = TLOAD(src, g);
    TCVT<false>(dst, src, RoundMode::CAST_RINT, SaturationMode::OFF, loaded);
    to_store(); store(out, dst);
}
extern "C" __global__ AICORE void TQUANT_SYM_tmp_event(__gm__ int8_t *out, __gm__ float *in, __gm__ float *sc,
                                                       __gm__ float *of)
{
    V<float> src; Col<float> scale; Col<float> offset; V<int8_t> dst; V<int32_t> tmp;
    place(src, scale, offset, dst, tmp);
    load(src, in); load(scale, sc);
    Gm<Col<float>> g(of);
    Event<Op::TLOAD, Op::VECTOR> loaded = TLOAD(offset, g);
    TQUANT<QuantType::INT8_SYM>(dst, src, scale, tmp, loaded);
    to_store(); store(out, dst);
}
extern "C" __global__ AICORE void TQUANT_ASYM_tmp_offset_ptr_event(__gm__ uint8_t *out, __gm__ float *in,
                                                                   __gm__ float *sc, __gm__ float *of)
{
    V<float> src; Col<float> scale; Col<float> offset; V<uint8_t> dst; V<int32_t> tmp;
    place(src, scale, offset, dst, tmp);
    load(src, in); load(scale, sc);
    Gm<Col<float>> g(of);
    Event<Op::TLOAD, Op::VECTOR> loaded = TLOAD(offset, g);
    TQUANT<QuantType::INT8_ASYM>(dst, src, scale, tmp, &offset, loaded);
    to_store(); store(out, dst);
}

// ---- bfloat16 --------------------------------------------------------------------------------
COL_REDUCE(TCOLSUM_bf16, bfloat16_t, TCOLSUM(dst, src))
CMP2(TCMP_bf16_NE, bfloat16_t, TCMP(mask, a, b, CmpMode::NE))
SEL(TSEL_bf16, bfloat16_t, TSEL(dst, mask, s0, s1, tmp))
