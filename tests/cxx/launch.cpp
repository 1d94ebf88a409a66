// tests/cxx/test_build.py: a macro-generated <<<>>> launch and device inline assembly compile.
#include <pto/pto-inst.hpp>
#define CAT(a, b) a##b
#define KNAME(x) CAT(kern_, x)
__global__ AICORE void kern_one(__gm__ float *x) { asm volatile("ptosim_no_such_insn %0" ::"r"(x)); }
extern "C" void host(__gm__ float *x)
{
    KNAME(one)<<<1, nullptr, nullptr>>>(x);  // @launch
}
