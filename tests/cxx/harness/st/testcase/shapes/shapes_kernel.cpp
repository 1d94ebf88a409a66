// The kernel of the shapes folder: out = a + b over one R x C tile per block.
#include <pto/pto-inst.hpp>
using namespace pto;

template <typename T, int R, int C>
__global__ AICORE void add_kernel(__gm__ T *out, __gm__ T *a, __gm__ T *b)
{
    using Tl = Tile<TileType::Vec, T, R, C>;
    using G = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
    G ga(a), gb(b), go(out);
    Tl ta, tb;
    TASSIGN(ta, 0x0);
    TASSIGN(tb, 0x8000);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(ta, ta, tb);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, ta);
}

// out = a + b, the sum copied element by element through tile.data() into another tile between
// the instructions (the library's TMRGSORT top-k test does so in a plain-called kernel)
template <typename T, int R, int C>
__global__ AICORE void add_copy_kernel(__gm__ T *out, __gm__ T *a, __gm__ T *b)
{
    using Tl = Tile<TileType::Vec, T, R, C>;
    using G = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
    G ga(a), gb(b), go(out);
    Tl ta, tb, tc;
    TASSIGN(ta, 0x0);
    TASSIGN(tb, 0x8000);
    TASSIGN(tc, 0x10000);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(ta, ta, tb);
    pipe_barrier(PIPE_ALL);
    for (int i = 0; i < R * C; ++i) tc.data()[i] = ta.data()[i];
    pipe_barrier(PIPE_ALL);
    TSTORE(go, tc);
}

// out = a + b, the sum copied element by element from tile.data() straight into GM (the library's
// cpu TLOAD test reads its loaded tile so): the first GM write ends the calls before it
template <typename T, int R, int C>
__global__ AICORE void add_out_kernel(__gm__ T *out, __gm__ T *a, __gm__ T *b)
{
    using Tl = Tile<TileType::Vec, T, R, C>;
    using G = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
    G ga(a), gb(b);
    Tl ta, tb;
    TASSIGN(ta, 0x0);
    TASSIGN(tb, 0x8000);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(ta, ta, tb);
    pipe_barrier(PIPE_ALL);
    for (int i = 0; i < R * C; ++i) out[i] = ta.data()[i];
}

template <typename T, int R, int C>
void LaunchAdd(T *out, T *a, T *b, void *stream)
{
    add_kernel<T, R, C><<<1, nullptr, stream>>>(out, a, b);
}
template <typename T, int R, int C>
void CallAdd(T *out, T *a, T *b)
{
    add_kernel<T, R, C>(out, a, b);  // called as a plain function, as the library's cpu tests do
}
template void LaunchAdd<float, 16, 16>(float *, float *, float *, void *);
template void LaunchAdd<float, 32, 64>(float *, float *, float *, void *);
template void LaunchAdd<int32_t, 16, 16>(int32_t *, int32_t *, int32_t *, void *);
template <typename T, int R, int C>
void CallAddCopy(T *out, T *a, T *b)
{
    add_copy_kernel<T, R, C>(out, a, b);
}
template void CallAdd<float, 16, 16>(float *, float *, float *);
template <typename T, int R, int C>
void CallAddOut(T *out, T *a, T *b)
{
    add_out_kernel<T, R, C>(out, a, b);
}
template void CallAddOut<float, 16, 16>(float *, float *, float *);
template void CallAddOut<float, 32, 64>(float *, float *, float *);
template void CallAddOut<int32_t, 16, 16>(int32_t *, int32_t *, int32_t *);
template void CallAddCopy<float, 16, 16>(float *, float *, float *);
template void CallAddCopy<float, 32, 64>(float *, float *, float *);
template void CallAddCopy<int32_t, 16, 16>(int32_t *, int32_t *, int32_t *);
template void CallAdd<float, 32, 64>(float *, float *, float *);
template void CallAdd<int32_t, 16, 16>(int32_t *, int32_t *, int32_t *);
