"""Building a C++ kernel file against ptosim's shim headers into a shared library.

Steps (docs/guide-cxx.md, "Build"):

1. A small wrapper translation unit includes the user's file, then the shim's entry runtime,
   then one pair of extern "C" functions per requested entry (its signature and its call).
2. The wrapper is preprocessed with the shim's include directory first (``pto/pto-inst.hpp``
   and friends resolve to ptosim's headers) and the target's device-compiler macros.
3. In the parts of the preprocessed text that come from the user's files, the CUDA-style launch
   ``kernel<<<blocks, l2, stream>>>(args)`` becomes ``::ptosim::launch(kernel, blocks, l2,
   stream)(args)`` (macro-generated callees included, since macros are expanded by then) and
   device inline assembly ``asm volatile(...)`` becomes ``((void)0)``; line markers are kept,
   so diagnostics and DWARF name the user's lines.
4. The result is compiled with -O0 -g1 into a shared object, cached by the hash of the
   preprocessed text, the shim version, the compiler and the flags. -g1 (line tables, no
   variable info) is all ptosim reads, to name the user's file:line; full -g made each unit
   about 12% slower to compile.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..errors import CxxBuildError
from . import cache as _cache
from . import headers
from .cache import cache_dir
from .diagnostics import explain

INCLUDE_DIR = headers.INCLUDE_DIR
# Bumped whenever the headers' behaviour changes in a way the text hash would not show.
SHIM_VERSION = "20"

# Macros of a kernel unit, per ptosim target family: what the device compiler predefines (the
# core-kind macros are in CORE_DEFINES), what the library's st CMake files add (MEMORY_BASE on
# a2a3, REGISTER_BASE on a5) and what its arch_macro.hpp derives from __NPU_ARCH__; on cpu the
# library's CPU build defines __CPU_SIM. Host units (a test's main.cpp) get none of the NPU
# macros (see unit_defines).
TARGET_DEFINES = {
    "a2a3": ["__NPU_ARCH__=2201", "__CCE_AICORE__=220", "MEMORY_BASE", "PTO_NPU_ARCH_A2A3"],
    "a5": ["__NPU_ARCH__=3101", "__CCE_AICORE__=310", "REGISTER_BASE", "PTO_NPU_ARCH_A5"],
    "cpu": ["__CPU_SIM"],
}  # fmt: skip
# ... and per core a build is for (reference/cube_isa.md 1.1: a mixed kernel is compiled once
# for the cube core and once for the vector cores). The CPU simulator defines both halves in one
# build (its arch_macro.hpp); ptosim does so for a vector-only or cube-only kernel on cpu, and
# builds the halves apart for a mixed one, as on the devices, so each core runs its own half.
CORE_DEFINES = {
    ("a2a3", "cube"): ["__DAV_C220_CUBE__", "__DAV_CUBE__"],
    ("a2a3", "vec"): ["__DAV_C220_VEC__", "__DAV_VEC__"],
    ("a5", "cube"): ["__DAV_C310_CUBE__", "__DAV_CUBE__"],
    ("a5", "vec"): ["__DAV_C310_VEC__", "__DAV_VEC__"],
    ("cpu", "cube"): ["__DAV_CUBE__"],
    ("cpu", "vec"): ["__DAV_VEC__"],
    ("cpu", "both"): ["__DAV_CUBE__", "__DAV_VEC__"],
}
FLAVOURS = ("vec", "cube", "both")


def flavour(target: str, launch: str, core_kind: str) -> str:
    """Which build of a kernel file a core runs (``CORE_DEFINES``): the cube half on a cube
    core, the vector half on a vector core; on cpu one build with both halves for a kernel that
    is not mixed."""
    if target == "cpu" and launch != "mix":
        return "both"
    return "cube" if core_kind == "aic" else "vec"


def target_defines(target: str, kind: str = "vec") -> list[str]:
    """The predefined macros of a kernel unit of ``target`` for cores of ``kind`` (``FLAVOURS``;
    a device target has no ``both`` build: its vector half stands in)."""
    if target not in TARGET_DEFINES:
        raise CxxBuildError(f"unknown target {target!r}")
    if kind not in FLAVOURS:
        raise CxxBuildError(f"unknown core kind {kind!r} (one of {', '.join(FLAVOURS)})")
    if kind == "both" and target != "cpu":
        kind = "vec"
    return TARGET_DEFINES[target] + CORE_DEFINES[(target, kind)]


FLAGS = ["-O0", "-g1", "-fPIC", "-w"]
# The language standard per target, as the library's CMake files set it: its NPU test and kernel
# builds (tests/npu/*/src/st/CMakeLists.txt, kernels/*) use C++17; its cpu builds C++20 (C++23
# only with g++ >= 14 or its BF16 option). C++17 also parses the standard headers in about half
# the time, which is most of the cost of building a small kernel.
LANGUAGE_STANDARD = {"a2a3": "-std=c++17", "a5": "-std=c++17", "cpu": "-std=c++20"}
INSTALL_HINT = (
    'install one with `pip install "ptosim[cxx]"` (the clang of the ziglang package), '
    "or a system g++/clang++"
)


# ---- compilers ----------------------------------------------------------------------------------
def _has_ziglang() -> bool:
    try:
        return importlib.util.find_spec("ziglang") is not None
    except (ImportError, ValueError):
        return False


def compiler_command(compiler: str | None = None) -> list[str]:
    """The command that runs the C++ compiler.

    ``compiler``: ``"zig"`` (the clang of the ziglang package), a name on PATH (``g++``,
    ``clang++``) or a path; None means the environment variable PTOSIM_CXX, else the system's
    g++, else its clang++, else zig's clang when the ziglang package is installed. The system
    compiler comes first because it builds a kernel 3-10x faster than zig's clang (1.5-8 s
    against 23-53 s per vendor test folder on a 2-core machine) into a library a tenth the
    size; zig's clang is the fallback that always installs from PyPI.

    Raises:
        CxxBuildError: the compiler is not available (with how to get one).
    """
    choice = compiler or os.environ.get("PTOSIM_CXX") or None
    if choice is None:
        for name in ("g++", "clang++"):
            exe = shutil.which(name)
            if exe:
                return [exe]
        if _has_ziglang():
            return [sys.executable, "-m", "ziglang", "c++"]
        raise CxxBuildError(f"no C++ compiler found: {INSTALL_HINT}")
    if choice == "zig":
        if not _has_ziglang():
            raise CxxBuildError(
                f"compiler 'zig' asked for but the ziglang package is missing: {INSTALL_HINT}"
            )
        return [sys.executable, "-m", "ziglang", "c++"]
    exe = shutil.which(choice)
    if exe is None:
        raise CxxBuildError(f"C++ compiler {choice!r} not found: {INSTALL_HINT}")
    return [exe]


def _is_zig(cmd: list[str]) -> bool:
    return "ziglang" in cmd


# ---- the <<<...>>> rewrite and asm neutralisation ------------------------------------------------
def _skip_back(text: str, j: int, close: str, open_: str) -> int:
    """Index just before the bracket that opens the group closed at text[j]; parentheses inside
    an angle-bracket group are skipped whole (so ``(N > 1)`` does not count)."""
    depth = 0
    while j >= 0:
        c = text[j]
        if c == ")" and close == ">":
            j = _skip_back(text, j, ")", "(") + 1
        elif c == close:
            depth += 1
        elif c == open_:
            depth -= 1
            if depth == 0:
                return j - 1
        j -= 1
    raise CxxBuildError("unbalanced brackets before a <<< kernel launch")


def _callee_start(text: str, end: int) -> int:
    """Start of the callee expression that ends just before ``end`` (a ``<<<``): a qualified
    name with optional template arguments."""
    j = end - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    if j >= 0 and text[j] == ">":
        j = _skip_back(text, j, ">", "<")
        while j >= 0 and text[j].isspace():
            j -= 1
    while j >= 0 and (text[j].isalnum() or text[j] in "_:"):
        j -= 1
    return j + 1


def _balanced_end(text: str, open_idx: int) -> int:
    """Index just past the parenthesis closing text[open_idx] == '(' (string literals skipped)."""
    depth, i, n = 0, open_idx, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise CxxBuildError("unbalanced parentheses in an asm statement")


_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\s+(?:volatile|__volatile__)\s*\(")


def neutralize_asm(text: str) -> str:
    """Replace device inline assembly ``asm volatile("...")`` by ``((void)0)``, keeping lines."""
    out, pos = [], 0
    for m in _ASM.finditer(text):
        if m.start() < pos:
            continue
        end = _balanced_end(text, m.end() - 1)
        out.append(text[pos : m.start()])
        out.append("((void)0)" + "\n" * text.count("\n", m.start(), end))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def rewrite_launches(text: str) -> str:
    """``callee<<<cfg>>>`` -> ``::ptosim::launch(callee, cfg)``; the line count is kept."""
    out, pos = [], 0
    for m in re.finditer(r"<<<", text):
        i = m.start()
        if i < pos:
            continue
        end = text.find(">>>", i + 3)
        if end < 0:
            raise CxxBuildError("unterminated <<< ... >>> kernel launch")
        start = _callee_start(text, i)
        callee = text[start:i].rstrip()
        if not callee:
            raise CxxBuildError("cannot find the kernel name before a <<< launch")
        newlines = text.count("\n", start, end)
        out.append(text[pos:start])
        out.append(f"::ptosim::launch({callee}, {text[i + 3 : end]})" + "\n" * newlines)
        pos = end + 3
    out.append(text[pos:])
    return "".join(out)


_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"', re.M)


def user_segments(text: str, user_files: set[str]) -> list[tuple[int, int, bool]]:
    """(start, end, from a user file) spans of preprocessed text, split at line markers."""
    spans, start, user = [], 0, False
    real: dict[str, bool] = {}  # one realpath per file, not per line marker
    for m in _MARKER.finditer(text):
        spans.append((start, m.start(), user))
        start = m.start()
        name = m.group(2)
        if name not in real:
            real[name] = os.path.realpath(name) in user_files
        user = real[name]
    spans.append((start, len(text), user))
    return [s for s in spans if s[1] > s[0]]


def transform(text: str, user_files: set[str]) -> str:
    """Apply the launch rewrite and the asm neutralisation to the user's parts only."""
    parts = []
    for a, b, user in user_segments(text, user_files):
        seg = text[a:b]
        if user and ("<<<" in seg or "asm" in seg):
            seg = neutralize_asm(rewrite_launches(seg))
        parts.append(seg)
    return "".join(parts)


# ---- entries ------------------------------------------------------------------------------------
def entry_expression(name: str) -> str:
    """The C++ expression naming an entry: ``kern``, ``ns::kern<float, 16>``; a demangled full
    signature (``void kern<float, 16>(float*, float*)``) is reduced to its name."""
    s = name.strip()
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i].rstrip()
                break
    depth, cut = 0, 0
    for i, c in enumerate(s):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == " " and depth == 0:
            cut = i + 1
    s = s[cut:]
    if not re.fullmatch(r"[A-Za-z_:][\w:]*(<.*>)?", s):
        raise CxxBuildError(f"--entry {name!r} is not a function name or template instantiation")
    return s


def wrapper_source(source: Path, entries: list[str]) -> str:
    lines = [f'#include "{source}"', '#include "ptosim_shim/entry.hpp"']
    for i, e in enumerate(entries):
        expr = entry_expression(e)
        lines.append(
            f'extern "C" __attribute__((visibility("default"))) const char *ptosim_entry_sig_{i}()'
            f" {{ static std::string s = ::ptosim::entry_of({expr}).signature();"
            " return s.c_str(); }"
        )
        lines.append(
            f'extern "C" __attribute__((visibility("default"))) int ptosim_entry_call_{i}'
            f"(const uint64_t *argv) {{ return ::ptosim::run_entry("
            f"::ptosim::entry_of({expr}), argv); }}"
        )
    return "\n".join(lines) + "\n"


# ---- the build ----------------------------------------------------------------------------------
@dataclass
class Library:
    """A built shared object."""

    path: Path
    source: Path
    entries: list[str]
    target: str
    compiler: list[str]
    preprocessed: str  # the user's code after preprocessing (parameter names are read from it)
    cached: bool  # True when the library came from the cache


@dataclass(frozen=True)
class Unit:
    """One translation unit: the file it names, the wrapper text that includes it, the entries
    it defines, and its role: ``kernel`` (device code: the target's macros) or ``host`` (a test's
    main.cpp: built like host code, without the device compiler's macros)."""

    source: Path
    text: str
    entries: tuple[str, ...] = ()
    role: str = "kernel"


def build(
    source,
    entries: list[str],
    *,
    target: str,
    compiler: str | None = None,
    defines: list[str] = (),
    include_dirs: list = (),
    kind: str = "vec",
) -> Library:
    """Build (or fetch from the cache) the shared object for ``source`` and ``entries`` for
    cores of ``kind`` (``FLAVOURS``).

    Raises:
        CxxBuildError: missing compiler, compilation errors (with the user's file:line).
    """
    source = _existing(source)
    units = [Unit(source, wrapper_source(source, entries), tuple(entries))]
    return _build_units(source, units, list(entries), target, compiler, defines, include_dirs, kind)


def is_host_source(path: Path) -> bool:
    """A test folder's host program (the library's CMake files build main.cpp as host code and
    every other source, ``<name>_kernel.cpp``, with the device compiler)."""
    return Path(path).stem == "main"


def build_test(
    sources,
    *,
    target: str,
    compiler: str | None = None,
    defines: list[str] = (),
    include_dirs: list = (),
    kind: str = "vec",
) -> Library:
    """Build a test folder's sources (kernel.cpp, main.cpp ...) with the ACL / gtest stand-ins
    and the test runner (``ptosim_shim/testmain.hpp``) into one shared object."""
    sources = [_existing(s) for s in sources]
    if not sources:
        raise CxxBuildError("no .cpp sources to build")
    units = [
        Unit(s, f'#include "{s}"\n', (), "host" if is_host_source(s) else "kernel") for s in sources
    ]
    units.append(Unit(sources[0], '#include "ptosim_shim/testmain.hpp"\n', (), "host"))
    return _build_units(sources[0], units, [], target, compiler, defines, include_dirs, kind)


def _existing(source) -> Path:
    source = Path(source).resolve()
    if not source.is_file():
        raise CxxBuildError(f"C++ kernel file not found: {source}")
    return source


def unit_defines(target: str, role: str, kind: str = "vec") -> list[str]:
    """The macros a unit is preprocessed with: the device compiler's for kernel units of cores
    of ``kind``; on cpu the library's CPU build defines its macros for every unit."""
    defines = target_defines(target, kind)
    if role == "host" and target != "cpu":
        return []
    return defines


def _unit_flags(target: str, role: str, kind: str = "vec") -> list[str]:
    """-D and -include flags of one unit (the library's CMake files: cpu units and host units
    get ``-include stdint.h -include stddef.h``)."""
    flags = [LANGUAGE_STANDARD[target]] + [f"-D{d}" for d in unit_defines(target, role, kind)]
    if role == "host" or target == "cpu":
        flags += ["-include", "stdint.h", "-include", "stddef.h"]
    return flags


@dataclass
class _Pre:
    """One preprocessed unit."""

    unit: Unit
    wrapper: Path
    text: str  # rewritten (launches, asm)
    key: str  # the object's content key
    standard: str  # the -std= flag it was preprocessed with (and is compiled with)


class _CompileFailed(CxxBuildError):
    """A unit that preprocessed but did not compile (the case the clang fallback retries)."""


def clang_fallback(compiler: str | None, cmd: list[str]) -> list[str] | None:
    """The compiler that rebuilds a source g++ rejects when the compiler was chosen
    automatically: the library's device compiler is clang-based, and some code it accepts g++
    does not (an explicit instantiation g++ finds ambiguous, the a5 tadds folder's). The system
    clang++, else zig's clang; None when the compiler was named or is not g++."""
    name = Path(cmd[0]).name  # g++, g++-12, x86_64-linux-gnu-g++ (not clang++)
    gxx = name == "g++" or name.startswith("g++-") or name.endswith("-g++")
    if compiler or os.environ.get("PTOSIM_CXX") or not gxx:
        return None
    exe = shutil.which("clang++")
    if exe:
        return [exe]
    return [sys.executable, "-m", "ziglang", "c++"] if _has_ziglang() else None


def _build_units(
    main, units, entries, target, compiler, defines, include_dirs, kind="vec"
) -> Library:
    """Build with the chosen compiler; where g++ rejects a unit, with clang (clang_fallback)."""
    target_defines(target, kind)  # an unknown target or core kind: CxxBuildError
    cmd = compiler_command(compiler)
    try:
        return _build_with(cmd, main, units, entries, target, defines, include_dirs, kind)
    except _CompileFailed as first:
        alt = clang_fallback(compiler, cmd)
        if alt is None:
            raise
        try:
            return _build_with(alt, main, units, entries, target, defines, include_dirs, kind)
        except CxxBuildError:
            raise first from None  # wrong for both compilers: g++'s message, as without a retry


def _build_with(cmd, main, units, entries, target, defines, include_dirs, kind) -> Library:
    """Preprocess each unit, rewrite it, compile each into a content-keyed object (in parallel,
    skipping those in the cache) and link them into a library keyed by its objects."""
    out_dir = cache_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted({u.source for u in units})
    incs = [INCLUDE_DIR, headers.generated_dir(out_dir), *sorted({s.parent for s in sources})]
    incs += [Path(d).resolve() for d in include_dirs]
    common = [f"-D{d}" for d in defines] + [f"-I{i}" for i in incs]
    common += ["-idirafter", str(headers.FALLBACK_DIR)]
    user_files = {os.path.realpath(s) for s in sources}
    per_unit = [_unit_flags(target, u.role, kind) + common for u in units]
    # fast path: the inputs (user files, the shim's headers, system headers: every file the last
    # preprocessing read) are unchanged, so the last library is still right without running the
    # preprocessor again (it costs about a second per unit)
    manifest = out_dir / f"{main.stem}-{_inputs_key(units, cmd, per_unit)}.json"
    hit = _manifest_hit(manifest)
    if hit is not None:
        lib, user = hit
        _cache.touch(lib, manifest)
        return Library(lib, main, list(entries), target, cmd, user, True)
    obj_dir = out_dir / "obj"
    obj_dir.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        pres = _parallel(
            lambda n: _preprocess(n, units[n], per_unit[n], cmd, Path(tmp), user_files),
            range(len(units)),
        )
        user = "".join(
            p.text[a:b] for p in pres for a, b, u in user_segments(p.text, user_files) if u
        )
        deps = sorted(  # the temporary wrappers are keyed by their text already
            {f for p in pres for f in _LINE_MARKER.findall(p.text)} - {str(p.wrapper) for p in pres}
        )
        objects = [obj_dir / f"{p.key}.o" for p in pres]
        todo = [(p, o) for p, o in zip(pres, objects) if not o.is_file()]
        _parallel(lambda job: _compile(job[0], job[1], cmd, Path(tmp)), todo)
        _cache.touch(*objects)
        lib_key = hashlib.sha256(
            "\0".join([*(p.key for p in pres), " ".join(_link_flags(cmd))]).encode()
        ).hexdigest()[:24]
        lib = out_dir / f"{main.stem}-{lib_key}.so"
        cached = lib.is_file() and not todo
        if not cached:
            tmp_lib = Path(tmp) / "out.so"
            proc = subprocess.run(
                cmd + [str(o) for o in objects] + ["-o", str(tmp_lib)] + _link_flags(cmd),
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                p = pres[0]
                raise CxxBuildError(explain(proc.stderr, p.unit.source, p.wrapper, list(entries)))
            os.replace(tmp_lib, lib)  # atomic: concurrent builds of the same key are harmless
    _write_manifest(manifest, lib, user, deps)
    _cache.touch(lib)
    _cache.trim(out_dir)
    return Library(lib, main, list(entries), target, cmd, user, cached)


def _parallel(fn, items) -> list:
    """fn over items on up to os.cpu_count() threads (each runs a compiler process), in order;
    the first error is raised."""
    items = list(items)
    if len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(len(items), os.cpu_count() or 1)) as pool:
        return list(pool.map(fn, items))


def _preprocess(n: int, unit: Unit, flags, cmd, tmp: Path, user_files) -> _Pre:
    wrapper = tmp / f"{unit.source.stem}.{n}.ptosim.cpp"
    wrapper.write_text(unit.text)
    pre = subprocess.run(cmd + FLAGS + flags + ["-E", str(wrapper)], capture_output=True, text=True)
    if pre.returncode != 0:
        raise CxxBuildError(explain(pre.stderr, unit.source, wrapper, list(unit.entries)))
    text = transform(pre.stdout, user_files)
    # the temporary wrapper's path must not change the key; the -D flags are in the text already
    # (a unit whose text does not depend on the target is one object for every target)
    hashed = text.replace(str(wrapper), "<wrapper>")
    standard = next(f for f in flags if f.startswith("-std="))
    compile_flags = " ".join([*_compile_flags(cmd), standard])
    key = hashlib.sha256(
        "\0".join([hashed, SHIM_VERSION, " ".join(cmd), _compiler_id(cmd), compile_flags]).encode()
    ).hexdigest()[:24]
    return _Pre(unit, wrapper, text, key, standard)


def _compile_flags(cmd: list[str]) -> list[str]:
    # g++: -fno-gnu-unique, so that dlclose really unloads a library (one per build)
    return FLAGS + ([] if _is_zig(cmd) or "clang" in cmd[0] else ["-fno-gnu-unique"])


def _link_flags(cmd: list[str]) -> list[str]:
    # -z defs: a symbol no unit defines (a missing explicit template instantiation) is a link
    # error naming the user's line, not a failure to load the library
    return ["-shared", "-Wl,-z,defs"] + ([] if _is_zig(cmd) else ["-ldl"])


def _compile(pre: _Pre, obj: Path, cmd, tmp: Path) -> None:
    # .cpp: zig's driver links libc++ only for C++ source suffixes
    src = tmp / f"{pre.key}.pre.cpp"
    src.write_text(pre.text)
    out = tmp / f"{pre.key}.o"
    proc = subprocess.run(
        cmd + _compile_flags(cmd) + [pre.standard, "-c", str(src), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise _CompileFailed(
            explain(proc.stderr, pre.unit.source, pre.wrapper, list(pre.unit.entries))
        )
    os.replace(out, obj)


# the files a preprocessed text came from (its line markers: `# 12 "path" flags`)
_LINE_MARKER = re.compile(r'^# \d+ "([^"<][^"]*)"', re.M)


def _inputs_key(units, cmd: list[str], flags: list[list[str]]) -> str:
    """What the manifest is keyed by: the units (paths, wrapper texts, flags), the compiler."""
    parts = [SHIM_VERSION, " ".join(cmd), " ".join(FLAGS), " ".join(_link_flags(cmd))]
    parts += [f"{u.source}\0{u.text}\0{' '.join(f)}" for u, f in zip(units, flags)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _stamp(path: str) -> str | None:
    """The content hash of a file (not its mtime: two edits within one clock tick keep the
    mtime), None when it is gone."""
    try:
        return hashlib.blake2b(Path(path).read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return None


def _write_manifest(manifest: Path, lib: Path, user: str, deps: list[str]) -> None:
    stamps = {d: _stamp(d) for d in deps if os.path.isabs(d) or os.path.exists(d)}
    data = {"lib": lib.name, "user": user, "deps": stamps}
    tmp = manifest.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, manifest)


def _manifest_hit(manifest: Path) -> tuple[Path, str] | None:
    """The cached library and user text when no input file changed since the manifest was
    written, else None."""
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return None
    lib = manifest.parent / data.get("lib", "")
    deps = data.get("deps")
    if not lib.is_file() or not isinstance(deps, dict) or not deps:
        return None
    if any(_stamp(path) != stamp for path, stamp in deps.items()):
        return None
    return lib, data.get("user", "")


_IDS: dict[str, str] = {}


def _compiler_id(cmd: list[str]) -> str:
    """The compiler's version line (part of the cache key), once per process."""
    key = " ".join(cmd)
    if key not in _IDS:
        try:
            out = subprocess.run(
                cmd + ["--version"], capture_output=True, text=True, timeout=60
            ).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        _IDS[key] = out.splitlines()[0] if out else ""
    return _IDS[key]
