// Not a handshake bug: a kernel using an instruction ptosim does not implement (C++ only).
//
// The cube part of a convolution: TIMG2COL(left, fmap, posM, posK) unfolds a feature map held in
// L1 into a Left tile, then TMATMUL multiplies it by the weights. ptosim does not simulate img2col
// (docs/guide-cube.md); the C++ front end compiles this kernel unchanged (every instruction of the
// API has a declaration) and stops the run at the first instruction it cannot simulate, with one
// line naming it and its call site:
//   unimplemented_instruction.cpp:LINE: TIMG2COL is not implemented by ptosim
// (a PtoSimError; `ptosim run` exits 2). The instructions ptosim implements: `ptosim instructions`.
// The kernel leaves out the loads into L1 and L0B (TLOAD, TEXTRACT): the run stops at TIMG2COL
// before any data would be read.
//
//   ptosim run examples/cxx/bugs/unimplemented_instruction.cpp --entry matmul_16x16 --device a2
//       --arg out=16x16:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 16;
constexpr int N = 16;
constexpr int K = 16;
using FmapTile = Tile<TileType::Mat, half, M, K>;
using LeftTile = TileLeft<half, M, K>;
using RightTile = TileRight<half, K, N>;
using AccTile = TileAcc<float, M, N>;
} // namespace

extern "C" __global__ AICORE void matmul_16x16(__gm__ float *out)
{
    FmapTile fmap;
    LeftTile a;
    RightTile b;
    AccTile c;
    TASSIGN(fmap, 0x0);
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x0);
    TASSIGN(c, 0x0);
    TIMG2COL(a, fmap, 0, 0);  // stops here: not simulated by ptosim
    TMATMUL(c, a, b);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>> outGm(out);
    TSTORE(outGm, c);
}
