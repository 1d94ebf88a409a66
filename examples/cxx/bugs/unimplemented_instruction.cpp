// Not a handshake bug: a kernel using an instruction ptosim does not implement (C++ only).
//
// The cube part of an MX-scaled matrix-vector product: TGEMV_MX(acc, left, right) on Left/Right/Acc
// tiles. ptosim does not simulate the MX GEMV (block-scaled fp8 / fp4, one row); the C++ front end compiles
// this kernel unchanged (every instruction of the API has a declaration) and stops the run at
// the first instruction it cannot simulate, with one line naming it and its call site:
//   unimplemented_instruction.cpp:LINE: TGEMV_MX is not implemented by ptosim
// (a PtoSimError; `ptosim run` exits 2). The instructions ptosim implements: `ptosim instructions`.
// The kernel leaves out the loads into L0A/L0B (TLOAD to L1, TEXTRACT): the run stops at
// TGEMV_MX before any data would be read.
//
//   ptosim run examples/cxx/bugs/unimplemented_instruction.cpp --entry matmul_16x16 --device a2
//       --arg out=16x16:float32
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int M = 16;
constexpr int N = 16;
constexpr int K = 16;
using LeftTile = TileLeft<half, M, K>;
using RightTile = TileRight<half, K, N>;
using AccTile = TileAcc<float, M, N>;
} // namespace

extern "C" __global__ AICORE void matmul_16x16(__gm__ float *out)
{
    LeftTile a;
    RightTile b;
    AccTile c;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x0);
    TASSIGN(c, 0x0);
    TGEMV_MX(c, a, b);  // stops here: not simulated by ptosim
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>> outGm(out);
    TSTORE(outGm, c);
}
