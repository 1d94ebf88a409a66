// tests/isa/test_tstore_atomic.py: TSTORE<Tile, GlobalTensor, AtomicType::AtomicAdd> from C++; every
// block adds its slice of `a` into the same `out` rows.
#include <pto/pto-inst.hpp>
using namespace pto;

template <typename T>
AICORE void accumulate(__gm__ T *out, __gm__ T *a)
{
    using TileT = Tile<TileType::Vec, T, 8, 32>;
    using GT = GlobalTensor<T, Shape<1, 1, 1, 8, 32>, Stride<256, 256, 256, 32, 1>>;
    GT src(a + get_block_idx() * 256), dst(out);
    TileT t;
    TASSIGN(t, 0x0);
    TLOAD(t, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE<TileT, GT, AtomicType::AtomicAdd>(dst, t);
}

extern "C" __global__ AICORE void add_f32(__gm__ float *out, __gm__ float *a) { accumulate<float>(out, a); }
extern "C" __global__ AICORE void add_i32(__gm__ int32_t *out, __gm__ int32_t *a) { accumulate<int32_t>(out, a); }
extern "C" __global__ AICORE void add_f16(__gm__ half *out, __gm__ half *a) { accumulate<half>(out, a); }
