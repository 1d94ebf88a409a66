// The cube <-> vector handshake object of the library's custom headers
// (pto/npu/a2a3/custom/TSync_Custom.hpp, pto/npu/a5/custom/TSync_Custom.hpp; TSyncCVID.hpp for
// the FFTS message). A TSync_Custom<Producer, Consumer>{F} stands for two cross-core flags: F
// "data ready" (record on the producer, wait on the consumer) and F + 1 "slot free" (free on the
// consumer, allocate on the producer). ptosim runs each call as the flag instruction it is, at
// the kernel's line:
// - Atlas A2/A3: FFTS flags in the cube <-> vector mode (2); posts on the producer's store pipe
//   (cube: PIPE_FIX, vector: PIPE_MTE3), frees on PIPE_MTE2, waits with wait_flag_dev.
// - 950: intra-block flags. The cube core reaches AIV1 with id + 16 and hears AIV1's id as
//   id + 16, so a cube post or wait is two (one per vector core); the pipes are the ones that
//   touch the data: a vector consumer of a GM hand-over waits on PIPE_MTE2, of a UB one
//   (TMOV_C2UB) on PIPE_V; a cube consumer waits on PIPE_MTE2 (GM) or PIPE_MTE1 (TINSERT_V2L1).
#pragma once

namespace pto {

enum CVSyncMode : uint16_t { C_ALL_CORE_SYNC = 0, V_ALL_CORE_SYNC = 0, V_SUBCORES_SYNC = 1, CV_CORE_SYNC = 2 };

// the config word of ffts_cross_core_sync: base in bits 0-3, mode in 4-5, flag id in 8-11
inline uint16_t _getFFTSMsg(CVSyncMode mode, uint16_t flag_id, uint16_t base_const = 0x1)
{
    return static_cast<uint16_t>((base_const & 0xF) | ((mode & 0x3) << 4) | ((flag_id & 0xF) << 8));
}

#if defined(PTO_NPU_ARCH_A5)
#ifndef VEC_CORE_ID_OFFSET
#define VEC_CORE_ID_OFFSET 16
#endif
enum class SyncOpType : uint8_t { TSTORE_C2GM, TSTORE_V2GM, TMOV_C2UB, TINSERT_V2L1, TLOAD };
#else
enum class SyncOpType : uint8_t { TSTORE_C2GM, TSTORE_V2GM, TLOAD };
#endif

namespace ptosim_tsync {
inline void flag(const char *op, long long pc, pipe_t pipe, int64_t id)
{
    std::string b;
    ::ptosim::jkey(b, "pipe"); ::ptosim::jstr(b, ::ptosim::pipe_name(pipe));
    ::ptosim::jkey(b, "id"); ::ptosim::jint(b, id);
    ::ptosim::send(op, pc, b);
}
inline void ffts_post(long long pc, pipe_t pipe, int64_t id)
{
    std::string b;
    ::ptosim::jkey(b, "pipe"); ::ptosim::jstr(b, ::ptosim::pipe_name(pipe));
    ::ptosim::jkey(b, "config"); ::ptosim::juint(b, _getFFTSMsg(CV_CORE_SYNC, static_cast<uint16_t>(id)));
    ::ptosim::send("ffts_cross_core_sync", pc, b);
}
inline void ffts_wait(long long pc, int64_t id)
{
    std::string b;
    ::ptosim::jkey(b, "flag"); ::ptosim::jint(b, id);
    ::ptosim::send("wait_flag_dev", pc, b);
}
} // namespace ptosim_tsync

template <SyncOpType ProducerOp, SyncOpType ConsumerOp>
struct TSync_Custom {
    static_assert(ConsumerOp == SyncOpType::TLOAD, "TSync_Custom: the consumer operation is TLOAD");
    static constexpr bool cube_gm_producer = ProducerOp == SyncOpType::TSTORE_C2GM;
    static constexpr bool vec_gm_producer = ProducerOp == SyncOpType::TSTORE_V2GM;
#if defined(PTO_NPU_ARCH_A5)
    static constexpr bool cube_ub_producer = ProducerOp == SyncOpType::TMOV_C2UB;
    static constexpr bool vec_l1_producer = ProducerOp == SyncOpType::TINSERT_V2L1;
#else
    static constexpr bool cube_ub_producer = false;
    static constexpr bool vec_l1_producer = false;
#endif
    static constexpr bool cube_produces = cube_gm_producer || cube_ub_producer;
    static constexpr bool vec_produces = vec_gm_producer || vec_l1_producer;

    uint16_t flag_id;

    // the producer: its data is ready (flag_id)
    __attribute__((noinline)) void record() const
    {
        long long pc = ::ptosim::call_site(__builtin_return_address(0));
        pipe_t pipe = cube_produces ? PIPE_FIX : PIPE_MTE3;
#if defined(PTO_NPU_ARCH_A5)
        post(pc, pipe, flag_id, cube_produces);
#else
        ptosim_tsync::ffts_post(pc, pipe, flag_id);
#endif
    }
    // the consumer: wait for the data (flag_id)
    __attribute__((noinline)) void wait() const
    {
        long long pc = ::ptosim::call_site(__builtin_return_address(0));
#if defined(PTO_NPU_ARCH_A5)
        pipe_t pipe = cube_ub_producer ? PIPE_V : (vec_l1_producer ? PIPE_MTE1 : PIPE_MTE2);
        hold(pc, pipe, flag_id, vec_produces);
#else
        ptosim_tsync::ffts_wait(pc, flag_id);
#endif
    }
    // the producer: wait until the consumer freed the slot (flag_id + 1)
    __attribute__((noinline)) void allocate() const
    {
        long long pc = ::ptosim::call_site(__builtin_return_address(0));
#if defined(PTO_NPU_ARCH_A5)
        hold(pc, cube_produces ? PIPE_FIX : PIPE_MTE3, flag_id + 1, cube_produces);
#else
        ptosim_tsync::ffts_wait(pc, flag_id + 1);
#endif
    }
    // the consumer: the slot may be written again (flag_id + 1)
    __attribute__((noinline)) void free() const
    {
        long long pc = ::ptosim::call_site(__builtin_return_address(0));
#if defined(PTO_NPU_ARCH_A5)
        pipe_t pipe = cube_ub_producer ? PIPE_V : (vec_produces ? PIPE_MTE1 : PIPE_MTE2);
        post(pc, pipe, flag_id + 1, vec_produces);
#else
        ptosim_tsync::ffts_post(pc, PIPE_MTE2, flag_id + 1);
#endif
    }

private:
#if defined(PTO_NPU_ARCH_A5)
    // a cube core's post reaches one vector core per id: both, as id and id + 16
    static void post(long long pc, pipe_t pipe, int64_t id, bool from_cube)
    {
        ptosim_tsync::flag("set_intra_block", pc, pipe, id);
        if (from_cube) ptosim_tsync::flag("set_intra_block", pc, pipe, id + VEC_CORE_ID_OFFSET);
    }
    // a cube core hears AIV0's id as id and AIV1's as id + 16: it waits for both
    static void hold(long long pc, pipe_t pipe, int64_t id, bool on_cube)
    {
        ptosim_tsync::flag("wait_intra_block", pc, pipe, id);
        if (on_cube) ptosim_tsync::flag("wait_intra_block", pc, pipe, id + VEC_CORE_ID_OFFSET);
    }
#endif
};

} // namespace pto
