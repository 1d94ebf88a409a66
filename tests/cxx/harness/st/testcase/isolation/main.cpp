// Cases that end badly between cases that pass: each must be that case's failure only, with a
// one-line reason, and the cases after it must still run (ptosim test runs each in its own process).
#include "acl/acl.h"
#include <gtest/gtest.h>

#include <cassert>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

void LaunchTrapKernel(float *out, void *stream);

TEST(Isolation, a_passes) { EXPECT_EQ(1 + 1, 2); }
TEST(Isolation, b_aborts)
{
    std::fprintf(stderr, "about to give up\n");
    std::abort();
}
TEST(Isolation, c_traps) { __builtin_trap(); }  // what -fsanitize-trap / -ftrapv code runs into
static int Deeper(int n)
{
    volatile char frame[4096];
    frame[0] = char(n);
    return Deeper(n + 1) + frame[0];  // no end: the stack overflows into its guard page
}
TEST(Isolation, d_crashes) { EXPECT_NE(Deeper(0), 0); }
TEST(Isolation, e_hangs)
{
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
}
TEST(Isolation, f_throws) { throw std::runtime_error("not handled"); }
TEST(Isolation, g_kernel_traps)
{
    float *d;
    aclrtMalloc((void **)&d, 1024, ACL_MEM_MALLOC_HUGE_FIRST);
    LaunchTrapKernel(d, nullptr);
}
TEST(Isolation, h_passes) { EXPECT_TRUE(true); }
