// PTO_PREFETCH (the library's pto/npu/kernels/Pto_prefetch.hpp): a host call that warms the L2
// cache with a GM tensor before a kernel runs, by an SDMA cache-maintenance request or a small
// prefetch kernel. It moves no data a kernel can observe, and ptosim has no L2 model (GM
// accesses cost what the timing config says whether or not a tensor was prefetched), so the
// call does nothing here, as in the library's own CPU build.
#pragma once

namespace pto {
template <bool UseSdma = true, int AivCores = -1, typename Stream = void *>
inline void PTO_PREFETCH(__gm__ void *, uint64_t, Stream)
{
    static_assert(UseSdma || AivCores > 0, "PTO_PREFETCH: AivCores must be > 0 when UseSdma is false");
}
} // namespace pto
