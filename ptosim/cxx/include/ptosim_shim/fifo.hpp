// ptosim C++ front end: the cube <-> vector FIFO (TPipe, TPUSH, TPOP, TALLOC, TFREE).
//
// The template parameter lists follow the public API (common/fifo.hpp and the TPipe of the
// implementation headers), so unchanged kernels instantiate them. The protocol itself (slots,
// credits, flags, split offsets) is ptosim's Python TPipe (ptosim/isa/cube/fifo.py): the
// constructor registers the pipe with the recording of this core and each operation sends the
// pipe's handle with its operand; the addresses a TPOP or TALLOC hands back come back here.
//
// Own code, written for ptosim; no vendor code.
#pragma once

#include <exception>
#if defined(__CPU_SIM)
#include <mutex>  // TPipe::SharedState (the CPU simulator's FIFO bookkeeping)
#endif

namespace pto {

enum TileSplitAxis : uint8_t {
    TILE_NO_SPLIT = 0,
    TILE_UP_DOWN = 1,
    TILE_LEFT_RIGHT = 2,
    TILE_UP_DOWN_ODD = 3,
    TILE_LEFT_RIGHT_ODD = 4,
};

enum Direction : uint8_t {
    UNDEFINED = 0,
    DIR_C2V = 1,
    DIR_V2C = 2,
    DIR_BOTH = 3,
    DIR_V2C_CTRL = 4,
    DIR_C2V_GM = 5,  // 950: the rings through GM
    DIR_V2C_GM = 6,
    DIR_BOTH_GM = 7,
};

enum class FIFOType : uint8_t { GM_FIFO = 0, VEC_FIFO = 1, MAT_FIFO = 2, CTRL_FIFO = 3 };
enum class VecCubeRatio : uint8_t { V1C1_VEC0 = 0, V1C1_VEC1 = 1, V2C1_VECS = 2 };

// the ring's constants as the library's RingFIFO publishes them (kernels read Pipe::RingFiFo)
template <int SlotSize, int SlotNum, int LocalSlotNum>
struct RingFIFO {
    static constexpr uint32_t SLOT_SIZE = SlotSize;
    static constexpr uint32_t SLOT_NUM = SlotNum;
    static constexpr uint32_t SLOT_SYNCT = SlotNum;
    static constexpr uint32_t LOCAL_SLOT_NUM = LocalSlotNum;
};

// The cluster-id handshake of the library's a2a3 custom header (TSyncCVID.hpp): a launch of
// more AI cores than kCvMaxCores maps blocks to comm slots through a GM protocol ptosim does
// not model; the run stops at the call.
constexpr int kCvMaxCores = 25;  // the library's value (pto/npu/a2a3/custom/TSyncCVID.hpp)
constexpr int kCvCommSlotBytes = 512;
template <int CV_COMM_SLOT_BYTES = kCvCommSlotBytes, int CV_MAX_CORES = kCvMaxCores>
__attribute__((noinline)) int TSYNC_CVID(int block_idx, __gm__ uint8_t *)
{
    ::ptosim::unsupported("TSYNC_CVID (the cube/vector cluster-id handshake in GM)",
                          ::ptosim::call_site(__builtin_return_address(0)));
    return block_idx;
}

namespace detail {
// The CPU simulator runs a cube/vector FIFO inside one process: host threads take the role of
// the cube core or a vector core through cpu_sim execution contexts, and the ring is host memory.
// ptosim runs each core as its own recorded program and the FIFO through a GM ring (fifo.py), so
// these entry points stop the run at their line.
inline constexpr const char *kCpuSimFifo =
    "TPipe::reset_for_cpu_sim (the CPU simulator's in-process cube/vector FIFO, driven from host "
    "threads under cpu_sim execution contexts)";
inline const char *split_name(int split)
{
    static const char *names[] = {"TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT", "TILE_UP_DOWN_ODD",
                                  "TILE_LEFT_RIGHT_ODD"};
    return (split >= 0 && split < 5) ? names[split] : "?";
}
inline const char *direction_name(int dir)
{
    switch (dir) {
        case DIR_C2V: return "DIR_C2V";
        case DIR_V2C: return "DIR_V2C";
        case DIR_BOTH: return "DIR_BOTH";
        case DIR_C2V_GM: return "DIR_C2V_GM";
        case DIR_V2C_GM: return "DIR_V2C_GM";
        case DIR_BOTH_GM: return "DIR_BOTH_GM";
        default: return "DIR_V2C_CTRL";
    }
}
} // namespace detail

template <uint8_t FlagID, uint8_t DirType, uint32_t SlotSize, uint32_t SlotNum, uint32_t LocalSlotNum = 2,
          bool IsNoSplit = false, bool EN_UNIT_FLAG = false>
struct TPipe {
    static constexpr uint8_t DIR_TYPE = DirType & 0x7;
    static constexpr bool is_c2v = DIR_TYPE == DIR_C2V;
    static constexpr bool is_v2c = DIR_TYPE == DIR_V2C;
    static constexpr bool is_both = DIR_TYPE == DIR_BOTH;
    static constexpr bool is_v2c_ctrl = DIR_TYPE == DIR_V2C_CTRL;
    static constexpr bool is_no_split = IsNoSplit;
    static constexpr uint32_t SyncPeriod = SlotNum <= 2 ? SlotNum : SlotNum / 2;
    using RingFiFo = RingFIFO<SlotSize, SlotNum, LocalSlotNum>;
    static_assert(SlotNum >= 1, "TPipe requires SlotNum >= 1");
    // the producer and consumer halves exist as types and members (kernels declare them); their
    // counters and flags are ptosim's (the pipe's handle below), so a kernel that drives the
    // protocol by hand through them stops at that line
#define PTOSIM_FIFO_MANUAL(NAME, ...)                                                             \
    __attribute__((noinline)) void NAME(__VA_ARGS__)                                              \
    {                                                                                             \
        ::ptosim::unsupported("TPipe::" #NAME " (driving the FIFO's credit protocol by hand)",    \
                              ::ptosim::call_site(__builtin_return_address(0)));                 \
    }
    struct Producer {
        PTOSIM_FIFO_MANUAL(setAllocateStatus, bool)
        PTOSIM_FIFO_MANUAL(setRecordStatus, bool)
        PTOSIM_FIFO_MANUAL(setEntryOffset, uint32_t)
        PTOSIM_FIFO_MANUAL(allocate)
        PTOSIM_FIFO_MANUAL(record)
    };
    struct Consumer {
        PTOSIM_FIFO_MANUAL(setWaitStatus, bool)
        PTOSIM_FIFO_MANUAL(setFreeStatus, bool)
        PTOSIM_FIFO_MANUAL(setEntryOffset, uint32_t)
        PTOSIM_FIFO_MANUAL(wait)
        PTOSIM_FIFO_MANUAL(free)
    };
#undef PTOSIM_FIFO_MANUAL
    Producer prod;
    Consumer cons;

    // The free credits a producer of `tiles` tiles has not waited for (what the destructor
    // takes); kernels static_assert on it, so it is a compile-time function here too. The run
    // itself counts in Python (TPipe.pending_free_credits), by the same rule: one credit per
    // `SyncPeriod` tiles consumed, one wait per period from tile `SlotNum` on.
    static constexpr uint32_t countPendingFreeCredits(uint32_t tiles)
    {
        const uint32_t posted = tiles / SyncPeriod;
        uint32_t taken = 0;
        if (SlotNum == 1) {
            taken = tiles > 0 ? tiles - 1 : 0;
        } else if (tiles > SlotNum) {
            const uint32_t first = (SlotNum + SyncPeriod - 1) / SyncPeriod * SyncPeriod;
            const uint32_t last = (tiles - 1) / SyncPeriod * SyncPeriod;
            taken = last >= first ? (last - first) / SyncPeriod + 1 : 0;
        }
        return posted > taken ? posted - taken : 0;
    }

    uint64_t ptosim_pipe = 0;  // the handle of this core's pipe in the recording

    __attribute__((noinline)) TPipe(void *gmSlotBuffer, uint32_t c2vConsumerBuf, uint32_t v2cConsumerBuf)
    {
        std::string b;
        ptosim::jkey(b, "flag"); ptosim::jint(b, FlagID);
        ptosim::jkey(b, "dir"); ptosim::jstr(b, detail::direction_name(DIR_TYPE));
        ptosim::jkey(b, "slot_size"); ptosim::juint(b, SlotSize);
        ptosim::jkey(b, "slot_num"); ptosim::juint(b, SlotNum);
        ptosim::jkey(b, "local_slot_num"); ptosim::juint(b, LocalSlotNum);
        ptosim::jkey(b, "no_split"); b += IsNoSplit ? "true" : "false";
        ptosim::jkey(b, "unit_flag"); b += EN_UNIT_FLAG ? "true" : "false";
        ptosim::jkey(b, "gm"); ptosim::juint(b, (unsigned long long)(uintptr_t)gmSlotBuffer);
        ptosim::jkey(b, "c2v"); ptosim::juint(b, c2vConsumerBuf);
        ptosim::jkey(b, "v2c"); ptosim::juint(b, v2cConsumerBuf);
        ptosim::send("TPipe", ptosim::call_site(__builtin_return_address(0)), b, &ptosim_pipe);
    }
    TPipe(const TPipe &) = delete;
    TPipe &operator=(const TPipe &) = delete;
    // the CPU simulator's reset of its in-process FIFO state (the library's cpu tpushpop tests)
    __attribute__((noinline)) static void reset_for_cpu_sim()
    {
        ::ptosim::unsupported(detail::kCpuSimFifo, ::ptosim::call_site(__builtin_return_address(0)));
    }
#if defined(__CPU_SIM)
    // ... and its bookkeeping, which those tests inspect: the fields they read, so that they
    // compile; reaching it stops the run at its line
    struct SharedState {
        std::mutex mutex;
        int occupied = 0, next_producer_slot = 0, next_c2v_consumer_slot = 0, next_v2c_consumer_slot = 0;
        int popped_not_freed = 0;
        int popped_not_freed_by_lane[2] = {};
        uint32_t producers_allocated[SlotNum] = {};
        uint32_t producers_done[SlotNum] = {};
    };
    struct SharedStateStorage {
        unsigned char bytes[sizeof(SharedState)] = {};
    };
    __attribute__((noinline)) static SharedState &GetSharedState()
    {
        ::ptosim::unsupported("TPipe::GetSharedState (the bookkeeping of the CPU simulator's in-process "
                              "cube/vector FIFO)",
                              ::ptosim::call_site(__builtin_return_address(0)));
        static SharedState unused;
        return unused;
    }
#endif
    // the library's destructor: the producer takes the free credits it has not waited for
    __attribute__((noinline)) ~TPipe() noexcept(false)
    {
        if (std::uncaught_exceptions() > 0) return;  // unwinding a stopped run
        std::string b;
        ptosim::jkey(b, "pipe"); ptosim::juint(b, ptosim_pipe);
        ptosim::send("TPipe.destroy", ptosim::call_site(__builtin_return_address(0)), b);
    }
};

namespace detail {
// One FIFO operation: the pipe's handle, the split and the operand. TPOP into a tile re-points
// the tile at its local ring slot; TPOP / TALLOC of a GlobalTensor re-point it at the GM slot.
template <typename Pipe, typename X>
void fifo(const char *op, long long pc, Pipe &pipe, X *x, int split, const std::string &fixpipe = "")
{
    std::string b;
    ::ptosim::jkey(b, "pipe"); ::ptosim::juint(b, pipe.ptosim_pipe);
    ::ptosim::jkey(b, "split"); ::ptosim::jstr(b, split_name(split));
    ::ptosim::jkey(b, "a"); b += '[';
    if (x) ::ptosim::describe(b, *x);
    b += ']';
    if (!fixpipe.empty()) {
        ::ptosim::jkey(b, "fixpipe");
        b += '{';
        b += fixpipe;
        b += '}';
    }
    uint64_t out = 0;
    ::ptosim::send(op, pc, b, &out);
    if constexpr (is_tile_data_v<X>) {
        if (x && std::string(op) == "TPOP") {
            x->data_ = reinterpret_cast<typename X::DType *>(::ptosim::onchip_base() + out);
            x->ptosim_assigned = true;
        }
    } else if constexpr (is_global_data_v<X>) {
        if (x && (std::string(op) == "TPOP" || std::string(op) == "TALLOC")) {
            x->data_ = reinterpret_cast<typename X::DType *>(uintptr_t(out));
        }
    }
}
} // namespace detail

template <typename Pipe, typename T, TileSplitAxis Split,
          std::enable_if_t<is_tile_data_v<T> || is_global_data_v<T>, int> = 0, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TPUSH(Pipe &pipe, T &operand, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::fifo("TPUSH", pc, pipe, &operand, Split);
    return {};
}

// the fixpipe configuration of a cube push (the library's common/fixpipe.hpp interface)
enum class LayoutMode_t : uint8_t { NZ2NZ = 0, NZ2ND = 1, NZ2DN = 2 };
typedef enum { NOCLIP_RELU = 0, CLIP_RELU = 1 } ClipReluMode_t;
template <LayoutMode_t layoutMode = LayoutMode_t::NZ2ND, QuantMode_t quantMode = QuantMode_t::NoQuant,
          ReluPreMode reluMode = ReluPreMode::NoRelu, STPhase phase = STPhase::Unspecified, uint8_t subBlockId = 0,
          AtomicType atomicT = AtomicType::AtomicNone, ClipReluMode_t clipReluMode = ClipReluMode_t::NOCLIP_RELU,
          bool isChannelSplit = false>
struct FixpipeParams {
    static constexpr LayoutMode_t LayoutMode = layoutMode;
    static constexpr QuantMode_t QuantPre = quantMode;
    static constexpr ReluPreMode ReluMode = reluMode;
    static constexpr STPhase Phase = phase;
    static constexpr uint8_t SubBlockId = subBlockId;
    static constexpr AtomicType AtomicT = atomicT;
    static constexpr ClipReluMode_t ClipReluMode = clipReluMode;
    static constexpr bool IsChannelSplit = isChannelSplit;
};

// TPUSH<Pipe, Tile, FixpipeParams<...>>: the cube's push through the fixpipe with a conversion
// or quantisation mode, ReLU and atomic add (the quant word from SET_QUANT_SCALAR / _VECTOR)
template <typename Pipe, typename T, typename TConfig, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TPUSH(Pipe &pipe, T &operand, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    std::string fx;
    ::ptosim::jkey(fx, "quant_mode"); ::ptosim::jstr(fx, quant_mode_name(TConfig::QuantPre));
    ::ptosim::jkey(fx, "relu"); ::ptosim::jstr(fx, ::ptosim::name(TConfig::ReluMode));
    ::ptosim::jkey(fx, "atomic"); ::ptosim::jstr(fx, ::ptosim::name(TConfig::AtomicT));
    ::ptosim::jkey(fx, "layout_mode"); ::ptosim::jint(fx, static_cast<int>(TConfig::LayoutMode));
    ::ptosim::jkey(fx, "clip_relu"); ::ptosim::jint(fx, static_cast<int>(TConfig::ClipReluMode));
    ::ptosim::jkey(fx, "channel_split"); fx += TConfig::IsChannelSplit ? "true" : "false";
    ::ptosim::jkey(fx, "sub_block_id"); ::ptosim::jint(fx, static_cast<int>(TConfig::SubBlockId));
    detail::fifo("TPUSH", pc, pipe, &operand, TILE_NO_SPLIT, fx);
    return {};
}

template <typename Pipe, typename T, TileSplitAxis Split,
          std::enable_if_t<is_tile_data_v<T> || is_global_data_v<T>, int> = 0, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TPOP(Pipe &pipe, T &operand, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::fifo("TPOP", pc, pipe, &operand, Split);
    return {};
}

template <typename Pipe, typename GlobalData, TileSplitAxis Split,
          std::enable_if_t<is_global_data_v<GlobalData>, int> = 0, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TALLOC(Pipe &pipe, GlobalData &gm, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::fifo("TALLOC", pc, pipe, &gm, Split);
    return {};
}

template <typename Pipe, typename GlobalData, TileSplitAxis Split,
          std::enable_if_t<is_global_data_v<GlobalData>, int> = 0, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TFREE(Pipe &pipe, GlobalData &gm, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::fifo("TFREE", pc, pipe, &gm, Split);
    return {};
}

// TFREE<Pipe, Split>(pipe) / TFREE(pipe): the tile form (a tile TPOP frees its slot itself)
template <typename Pipe, TileSplitAxis Split = TILE_NO_SPLIT, typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TFREE(Pipe &pipe, WaitEvents &...events)
{
    long long pc = PTOSIM_PC;
    ::ptosim::wait_events(pc, events...);
    detail::fifo("TFREE", pc, pipe, (int *)nullptr, Split);
    return {};
}

// TPUSH(tile, pipe) / TPOP(tile, pipe): the CPU simulator's host-side operand order
template <typename TileData, typename Pipe, std::enable_if_t<is_tile_data_v<TileData>, int> = 0,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TPUSH(TileData &, Pipe &, WaitEvents &...)
{
    ::ptosim::unsupported("TPUSH(tile, pipe) (the CPU simulator's in-process FIFO form)", PTOSIM_PC);
    return {};
}
template <typename TileData, typename Pipe, std::enable_if_t<is_tile_data_v<TileData>, int> = 0,
          typename... WaitEvents>
PTOSIM_NOINLINE RecordEvent TPOP(TileData &, Pipe &, WaitEvents &...)
{
    ::ptosim::unsupported("TPOP(tile, pipe) (the CPU simulator's in-process FIFO form)", PTOSIM_PC);
    return {};
}

// The CPU simulator's execution contexts (its pto/common/cpu_stub.hpp): which core the calling
// host thread acts as. Declared so that its tests compile; each call stops the run at its line.
namespace cpu_sim {
#define PTOSIM_CPU_SIM_CONTEXT(WHAT) \
    ::ptosim::unsupported("pto::cpu_sim::" WHAT " (the CPU simulator's execution contexts: a host " \
                          "thread acting as a cube or vector core)", \
                          ::ptosim::call_site(__builtin_return_address(0)))
__attribute__((noinline)) inline void register_hooks(void *, void *) { PTOSIM_CPU_SIM_CONTEXT("register_hooks"); }
__attribute__((noinline)) inline void set_execution_context(uint32_t, uint32_t, uint32_t = 1)
{
    PTOSIM_CPU_SIM_CONTEXT("set_execution_context");
}
__attribute__((noinline)) inline void reset_execution_context() { PTOSIM_CPU_SIM_CONTEXT("reset_execution_context"); }
struct ScopedExecutionContext {
    __attribute__((noinline)) ScopedExecutionContext(uint32_t, uint32_t, uint32_t = 1)
    {
        PTOSIM_CPU_SIM_CONTEXT("ScopedExecutionContext");
    }
};
#undef PTOSIM_CPU_SIM_CONTEXT
} // namespace cpu_sim

} // namespace pto
