// ptosim C++ front end: stands in for the partarg_test_utils.hpp of the library's test tree when the
// test folder is not inside a pto-isa checkout. Own code, written for ptosim: the host steps of the
// TPARTARGMAX / TPARTARGMIN tests (load inputs to device memory, run, compare values and indices).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "test_common.h"

namespace pto {

template <typename T>
void AllocateAndLoadData(T *&host, T *&device, size_t size, const std::string &filename)
{
    aclrtMallocHost((void **)(&host), size);
    aclrtMalloc((void **)&device, size, ACL_MEM_MALLOC_HUGE_FIRST);
    size_t got = 0;
    CHECK_RESULT_GTEST(PtoTestCommon::ReadFile(filename, got, host, size));
    aclrtMemcpy(device, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE);
}

template <typename LaunchFunc>
void RunPartArgKernelAndGetResults(LaunchFunc launchFunc, aclrtStream stream, float *dstValDevice,
                                   float *src0ValDevice, float *src1ValDevice, uint32_t *dstIdxDevice,
                                   uint32_t *src0IdxDevice, uint32_t *src1IdxDevice, float *dstValHost,
                                   uint32_t *dstIdxHost, size_t valSize, size_t idxSize)
{
    launchFunc(dstValDevice, src0ValDevice, src1ValDevice, dstIdxDevice, src0IdxDevice, src1IdxDevice, stream);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(dstValHost, valSize, dstValDevice, valSize, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(dstIdxHost, idxSize, dstIdxDevice, idxSize, ACL_MEMCPY_DEVICE_TO_HOST);
}

// values within epsilon, indices exactly, against golden_{val,idx}.bin next to output_{val,idx}.bin
inline bool VerifyPartArgResults(const std::string &dir, size_t valSize, size_t idxSize, int rows, int cols,
                                 float epsilon)
{
    const size_t n = size_t(rows) * size_t(cols);
    std::vector<float> goldVal(n), outVal(n);
    std::vector<uint32_t> goldIdx(n), outIdx(n);
    size_t got = 0;
    PtoTestCommon::ReadFile(dir + "/golden_val.bin", got, goldVal.data(), valSize);
    PtoTestCommon::ReadFile(dir + "/output_val.bin", got, outVal.data(), valSize);
    PtoTestCommon::ReadFile(dir + "/golden_idx.bin", got, goldIdx.data(), idxSize);
    PtoTestCommon::ReadFile(dir + "/output_idx.bin", got, outIdx.data(), idxSize);
    return PtoTestCommon::ResultCmp<float>(goldVal, outVal, epsilon) &&
           PtoTestCommon::ResultCmp<uint32_t>(goldIdx, outIdx, 0.0f);
}

} // namespace pto
