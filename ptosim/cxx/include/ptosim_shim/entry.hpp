// ptosim C++ front end: the extern "C" runtime the Python side calls through ctypes, and the
// entry wrapper of a kernel function.
//
// The build appends, for each entry the user names, a pair of C functions:
//   ptosim_entry_sig_<i>()       the parameter list as JSON (pointer / integer / float, dtype)
//   ptosim_entry_call_<i>(argv)  calls the kernel with argv (one 64-bit word per parameter)
// The call returns 0, 1 when the Python side reported an error (ptosim::Abort unwound the
// kernel), 2 for any other C++ exception, 3 when the kernel touched tile storage or GM directly
// (a fault in the reserved ranges; ptosim_fault() tells where).
//
// Own code, written for ptosim; no vendor code.
#pragma once

#include <csetjmp>
#include <csignal>
#include <execinfo.h>
#include <ucontext.h>

#include "pto.hpp"

namespace ptosim {

template <typename T>
void describe_param(std::string &o)
{
    using U = std::remove_cv_t<T>;
    o += '{';
    if constexpr (std::is_pointer_v<U>) {
        jkey(o, "k"); jstr(o, "ptr");
        jkey(o, "dt"); jstr(o, dtype_name<std::remove_cv_t<std::remove_pointer_t<U>>>());
    } else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
        jkey(o, "k"); jstr(o, "int");
        if constexpr (std::is_enum_v<U>) { jkey(o, "dt"); jstr(o, "int64"); }
        else { jkey(o, "dt"); jstr(o, dtype_name<U>()); }
    } else if constexpr (std::is_floating_point_v<U> || std::is_same_v<U, half> || std::is_same_v<U, bfloat16_t>) {
        jkey(o, "k"); jstr(o, "float");
        jkey(o, "dt"); jstr(o, dtype_name<U>());
    } else {
        jkey(o, "k"); jstr(o, "opaque");
        jkey(o, "type"); jstr(o, typeid(U).name());
    }
    o += '}';
}

template <typename T>
T from_word(uint64_t w)
{
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_pointer_v<U>) {
        return reinterpret_cast<U>(uintptr_t(w));
    } else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
        return U(int64_t(w));
    } else if constexpr (std::is_floating_point_v<U> || std::is_same_v<U, half> || std::is_same_v<U, bfloat16_t>) {
        double d;
        std::memcpy(&d, &w, sizeof d);
        return U(d);
    } else {
        return U{};  // opaque parameters are refused by the Python side before the call
    }
}

template <typename R, typename... A>
struct Entry {
    R (*fn)(A...);
    std::string signature() const
    {
        std::string o = "[";
        bool first = true;
        ((o += first ? "" : ",", first = false, describe_param<A>(o)), ...);
        return o + "]";
    }
    template <std::size_t... I>
    void call(const uint64_t *argv, std::index_sequence<I...>) const
    {
        fn(from_word<A>(argv[I])...);
    }
    void operator()(const uint64_t *argv) const { call(argv, std::index_sequence_for<A...>{}); }
};
template <typename R, typename... A>
Entry<R, A...> entry_of(R (*fn)(A...))
{
    return {fn};
}

// ---- faults: raw access to tile storage or GM ------------------------------------------------
// Per thread: in a simulation session every block's kernel body runs on its own thread, and the
// bodies take turns (one may be suspended inside a GetValue while another runs).
struct Fault {
    sigjmp_buf env;
    volatile sig_atomic_t armed = 0;
    volatile uintptr_t addr = 0;
    void *frames[48];
    int nframes = 0;
};
inline Fault &fault()
{
    static thread_local Fault f;
    return f;
}
// The handlers that were installed before ours (process-wide, like sigaction itself).
struct PrevHandlers {
    struct sigaction segv, bus;
};
inline PrevHandlers &prev_handlers()
{
    static PrevHandlers p;
    return p;
}
inline bool reserved_address(uintptr_t a)
{
    uintptr_t o = onchip_base(), g = gm_base();
    return (o && a >= o && a < o + ONCHIP_SPAN) || (g && a >= g && a < g + GM_SPAN) || a < (uintptr_t(1) << 16);
}
inline void on_fault(int sig, siginfo_t *si, void *ctx)
{
    Fault &f = fault();
    uintptr_t a = (uintptr_t)si->si_addr;
    if (f.armed && reserved_address(a)) {
        f.addr = a;
        void *pc = nullptr;
#if defined(__x86_64__)
        pc = (void *)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
        pc = (void *)((ucontext_t *)ctx)->uc_mcontext.pc;
#endif
        f.frames[0] = (char *)pc + 1;  // call_site() subtracts one, as for return addresses
        f.nframes = 1 + backtrace(f.frames + 1, 47);
        f.armed = 0;
        siglongjmp(f.env, 1);
    }
    // not ours: restore the previous handlers and let the access fault again into them (the
    // next kernel run installs ours again)
    sigaction(SIGSEGV, &prev_handlers().segv, nullptr);
    sigaction(SIGBUS, &prev_handlers().bus, nullptr);
    (void)sig;
}
// Install on_fault unless it is installed already. It stays installed after a run: uninstalling
// it when one block's run ends would leave another block's suspended run without it.
inline void ensure_fault_handler()
{
    struct sigaction cur;
    sigaction(SIGSEGV, nullptr, &cur);
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fault) return;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &prev_handlers().segv);
    sigaction(SIGBUS, &sa, &prev_handlers().bus);
}

template <typename E>
int run_entry(const E &entry, const uint64_t *argv)
{
    Fault &f = fault();
    onchip_base();
    gm_base();
    void *warm[2];
    backtrace(warm, 2);  // loads libgcc now, not inside the signal handler
    ensure_fault_handler();
    volatile int rc = 0;
    // run_entry nests (a test case's launch runs its kernel through Python): keep the outer state
    sigjmp_buf outer;
    std::memcpy(outer, f.env, sizeof outer);
    sig_atomic_t outer_armed = f.armed;
    f.nframes = 0;
    if (sigsetjmp(f.env, 1) == 0) {
        f.armed = 1;
        try {
            entry(argv);
        } catch (const Abort &) {
            rc = 1;
        } catch (...) {
            rc = 2;
        }
    } else {
        rc = 3;
    }
    std::memcpy(f.env, outer, sizeof outer);
    f.armed = outer_armed;
    return rc;
}

} // namespace ptosim

extern "C" {
__attribute__((visibility("default"))) void ptosim_set_callback(ptosim::Callback cb) { ptosim::st().callback = cb; }
__attribute__((visibility("default"))) void ptosim_set_block(int block, int blocks)
{
    ptosim::st().block = block;
    ptosim::st().blocks = blocks;
    ptosim::st().event_counter = 0;
    ::block_idx = block;
    ::block_num = blocks;
}
__attribute__((visibility("default"))) uint64_t ptosim_gm_base() { return ptosim::gm_base(); }
__attribute__((visibility("default"))) uint64_t ptosim_onchip_base() { return ptosim::onchip_base(); }
// the faulting address, and the call-site offsets of the fault's stack (innermost first)
__attribute__((visibility("default"))) int ptosim_fault(uint64_t *addr, long long *sites, int max)
{
    ptosim::Fault &f = ptosim::fault();
    *addr = f.addr;
    int n = 0;
    for (int i = 0; i < f.nframes && n < max; ++i) sites[n++] = ptosim::call_site(f.frames[i]);
    return n;
}
}

extern "C" {
// run the kernel launch the last `<<<...>>>` stored (one block; see Launcher in types.hpp)
__attribute__((visibility("default"))) int ptosim_run_pending()
{
    auto &f = ptosim::pending_launch();
    if (!f) return 2;
    auto call = [&f](const uint64_t *) { f(); };
    return ptosim::run_entry(call, nullptr);
}
}
