// ptosim C++ front end: the pto:: data types (Shape, Stride, GlobalTensor, Tile) and the
// instruction entry points. Each instruction sends its operands to ptosim instead of computing.
//
// The template parameter lists follow the public PTO C++ API (pto-inst.hpp), so unchanged kernels
// instantiate them; the bodies are ptosim's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <typeinfo>

#include "types.hpp"

namespace pto {

// ---- enums of the public API (names and values) ---------------------------------------------
PTOSIM_ENUM(TileType, int, Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight)
PTOSIM_ENUM(BLayout, int, RowMajor = 0, ColMajor = 1)
PTOSIM_ENUM(SLayout, int, NoneBox = 0, RowMajor = 1, ColMajor = 2)
// PadValue is 64 bits wide: 0-3 name the standard pads; CustomBase (bit 32) marks a custom pad
// whose low 32 bits are the pad's bit pattern (PadValueCustom below)
PTOSIM_ENUM(PadValue, uint64_t, Null, Zero, Max, Min, CustomBase = 0x100000000)
PTOSIM_ENUM(CompactMode, int, Null, Normal, RowPlusOne, RowAlignedPadding)
PTOSIM_ENUM(Layout, int, ND, DN, NZ, SCALE, MX_A_ND, MX_A_DN, MX_A_ZZ, MX_B_ND, MX_B_DN, MX_B_NN, NC1HWC0, NCHW, NHWC, NDC1HWC0, NCDHW, FRACTAL_Z, FRACTAL_Z_S16S8, FRACTAL_Z_3D, MAX,)
PTOSIM_ENUM(MaskPattern, uint8_t, P0101 = 1, P1010 = 2, P0001 = 3, P0010 = 4, P0100 = 5, P1000 = 6, P1111 = 7)
// how many source elements a mask pattern keeps one of (every one, every 2nd, every 4th): kernels
// size their dst tiles with it, as the library's common constants let them
template <MaskPattern mask>
constexpr int GetTimesByMask()
{
    return mask == MaskPattern::P1111 ? 1 : (mask == MaskPattern::P1010 || mask == MaskPattern::P0101) ? 2 : 4;
}
PTOSIM_ENUM(ScatterAxis, uint8_t, SCATTER_ROW = 0, SCATTER_COL = 1)
PTOSIM_ENUM(CmpMode, uint8_t, EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5)
PTOSIM_ENUM(STPhase, uint8_t, Unspecified = 0x0, Partial = 0x2, Final = 0x3)
PTOSIM_ENUM(AccPhase, uint8_t, Unspecified = 0x0, Unknown = 0x0, Partial = 0x2, Final = 0x3)
PTOSIM_ENUM(RoundMode, uint8_t, CAST_NONE, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD)
PTOSIM_ENUM(TCopyMode, uint8_t, SHALLOW_COPY = 0, DEEP_COPY = 1)
PTOSIM_ENUM(AccToVecMode, uint8_t, SingleModeVec0, SingleModeVec1, DualModeSplitM, DualModeSplitN)
PTOSIM_ENUM(ReluPreMode, uint8_t, NoRelu = 0, NormalRelu = 1)
// TINSERT<mode>(mat, vec): the 950 split inserts (Vec NZ -> Mat in 2 or 4 burst groups)
PTOSIM_ENUM(TInsertMode, uint8_t, SPLIT2 = 2, SPLIT4 = 3)
PTOSIM_ENUM(AtomicType, uint8_t, AtomicNone = 0, AtomicAdd = 1)
PTOSIM_ENUM(SaturationMode, uint8_t, ON = 0, OFF = 1)
PTOSIM_ENUM(TFillPadMode, uint8_t, Normal = 0, InPlace = 1, Expand = 2)
// MGATHER / MSCATTER policies (seed API)
PTOSIM_ENUM(Coalesce, uint8_t, Row = 0, Elem = 1)
PTOSIM_ENUM(GatherOOB, uint8_t, Undefined = 0, Clamp = 1, Wrap = 2, Zero = 3)
PTOSIM_ENUM(GatherExec, uint8_t, Scalar = 0, Simt = 1)
PTOSIM_ENUM(ScatterAtomicOp, uint8_t, None = 0, Add = 1, Max = 2, Min = 3)

// ---- custom pad values: the public API's constexpr encoders ---------------------------------
// A custom pad is CustomBase | bits, where bits are the pad element's own bit pattern (32-bit
// types: all 32 bits; 16- and 8-bit types: the low 16 / 8 bits); the instruction reads the
// pattern at its element size.
constexpr bool isCustomPadValue(PadValue pv)
{
    return static_cast<uint64_t>(pv) >= static_cast<uint64_t>(PadValue::CustomBase);
}
constexpr uint32_t getCustomPadBits(PadValue pv)
{
    return static_cast<uint32_t>(static_cast<uint64_t>(pv) & 0xFFFFFFFFull);
}
constexpr PadValue ptosim_custom_pad(uint32_t bits)
{
    return static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) | bits);
}
constexpr PadValue PadValueCustom(float v) { return ptosim_custom_pad(__builtin_bit_cast(uint32_t, v)); }
constexpr PadValue PadValueCustom16(uint16_t bits16) { return ptosim_custom_pad(bits16); }
constexpr PadValue PadValueCustom(int32_t v) { return ptosim_custom_pad(static_cast<uint32_t>(v)); }
constexpr PadValue PadValueCustom(uint32_t v) { return ptosim_custom_pad(v); }
constexpr PadValue PadValueCustom(int16_t v) { return ptosim_custom_pad(static_cast<uint16_t>(v)); }
constexpr PadValue PadValueCustom(int8_t v) { return ptosim_custom_pad(static_cast<uint8_t>(v)); }
constexpr PadValue PadValueCustom(uint8_t v) { return ptosim_custom_pad(v); }
constexpr PadValue PadValueCustom(half v) { return ptosim_custom_pad(__builtin_bit_cast(uint16_t, v)); }
constexpr PadValue PadValueCustom(bfloat16_t v) { return ptosim_custom_pad(v.bits); }
template <auto V>
constexpr uint32_t ptosim_pad_bits()
{
    if constexpr (std::is_same_v<decltype(V), float>) return __builtin_bit_cast(uint32_t, V);
    else if constexpr (std::is_same_v<decltype(V), double>) return __builtin_bit_cast(uint32_t, (float)V);
    else if constexpr (std::is_integral_v<decltype(V)>) return static_cast<uint32_t>(V);
    else return 0;
}
template <auto V>
inline constexpr PadValue PadCustom = ptosim_custom_pad(ptosim_pad_bits<V>());
PTOSIM_ENUM(ScatterOOB, uint8_t, Undefined = 0, Skip = 1, Clamp = 2, Wrap = 3)
PTOSIM_ENUM(ScatterConflict, uint8_t, Last = 0, Default = 1)

// precision knobs and modes of the vector instructions (ptosim maps them by type name)
PTOSIM_ENUM(DivAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(ExpAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(LogAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(SqrtAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(RsqrtAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(RecipAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(PowAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(FmodAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(RemAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
// the scalar forms' own knobs (TFMODS<FmodSAlgorithm>, TREMS<RemSAlgorithm>)
PTOSIM_ENUM(FmodSAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(RemSAlgorithm, uint8_t, DEFAULT, HIGH_PRECISION)
PTOSIM_ENUM(HistByte, uint8_t, BYTE_0, BYTE_1, BYTE_2, BYTE_3)
// the library's values: the MX forms first (recorded by name)
PTOSIM_ENUM(QuantType, uint8_t, MXFP8 = 0, MXFP4_E2M1 = 1, INT8_SYM = 2, INT8_ASYM = 3)
PTOSIM_ENUM(QuantScaleAlg, uint8_t, OCP = 0, NV = 1)
PTOSIM_ENUM(MxQuantAlg, uint8_t, OcpMxFp8E4M3 = 0, NvMxFp8E4M3 = 1, OcpMxFp4E2M1 = 2, NvMxFp4E2M1 = 3, Hif4 = 4)
PTOSIM_ENUM(VecStoreMode, uint8_t, ND = 0, NZ = 1)
PTOSIM_ENUM(GatherAxis, uint8_t, GATHER_ROW, GATHER_COL)
// the img2col register set SETFMATRIX / SET_IMG2COL_* program (the library's order)
PTOSIM_ENUM(SetFmatrixMode, uint8_t, FMATRIX_A_AUTO, FMATRIX_B_AUTO, FMATRIX_A_MANUAL, FMATRIX_B_MANUAL)

// the operations an Event<SrcOp, DstOp> names (the library's Op names, and ptosim's older
// spellings of a few)
PTOSIM_ENUM(Op, uint16_t, TLOAD, TSTORE_VEC, SCALAR, TRESHAPE, VECTOR, TADD, TADDS, TAXPY, TSUB, TMUL, TMULS, TDIV, TDIVS, TMIN, TMINS, TMAX, TAND, TOR, TSEL, TSHL, TSHR, TEXP, TSELS, TSQRT, TRSQRT, TEXPANDS, TEXPANDS_MAT, TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN, TPOW, TPOWS, TCMPS, TMRGSORT, TSORT32, TCI, TGATHER, TGATHERB, TCVT, TROWSUM, TROWPROD, TROWMAX, TROWMIN, TROWEXPAND, TRANDOM, TCOLSUM, TCOLPROD, TCOLMAX, TCOLMIN, TTRANS, TTRI, TREM, TFMOD, TREMS, TFMODS, TSUBS, TMAXS, TLRELU, TPRELU, TMOV_V2V, TMOV_V2M, TEXTRACT_V2M, TMOV_M2B, TMOV_M2L, TMOV_M2R, TMOV_M2S, TMOV_A2V, TMOV_A2M, TSTORE_ACC, TSTORE_MAT, TMATMUL, TGEMV, TEXTRACT_M2LR, TANDS, TORS, TSHLS, TSHRS, TXOR, TXORS, TEXTRACT_A2M, TINSERT_A2M, TIMG2COL, SETFMATRIX, SET_IMG2COL_RPT, SET_IMG2COL_PADDING, TCONCAT, TDEQUANT, TADDDEQRELU, TABS, TNEG, TRELU, TNOT, TLOG, TRECIP, TCMP, TSCATTER, TCOLEXPAND, TCOLEXPANDDIV, TCOLEXPANDMUL, TCOLEXPANDADD, TCOLEXPANDMAX, TCOLEXPANDMIN, TCOLEXPANDSUB, TCOLEXPANDEXPDIF, TROWEXPANDDIV, TROWEXPANDMUL, TROWEXPANDSUB, TROWEXPANDADD, TROWEXPANDMAX, TROWEXPANDMIN, TROWEXPANDEXPDIF, TPAIRREDUCESUM, TSUBRELUCONV, TADDRELUCONV, TFUSEDMULADD, TMULADDDST, TSUBRELU, TFUSEDMULADDRELU, TMATMUL_MX, TSETFMATRIX, TSET_IMG2COL_RPT, TSET_IMG2COL_PADDING, OP_COUNT,)

// a signed 4-bit integer in the low half of a byte (two of them are packed per byte in memory);
// it reads as the sign-extended value
struct int4b_t {
    uint8_t storage;
    int4b_t() = default;
    explicit int4b_t(int32_t v) : storage(uint8_t(v) & 0x0F) {}
    operator int8_t() const { return int8_t(storage & 0x08 ? (storage | 0xF0) : storage); }
};

// element i of a raw array, as the library's tests fill host arrays. A 4-bit pair type holds
// element i in byte i / 2 (ptosim takes the low half for even i; it does not model these types,
// an instruction on them stops the case, so only the bounds matter here).
template <typename T>
inline T GetProperDataPart(const T *p, std::size_t i)
{
    if constexpr (IsTwinType<T>()) {
        const uint8_t b = p[i / 2].bits;
        return T(uint8_t(i % 2 ? b >> 4 : b & 0x0F));
    } else {
        return p[i];
    }
}
template <typename T, typename V>
inline void SetProperDataPart(T *p, std::size_t i, const V &v)
{
    if constexpr (IsTwinType<T>()) {
        const uint8_t nib = static_cast<T>(v).bits & 0x0F;
        uint8_t &b = p[i / 2].bits;
        b = i % 2 ? uint8_t((b & 0x0F) | (nib << 4)) : uint8_t((b & 0xF0) | nib);
    } else {
        p[i] = static_cast<T>(v);
    }
}

namespace GlobalTensorDim {
constexpr int DIM_0 = 0, DIM_1 = 1, DIM_2 = 2, DIM_3 = 3, DIM_4 = 4, TOTAL_DIM = 5;
}

struct TileConfig {
    static constexpr int alignedSize = 32;
    static constexpr int fixedRowSize = 16;
    static constexpr int fixedColSize = 16;
    static constexpr int fixedMxRowSize = 16;
    static constexpr int fixedMxColSize = 2;
    static constexpr int fractalABSize = 512;
    static constexpr int fractalCSize = 1024;
    static constexpr int fractalMxSize = 32;
};

constexpr int DYNAMIC = -1;
constexpr int BLOCK_BYTE_SIZE = 32;
constexpr int C0_SIZE_BYTE = 32;
constexpr int FRACTAL_NZ_ROW = 16;
constexpr int REPEAT_BYTE = 256;
constexpr int REPEAT_MAX = 255;
constexpr int BLOCK_LEN = 16;
constexpr int CUBE_BLOCK_SIZE = 512;
constexpr uint32_t TMP_UB_SIZE = 8 * 1024;
constexpr uint32_t TMP_UB_OFFSET = 184 * 1024;
// more of the public constants kernels and tests use by name (pto/common/constants.hpp)
constexpr uint64_t BLOCK_MAX_PER_REPEAT = REPEAT_BYTE / BLOCK_BYTE_SIZE;
constexpr int REPEAT_STRIDE_MAX = 255;
constexpr int FIXP_BURST_UNIT_LEN = 64;
constexpr uint32_t SHIFT_BLOCK_LEN = 4, SHIFT_BLOCK_BYTE = 5, SHIFT_FRACTAL_BYTE = 9;
constexpr uint64_t MASK_LEN = 64;
constexpr int FRACTAL_ZZ_ROW = 16, ACC_C0_SIZE = 16;
constexpr uint32_t B4_C0_SIZE = 64;
constexpr int MX_COL_LEN = 2, MX_ROW_LEN = 16, MX_BLOCK_SIZE = 32;
constexpr int HIF4_COL_LEN = 4, HIF4_ROW_LEN = 16, HIF4_BLOCK_SIZE = 64;
constexpr int B8_DATA_TYPE_OFFSET = 8, MAD_MODE_BIT = 46, MAD_ROUND_MODE_BIT = 47;
constexpr int TROW_PROD_LOOP_B16 = 7, TROW_PROD_LOOP_B32 = 6, PAD_SHIFT_LENGTH = 32;
constexpr uint16_t PTO_TIME_1 = 1, PTO_TIME_2 = 2, PTO_TIME_4 = 4;
constexpr uint16_t PTO_IDX_0 = 0, PTO_IDX_1 = 1, PTO_IDX_2 = 2, PTO_IDX_3 = 3;
constexpr int NUM_1 = 1, NUM_4 = 4, NUM_8 = 8, NUM_12 = 12, NUM_16 = 16, NUM_32 = 32, NUM_64 = 64;
constexpr int NUM_77 = 77, NUM_96 = 96, NUM_128 = 128, NUM_256 = 256, NUM_512 = 512;

// ---- Shape / Stride -------------------------------------------------------------------------
namespace detail {
template <size_t N>
inline void fill_dynamic(int64_t (&dst)[5], const int64_t (&stat)[5], const int64_t (&vals)[N], int64_t dflt)
{
    size_t k = 0;
    for (int i = 0; i < 5; ++i) {
        if (stat[i] != DYNAMIC) {
            dst[i] = stat[i];
        } else if (N == 5) {
            dst[i] = vals[i];
        } else {
            dst[i] = (k < N) ? vals[k++] : dflt;
        }
    }
}
} // namespace detail

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Shape {
    static constexpr int64_t staticShape[5] = {N1, N2, N3, N4, N5};
    int64_t shape[5];
    Shape() { const int64_t v[1] = {1}; detail::fill_dynamic<1>(shape, staticShape, v, 1); }
    Shape(int64_t a) { const int64_t v[1] = {a}; detail::fill_dynamic<1>(shape, staticShape, v, 1); }
    Shape(int64_t a, int64_t b) { const int64_t v[2] = {a, b}; detail::fill_dynamic<2>(shape, staticShape, v, 1); }
    Shape(int64_t a, int64_t b, int64_t c) { const int64_t v[3] = {a, b, c}; detail::fill_dynamic<3>(shape, staticShape, v, 1); }
    Shape(int64_t a, int64_t b, int64_t c, int64_t d) { const int64_t v[4] = {a, b, c, d}; detail::fill_dynamic<4>(shape, staticShape, v, 1); }
    Shape(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) { const int64_t v[5] = {a, b, c, d, e}; detail::fill_dynamic<5>(shape, staticShape, v, 1); }
};

template <int64_t S1 = DYNAMIC, int64_t S2 = DYNAMIC, int64_t S3 = DYNAMIC, int64_t S4 = DYNAMIC, int64_t S5 = DYNAMIC>
struct Stride {
    static constexpr int64_t staticStride[5] = {S1, S2, S3, S4, S5};
    int64_t stride[5];
    Stride() { const int64_t v[1] = {1}; detail::fill_dynamic<1>(stride, staticStride, v, 1); }
    Stride(int64_t a) { const int64_t v[1] = {a}; detail::fill_dynamic<1>(stride, staticStride, v, 1); }
    Stride(int64_t a, int64_t b) { const int64_t v[2] = {a, b}; detail::fill_dynamic<2>(stride, staticStride, v, 1); }
    Stride(int64_t a, int64_t b, int64_t c) { const int64_t v[3] = {a, b, c}; detail::fill_dynamic<3>(stride, staticStride, v, 1); }
    Stride(int64_t a, int64_t b, int64_t c, int64_t d) { const int64_t v[4] = {a, b, c, d}; detail::fill_dynamic<4>(stride, staticStride, v, 1); }
    Stride(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) { const int64_t v[5] = {a, b, c, d, e}; detail::fill_dynamic<5>(stride, staticStride, v, 1); }
};

// ---- GlobalTensor ---------------------------------------------------------------------------
template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
    using Shape = Shape_;
    using Stride = Stride_;
    using RawDType = Element_;
    using DType = Element_;
    static constexpr Layout layout = Layout_;
    static constexpr int64_t staticShape[5] = {Shape_::staticShape[0], Shape_::staticShape[1], Shape_::staticShape[2],
                                               Shape_::staticShape[3], Shape_::staticShape[4]};
    static constexpr int64_t staticStride[5] = {Stride_::staticStride[0], Stride_::staticStride[1],
                                                Stride_::staticStride[2], Stride_::staticStride[3],
                                                Stride_::staticStride[4]};

    GlobalTensor(DType *data, const Shape &shape = Shape(), const Stride &stride = Stride())
        : data_(data), shape_(shape), stride_(stride)
    {}
    GlobalTensor() : data_(nullptr) {}

    int64_t GetShape(const int dim) const { return (dim >= 0 && dim < 5) ? shape_.shape[dim] : -1; }
    int64_t GetStride(const int dim) const { return (dim >= 0 && dim < 5) ? stride_.stride[dim] : -1; }
    template <int dim>
    static constexpr int64_t GetShape() { static_assert(staticShape[dim] != DYNAMIC, "dynamic dim"); return staticShape[dim]; }
    template <int dim>
    static constexpr int64_t GetStride() { static_assert(staticStride[dim] != DYNAMIC, "dynamic dim"); return staticStride[dim]; }
    int64_t GetShapeSize(const int dim) const { return GetShape(dim); }
    int64_t GetStrideSize(const int dim) const { return GetStride(dim); }
    DType *data() { return data_; }
    const DType *data() const { return data_; }
    void SetAddr(DType *addr) { data_ = addr; }
    __attribute__((noinline)) void SetValue(const size_t i, const DType v)
    {
        ::ptosim::scalar_access("GlobalTensor.SetValue", ::ptosim::call_site(__builtin_return_address(0)), *this, i, &v);
    }
    __attribute__((noinline)) DType GetValue(const size_t i)
    {
        return ::ptosim::scalar_read<DType>("GlobalTensor.GetValue", ::ptosim::call_site(__builtin_return_address(0)), *this, i);
    }
    // the CPU simulator's element access by offset: the same scalar instructions
    __attribute__((noinline)) void SetElement(const size_t i, const DType v)
    {
        ::ptosim::scalar_access("GlobalTensor.SetValue", ::ptosim::call_site(__builtin_return_address(0)), *this, i, &v);
    }
    __attribute__((noinline)) DType GetElement(const size_t i)
    {
        return ::ptosim::scalar_read<DType>("GlobalTensor.GetValue", ::ptosim::call_site(__builtin_return_address(0)), *this, i);
    }

    DType *data_;
    Shape shape_;
    Stride stride_;
};


// ---- Tile -----------------------------------------------------------------------------------
namespace detail {
// A copy (a tile passed by value to a helper, or assigned) has its own id and remembers the tile
// it was copied from (``ptosim_origin``): while it keeps that tile's address it is the same
// storage binding, not a second tile over the same bytes (dispatch.py, checks/tiles.py).
struct TileIdentity {
    uint64_t ptosim_id;
    uint64_t ptosim_origin;
    bool ptosim_assigned = false;
    TileIdentity() : ptosim_id(ptosim::st().next_tile_id++), ptosim_origin(ptosim_id) {}
    TileIdentity(const TileIdentity &o)
        : ptosim_id(ptosim::st().next_tile_id++), ptosim_origin(o.ptosim_id), ptosim_assigned(o.ptosim_assigned) {}
    TileIdentity &operator=(const TileIdentity &o)
    {
        ptosim_assigned = o.ptosim_assigned;  // keeps its own identity, takes the other's placement
        ptosim_origin = o.ptosim_id;
        return *this;
    }
};
} // namespace detail

// the storage offset of element (r, c) (pto/cpu/tile_offsets.hpp, the CPU build)
template <typename TileData>
constexpr std::size_t GetTileElementOffset(int r, int c);

template <TileType Loc_, typename Element_, const int Rows_, const int Cols_, const BLayout BFractal_ = BLayout::RowMajor,
          const int RowValid_ = Rows_, const int ColValid_ = Cols_, const SLayout SFractal_ = SLayout::NoneBox,
          const int SFractalSize_ = TileConfig::fractalABSize, const PadValue PadVal_ = PadValue::Null,
          const CompactMode Compact_ = CompactMode::Null>
struct Tile : detail::TileIdentity {
    using DType = Element_;
    static constexpr TileType Loc = Loc_;
    static constexpr int Rows = Rows_;
    static constexpr int Cols = Cols_;
    static constexpr int RowStride = BFractal_ == BLayout::RowMajor ? Cols : 1;
    static constexpr int ColStride = BFractal_ == BLayout::RowMajor ? 1 : Rows;
    static constexpr int ValidRow = RowValid_;
    static constexpr int ValidCol = ColValid_;
    static constexpr BLayout BFractal = BFractal_;
    static constexpr SLayout SFractal = SFractal_;
    static constexpr int Numel = Rows * Cols;
    static constexpr bool isRowMajor = BFractal_ == BLayout::RowMajor;
    static constexpr int SFractalSize = SFractalSize_;
    static constexpr PadValue PadVal = PadVal_;
    static constexpr CompactMode Compact = Compact_;
    static constexpr bool isBoxedLayout = SFractal_ != SLayout::NoneBox;
    static constexpr bool isInnerRowMajor = SFractal_ == SLayout::RowMajor;
    static constexpr bool isInnerColMajor = SFractal_ == SLayout::ColMajor;
    static constexpr int InnerRows = !isBoxedLayout ? 1 : (isInnerRowMajor ? 16 : int(32 / sizeof(DType)));
    static constexpr int InnerCols = !isBoxedLayout ? 1 : (isInnerRowMajor ? int(32 / sizeof(DType)) : 16);
    static constexpr int InnerNumel = InnerRows * InnerCols;
    static_assert(Rows > 0 && ValidRow <= Rows && Cols > 0 && ValidCol <= Cols, "Invalid Tile Layout.");

    using TileDType = DType *;

    Tile() {}
    template <int RM = ValidRow, int CM = ValidCol>
    Tile(std::enable_if_t<RM == DYNAMIC && CM == DYNAMIC, size_t> vr, std::enable_if_t<RM == DYNAMIC && CM == DYNAMIC, size_t> vc)
    {
        RowMaskInternal = (int)vr;
        ColMaskInternal = (int)vc;
    }
    template <int RM = ValidRow, int CM = ValidCol>
    Tile(std::enable_if_t<(RM == DYNAMIC) && (CM > 0), size_t> vr)
    {
        RowMaskInternal = (int)vr;
    }
    template <int RM = ValidRow, int CM = ValidCol>
    Tile(std::enable_if_t<(RM > 0) && (CM == DYNAMIC), size_t> vc)
    {
        ColMaskInternal = (int)vc;
    }

    TileDType &data() { return data_; }
    const TileDType &data() const { return data_; }

    template <int RM = ValidRow>
    static constexpr std::enable_if_t<(RM > 0), int> GetValidRow() { return RM; }
    template <int RM = ValidRow>
    std::enable_if_t<RM == DYNAMIC, int> GetValidRow() const { return RowMaskInternal; }
    template <int CM = ValidCol>
    static constexpr std::enable_if_t<(CM > 0), int> GetValidCol() { return CM; }
    template <int CM = ValidCol>
    std::enable_if_t<CM == DYNAMIC, int> GetValidCol() const { return ColMaskInternal; }

    // scalar access to tile contents: served by ptosim's simulation session (Python tile.GetValue)
    __attribute__((noinline)) void SetValue(const uint32_t i, const DType v)
    {
        ::ptosim::scalar_access("Tile.SetValue", ::ptosim::call_site(__builtin_return_address(0)), *this, i, &v);
    }
    __attribute__((noinline)) DType GetValue(const uint32_t i)
    {
        return ::ptosim::scalar_read<DType>("Tile.GetValue", ::ptosim::call_site(__builtin_return_address(0)), *this, i);
    }
    // element (r, c) through data() (the CPU build's host-side access; a packed 4-bit element is
    // the nibble offset % 2 of byte offset / 2, the low nibble first)
    DType GetElement(int64_t r, int64_t c)
    {
        const std::size_t k = GetTileElementOffset<Tile>(int(r), int(c));
        if constexpr (IsTwinType<DType>()) {
            const uint8_t b = data_[k / 2].RawData();
            return DType::FromRaw(uint8_t((k % 2 ? b >> 4 : b) & 0xF));
        } else {
            return data_[k];
        }
    }
    void SetElement(int64_t r, int64_t c, const DType &v)
    {
        const std::size_t k = GetTileElementOffset<Tile>(int(r), int(c));
        if constexpr (IsTwinType<DType>()) {
            const uint8_t b = data_[k / 2].RawData(), n = uint8_t(v.RawData() & 0xF);
            data_[k / 2] = DType::FromRaw(uint8_t(k % 2 ? (b & 0x0F) | (n << 4) : (b & 0xF0) | n));
        } else {
            data_[k] = v;
        }
    }
    // storage size (the packed 4-bit types hold two elements per byte)
    static constexpr size_t GetSizeInUnits() { return (IsTwinType<DType>() ? Numel / 2 : Numel); }
    static constexpr size_t GetSizeInBytes() { return GetSizeInUnits() * sizeof(DType); }
    bool GetKAligned() const { return kAligned_; }
    void SetKAligned(bool k) { kAligned_ = k; }
    // the cube's fp32 input rounding (TF32 / HF32 mode): sent with the tile (describe.hpp)
    void SetMadTF32Mode(RoundMode m = RoundMode::CAST_ROUND) { ptosim_tf32 = true; ptosim_tf32_mode = m; }
    void ResetMadMode() { ptosim_tf32 = false; }
    bool ptosim_tf32 = false;
    RoundMode ptosim_tf32_mode = RoundMode::CAST_ROUND;

    int RowMaskInternal = ValidRow > 0 ? ValidRow : Rows;
    int ColMaskInternal = ValidCol > 0 ? ValidCol : Cols;
    // until TASSIGN: a private slot in the on-chip range (served after simulation, see runtime.cpp)
    TileDType data_ = reinterpret_cast<TileDType>(::ptosim::onchip_base() + ::ptosim::UNPLACED_BASE +
                                                  (ptosim_id % 128) * ::ptosim::UNPLACED_SLOT);
    bool kAligned_ = false;
};

// TileLeft is ZZ (RowMajor fractals) on Atlas A2/A3 and NZ (ColMajor fractals) on 950 and in the
// CPU simulator (reference/cube_isa.md 2.1)
#if !defined(__CPU_SIM) && defined(__CCE_AICORE__) && __CCE_AICORE__ == 220
#define PTOSIM_LEFT_BLAYOUT BLayout::RowMajor
#else
#define PTOSIM_LEFT_BLAYOUT BLayout::ColMajor
#endif
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileLeft = Tile<TileType::Left, E, R, C, PTOSIM_LEFT_BLAYOUT, RV, CV, SLayout::RowMajor, TileConfig::fractalABSize>;
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileRight = Tile<TileType::Right, E, R, C, BLayout::RowMajor, RV, CV, SLayout::ColMajor, TileConfig::fractalABSize>;
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileAcc = Tile<TileType::Acc, E, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor, TileConfig::fractalCSize>;

template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileLeftCompact = Tile<TileType::Left, E, R, C, PTOSIM_LEFT_BLAYOUT, RV, CV, SLayout::RowMajor,
                             TileConfig::fractalABSize, PadValue::Null, CompactMode::Normal>;
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileRightCompact = Tile<TileType::Right, E, R, C, BLayout::RowMajor, RV, CV, SLayout::ColMajor,
                              TileConfig::fractalABSize, PadValue::Null, CompactMode::Normal>;
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileAccCompact = Tile<TileType::Acc, E, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor,
                            TileConfig::fractalCSize, PadValue::Null, CompactMode::Normal>;
// the MX scale tiles of TMATMUL_MX (950), declared as the library declares them.
// GetScaleAddr: the a5 kernels TASSIGN a scale tile with (its data's on-chip address >> 4); a
// tile's data() is a host pointer into ptosim's on-chip window, so the address is its offset
template <typename T>
inline uint64_t GetScaleAddr(T *dst)
{
    return ::ptosim::mx_scale_offset(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dst)) >> 4);
}
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileLeftScale = Tile<TileType::ScaleLeft, E, R, C, BLayout::RowMajor, RV, CV, SLayout::RowMajor,
                           TileConfig::fractalMxSize>;
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileLeftScaleCompact = Tile<TileType::ScaleLeft, E, R, C, BLayout::RowMajor, RV, CV, SLayout::RowMajor,
                                  TileConfig::fractalMxSize, PadValue::Null, CompactMode::Normal>;
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileRightScale = Tile<TileType::ScaleRight, E, R, C, BLayout::ColMajor, RV, CV, SLayout::ColMajor,
                            TileConfig::fractalMxSize>;
template <typename E, const int R, const int C, const int RV = R, const int CV = C>
using TileRightScaleCompact = Tile<TileType::ScaleRight, E, R, C, BLayout::ColMajor, RV, CV, SLayout::ColMajor,
                                   TileConfig::fractalMxSize, PadValue::Null, CompactMode::Normal>;

// 2-D shapes / strides of a GlobalTensor for ND, DN and NZ data (the other layouts: not modelled)
template <typename T, int64_t rows = DYNAMIC, int64_t cols = DYNAMIC, Layout L = Layout::ND>
struct TileShape2D;
template <typename T, int64_t rows, int64_t cols>
struct TileShape2D<T, rows, cols, Layout::ND> : Shape<1, 1, 1, rows, cols> {
    using Shape<1, 1, 1, rows, cols>::Shape;
    TileShape2D() = default;
    TileShape2D(int64_t r, int64_t c) : Shape<1, 1, 1, rows, cols>(1, 1, 1, r, c) {}
};
template <typename T, int64_t rows, int64_t cols>
struct TileShape2D<T, rows, cols, Layout::DN> : TileShape2D<T, rows, cols, Layout::ND> {
    using TileShape2D<T, rows, cols, Layout::ND>::TileShape2D;
};
template <typename T, int64_t rows, int64_t cols>
struct TileShape2D<T, rows, cols, Layout::NZ>
    : Shape<1, (cols == DYNAMIC ? DYNAMIC : cols / int64_t(32 / sizeof(T))), (rows == DYNAMIC ? DYNAMIC : rows / 16), 16,
            int64_t(32 / sizeof(T))> {
    using Base = Shape<1, (cols == DYNAMIC ? DYNAMIC : cols / int64_t(32 / sizeof(T))), (rows == DYNAMIC ? DYNAMIC : rows / 16),
                       16, int64_t(32 / sizeof(T))>;
    TileShape2D() = default;
    TileShape2D(int64_t r, int64_t c) : Base(1, c / int64_t(32 / sizeof(T)), r / 16, 16, int64_t(32 / sizeof(T))) {}
};
template <typename T, int64_t rows = DYNAMIC, int64_t cols = DYNAMIC, Layout L = Layout::ND>
struct BaseShape2D;
template <typename T, int64_t rows, int64_t cols>
struct BaseShape2D<T, rows, cols, Layout::ND>
    : Stride<(rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols, (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
             (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols, cols, 1> {
    using Base = Stride<(rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
                        (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
                        (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols, cols, 1>;
    BaseShape2D() = default;
    BaseShape2D(int64_t r, int64_t c) : Base(r * c, r * c, r * c, c, 1) {}
};
template <typename T, int64_t rows, int64_t cols>
struct BaseShape2D<T, rows, cols, Layout::DN>
    : Stride<(rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols, (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
             (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols, 1, rows> {
    using Base = Stride<(rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
                        (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
                        (rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols, 1, rows>;
    BaseShape2D() = default;
    BaseShape2D(int64_t r, int64_t c) : Base(r * c, r * c, r * c, 1, r) {}
};
// NZ: column blocks of C0 = 32 / sizeof(T) elements, each rows x C0 (16-row fractals of C0)
template <typename T, int64_t rows, int64_t cols>
struct BaseShape2D<T, rows, cols, Layout::NZ>
    : Stride<(rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
             rows == DYNAMIC ? DYNAMIC : rows * int64_t(32 / sizeof(T)), 16 * int64_t(32 / sizeof(T)),
             int64_t(32 / sizeof(T)), 1> {
    using Base = Stride<(rows == DYNAMIC || cols == DYNAMIC) ? DYNAMIC : rows * cols,
                        rows == DYNAMIC ? DYNAMIC : rows * int64_t(32 / sizeof(T)), 16 * int64_t(32 / sizeof(T)),
                        int64_t(32 / sizeof(T)), 1>;
    BaseShape2D() = default;
    BaseShape2D(int64_t r, int64_t c)
        : Base(r * c, r * int64_t(32 / sizeof(T)), 16 * int64_t(32 / sizeof(T)), int64_t(32 / sizeof(T)), 1)
    {}
};

// the MX scale layouts of a GlobalTensor (the 950 TMATMUL_MX's float8_e8m0 scales): an M x K/32
// scale matrix of A (MX_A_*) or K/32 x N of B (MX_B_*) viewed as 5-D, two scales of one row (A) or
// column (B) adjacent: ZZ / NN as 16 x 2 fractals, ND / DN as pairs. ptosim compiles these views;
// a TLOAD of one stops naming the form (the tile-level TMATMUL_MX is not modelled yet).
namespace detail {
constexpr int64_t mx_div(int64_t v, int64_t d) { return v == DYNAMIC ? DYNAMIC : v / d; }
constexpr int64_t mx_mul(int64_t v, int64_t f) { return v == DYNAMIC ? DYNAMIC : v * f; }
constexpr int64_t mx_area(int64_t r, int64_t c) { return (r == DYNAMIC || c == DYNAMIC) ? DYNAMIC : r * c; }
} // namespace detail
#define PTOSIM_MX_VIEW(L, S1, S2, S3, S4, S5, T1, T2, T3, T4, T5, DS, DT)                              \
    template <typename T, int64_t rows, int64_t cols>                                                   \
    struct TileShape2D<T, rows, cols, Layout::L> : Shape<S1, S2, S3, S4, S5> {                          \
        using Shape<S1, S2, S3, S4, S5>::Shape;                                                         \
        TileShape2D() = default;                                                                        \
        TileShape2D(int64_t r, int64_t c) : Shape<S1, S2, S3, S4, S5> DS {}                             \
    };                                                                                                  \
    template <typename T, int64_t rows, int64_t cols>                                                   \
    struct BaseShape2D<T, rows, cols, Layout::L> : Stride<T1, T2, T3, T4, T5> {                         \
        using Stride<T1, T2, T3, T4, T5>::Stride;                                                       \
        BaseShape2D() = default;                                                                        \
        BaseShape2D(int64_t r, int64_t c) : Stride<T1, T2, T3, T4, T5> DT {}                            \
    };
PTOSIM_MX_VIEW(MX_A_ZZ, 1, detail::mx_div(rows, 16), detail::mx_div(cols, 2), 16, 2,
               detail::mx_area(rows, cols), detail::mx_mul(cols, 16), 32, 2, 1,
               (1, r / 16, c / 2, 16, 2), (r * c, c * 16, 32, 2, 1))
PTOSIM_MX_VIEW(MX_A_ND, 1, 1, rows, detail::mx_div(cols, 2), 2,
               detail::mx_area(rows, cols), detail::mx_area(rows, cols), cols, 2, 1,
               (1, 1, r, c / 2, 2), (r * c, r * c, c, 2, 1))
PTOSIM_MX_VIEW(MX_A_DN, 1, 1, detail::mx_div(cols, 2), rows, 2,
               detail::mx_area(rows, cols), detail::mx_area(rows, cols), detail::mx_mul(rows, 2), 2, 1,
               (1, 1, c / 2, r, 2), (r * c, r * c, r * 2, 2, 1))
PTOSIM_MX_VIEW(MX_B_NN, 1, detail::mx_div(cols, 16), detail::mx_div(rows, 2), 16, 2,
               detail::mx_area(rows, cols), detail::mx_mul(rows, 16), 32, 2, 1,
               (1, c / 16, r / 2, 16, 2), (r * c, r * 16, 32, 2, 1))
PTOSIM_MX_VIEW(MX_B_ND, 1, 1, detail::mx_div(rows, 2), cols, 2,
               detail::mx_area(rows, cols), detail::mx_area(rows, cols), detail::mx_mul(cols, 2), 2, 1,
               (1, 1, r / 2, c, 2), (r * c, r * c, c * 2, 2, 1))
PTOSIM_MX_VIEW(MX_B_DN, 1, 1, cols, detail::mx_div(rows, 2), 2,
               detail::mx_area(rows, cols), detail::mx_area(rows, cols), rows, 2, 1,
               (1, 1, c, r / 2, 2), (r * c, r * c, r, 2, 1))
#undef PTOSIM_MX_VIEW

struct MrgSortExecutedNumList {
    uint16_t mrgSortList0 = 0, mrgSortList1 = 0, mrgSortList2 = 0, mrgSortList3 = 0;
};

// ---- traits ---------------------------------------------------------------------------------
template <typename T> struct is_tile : std::false_type {};
template <TileType L, typename E, int R, int C, BLayout B, int RV, int CV, SLayout S, int F, PadValue P, CompactMode M>
struct is_tile<Tile<L, E, R, C, B, RV, CV, S, F, P, M>> : std::true_type {};
template <typename T> struct is_global : std::false_type {};
template <typename E, typename Sh, typename St, Layout L>
struct is_global<GlobalTensor<E, Sh, St, L>> : std::true_type {};
template <typename T> constexpr bool is_tile_data_v = is_tile<std::remove_cv_t<T>>::value;
template <typename T> constexpr bool is_global_data_v = is_global<std::remove_cv_t<T>>::value;
// convolution tiles (ConvTile<Loc, T, BufferSize, Layout, ConvTileShape<dims...>>): a TLOAD copies
// the GM view densely into L1 (the a2a3 conv TLOAD bursts), so ptosim keeps the tile as an ND Mat
// tile of (the product of all dims but the last) x the last dim, and knows its layout and dims
template <int... Dims>
struct ConvTileShape {
    static constexpr int totalDimCount = sizeof...(Dims);
    static constexpr int64_t staticShape[sizeof...(Dims)] = {Dims...};
    static constexpr int64_t last = staticShape[sizeof...(Dims) - 1];
};
//
// A dims of -1 is given at construction (``ConvTile(hinCount)``, one int64_t per -1 dim, in
// order). The img2col parameters (feature map, filter, padding, strides, repeats) are plain
// fields with the library's getters and setters: ptosim does not model img2col, so SETFMATRIX,
// SET_IMG2COL_RPT / _PADDING (instr.hpp) and TIMG2COL stop the run at their line.
template <TileType Loc_, typename Element_, int BufferSize_, Layout Layout_, typename Shape_>
struct ConvTile : Tile<Loc_, Element_, int(BufferSize_ / Shape_::last), int(Shape_::last)> {
    static_assert(BufferSize_ % Shape_::last == 0, "ConvTile: BufferSize must be a multiple of the last dim");
    using ShapeType = Shape_;
    using DType = Element_;
    static constexpr int bufferSize = BufferSize_;
    static constexpr Layout layout = Layout_;
    static constexpr int totalDimCount = Shape_::totalDimCount;
    int64_t shape[totalDimCount] = {};
    ConvTile() { set_dims(); }
    template <typename... Ints,
              std::enable_if_t<(sizeof...(Ints) > 0) && (std::is_integral_v<Ints> && ...), int> = 0>
    explicit ConvTile(Ints... dims)
    {
        static_assert(sizeof...(Ints) == dynamic_dims(), "ConvTile: one value per dynamic (-1) dim of its shape");
        set_dims(int64_t(dims)...);
    }
    template <typename... Ints>
    void SetDynamicShape(Ints... dims)
    {
        static_assert(sizeof...(Ints) == dynamic_dims(), "ConvTile: one value per dynamic (-1) dim of its shape");
        set_dims(int64_t(dims)...);
    }
    constexpr int64_t GetShape(int dim) const { return dim >= 0 && dim < totalDimCount ? shape[dim] : -1; }

#define PTOSIM_CONV_FIELD(TYPE, NAME, INIT)                            \
    TYPE NAME##_ = INIT;                                               \
    TYPE Get##NAME() const { return NAME##_; }                         \
    void Set##NAME(TYPE v) { NAME##_ = v; }
    PTOSIM_CONV_FIELD(uint16_t, FmapH, 0)
    PTOSIM_CONV_FIELD(uint16_t, FmapW, 0)
    PTOSIM_CONV_FIELD(uint16_t, FilterH, 0)
    PTOSIM_CONV_FIELD(uint16_t, FilterW, 0)
    PTOSIM_CONV_FIELD(uint8_t, DilationH, 1)
    PTOSIM_CONV_FIELD(uint8_t, DilationW, 1)
    PTOSIM_CONV_FIELD(uint8_t, StrideH, 1)
    PTOSIM_CONV_FIELD(uint8_t, StrideW, 1)
    PTOSIM_CONV_FIELD(Element_, PadValue, Element_())
    PTOSIM_CONV_FIELD(uint16_t, ChannelSize, 0)
    PTOSIM_CONV_FIELD(uint16_t, RepeatStride, 0)
    PTOSIM_CONV_FIELD(uint8_t, RepeatTime, 0)
    PTOSIM_CONV_FIELD(uint8_t, RepeatMode, 0)
    PTOSIM_CONV_FIELD(bool, Transpose, false)
    PTOSIM_CONV_FIELD(uint16_t, DstStride, 0)
    PTOSIM_CONV_FIELD(uint16_t, DstMposition, 0)
#undef PTOSIM_CONV_FIELD
    uint8_t padList_[4] = {};  // left, right, top, bottom
    uint8_t GetPadList(uint8_t i) const { return i < 4 ? padList_[i] : 0; }
    void SetPadList(uint8_t i, uint8_t v)
    {
        if (i < 4) padList_[i] = v;
    }
    const uint8_t *GetPadListArray() const { return padList_; }
    void SetPadListArray(const uint8_t v[4])
    {
        for (int i = 0; i < 4; ++i) padList_[i] = v[i];
    }

private:
    static constexpr int dynamic_dims()
    {
        int n = 0;
        for (int i = 0; i < totalDimCount; ++i) n += Shape_::staticShape[i] == -1;
        return n;
    }
    template <typename... Ints>
    void set_dims(Ints... dims)
    {
        const int64_t given[] = {dims..., 0};
        int k = 0;
        for (int i = 0; i < totalDimCount; ++i)
            shape[i] = Shape_::staticShape[i] == -1 ? given[k++] : Shape_::staticShape[i];
    }
};
template <TileType L, typename E, int B, Layout Ly, typename S>
struct is_tile<ConvTile<L, E, B, Ly, S>> : std::true_type {};
template <typename T> struct is_conv : std::false_type {};
template <TileType L, typename E, int B, Layout Ly, typename S>
struct is_conv<ConvTile<L, E, B, Ly, S>> : std::true_type {};
template <typename T> constexpr bool is_conv_tile_v = is_conv<std::remove_cv_t<T>>::value;

// the layout of a tile as the library's GetTileLayoutCustom names it
enum class TileLayoutCustom : uint8_t { ND, DN, NZ, ZN, ZZ, NONE };
template <typename TileData>
constexpr TileLayoutCustom GetTileLayoutCustom()
{
    constexpr bool none = TileData::SFractal == SLayout::NoneBox;
    constexpr bool f512 = TileData::SFractalSize == 512;
    if constexpr (TileData::isRowMajor && none) return TileLayoutCustom::ND;
    else if constexpr (!TileData::isRowMajor && none) return TileLayoutCustom::DN;
    else if constexpr (!TileData::isRowMajor && TileData::SFractal == SLayout::RowMajor && f512) return TileLayoutCustom::NZ;
    else if constexpr (TileData::isRowMajor && TileData::SFractal == SLayout::ColMajor && f512) return TileLayoutCustom::ZN;
    else if constexpr (TileData::isRowMajor && TileData::SFractal == SLayout::RowMajor && f512) return TileLayoutCustom::ZZ;
    else return TileLayoutCustom::NONE;
}

// ---- events ---------------------------------------------------------------------------------
struct RecordEvent {};

namespace detail {
constexpr pipe_t op_pipe(Op op)
{
    switch (op) {
        case Op::TLOAD: return PIPE_MTE2;
        case Op::TSTORE_VEC: case Op::TSTORE_MAT: return PIPE_MTE3;
        case Op::SCALAR: return PIPE_S;
        case Op::TMOV_M2B: case Op::TMOV_M2L: case Op::TMOV_M2R: case Op::TEXTRACT_M2LR:
            return PIPE_MTE1;
        case Op::TMATMUL: case Op::TGEMV: case Op::TMATMUL_MX: return PIPE_M;
        // the fixpipe: out of L0C, and into L1 from UB or into the fixpipe buffer (Mat -> Scaling)
        case Op::TMOV_A2V: case Op::TMOV_A2M: case Op::TSTORE_ACC: case Op::TEXTRACT_A2M: case Op::TINSERT_A2M:
        case Op::TMOV_M2S: case Op::TMOV_V2M: case Op::TEXTRACT_V2M:
            return PIPE_FIX;
        default: return PIPE_V;
    }
}
} // namespace detail

// Event<SrcOp, DstOp>: `ev = INSTR(...)` posts set_flag(src pipe, dst pipe, id); passing `ev` to
// a later instruction waits on it first. As the library does (semantics.md, "Event ids"): ids
// are allocated round-robin per (src pipe, dst pipe) modulo 8, and when both ops run on one pipe
// nothing is posted and Wait() is pipe_barrier(pipe).
template <Op SrcOp, Op DstOp>
struct Event {
    static constexpr pipe_t src = detail::op_pipe(SrcOp);
    static constexpr pipe_t dst = detail::op_pipe(DstOp);
    int id = 0;
    bool posted = false;
    Event() = default;
    __attribute__((noinline)) Event(const RecordEvent &) { post(::ptosim::call_site(__builtin_return_address(0))); }
    // one id sequence per pipe pair and block run (reset by ptosim_set_block): identical runs,
    // identical ids
    static int &counter() { return ::ptosim::st().event_counter[(int)src & 15][(int)dst & 15]; }
    __attribute__((noinline)) Event &operator=(const RecordEvent &)
    {
        post(::ptosim::call_site(__builtin_return_address(0)));
        return *this;
    }
    __attribute__((noinline)) void Record() { post(::ptosim::call_site(__builtin_return_address(0))); }
    void post(long long pc)
    {
        posted = true;
        if (src == dst) return;  // one pipe: ordered by a barrier at Wait()
        id = counter();
        counter() = (counter() + 1) % 8;
        ptosim::flag_record("set_flag", pc, src, dst, id);
    }
    __attribute__((noinline)) void Wait() { Wait(::ptosim::call_site(__builtin_return_address(0))); }
    void Wait(long long pc)
    {
        if (!posted) return;
        posted = false;
        if (src == dst) {
            ptosim::barrier_record(pc, src);
            return;
        }
        ptosim::flag_record("wait_flag", pc, src, dst, id);
    }
};
template <typename T> struct is_event : std::false_type {};
template <Op A, Op B> struct is_event<Event<A, B>> : std::true_type {};

template <typename... E>
__attribute__((noinline)) void WaitAllEvents(E &...events)
{
    long long pc = ::ptosim::call_site(__builtin_return_address(0));
    (events.Wait(pc), ...);
}
template <typename... E>
__attribute__((noinline)) void TSYNC(E &...events)
{
    long long pc = ::ptosim::call_site(__builtin_return_address(0));
    (events.Wait(pc), ...);
}
// TSYNC<Op>(): pipe_barrier on the pipe of Op (semantics.md, "Higher-level forms")
template <Op OpCode>
__attribute__((noinline)) void TSYNC()
{
    ptosim::barrier_record(::ptosim::call_site(__builtin_return_address(0)), detail::op_pipe(OpCode));
}

template <pipe_t SrcPipe, pipe_t DstPipe>
__attribute__((noinline)) void PtoSetWaitFlag()
{
    long long pc = ptosim::call_site(__builtin_return_address(0));
    ptosim::flag_record("set_flag", pc, SrcPipe, DstPipe, 0);
    ptosim::flag_record("wait_flag", pc, SrcPipe, DstPipe, 0);
}

} // namespace pto

#include "describe.hpp"
#include "instr.hpp"
#include "fifo.hpp"
#include "tsync_custom.hpp"
#include "prefetch.hpp"
#include "vreg.hpp"

#if defined(__CPU_SIM)
// the library's CPU build declares the ACL host types and calls (aclFloat16, aclrtMalloc ...)
// with its PTO headers, so a cpu test's headers use them without including acl/acl.h
#include "acl/acl.h"
// ... and its CPU memory model (tests pick an architecture through it)
#include "pto/cpu/NPUMemoryModel.hpp"
#include "pto/cpu/tile_offsets.hpp"
// ... and its scalar MX helpers (pto::cpu_quant), which its TQUANT tests call
#include "cpu_quant.hpp"
#endif
