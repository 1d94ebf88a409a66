// A test whose body drives tiles itself (as the library's cpu tests of TMOV, TCOLPROD ... do):
// TASSIGN, fill through tile.data(), an instruction, the result checked in place.
#include <pto/pto-inst.hpp>
#include <gtest/gtest.h>

using namespace pto;

TEST(TileBody, adds_in_place)
{
    using T = Tile<TileType::Vec, float, 8, 16>;
    T a, b, c;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x1000);
    TASSIGN(c, 0x2000);
    for (int i = 0; i < T::Numel; ++i) {
        a.data()[i] = float(i);
        b.data()[i] = 0.5f * float(i);
    }
    TADD(c, a, b);
    for (int i = 0; i < T::Numel; ++i) ASSERT_EQ(c.data()[i], 1.5f * float(i)) << "element " << i;
}

TEST(TileBody, a_wrong_expectation_fails)
{
    using T = Tile<TileType::Vec, int32_t, 8, 8>;
    T a, c;
    TASSIGN(a, 0x0);
    TASSIGN(c, 0x400);
    for (int i = 0; i < T::Numel; ++i) a.data()[i] = i;
    TADDS(c, a, 3);
    EXPECT_EQ(c.data()[5], 9);  // 5 + 3 is 8: this case must FAIL
}

// the CPU build's memory set-up calls and pto_tile.hpp's offset mapping (a cpu test's SetUp)
TEST(TileBody, memory_setup_and_tile_offsets)
{
    NPU_MEMORY_INIT(NPUArch::A2A3);
    NPU_MEMORY_CLEAR();
    using T = Tile<TileType::Vec, float, 8, 16>;
    using C = Tile<TileType::Vec, float, 16, 8, BLayout::ColMajor>;
    EXPECT_EQ(GetTileOffset<T>(2, 3), 2u * 16u + 3u);  // row-major: r * Cols + c
    EXPECT_EQ(GetTileOffset<C>(2, 3), 3u * 16u + 2u);  // column-major: c * Rows + r
    T a;
    TASSIGN(a, 0x0);
    a.data()[GetTileOffset<T>(1, 2)] = 4.0f;
    EXPECT_EQ(a.data()[18], 4.0f);
}
