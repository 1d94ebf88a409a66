// An fp4 GlobalTensor over a pointer moved in bytes (tests/cxx/test_fp4.py).
#include <pto/pto-inst.hpp>
using namespace pto;
// a GlobalTensor over an fp4 pointer moved by 4 bytes (8 elements)
extern "C" __global__ AICORE void fp4_offset(__gm__ float4_e2m1x2_t *src, __gm__ float4_e2m1x2_t *out)
{
    using T = Tile<TileType::Vec, float4_e2m1x2_t, 1, 64>;
    using G = GlobalTensor<float4_e2m1x2_t, Shape<1, 1, 1, 1, 64>, Stride<64, 64, 64, 64, 1>>;
    T t;
    TASSIGN(t, 0x0);
    G g(src + 4), o(out);
    TLOAD(t, g);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(o, t);
}
