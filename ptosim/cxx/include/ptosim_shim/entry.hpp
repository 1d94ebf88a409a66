// ptosim C++ front end: the extern "C" runtime the Python side calls through ctypes, and the
// entry wrapper of a kernel function.
//
// The build appends, for each entry the user names, a pair of C functions:
//   ptosim_entry_sig_<i>()       the parameter list as JSON (pointer / integer / float, dtype)
//   ptosim_entry_call_<i>(argv)  calls the kernel with argv (one 64-bit word per parameter)
// The call returns 0, 1 when the Python side reported an error (ptosim::Abort unwound the
// kernel, or a raw access jumped back), 2 for any other C++ exception, 3 when the kernel touched
// tile storage or GM directly in a way ptosim does not serve (ptosim_fault() tells where).
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
//
// Raw accesses (x86_64 Linux): a fault in a reserved range maps the page with its bytes and
// single-steps the access (the trap flag); the SIGTRAP after it makes the page inaccessible
// again. A read asks Python for the element ({"op": "raw", "addr", "write", "pc"}: a GetValue)
// and the bytes of the page as the session's memory holds them. A write asks Python for the
// page only the first time it writes that page since the last request (record.hpp RawLog);
// the SIGTRAP logs what it changed, and the log goes to Python before the next request (the
// SetValues of the changed elements). Elsewhere a raw access stops the run with its line
// (return 3).
#if defined(__x86_64__) && defined(__linux__)
#define PTOSIM_RAW_ACCESS 1
#else
#define PTOSIM_RAW_ACCESS 0
#endif
constexpr size_t RAW_PAGE = 4096;
struct Fault {
    sigjmp_buf env;
    volatile sig_atomic_t armed = 0;
    volatile uintptr_t addr = 0;
    void *frames[48];
    int nframes = 0;
    // the page mapped for one raw access until its SIGTRAP (0: none)
    volatile uintptr_t trap_page = 0;
    volatile int trap_write = 0;
    volatile uintptr_t trap_addr = 0;
    unsigned char *trap_before = nullptr;  // a write: this thread's copy of the page (RawLog)
    // the page Python gives, and after it one byte: 1 when reads may use it until the next
    // request (a plain-called kernel's reads are no instructions), 0 when each read is one
    alignas(16) unsigned char page[RAW_PAGE + 16];
};
inline Fault &fault()
{
    static thread_local Fault f;
    return f;
}
// The handlers that were installed before ours (process-wide, like sigaction itself).
struct PrevHandlers {
    struct sigaction segv, bus, trap;
};
inline PrevHandlers &prev_handlers()
{
    static PrevHandlers p;
    return p;
}
inline bool raw_range(uintptr_t a)
{
    uintptr_t o = onchip_base(), g = gm_base();
    return (o && a >= o && a < o + ONCHIP_SPAN) || (g && a >= g && a < g + GM_SPAN);
}
inline bool reserved_address(uintptr_t a) { return raw_range(a) || a < (uintptr_t(1) << 16); }
// back to the reservation: inaccessible, its bytes dropped
inline void protect_page(uintptr_t page)
{
    mmap((void *)page, RAW_PAGE, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}
// rc 1 (Python stored an error) or 3 (a fault ptosim does not serve) to the entry wrapper
[[noreturn]] inline void unwind(Fault &f, int how)
{
    if (f.trap_page) {
        protect_page(f.trap_page);
        f.trap_page = 0;
    }
    raw_log().clear();  // the run ends with an error: its unsent writes do not matter
    f.armed = 0;
    siglongjmp(f.env, how);
}
inline void record_fault(Fault &f, uintptr_t a, void *pc)
{
    f.addr = a;
    f.frames[0] = (char *)pc + 1;  // call_site() subtracts one, as for return addresses
    f.nframes = 1 + backtrace(f.frames + 1, 47);
}
inline void *fault_pc(void *ctx)
{
#if defined(__x86_64__)
    return (void *)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)((ucontext_t *)ctx)->uc_mcontext.pc;
#else
    (void)ctx;
    return nullptr;
#endif
}
#if PTOSIM_RAW_ACCESS
// Serve one raw access (the fault is synchronous in kernel code, which holds no lock: calling
// back into Python here is what a shim call does). Returns false when it cannot be served.
inline bool serve_raw(Fault &f, uintptr_t a, void *pc, ucontext_t *uc)
{
    State &s = st();
    if (f.trap_page || s.callback == nullptr) return false;  // a fault inside the trap window
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    uintptr_t page = a & ~(uintptr_t)(RAW_PAGE - 1);
    RawLog &l = raw_log();
    // the access may be in a libc routine (memcpy) called by the kernel: the whole stack
    record_fault(f, a, pc);
    unsigned char *before = l.cached(page);
    if (!write && before != nullptr && l.reads_ok(page)) {
        // a read of a page this thread holds with the memory's bytes: no request
    } else if (!write || !l.writes_ok(page)) {
        // a tile page's first write keeps the log (its bytes do not depend on it); anything
        // else sends it first, so Python sees the writes in program order
        uintptr_t o = onchip_base();
        bool tile_write = write && a >= o && a < o + ONCHIP_SPAN && !l.full();
        if (!tile_write && !flush_raw_log(true)) unwind(f, 2);
        std::string q = "{\"op\":\"raw\",\"pc\":-1,\"pcs\":[";
        for (int i = 0; i < f.nframes; ++i) {
            if (i) q += ',';
            q += std::to_string(call_site(f.frames[i]));
        }
        q += ']';
        q += ",\"addr\":";
        q += std::to_string((unsigned long long)a);
        q += ",\"write\":";
        q += write ? "true" : "false";
        q += ",\"page\":";
        q += std::to_string(RAW_PAGE);
        q += '}';
        f.page[RAW_PAGE] = 0;
        if (s.callback(q.c_str(), f.page) != 0) unwind(f, 2);
        const bool reads = f.page[RAW_PAGE] == 1;
        before = nullptr;
        if (write || (reads && !l.full())) before = l.add(page, f.page, reads);
    }
    void *m = mmap((void *)page, RAW_PAGE, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    std::memcpy((void *)page, before ? before : f.page, RAW_PAGE);
    f.trap_page = page;
    f.trap_write = write;
    f.trap_addr = a;
    f.trap_before = before;
    uc->uc_mcontext.gregs[REG_EFL] |= 0x100;  // EFLAGS.TF: trap after the access executed
    return true;
}
inline void on_trap(int sig, siginfo_t *si, void *ctx)
{
    Fault &f = fault();
    if (!f.armed || !f.trap_page) {  // not ours: to the previous handler
        sigaction(SIGTRAP, &prev_handlers().trap, nullptr);
        (void)sig;
        (void)si;
        raise(SIGTRAP);
        return;
    }
    ucontext_t *uc = (ucontext_t *)ctx;
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x100;
    uintptr_t page = f.trap_page;
    if (f.trap_write) log_raw_write(f.trap_addr, (const unsigned char *)page, f.trap_before, f.frames, f.nframes);
    protect_page(page);
    f.trap_page = 0;
}
#endif
inline void on_fault(int sig, siginfo_t *si, void *ctx)
{
    Fault &f = fault();
    uintptr_t a = (uintptr_t)si->si_addr;
    if (f.armed && reserved_address(a)) {
        void *pc = fault_pc(ctx);
#if PTOSIM_RAW_ACCESS
        if (raw_range(a) && serve_raw(f, a, pc, (ucontext_t *)ctx)) return;
#endif
        record_fault(f, a, pc);
        unwind(f, 1);
    }
    // not ours: restore the previous handlers and let the access fault again into them (the
    // next kernel run installs ours again)
    sigaction(SIGSEGV, &prev_handlers().segv, nullptr);
    sigaction(SIGBUS, &prev_handlers().bus, nullptr);
    (void)sig;
}
// Install on_fault (and on_trap) unless installed already. They stay installed after a run:
// uninstalling them when one block's run ends would leave another block's suspended run without.
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
#if PTOSIM_RAW_ACCESS
    sa.sa_sigaction = on_trap;
    sigaction(SIGTRAP, &sa, &prev_handlers().trap);
#endif
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
    switch (sigsetjmp(f.env, 1)) {
    case 0:
        f.armed = 1;
        try {
            entry(argv);
            if (!flush_raw_log()) rc = 1;  // the kernel's last raw writes
        } catch (const Abort &) {
            rc = 1;
        } catch (...) {
            rc = 2;
        }
        break;
    case 2:  // Python stored an error while serving a raw access (unwind(f, 2))
        rc = 1;
        break;
    default:  // a fault ptosim does not serve (unwind(f, 1))
        rc = 3;
    }
    std::memcpy(f.env, outer, sizeof outer);
    f.armed = outer_armed;
    return rc;
}

} // namespace ptosim

extern "C" {
__attribute__((visibility("default"))) void ptosim_set_callback(ptosim::Callback cb) { ptosim::st().callback = cb; }
// the core the next recording runs on (ptosim/cores.py): its vector core number and count
__attribute__((visibility("default"))) void ptosim_set_core(int subblock, int subblock_dim)
{
    ptosim::st().subblock = subblock;
    ptosim::st().subblock_dim = subblock_dim;
}
__attribute__((visibility("default"))) void ptosim_set_block(int block, int blocks)
{
    ptosim::st().block = block;
    ptosim::st().blocks = blocks;
    for (auto &row : ptosim::st().event_counter)
        for (int &next : row) next = 0;
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
// run a launch another library stored: kernel `fn` (this library's function of the same name)
// of type `key` with the launch's argument words (types.hpp LaunchCall); 4 when no kernel of
// that type is launched in this library
__attribute__((visibility("default"))) int ptosim_run_launch(void *fn, const char *key, const uint64_t *words)
{
    ptosim::LaunchThunk thunk = ptosim::find_thunk(key);
    if (!thunk || !fn) return 4;
    auto call = [thunk, fn](const uint64_t *w) { thunk(fn, w); };
    return ptosim::run_entry(call, words);
}
// take another library's GM window (before this one reserved its own): pointers into it then
// map to the same GM buffers in both
__attribute__((visibility("default"))) void ptosim_adopt_gm_base(uint64_t base) { ptosim::gm_window() = (uintptr_t)base; }
}
