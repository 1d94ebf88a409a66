// The smallest part of the 950 vector-register intrinsics that test kernels write by hand: a
// register filled with one value (vdup) stored whole to UB (vsts with a full predicate), inside a
// __VEC_SCOPE__ block. ptosim runs each such store as TEXPANDS of the value's bytes over the
// register's CCE_VL bytes of UB (on PIPE_V, as the store). A register written any other way, or a
// store under a partial predicate, stops the run naming it.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#define CCE_VL 256          // bytes of one vector register (the a5 VL)
#define __VEC_SCOPE__       // a block of vector-register code: no effect on the recording

enum ptosim_vreg_mode : int { MODE_ZEROING = 0, MODE_MERGING = 1 };
enum ptosim_vsts_mode : int { NORM_B8 = 0, NORM_B16 = 1, NORM_B32 = 2 };

struct MaskReg {
    uint32_t lanes = 0;   // active lanes from the first
    uint32_t of = 0;      // lanes of the element type it was made for
};

template <typename T>
struct RegTensor {
    bool uniform = false;  // every lane holds `value` (set by vdup under a full predicate)
    T value{};
};

template <typename T>
inline MaskReg CreatePredicate(uint32_t &count)
{
    constexpr uint32_t lanes = CCE_VL / sizeof(T);
    MaskReg m;
    m.of = lanes;
    m.lanes = count < lanes ? count : lanes;
    count -= m.lanes;
    return m;
}

template <typename T, typename V>
__attribute__((noinline)) void vdup(RegTensor<T> &reg, V value, MaskReg mask, int = MODE_ZEROING)
{
    if (mask.lanes != mask.of) {
        ptosim::unsupported("vdup under a partial predicate (ptosim models a whole register of one value)",
                            ptosim::call_site(__builtin_return_address(0)));
    }
    reg.uniform = true;
    reg.value = static_cast<T>(value);
}

template <typename T, typename P>
__attribute__((noinline)) void vsts(RegTensor<T> &reg, P *base, uint32_t offset, int, MaskReg mask)
{
    long long pc = ptosim::call_site(__builtin_return_address(0));
    if (!reg.uniform || mask.lanes != mask.of) {
        ptosim::unsupported("vsts of a register not filled by vdup, or under a partial predicate (ptosim models "
                            "the store of a whole register of one value)", pc);
    }
    using U = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>;
    static_assert(sizeof(T) == sizeof(U), "vsts: an element of 1, 2 or 4 bytes");
    U bits;
    std::memcpy(&bits, &reg.value, sizeof(U));
    using Reg = pto::Tile<pto::TileType::Vec, U, 1, CCE_VL / sizeof(U)>;
    auto *at = reinterpret_cast<U *>(reinterpret_cast<uintptr_t>(base)) + offset * (sizeof(P) / sizeof(U));
    Reg t = pto::detail::tile_over<Reg>(at, 1, CCE_VL / sizeof(U));
    pto::TEXPANDS(t, bits);
}
