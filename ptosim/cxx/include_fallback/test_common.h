// ptosim C++ front end: stands in for the test_common.h of the library's test tree when the test
// folder is not inside a pto-isa checkout (`ptosim test` puts a checkout's own tests/common first).
// Own code, written for ptosim: the helpers keep the names and the comparison rule main.cpp files
// rely on (an element is wrong when its absolute and its relative error both exceed eps, or when
// exactly one of expected / actual is NaN; the comparison fails when more elements are wrong than
// the threshold, by default size * eps, or when too many expected non-zeros came out as zero).
#pragma once

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include "acl/acl.h"
#include <pto/common/type.hpp>

namespace PtoTestCommon {

#define INFO_LOG(fmt, args...) fprintf(stdout, "[INFO]  " fmt "\n", ##args)
#define WARN_LOG(fmt, args...) fprintf(stdout, "[WARN]  " fmt "\n", ##args)
#define ERROR_LOG(fmt, args...) fprintf(stdout, "[ERROR]  " fmt "\n", ##args)

#define PAD_VALUE_NULL (-100)
#define PAD_VALUE_MAX (1)
#define PAD_VALUE_MIN (-1)

#define CHECK_RESULT_GTEST(x) \
    if (!(x))                 \
        ASSERT_TRUE(false);

// the element type codes PrintData takes
enum printDataType {
    DT_UNDEFINED = -1, FLOAT = 0, HALF = 1, INT8_T = 2, INT32_T = 3, UINT8_T = 4, INT16_T = 6,
    UINT16_T = 7, UINT32_T = 8, INT64_T = 9, UINT64_T = 10, DOUBLE = 11, BOOL = 12, STRING = 13,
    COMPLEX64 = 16, COMPLEX128 = 17, BF16 = 27
};

// read a whole regular, non-empty file of at most bufferSize bytes into buffer
inline bool ReadFile(const std::string &filePath, size_t &fileSize, void *buffer, size_t bufferSize)
{
    struct stat st;
    if (stat(filePath.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        ERROR_LOG("no such file: %s", filePath.c_str());
        return false;
    }
    size_t size = size_t(st.st_size);
    if (size == 0 || size > bufferSize) {
        ERROR_LOG("%s: %zu bytes, the buffer holds %zu", filePath.c_str(), size, bufferSize);
        return false;
    }
    std::ifstream in(filePath, std::ios::binary);
    if (!in.read(static_cast<char *>(buffer), std::streamsize(size))) {
        ERROR_LOG("cannot read %s", filePath.c_str());
        return false;
    }
    fileSize = size;
    return true;
}

inline bool WriteFile(const std::string &filePath, const void *buffer, size_t size)
{
    if (buffer == nullptr) return false;
    std::ofstream out(filePath, std::ios::binary | std::ios::trunc);
    if (!out.write(static_cast<const char *>(buffer), std::streamsize(size))) {
        ERROR_LOG("cannot write %s", filePath.c_str());
        return false;
    }
    return true;
}

template <typename T>
void DoPrintData(const T *data, size_t count, size_t elementsPerRow)
{
    for (size_t i = 0; i < count; ++i) {
        std::cout << data[i] << ((i + 1) % elementsPerRow == 0 ? "\n" : " ");
    }
}

inline void PrintData(const void *data, size_t count, printDataType dataType, size_t elementsPerRow = 16)
{
    switch (dataType) {
        case FLOAT: DoPrintData(static_cast<const float *>(data), count, elementsPerRow); break;
        case INT32_T: DoPrintData(static_cast<const int32_t *>(data), count, elementsPerRow); break;
        case INT16_T: DoPrintData(static_cast<const int16_t *>(data), count, elementsPerRow); break;
        case UINT32_T: DoPrintData(static_cast<const uint32_t *>(data), count, elementsPerRow); break;
        case INT64_T: DoPrintData(static_cast<const int64_t *>(data), count, elementsPerRow); break;
        default: std::cout << "(ptosim: PrintData of type code " << int(dataType) << " not shown)";
    }
    std::cout << std::endl;
}

// integer outputs compared exactly
template <typename T>
bool ResultCmpExact(const std::vector<T> &expected, const T *actual)
{
    size_t wrong = 0;
    for (size_t i = 0; i < expected.size(); ++i) wrong += expected[i] != actual[i];
    std::cout << "exact compare: " << wrong << " of " << expected.size() << " elements differ" << std::endl;
    return wrong == 0;
}

template <typename T>
bool ResultCmp(const std::vector<T> &expected, const T *actual, float eps, size_t threshold = 0,
               size_t zeroCountThreshold = 1000, bool printAll = false, bool printErr = false, size_t testNum = 0)
{
    (void)testNum;
    const size_t n = expected.size();
    if (threshold == 0) threshold = size_t(double(n) * eps);
    size_t wrong = 0, zeros = 0;
    for (size_t i = 0; i < n; ++i) {
        const float e = static_cast<float>(expected[i]);
        const float a = static_cast<float>(actual[i]);
        const float diff = std::fabs(e - a);
        const float rel = std::fabs(diff / e);
        if (std::fabs(a) <= 1e-6f && std::fabs(e) > 1e-6f) ++zeros;
        const bool bad = (diff > eps && rel > eps) || std::isnan(e) != std::isnan(a) || zeros > zeroCountThreshold;
        wrong += bad;
        if (printAll || (bad && printErr)) {
            std::cout << "idx " << i << ": expected " << e << ", actual " << a << (bad ? " [ERROR]" : "") << std::endl;
        }
    }
    std::cout << "compare: " << wrong << " of " << n << " elements off by more than " << eps << " (allowed "
              << threshold << "), " << zeros << " unexpected zeros" << std::endl;
    return wrong <= threshold && zeros <= zeroCountThreshold;
}

template <typename T>
bool ResultCmp(const std::vector<T> &expected, const std::vector<T> &actual, float eps, size_t threshold = 0,
               size_t zeroCountThreshold = 1000, bool printAll = false, bool printErr = false, size_t testNum = 0)
{
    if (expected.size() != actual.size()) {
        std::cout << "sizes differ: expected " << expected.size() << ", actual " << actual.size() << std::endl;
        return false;
    }
    return ResultCmp(expected, actual.data(), eps, threshold, zeroCountThreshold, printAll, printErr, testNum);
}

} // namespace PtoTestCommon
