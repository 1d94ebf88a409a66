// A cpu program in the style of the library's cpu demos: GlobalTensors over host std::vectors and
// PTO calls straight from main(), no ACL and no launch. The exit status is the verdict: C must be
// exactly the CPU simulator's sum (one float fma per k, in k order, from 0), and A must be read
// as it was at the TLOAD (the host overwrites it afterwards). Tiles keep their values between calls,
// as the CPU simulator's host-memory tiles do: after the TSTORE to C (which ptosim simulates before
// it returns), a second product reuses the Left / Right tiles and a Vec tile without TASSIGN
// loaded before it, and C2 and Bcopy must show their values.
#include <pto/pto-inst.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace pto;

int main()
{
    constexpr int M = 16, K = 16, N = 32;
    std::vector<float> A(M * K), B(K * N), C(M * N, -1.0f), C2(M * N, -1.0f), Bcopy(K * N, -1.0f);
    for (int i = 0; i < M * K; ++i) A[i] = (i % 13) * 0.1f - 0.5f;
    for (int i = 0; i < K * N; ++i) B[i] = (i % 7) * 0.2f - 0.3f;
    const std::vector<float> A0 = A;

    using GA = GlobalTensor<float, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>>;
    using GB = GlobalTensor<float, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
    using GC = GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
    using MatA = Tile<TileType::Mat, float, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor>;
    using MatB = Tile<TileType::Mat, float, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor>;
    GA a(A.data());
    GB b(B.data());
    GC c(C.data());
    GC c2(C2.data());
    GB bcopy(Bcopy.data());
    MatA aMat;
    MatB bMat;
    TileLeft<float, M, K> left;
    TileRight<float, K, N> right;
    TileAcc<float, M, N> acc;
    Tile<TileType::Vec, float, K, N> bVec;  // no TASSIGN: placed by the simulator
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x10000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(acc, 0x0);

    TLOAD(aMat, a);
    A[0] = 1000.0f;  // after the call: the TLOAD has read A already
    TLOAD(bMat, b);
    TLOAD(bVec, b);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(left, aMat);
    TMOV(right, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(c, acc);  // C holds the product when the call returns
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    TMATMUL(acc, left, right);  // left and right as the calls before the TSTORE left them
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(c2, acc);
    TSTORE(bcopy, bVec);

    int wrong = 0;
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) s = std::fma(A0[i * K + k], B[k * N + j], s);
            wrong += C[i * N + j] != s;
            wrong += C2[i * N + j] != s;
        }
    }
    for (int i = 0; i < K * N; ++i) wrong += Bcopy[i] != B[i];

    std::printf("%d wrong elements\n", wrong);
    return wrong ? 1 : 0;
}
