// tests/cxx/test_recorder.py: one call of each operand kind and template-argument form.
#include <pto/pto-inst.hpp>
using namespace pto;

extern "C" __global__ AICORE void rec(__gm__ float *a, int32_t n)
{
    using TileF = Tile<TileType::Vec, float, 16, 16>;
    using GT = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>>;
    TileF t;
    Tile<TileType::Vec, int32_t, 16, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC> d(5, 7);
    GT g(a + 16);
    TASSIGN(t, 0x100);
    TLOAD(t, g);
    TADDS(t, t, 2.5f);
    TCMPS(t, t, 1.0f, CmpMode::GT);
    TEXP<ExpAlgorithm::HIGH_PRECISION>(t, t);
    TCI<TileF, int32_t, true>(t, n);
    MGATHER<Coalesce::Elem, GatherOOB::Wrap>(t, g, d);
    TSTORE<TileF, GT, AtomicType::AtomicAdd>(g, t);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);
    TSCATTER<MaskPattern::P1010>(t, t);
}
