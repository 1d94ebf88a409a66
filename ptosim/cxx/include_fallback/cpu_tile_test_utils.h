// ptosim C++ front end: stands in for the cpu_tile_test_utils.h of the library's test tree when the
// test folder is not inside a pto-isa checkout. Own code, written for ptosim: tile helpers for
// tests that drive instructions from the test body (element access through tile.data(), which
// `ptosim test` serves from the simulated tile storage).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <pto/cpu/tile_offsets.hpp>
#include <pto/pto-inst.hpp>

namespace CpuTileTestUtils {

template <typename TileData>
typename TileData::DType GetValue(const TileData &tile, int r, int c)
{
    return tile.data()[pto::GetTileElementOffset<TileData>(r, c)];
}

template <typename TileData>
void SetValue(TileData &tile, int r, int c, typename TileData::DType value)
{
    tile.data()[pto::GetTileElementOffset<TileData>(r, c)] = value;
}

// the valid region, row by row, with start, start + 1, ...
template <typename TileData>
void FillLinear(TileData &tile, typename TileData::DType start = typename TileData::DType(1))
{
    double next = static_cast<double>(start);
    for (int r = 0; r < tile.GetValidRow(); ++r)
        for (int c = 0; c < tile.GetValidCol(); ++c) SetValue(tile, r, c, static_cast<typename TileData::DType>(next++));
}

template <typename TileData>
void FillAll(TileData &tile, typename TileData::DType value)
{
    for (int i = 0; i < TileData::Numel; ++i) tile.data()[i] = value;
}

// TASSIGN each tile at addr, the next one at the following 64-byte boundary
template <typename TileData>
void AssignOneTileStorage(TileData &tile, std::size_t &addr)
{
    TASSIGN(tile, addr);
    addr += sizeof(typename TileData::DType) * std::size_t(TileData::Numel);
    addr = (addr + 63) / 64 * 64;
}

template <typename... TileData>
void AssignTileStorage(std::size_t &addr, TileData &...tiles)
{
    (AssignOneTileStorage(tiles, addr), ...);
}

template <typename T>
void ExpectValueEquals(const T &actual, const T &expected)
{
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half>) {
        EXPECT_FLOAT_EQ(static_cast<float>(actual), static_cast<float>(expected));
    } else {
        EXPECT_EQ(actual, expected);
    }
}

template <typename TileData>
void ExpectTileEqualsVector(const TileData &tile, const std::vector<typename TileData::DType> &expected)
{
    ASSERT_EQ(expected.size(), std::size_t(TileData::Numel));
    for (int i = 0; i < TileData::Numel; ++i) ExpectValueEquals(tile.data()[i], expected[std::size_t(i)]);
}

// acc + lhs x rhs (+ bias per column) over the valid region, laid out like AccTile's storage
template <typename AccTile, typename LeftTile, typename RightTile>
std::vector<typename AccTile::DType> ComputeMatmulExpected(const LeftTile &lhs, const RightTile &rhs,
                                                           const AccTile *acc = nullptr,
                                                           const typename AccTile::DType *bias = nullptr)
{
    using A = typename AccTile::DType;
    std::vector<A> out(AccTile::Numel, A(0));
    for (int r = 0; r < lhs.GetValidRow(); ++r) {
        for (int c = 0; c < rhs.GetValidCol(); ++c) {
            A sum = acc ? GetValue(*acc, r, c) : A(0);
            for (int k = 0; k < lhs.GetValidCol(); ++k) sum += A(GetValue(lhs, r, k)) * A(GetValue(rhs, k, c));
            if (bias) sum += bias[c];
            out[pto::GetTileElementOffset<AccTile>(r, c)] = sum;
        }
    }
    return out;
}

} // namespace CpuTileTestUtils
