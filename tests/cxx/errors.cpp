// C++ kernels for tests/cxx/test_errors.py: each entry makes one error or finding.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileF = Tile<TileType::Vec, float, 16, 16>;
using GTF = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>>;

extern "C" __global__ AICORE void bad_dtype(__gm__ float *out, __gm__ float *a)
{
    Tile<TileType::Vec, half, 16, 16> th;
    TileF tf;
    GTF ga(a);
    TLOAD(tf, ga);
    TADD(th, tf, tf);  // @bad_dtype
}

extern "C" __global__ AICORE void matmul(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    TIMG2COL(tf, tf, 0, 0);  // @matmul
}

extern "C" __global__ AICORE void raw_tile(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    TASSIGN(tf, 0x0);
    float v = tf.data()[3];  // @raw_tile
    out[0] = v;  // @raw_tile_store
}

extern "C" __global__ AICORE void raw_gm(__gm__ float *out, __gm__ float *a)
{
    float v = a[5];  // @raw_gm
    (void)v;
}

extern "C" __global__ AICORE void raw_unplaced(__gm__ float *out, __gm__ float *a)
{
    TileF tf;  // no TASSIGN: its storage has no UB address the kernel can see
    float v = tf.data()[3];  // @raw_unplaced
    (void)v;
}

extern "C" __global__ AICORE void raw_straddle(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    TASSIGN(tf, 0xF00);
    uint64_t v;
    std::memcpy(&v, (const char *)tf.data() + 252, sizeof v);  // @raw_straddle: bytes 4092..4099
    out[0] = float(v & 1);
}

extern "C" __global__ AICORE void outside(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    GTF ga(a + 100000);
    TLOAD(tf, ga);  // @outside
}

extern "C" __global__ AICORE void no_wait(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    GTF ga(a), go(out);
    TLOAD(tf, ga);  // @no_wait_load
    TADDS(tf, tf, 1.0f);  // @no_wait_adds
    TSTORE(go, tf);
}

extern "C" __global__ AICORE void get_value(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    float v = tf.GetValue(0);  // @get_value
    (void)v;
}

extern "C" __global__ AICORE void missing_wait(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    GTF ga(a), go(out);
    TLOAD(tf, ga);  // @missing_wait_load
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(tf, tf, 1.0f);  // @missing_wait_adds
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    TSTORE(go, tf);
}

extern "C" __global__ AICORE void fine(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    GTF ga(a), go(out);
    TLOAD(tf, ga);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, tf);
}

extern "C" __global__ AICORE void value_used(__gm__ float *out, __gm__ float *a)
{
    TileF tf;
    GTF go(out);
    float v = tf.GetValue(3);
    TEXPANDS(tf, v + 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, tf);
}
