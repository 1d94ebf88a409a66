// The test tree's common headers (test_common.h, cpu_tile_test_utils.h) and the runtime headers.
#include "test_common.h"
#include "cpu_tile_test_utils.h"
#include <acl/acl.h>
#include <gtest/gtest.h>

using namespace PtoTestCommon;

void LaunchScale(float *out, float *x, void *stream);

TEST(Includes, scales)
{
    aclInit(nullptr);
    const size_t n = 256 * sizeof(float);
    std::vector<float> x(256), golden(256), out(256);
    size_t got = n;
    CHECK_RESULT_GTEST(ReadFile("../Includes.scales/input.bin", got, x.data(), n));
    CHECK_RESULT_GTEST(ReadFile("../Includes.scales/golden.bin", got, golden.data(), n));
    float *dX, *dO;
    aclrtMalloc((void **)&dX, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&dO, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(dX, n, x.data(), n, ACL_MEMCPY_HOST_TO_DEVICE);
    LaunchScale(dO, dX, nullptr);
    aclrtSynchronizeStream(nullptr);
    aclrtMemcpy(out.data(), n, dO, n, ACL_MEMCPY_DEVICE_TO_HOST);
    WriteFile("../Includes.scales/output.bin", out.data(), n);
    EXPECT_TRUE(ResultCmp<float>(golden, out, 0.001f));
}
