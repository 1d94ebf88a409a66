// The CPU simulator's in-process FIFO, as the library's cpu tpushpop tests drive it: a TPipe over
// host memory, reset for the simulator, host threads each acting as a core through a cpu_sim
// execution context, TPUSH / TPOP in the (tile, pipe) order, the pipe's bookkeeping inspected.
// ptosim runs each core as its own program and its FIFO through a GM ring: every case must stop
// with one line naming the first of these entry points it reaches (and must compile).
#include <pto/pto-inst.hpp>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

using namespace pto;

using VecTile = Tile<TileType::Vec, float, 16, 16>;
using MatTile = Tile<TileType::Mat, float, 16, 16>;
using Pipe = TPipe<3, Direction::DIR_C2V, sizeof(float) * VecTile::Numel, 2>;

TEST(CpuSimFifo, reset_then_threads)
{
    std::vector<float> ring(VecTile::Numel * 2, 0.0f);
    Pipe::reset_for_cpu_sim();
    Pipe pipe(ring.data(), 0x0, 0x0);
    std::thread cube([&] {
        cpu_sim::ScopedExecutionContext ctx(0, 0, 1);
        MatTile m;
        TASSIGN(m, 0x0);
        TPUSH(m, pipe);
    });
    cube.join();
}

TEST(CpuSimFifo, context_first)
{
    pto::cpu_sim::set_execution_context(0, 1, 2);
    VecTile v;
    TASSIGN(v, 0x0);
}

TEST(CpuSimFifo, bookkeeping)
{
    auto &state = Pipe::GetSharedState();
    std::lock_guard<std::mutex> lock(state.mutex);
    EXPECT_EQ(state.occupied, 0);
}

TEST(CpuSimFifo, manual_protocol)
{
    Pipe::SharedStateStorage storage{};
    (void)storage;
    std::vector<float> ring(VecTile::Numel * 2, 0.0f);
    Pipe pipe(ring.data(), 0x0, 0x0);
    pipe.prod.setAllocateStatus(false);
}
