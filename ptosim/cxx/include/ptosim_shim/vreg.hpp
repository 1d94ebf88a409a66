// The smallest part of the 950 vector-register intrinsics that test kernels write by hand, inside a
// __VEC_SCOPE__ block: a register filled with one value (vdup under a full predicate) or loaded
// whole from UB (vldas, then vldus: the unaligned-load pair), stored to UB by vsts under a
// predicate of the first n lanes (CreatePredicate). ptosim runs each store as one recorded
// instruction on PIPE_V: TEXPANDS of the value's bytes over the n lanes, or TMOV of the loaded
// register's first n lanes from the UB bytes it was loaded from (read when stored: the pair only
// remembers the address, so a write to those bytes between vldus and vsts is not seen). The
// source and destination of such a copy must be 32-byte aligned (ptosim's tiles are). A register
// written any other way stops the run naming it; mem_bar orders nothing (ptosim runs the block's
// intrinsics in program order).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#define CCE_VL 256          // bytes of one vector register (the a5 VL)
#define __VEC_SCOPE__       // a block of vector-register code: no effect on the recording

enum ptosim_vreg_mode : int { MODE_ZEROING = 0, MODE_MERGING = 1 };
enum ptosim_vsts_mode : int { NORM_B8 = 0, NORM_B16 = 1, NORM_B32 = 2 };
enum ptosim_mem_bar : int { VST_VLD = 0, VLD_VST = 1, VST_VST = 2, VLD_VLD = 3 };
inline void mem_bar(int) {}

namespace pto {
template <typename T>
constexpr T CeilDivision(T num, T den)
{
    return (num + den - 1) / den;
}
} // namespace pto

struct MaskReg {
    uint32_t lanes = 0;   // active lanes from the first
    uint32_t of = 0;      // lanes of the element type it was made for
};

template <typename T>
struct RegTensor {
    bool uniform = false;  // every lane holds `value` (set by vdup under a full predicate)
    T value{};
    const void *loaded = nullptr;  // else: the UB bytes vldus loaded it from
};

// the alignment register of an unaligned load: vldas primes it with the block holding `p`
struct UnalignReg {
    const void *primed = nullptr;
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
    reg.loaded = nullptr;
}

template <typename P>
__attribute__((noinline)) void vldas(UnalignReg &ureg, P *p)
{
    ureg.primed = p;
}

template <typename T, typename P>
__attribute__((noinline)) void vldus(RegTensor<T> &reg, UnalignReg &ureg, P *p)
{
    if (ureg.primed != p) {
        ptosim::unsupported("vldus from an address its vldas did not prime (ptosim models the vldas/vldus pair of "
                            "one register load)", ptosim::call_site(__builtin_return_address(0)));
    }
    reg.uniform = false;
    reg.loaded = p;
}

template <typename T, typename P>
__attribute__((noinline)) void vsts(RegTensor<T> &reg, P *base, uint32_t offset, int, MaskReg mask)
{
    long long pc = ptosim::call_site(__builtin_return_address(0));
    if (!reg.uniform && !reg.loaded) {
        ptosim::unsupported("vsts of a register not filled by vdup or loaded by vldus (ptosim models those)", pc);
    }
    using U = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>;
    static_assert(sizeof(T) == sizeof(U), "vsts: an element of 1, 2 or 4 bytes");
    if (mask.lanes == 0) return;  // no lane stored
    using Reg = pto::Tile<pto::TileType::Vec, U, 1, CCE_VL / sizeof(U), pto::BLayout::RowMajor, 1, pto::DYNAMIC>;
    auto *at = reinterpret_cast<U *>(reinterpret_cast<uintptr_t>(base)) + offset * (sizeof(P) / sizeof(U));
    if (reg.uniform) {
        U bits;
        std::memcpy(&bits, &reg.value, sizeof(U));
        Reg t = pto::detail::tile_over<Reg>(at, 1, mask.lanes);
        pto::TEXPANDS(t, bits);
        return;
    }
    auto *from = reinterpret_cast<U *>(reinterpret_cast<uintptr_t>(reg.loaded));
    if ((reinterpret_cast<uintptr_t>(from) | reinterpret_cast<uintptr_t>(at)) % 32 != 0) {
        ptosim::unsupported("vsts of a vldus-loaded register from or to an address not 32-byte aligned (ptosim "
                            "copies the lanes as aligned tiles)", pc);
    }
    Reg dst = pto::detail::tile_over<Reg>(at, 1, mask.lanes);
    Reg src = pto::detail::tile_over<Reg>(from, 1, mask.lanes);
    pto::TMOV(dst, src);
}
