// ptosim C++ front end: stands in for the library's pto/cpu/NPUMemoryModel.hpp (the CPU simulator's
// model of on-chip memory sizes). Own code, no vendor code: in ptosim the device config decides the
// memory sizes, so choosing an architecture here changes nothing; the base pointers are where
// ptosim's tile storage starts (tile.data() of a TASSIGNed tile is base + its address).
#pragma once
#include "ptosim_shim/pto.hpp"

namespace pto {
enum class NPUArch { A2A3, A5 };

class NPUMemoryModel {
public:
    static NPUMemoryModel &Instance()
    {
        static NPUMemoryModel m;
        return m;
    }
    static void SetDefaultArch(NPUArch) {}
    void Initialize(NPUArch) {}
    void EnsureInitialized() {}
    void Clear() {}
    void Reset() {}
    char *GetREGBase() { return base(); }
    char *GetUBBase() { return base(); }
    char *GetL1Base() { return base(); }
    char *GetL0ABase() { return base(); }
    char *GetL0BBase() { return base(); }
    char *GetL0CBase() { return base(); }

private:
    static char *base() { return reinterpret_cast<char *>(::ptosim::onchip_base()); }
};

// the CPU build's set-up calls (declared with TASSIGN there): choosing an architecture or clearing
// the memories has nothing to do in ptosim, where each case runs in a fresh process on the
// device's config
inline void NPU_MEMORY_INIT(NPUArch arch = NPUArch::A2A3) { NPUMemoryModel::Instance().Initialize(arch); }
inline void NPU_MEMORY_CLEAR() { NPUMemoryModel::Instance().Clear(); }
} // namespace pto
