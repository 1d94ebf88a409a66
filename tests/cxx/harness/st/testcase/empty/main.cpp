// A test program with neither gtest cases nor a main(): ptosim test says so.
#include <gtest/gtest.h>

int helper_only(int x) { return x + 1; }
