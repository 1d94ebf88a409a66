// A folder run like a plain executable: its own main(), no gtest cases. The exit status is the
// verdict (as the library's kernel folders are run).
#include "acl/acl.h"

#include <cstdio>
#include <cstdlib>

void LaunchFill(float *out, float value, void *stream);

int main(int, char **)
{
    aclInit(nullptr);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    float *d, h[256];
    aclrtMalloc((void **)&d, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST);
    LaunchFill(d, 2.5f, stream);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(h, sizeof h, d, sizeof h, ACL_MEMCPY_DEVICE_TO_HOST);
    int wrong = 0;
    for (float v : h) wrong += v != 2.5f;
    std::printf("%d wrong elements\n", wrong);
    const char *want = std::getenv("PTOSIM_TEST_PROGRAM_STATUS");  // lets a test make it fail
    return want ? std::atoi(want) : (wrong ? 1 : 0);
}
