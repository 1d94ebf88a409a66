// ptosim C++ front end: the extern "C" test runner of `ptosim test` (gtest cases of main.cpp).
// Own code, written for ptosim; no vendor code.
#pragma once

#include "entry.hpp"
#include "acl/acl.h"
#include "gtest/gtest.h"

extern "C" {
__attribute__((visibility("default"))) int ptosim_test_count() { return (int)ptosim_gtest::registry().size(); }
__attribute__((visibility("default"))) const char *ptosim_test_name(int i)
{
    static std::string name;
    const auto &e = ptosim_gtest::registry()[i];
    name = e.suite + "." + e.name;
    return name.c_str();
}
// 0: passed, 1: a gtest check failed, 2: ptosim stopped it (error stored on the Python side),
// 3: raw access fault, 4: another C++ exception
__attribute__((visibility("default"))) int ptosim_test_run(int i)
{
    const auto &e = ptosim_gtest::registry()[i];
    testing::TestInfo info{e.suite, e.name};
    testing::UnitTest::GetInstance()->current = &info;
    ptosim_gtest::current_failed() = false;
    auto body = [&e](const uint64_t *) {
        testing::Test *t = e.make();
        t->SetUp();
        t->TestBody();
        t->TearDown();
        delete t;
    };
    int rc = ptosim::run_entry(body, nullptr);
    testing::UnitTest::GetInstance()->current = nullptr;
    for (void *p : ptosim::deferred_free()) std::free(p);
    ptosim::deferred_free().clear();
    if (rc == 1) return 2;
    if (rc == 3) return 3;
    if (rc != 0) return 4;
    return ptosim_gtest::current_failed() ? 1 : 0;
}
}
