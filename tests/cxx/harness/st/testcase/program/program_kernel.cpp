#include <pto/pto-inst.hpp>
using namespace pto;

__global__ AICORE void fill(__gm__ float *out, float value)
{
    using T = Tile<TileType::Vec, float, 16, 16>;
    using G = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>>;
    G go(out);
    T t;
    TASSIGN(t, 0x0);
    TEXPANDS(t, value);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, t);
}

void LaunchFill(float *out, float value, void *stream) { fill<<<1, nullptr, stream>>>(out, value); }
