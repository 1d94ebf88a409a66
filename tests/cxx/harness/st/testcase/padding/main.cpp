// aclrtMalloc's padding: the NPU runtime rounds a request up to 32 bytes and adds 32, so a
// 201-byte buffer takes the 224-byte store; a 150-byte buffer (192 bytes allocated) does not.
#include "acl/acl.h"
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

void LaunchStoreRow(int8_t *out, int8_t *src, void *stream);

static bool StoreInto(size_t out_bytes)
{
    int8_t host[224], back[224] = {};
    for (int i = 0; i < 224; ++i) host[i] = int8_t(i * 3 + 1);
    int8_t *src, *out;
    aclrtMalloc((void **)&src, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&out, out_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(src, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE);
    LaunchStoreRow(out, src, nullptr);
    aclrtSynchronizeStream(nullptr);
    aclrtMemcpy(back, out_bytes, out, out_bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    return std::memcmp(back, host, out_bytes) == 0;
}

TEST(Padding, into_201_bytes) { EXPECT_TRUE(StoreInto(201)); }
TEST(Padding, into_150_bytes) { EXPECT_TRUE(StoreInto(150)); }
