// A store of 7 whole 32-byte blocks (224 bytes) into a GM buffer the program sized smaller: the
// library's tload_gm2mat test does this with 201- and 624-byte buffers.
#include <pto/pto-inst.hpp>
using namespace pto;

__global__ AICORE void store_row(__gm__ int8_t *out, __gm__ int8_t *src)
{
    using Row = Tile<TileType::Vec, int8_t, 1, 224>;
    using RowGm = GlobalTensor<int8_t, Shape<1, 1, 1, 1, 224>, pto::Stride<224, 224, 224, 224, 1>>;
    Row t;
    TASSIGN(t, 0x0);
    RowGm s(src), o(out);
    TLOAD(t, s);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(o, t);  // @store_row
}

void LaunchStoreRow(int8_t *out, int8_t *src, void *stream) { store_row<<<1, nullptr, stream>>>(out, src); }
