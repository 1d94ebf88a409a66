// ptosim C++ front end: instruction entry points.
//
// The seeds and data movement have the template parameter lists of the public API, so explicit
// policies (MGATHER<Coalesce::Elem, GatherOOB::Clamp>, TSCATTER<MaskPattern::P1010>,
// TSTORE<AtomicType::...>) are sent as named fields. Every other instruction gets a generic
// recorder that accepts any operands (and explicit type arguments followed by one or two value
// arguments); the Python side maps the operands onto the instruction's Python signature from
// ptosim's instruction registry, or stops the run naming the line if ptosim does not implement it.
//
// All entry points are noinline so that __builtin_return_address(0) is the kernel's call site.
#pragma once

#include "ptosim_shim/arity.hpp"

#define PTOSIM_PC ::ptosim::call_site(__builtin_return_address(0))
#define PTOSIM_NOINLINE __attribute__((noinline))

namespace pto {

namespace detail {
// The body of most entry points: wait on the Event operands among ``args`` (TSYNC), then record
// the call with them. ``pc`` is taken by the caller (its own return address is the call site).
template <typename... A>
void issue(const char *op, long long pc, const std::string &targs, A &...args)
{
    ::ptosim::wait_events(pc, args...);
    ::ptosim::record(op, pc, targs, args...);
}
} // namespace detail

// ---- TASSIGN --------------------------------------------------------------------------------
template <typename T, typename AddrType>
PTOSIM_NOINLINE void TASSIGN(T &obj, AddrType addr)
{
    if constexpr (is_tile_data_v<T>) {
        obj.data_ = reinterpret_cast<typename T::DType *>(::ptosim::onchip_base() +
                                                          ::ptosim::onchip_offset((uintptr_t)addr));
        obj.ptosim_assigned = true;
        ::ptosim::record("TASSIGN", PTOSIM_PC, "", obj);
    } else if constexpr (is_global_data_v<T>) {
        obj.data_ = (typename T::DType *)(addr);  // re-point a GlobalTensor: no instruction
    } else {
        static_assert(is_tile_data_v<T> || is_global_data_v<T>, "TASSIGN: Tile or GlobalTensor expected");
    }
}

template <std::size_t Addr, typename T>
PTOSIM_NOINLINE std::enable_if_t<is_tile_data_v<T>> TASSIGN(T &obj)
{
    obj.data_ = reinterpret_cast<typename T::DType *>(::ptosim::onchip_base() + Addr);
    obj.ptosim_assigned = true;
    ::ptosim::record("TASSIGN", PTOSIM_PC, "", obj);
}

// ---- TLOAD / TSTORE -------------------------------------------------------------------------
template <typename TileData, typename GlobalData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TLOAD(TileData &dst, GlobalData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TLOAD", pc, "", dst, src);
    return {};
}

namespace detail {
template <typename TileData, typename GlobalData>
void store(long long pc, GlobalData &dst, TileData &src, AtomicType atomic, const std::string &phase,
           const std::string &relu, bool quant, uint64_t preQuantScalar = 0)
{
    std::string t;
    if (atomic != AtomicType::AtomicNone) ::ptosim::targ(t, "atomic", ::ptosim::name(atomic));
    if (!phase.empty()) ::ptosim::targ(t, "phase", phase);
    if (!relu.empty() && relu != "NoRelu") ::ptosim::targ(t, "relu", relu);
    if (quant) ::ptosim::targ(t, "prequant", std::to_string(preQuantScalar));
    ::ptosim::record("TSTORE", pc, t, dst, src);
}
} // namespace detail

template <typename TileData, typename GlobalData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::store(pc, dst, src, AtomicType::AtomicNone, "", "", false);
    return {};
}
template <STPhase Phase, typename TileData, typename GlobalData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::store(pc, dst, src, AtomicType::AtomicNone, ::ptosim::name(Phase), "", false);
    return {};
}
template <typename TileData, typename GlobalData, AtomicType atomicType, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::store(pc, dst, src, atomicType, "", "", false);
    return {};
}
template <STPhase Phase, typename TileData, typename GlobalData, AtomicType atomicType, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::store(pc, dst, src, atomicType, ::ptosim::name(Phase), "", false);
    return {};
}
template <typename TileData, typename GlobalData, AtomicType atomicType, ReluPreMode reluPreMode, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::store(pc, dst, src, atomicType, "", ::ptosim::name(reluPreMode), false);
    return {};
}
template <typename TileData, typename GlobalData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSTORE(GlobalData &dst, TileData &src, uint64_t preQuantScalar,
                                   WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::store(pc, dst, src, atomicType, "", ::ptosim::name(reluPreMode), true, preQuantScalar);
    return {};
}

template <typename TileData, typename GlobalData, typename FpTileData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSTORE_FP(GlobalData &dst, TileData &src, FpTileData &fp, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    if (atomicType != AtomicType::AtomicNone) ::ptosim::targ(t, "atomic", ::ptosim::name(atomicType));
    if (reluPreMode != ReluPreMode::NoRelu) ::ptosim::targ(t, "relu", ::ptosim::name(reluPreMode));
    ::ptosim::record("TSTORE_FP", pc, t, dst, src, fp);
    return {};
}

// ---- the fixpipe's quantisation registers: SET_QUANT_SCALAR<OutT>(scale), SET_QUANT_VECTOR(fp)
template <typename OutType, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent SET_QUANT_SCALAR(float preQuantScalar, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    ::ptosim::targ(t, "out_dtype", ::ptosim::dtype_name<OutType>());
    ::ptosim::record("SET_QUANT_SCALAR", pc, t, preQuantScalar);
    return {};
}
template <typename FpTileData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent SET_QUANT_VECTOR(FpTileData &fp, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("SET_QUANT_VECTOR", pc, "", fp);
    return {};
}

// ---- TMOV / TEXPANDS ------------------------------------------------------------------------
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc, "", dst, src);
    return {};
}
// TMOV(dst, src, tmp): the 950's ND -> ZZ move of an E8M0 exponent tile through a scratch tile
template <typename DstTileData, typename SrcTileData, typename TmpTileData, typename... WaitEvents>
PTOSIM_NOINLINE std::enable_if_t<is_tile_data_v<TmpTileData>, RecordEvent> TMOV(DstTileData &dst, SrcTileData &src,
                                                                                TmpTileData &tmp,
                                                                                WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc, "", dst, src, tmp);
    return {};
}
template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    ::ptosim::targ(t, "relu", ::ptosim::name(reluMode));
    ::ptosim::record("TMOV", pc, t, dst, src);
    return {};
}
// the fixpipe fields of a TMOV from an Acc tile: AccToVecMode (950 Acc -> Vec), ReluPreMode,
// STPhase, a preQuantScalar word ("" / empty: absent)
namespace detail {
inline std::string acc_fields(const char *mode, ReluPreMode relu, STPhase phase)
{
    std::string t;
    if (mode) ::ptosim::targ(t, "acc_to_vec", mode);
    if (relu != ReluPreMode::NoRelu) ::ptosim::targ(t, "relu", ::ptosim::name(relu));
    if (phase != STPhase::Unspecified) ::ptosim::targ(t, "phase", ::ptosim::name(phase));
    return t;
}
inline std::string acc_fields(const char *mode, ReluPreMode relu, STPhase phase, uint64_t preQuantScalar)
{
    std::string t = acc_fields(mode, relu, phase);
    ::ptosim::targ(t, "prequant", std::to_string(preQuantScalar));
    return t;
}
} // namespace detail
#define PTOSIM_MODE_NAME(mode) ::ptosim::name(mode).c_str()
template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc, detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, STPhase::Unspecified), dst,
                     src);
    return {};
}
template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc,
                     detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, STPhase::Unspecified, preQuantScalar), dst,
                     src);
    return {};
}
// TMOV<STPhase, ...>: the same forms with the unit flag of an STPhase
template <STPhase Phase, typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc, detail::acc_fields(nullptr, reluMode, Phase), dst, src);
    return {};
}
template <STPhase Phase, typename DstTileData, typename SrcTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc, detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, Phase), dst, src);
    return {};
}
template <STPhase Phase, typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc, detail::acc_fields(nullptr, reluMode, Phase, preQuantScalar), dst, src);
    return {};
}
template <STPhase Phase, typename DstTileData, typename SrcTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV", pc, detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, Phase, preQuantScalar), dst,
                     src);
    return {};
}
template <STPhase Phase, typename DstTileData, typename SrcTileData, typename FpTileData,
          ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV_FP(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV_FP", pc, detail::acc_fields(nullptr, reluMode, Phase), dst, src, fp);
    return {};
}
template <STPhase Phase, typename DstTileData, typename SrcTileData, typename FpTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV_FP", pc, detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, Phase), dst, src, fp);
    return {};
}
template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    ::ptosim::targ(t, "prequant", std::to_string(preQuantScalar));
    if (reluMode != ReluPreMode::NoRelu) ::ptosim::targ(t, "relu", ::ptosim::name(reluMode));
    ::ptosim::record("TMOV", pc, t, dst, src);
    return {};
}

template <typename DstTileData, typename SrcTileData, typename FpTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV_FP(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    if (reluMode != ReluPreMode::NoRelu) ::ptosim::targ(t, "relu", ::ptosim::name(reluMode));
    ::ptosim::record("TMOV_FP", pc, t, dst, src, fp);
    return {};
}
template <typename DstTileData, typename SrcTileData, typename FpTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMOV(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TMOV_FP", pc, detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, STPhase::Unspecified), dst,
                     src, fp);
    return {};
}

// TEXTRACT / TINSERT Acc -> Mat with a preQuantScalar (scalar quantisation). Kernels name the
// tile types explicitly, which the generic overloads cannot take; the word and index types are
// deduced (a kernel's int indices must not make the generic entry, which takes them without a
// conversion, the better match).
#define PTOSIM_ACC_PREQUANT(NAME)                                                                      \
    template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,  \
              typename Q, typename R, typename C, typename... WaitEvents>                              \
    PTOSIM_NOINLINE RecordEvent NAME(DstTileData &dst, SrcTileData &src, Q preQuantScalar, R indexRow, \
                                     C indexCol, WaitEvents &...events)                                \
    {                                                                                                  \
        long long pc = PTOSIM_PC;                                                                      \
        ::ptosim::wait_events(pc, events...);                                                          \
        std::string t;                                                                                 \
        ::ptosim::targ(t, "prequant", std::to_string(static_cast<uint64_t>(preQuantScalar)));          \
        ::ptosim::targ(t, "relu", ::ptosim::name(reluMode));                                           \
        ::ptosim::record(#NAME, pc, t, dst, src, indexRow, indexCol);                                  \
        return {};                                                                                     \
    }
PTOSIM_ACC_PREQUANT(TEXTRACT)
PTOSIM_ACC_PREQUANT(TINSERT)
#undef PTOSIM_ACC_PREQUANT
// TEXTRACT_FP / TINSERT_FP<Dst, Acc, Fp[, relu]>(dst, acc, fp, row, col): vector quantisation
#define PTOSIM_ACC_FP(NAME)                                                                            \
    template <typename DstTileData, typename SrcTileData, typename FpTileData,                         \
              ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>                      \
    PTOSIM_NOINLINE RecordEvent NAME(DstTileData &dst, SrcTileData &src, FpTileData &fp,               \
                                     uint16_t indexRow = 0, uint16_t indexCol = 0,                     \
                                     WaitEvents &...events)                                            \
    {                                                                                                  \
        long long pc = PTOSIM_PC;                                                                      \
        ::ptosim::wait_events(pc, events...);                                                          \
        std::string t;                                                                                 \
        if (reluMode != ReluPreMode::NoRelu) ::ptosim::targ(t, "relu", ::ptosim::name(reluMode));      \
        ::ptosim::record(#NAME, pc, t, dst, src, fp, indexRow, indexCol);                              \
        return {};                                                                                     \
    }
PTOSIM_ACC_FP(TEXTRACT_FP)
PTOSIM_ACC_FP(TINSERT_FP)
#undef PTOSIM_ACC_FP
// TEXTRACT / TINSERT<Dst, Acc[, Fp], AccToVecMode[, relu]>(dst, acc[, fp | preQuantScalar], row, col):
// Acc -> Vec through the 950 fixpipe into a vector core's UB. The index types are deduced so that
// no conversion makes the generic entry a better match.
#define PTOSIM_ACC_TO_VEC(NAME)                                                                        \
    template <typename DstTileData, typename SrcTileData, AccToVecMode mode,                           \
              ReluPreMode reluMode = ReluPreMode::NoRelu, typename R, typename C, typename... WaitEvents>  \
    PTOSIM_NOINLINE RecordEvent NAME(DstTileData &dst, SrcTileData &src, R indexRow, C indexCol,        \
                                     WaitEvents &...events)                                            \
    {                                                                                                  \
        long long pc = PTOSIM_PC;                                                                      \
        ::ptosim::wait_events(pc, events...);                                                          \
        ::ptosim::record(#NAME, pc, detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, STPhase::Unspecified), \
                         dst, src, indexRow, indexCol);                                                \
        return {};                                                                                     \
    }                                                                                                  \
    template <typename DstTileData, typename SrcTileData, AccToVecMode mode,                           \
              ReluPreMode reluMode = ReluPreMode::NoRelu, typename Q, typename R, typename C,          \
              typename... WaitEvents>                                                                  \
    PTOSIM_NOINLINE RecordEvent NAME(DstTileData &dst, SrcTileData &src, Q preQuantScalar, R indexRow,  \
                                     C indexCol, WaitEvents &...events)                                \
    {                                                                                                  \
        long long pc = PTOSIM_PC;                                                                      \
        ::ptosim::wait_events(pc, events...);                                                          \
        ::ptosim::record(#NAME, pc,                                                                    \
                         detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, STPhase::Unspecified,    \
                                            static_cast<uint64_t>(preQuantScalar)),                    \
                         dst, src, indexRow, indexCol);                                                \
        return {};                                                                                     \
    }                                                                                                  \
    template <typename DstTileData, typename SrcTileData, typename FpTileData, AccToVecMode mode,      \
              ReluPreMode reluMode = ReluPreMode::NoRelu, typename R, typename C, typename... WaitEvents>  \
    PTOSIM_NOINLINE RecordEvent NAME(DstTileData &dst, SrcTileData &src, FpTileData &fp, R indexRow,   \
                                     C indexCol, WaitEvents &...events)                                \
    {                                                                                                  \
        long long pc = PTOSIM_PC;                                                                      \
        ::ptosim::wait_events(pc, events...);                                                          \
        ::ptosim::record(#NAME "_FP", pc,                                                              \
                         detail::acc_fields(PTOSIM_MODE_NAME(mode), reluMode, STPhase::Unspecified),   \
                         dst, src, fp, indexRow, indexCol);                                            \
        return {};                                                                                     \
    }
PTOSIM_ACC_TO_VEC(TEXTRACT)
PTOSIM_ACC_TO_VEC(TINSERT)
#undef PTOSIM_ACC_TO_VEC

template <typename TileData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TEXPANDS(TileData &dst, typename TileData::DType scalar, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TEXPANDS", pc, "", dst, scalar);
    return {};
}

// ---- MGATHER / MSCATTER ---------------------------------------------------------------------
// Without explicit policies the call is recorded without a "coalesce" field: the loader then
// infers Row/Elem from the index tile shape, as the pre-policy API did.
template <typename TileDst, typename GlobalData, typename TileInd, typename... Rest>
PTOSIM_NOINLINE RecordEvent MGATHER(TileDst &dst, GlobalData &table, TileInd &idx, Rest &...rest)
{
    detail::issue("MGATHER", PTOSIM_PC, "", dst, table, idx, rest...);
    return {};
}
template <Coalesce CMode, GatherOOB Oob = GatherOOB::Undefined, typename TileDst, typename GlobalData, typename TileInd,
          typename... Rest>
PTOSIM_NOINLINE RecordEvent MGATHER(TileDst &dst, GlobalData &table, TileInd &idx, Rest &...rest)
{
    long long pc = PTOSIM_PC;
    std::string t;
    ::ptosim::targ(t, "coalesce", ::ptosim::name(CMode));
    ::ptosim::targ(t, "oob", ::ptosim::name(Oob));
    detail::issue("MGATHER", pc, t, dst, table, idx, rest...);
    return {};
}
template <Coalesce CMode, GatherOOB Oob, GatherExec Exec, typename TileDst, typename GlobalData, typename TileInd,
          typename... Rest>
PTOSIM_NOINLINE RecordEvent MGATHER(TileDst &dst, GlobalData &table, TileInd &idx, Rest &...rest)
{
    long long pc = PTOSIM_PC;
    std::string t;
    ::ptosim::targ(t, "coalesce", ::ptosim::name(CMode));
    ::ptosim::targ(t, "oob", ::ptosim::name(Oob));
    ::ptosim::targ(t, "exec", ::ptosim::name(Exec));
    detail::issue("MGATHER", pc, t, dst, table, idx, rest...);
    return {};
}
template <GatherOOB Oob, typename TileDst, typename GlobalData, typename TileInd, typename... Rest>
PTOSIM_NOINLINE RecordEvent MGATHER(TileDst &dst, GlobalData &table, TileInd &idx, Rest &...rest)
{
    long long pc = PTOSIM_PC;
    std::string t;
    ::ptosim::targ(t, "oob", ::ptosim::name(Oob));
    detail::issue("MGATHER", pc, t, dst, table, idx, rest...);
    return {};
}

template <typename GlobalData, typename TileSrc, typename TileInd, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent MSCATTER(GlobalData &table, TileSrc &src, TileInd &idx, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("MSCATTER", pc, "", table, src, idx);
    return {};
}
template <Coalesce CMode, ScatterAtomicOp Atomic = ScatterAtomicOp::None, ScatterOOB Oob = ScatterOOB::Undefined,
          typename GlobalData, typename TileSrc, typename TileInd, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent MSCATTER(GlobalData &table, TileSrc &src, TileInd &idx, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    ::ptosim::targ(t, "coalesce", ::ptosim::name(CMode));
    ::ptosim::targ(t, "atomic", ::ptosim::name(Atomic));
    ::ptosim::targ(t, "oob", ::ptosim::name(Oob));
    ::ptosim::record("MSCATTER", pc, t, table, src, idx);
    return {};
}
template <Coalesce CMode, ScatterAtomicOp Atomic, ScatterOOB Oob, ScatterConflict Conflict, typename GlobalData,
          typename TileSrc, typename TileInd, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent MSCATTER(GlobalData &table, TileSrc &src, TileInd &idx, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    ::ptosim::targ(t, "coalesce", ::ptosim::name(CMode));
    ::ptosim::targ(t, "atomic", ::ptosim::name(Atomic));
    ::ptosim::targ(t, "oob", ::ptosim::name(Oob));
    ::ptosim::targ(t, "conflict", ::ptosim::name(Conflict));
    ::ptosim::record("MSCATTER", pc, t, table, src, idx);
    return {};
}

// ---- TSCATTER -------------------------------------------------------------------------------
template <typename TileDataD, typename TileDataS, typename TileDataI, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSCATTER(TileDataD &dst, TileDataS &src, TileDataI &indexes, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TSCATTER", pc, "", dst, src, indexes);
    return {};
}
template <MaskPattern maskPattern = MaskPattern::P1111, auto ScatterType = ScatterAxis::SCATTER_ROW,
          typename DstTileData, typename SrcTileData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSCATTER(DstTileData &dst, SrcTileData &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    ::ptosim::targ(t, "mask", ::ptosim::name(maskPattern));
    ::ptosim::targ(t, "axis", (int)ScatterType == 0 ? "SCATTER_ROW" : "SCATTER_COL");
    ::ptosim::record("TSCATTER", pc, t, dst, src);
    return {};
}

// ---- TROWEXPAND family ----------------------------------------------------------------------
template <typename TileDataDst, typename TileDataSrc, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TROWEXPAND(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TROWEXPAND", pc, "", dst, src);
    return {};
}

#define PTOSIM_ROWEXPAND_BINARY(NAME)                                                                           \
    template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename... Rest>             \
    PTOSIM_NOINLINE RecordEvent NAME(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, Rest &...rest) \
    {                                                                                                           \
        detail::issue(#NAME, PTOSIM_PC, "", dst, src0, src1, rest...);                                  \
        return {};                                                                                              \
    }
PTOSIM_ROWEXPAND_BINARY(TROWEXPANDMAX)
PTOSIM_ROWEXPAND_BINARY(TROWEXPANDMIN)
PTOSIM_ROWEXPAND_BINARY(TROWEXPANDADD)
PTOSIM_ROWEXPAND_BINARY(TROWEXPANDSUB)
PTOSIM_ROWEXPAND_BINARY(TROWEXPANDMUL)
PTOSIM_ROWEXPAND_BINARY(TROWEXPANDDIV)
PTOSIM_ROWEXPAND_BINARY(TROWEXPANDEXPDIF)
#undef PTOSIM_ROWEXPAND_BINARY

// ---- TMRGSORT -------------------------------------------------------------------------------
// The public forms: TMRGSORT<Dst, Tmp, Src0, Src1[, Src2[, Src3]], exhausted>(dst, executedNumList,
// tmp, src0, src1[, src2[, src3]]) and the single-tile TMRGSORT(dst, src, blockLen); tmp is the
// library's scratch and is not passed on. mrgSortList<k> is the number of list k's records the
// merge consumed: when the merge runs to the end (no exhausted stop and dst's valid columns hold
// every record) that is list k's record count, known here; otherwise it depends on the data,
// which the simulation sees only after the call is recorded, and the counts are left as they
// were (the kernel's own values).
namespace detail {
template <typename S>
uint32_t mrgsort_records(S &s)
{
    return uint32_t(s.GetValidCol() * sizeof(typename S::DType) / 8);
}
template <bool exhausted, typename D, typename Tmp, typename... S>
void mrgsort(long long pc, D &dst, MrgSortExecutedNumList &executed, Tmp &tmp, S &...srcs)
{
    std::string t;
    ::ptosim::targ(t, "form", "lists");
    ::ptosim::targ(t, "exhausted", exhausted ? "true" : "false");
    ::ptosim::record("TMRGSORT", pc, t, dst, tmp, srcs...);
    uint32_t total = (mrgsort_records(srcs) + ...);
    if (exhausted || mrgsort_records(dst) < total) {
        return;
    }
    uint16_t *counts[4] = {&executed.mrgSortList0, &executed.mrgSortList1, &executed.mrgSortList2,
                           &executed.mrgSortList3};
    int k = 0;
    ((*counts[k++] = uint16_t(mrgsort_records(srcs))), ...);
}
} // namespace detail

template <typename DstTileData, typename TmpTileData, typename Src0TileData, typename Src1TileData, bool exhausted,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMRGSORT(DstTileData &dst, MrgSortExecutedNumList &executedNumList, TmpTileData &tmp,
                                     Src0TileData &src0, Src1TileData &src1, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::mrgsort<exhausted>(pc, dst, executedNumList, tmp, src0, src1);
    return {};
}
template <typename DstTileData, typename TmpTileData, typename Src0TileData, typename Src1TileData,
          typename Src2TileData, bool exhausted, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMRGSORT(DstTileData &dst, MrgSortExecutedNumList &executedNumList, TmpTileData &tmp,
                                     Src0TileData &src0, Src1TileData &src1, Src2TileData &src2,
                                     WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::mrgsort<exhausted>(pc, dst, executedNumList, tmp, src0, src1, src2);
    return {};
}
template <typename DstTileData, typename TmpTileData, typename Src0TileData, typename Src1TileData,
          typename Src2TileData, typename Src3TileData, bool exhausted, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMRGSORT(DstTileData &dst, MrgSortExecutedNumList &executedNumList, TmpTileData &tmp,
                                     Src0TileData &src0, Src1TileData &src1, Src2TileData &src2,
                                     Src3TileData &src3, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::mrgsort<exhausted>(pc, dst, executedNumList, tmp, src0, src1, src2, src3);
    return {};
}
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TMRGSORT(DstTileData &dst, SrcTileData &src, uint32_t blockLen, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string t;
    ::ptosim::targ(t, "form", "blockLen");
    ::ptosim::record("TMRGSORT", pc, t, dst, src, blockLen);
    return {};
}

// ---- every other instruction: generic recorder ----------------------------------------------
namespace detail {
// explicit template value arguments, described like operands (enums by type and name)
template <auto V>
std::string value_targ()
{
    std::string t = "\"value\":";
    ::ptosim::describe(t, V);
    return t;
}
template <auto V1, auto V2>
std::string value_targ2()
{
    std::string t = "\"value\":";
    ::ptosim::describe(t, V1);
    t += ",\"value2\":";
    ::ptosim::describe(t, V2);
    return t;
}
} // namespace detail

// Operand counts: PTOSIM_ARITY_<NAME>(n) (ptosim_shim/arity.hpp, generated from ptosim's
// instruction registry by ptosim/cxx/headers.py) refuses at compile time a call whose operand
// count (events and enum modes not counted) the instruction cannot take, so the compiler names the
// kernel's line (TLOG(x) instead of TLOG(dst, src)).
} // namespace pto
namespace ptosim {
// whether ptosim_enum_type(u) names U as an enum mode (C++17 detection: NPU units build as C++17)
template <typename U, typename = void>
struct is_enum_mode : std::false_type {};
template <typename U>
struct is_enum_mode<U, std::void_t<decltype(ptosim_enum_type(std::declval<U &>()))>> : std::true_type {};
template <typename T>
constexpr bool counts_as_operand()
{
    using U = std::remove_cv_t<std::remove_reference_t<T>>;
    if constexpr (::pto::is_event<U>::value) return false;
    else if constexpr (is_enum_mode<U>::value) return false;
    else return true;
}
template <typename... A>
constexpr int operand_count()
{
    return (0 + ... + (counts_as_operand<A>() ? 1 : 0));
}
} // namespace ptosim
namespace pto {

// the body of every generic overload: check the operand count, wait on Event operands, record.
// The count check is one function template per instruction (NAME##_operand_count_check), not a copy
// in each of the overloads: every C++ unit parses this header, and its size is most of the build
// time of a small kernel. An error still names the kernel's line ("required from here").
#define PTOSIM_GENERIC_BODY(NAME, TARGS)                                                                \
    {                                                                                                   \
        detail::NAME##_operand_count_check<A...>();                                                     \
        detail::issue(#NAME, PTOSIM_PC, TARGS, args...);                                                \
        return {};                                                                                      \
    }
#define PTOSIM_GENERIC(NAME)                                                                            \
    namespace detail {                                                                                  \
    template <typename... A>                                                                            \
    constexpr void NAME##_operand_count_check()                                                         \
    {                                                                                                   \
        PTOSIM_ARITY_##NAME((::ptosim::operand_count<A...>()));                                          \
    }                                                                                                   \
    }                                                                                                   \
    template <typename... A>                                                                            \
    PTOSIM_NOINLINE RecordEvent NAME(A &...args) PTOSIM_GENERIC_BODY(NAME, "")                          \
    template <typename... A>                                                                            \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args) PTOSIM_GENERIC_BODY(NAME, "")                         \
    template <auto V, typename... A>                                                                    \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args) PTOSIM_GENERIC_BODY(NAME, detail::value_targ<V>())    \
    /* TFMOD<Algo, Dst, Src0, Src1>(dst, src0, src1): operand types given, lvalue operands */          \
    template <auto V, typename... A>                                                                    \
    PTOSIM_NOINLINE RecordEvent NAME(A &...args) PTOSIM_GENERIC_BODY(NAME, detail::value_targ<V>())     \
    template <auto V1, auto V2, typename... A>                                                          \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args)                                                       \
        PTOSIM_GENERIC_BODY(NAME, (detail::value_targ2<V1, V2>()))                                      \
    template <auto V1, auto V2, typename... A>                                                          \
    PTOSIM_NOINLINE RecordEvent NAME(A &...args)                                                        \
        PTOSIM_GENERIC_BODY(NAME, (detail::value_targ2<V1, V2>()))                                      \
    template <typename T1, auto V, typename... A>                                                       \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args) PTOSIM_GENERIC_BODY(NAME, detail::value_targ<V>())    \
    template <typename T1, auto V1, auto V2, typename... A>                                             \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args)                                                       \
        PTOSIM_GENERIC_BODY(NAME, (detail::value_targ2<V1, V2>()))                                      \
    template <typename T1, typename T2, auto V, typename... A>                                          \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args) PTOSIM_GENERIC_BODY(NAME, detail::value_targ<V>())    \
    template <typename T1, typename T2, auto V1, auto V2, typename... A>                                \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args)                                                       \
        PTOSIM_GENERIC_BODY(NAME, (detail::value_targ2<V1, V2>()))                                      \
    template <typename T1, typename T2, typename T3, auto V, typename... A>                             \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args) PTOSIM_GENERIC_BODY(NAME, detail::value_targ<V>())    \
    template <typename T1, typename T2, typename T3, typename T4, auto V, typename... A>                 \
    PTOSIM_NOINLINE RecordEvent NAME(A &&...args) PTOSIM_GENERIC_BODY(NAME, detail::value_targ<V>())

PTOSIM_GENERIC(TABS) PTOSIM_GENERIC(TADD) PTOSIM_GENERIC(TADDC) PTOSIM_GENERIC(TADDSC)
PTOSIM_GENERIC(TAND) PTOSIM_GENERIC(TBROADCAST) PTOSIM_GENERIC(TCI) PTOSIM_GENERIC(TCMP)
PTOSIM_GENERIC(TCMPS) PTOSIM_GENERIC(TCOLEXPAND) PTOSIM_GENERIC(TCOLEXPANDADD) PTOSIM_GENERIC(TCOLEXPANDDIV)
PTOSIM_GENERIC(TCOLEXPANDEXPDIF) PTOSIM_GENERIC(TCOLEXPANDMAX) PTOSIM_GENERIC(TCOLEXPANDMIN)
PTOSIM_GENERIC(TCOLEXPANDMUL) PTOSIM_GENERIC(TCOLEXPANDSUB) PTOSIM_GENERIC(TCOLMAX) PTOSIM_GENERIC(TCOLMIN)
PTOSIM_GENERIC(TCOLPROD) PTOSIM_GENERIC(TCOLSUM) PTOSIM_GENERIC(TCVT) PTOSIM_GENERIC(TDEQUANT) PTOSIM_GENERIC(TDIV)
PTOSIM_GENERIC(TEXP) PTOSIM_GENERIC(TEXTRACT)
PTOSIM_GENERIC(TFILLPAD) PTOSIM_GENERIC(TFILLPAD_EXPAND) PTOSIM_GENERIC(TFILLPAD_INPLACE) PTOSIM_GENERIC(TFMOD)
PTOSIM_GENERIC(TGATHER) PTOSIM_GENERIC(TGATHERB) PTOSIM_GENERIC(TGEMV)
PTOSIM_GENERIC(TGEMV_ACC) PTOSIM_GENERIC(TGEMV_BIAS) PTOSIM_GENERIC(TGEMV_MX) PTOSIM_GENERIC(TGET)
PTOSIM_GENERIC(TIMG2COL) PTOSIM_GENERIC(TINSERT) PTOSIM_GENERIC(TLOG)
PTOSIM_GENERIC(TMATMUL) PTOSIM_GENERIC(TMATMUL_ACC) PTOSIM_GENERIC(TMATMUL_BIAS)
PTOSIM_GENERIC(TMATMUL_MX) PTOSIM_GENERIC(TMAX) PTOSIM_GENERIC(TMIN)
PTOSIM_GENERIC(TMUL) PTOSIM_GENERIC(TNEG)
PTOSIM_GENERIC(TNOT) PTOSIM_GENERIC(TNOTIFY) PTOSIM_GENERIC(TOR) PTOSIM_GENERIC(TPACK)
PTOSIM_GENERIC(TPARTADD) PTOSIM_GENERIC(TPARTMAX) PTOSIM_GENERIC(TPARTMIN) PTOSIM_GENERIC(TPARTMUL)
PTOSIM_GENERIC(TPREFETCH) PTOSIM_GENERIC(TPRELU) PTOSIM_GENERIC(TPRINT)
PTOSIM_GENERIC(TPUT) PTOSIM_GENERIC(TQUANT) PTOSIM_GENERIC(TRECIP) PTOSIM_GENERIC(TREDUCE) PTOSIM_GENERIC(TRELU)
PTOSIM_GENERIC(TREM) PTOSIM_GENERIC(TROWMAX) PTOSIM_GENERIC(TROWMIN)
PTOSIM_GENERIC(TROWPROD) PTOSIM_GENERIC(TROWSUM) PTOSIM_GENERIC(TRSQRT) PTOSIM_GENERIC(TSEL) PTOSIM_GENERIC(TSELS)
PTOSIM_GENERIC(TSETFMATRIX) PTOSIM_GENERIC(TSET_IMG2COL_PADDING) PTOSIM_GENERIC(TSET_IMG2COL_RPT)
PTOSIM_GENERIC(TSHL) PTOSIM_GENERIC(TSHR) PTOSIM_GENERIC(TSORT32)
PTOSIM_GENERIC(TSQRT) PTOSIM_GENERIC(TSUB) PTOSIM_GENERIC(TSUBC)
PTOSIM_GENERIC(TSUBSC) PTOSIM_GENERIC(TTEST) PTOSIM_GENERIC(TTRANS) PTOSIM_GENERIC(TTRI) PTOSIM_GENERIC(TWAIT)
PTOSIM_GENERIC(TXOR)
PTOSIM_GENERIC(TCOLARGMAX) PTOSIM_GENERIC(TCOLARGMIN) PTOSIM_GENERIC(THISTOGRAM)
PTOSIM_GENERIC(TPOW)
PTOSIM_GENERIC(TROWARGMAX) PTOSIM_GENERIC(TROWARGMIN)
// TGATHER<Dst, Src, K, Cdst, Tmp, CmpMode>(dst, src0, kValue, cdst, tmp, offset): the compare form
template <typename T1, typename T2, typename T3, typename T4, typename T5, auto V, typename... A>
PTOSIM_NOINLINE RecordEvent TGATHER(A &&...args) PTOSIM_GENERIC_BODY(TGATHER, detail::value_targ<V>())
#undef PTOSIM_GENERIC
#undef PTOSIM_GENERIC_BODY

// TPARTARGMAX/MIN: the library's operand order is (dst, src0, src1, dstIdx, src0Idx, src1Idx)
// (its pto_instr.hpp); ptosim's is value and index per operand, (dst_val, dst_idx, src0_val,
// src0_idx, src1_val, src1_idx)
#define PTOSIM_PARTARG(NAME)                                                                            \
    template <typename... T, typename DV, typename S0, typename S1, typename DI, typename S0I,         \
              typename S1I, typename... E>                                                              \
    PTOSIM_NOINLINE RecordEvent NAME(DV &dst, S0 &src0, S1 &src1, DI &dstIdx, S0I &src0Idx,            \
                                     S1I &src1Idx, E &&...events)                                      \
    {                                                                                                   \
        detail::issue(#NAME, PTOSIM_PC, "", dst, dstIdx, src0, src0Idx, src1, src1Idx, events...);     \
        return {};                                                                                      \
    }
PTOSIM_PARTARG(TPARTARGMAX) PTOSIM_PARTARG(TPARTARGMIN)
#undef PTOSIM_PARTARG

// The library's implementation entry points that its tests call directly (the a5 tcolexpand
// test calls TCOLEXPAND_IMPL(dst, src)): the instruction itself, as a macro so that the
// recorded call site is the kernel's line
#define TCOLEXPAND_IMPL(...) TCOLEXPAND(__VA_ARGS__)

// ---- tile-scalar instructions ---------------------------------------------------------------
// The public API declares the scalar `typename TileDataSrc::DType`: the call converts it to the
// source tile's element type (0xFFFF -> int16_t -1, 1.5f -> int32_t 1) before the instruction
// sees it. These overloads take it the same way (a generic recorder would send the argument's
// own type and value); TDIVS also has the scalar-first form (scalar / src).
#define PTOSIM_TILE_SCALAR(NAME)                                                                       \
    template <typename TileDataDst, typename TileDataSrc, typename... Rest>                            \
    PTOSIM_NOINLINE RecordEvent NAME(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar, \
                                     Rest &...rest)                                                    \
    {                                                                                                  \
        detail::issue(#NAME, PTOSIM_PC, "", dst, src, scalar, rest...);                                 \
        return {};                                                                                     \
    }                                                                                                  \
    template <auto V, typename TileDataDst, typename TileDataSrc, typename... Rest>                    \
    PTOSIM_NOINLINE RecordEvent NAME(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar, \
                                     Rest &...rest)                                                    \
    {                                                                                                  \
        detail::issue(#NAME, PTOSIM_PC, detail::value_targ<V>(), dst, src, scalar, rest...);            \
        return {};                                                                                     \
    }
PTOSIM_TILE_SCALAR(TADDS) PTOSIM_TILE_SCALAR(TSUBS) PTOSIM_TILE_SCALAR(TMULS) PTOSIM_TILE_SCALAR(TDIVS)
PTOSIM_TILE_SCALAR(TMAXS) PTOSIM_TILE_SCALAR(TMINS) PTOSIM_TILE_SCALAR(TANDS) PTOSIM_TILE_SCALAR(TORS)
PTOSIM_TILE_SCALAR(TXORS) PTOSIM_TILE_SCALAR(TSHLS) PTOSIM_TILE_SCALAR(TSHRS) PTOSIM_TILE_SCALAR(TFMODS)
PTOSIM_TILE_SCALAR(TREMS) PTOSIM_TILE_SCALAR(TPOWS) PTOSIM_TILE_SCALAR(TLRELU) PTOSIM_TILE_SCALAR(TAXPY)
#undef PTOSIM_TILE_SCALAR
template <typename TileDataDst, typename TileDataSrc, typename... Rest>
PTOSIM_NOINLINE RecordEvent TDIVS(TileDataDst &dst, typename TileDataSrc::DType scalar, TileDataSrc &src, Rest &...rest)
{
    detail::issue("TDIVS", PTOSIM_PC, "", dst, scalar, src, rest...);
    return {};
}
template <auto V, typename TileDataDst, typename TileDataSrc, typename... Rest>
PTOSIM_NOINLINE RecordEvent TDIVS(TileDataDst &dst, typename TileDataSrc::DType scalar, TileDataSrc &src, Rest &...rest)
{
    detail::issue("TDIVS", PTOSIM_PC, detail::value_targ<V>(), dst, scalar, src, rest...);
    return {};
}

// TROWEXPANDDIV<DivAlgorithm>(dst, src0, src1[, tmp]): the public API's precision knob, sent as a
// template value (the dispatcher refuses values its Python signature has no keyword for)
template <auto V, typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename... Rest>
PTOSIM_NOINLINE RecordEvent TROWEXPANDDIV(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, Rest &...rest)
{
    detail::issue("TROWEXPANDDIV", PTOSIM_PC, detail::value_targ<V>(), dst, src0, src1, rest...);
    return {};
}

// ---- TRESHAPE / TSUBVIEW: views ----------------------------------------------------------------
// dst becomes an alias of src's storage (TSUBVIEW: from element (rowIdx, colIdx), at src's row and
// column strides), so dst.data() is src.data() (+ the offset) afterwards, as in the CPU build, and
// the next instruction on dst is recorded at that storage.
namespace detail {
template <typename D, typename S>
void alias(D &dst, const S &src, size_t offset_elements)
{
    dst.data_ = reinterpret_cast<typename D::TileDType>(src.data_ + offset_elements);
    dst.ptosim_assigned = src.ptosim_assigned;
}
} // namespace detail
template <typename TileDataOut, typename TileDataIn, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TRESHAPE(TileDataOut &dst, TileDataIn &src, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TRESHAPE", pc, "", dst, src);
    detail::alias(dst, src, 0);
    return {};
}
template <typename TileDataDst, typename TileDataSrc, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TSUBVIEW(TileDataDst &dst, TileDataSrc &src, uint16_t rowIdx, uint16_t colIdx,
                                     WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TSUBVIEW", pc, "", dst, src, rowIdx, colIdx);
    detail::alias(dst, src, size_t(rowIdx) * TileDataSrc::RowStride + size_t(colIdx) * TileDataSrc::ColStride);
    return {};
}

// ---- TQUANT with its offset as a pointer ----------------------------------------------------
// The public API passes the optional INT8_ASYM offset tile by pointer (vector_isa.md 3.15
// "offset*"): TQUANT<Q>(dst, src, scale, &offset) and TQUANT<Q>(dst, src, scale, tmp, &offset);
// a null pointer means no offset. Recorded as the tile itself (the generic recorder above takes
// the by-reference forms).
template <QuantType Q, typename D, typename S, typename P, typename O, typename... WaitEvents>
PTOSIM_NOINLINE std::enable_if_t<is_tile_data_v<O>, RecordEvent> TQUANT(D &dst, S &src, P &scale, O *offset,
                                                                        WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    if (offset) ::ptosim::record("TQUANT", pc, detail::value_targ<Q>(), dst, src, scale, *offset);
    else ::ptosim::record("TQUANT", pc, detail::value_targ<Q>(), dst, src, scale);
    return {};
}
template <QuantType Q, typename D, typename S, typename P, typename T, typename O, typename... WaitEvents>
PTOSIM_NOINLINE std::enable_if_t<is_tile_data_v<O>, RecordEvent> TQUANT(D &dst, S &src, P &scale, T &tmp, O *offset,
                                                                        WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    if (offset) ::ptosim::record("TQUANT", pc, detail::value_targ<Q>(), dst, src, scale, tmp, *offset);
    else ::ptosim::record("TQUANT", pc, detail::value_targ<Q>(), dst, src, scale, tmp);
    return {};
}

// The img2col register set of a convolution tile (the library's SETFMATRIX, SET_IMG2COL_RPT,
// SET_IMG2COL_PADDING): ptosim does not model img2col (nor TIMG2COL, which reads them), so the
// run stops at the call's line.
#define PTOSIM_IMG2COL_SETTER(NAME)                                                                       \
    template <typename ConvTileData, SetFmatrixMode Mode = SetFmatrixMode::FMATRIX_A_MANUAL,              \
              typename... WaitEvents>                                                                     \
    PTOSIM_NOINLINE RecordEvent NAME(ConvTileData &, WaitEvents &...)                                    \
    {                                                                                                     \
        ::ptosim::unsupported(#NAME " (the img2col registers of a convolution tile: img2col and "         \
                              "TIMG2COL are not modelled)", PTOSIM_PC);                                   \
        return {};                                                                                        \
    }
PTOSIM_IMG2COL_SETTER(SETFMATRIX)
PTOSIM_IMG2COL_SETTER(SET_IMG2COL_RPT)
PTOSIM_IMG2COL_SETTER(SET_IMG2COL_PADDING)
#undef PTOSIM_IMG2COL_SETTER

// TQUANT's MX forms: TQUANT<Q[, Dst, Src, Exp, Max, Scaling, QuantScaleAlg]>(dst, src, &exp, &max,
// &scaling), the shared-exponent, group-max and scaling tiles by pointer, recorded with the
// QuantType and the scale algorithm; and the cpu layer's NZ form TQUANT<MXFP8, VecStoreMode::NZ>(dst,
// src, &exp, &max, &scaling, &exp_zz) with the reordered exponents (ptosim/isa/vector/mxquant.py).
template <QuantType Q, typename D, typename S, typename E, typename M, typename Sc,
          QuantScaleAlg Alg = QuantScaleAlg::OCP, typename... WaitEvents>
PTOSIM_NOINLINE std::enable_if_t<is_tile_data_v<E>, RecordEvent> TQUANT(D &dst, S &src, E *exp, M *max,
                                                                        Sc *scaling, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TQUANT", pc, detail::value_targ2<Q, Alg>(), dst, src, *exp, *max, *scaling);
    return {};
}
template <QuantType Q, VecStoreMode Mode, typename D, typename S, typename E, typename M, typename Sc,
          typename... WaitEvents>
PTOSIM_NOINLINE std::enable_if_t<is_tile_data_v<E>, RecordEvent> TQUANT(D &dst, S &src, E *exp, M *max,
                                                                        Sc *scaling, E *exp_zz,
                                                                        WaitEvents &...events)
{
    static_assert(Mode == VecStoreMode::NZ, "TQUANT<Q, VecStoreMode>: the NZ form (ND is the 5-tile call)");
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    ::ptosim::record("TQUANT", pc, detail::value_targ<Q>(), dst, src, *exp, *max, *scaling, *exp_zz);
    return {};
}

// The library's a5 ND -> NZ move between two Vec tiles, which its tinsert test calls directly with
// the tiles' data pointers and valid shapes: ptosim lays a tile of each type over its pointer
// (the destination valid validRow x validCol, the source srcValidRow x validCol) and runs TMOV.
namespace detail {
template <typename X>
X tile_over(typename X::DType *p, uint32_t rows, uint32_t cols)
{
    X t = [&] {
        if constexpr (X::ValidRow == DYNAMIC && X::ValidCol == DYNAMIC) return X(rows, cols);
        else if constexpr (X::ValidRow == DYNAMIC) return X(rows);
        else if constexpr (X::ValidCol == DYNAMIC) return X(cols);
        else return X();
    }();
    TASSIGN(t, (uintptr_t)p - ::ptosim::onchip_base());
    return t;
}
} // namespace detail
template <typename T, typename DstTileData, typename SrcTileData>
PTOSIM_NOINLINE void TMovToVecNd2Nz(typename DstTileData::TileDType dst, typename SrcTileData::TileDType src,
                                    uint32_t validRow, uint32_t validCol, uint32_t srcValidRow, unsigned = 0)
{
    DstTileData d = detail::tile_over<DstTileData>(dst, validRow, validCol);
    SrcTileData s = detail::tile_over<SrcTileData>(src, srcValidRow, validCol);
    TMOV(d, s);
}

} // namespace pto
