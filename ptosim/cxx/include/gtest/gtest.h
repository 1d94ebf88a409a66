// ptosim C++ front end: the googletest API that kernel tests use, so that a test's main.cpp runs
// unchanged inside the simulator (`ptosim test` runs each case in its own process). Own code, no
// vendor code. Covered: TEST, TEST_F, value-parameterised tests (TEST_P, INSTANTIATE_TEST_SUITE_P
// with Values, ValuesIn, Range, Bool, Combine and a name generator), typed tests (TYPED_TEST_SUITE,
// TYPED_TEST), the EXPECT_* / ASSERT_* checks, GTEST_SKIP, FAIL, SUCCEED, SCOPED_TRACE, suite
// set-up / tear-down. Case names follow googletest: Suite.Name, Prefix/Suite.Name/3,
// Suite/0.Name.
#pragma once

// the standard headers googletest's own gtest.h brings in (<map>, <set>, <limits>, <ostream>,
// <iomanip> ...): a test's main.cpp may use them without including them
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
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
    static bool HasFailure();
    static bool HasFatalFailure() { return HasFailure(); }
    static bool IsSkipped();
};
class TestInfo {
public:
    std::string suite_, name_, type_param_, value_param_;
    const char *name() const { return name_.c_str(); }
    const char *test_suite_name() const { return suite_.c_str(); }
    const char *test_case_name() const { return suite_.c_str(); }
    const char *type_param() const { return type_param_.empty() ? nullptr : type_param_.c_str(); }
    const char *value_param() const { return value_param_.empty() ? nullptr : value_param_.c_str(); }
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
class Environment {
public:
    virtual ~Environment() = default;
    virtual void SetUp() {}
    virtual void TearDown() {}
};
inline Environment *AddGlobalTestEnvironment(Environment *env) { return env; }
inline void InitGoogleTest(int *, char **) {}
inline void InitGoogleTest() {}
class Message {
public:
    Message() = default;
    Message(const Message &o) { s << o.s.str(); }
    template <class T>
    Message &operator<<(const T &v)
    {
        s << v;
        return *this;
    }
    std::string GetString() const { return s.str(); }
    std::ostringstream s;
};
// whether `os << v` compiles (C++17 detection: NPU units build as C++17, as the library's CMake)
template <class T, class = void>
struct Printable : std::false_type {};
template <class T>
struct Printable<T, std::void_t<decltype(std::declval<std::ostream &>() << std::declval<const T &>())>>
    : std::true_type {};
template <class T>
std::string PrintToString(const T &v)
{
    std::ostringstream s;
    if constexpr (std::is_same_v<T, bool>) s << (v ? "true" : "false");
    else if constexpr (std::is_enum_v<T>) s << static_cast<long long>(v);
    else if constexpr (Printable<T>::value) s << v;
    else s << "<" << sizeof(T) << "-byte object>";
    return s.str();
}

// ---- value-parameterised tests ------------------------------------------------------------------
template <class T>
class WithParamInterface {
public:
    using ParamType = T;
    virtual ~WithParamInterface() = default;
    static const T &GetParam() { return *current_(); }
    static const T *&current_()
    {
        static const T *p = nullptr;
        return p;
    }
};
template <class T>
class TestWithParam : public Test, public WithParamInterface<T> {};
template <class T>
struct TestParamInfo {
    T param;
    size_t index;
};
struct PrintToStringParamName {
    template <class T>
    std::string operator()(const TestParamInfo<T> &info) const
    {
        return PrintToString(info.param);
    }
};

// generators: objects that convert to std::vector<ParamType>
template <class... V>
struct ValueArray {
    std::tuple<V...> values;
    template <class T>
    operator std::vector<T>() const
    {
        return std::apply([](const auto &...v) { return std::vector<T>{static_cast<T>(v)...}; }, values);
    }
};
template <class... V>
ValueArray<V...> Values(V... v)
{
    return {std::tuple<V...>(v...)};
}
template <class C>
auto ValuesIn(const C &c)
{
    using T = std::decay_t<decltype(*std::begin(c))>;
    return std::vector<T>(std::begin(c), std::end(c));
}
template <class T, class S = T>
std::vector<T> Range(T begin, T end, S step = 1)
{
    std::vector<T> out;
    for (T v = begin; v < end; v = v + step) out.push_back(v);
    return out;
}
inline std::vector<bool> Bool() { return {false, true}; }
template <class... G>
struct CombineHolder {
    std::tuple<G...> gens;
    template <class... T>
    operator std::vector<std::tuple<T...>>() const
    {
        std::tuple<std::vector<T>...> lists = std::apply(
            [](const auto &...g) { return std::tuple<std::vector<T>...>(static_cast<std::vector<T>>(g)...); }, gens);
        std::vector<std::tuple<T...>> out;
        combine<0>(lists, std::tuple<T...>{}, out);
        return out;
    }
    template <size_t I, class L, class Cur, class Out>
    static void combine(const L &lists, Cur cur, Out &out)
    {
        if constexpr (I == std::tuple_size_v<L>) {
            out.push_back(cur);
        } else {
            for (const auto &v : std::get<I>(lists)) {
                std::get<I>(cur) = v;
                combine<I + 1>(lists, cur, out);
            }
        }
    }
};
template <class... G>
CombineHolder<G...> Combine(G... g)
{
    return {std::tuple<G...>(g...)};
}

// ---- typed tests ---------------------------------------------------------------------------------
template <class... T>
struct Types {};
} // namespace testing

namespace ptosim_gtest {
struct Entry {
    std::string suite, name, type_param, value_param;
    std::function<testing::Test *()> make;
    std::function<void()> suite_set_up, suite_tear_down;
    std::string full_name() const { return suite + "." + name; }
    testing::TestInfo info() const { return testing::TestInfo{suite, name, type_param, value_param}; }
};
// fixed entries (TEST, TEST_F, TYPED_TEST) and the expanders of parameterised suites, expanded
// when the list is first asked for (like googletest, whatever the order of TEST_P and
// INSTANTIATE_TEST_SUITE_P)
inline std::vector<Entry> &fixed()
{
    static std::vector<Entry> r;
    return r;
}
inline std::vector<std::function<void(std::vector<Entry> &)>> &expanders()
{
    static std::vector<std::function<void(std::vector<Entry> &)>> r;
    return r;
}
inline std::vector<Entry> &registry()
{
    static std::vector<Entry> r;
    static bool built = false;
    if (!built) {
        built = true;
        r = fixed();
        for (auto &expand : expanders()) expand(r);
    }
    return r;
}
// TestClass: a class the macros define, whose public ptosim_suite_up / _down reach the fixture's
// (possibly protected) SetUpTestSuite / TearDownTestSuite
template <class TestClass>
Entry make_entry(const char *suite, const char *name, std::function<testing::Test *()> make)
{
    return Entry{suite, name, "", "", std::move(make), [] { TestClass::ptosim_suite_up(); },
                 [] { TestClass::ptosim_suite_down(); }};
}
#define PTOSIM_GTEST_SUITE_HOOKS(Base)                                                              \
    static void ptosim_suite_up()                                                                  \
    {                                                                                              \
        Base::SetUpTestSuite();                                                                    \
        Base::SetUpTestCase();                                                                     \
    }                                                                                              \
    static void ptosim_suite_down()                                                                \
    {                                                                                              \
        Base::TearDownTestCase();                                                                  \
        Base::TearDownTestSuite();                                                                 \
    }
template <class Suite>
int reg(const char *suite, const char *name, std::function<testing::Test *()> make)
{
    fixed().push_back(make_entry<Suite>(suite, name, std::move(make)));
    return 0;
}
inline bool &current_failed()
{
    static bool f = false;
    return f;
}
inline bool &current_skipped()
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
struct Skip {
    void operator=(const testing::Message &m) const
    {
        current_skipped() = true;
        std::printf("[  SKIPPED ] %s\n", m.s.str().c_str());
        std::fflush(stdout);
    }
};
inline void run(const Entry &e)
{
    current_skipped() = false;
    if (e.suite_set_up) e.suite_set_up();
    testing::Test *t = e.make();
    t->SetUp();
    if (!current_skipped() && !current_failed()) t->TestBody();
    t->TearDown();
    delete t;
    if (e.suite_tear_down) e.suite_tear_down();
}
template <class A, class B>
std::string cmp_text(const char *op, const char *ea, const char *eb, const A &a, const B &b)
{
    std::ostringstream s;
    s << "Expected: (" << ea << ") " << op << " (" << eb << "), actual: " << testing::PrintToString(a) << " vs "
      << testing::PrintToString(b);
    return s.str();
}
// EXPECT_FLOAT_EQ / EXPECT_DOUBLE_EQ: equal within 4 units in the last place (NaN never equal)
template <class F, class U>
bool almost_equal(F a, F b)
{
    if (std::isnan(a) || std::isnan(b)) return false;
    U ua, ub;
    std::memcpy(&ua, &a, sizeof a);
    std::memcpy(&ub, &b, sizeof b);
    const U sign = U(1) << (sizeof(U) * 8 - 1);
    ua = (ua & sign) ? ~ua + 1 : ua | sign;  // sign-magnitude -> biased, so order is integer order
    ub = (ub & sign) ? ~ub + 1 : ub | sign;
    return (ua > ub ? ua - ub : ub - ua) <= 4;
}
template <class Suite>
struct ParamSuite {
    using P = typename Suite::ParamType;
    struct Pattern {
        std::string name;
        std::function<testing::Test *()> make;
        std::function<void()> up, down;
    };
    struct Inst {
        std::string prefix;
        std::vector<P> params;
        std::function<std::string(const testing::TestParamInfo<P> &)> namer;
    };
    static std::vector<Pattern> &patterns()
    {
        static std::vector<Pattern> v;
        return v;
    }
    static std::vector<Inst> &insts()
    {
        static std::vector<Inst> v;
        return v;
    }
    static void ensure_expander(const char *suite)
    {
        static bool added = false;
        if (added) return;
        added = true;
        std::string s = suite;
        expanders().push_back([s](std::vector<Entry> &out) {
            for (const auto &inst : insts()) {
                for (const auto &pat : patterns()) {
                    for (size_t i = 0; i < inst.params.size(); ++i) {
                        std::string tail = inst.namer ? inst.namer(testing::TestParamInfo<P>{inst.params[i], i})
                                                      : std::to_string(i);
                        std::string full_suite = inst.prefix.empty() ? s : inst.prefix + "/" + s;
                        auto make = pat.make;
                        auto param = std::make_shared<P>(inst.params[i]);
                        Entry e{"", "", "", "", [make, param]() {
                                    testing::WithParamInterface<P>::current_() = param.get();
                                    return make();
                                }, pat.up, pat.down};
                        e.suite = full_suite;
                        e.name = pat.name + "/" + tail;
                        e.value_param = testing::PrintToString(inst.params[i]);
                        out.push_back(std::move(e));
                    }
                }
            }
        });
    }
};
template <class Suite, class TestClass>
int reg_pattern(const char *suite, const char *name, std::function<testing::Test *()> make)
{
    ParamSuite<Suite>::patterns().push_back(
        {name, std::move(make), [] { TestClass::ptosim_suite_up(); }, [] { TestClass::ptosim_suite_down(); }});
    ParamSuite<Suite>::ensure_expander(suite);
    return 0;
}
template <class Suite, class G>
int instantiate(const char *prefix, const char *suite, const G &gen)
{
    using P = typename Suite::ParamType;
    ParamSuite<Suite>::insts().push_back({prefix, static_cast<std::vector<P>>(gen), nullptr});
    ParamSuite<Suite>::ensure_expander(suite);
    return 0;
}
template <class Suite, class G, class N>
int instantiate(const char *prefix, const char *suite, const G &gen, N namer)
{
    using P = typename Suite::ParamType;
    ParamSuite<Suite>::insts().push_back({prefix, static_cast<std::vector<P>>(gen), namer});
    ParamSuite<Suite>::ensure_expander(suite);
    return 0;
}
template <class L>
struct TypeListOf;
template <class... T>
struct TypeListOf<testing::Types<T...>> {
    using type = testing::Types<T...>;
};
template <class T>
std::string type_name()
{
    return typeid(T).name();
}
template <template <class> class TestT, class... T>
int reg_typed_each(const char *suite, const char *name, testing::Types<T...>)
{
    size_t i = 0;
    (
        [&] {
            Entry e = make_entry<TestT<T>>("", "", [] { return static_cast<testing::Test *>(new TestT<T>); });
            e.suite = std::string(suite) + "/" + std::to_string(i++);
            e.name = name;
            e.type_param = type_name<T>();
            fixed().push_back(std::move(e));
        }(),
        ...);
    return 0;
}
} // namespace ptosim_gtest

inline bool testing::Test::HasFailure() { return ptosim_gtest::current_failed(); }
inline bool testing::Test::IsSkipped() { return ptosim_gtest::current_skipped(); }

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
#define ASSERT_LT(a, b) PTOSIM_GTEST_CMP(a, b, <, return)
#define ASSERT_LE(a, b) PTOSIM_GTEST_CMP(a, b, <=, return)
#define ASSERT_GT(a, b) PTOSIM_GTEST_CMP(a, b, >, return)
#define ASSERT_GE(a, b) PTOSIM_GTEST_CMP(a, b, >=, return)
#define PTOSIM_GTEST_NEAR(a, b, eps, on_fail) \
    PTOSIM_GTEST_CHECK(std::fabs((double)(a) - (double)(b)) <= (double)(eps), "Expected near: " #a ", " #b, on_fail)
#define EXPECT_NEAR(a, b, eps) PTOSIM_GTEST_NEAR(a, b, eps, )
#define ASSERT_NEAR(a, b, eps) PTOSIM_GTEST_NEAR(a, b, eps, return)
#define EXPECT_FLOAT_EQ(a, b) \
    PTOSIM_GTEST_CHECK((::ptosim_gtest::almost_equal<float, uint32_t>((float)(a), (float)(b))), "Expected float equality: " #a ", " #b, )
#define ASSERT_FLOAT_EQ(a, b) \
    PTOSIM_GTEST_CHECK((::ptosim_gtest::almost_equal<float, uint32_t>((float)(a), (float)(b))), "Expected float equality: " #a ", " #b, return)
#define EXPECT_DOUBLE_EQ(a, b) \
    PTOSIM_GTEST_CHECK((::ptosim_gtest::almost_equal<double, uint64_t>((double)(a), (double)(b))), "Expected double equality: " #a ", " #b, )
#define ASSERT_DOUBLE_EQ(a, b) \
    PTOSIM_GTEST_CHECK((::ptosim_gtest::almost_equal<double, uint64_t>((double)(a), (double)(b))), "Expected double equality: " #a ", " #b, return)
#define EXPECT_STREQ(a, b) PTOSIM_GTEST_CHECK(std::strcmp((a), (b)) == 0, "Expected equal strings: " #a ", " #b, )
#define EXPECT_STRNE(a, b) PTOSIM_GTEST_CHECK(std::strcmp((a), (b)) != 0, "Expected different strings: " #a ", " #b, )
#define ASSERT_STREQ(a, b) PTOSIM_GTEST_CHECK(std::strcmp((a), (b)) == 0, "Expected equal strings: " #a ", " #b, return)
#define PTOSIM_GTEST_THROWS(stmt, exc, on_fail)                                                       \
    PTOSIM_GTEST_CHECK(([&] { try { stmt; } catch (const exc &) { return true; } catch (...) { return false; } \
                              return false; }()), "Expected: " #stmt " throws " #exc, on_fail)
#define EXPECT_THROW(stmt, exc) PTOSIM_GTEST_THROWS(stmt, exc, )
#define ASSERT_THROW(stmt, exc) PTOSIM_GTEST_THROWS(stmt, exc, return)
#define EXPECT_ANY_THROW(stmt) PTOSIM_GTEST_CHECK(([&] { try { stmt; } catch (...) { return true; } return false; }()), "Expected: " #stmt " throws", )
#define EXPECT_NO_THROW(stmt) PTOSIM_GTEST_CHECK(([&] { try { stmt; } catch (...) { return false; } return true; }()), "Expected: " #stmt " does not throw", )
#define ASSERT_NO_THROW(stmt) PTOSIM_GTEST_CHECK(([&] { try { stmt; } catch (...) { return false; } return true; }()), "Expected: " #stmt " does not throw", return)
#define ADD_FAILURE() ::ptosim_gtest::Failure{__FILE__, __LINE__, "Failed"} = ::testing::Message()
#define FAIL() return ADD_FAILURE()
#define SUCCEED() ((void)0)
#define GTEST_SKIP() return ::ptosim_gtest::Skip{} = ::testing::Message()
#define SCOPED_TRACE(message) ((void)0)

#define PTOSIM_GTEST_DEFINE(Suite, Name, Base)                                                        \
    class Suite##_##Name##_Test : public Base {                                                       \
    public:                                                                                            \
        void TestBody() override;                                                                      \
        PTOSIM_GTEST_SUITE_HOOKS(Base)                                                                 \
    };                                                                                                 \
    static int Suite##_##Name##_registered [[maybe_unused]] = ::ptosim_gtest::reg<Suite##_##Name##_Test>( \
        #Suite, #Name, []() -> ::testing::Test * { return new Suite##_##Name##_Test; });               \
    void Suite##_##Name##_Test::TestBody()

#define TEST_F(Suite, Name) PTOSIM_GTEST_DEFINE(Suite, Name, Suite)
#define TEST(Suite, Name) PTOSIM_GTEST_DEFINE(Suite, Name, ::testing::Test)

#define TEST_P(Suite, Name)                                                                           \
    class Suite##_##Name##_Test : public Suite {                                                      \
    public:                                                                                            \
        void TestBody() override;                                                                      \
        PTOSIM_GTEST_SUITE_HOOKS(Suite)                                                                \
    };                                                                                                 \
    static int Suite##_##Name##_registered [[maybe_unused]] =                                          \
        ::ptosim_gtest::reg_pattern<Suite, Suite##_##Name##_Test>(                                     \
        #Suite, #Name, []() -> ::testing::Test * { return new Suite##_##Name##_Test; });               \
    void Suite##_##Name##_Test::TestBody()
#define INSTANTIATE_TEST_SUITE_P(Prefix, Suite, ...)                                                  \
    static int Prefix##_##Suite##_instantiated [[maybe_unused]] =                                      \
        ::ptosim_gtest::instantiate<Suite>(#Prefix, #Suite, __VA_ARGS__)
#define INSTANTIATE_TEST_CASE_P INSTANTIATE_TEST_SUITE_P

#define TYPED_TEST_SUITE(Suite, TypeList, ...) \
    typedef ::ptosim_gtest::TypeListOf<TypeList>::type Suite##_ptosim_types
#define TYPED_TEST_CASE TYPED_TEST_SUITE
#define TYPED_TEST(Suite, Name)                                                                       \
    template <class gtest_TypeParam_>                                                                 \
    class Suite##_##Name##_Test : public Suite<gtest_TypeParam_> {                                    \
    public:                                                                                            \
        typedef Suite<gtest_TypeParam_> TestFixture;                                                   \
        typedef gtest_TypeParam_ TypeParam;                                                            \
        void TestBody() override;                                                                      \
        PTOSIM_GTEST_SUITE_HOOKS(TestFixture)                                                          \
    };                                                                                                 \
    static int Suite##_##Name##_registered [[maybe_unused]] =                                          \
        ::ptosim_gtest::reg_typed_each<Suite##_##Name##_Test>(#Suite, #Name, Suite##_ptosim_types{});  \
    template <class gtest_TypeParam_>                                                                 \
    void Suite##_##Name##_Test<gtest_TypeParam_>::TestBody()

#define RUN_ALL_TESTS() 0
