// tests/cxx/test_events.py: the Event<SrcOp, DstOp> / TSYNC rules of the library
// (semantics.md "Event ids" and "Higher-level forms").
#include <pto/pto-inst.hpp>
using namespace pto;

namespace {
using T = Tile<TileType::Vec, float, 8, 8>;
using G = GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<64, 64, 64, 8, 1>>;
}

// the pipe of each Op as the library's event table gives it: staging quantisation words into
// the fixpipe buffer (Mat -> Scaling) and UB -> L1 run on the fixpipe (PIPE_FIX)
static_assert(Event<Op::TMATMUL, Op::TMOV_M2S>::dst == PIPE_FIX, "TMOV_M2S is on PIPE_FIX");
static_assert(Event<Op::TMOV_V2M, Op::TMATMUL>::src == PIPE_FIX, "TMOV_V2M is on PIPE_FIX");
static_assert(Event<Op::TEXTRACT_V2M, Op::TMATMUL>::src == PIPE_FIX, "TEXTRACT_V2M: PIPE_FIX");
static_assert(Event<Op::TMOV_M2B, Op::TMATMUL>::src == PIPE_MTE1, "TMOV_M2B is on PIPE_MTE1");

// two events of one pipe pair in flight, one of another pair
extern "C" __global__ AICORE void ev_pairs(__gm__ float *out, __gm__ float *a)
{
    G ga(a), go(out);
    T t, u;
    TASSIGN(t, 0x0);
    TASSIGN(u, 0x100);
    Event<Op::TLOAD, Op::TADDS> first = TLOAD(t, ga);
    Event<Op::TLOAD, Op::TADDS> second = TLOAD(u, ga);
    TADDS(t, t, 1.0f, first, second);
    Event<Op::TADDS, Op::TSTORE_VEC> added = TADDS(u, u, 2.0f);
    TSTORE(go, t, added);
}

// one pair posted 9 times (each waited): ids 0..7 then 0 again
extern "C" __global__ AICORE void ev_round_robin(__gm__ float *out, __gm__ float *a)
{
    G ga(a), go(out);
    T t;
    TASSIGN(t, 0x0);
    Event<Op::TADDS, Op::TSTORE_VEC> ev;
    TLOAD(t, ga);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    for (int i = 0; i < 9; ++i) {
        ev = TADDS(t, t, 1.0f);
        TSTORE(go, t, ev);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
}

// both ops on PIPE_V: nothing posted, Wait() is pipe_barrier(PIPE_V); TSYNC<Op>() a barrier on
// the op's pipe; an explicit Record()/Wait()
extern "C" __global__ AICORE void ev_same_pipe(__gm__ float *out, __gm__ float *a)
{
    G ga(a), go(out);
    T t, u;
    TASSIGN(t, 0x0);
    TASSIGN(u, 0x100);
    TLOAD(t, ga);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    Event<Op::TADDS, Op::TMULS> same = TADDS(t, t, 1.0f);
    TMULS(u, t, 2.0f, same);
    TSYNC<Op::TMULS>();
    Event<Op::TMULS, Op::TSTORE_VEC> done;
    done.Record();
    done.Wait();
    TSTORE(go, u);
}
