#include <pto/pto-inst.hpp>
using namespace pto;

__global__ AICORE void warmup() {}

__global__ AICORE void scatter(__gm__ float *out, __gm__ float *src, __gm__ int32_t *idx)
{
    using S = Tile<TileType::Vec, float, 2304, 8>;
    using I = Tile<TileType::Vec, int32_t, 2304, 8>;
    using G = GlobalTensor<float, Shape<1, 1, 1, 2304, 8>, Stride<18432, 18432, 18432, 8, 1>>;
    using GI = GlobalTensor<int32_t, Shape<1, 1, 1, 2304, 8>, Stride<18432, 18432, 18432, 8, 1>>;
    using GO = GlobalTensor<float, Shape<1, 1, 1, 1, 18432>, Stride<18432, 18432, 18432, 18432, 1>>;
    S s;
    I i;
    TASSIGN(i, 0x0);
    TASSIGN(s, 0x12000);
    G gs(src);
    GI gi(idx);
    GO go(out);
    TLOAD(i, gi);
    TLOAD(s, gs);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    MSCATTER<Coalesce::Elem>(go, s, i);
}

void LaunchScatter(float *out, float *src, int32_t *idx, uint32_t dyn_ub_bytes, void *stream)
{
    warmup<<<64, nullptr, stream>>>();
    scatter<<<1, dyn_ub_bytes, stream>>>(out, src, idx);
}
