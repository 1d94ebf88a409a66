// A test folder in the vendor's style, for tests/cxx/test_testdir.py (`ptosim test`).
#include <pto/pto-inst.hpp>
using namespace pto;

template <int R, int C>
__global__ AICORE void vadd(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    using T = Tile<TileType::Vec, float, R, C>;
    using G = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;
    int off = get_block_idx() * R * C;
    G ga(a + off), gb(b + off), go(out + off);
    T ta, tb;
    TASSIGN(ta, 0x0);
    TASSIGN(tb, 0x4000);
    TLOAD(ta, ga);
    TLOAD(tb, gb);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(ta, ta, tb);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // @vadd_wait
    TSTORE(go, ta);
}

template <int R, int C>
void LaunchVadd(float *out, float *a, float *b, int blocks, void *stream)
{
    vadd<R, C><<<blocks, nullptr, stream>>>(out, a, b);
}
template void LaunchVadd<16, 16>(float *, float *, float *, int, void *);
template void LaunchVadd<32, 64>(float *, float *, float *, int, void *);

void VaddPlain(float *out, float *a, float *b) { vadd<16, 16>(out, a, b); }
