// A driver for the reference CPU simulator (compiled against a pto-isa checkout's include/ by
// tests/cxx/test_reference_diff.py): `driver CASE in.bin out.bin` loads in.bin's bytes into UB
// from address 0, runs one instruction of CASE on tiles at fixed UB addresses, and writes the
// bytes of UB [0, 0x4000) to out.bin. The Python side runs the same kernel on ptosim.
#include <pto/common/type.hpp>
#include <pto/common/kernel_meta.hpp>
#include "pto/common/cpu_stub.hpp"
#include <pto/common/memory.hpp>
#include <pto/common/arch_macro.hpp>
#include <pto/common/arch_capability.hpp>
#include <pto/common/pto_tile.hpp>
#include <pto/cpu/TAssign.hpp>
#include <pto/cpu/TCmps.hpp>
#include <pto/cpu/TSel.hpp>
#include <pto/cpu/TSort32.hpp>
namespace pto {  // declared by pto_instr.hpp, which this driver does not include (the whole API)
struct MrgSortExecutedNumList {
    uint16_t mrgSortList0 = 0, mrgSortList1 = 0, mrgSortList2 = 0, mrgSortList3 = 0;
};
} // namespace pto
#include <pto/cpu/TMrgSort.hpp>
#include <pto/cpu/ElementTileOp.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

using namespace pto;
constexpr size_t kBytes = 0x4000;

template <typename T, int R, int C, int VR = R, int VC = C>
using V = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, VR, VC>;

template <typename TileT>
TileT at(unsigned addr)
{
    TileT t;
    TASSIGN_IMPL(t, addr);
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    const std::string name = argv[1];
    char *ub = NPUMemoryModel::Instance().GetUBBase();
    std::memset(ub, 0, kBytes);
    FILE *f = std::fopen(argv[2], "rb");
    if (!f) return 3;
    size_t n = std::fread(ub, 1, kBytes, f);
    std::fclose(f);
    (void)n;
    if (name == "tcmps_ne_inf") {  // src f32 1x64 @0, mask u8 1x32 valid 1x8 @0x1000
        auto a = at<V<float, 1, 64>>(0x0);
        auto m = at<V<uint8_t, 1, 32, 1, 8>>(0x1000);
        TCMPS_IMPL(m, a, float(INFINITY), CmpMode::NE);
    } else if (name == "tsel_short_mask") {  // mask u8 2x32 valid 2x4 @0 (UB after it read on)
        auto m = at<V<uint8_t, 2, 32, 2, 4>>(0x0);
        auto s0 = at<V<float, 2, 64>>(0x400);
        auto s1 = at<V<float, 2, 64>>(0x800);
        auto d = at<V<float, 2, 64>>(0xC00);
        auto tmp = at<V<uint8_t, 1, 32>>(0x3000);
        TSEL_IMPL(d, m, s0, s1, tmp);
    } else if (name == "tsort32_half_17") {  // src f16 2x64 valid 2x17 @0, idx @0x400, dst @0x800
        auto s = at<V<half, 2, 64, 2, 17>>(0x0);
        auto x = at<V<uint32_t, 2, 64, 2, 17>>(0x400);
        auto d = at<V<half, 2, 256>>(0x800);
        auto tmp = at<V<half, 1, 64>>(0x3000);
        TSORT32_IMPL(d, s, x, tmp);
    } else if (name == "tsort32_f32_63") {  // src f32 1x64 valid 1x63 @0, idx @0x400, dst @0x800
        auto s = at<V<float, 1, 64, 1, 63>>(0x0);
        auto x = at<V<uint32_t, 1, 64, 1, 63>>(0x400);
        auto d = at<V<float, 1, 128>>(0x800);
        auto tmp = at<V<float, 1, 64>>(0x3000);
        TSORT32_IMPL(d, s, x, tmp);
    } else if (name == "tmrgsort_exhausted") {  // lists f32 1x8 valid 4 @0 and 1x16 @0x100
        auto s0 = at<V<float, 1, 8, 1, 4>>(0x0);
        auto s1 = at<V<float, 1, 16>>(0x100);
        auto d = at<V<float, 1, 32>>(0x200);
        auto tmp = at<V<float, 1, 32>>(0x300);
        MrgSortExecutedNumList counts;
        TMRGSORT_IMPL<decltype(d), decltype(tmp), decltype(s0), decltype(s1), true>(d, counts, tmp, s0, s1);
    } else if (name == "tmrgsort_block_len") {  // src f32 1x512 @0, dst @0x800
        auto s = at<V<float, 1, 512>>(0x0);
        auto d = at<V<float, 1, 512>>(0x800);
        TMRGSORT_IMPL(d, s, 64);
    } else if (name == "tlog_i32") {  // src i32 1x64 @0, dst @0x100
        auto s = at<V<int32_t, 1, 64>>(0x0);
        auto d = at<V<int32_t, 1, 64>>(0x100);
        TLOG_IMPL(d, s);
    } else {
        return 4;
    }
    f = std::fopen(argv[3], "wb");
    if (!f) return 5;
    std::fwrite(ub, 1, kBytes, f);
    std::fclose(f);
    return 0;
}
