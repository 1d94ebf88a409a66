// Launches of the library's a5 tests: a 64-block warm-up on the 56-core 950 and a SIMT kernel
// whose tiles need more than the default dynamic UB, declared by the launch's second parameter.
#include "acl/acl.h"

#include <cstdio>
#include <cstdint>
#include <cstdlib>

void LaunchScatter(float *out, float *src, int32_t *idx, uint32_t dyn_ub_bytes, void *stream);

int main(int, char **)
{
    aclInit(nullptr);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    const int n = 2304 * 8;
    static float hs[n], ho[n];
    static int32_t hi[n];
    for (int i = 0; i < n; ++i) {
        hs[i] = float(i) * 0.5f;
        hi[i] = (i * 7) % n;  // 7 and 2304*8 are coprime: a permutation
    }
    float *s, *o;
    int32_t *x;
    aclrtMalloc((void **)&s, sizeof hs, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&o, sizeof ho, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&x, sizeof hi, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(s, sizeof hs, hs, sizeof hs, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(x, sizeof hi, hi, sizeof hi, ACL_MEMCPY_HOST_TO_DEVICE);
    const char *env = std::getenv("PTOSIM_TEST_DYN_UB");  // lets a test launch without it
    LaunchScatter(o, s, x, env ? uint32_t(std::atoi(env)) : 160u * 1024u, stream);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(ho, sizeof ho, o, sizeof ho, ACL_MEMCPY_DEVICE_TO_HOST);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += ho[hi[i]] != hs[i];
    std::printf("%d wrong elements\n", wrong);
    return wrong ? 1 : 0;
}
