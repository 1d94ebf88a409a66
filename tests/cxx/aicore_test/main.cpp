// Host side of the mixed test folder (our own code): copy the input, launch, compare.
#include "acl/acl.h"
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

void LaunchRelay(uint8_t *out, uint8_t *src, void *stream);

class RelayTest : public testing::Test {};

TEST_F(RelayTest, two_blocks)
{
    constexpr int kCols = 64;
    std::vector<float> src(2 * kCols), out(6 * kCols);
    for (int i = 0; i < 2 * kCols; ++i) src[i] = float(i + 1);
    aclInit(nullptr);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    uint8_t *srcDev, *outDev;
    aclrtMalloc((void **)&srcDev, src.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&outDev, out.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(srcDev, src.size() * 4, src.data(), src.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    LaunchRelay(outDev, srcDev, stream);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(out.data(), out.size() * 4, outDev, out.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int b = 0; b < 2; ++b)
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < kCols; ++c) EXPECT_EQ(out[(b * 3 + r) * kCols + c], src[b * kCols + c]);
}
