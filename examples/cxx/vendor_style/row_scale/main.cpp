// Host side of the row_scale test folder, in the vendor's style: one gtest TEST_F per case; each
// case reads its inputs from ../<Suite>.<case>/*.bin (written by gen_data.py), runs the kernel
// through ACL (init, device, stream, host and device buffers, copies, launch, synchronise),
// writes output.bin next to golden.bin and compares the two. Our own code; the file helpers
// below stand in for the vendor's test_common.h.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include <gtest/gtest.h>

template <int32_t tilingKey>
void LaunchRowScale(uint8_t *out, uint8_t *x, uint8_t *scale, void *stream);

namespace {
bool ReadBin(const std::string &path, void *buf, size_t bytes)
{
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        std::printf("cannot open %s\n", path.c_str());
        return false;
    }
    f.read(static_cast<char *>(buf), static_cast<std::streamsize>(bytes));
    return static_cast<size_t>(f.gcount()) == bytes;
}

bool WriteBin(const std::string &path, const void *buf, size_t bytes)
{
    std::ofstream f(path, std::ios::binary);
    f.write(static_cast<const char *>(buf), static_cast<std::streamsize>(bytes));
    return static_cast<bool>(f);
}

float ToFloat(float v) { return v; }
float ToFloat(aclFloat16 v) { return aclFloat16ToFloat(v); }

// relative tolerance, as the vendor's comparisons do; the outputs here are expected bit-exact
template <typename T>
bool Compare(const std::vector<T> &golden, const std::vector<T> &actual, float rtol)
{
    size_t bad = 0;
    for (size_t i = 0; i < golden.size(); ++i) {
        const float g = ToFloat(golden[i]), a = ToFloat(actual[i]);
        if (!(std::fabs(g - a) <= rtol * std::fabs(g)) && bad++ < 5) {
            std::printf("mismatch at %zu: golden %f, actual %f\n", i, g, a);
        }
    }
    return bad == 0;
}

std::string CaseDir()
{
    const testing::TestInfo *info = testing::UnitTest::GetInstance()->current_test_info();
    return std::string("../") + info->test_suite_name() + "." + info->name();
}
} // namespace

class RowScaleTest : public testing::Test {
protected:
    void SetUp() override {}
    void TearDown() override {}
};

template <typename T, int32_t tilingKey, int rows, int cols>
void RunCase(float rtol)
{
    const size_t dataBytes = rows * cols * sizeof(T);
    const size_t scaleBytes = rows * sizeof(T);
    const std::string dir = CaseDir();

    aclrtStream stream;
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);

    void *xHost, *scaleHost, *outHost;
    uint8_t *xDevice, *scaleDevice, *outDevice;
    aclrtMallocHost(&xHost, dataBytes);
    aclrtMallocHost(&scaleHost, scaleBytes);
    aclrtMallocHost(&outHost, dataBytes);
    aclrtMalloc((void **)&xDevice, dataBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&scaleDevice, scaleBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&outDevice, dataBytes, ACL_MEM_MALLOC_HUGE_FIRST);

    ASSERT_TRUE(ReadBin(dir + "/x.bin", xHost, dataBytes));
    ASSERT_TRUE(ReadBin(dir + "/scale.bin", scaleHost, scaleBytes));
    aclrtMemcpy(xDevice, dataBytes, xHost, dataBytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(scaleDevice, scaleBytes, scaleHost, scaleBytes, ACL_MEMCPY_HOST_TO_DEVICE);

    LaunchRowScale<tilingKey>(outDevice, xDevice, scaleDevice, stream);
    aclrtSynchronizeStream(stream);

    aclrtMemcpy(outHost, dataBytes, outDevice, dataBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    WriteBin(dir + "/output.bin", outHost, dataBytes);

    aclrtFree(xDevice);
    aclrtFree(scaleDevice);
    aclrtFree(outDevice);
    aclrtFreeHost(xHost);
    aclrtFreeHost(scaleHost);
    aclrtFreeHost(outHost);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();

    std::vector<T> golden(rows * cols), actual(rows * cols);
    ASSERT_TRUE(ReadBin(dir + "/golden.bin", golden.data(), dataBytes));
    ASSERT_TRUE(ReadBin(dir + "/output.bin", actual.data(), dataBytes));
    EXPECT_TRUE(Compare(golden, actual, rtol));
}

TEST_F(RowScaleTest, case_float_64x64)
{
    RunCase<float, 1, 64, 64>(1e-6f);
}

TEST_F(RowScaleTest, case_float_128x256)
{
    RunCase<float, 2, 128, 256>(1e-6f);
}

TEST_F(RowScaleTest, case_half_64x128)
{
    RunCase<aclFloat16, 3, 64, 128>(1e-3f);
}
