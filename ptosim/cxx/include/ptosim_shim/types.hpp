// ptosim C++ front end: the device-compiler dialect (qualifiers, scalar types, pipes, events,
// intrinsics) mapped onto standard C++ so that g++ / clang compile kernel files unchanged.
// Own code, written for ptosim; no vendor code.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "record.hpp"

// ---- address-space and function qualifiers of the CCE dialect: no meaning on the host -------
#ifndef __global__
#define __global__
#endif
#define AICORE
#define __aicore__
#define __gm__
#define __out__
#define __in__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __tf__
#define __sync_noalias__
#define __sync_alias__
#define PTO_INLINE inline
#define PTO_INST inline
#define PTO_INTERNAL inline
#define OP_NAME(Name)
#define OP_TYPE(TypeName)
#define __cce_get_tile_ptr(x) (x)
#define GM_ADDR uint8_t *

// The device compiler defines these; kernels test them with #if. The front end sets them per
// target with -D (see ptosim/cxx/build.py); these are fallbacks.
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif

// The 950 library's sort header leaks a round-up-to-a-multiple macro that a5 kernels use
// (tsort32's kernel sizes its scratch tile with it); the other targets' headers do not have it.
#if __CCE_AICORE__ == 310 && !defined(PTO_CEIL)
#define PTO_CEIL(value, multiple) ((((value) + (multiple)-1) / (multiple)) * (multiple))
#endif

// ---- scalar element types -------------------------------------------------------------------
typedef _Float16 half;
// The device compiler (clang-based) also spells the IEEE half `__fp16` (the library's trowprod
// test uses it in main.cpp and the kernel). g++ on x86-64 has no such type, and clang's own
// __fp16 is a storage-only type distinct from half: both compilers here read it as half.
#define __fp16 _Float16
#if defined(__CPU_SIM)
typedef _Float16 aclFloat16;  // the CPU simulator's type.hpp declares it (test_common.h uses it)
#endif  // on the NPU targets acl/acl.h declares it as the runtime's 16-bit integer

// bfloat16: storage + conversions (round to nearest even)
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    constexpr bfloat16_t(float f)  // constexpr: PadValueCustom((bfloat16_t)-1.0) is a constant
    {
        uint32_t u = __builtin_bit_cast(uint32_t, f);
        if ((u & 0x7fffffffu) > 0x7f800000u) {
            bits = (uint16_t)((u >> 16) | 0x40);
        } else {
            u += 0x7fffu + ((u >> 16) & 1u);
            bits = (uint16_t)(u >> 16);
        }
    }
    constexpr bfloat16_t(double d) : bfloat16_t((float)d) {}
    constexpr bfloat16_t(int v) : bfloat16_t((float)v) {}
    operator float() const
    {
        uint32_t u = (uint32_t)bits << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
};
typedef bfloat16_t bfloat16;
typedef half float16_t;
typedef float float32_t;

// 8-bit floating types (storage, and the value read back, e.g. by a test comparing outputs):
// sign, E exponent bits with the bias, M mantissa bits; `specials`: 1 an all-ones exponent is
// inf/NaN (IEEE-like e5m2), 2 only all-ones exponent and mantissa is NaN (e4m3fn), 0 none. The
// 4-bit pairs read their first (low) element. hifloat8 is not decoded (NaN).
namespace ptosim {
inline float minifloat(unsigned bits, int e_bits, int m_bits, int bias, int specials)
{
    const unsigned m_mask = (1u << m_bits) - 1, e_mask = (1u << e_bits) - 1;
    const unsigned m = bits & m_mask, e = (bits >> m_bits) & e_mask, sign = (bits >> (m_bits + e_bits)) & 1u;
    float v;
    if (specials == 1 && e == e_mask) v = m ? NAN : INFINITY;
    else if (specials == 2 && e == e_mask && m == m_mask) v = NAN;
    else if (e == 0) v = std::ldexp(float(m) / float(1u << m_bits), 1 - bias);
    else v = std::ldexp(1.0f + float(m) / float(1u << m_bits), int(e) - bias);
    return sign ? -v : v;
}
} // namespace ptosim
namespace ptosim {
// The pattern (of the first `count`) whose value is nearest `v` (the first of a tie; 0 when
// none compares, as for hifloat8, whose value the shim does not decode): the host-side
// conversion of a number, e.g. std::fill(buffer, end, 0) in a test's main.cpp.
template <typename T>
inline uint8_t nearest_pattern(double v, unsigned count)
{
    uint8_t best = 0;
    double gap = INFINITY;
    for (unsigned b = 0; b < count; ++b) {
        const double d = std::fabs(double(float(T(uint8_t(b)))) - v);
        if (d < gap) gap = d, best = uint8_t(b);
    }
    return best;
}
} // namespace ptosim
// Negation flips the sign bits (SIGNS: bit 7, or bits 3 and 7 of a 4-bit pair; e8m0 has none).
// A number converts to the nearest pattern (a 4-bit pair: into its low element). RawData /
// FromRaw: the byte (of a 4-bit element read by Tile::GetElement, its nibble), as the library's
// types offer them.
#define PTOSIM_OPAQUE8(NAME, VALUE, SIGNS, COUNT)                                   \
    struct NAME {                                                                   \
        uint8_t bits = 0;                                                           \
        NAME() = default;                                                           \
        explicit NAME(uint8_t b) : bits(b) {}                                       \
        template <typename V, std::enable_if_t<std::is_arithmetic_v<V>, int> = 0>   \
        NAME(V v) : bits(::ptosim::nearest_pattern<NAME>(double(v), COUNT)) {}      \
        explicit operator float() const { return VALUE; }                           \
        NAME operator-() const { return NAME(uint8_t(bits ^ SIGNS)); }              \
        uint8_t RawData() const { return bits; }                                    \
        static NAME FromRaw(uint8_t b) { return NAME(b); }                          \
    };
PTOSIM_OPAQUE8(float8_e4m3_t, ::ptosim::minifloat(bits, 4, 3, 7, 2), 0x80, 256)
PTOSIM_OPAQUE8(float8_e5m2_t, ::ptosim::minifloat(bits, 5, 2, 15, 1), 0x80, 256)
PTOSIM_OPAQUE8(float8_e8m0_t, bits == 0xFF ? NAN : std::ldexp(1.0f, int(bits) - 127), 0x00, 256)
PTOSIM_OPAQUE8(hifloat8_t, NAN, 0x80, 256)
PTOSIM_OPAQUE8(float4_e2m1x2_t, ::ptosim::minifloat(bits & 0xF, 2, 1, 1, 0), 0x88, 16)
PTOSIM_OPAQUE8(float4_e1m2x2_t, ::ptosim::minifloat(bits & 0xF, 1, 2, 1, 0), 0x88, 16)
#undef PTOSIM_OPAQUE8

#if defined(__CPU_SIM)
// The CPU simulator gives its fp4 types numeric limits (MXTypes.hpp): no infinity or NaN
// (their infinity() is +0), max() the largest finite field 0x7, min() the smallest positive
// subnormal 0x1, lowest() 0xF. The library's cpu tests take pad values from them (its TLOAD
// test's PadValue::Max golden), and its TLOAD pads with them (isa/data.py packed_pad_field).
#define PTOSIM_FP4_LIMITS(NAME, DIGITS)                                                       \
    template <>                                                                              \
    class numeric_limits<NAME> {                                                             \
    public:                                                                                  \
        static constexpr bool is_specialized = true, is_signed = true, is_integer = false;   \
        static constexpr int radix = 2, digits = DIGITS;                                     \
        static constexpr bool has_infinity = false, has_quiet_NaN = false;                   \
        static constexpr bool has_signaling_NaN = false;                                     \
        static NAME min() noexcept { return NAME(uint8_t(0x1)); }                            \
        static NAME max() noexcept { return NAME(uint8_t(0x7)); }                            \
        static NAME lowest() noexcept { return NAME(uint8_t(0xF)); }                         \
        static NAME infinity() noexcept { return NAME(); }                                   \
        static NAME quiet_NaN() noexcept { return NAME(); }                                  \
        static NAME signaling_NaN() noexcept { return NAME(); }                              \
    };
namespace std {
PTOSIM_FP4_LIMITS(float4_e2m1x2_t, 2)  // digits: the mantissa bits and the implicit one
PTOSIM_FP4_LIMITS(float4_e1m2x2_t, 3)
} // namespace std
#undef PTOSIM_FP4_LIMITS
#endif

// the packed 4-bit element types hold two values per byte ("twin" types; global, as the
// library declares them)
template <typename T>
constexpr bool IsTwinType()
{
    return std::is_same_v<T, float4_e2m1x2_t> || std::is_same_v<T, float4_e1m2x2_t>;
}

// ---- pipes and events (global names, as the device compiler provides them) ------------------
enum pipe_t : int {
    PIPE_S = 0,
    PIPE_V = 1,
    PIPE_MTE1 = 2,
    PIPE_MTE2 = 3,
    PIPE_MTE3 = 4,
    PIPE_M = 5,
    PIPE_ALL = 6,
    PIPE_FIX = 7,
};
enum event_t : int {
    EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7,
    EVENT_ID8, EVENT_ID9, EVENT_ID10, EVENT_ID11, EVENT_ID12, EVENT_ID13, EVENT_ID14, EVENT_ID15,
};

namespace ptosim {
inline const char *pipe_name(int p)
{
    static const char *names[] = {"PIPE_S", "PIPE_V", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_M",
                                  "PIPE_ALL", "PIPE_FIX"};
    return (p >= 0 && p < 8) ? names[p] : "PIPE_?";
}
inline void flag_record(const char *op, long long pc, int src, int dst, long long id)
{
    std::string b;
    jkey(b, "src"); jstr(b, pipe_name(src));
    jkey(b, "dst"); jstr(b, pipe_name(dst));
    jkey(b, "event"); jint(b, id);
    send(op, pc, b);
}
// unsupported device features: the run stops at their call site
inline void unsupported(const char *what, long long pc)
{
    std::string b;
    jkey(b, "what"); jstr(b, what);
    send("__unsupported__", pc, b);
}

// `kernel<<<blocks, l2, stream>>>(args)` is rewritten by the build into
// `::ptosim::launch(kernel, blocks, l2, stream)(args)`: the call is kept as a pending closure and
// the Python side runs it once per block inside Device.run (`ptosim test`, testmain.hpp).
// (a hand-made closure holder, not std::function: <functional> and <map> were a sixth of every
// kernel unit's compile time, and the library's headers do not include them either)
struct PendingLaunch {
    void *closure = nullptr;
    void (*run)(void *) = nullptr;
    void (*drop)(void *) = nullptr;
    explicit operator bool() const { return run != nullptr; }
    void operator()() const { run(closure); }
    template <class L>
    void set(const L &l)
    {
        if (drop) drop(closure);
        closure = new L(l);
        run = [](void *c) { (*static_cast<L *>(c))(); };
        drop = [](void *c) { delete static_cast<L *>(c); };
    }
};
inline PendingLaunch &pending_launch()
{
    static PendingLaunch f;
    return f;
}
inline std::string symbol_of(const void *fn)
{
    Dl_info info;
    if (fn && dladdr(fn, &info) && info.dli_sname) return info.dli_sname;
    return "";
}
// A launch can also be run by the same kernel compiled for another core (the cube half of a
// mixed test folder is a second library, ptosim/cxx/testdir.py): the launch sends its arguments
// as 64-bit words and the key of the kernel's function type; every library registers, for each
// kernel type it launches, a thunk that calls a kernel of that type from the words
// (ptosim_run_launch in entry.hpp).
using LaunchThunk = void (*)(void *fn, const uint64_t *words);
struct ThunkEntry {
    const char *key;  // typeid(...).name(): static storage
    LaunchThunk thunk;
    ThunkEntry *next;
};
inline ThunkEntry *&launch_thunks()
{
    static ThunkEntry *head = nullptr;
    return head;
}
inline LaunchThunk find_thunk(const char *key)
{
    for (ThunkEntry *e = launch_thunks(); e; e = e->next)
        if (std::strcmp(e->key, key) == 0) return e->thunk;
    return nullptr;
}
inline int register_thunk(const char *key, LaunchThunk thunk)
{
    if (!find_thunk(key)) launch_thunks() = new ThunkEntry{key, thunk, launch_thunks()};
    return 0;
}
template <class T>
uint64_t launch_word(const T &v)
{
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "kernel arguments are words");
    uint64_t w = 0;
    std::memcpy(&w, &v, sizeof(T));
    return w;
}
template <class T>
T launch_arg(uint64_t w)
{
    T v;
    std::memcpy(&v, &w, sizeof(T));
    return v;
}
template <class F>
struct LaunchCall;
template <class R, class... P>
struct LaunchCall<R (*)(P...)> {
    using Fn = R (*)(P...);
    template <size_t... I>
    static void invoke(Fn f, const uint64_t *w, std::index_sequence<I...>)
    {
        f(launch_arg<std::remove_cv_t<P>>(w[I])...);
    }
    static void call(void *fn, const uint64_t *words)
    {
        invoke(reinterpret_cast<Fn>(fn), words, std::index_sequence_for<P...>{});
    }
    static inline const int registered = register_thunk(typeid(Fn).name(), &call);
};

template <class F>
struct Launcher {
    F fn;
    long blocks;
    long dyn_ubuf;  // the launch's dynamic UB bytes (950 SIMT kernels), 0: the default
    template <class... A>
    __attribute__((noinline)) void operator()(A... args) const
    {
        long long pc = call_site(__builtin_return_address(0));
        F f = fn;
        pending_launch().set([f, args...]() { f(args...); });
        std::string b;
        jkey(b, "blocks"); jint(b, blocks);
        if (dyn_ubuf > 0) { jkey(b, "dyn_ubuf"); jint(b, dyn_ubuf); }
        jkey(b, "kernel"); jstr(b, symbol_of(reinterpret_cast<const void *>(fn)));
        if constexpr (std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>) {
            (void)LaunchCall<F>::registered;
            jkey(b, "key"); jstr(b, typeid(F).name());
            jkey(b, "words"); b += '[';
            words(b, f, args...);
            b += ']';
        }
        send("launch", pc, b);
    }
    // the arguments converted to the kernel's parameter types, as words
    template <class R, class... P, class... A>
    static void words(std::string &b, R (*)(P...), A... args)
    {
        if constexpr (sizeof...(P) == sizeof...(A)) {
            bool first = true;
            ((b += first ? "" : ",", first = false, juint(b, launch_word(std::remove_cv_t<P>(args)))), ...);
        }
    }
};
// The second launch parameter: an integer is the dynamic UB size of a 950 SIMT kernel (the
// library's a5 mscatter test launches `<<<1, (uint32_t)bytes, stream>>>`); a pointer (a2a3's
// l2ctrl, nullptr) is none
inline long dyn_ubuf_of() { return 0; }
template <class First, class... Rest>
long dyn_ubuf_of(First &&first, Rest &&...)
{
    if constexpr (std::is_integral_v<std::decay_t<First>>) return (long)first;
    else return 0;
}
template <class F, class... Cfg>
Launcher<F> launch(F fn, long blocks, Cfg &&...cfg)
{
    return Launcher<F>{fn, blocks, dyn_ubuf_of(cfg...)};
}
} // namespace ptosim

template <class E>
__attribute__((noinline)) void set_flag(pipe_t src, pipe_t dst, E id)
{
    ptosim::flag_record("set_flag", ptosim::call_site(__builtin_return_address(0)), src, dst, (long long)id);
}
template <class E>
__attribute__((noinline)) void wait_flag(pipe_t src, pipe_t dst, E id)
{
    ptosim::flag_record("wait_flag", ptosim::call_site(__builtin_return_address(0)), src, dst, (long long)id);
}
namespace ptosim {
inline void barrier_record(long long pc, int p)
{
    std::string b;
    jkey(b, "pipe");
    jstr(b, pipe_name((pipe_t)p));
    send("pipe_barrier", pc, b);
}
} // namespace ptosim
__attribute__((noinline)) inline void pipe_barrier(pipe_t p)
{
    ptosim::barrier_record(ptosim::call_site(__builtin_return_address(0)), p);
}

// multi-core: the block being recorded (set by the Python side from ptosim's recording)
inline int64_t get_block_idx() { return ptosim::st().block; }
inline int64_t get_block_num() { return ptosim::st().blocks; }
inline int64_t get_subblockid() { return ptosim::st().subblock; }
inline int64_t get_subblockdim() { return ptosim::st().subblock_dim; }
inline int64_t get_coreid() { return ptosim::st().block; }
inline uint64_t get_sys_cnt() { return 0; }

// mask / control registers: no effect on the simulated instructions
inline void set_mask_norm() {}
inline void set_vector_mask(uint64_t, uint64_t) {}
inline void set_atomic_none() {}
inline void dsb(int = 0) {}
// data-cache maintenance: ptosim's GM has no cache between the scalar unit and memory
enum class cache_line_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class dcci_dst_t { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
inline void dcci(const volatile void *, cache_line_t) {}
inline void dcci(const volatile void *, cache_line_t, dcci_dst_t) {}
#define DSB_DDR 0
#define DSB_ALL 0

// cross-core synchronisation through FFTS flags (ptosim/engine/ffts.py)
__attribute__((noinline)) inline void ffts_cross_core_sync(pipe_t pipe, uint64_t config)
{
    std::string b;
    ptosim::jkey(b, "pipe"); ptosim::jstr(b, ptosim::pipe_name(pipe));
    ptosim::jkey(b, "config"); ptosim::juint(b, config);
    ptosim::send("ffts_cross_core_sync", ptosim::call_site(__builtin_return_address(0)), b);
}
__attribute__((noinline)) inline void wait_flag_dev(int64_t flag_id)
{
    std::string b;
    ptosim::jkey(b, "flag"); ptosim::jint(b, flag_id);
    ptosim::send("wait_flag_dev", ptosim::call_site(__builtin_return_address(0)), b);
}
inline void set_ffts_base_addr(uint64_t) {}
// 950 intra-block flags between the cube core and one vector core (ptosim/isa/sync.py)
__attribute__((noinline)) inline void set_intra_block(pipe_t pipe, int64_t id)
{
    std::string b;
    ptosim::jkey(b, "pipe"); ptosim::jstr(b, ptosim::pipe_name(pipe));
    ptosim::jkey(b, "id"); ptosim::jint(b, id);
    ptosim::send("set_intra_block", ptosim::call_site(__builtin_return_address(0)), b);
}
__attribute__((noinline)) inline void wait_intra_block(pipe_t pipe, int64_t id)
{
    std::string b;
    ptosim::jkey(b, "pipe"); ptosim::jstr(b, ptosim::pipe_name(pipe));
    ptosim::jkey(b, "id"); ptosim::jint(b, id);
    ptosim::send("wait_intra_block", ptosim::call_site(__builtin_return_address(0)), b);
}

// fixpipe quantisation modes: a builtin unscoped enum of the device compiler (kernels write both
// `NoQuant` and `QuantMode_t::NoQuant`). The values only feed the raw fixpipe intrinsics below,
// which ptosim does not run, so they are numbered in declaration order.
enum QuantMode_t : uint64_t {
    NoQuant, F322F16, F322BF16, QF322B8_PRE, QF322F16_PRE, QF322BF16_PRE, QF322HIF8_PRE, QF322FP8_PRE,
    VQF322B8_PRE, VQF322F16_PRE, VQF322BF16_PRE, VQF322HIF8_PRE, VQF322FP8_PRE, REQ8, VREQ8, DEQF16,
    VDEQF16, SHIFTS322S16, VSHIFTS322S16,
};
inline const char *quant_mode_name(QuantMode_t m)
{
    static const char *const names[] = {
        "NoQuant", "F322F16", "F322BF16", "QF322B8_PRE", "QF322F16_PRE", "QF322BF16_PRE", "QF322HIF8_PRE",
        "QF322FP8_PRE", "VQF322B8_PRE", "VQF322F16_PRE", "VQF322BF16_PRE", "VQF322HIF8_PRE", "VQF322FP8_PRE",
        "REQ8", "VREQ8", "DEQF16", "VDEQF16", "SHIFTS322S16", "VSHIFTS322S16",
    };
    return static_cast<size_t>(m) < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}
// the fixpipe's ND-parameter register: read only by the raw copies, which stop the run
inline void set_nd_para(uint64_t) {}
// raw fixpipe copies (the register-level form of TSTORE / TMOV from Acc): the run stops at the call
template <class... A>
__attribute__((noinline)) void copy_matrix_cc_to_gm(A...)
{
    ptosim::unsupported("copy_matrix_cc_to_gm (a raw fixpipe intrinsic; use TSTORE(gm, acc))",
                        ptosim::call_site(__builtin_return_address(0)));
}
template <class... A>
__attribute__((noinline)) void copy_matrix_cc_to_cbuf(A...)
{
    ptosim::unsupported("copy_matrix_cc_to_cbuf (a raw fixpipe intrinsic; use TMOV(mat, acc))",
                        ptosim::call_site(__builtin_return_address(0)));
}

// the raw L1 -> GM copy (MTE3): nBurst bursts of lenBurst 32-byte blocks, srcGap / dstGap blocks
// between bursts in L1 / GM; ptosim runs it as a TSTORE of an L1 tile over those bytes
template <typename T, typename U>
__attribute__((noinline)) void copy_cbuf_to_gm(T *dst, U *src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst,
                                               uint16_t srcGap, uint16_t dstGap)
{
    std::string b;
    ptosim::jkey(b, "gm"); ptosim::juint(b, (unsigned long long)(uintptr_t)dst);
    ptosim::jkey(b, "l1"); ptosim::juint(b, (unsigned long long)((uintptr_t)src - (uintptr_t)ptosim::onchip_base()));
    ptosim::jkey(b, "sid"); ptosim::juint(b, sid);
    ptosim::jkey(b, "n_burst"); ptosim::juint(b, nBurst);
    ptosim::jkey(b, "len_burst"); ptosim::juint(b, lenBurst);
    ptosim::jkey(b, "src_gap"); ptosim::juint(b, srcGap);
    ptosim::jkey(b, "dst_gap"); ptosim::juint(b, dstGap);
    ptosim::send("copy_cbuf_to_gm", ptosim::call_site(__builtin_return_address(0)), b);
}

// the a5 raw GM -> L1 copy (MTE2): nBurst bursts of lenBurst bytes, burst i read from
// src + i * srcStride and written to dst + i * dstStride (strides in bytes, start to start, as the
// library's a5 TLOAD into L1 computes them); ptosim runs it as a TLOAD of an L1 tile over those
// bytes. Padding counts other than 0 stop the run in Python (their fill is not modelled).
template <typename T, typename U>
__attribute__((noinline)) void copy_gm_to_cbuf_align_v2(T *dst, U *src, uint8_t sid, uint32_t nBurst,
                                                        uint32_t lenBurst, uint8_t leftPaddingCount,
                                                        uint8_t rightPaddingCount, bool dataSelectBit,
                                                        uint8_t l2CacheCtl, uint64_t srcStride, uint32_t dstStride)
{
    std::string b;
    ptosim::jkey(b, "gm"); ptosim::juint(b, (unsigned long long)(uintptr_t)src);
    ptosim::jkey(b, "l1"); ptosim::juint(b, (unsigned long long)((uintptr_t)dst - (uintptr_t)ptosim::onchip_base()));
    ptosim::jkey(b, "sid"); ptosim::juint(b, sid);
    ptosim::jkey(b, "n_burst"); ptosim::juint(b, nBurst);
    ptosim::jkey(b, "len_burst_bytes"); ptosim::juint(b, lenBurst);
    ptosim::jkey(b, "left_pad"); ptosim::juint(b, leftPaddingCount);
    ptosim::jkey(b, "right_pad"); ptosim::juint(b, rightPaddingCount);
    ptosim::jkey(b, "data_select"); ptosim::juint(b, dataSelectBit ? 1 : 0);
    ptosim::jkey(b, "src_stride_bytes"); ptosim::juint(b, srcStride);
    ptosim::jkey(b, "dst_stride_bytes"); ptosim::juint(b, dstStride);
    (void)l2CacheCtl;  // a cache hint: no effect on the data
    ptosim::send("copy_gm_to_cbuf_align_v2", ptosim::call_site(__builtin_return_address(0)), b);
}
// the a5 raw UB -> GM copy: nBurst bursts of lenBurst bytes, burstSrcStride bytes apart in UB and
// burstDstStride bytes apart in GM (start to start); ptosim runs it as a TSTORE of a UB tile over
// those bytes
template <typename T, typename U>
__attribute__((noinline)) void copy_ubuf_to_gm_align_v2(T *dst, U *src, uint8_t sid, uint32_t nBurst,
                                                        uint32_t lenBurst, uint8_t l2CacheCtl,
                                                        uint64_t burstDstStride, uint32_t burstSrcStride)
{
    std::string b;
    ptosim::jkey(b, "gm"); ptosim::juint(b, (unsigned long long)(uintptr_t)dst);
    ptosim::jkey(b, "ub"); ptosim::juint(b, (unsigned long long)((uintptr_t)src - (uintptr_t)ptosim::onchip_base()));
    ptosim::jkey(b, "sid"); ptosim::juint(b, sid);
    ptosim::jkey(b, "n_burst"); ptosim::juint(b, nBurst);
    ptosim::jkey(b, "len_burst_bytes"); ptosim::juint(b, lenBurst);
    ptosim::jkey(b, "dst_stride_bytes"); ptosim::juint(b, burstDstStride);
    ptosim::jkey(b, "src_stride_bytes"); ptosim::juint(b, burstSrcStride);
    (void)l2CacheCtl;  // a cache hint: no effect on the data
    ptosim::send("copy_ubuf_to_gm_align_v2", ptosim::call_site(__builtin_return_address(0)), b);
}
// the raw on-chip copies of a mixed a5 kernel, each nBurst bursts of lenBurst 32-byte blocks with
// srcGap / dstGap blocks between bursts: GM -> UB (MTE2, a vector core), UB -> the cube core's L1
// (MTE3, a vector core), L1 -> the UB of vector core `sid` (MTE1, the cube core)
namespace ptosim {
template <typename T, typename U>
__attribute__((noinline)) void raw_burst_copy(const char *op, T *dst, U *src, bool dst_gm, bool src_gm,
                                              uint8_t sid, uint16_t nBurst, uint16_t lenBurst, uint16_t srcGap,
                                              uint16_t dstGap, long long pc)
{
    std::string b;
    auto where = [](const void *p, bool gm) {
        return gm ? (unsigned long long)(uintptr_t)p
                  : (unsigned long long)((uintptr_t)p - (uintptr_t)ptosim::onchip_base());
    };
    ptosim::jkey(b, "dst"); ptosim::juint(b, where((const void *)dst, dst_gm));
    ptosim::jkey(b, "src"); ptosim::juint(b, where((const void *)src, src_gm));
    ptosim::jkey(b, "sid"); ptosim::juint(b, sid);
    ptosim::jkey(b, "n_burst"); ptosim::juint(b, nBurst);
    ptosim::jkey(b, "len_burst"); ptosim::juint(b, lenBurst);
    ptosim::jkey(b, "src_gap"); ptosim::juint(b, srcGap);
    ptosim::jkey(b, "dst_gap"); ptosim::juint(b, dstGap);
    ptosim::send(op, pc, b);
}
} // namespace ptosim
template <typename T, typename U>
__attribute__((noinline)) void copy_gm_to_ubuf(T *dst, U *src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst,
                                               uint16_t srcGap, uint16_t dstGap)
{
    ptosim::raw_burst_copy("copy_gm_to_ubuf", dst, src, false, true, sid, nBurst, lenBurst, srcGap, dstGap,
                           ptosim::call_site(__builtin_return_address(0)));
}
template <typename T, typename U>
__attribute__((noinline)) void copy_ubuf_to_cbuf(T *dst, U *src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst,
                                                 uint16_t srcGap, uint16_t dstGap)
{
    ptosim::raw_burst_copy("copy_ubuf_to_cbuf", dst, src, false, false, sid, nBurst, lenBurst, srcGap, dstGap,
                           ptosim::call_site(__builtin_return_address(0)));
}
template <typename T, typename U>
__attribute__((noinline)) void copy_cbuf_to_ubuf(T *dst, U *src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst,
                                                 uint16_t srcGap, uint16_t dstGap)
{
    ptosim::raw_burst_copy("copy_cbuf_to_ubuf", dst, src, false, false, sid, nBurst, lenBurst, srcGap, dstGap,
                           ptosim::call_site(__builtin_return_address(0)));
}
// the a5 MX intrinsics (ptosim/cxx/mx_intrinsics.py runs them)
// load_cbuf_to_ca_mx / load_cbuf_to_cb_mx(dst, src, rowStart, colStart, rowSteps, colSteps,
// srcStride, dstStride): 32-byte scale fractals from L1 into the MX scale area of L0A / L0B. `dst`
// is a scale-area address: the library passes GetScaleAddr(left.data()) (the data pointer >> 4),
// the textract test data() / 16. The on-chip range starts at a multiple of 4 GiB, so dst << 4 is
// back inside it and (dst << 4) - base is the L0A / L0B offset whose scales these are.
namespace ptosim {
template <typename T>
constexpr const char *dtype_name();  // describe.hpp
inline uint64_t mx_scale_offset(uint64_t dst)
{
    uint64_t p = dst << 4;
    uintptr_t b = onchip_base();
    return (p >= b && p < b + ONCHIP_SPAN) ? (p - b) >> 4 : dst;
}
__attribute__((noinline)) inline void load_mx_scales(const char *op, uint64_t dst, const void *src,
                                                     uint16_t rowStart, uint16_t colStart, uint8_t rowSteps,
                                                     uint8_t colSteps, uint16_t srcStride, uint16_t dstStride,
                                                     long long pc)
{
    std::string b;
    jkey(b, "dst"); juint(b, mx_scale_offset(dst));
    jkey(b, "src"); juint(b, (unsigned long long)((uintptr_t)src - (uintptr_t)onchip_base()));
    jkey(b, "row_start"); juint(b, rowStart);
    jkey(b, "col_start"); juint(b, colStart);
    jkey(b, "row_steps"); juint(b, rowSteps);
    jkey(b, "col_steps"); juint(b, colSteps);
    jkey(b, "src_stride"); juint(b, srcStride);
    jkey(b, "dst_stride"); juint(b, dstStride);
    send(op, pc, b);
}
} // namespace ptosim
__attribute__((noinline)) inline void load_cbuf_to_ca_mx(uint64_t dst, const void *src, uint16_t rowStart,
                                                         uint16_t colStart, uint8_t rowSteps, uint8_t colSteps,
                                                         uint16_t srcStride, uint16_t dstStride)
{
    ptosim::load_mx_scales("load_cbuf_to_ca_mx", dst, src, rowStart, colStart, rowSteps, colSteps, srcStride,
                           dstStride, ptosim::call_site(__builtin_return_address(0)));
}
__attribute__((noinline)) inline void load_cbuf_to_cb_mx(uint64_t dst, const void *src, uint16_t rowStart,
                                                         uint16_t colStart, uint8_t rowSteps, uint8_t colSteps,
                                                         uint16_t srcStride, uint16_t dstStride)
{
    ptosim::load_mx_scales("load_cbuf_to_cb_mx", dst, src, rowStart, colStart, rowSteps, colSteps, srcStride,
                           dstStride, ptosim::call_site(__builtin_return_address(0)));
}
// mad_mx(c, a, b, m, k, n, unitFlag, gemvCtrl, biasBufferCtrl, cmatrixInitVal): the MX mad of the
// L0A / L0B data at a / b with the scales at their scale-area addresses. With biasBufferCtrl the
// library puts the bias table address into c's upper 32 bits (a5 TMatmul.hpp TMatmulMxBias); the
// on-chip range starts at a multiple of 4 GiB, so c's low 32 bits are the L0C offset either way.
template <typename C, typename A, typename B>
__attribute__((noinline)) void mad_mx(C *c, A *a, B *b, uint16_t m, uint16_t k, uint16_t n, uint8_t unitFlag,
                                      bool gemvCtrl, bool biasBufferCtrl, bool cmatrixInitVal)
{
    std::string o;
    uintptr_t base = ptosim::onchip_base();
    uintptr_t cv = (uintptr_t)c;  // the bias form: the L0C offset in the low 32 bits
    ptosim::jkey(o, "c_addr"); ptosim::juint(o, (unsigned long long)(biasBufferCtrl ? (cv & 0xffffffffULL) : cv - base));
    ptosim::jkey(o, "bias"); ptosim::juint(o, (unsigned long long)((uintptr_t)c >> 32));
    ptosim::jkey(o, "a_addr"); ptosim::juint(o, (unsigned long long)((uintptr_t)a - base));
    ptosim::jkey(o, "b_addr"); ptosim::juint(o, (unsigned long long)((uintptr_t)b - base));
    ptosim::jkey(o, "c_dt"); ptosim::jstr(o, ptosim::dtype_name<C>());
    ptosim::jkey(o, "a_dt"); ptosim::jstr(o, ptosim::dtype_name<A>());
    ptosim::jkey(o, "b_dt"); ptosim::jstr(o, ptosim::dtype_name<B>());
    ptosim::jkey(o, "m"); ptosim::juint(o, m);
    ptosim::jkey(o, "k"); ptosim::juint(o, k);
    ptosim::jkey(o, "n"); ptosim::juint(o, n);
    ptosim::jkey(o, "unit_flag"); ptosim::juint(o, unitFlag);
    ptosim::jkey(o, "gemv_ctrl"); ptosim::juint(o, gemvCtrl ? 1 : 0);
    ptosim::jkey(o, "bias_ctrl"); ptosim::juint(o, biasBufferCtrl ? 1 : 0);
    ptosim::jkey(o, "init_zero"); ptosim::juint(o, cmatrixInitVal ? 1 : 0);
    ptosim::send("mad_mx", ptosim::call_site(__builtin_return_address(0)), o);
}

// instruction-cache / profiling intrinsics used by benchmark-style kernels: no effect
inline void preload(const void *, int = 0) {}
inline int64_t get_icache_prl_st() { return 0; }
inline void set_ctrl(uint64_t) {}
inline uint64_t get_ctrl() { return 0; }
inline uint64_t sbitset0(uint64_t v, uint64_t bit) { return v & ~(uint64_t(1) << bit); }
inline uint64_t sbitset1(uint64_t v, uint64_t bit) { return v | (uint64_t(1) << bit); }
