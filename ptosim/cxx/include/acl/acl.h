// ptosim C++ front end: the host runtime (ACL) calls that kernel tests use (`ptosim test`).
// Device memory is ptosim's GM: aclrtMalloc asks the Python side for a GM buffer and returns its
// address in the reserved GM window (record.hpp), so the test's kernels see it as device memory;
// aclrtMemcpy / aclrtMemset on device addresses are done by the Python side.
// Own code, written for ptosim; no vendor code.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ptosim_shim/types.hpp"

typedef void *aclrtStream;
typedef void *aclrtContext;
typedef int aclError;
typedef _Float16 aclFloat16;
#define ACL_SUCCESS 0
#define ACL_ERROR_NONE 0

enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY };
enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
};

namespace ptosim {
inline bool in_gm(const void *p)
{
    uintptr_t a = (uintptr_t)p, g = gm_base();
    return a >= g && a < g + GM_SPAN;
}
// host frees are deferred to the end of the test case: some tests read a buffer after freeing it
inline std::vector<void *> &deferred_free()
{
    static std::vector<void *> v;
    return v;
}
inline void acl_request(const char *op, long long pc, const std::string &b, void *out = nullptr)
{
    send(op, pc, b, out);
}
} // namespace ptosim

inline aclError aclInit(const char * = nullptr) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline aclError aclrtSetDevice(int) { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int) { return ACL_SUCCESS; }
inline aclError aclrtCreateStream(aclrtStream *s) { if (s) *s = nullptr; return ACL_SUCCESS; }
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }

__attribute__((noinline)) inline aclError aclrtMalloc(void **p, size_t size, aclrtMemMallocPolicy = ACL_MEM_MALLOC_HUGE_FIRST)
{
    std::string b;
    ptosim::jkey(b, "size"); ptosim::juint(b, size);
    uint64_t addr = 0;
    ptosim::acl_request("acl.malloc", ptosim::call_site(__builtin_return_address(0)), b, &addr);
    *p = (void *)(uintptr_t)addr;
    return ACL_SUCCESS;
}
inline aclError aclrtFree(void *) { return ACL_SUCCESS; }  // GM lives until the case ends
inline aclError aclrtMallocHost(void **p, size_t size)
{
    *p = std::calloc(size ? size : 1, 1);
    return ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void *p)
{
    ptosim::deferred_free().push_back(p);
    return ACL_SUCCESS;
}
__attribute__((noinline)) inline aclError aclrtMemcpy(void *dst, size_t dstMax, const void *src, size_t count,
                                                      aclrtMemcpyKind = ACL_MEMCPY_HOST_TO_HOST)
{
    size_t n = std::min(dstMax, count);
    if (!ptosim::in_gm(dst) && !ptosim::in_gm(src)) {
        std::memcpy(dst, src, n);
        return ACL_SUCCESS;
    }
    std::string b;
    ptosim::jkey(b, "dst"); ptosim::juint(b, (uintptr_t)dst);
    ptosim::jkey(b, "src"); ptosim::juint(b, (uintptr_t)src);
    ptosim::jkey(b, "n"); ptosim::juint(b, n);
    ptosim::acl_request("acl.memcpy", ptosim::call_site(__builtin_return_address(0)), b);
    return ACL_SUCCESS;
}
__attribute__((noinline)) inline aclError aclrtMemset(void *dst, size_t dstMax, int value, size_t count)
{
    size_t n = std::min(dstMax, count);
    if (!ptosim::in_gm(dst)) {
        std::memset(dst, value, n);
        return ACL_SUCCESS;
    }
    std::string b;
    ptosim::jkey(b, "dst"); ptosim::juint(b, (uintptr_t)dst);
    ptosim::jkey(b, "value"); ptosim::jint(b, value);
    ptosim::jkey(b, "n"); ptosim::juint(b, n);
    ptosim::acl_request("acl.memset", ptosim::call_site(__builtin_return_address(0)), b);
    return ACL_SUCCESS;
}
// asynchronous forms: a stream runs in order and ptosim simulates each launch when it is made,
// so they are the synchronous calls
inline aclError aclrtMemcpyAsync(void *dst, size_t dstMax, const void *src, size_t count, aclrtMemcpyKind kind,
                                 aclrtStream)
{
    return aclrtMemcpy(dst, dstMax, src, count, kind);
}
inline aclError aclrtMemsetAsync(void *dst, size_t dstMax, int value, size_t count, aclrtStream)
{
    return aclrtMemset(dst, dstMax, value, count);
}
// events and device queries: one simulated device; event timing is not measured on the host
// (the simulated cycles are in ptosim's report)
typedef void *aclrtEvent;
inline aclError aclrtCreateEvent(aclrtEvent *e) { if (e) *e = nullptr; return ACL_SUCCESS; }
inline aclError aclrtCreateEventWithFlag(aclrtEvent *e, uint32_t) { return aclrtCreateEvent(e); }
inline aclError aclrtRecordEvent(aclrtEvent, aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeEvent(aclrtEvent) { return ACL_SUCCESS; }
inline aclError aclrtStreamWaitEvent(aclrtStream, aclrtEvent) { return ACL_SUCCESS; }
inline aclError aclrtEventElapsedTime(float *ms, aclrtEvent, aclrtEvent) { if (ms) *ms = 0.0f; return ACL_SUCCESS; }
inline aclError aclrtDestroyEvent(aclrtEvent) { return ACL_SUCCESS; }
inline aclError aclrtGetDeviceCount(uint32_t *n) { if (n) *n = 1; return ACL_SUCCESS; }
inline aclError aclrtGetDevice(int32_t *d) { if (d) *d = 0; return ACL_SUCCESS; }
inline aclError aclrtCreateContext(aclrtContext *c, int) { if (c) *c = nullptr; return ACL_SUCCESS; }
inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtSetCurrentContext(aclrtContext) { return ACL_SUCCESS; }
inline const char *aclGetRecentErrMsg() { return "ptosim: no device error"; }
inline float aclFloat16ToFloat(aclFloat16 v) { return (float)v; }
inline aclFloat16 aclFloatToFloat16(float v) { return (aclFloat16)v; }
