// ptosim C++ front end: the few AscendC runtime queries that PTO demo kernels use.
// Own code, written for ptosim; no vendor code.
#pragma once
#include "ptosim_shim/pto.hpp"

namespace AscendC {
inline int64_t GetBlockNum() { return ptosim::st().blocks; }
inline int64_t GetBlockIdx() { return ptosim::st().block; }
inline int64_t GetSubBlockIdx() { return 0; }
} // namespace AscendC
