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
