// ptosim C++ front end: the scalar MX helpers the library's CPU layer exposes as pto::cpu_quant (its
// cpu tests compute their expected bytes with them). Own code, no vendor code: the same rules as
// ptosim/isa/vector/mx_scale.py and mxquant.py (cpu), which run TQUANT itself; these only answer
// the test's own questions on the host.
//
// Shared exponent of a group from its largest magnitude m: OCP e = E - emax when the exponent
// field E of m exceeds emax (8 for E4M3, 2 for E2M1), else 0, 0xFF for NaN; NV rounds the
// exponent of m / fmt_max up (0xFE for an infinite quotient). Scaling 2^(127 - e) (2^-127 for NV's
// 0xFE; the NaN group keeps m). E4M3 is the code nearest to the value clamped to +-448, ties to the
// even code, then the lower code (0x7F for NaN; NV keeps the sign of a value below 2^-10); E2M1
// rounds to nearest even on its grid, saturating at 6.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace pto {
namespace cpu_quant {
namespace detail {
inline uint32_t bits_of(float v)
{
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}
inline float float_of(uint32_t b)
{
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}
inline uint32_t exponent_field(float v) { return (bits_of(v) >> 23) & 0xFFu; }
inline uint32_t mantissa_field(float v) { return bits_of(v) & 0x7FFFFFu; }
inline float pow2(int e) { return std::ldexp(1.0f, e); }

// the value of an E4M3 (OCP "FN") code; NaN for 0x7F / 0xFF
inline float e4m3_value(unsigned code)
{
    const unsigned e = (code >> 3) & 0xFu, m = code & 0x7u;
    if (e == 0xFu && m == 0x7u) return std::numeric_limits<float>::quiet_NaN();
    const float mag = e == 0 ? std::ldexp(float(m), -9) : std::ldexp(1.0f + float(m) / 8.0f, int(e) - 7);
    return (code & 0x80u) ? -mag : mag;
}

inline uint8_t ocp_exponent(float maxAbs, uint32_t emax)
{
    const uint32_t e = exponent_field(maxAbs);
    if (e == 0xFFu && mantissa_field(maxAbs) != 0) return 0xFFu;
    return e > emax ? uint8_t(e - emax) : uint8_t(0);
}

inline uint8_t nv_exponent(float maxAbs, float formatMax)
{
    if (maxAbs == 0.0f) return 0;
    const float d = maxAbs * (1.0f / formatMax);
    const uint32_t e = exponent_field(d), m = mantissa_field(d);
    if (e == 0xFFu) return m == 0 ? 0xFEu : 0xFFu;
    // up by one when d is not a power of two; not past 0xFE, and a subnormal d of at most
    // 2^-127 stays at 0
    const bool up = m != 0 && e != 0xFEu && !(e == 0 && m <= 0x400000u);
    return uint8_t(e + (up ? 1u : 0u));
}

inline float scaling_of(uint8_t e8m0)
{
    if (e8m0 == 0xFFu) return std::numeric_limits<float>::quiet_NaN();
    return pow2(127 - int(e8m0));  // e8m0 0 -> 2^127
}
} // namespace detail

inline uint16_t AbsBf16BitsFromFloat(float value) { return uint16_t((detail::bits_of(value) >> 16) & 0x7FFFu); }

template <QuantType Q>
inline uint8_t ComputeMxSharedExponent(float maxAbs)
{
    return detail::ocp_exponent(maxAbs, Q == QuantType::MXFP8 ? 8u : 2u);
}

template <QuantType Q, QuantScaleAlg Alg>
inline uint8_t ComputeMxSharedExponent(float maxAbs)
{
    if constexpr (Alg == QuantScaleAlg::NV) return detail::nv_exponent(maxAbs, Q == QuantType::MXFP8 ? 448.0f : 6.0f);
    else return ComputeMxSharedExponent<Q>(maxAbs);
}

template <QuantType Q>
inline float ComputeMxGroupScaling(uint8_t e8m0)
{
    return detail::scaling_of(e8m0);
}

template <QuantType Q, QuantScaleAlg Alg>
inline float ComputeMxGroupScaling(float maxAbs, uint8_t e8m0)
{
    if (e8m0 == 0xFFu) return maxAbs;
    if (Alg == QuantScaleAlg::NV && e8m0 == 0xFEu) return detail::pow2(-127);
    return detail::scaling_of(e8m0);
}

template <QuantScaleAlg Alg = QuantScaleAlg::OCP>
inline uint8_t EncodeE4M3Fn(float value)
{
    if (std::isnan(value)) return 0x7Fu;
    if (Alg == QuantScaleAlg::NV && std::fabs(value) < detail::pow2(-10)) return std::signbit(value) ? 0x80u : 0x00u;
    const float v = std::min(std::max(value, -448.0f), 448.0f);
    unsigned best = 0;
    float bestGap = std::numeric_limits<float>::infinity();
    for (unsigned code = 0; code < 256; ++code) {
        if ((code & 0x7Fu) == 0x7Fu) continue;  // NaN codes
        const float gap = std::fabs(detail::e4m3_value(code) - v);
        const bool better = gap < bestGap || (gap == bestGap && (code & 1u) == 0 && (best & 1u) != 0);
        if (better) {  // equal gaps: the even code; equal parity: the first (lower) code stays
            best = code;
            bestGap = gap;
        }
    }
    return uint8_t(best);
}

inline uint8_t EncodeE2M1Magic(float value)
{
    if (std::isnan(value)) return 0x7u;
    const uint8_t sign = std::signbit(value) ? 0x8u : 0x0u;
    const double mag = std::fabs(double(value));
    double code;
    if (mag < 2.0) code = std::nearbyint(mag * 2.0);  // steps of 0.5: codes 0..4
    else if (mag < 4.0) code = std::nearbyint(mag) + 2.0;  // steps of 1 from code 4
    else code = std::nearbyint(mag / 2.0) + 4.0;  // steps of 2 from code 6
    return uint8_t(sign | uint8_t(std::min(code, 7.0)));
}

// the scaled element of an MXFP4 group: a bf16 source's product is rounded to bf16 (to nearest even)
template <typename SrcT>
inline float ApplyE2M1ScaleForSource(SrcT value, float scaling)
{
    const float scaled = float(value) * scaling;
    if constexpr (std::is_same_v<SrcT, bfloat16_t>) return float(bfloat16_t(scaled));
    else return scaled;
}

// the largest magnitude of group `group` along row (grp_axis 1) or column (0) `axis`: MXFP8 and
// NV MXFP4 a running max of |x| (NaN skipped for MXFP8, returned at once for MXFP4), OCP MXFP4 the
// largest bf16-truncated magnitude
template <int grp_axis, QuantType Q, QuantScaleAlg Alg, typename TileDataSrc>
inline float ComputeMxGroupMax(TileDataSrc &src, int axis, int group)
{
    float best = 0.0f;
    uint16_t bestBits = 0;
    for (int i = 0; i < 32; ++i) {
        const int row = grp_axis == 1 ? axis : group * 32 + i;
        const int col = grp_axis == 1 ? group * 32 + i : axis;
        const float v = float(src.data()[GetTileElementOffset<TileDataSrc>(row, col)]);
        if constexpr (Q == QuantType::MXFP4_E2M1 && Alg == QuantScaleAlg::OCP) {
            bestBits = std::max(bestBits, AbsBf16BitsFromFloat(v));
        } else {
            if (Q == QuantType::MXFP4_E2M1 && std::isnan(v)) return v;
            best = std::max(best, std::fabs(v));
        }
    }
    if constexpr (Q == QuantType::MXFP4_E2M1 && Alg == QuantScaleAlg::OCP) return detail::float_of(uint32_t(bestBits) << 16);
    else return best;
}
} // namespace cpu_quant
} // namespace pto
