// A test folder in the vendor's style (kernel.cpp + main.cpp + gen_data.py), our own code:
// per-row scaling out[r, :] = x[r, :] * scale[r], the epilogue of a per-token dequantisation.
//
// The kernel is a template over the element type, the whole shape and the rows per tile; it runs
// on get_block_num() blocks, block b taking a contiguous slice of rows, in a double-buffered loop
// (two buffers of each kind, event ids b = step % 2, the "buffer free" events primed before the
// loop and drained after it). The launch function instantiates it per test case (tilingKey) and
// launches it with <<<blocks, nullptr, stream>>>, as the vendor's tests do.
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int align32(int bytes) { return (bytes + 31) / 32 * 32; }
} // namespace

template <typename T, int kRows, int kCols, int kTileRows>
__global__ AICORE void RowScaleKernel(__gm__ T __out__ *out, __gm__ T __in__ *x, __gm__ T __in__ *scale)
{
    using DataTile = Tile<TileType::Vec, T, kTileRows, kCols>;
    using ScaleTile = Tile<TileType::Vec, T, kTileRows, 1, BLayout::ColMajor>;
    using DataGm = GlobalTensor<T, Shape<1, 1, 1, kTileRows, kCols>,
                                Stride<kTileRows * kCols, kTileRows * kCols, kTileRows * kCols, kCols, 1>>;
    using ScaleGm = GlobalTensor<T, Shape<1, 1, 1, kTileRows, 1>, Stride<kTileRows, kTileRows, kTileRows, 1, kTileRows>,
                                 Layout::DN>;
    constexpr int dataBytes = kTileRows * kCols * sizeof(T);
    constexpr int scaleBytes = align32(kTileRows * sizeof(T));

    const int rowsPerBlock = kRows / get_block_num();
    const int first = get_block_idx() * rowsPerBlock;

    DataTile xs[2], ys[2];
    ScaleTile ss[2];
    for (int b = 0; b < 2; ++b) {
        TASSIGN(xs[b], b * dataBytes);
        TASSIGN(ys[b], 2 * dataBytes + b * dataBytes);
        TASSIGN(ss[b], 4 * dataBytes + b * scaleBytes);
    }
    const event_t events[2] = {EVENT_ID0, EVENT_ID1};
    for (int b = 0; b < 2; ++b) {  // prime: every buffer starts free
        set_flag(PIPE_V, PIPE_MTE2, events[b]);
        set_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
    for (int step = 0, r = first; r < first + rowsPerBlock; ++step, r += kTileRows) {
        const int b = step % 2;
        const event_t ev = events[b];
        DataGm xGm(x + r * kCols);
        ScaleGm sGm(scale + r);
        DataGm outGm(out + r * kCols);
        wait_flag(PIPE_V, PIPE_MTE2, ev);
        TLOAD(xs[b], xGm);
        TLOAD(ss[b], sGm);
        set_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE2, PIPE_V, ev);
        wait_flag(PIPE_MTE3, PIPE_V, ev);
        TROWEXPANDMUL(ys[b], xs[b], ss[b]);
        set_flag(PIPE_V, PIPE_MTE2, ev);
        set_flag(PIPE_V, PIPE_MTE3, ev);
        wait_flag(PIPE_V, PIPE_MTE3, ev);
        TSTORE(outGm, ys[b]);
        set_flag(PIPE_MTE3, PIPE_V, ev);
    }
    for (int b = 0; b < 2; ++b) {  // drain
        wait_flag(PIPE_V, PIPE_MTE2, events[b]);
        wait_flag(PIPE_MTE3, PIPE_V, events[b]);
    }
}

// tilingKey: 1 = float 64 x 64 on 2 blocks, 16-row tiles; 2 = float 128 x 256 on 4 blocks, 8-row
// tiles; 3 = half 64 x 128 on 2 blocks, 16-row tiles (gen_data.py writes the same cases).
template <int32_t tilingKey>
void LaunchRowScale(uint8_t *out, uint8_t *x, uint8_t *scale, void *stream)
{
    if constexpr (tilingKey == 1) {
        RowScaleKernel<float, 64, 64, 16><<<2, nullptr, stream>>>((float *)out, (float *)x, (float *)scale);
    } else if constexpr (tilingKey == 2) {
        RowScaleKernel<float, 128, 256, 8><<<4, nullptr, stream>>>((float *)out, (float *)x, (float *)scale);
    } else if constexpr (tilingKey == 3) {
        RowScaleKernel<half, 64, 128, 16><<<2, nullptr, stream>>>((half *)out, (half *)x, (half *)scale);
    }
}

template void LaunchRowScale<1>(uint8_t *out, uint8_t *x, uint8_t *scale, void *stream);
template void LaunchRowScale<2>(uint8_t *out, uint8_t *x, uint8_t *scale, void *stream);
template void LaunchRowScale<3>(uint8_t *out, uint8_t *x, uint8_t *scale, void *stream);
