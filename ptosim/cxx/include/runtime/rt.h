// ptosim C++ front end: the runtime (rt) calls that mixed cube/vector tests use.
// rtGetC2cCtrlAddr hands the host the address of the FFTS control block, which the kernel passes
// to set_ffts_base_addr; ptosim's FFTS flags need no control block (ptosim/engine/ffts.py), so
// the address is 0 and set_ffts_base_addr ignores it.
// Own code, written for ptosim; no vendor code.
#pragma once

#include <cstdint>

typedef int rtError_t;
#define RT_ERROR_NONE 0

inline rtError_t rtGetC2cCtrlAddr(uint64_t *addr, uint32_t *len)
{
    if (addr) *addr = 0;
    if (len) *len = 0;
    return RT_ERROR_NONE;
}
