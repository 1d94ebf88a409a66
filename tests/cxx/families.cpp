// C++ kernels for tests/cxx/test_frontend.py: one entry per instruction family, each the twin of
// a Python kernel in the test (same instructions, same operands).
#include <pto/pto-inst.hpp>
using namespace pto;

constexpr int R = 16, C = 16;
using TileF = Tile<TileType::Vec, float, R, C>;
using GTF = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;

#define SYNC(A, B)                       \
    set_flag(A, B, EVENT_ID0);           \
    wait_flag(A, B, EVENT_ID0)

// elementwise tile-tile and tile-scalar, 2 blocks, each on its own 16x16 slice
extern "C" __global__ AICORE void fam_binary(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    int off = get_block_idx() * R * C;
    GTF ga(a + off), gb(b + off), go(out + off);
    TileF ta, tb, tc;
    TASSIGN(ta, 0x0);
    TASSIGN(tb, 0x400);
    TASSIGN(tc, 0x800);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    SYNC(PIPE_MTE2, PIPE_V);
    TADD(tc, ta, tb);
    pipe_barrier(PIPE_V);
    TMULS(tc, tc, 3.0f);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, tc);
}

// unary with an explicit precision knob (template enum value)
extern "C" __global__ AICORE void fam_unary(__gm__ float *out, __gm__ float *a)
{
    GTF ga(a), go(out);
    TileF ta, tc;
    TLOAD(ta, ga);
    SYNC(PIPE_MTE2, PIPE_V);
    TEXP<ExpAlgorithm::HIGH_PRECISION>(tc, ta);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, tc);
}

// column reduction
extern "C" __global__ AICORE void fam_reduce(__gm__ float *out, __gm__ float *a)
{
    using Row = Tile<TileType::Vec, float, 1, C>;
    GTF ga(a);
    GlobalTensor<float, Shape<1, 1, 1, 1, C>, Stride<C, C, C, C, 1>> go(out);
    TileF ta;
    Row tr;
    TLOAD(ta, ga);
    SYNC(PIPE_MTE2, PIPE_V);
    TCOLSUM(tr, ta);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, tr);
}

// conversion with a RoundMode operand (an enum passed by value)
extern "C" __global__ AICORE void fam_convert(__gm__ half *out, __gm__ float *a)
{
    GTF ga(a);
    GlobalTensor<half, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>> go(out);
    TileF ta;
    Tile<TileType::Vec, half, R, C> th;
    TASSIGN(ta, 0x0);
    TASSIGN(th, 0x400);
    TLOAD(ta, ga);
    SYNC(PIPE_MTE2, PIPE_V);
    TCVT(th, ta, RoundMode::CAST_RINT);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, th);
}

// an index sequence: explicit template value (descending)
extern "C" __global__ AICORE void fam_index(__gm__ int32_t *out, int32_t start)
{
    using Row = Tile<TileType::Vec, int32_t, 1, C>;
    GlobalTensor<int32_t, Shape<1, 1, 1, 1, C>, Stride<C, C, C, C, 1>> go(out);
    Row t;
    TCI<Row, int32_t, true>(t, start);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, t);
}

// row broadcast, with a dynamic valid shape on the source column
extern "C" __global__ AICORE void fam_rowexpand(__gm__ float *out, __gm__ float *col)
{
    using Col = Tile<TileType::Vec, float, R, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    GlobalTensor<float, Shape<1, 1, 1, R, 1>, Stride<R, R, R, 1, 1>> gc(col);
    GTF go(out);
    Col tcol(R, 1);
    TileF td;
    TLOAD(tcol, gc);
    SYNC(PIPE_MTE2, PIPE_V);
    TROWEXPAND(td, tcol);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, td);
}

// the MGATHER seed with explicit policies
extern "C" __global__ AICORE void fam_gather(__gm__ float *out, __gm__ float *table, __gm__ int32_t *index)
{
    GlobalTensor<float, Shape<1, 1, 1, 1, 1024>, Stride<1024, 1024, 1024, 1024, 1>> gt(table);
    GlobalTensor<int32_t, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>> gi(index);
    GTF go(out);
    TileF dst;
    Tile<TileType::Vec, int32_t, R, C> idx;
    TLOAD(idx, gi);
    SYNC(PIPE_MTE2, PIPE_S);
    MGATHER<Coalesce::Elem, GatherOOB::Clamp>(dst, gt, idx);
    SYNC(PIPE_MTE2, PIPE_MTE3);
    TSTORE(go, dst);
}

// Event<> objects: `ev = INSTR(...)` posts a flag, passing ev to a later instruction waits on it
extern "C" __global__ AICORE void fam_events(__gm__ float *out, __gm__ float *a)
{
    GTF ga(a), go(out);
    TileF t;
    Event<Op::TLOAD, Op::TADDS> loaded = TLOAD(t, ga);
    Event<Op::TADDS, Op::TSTORE_VEC> added = TADDS(t, t, 1.0f, loaded);
    TSTORE(go, t, added);
}

// column broadcast: dst = full + row (a [1, C] row vector)
extern "C" __global__ AICORE void fam_colexpand(__gm__ float *out, __gm__ float *a, __gm__ float *row)
{
    GTF ga(a), go(out);
    GlobalTensor<float, Shape<1, 1, 1, 1, C>, Stride<C, C, C, C, 1>> gr(row);
    TileF ta, td;
    Tile<TileType::Vec, float, 1, C> tr;
    TLOAD(ta, ga);
    TLOAD(tr, gr);
    SYNC(PIPE_MTE2, PIPE_V);
    TCOLEXPANDADD(td, ta, tr);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, td);
}

// layout: transpose through a scratch tile
extern "C" __global__ AICORE void fam_trans(__gm__ float *out, __gm__ float *a)
{
    GTF ga(a), go(out);
    TileF ta, td, tmp;
    TASSIGN(ta, 0x0);
    TASSIGN(td, 0x400);
    TASSIGN(tmp, 0x800);
    TLOAD(ta, ga);
    SYNC(PIPE_MTE2, PIPE_V);
    TTRANS(td, ta, tmp);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, td);
}

// sort: 32-element blocks of (score, index) records
extern "C" __global__ AICORE void fam_sort(__gm__ float *out, __gm__ float *scores, __gm__ uint32_t *index)
{
    GlobalTensor<float, Shape<1, 1, 1, 1, 32>, Stride<32, 32, 32, 32, 1>> gs(scores);
    GlobalTensor<uint32_t, Shape<1, 1, 1, 1, 32>, Stride<32, 32, 32, 32, 1>> gi(index);
    GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<64, 64, 64, 64, 1>> go(out);
    Tile<TileType::Vec, float, 1, 32> src;
    Tile<TileType::Vec, uint32_t, 1, 32> idx;
    Tile<TileType::Vec, float, 1, 64> dst;
    TASSIGN(src, 0x0);
    TASSIGN(idx, 0x100);
    TASSIGN(dst, 0x200);
    TLOAD(src, gs);
    TLOAD(idx, gi);
    SYNC(PIPE_MTE2, PIPE_V);
    TSORT32(dst, src, idx);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, dst);
}

// the MSCATTER seed with an explicit policy
extern "C" __global__ AICORE void fam_scatter(__gm__ float *table, __gm__ float *src, __gm__ int32_t *index)
{
    GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<64, 64, 64, 64, 1>> gt(table);
    GlobalTensor<float, Shape<1, 1, 1, 1, 8>, Stride<8, 8, 8, 8, 1>> gs(src);
    GlobalTensor<int32_t, Shape<1, 1, 1, 1, 8>, Stride<8, 8, 8, 8, 1>> gi(index);
    Tile<TileType::Vec, float, 1, 8> s;
    Tile<TileType::Vec, int32_t, 1, 8> i;
    TASSIGN(s, 0x0);
    TASSIGN(i, 0x80);
    TLOAD(s, gs);
    TLOAD(i, gi);
    pipe_barrier(PIPE_ALL);
    MSCATTER<Coalesce::Elem>(gt, s, i);
}

// cross-core synchronisation: each block writes the other block's half of tmp, all blocks meet
// (AscendC SyncAll: barrier, FFTS flag 14 in mode 0, wait), then each reads its own half
extern "C" __global__ AICORE void fam_crosscore(__gm__ float *out, __gm__ float *a, __gm__ float *tmp)
{
    int b = get_block_idx(), other = 1 - b;
    GTF ga(a + b * R * C), gt_other(tmp + other * R * C), gt_mine(tmp + b * R * C), go(out + b * R * C);
    TileF t;
    TASSIGN(t, 0x0);
    TLOAD(t, ga);
    SYNC(PIPE_MTE2, PIPE_MTE3);
    TSTORE(gt_other, t);
    pipe_barrier(PIPE_ALL);
    ffts_cross_core_sync(PIPE_MTE3, 1 | (0 << 4) | (14 << 8));
    wait_flag_dev(14);
    TLOAD(t, gt_mine);
    SYNC(PIPE_MTE2, PIPE_V);
    TADDS(t, t, 1.0f);
    SYNC(PIPE_V, PIPE_MTE3);
    TSTORE(go, t);
}
