// Raw element accesses in C++ (tests/cxx/test_raw.py): `tile.data()[i]` and `*gm_ptr`, served by
// ptosim's simulation session as GetValue / SetValue instructions (PIPE_S).
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int DIM = 16;
constexpr int MAX_IDS = 8;  // ids per block
using RowTile = Tile<TileType::Vec, float, 1, DIM>;
using IdxTile = Tile<TileType::Vec, int32_t, 1, MAX_IDS>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, DIM>, Stride<DIM, DIM, DIM, DIM, 1>>;
using IdsGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, MAX_IDS>, Stride<MAX_IDS, MAX_IDS, MAX_IDS, MAX_IDS, 1>>;

template <bool WaitBeforeRead>
AICORE void gather_rows(__gm__ float *table, __gm__ int32_t *ids, __gm__ int32_t *count, __gm__ float *out)
{
    const int b = get_block_idx();
    IdsGm idsGm(ids + b * MAX_IDS);
    IdxTile idx;
    RowTile row;
    TASSIGN(idx, 0x0);
    TASSIGN(row, 0x100);
    TLOAD(idx, idsGm);
    if constexpr (WaitBeforeRead) {
        set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    }
    const int n = count[b];  // @read_count
    for (int r = 0; r < n; ++r) {
        const int id = idx.data()[r];  // @read_id
        RowGm src(table + id * DIM);
        RowGm dst(out + (b * MAX_IDS + r) * DIM);
        if (r > 0) {  // the row buffer is free once the previous store has read it
            set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
            wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
        }
        TLOAD(row, src);
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);
        TSTORE(dst, row);
    }
}
} // namespace

extern "C" __global__ AICORE void raw_gather(__gm__ float *table, __gm__ int32_t *ids,
                                             __gm__ int32_t *count, __gm__ float *out)
{
    gather_rows<true>(table, ids, count, out);
}

extern "C" __global__ AICORE void raw_gather_no_wait(__gm__ float *table, __gm__ int32_t *ids,
                                                     __gm__ int32_t *count, __gm__ float *out)
{
    gather_rows<false>(table, ids, count, out);
}

// out[i] = in[i] + i for i < DIM, written element by element into a tile, then stored
extern "C" __global__ AICORE void raw_write(__gm__ float *in, __gm__ float *out)
{
    RowTile row;
    TASSIGN(row, 0x40);
    RowGm src(in), dst(out);
    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    for (int i = 0; i < DIM; ++i) {
        row.data()[i] = row.data()[i] + float(i);  // @raw_write
    }
    set_flag(PIPE_S, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_S, PIPE_MTE3, EVENT_ID1);
    TSTORE(dst, row);
}

// a raw store into GM, read back raw
extern "C" __global__ AICORE void raw_gm_write(__gm__ float *in, __gm__ float *out)
{
    out[3] = in[2] * 2.0f;  // @raw_gm_write
    out[4] = out[3] + 1.0f;
}

// a pointer past the GM buffers
extern "C" __global__ AICORE void raw_outside(__gm__ float *in, __gm__ float *out)
{
    float v = in[1 << 20];  // @raw_outside
    out[0] = v;
}

// raw accesses made by a libc routine the kernel calls: named by the kernel's line
extern "C" __global__ AICORE void raw_memcpy(__gm__ float *in, __gm__ float *out)
{
    float v[2];
    volatile size_t n = sizeof v;  // a size known at run time: libc's memcpy does the access
    std::memcpy(v, in + 4, n);  // @raw_memcpy_read
    out[0] = v[0] + v[1];
}

// a raw write into an accumulator (L0C) tile read back raw: host memory on cpu (the CPU
// simulator's tassign test), no scalar path to L0C on the NPUs
extern "C" __global__ AICORE void raw_acc(__gm__ float *in, __gm__ float *out)
{
    (void)in;
    using AccTile = Tile<TileType::Acc, int32_t, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 1024>;
    AccTile acc;
    TASSIGN(acc, 0x400);
    acc.data()[5] = 0x5a5a5a;  // @raw_acc
    out[0] = float(acc.data()[5] + 1);
}

// out = v everywhere but out[5] = 7: a std::fill over two pages of tile storage, then one store
extern "C" __global__ AICORE void raw_fill(__gm__ float *out, float v)
{
    using FillTile = Tile<TileType::Vec, float, 64, 32>;
    using FillGm = GlobalTensor<float, Shape<1, 1, 1, 64, 32>, Stride<2048, 2048, 2048, 32, 1>>;
    FillTile t;
    TASSIGN(t, 0x1000);
    std::fill(t.data(), t.data() + 64 * 32, v);  // @raw_fill
    t.data()[5] = 7.0f;  // @raw_fill_one
    set_flag(PIPE_S, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_S, PIPE_MTE3, EVENT_ID0);
    FillGm dst(out);
    TSTORE(dst, t);
}
