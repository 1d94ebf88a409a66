// gtest cases of the vadd test folder: read inputs, run the kernel, write output.bin, compare.
#include "acl/acl.h"
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

template <int R, int C>
void LaunchVadd(float *out, float *a, float *b, int blocks, void *stream);
void VaddPlain(float *out, float *a, float *b);

static bool ReadFile(const std::string &path, void *buf, size_t n)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    size_t got = std::fread(buf, 1, n, f);
    std::fclose(f);
    return got == n;
}
static void WriteFile(const std::string &path, const void *buf, size_t n)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    std::fwrite(buf, 1, n, f);
    std::fclose(f);
}

class VaddTest : public testing::Test {};

template <int R, int C>
void RunCase(const std::string &name, int blocks, bool plain = false)
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    size_t n = size_t(blocks) * R * C * sizeof(float);
    float *hA, *hB, *hO, *hG, *dA, *dB, *dO;
    aclrtMallocHost((void **)&hA, n);
    aclrtMallocHost((void **)&hB, n);
    aclrtMallocHost((void **)&hO, n);
    aclrtMallocHost((void **)&hG, n);
    aclrtMalloc((void **)&dA, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&dB, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&dO, n, ACL_MEM_MALLOC_HUGE_FIRST);
    std::string dir = "../VaddTest." + name + "/";
    ASSERT_TRUE(ReadFile(dir + "input1.bin", hA, n));
    ASSERT_TRUE(ReadFile(dir + "input2.bin", hB, n));
    ASSERT_TRUE(ReadFile(dir + "golden.bin", hG, n));
    aclrtMemcpy(dA, n, hA, n, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(dB, n, hB, n, ACL_MEMCPY_HOST_TO_DEVICE);
    if (plain) {
        VaddPlain(dO, dA, dB);  // the kernel called as a plain function (no <<<>>>)
    } else {
        LaunchVadd<R, C>(dO, dA, dB, blocks, stream);
    }
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(hO, n, dO, n, ACL_MEMCPY_DEVICE_TO_HOST);
    WriteFile(dir + "output.bin", hO, n);
    size_t bad = 0;
    for (size_t i = 0; i < n / sizeof(float); ++i) bad += hO[i] != hG[i];
    EXPECT_EQ(bad, size_t(0));
    aclrtFree(dA);
    aclrtFree(dB);
    aclrtFree(dO);
    aclrtFreeHost(hA);
    aclrtFreeHost(hB);
    aclrtFreeHost(hO);
    aclrtFreeHost(hG);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
}

TEST_F(VaddTest, case_16x16) { RunCase<16, 16>("case_16x16", 1); }
TEST_F(VaddTest, case_32x64_4blocks) { RunCase<32, 64>("case_32x64_4blocks", 4); }
TEST_F(VaddTest, case_plain_16x16) { RunCase<16, 16>("case_plain_16x16", 1, true); }

int main(int argc, char **argv)
{
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
