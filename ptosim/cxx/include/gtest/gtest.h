// ptosim C++ front end: the subset of the googletest API that kernel tests use, so that a
// test's main.cpp runs unchanged inside the simulator's process. Own code, no vendor code.
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace testing {
class Test {
public:
    virtual ~Test() = default;
    virtual void SetUp() {}
    virtual void TearDown() {}
    virtual void TestBody() = 0;
    static void SetUpTestCase() {}
    static void TearDownTestCase() {}
    static void SetUpTestSuite() {}
    static void TearDownTestSuite() {}
};
class TestInfo {
public:
    std::string suite_, name_;
    const char *name() const { return name_.c_str(); }
    const char *test_suite_name() const { return suite_.c_str(); }
    const char *test_case_name() const { return suite_.c_str(); }
};
class UnitTest {
public:
    static UnitTest *GetInstance()
    {
        static UnitTest u;
        return &u;
    }
    const TestInfo *current_test_info() const { return current; }
    TestInfo *current = nullptr;
};
inline void InitGoogleTest(int *, char **) {}
inline void InitGoogleTest() {}
class Message {
public:
    template <class T>
    Message &operator<<(const T &v)
    {
        s << v;
        return *this;
    }
    std::ostringstream s;
};
} // namespace testing

namespace ptosim_gtest {
struct Entry {
    std::string suite, name;
    std::function<testing::Test *()> make;
};
inline std::vector<Entry> &registry()
{
    static std::vector<Entry> r;
    return r;
}
inline int reg(const char *suite, const char *name, std::function<testing::Test *()> make)
{
    registry().push_back({suite, name, std::move(make)});
    return 0;
}
inline bool &current_failed()
{
    static bool f = false;
    return f;
}
struct Failure {
    const char *file;
    int line;
    std::string what;
    void operator=(const testing::Message &m) const
    {
        current_failed() = true;
        std::printf("%s:%d: Failure\n%s %s\n", file, line, what.c_str(), m.s.str().c_str());
        std::fflush(stdout);
    }
};
template <class A, class B>
std::string cmp_text(const char *op, const char *ea, const char *eb, const A &a, const B &b)
{
    std::ostringstream s;
    s << "Expected: (" << ea << ") " << op << " (" << eb << "), actual: " << a << " vs " << b;
    return s.str();
}
} // namespace ptosim_gtest

#define PTOSIM_GTEST_CHECK(cond, text, on_fail) \
    if (cond)                                    \
        ;                                        \
    else                                         \
        on_fail ::ptosim_gtest::Failure{__FILE__, __LINE__, text} = ::testing::Message()

#define EXPECT_TRUE(c) PTOSIM_GTEST_CHECK(bool(c), "Expected: " #c " is true", )
#define EXPECT_FALSE(c) PTOSIM_GTEST_CHECK(!bool(c), "Expected: " #c " is false", )
#define ASSERT_TRUE(c) PTOSIM_GTEST_CHECK(bool(c), "Expected: " #c " is true", return)
#define ASSERT_FALSE(c) PTOSIM_GTEST_CHECK(!bool(c), "Expected: " #c " is false", return)
#define PTOSIM_GTEST_CMP(a, b, op, on_fail) \
    PTOSIM_GTEST_CHECK((a)op(b), ::ptosim_gtest::cmp_text(#op, #a, #b, (a), (b)), on_fail)
#define EXPECT_EQ(a, b) PTOSIM_GTEST_CMP(a, b, ==, )
#define EXPECT_NE(a, b) PTOSIM_GTEST_CMP(a, b, !=, )
#define EXPECT_LT(a, b) PTOSIM_GTEST_CMP(a, b, <, )
#define EXPECT_LE(a, b) PTOSIM_GTEST_CMP(a, b, <=, )
#define EXPECT_GT(a, b) PTOSIM_GTEST_CMP(a, b, >, )
#define EXPECT_GE(a, b) PTOSIM_GTEST_CMP(a, b, >=, )
#define ASSERT_EQ(a, b) PTOSIM_GTEST_CMP(a, b, ==, return)
#define ASSERT_NE(a, b) PTOSIM_GTEST_CMP(a, b, !=, return)
#define EXPECT_NEAR(a, b, eps) PTOSIM_GTEST_CHECK(std::fabs((double)(a) - (double)(b)) <= (eps), "Expected near: " #a ", " #b, )
#define EXPECT_FLOAT_EQ(a, b) EXPECT_NEAR(a, b, 1e-6 * std::fabs((double)(b)) + 1e-30)

#define PTOSIM_GTEST_DEFINE(Suite, Name, Base)                                                     \
    class Suite##_##Name##_Test : public Base {                                                   \
    public:                                                                                        \
        void TestBody() override;                                                                  \
    };                                                                                             \
    static int Suite##_##Name##_registered [[maybe_unused]] = ::ptosim_gtest::reg(                  \
        #Suite, #Name, []() -> ::testing::Test * { return new Suite##_##Name##_Test; });           \
    void Suite##_##Name##_Test::TestBody()

#define TEST_F(Suite, Name) PTOSIM_GTEST_DEFINE(Suite, Name, Suite)
#define TEST(Suite, Name) PTOSIM_GTEST_DEFINE(Suite, Name, ::testing::Test)
#define RUN_ALL_TESTS() 0
