// ptosim C++ front end: stands in for the library's pto/cpu/tile_offsets.hpp. Own code, no vendor
// code: the storage offset of a tile element follows ptosim's tile geometry (ptosim/layout.py,
// Geometry.offsets): unboxed RowMajor r*Cols+c, ColMajor c*Rows+r; boxed layouts place fractal
// boxes (16 x 32/sizeof(T) for 512 B boxes, 16 x 16 for 1024 B, 16 x 2 for 32 B) column of boxes
// first (BLayout::ColMajor) or row of boxes first (RowMajor), each box row- or column-major
// (SLayout).
#pragma once
#include "ptosim_shim/pto.hpp"

namespace pto {
namespace detail {
template <typename TileData>
constexpr int box_rows()
{
    if constexpr (TileData::SFractal == SLayout::NoneBox) return 1;
    else if constexpr (TileData::SFractalSize == 1024) return 16;
    else if constexpr (TileData::SFractalSize == 32) return TileData::SFractal == SLayout::RowMajor ? 16 : 2;
    else return TileData::SFractal == SLayout::RowMajor ? 16 : int(32 / sizeof(typename TileData::DType));
}
template <typename TileData>
constexpr int box_cols()
{
    if constexpr (TileData::SFractal == SLayout::NoneBox) return 1;
    else if constexpr (TileData::SFractalSize == 1024) return 16;
    else if constexpr (TileData::SFractalSize == 32) return TileData::SFractal == SLayout::RowMajor ? 2 : 16;
    else return TileData::SFractal == SLayout::RowMajor ? int(32 / sizeof(typename TileData::DType)) : 16;
}
} // namespace detail

template <typename TileData>
constexpr std::size_t GetTileElementOffset(int r, int c)
{
    if constexpr (TileData::SFractal == SLayout::NoneBox) {
        return TileData::BFractal == BLayout::RowMajor ? std::size_t(r) * TileData::Cols + c
                                                       : std::size_t(c) * TileData::Rows + r;
    } else {
        constexpr int ir = detail::box_rows<TileData>(), ic = detail::box_cols<TileData>();
        const std::size_t br = r / ir, inr = r % ir, bc = c / ic, inc = c % ic;
        const std::size_t base = TileData::BFractal == BLayout::ColMajor
                                     ? bc * TileData::Rows * ic + br * ir * ic
                                     : br * TileData::Cols * ir + bc * ir * ic;
        return TileData::SFractal == SLayout::RowMajor ? base + inr * ic + inc : base + inc * ir + inr;
    }
}

// pto_tile.hpp's name for the same mapping (logical (row, col) -> storage element offset)
template <typename TileData>
constexpr std::size_t GetTileOffset(int r, int c)
{
    return GetTileElementOffset<TileData>(r, c);
}
} // namespace pto
