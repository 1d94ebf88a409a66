#include <pto/pto-inst.hpp>
using namespace pto;

__global__ AICORE void trap_kernel(__gm__ float *out)
{
    using T = Tile<TileType::Vec, float, 16, 16>;
    T t;
    TASSIGN(t, 0x0);
    TEXPANDS(t, 1.0f);
    if (get_block_idx() == 0) __builtin_trap();  // a device-side trap in the middle of a launch
}

void LaunchTrapKernel(float *out, void *stream) { trap_kernel<<<1, nullptr, stream>>>(out); }
