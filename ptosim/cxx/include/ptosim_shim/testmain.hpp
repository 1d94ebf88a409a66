// ptosim C++ front end: the extern "C" test runner of `ptosim test` (gtest cases of main.cpp, or a
// program's own main()). Own code, written for ptosim; no vendor code.
#pragma once

#include "entry.hpp"
#include "acl/acl.h"
#include "gtest/gtest.h"

namespace ptosim {
inline int &main_status()
{
    static int status = 0;
    return status;
}
// after a case: free the deferred host buffers; map run_entry's code to the runner's
inline int finish_case(int rc)
{
    testing::UnitTest::GetInstance()->current = nullptr;
    for (void *p : deferred_free()) std::free(p);
    deferred_free().clear();
    if (rc == 1) return 2;
    if (rc == 3) return 3;
    if (rc != 0) return 4;
    return ptosim_gtest::current_failed() ? 1 : 0;
}
} // namespace ptosim

extern "C" {
__attribute__((visibility("default"))) int ptosim_test_count() { return (int)ptosim_gtest::registry().size(); }
__attribute__((visibility("default"))) const char *ptosim_test_name(int i)
{
    static std::string name;
    name = ptosim_gtest::registry()[i].full_name();
    return name.c_str();
}
// 0: passed, 1: a gtest check failed, 2: ptosim stopped it (error stored on the Python side),
// 3: raw access fault, 4: another C++ exception
__attribute__((visibility("default"))) int ptosim_test_run(int i)
{
    const auto &e = ptosim_gtest::registry()[i];
    testing::TestInfo info = e.info();
    testing::UnitTest::GetInstance()->current = &info;
    ptosim_gtest::current_failed() = false;
    auto body = [&e](const uint64_t *) { ptosim_gtest::run(e); };
    return ptosim::finish_case(ptosim::run_entry(body, nullptr));
}
// The program's own main() (a folder without gtest cases): as ptosim_test_run, and 5 when main
// returned non-zero (ptosim_main_status() tells the value).
__attribute__((visibility("default"))) int ptosim_run_main(void *fn)
{
    using Main = int (*)(int, char **);
    static char prog[] = "test";
    static char *argv[] = {prog, nullptr};
    ptosim_gtest::current_failed() = false;
    ptosim::main_status() = 0;
    auto body = [fn](const uint64_t *) { ptosim::main_status() = ((Main)fn)(1, argv); };
    int rc = ptosim::finish_case(ptosim::run_entry(body, nullptr));
    return (rc == 0 && ptosim::main_status() != 0) ? 5 : rc;
}
__attribute__((visibility("default"))) int ptosim_main_status() { return ptosim::main_status(); }
}
