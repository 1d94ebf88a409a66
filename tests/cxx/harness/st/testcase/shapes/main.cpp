// The shapes folder: every gtest and ACL shape ptosim test serves (see ../../../README.md).
#include "acl/acl.h"
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

template <typename T, int R, int C>
void LaunchAdd(T *out, T *a, T *b, void *stream);
template <typename T, int R, int C>
void CallAdd(T *out, T *a, T *b);
template <typename T, int R, int C>
void CallAddCopy(T *out, T *a, T *b);
template <typename T, int R, int C>
void CallAddOut(T *out, T *a, T *b);

enum class How { Launch, Plain, HostFill, PlainCopy, PlainOut };

static std::string CaseDir()
{
    const testing::TestInfo *info = testing::UnitTest::GetInstance()->current_test_info();
    return std::string("../") + info->test_suite_name() + "." + info->name() + "/";
}
static bool Read(const std::string &path, void *buf, size_t n)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    size_t got = std::fread(buf, 1, n, f);
    std::fclose(f);
    return got == n;
}

template <typename T, int R, int C>
void RunAdd(How how)
{
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    aclrtSetDevice(0);
    uint32_t devices = 0;
    aclrtGetDeviceCount(&devices);
    EXPECT_EQ(devices, 1u);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    aclrtEvent start, stop;
    aclrtCreateEvent(&start);
    aclrtCreateEvent(&stop);
    const size_t n = size_t(R) * C * sizeof(T);
    std::vector<T> a(R * C), b(R * C), golden(R * C), out(R * C);
    ASSERT_TRUE(Read(CaseDir() + "input1.bin", a.data(), n));
    ASSERT_TRUE(Read(CaseDir() + "input2.bin", b.data(), n));
    ASSERT_TRUE(Read(CaseDir() + "golden.bin", golden.data(), n));
    T *dA, *dB, *dO, *hO;
    aclrtMalloc((void **)&dA, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&dB, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&dO, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMallocHost((void **)&hO, n);
    aclrtMemset(dO, n, 0x7f, n);
    if (how == How::HostFill) {
        for (int i = 0; i < R * C; ++i) dA[i] = a[i];  // host code writing device memory in place
        for (int i = 0; i < R * C; ++i) dB[i] = b[i];
        EXPECT_EQ(dA[3], a[3]);  // ... and reading it back
    } else {
        aclrtMemcpy(dA, n, a.data(), n, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpyAsync(dB, n, b.data(), n, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    }
    aclrtRecordEvent(start, stream);
    if (how == How::Plain) {
        CallAdd<T, R, C>(dO, dA, dB);
    } else if (how == How::PlainCopy) {
        CallAddCopy<T, R, C>(dO, dA, dB);
    } else if (how == How::PlainOut) {
        CallAddOut<T, R, C>(dO, dA, dB);
    } else {
        LaunchAdd<T, R, C>(dO, dA, dB, stream);
    }
    aclrtRecordEvent(stop, stream);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(hO, n, dO, n, ACL_MEMCPY_DEVICE_TO_HOST);
    FILE *f = std::fopen((CaseDir() + "output.bin").c_str(), "wb");
    std::fwrite(hO, 1, n, f);
    std::fclose(f);
    size_t wrong = 0;
    for (int i = 0; i < R * C; ++i) wrong += hO[i] != golden[i];
    EXPECT_EQ(wrong, size_t(0)) << "elements differ from golden.bin";
    aclrtDestroyEvent(start);
    aclrtDestroyEvent(stop);
    aclrtFree(dA);
    aclrtFree(dB);
    aclrtFree(dO);
    aclrtFreeHost(hO);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
}

class ShapesTest : public testing::Test {
protected:
    static void SetUpTestSuite() { suite_ready() = true; }
    static bool &suite_ready()
    {
        static bool ready = false;
        return ready;
    }
};
TEST_F(ShapesTest, launched_16x16) { RunAdd<float, 16, 16>(How::Launch); }
TEST_F(ShapesTest, plain_16x16) { RunAdd<float, 16, 16>(How::Plain); }
TEST_F(ShapesTest, host_fill_16x16) { RunAdd<float, 16, 16>(How::HostFill); }
TEST_F(ShapesTest, plain_copy_16x16) { RunAdd<float, 16, 16>(How::PlainCopy); }
TEST_F(ShapesTest, plain_out_16x16) { RunAdd<float, 16, 16>(How::PlainOut); }
TEST_F(ShapesTest, suite_set_up_ran) { EXPECT_TRUE(suite_ready()); }
TEST_F(ShapesTest, skipped) { GTEST_SKIP() << "not on this device"; }

// value-parameterised: one pattern, two sizes, named by a generator
struct Size {
    int rows, cols;
};
class AddP : public testing::TestWithParam<Size> {};
TEST_P(AddP, float)
{
    const Size s = GetParam();
    if (s.rows == 16) RunAdd<float, 16, 16>(How::Launch);
    else RunAdd<float, 32, 64>(How::Launch);
}
INSTANTIATE_TEST_SUITE_P(Sizes, AddP, testing::Values(Size{16, 16}, Size{32, 64}),
                         [](const testing::TestParamInfo<Size> &info) {
                             return std::to_string(info.param.rows) + "x" + std::to_string(info.param.cols);
                         });

// a grid of parameters: Combine(Values, Bool) gives four cases
class AddGrid : public testing::TestWithParam<std::tuple<int, bool>> {};
TEST_P(AddGrid, float)
{
    auto [k, plain] = GetParam();
    EXPECT_TRUE(k == 1 || k == 2);
    RunAdd<float, 16, 16>(plain ? How::Plain : How::Launch);
}
INSTANTIATE_TEST_SUITE_P(Grid, AddGrid, testing::Combine(testing::Values(1, 2), testing::Bool()));

// typed: one body per element type
template <typename T>
class AddTyped : public testing::Test {};
using AddTypes = testing::Types<float, int32_t>;
TYPED_TEST_SUITE(AddTyped, AddTypes);
TYPED_TEST(AddTyped, adds) { RunAdd<TypeParam, 16, 16>(How::Launch); }
