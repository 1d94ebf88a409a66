// ptosim C++ front end: the live recorder core.
//
// A kernel compiled against these headers runs inside ptosim's recording of one block: every PTO
// call (instruction, flag, TASSIGN, scalar read ...) is described as one compact JSON object and
// handed at once to the Python side through one callback, which issues the matching ptosim API
// call into the current recorder. A non-zero return means the Python side stored an error: the
// shim throws ptosim::Abort, which unwinds the kernel to the extern "C" entry wrapper
// (entry.hpp), and Python re-raises the stored error.
//
// Own code, written for ptosim; no vendor code.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include <dlfcn.h>
#include <sys/mman.h>

namespace ptosim {

// json: one request; out: 8 bytes for a returned value (GetValue). Returns 0 on success.
using Callback = int (*)(const char *json, void *out);

struct Abort {};  // thrown when the Python side reported an error; caught by the entry wrapper

struct State {
    Callback callback = nullptr;
    int block = 0;
    int blocks = 1;
    // the core this run records (ptosim/cores.py): get_subblockid(), get_subblockdim()
    int subblock = 0;
    int subblock_dim = 1;
    uint64_t next_tile_id = 1;
    int event_counter[16][16] = {};  // next id of Event<> objects per (src pipe, dst pipe) (pto.hpp)
};

inline State &st()
{
    // per thread: in a simulation session each block's body runs on its own thread
    static thread_local State s;
    return s;
}

// ---------------------------------------------------------------------------------------------
// On-chip memory (UB / L1) is a reserved, inaccessible address range: Tile::data() returns
// base + address, so kernels can do address arithmetic on it (TASSIGN(t, (uint64_t)u.data() + n))
// while any direct element access faults and is reported with its line (entry.hpp) instead of
// reading data that the recording does not have.
constexpr size_t ONCHIP_SPAN = size_t(64) << 20;
inline uintptr_t reserve(size_t span)
{
    void *p = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? uintptr_t(0) : (uintptr_t)p;
}
// The range starts at a multiple of 4 GiB, so the low 32 bits of a tile's data() are its
// on-chip offset: kernels pass `(uint32_t)(uint64_t)tile.data()` as a buffer address (the
// consumer buffers of a TPipe, for example).
constexpr size_t ONCHIP_ALIGN = size_t(1) << 32;
inline uintptr_t onchip_base()
{
    static uintptr_t base = [] {
        uintptr_t raw = reserve(ONCHIP_SPAN + ONCHIP_ALIGN);
        if (!raw) return uintptr_t(0);
        uintptr_t aligned = (raw + ONCHIP_ALIGN - 1) & ~(ONCHIP_ALIGN - 1);
        if (aligned > raw) munmap((void *)raw, aligned - raw);
        uintptr_t end = raw + ONCHIP_SPAN + ONCHIP_ALIGN;
        if (end > aligned + ONCHIP_SPAN) munmap((void *)(aligned + ONCHIP_SPAN), end - aligned - ONCHIP_SPAN);
        return aligned;
    }();
    return base;
}
// Tiles without TASSIGN (placed by the simulator) point into this part of the range.
constexpr size_t UNPLACED_BASE = size_t(32) << 20;
constexpr size_t UNPLACED_SLOT = size_t(256) << 10;
// An address given to TASSIGN: either an on-chip offset or a pointer obtained from data().
inline uint64_t onchip_offset(uintptr_t v)
{
    uintptr_t b = onchip_base();
    return (b && v >= b && v < b + ONCHIP_SPAN) ? uint64_t(v - b) : uint64_t(v);
}

// GM as the kernel sees it: a reserved, inaccessible window; the device buffer at simulated GM
// address A is passed to the kernel as gm_base() + (A - GM_BASE_ADDRESS) (ptosim/memory.py), so
// pointer arithmetic works, GlobalTensor pointers map back to buffers, and a raw dereference
// faults instead of reading stale host memory.
constexpr size_t GM_SPAN = size_t(16) << 30;
// The window is reserved at first use, unless the Python side gave this library the window of
// another one first (ptosim_adopt_gm_base: the cube half of a mixed test folder runs the host
// half's launch, whose pointers lie in the host library's window).
inline uintptr_t &gm_window()
{
    static uintptr_t base = 0;
    return base;
}
inline uintptr_t gm_base()
{
    uintptr_t &base = gm_window();
    if (!base) base = reserve(GM_SPAN);
    return base;
}

// ---------------------------------------------------------------------------------------------
// tiny JSON writer
inline void jstr(std::string &o, const char *s)
{
    o += '"';
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\') {
            o += '\\';
            o += *s;
        } else if ((unsigned char)*s < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", (unsigned char)*s);
            o += b;
        } else {
            o += *s;
        }
    }
    o += '"';
}
inline void jstr(std::string &o, const std::string &s) { jstr(o, s.c_str()); }
inline void jint(std::string &o, long long v) { o += std::to_string(v); }
inline void juint(std::string &o, unsigned long long v) { o += std::to_string(v); }
inline void jnum(std::string &o, double v)
{
    if (std::isnan(v)) { o += "\"nan\""; return; }
    if (std::isinf(v)) { o += v > 0 ? "\"inf\"" : "\"-inf\""; return; }
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    o += b;
}
inline void jkey(std::string &o, const char *k)
{
    if (!o.empty() && o.back() != '{' && o.back() != '[') o += ',';
    jstr(o, k);
    o += ':';
}

// ---------------------------------------------------------------------------------------------
// call sites: the return address of a shim entry point, relative to the shared object (the
// Python side maps it to file:line with DWARF); -1 when unknown
inline long long call_site(void *ra)
{
    // only addresses in this library (a fault's stack also holds libc's and Python's frames)
    static void *own = [] {
        Dl_info self;
        return dladdr((void *)&call_site, &self) ? self.dli_fbase : nullptr;
    }();
    Dl_info info;
    if (ra && dladdr(ra, &info) && info.dli_fbase && info.dli_fbase == own) {
        return (long long)((uintptr_t)ra - (uintptr_t)info.dli_fbase) - 1;
    }
    return -1;
}

// ---------------------------------------------------------------------------------------------
// Raw writes logged without Python (entry.hpp serves the faults). The first write to a page
// asks Python for its bytes; later writes to it before the next request are single-stepped
// against this thread's copy of the page and logged: the access's address, its stack and the
// bytes it changed. The next request of any kind sends the log first ({"op": "raw_log"}), so
// Python turns the writes into its SetValues in program order, one callback per batch instead
// of two per element (a std::fill over a 128x96 tile is 12288 writes).
//
// A page Python marks readable (a plain-called kernel's or host code's reads are no
// instructions) also serves reads. It stays readable across the log and the other raw requests
// (they serve bytes and apply logged writes, which the copy already holds), so a loop copying a
// tile into GM element by element asks once per page, not twice per element; an instruction
// request (``send``) drops every page, since the instruction may change any memory.
struct RawLog {
    static constexpr size_t PAGE = 4096;
    static constexpr int PAGES = 8;  // pages held (then: the next flush drops them all)
    uintptr_t addr[PAGES] = {};
    bool readable[PAGES] = {};  // its bytes are the memory's: reads may use them (Python said)
    // Python holds the bytes it gave for the page (its ``given``, until the next log): writes
    // may be logged against this copy without a request
    bool writable[PAGES] = {};
    bool written[PAGES] = {};  // logged writes since it was given
    int npages = 0;
    alignas(16) unsigned char bytes[PAGES][PAGE];
    // records: u64 address, u32 stack id, u16 first changed byte (page offset), u16 count, bytes
    std::string records;
    unsigned count = 0;
    std::string stacks;  // JSON arrays of call sites, one per distinct stack
    unsigned nstacks = 0;
    void *last[48];
    int nlast = -1;
    int find(uintptr_t page) const
    {
        for (int i = 0; i < npages; ++i)
            if (addr[i] == page) return i;
        return -1;
    }
    unsigned char *cached(uintptr_t page)
    {
        int i = find(page);
        return i < 0 ? nullptr : bytes[i];
    }
    bool reads_ok(uintptr_t page) const
    {
        int i = find(page);
        return i >= 0 && readable[i];
    }
    bool writes_ok(uintptr_t page) const
    {
        int i = find(page);
        return i >= 0 && writable[i];
    }
    void mark_written(const unsigned char *copy)
    {
        for (int i = 0; i < npages; ++i)
            if (bytes[i] == copy) written[i] = true;
    }
    // the page as Python just gave it (replacing this thread's earlier copy of it)
    unsigned char *add(uintptr_t page, const void *given, bool reads)
    {
        int i = find(page);
        if (i < 0) i = npages++;
        readable[i] = reads;
        writable[i] = true;
        written[i] = false;
        addr[i] = page;
        std::memcpy(bytes[i], given, PAGE);
        return bytes[i];
    }
    bool full() const { return npages == PAGES; }
    void clear_log()
    {
        records.clear();
        count = 0;
        stacks.clear();
        nstacks = 0;
        nlast = -1;
    }
    void clear()
    {
        npages = 0;
        clear_log();
    }
    // After the log went to Python (which then forgets the pages it gave): keep the readable
    // pages not written since, for reads only; all of them when no room is left for a new one.
    void keep_readable()
    {
        int n = 0;
        for (int i = 0; i < npages; ++i) {
            if (!readable[i] || written[i]) continue;
            if (n != i) {
                addr[n] = addr[i];
                std::memcpy(bytes[n], bytes[i], PAGE);
            }
            readable[n] = true;
            writable[n] = false;
            written[n] = false;
            ++n;
        }
        npages = n == PAGES ? 0 : n;
    }
};
inline RawLog &raw_log()
{
    static thread_local RawLog l;
    return l;
}
// Log one single-stepped write: ``now`` is the page after it, ``before`` this thread's copy of
// the page before it (updated here); frames[0] is the access's pc + 1.
inline void log_raw_write(uintptr_t a, const unsigned char *now, unsigned char *before, void **frames, int n);
// Send the log (nothing when empty); false when Python reported an error. ``keep``: the
// request that follows is a raw access (RawLog::keep_readable), else every page is dropped.
inline bool flush_raw_log(bool keep = false);

// Send one request: {"op": op, "pc": pc, <body>}. Throws Abort when Python reports an error.
inline void send(const char *op, long long pc, const std::string &body, void *out = nullptr)
{
    std::string o = "{\"op\":";
    jstr(o, op);
    o += ",\"pc\":";
    o += std::to_string(pc);
    if (!body.empty()) {
        o += ',';
        o += body;
    }
    o += '}';
    uint64_t scratch = 0;
    State &s = st();
    if (s.callback == nullptr) {
        std::fprintf(stderr, "[ptosim] %s called outside a ptosim run\n", op);
        throw Abort{};
    }
    if (!flush_raw_log()) throw Abort{};
    if (s.callback(o.c_str(), out ? out : &scratch) != 0) throw Abort{};
}

inline void log_raw_write(uintptr_t a, const unsigned char *now, unsigned char *before, void **frames, int n)
{
    RawLog &l = raw_log();
    size_t lo = 0, hi = RawLog::PAGE;
    while (lo < hi && now[lo] == before[lo]) ++lo;
    while (hi > lo && now[hi - 1] == before[hi - 1]) --hi;
    if (n != l.nlast || std::memcmp(frames, l.last, n * sizeof(void *)) != 0) {
        l.stacks += l.nstacks ? ",[" : "[";
        for (int i = 0; i < n; ++i) {
            if (i) l.stacks += ',';
            l.stacks += std::to_string(call_site(frames[i]));
        }
        l.stacks += ']';
        ++l.nstacks;
        std::memcpy(l.last, frames, n * sizeof(void *));
        l.nlast = n;
    }
    uint64_t addr = a;
    uint32_t stack = l.nstacks - 1;
    uint16_t first = uint16_t(lo), count = uint16_t(hi - lo);
    l.records.append((const char *)&addr, 8);
    l.records.append((const char *)&stack, 4);
    l.records.append((const char *)&first, 2);
    l.records.append((const char *)&count, 2);
    l.records.append((const char *)now + lo, hi - lo);
    std::memcpy(before + lo, now + lo, hi - lo);
    l.mark_written(before);
    ++l.count;
}

inline bool flush_raw_log(bool keep)
{
    RawLog &l = raw_log();
    if (l.count == 0) {
        if (keep) {
            if (l.full()) l.npages = 0;  // room for the page the request brings
        } else {
            l.clear();
        }
        return true;
    }
    State &s = st();
    std::string o = "{\"op\":\"raw_log\",\"pc\":-1,\"log\":";
    o += std::to_string((unsigned long long)(uintptr_t)l.records.data());
    o += ",\"size\":";
    o += std::to_string(l.records.size());
    o += ",\"count\":";
    o += std::to_string(l.count);
    o += ",\"stacks\":[";
    o += l.stacks;
    o += "]}";
    uint64_t scratch = 0;
    bool ok = s.callback != nullptr && s.callback(o.c_str(), &scratch) == 0;
    l.clear_log();
    if (keep && ok) {
        l.keep_readable();
    } else {
        l.npages = 0;
    }
    return ok;
}

// Parse "A, B = 3, C" (an enum's stringified enumerator list) and return the name of value v.
inline std::string enum_name(long long v, const char *list)
{
    long long next = 0;
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',' || *p == '\n') ++p;
        const char *b = p;
        while (*p && *p != ',' && *p != '=' && *p != ' ') ++p;
        std::string name(b, p);
        while (*p == ' ') ++p;
        long long value = next;
        if (*p == '=') {
            ++p;
            value = std::strtoll(p, nullptr, 0);
            while (*p && *p != ',') ++p;
        }
        if (!name.empty() && value == v) return name;
        next = value + 1;
    }
    return std::to_string(v);
}

// scalar element access (describe.hpp), declared here for the Tile / GlobalTensor members
template <typename Obj>
void scalar_access(const char *op, long long pc, const Obj &obj, size_t index, const void *value, void *out = nullptr);
template <typename D, typename Obj>
D scalar_read(const char *op, long long pc, const Obj &obj, size_t index);

} // namespace ptosim

// An enum of the public API with its enumerator names available to the recorder.
#define PTOSIM_ENUM(NAME, BASE, ...)                                                            \
    enum class NAME : BASE { __VA_ARGS__ };                                                     \
    inline const char *ptosim_enum_type(NAME) { return #NAME; }                                 \
    inline std::string ptosim_enum_name(NAME v) { return ::ptosim::enum_name((long long)v, #__VA_ARGS__); }

// The device compiler's built-in block variables (also used by AscendC-style kernels).
inline thread_local int64_t block_idx = 0;
inline thread_local int64_t block_num = 1;
