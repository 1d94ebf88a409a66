"""A failed C++ build explained in the user's terms: their ``file:line`` and one line of why.

- an ``#include`` of a library header ptosim does not model (headers.py, kind "unsupported"):
  the include line and what the header belongs to;
- a call with an operand count the instruction cannot take (the generated operand-count
  static_assert): the call's line and the instruction's operands;
- pto-isa API ptosim deliberately does not declare (``UNSUPPORTED_API``): its line and name;
- errors in the wrapper: the entry name is wrong;
- errors only inside ptosim's headers: a ptosim bug.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import headers
from .cache import cache_dir

_ERR = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? "
    r"(?P<kind>fatal error|error|note|warning)?:? ?(?P<msg>.*)$"
)
# "In file included from /x/k.cpp:3," (gcc) / "In file included from /x/k.cpp:3:" (clang)
_INCLUDED = re.compile(r"^(?:In file included from|\s+from) (?P<file>[^:\n]+):(?P<line>\d+)[,:]")
_REQUESTED = ("required from here", "requested here")

# pto-isa API (inventory of the vendor kernels) that ptosim's headers deliberately do not declare:
# a kernel using it gets one line naming it, not a cascade of compiler errors
UNSUPPORTED_API = {
    "create_cbuf_matrix": "a raw cube-buffer intrinsic",
    # the library's a5 textract / tinsert tests
    # the library's a5 tpushpop_* tests: the fixpipe configuration a quantising push names
    "FixpipeParams": "the fixpipe parameters of a quantising TPUSH",
    "FixpipeConfig": "the fixpipe parameters of a quantising TPUSH",
    "LayoutMode_t": "the fixpipe parameters of a quantising TPUSH",
    "async_invoke": "SIMT launches from C++ (cce::async_invoke)",
    "comm": "the pto::comm collective API",
}
_UNDECLARED = re.compile(
    r"(?:\u2018|')(?P<name>[A-Za-z_]\w*)(?:\u2019|') "
    r"(?:was not declared|is not a member|does not name)"
    r"|(?:undeclared identifier|unknown type name|no template named|no member named) "
    r"'(?P<name2>[A-Za-z_]\w*)'"
    # gcc, for a call inside a template whose arguments do not depend on its parameters
    r"|there are no arguments to (?:\u2018|')(?P<name3>[A-Za-z_]\w*)(?:\u2019|') that depend"
)


def ptosim_header(path: str) -> bool:
    """Whether a file is one of ptosim's own headers (shim, generated, fallback)."""
    real = os.path.realpath(path)
    roots = (str(headers.INCLUDE_DIR), str(headers.FALLBACK_DIR))
    if any(real.startswith(r + os.sep) for r in roots):
        return True
    generated = os.path.join(os.path.realpath(cache_dir()), "include-")
    return real.startswith(generated)


def _short(path: str, line: str) -> str:
    return f"{os.path.basename(path)}:{line}"


def _unsupported_api(errors: list[str]) -> list[str]:
    """One line per use of pto-isa API that ptosim does not support, from compiler errors."""
    out, seen = [], set()
    for line in errors:
        m = _ERR.match(line)
        u = _UNDECLARED.search(line)
        name = u and (u.group("name") or u.group("name2") or u.group("name3"))
        if not m or name not in UNSUPPORTED_API or name in seen:
            continue
        seen.add(name)
        out.append(
            f"{_short(m.group('file'), m.group('line'))}: {name} ({UNSUPPORTED_API[name]}) "
            "is not supported by ptosim"
        )
    return out


def _unsupported_headers(stderr: str) -> list[str]:
    """``main.cpp:5: pto/comm/x.hpp belongs to ..., which ptosim does not model`` for each
    generated #error, at the first user file of its include chain."""
    out, chain = [], []
    for line in stderr.splitlines():
        inc = _INCLUDED.match(line)
        if inc:
            if line.startswith("In file included"):
                chain = []
            chain.append((inc.group("file"), inc.group("line")))
            continue
        if headers.ERROR_TAG in line and _ERR.match(line):  # not the source excerpt under it
            text = line.split(headers.ERROR_TAG + ":", 1)[1].strip().strip('"')
            user = [(f, n) for f, n in chain if not ptosim_header(f)]
            where = _short(*user[0]) if user else "?"
            msg = f"{where}: {text}"
            if msg not in out:
                out.append(msg)
            chain = []
        elif not line.startswith(" "):
            chain = [] if _ERR.match(line) else chain
    return out


_UNDEFINED = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):.*undefined reference to [`'](?P<sym>.+)'$"
)


def _undefined_symbols(stderr: str) -> list[str]:
    """``main.cpp:83: LaunchAdd<float, 32, 64>(...) is used but no source defines it`` per
    undefined reference the linker reports at a user line."""
    out = []
    for line in stderr.splitlines():
        m = _UNDEFINED.match(line.strip())
        if not m or ptosim_header(m.group("file")):
            continue
        msg = (
            f"{_short(m.group('file'), m.group('line'))}: {m.group('sym')} is used but no source "
            "of the folder defines it (a missing explicit template instantiation?)"
        )
        if msg not in out:
            out.append(msg)
    return out


_MISSING = re.compile(r"fatal error: ['\"]?(?P<name>[^'\":]+)['\"]?(?::| file not found)")
_MISSING_TAIL = ("No such file or directory", "file not found")
_SCRIPT_SUFFIXES = (".py", ".sh")


def _generators(folder: Path, name: str) -> list[Path]:
    """Scripts of a kernel folder (its own, its ``scripts/``, its parent's ``scripts/``) that
    name ``name``: where a header the build cannot find is written before the library's CMake
    build runs (the a5 flash-attention folder's run.sh runs scripts/generate_cases.py first)."""
    found = []
    for d in (folder, folder / "scripts", folder.parent / "scripts"):
        if not d.is_dir():
            continue
        for f in sorted(d.iterdir()):
            if f.suffix in _SCRIPT_SUFFIXES and f.is_file():
                try:
                    if name in f.read_text(errors="replace"):
                        found.append(f)
                except OSError:
                    continue
    return found


def _generated_headers(stderr: str, source: Path) -> list[str]:
    """``k.cpp:1376: generated_cases.h is not in the folder: scripts/generate_cases.py writes
    it ...`` for each include the compiler cannot find that a script of the folder writes."""
    out = []
    for line in stderr.splitlines():
        m, e = _MISSING.search(line), _ERR.match(line)
        if not m or not e or not any(t in line for t in _MISSING_TAIL):
            continue
        if ptosim_header(e.group("file")):
            continue
        name = os.path.basename(m.group("name").strip())
        folder = Path(e.group("file")).resolve().parent
        scripts = _generators(folder, name)
        if not scripts:
            continue
        rel = [os.path.relpath(s, folder) for s in scripts]
        msg = (
            f"{_short(e.group('file'), e.group('line'))}: {name} is not in the folder: "
            f"{' / '.join(rel)} write(s) it before the library's own build (its run.sh); "
            "ptosim does not run run.sh: run the script in the folder (it may need the "
            f"arguments run.sh passes), so that {name} is beside the kernel or in the folder's "
            "build/ (which ptosim adds to the include path, as the library's CMake does), then "
            "run ptosim again"
        )
        if msg not in out:
            out.append(msg)
    return out


def explain(stderr: str, source: Path, wrapper: Path, entries: list[str]) -> str:
    """A build failure in the user's terms: their file:line; the wrapper's lines mean a bad entry
    name; errors only inside ptosim's headers are a ptosim bug."""
    stops = (
        _unsupported_headers(stderr)
        or _undefined_symbols(stderr)
        or _generated_headers(stderr, source)
    )
    if stops:
        return "\n".join(stops)
    user, wrap, shim = [], [], []
    for line in stderr.splitlines():
        m = _ERR.match(line)
        if not m:
            continue
        f = m.group("file")
        kind = m.group("kind") or ""
        if "error" not in kind and not any(r in line for r in _REQUESTED):
            continue
        if os.path.realpath(f) == os.path.realpath(wrapper):
            wrap.append(line)
        elif ptosim_header(f):
            shim.append(line)
        else:
            user.append(line)
    requested = [u for u in user if any(r in u for r in _REQUESTED)]
    if shim and requested:
        where = _ERR.match(requested[-1] if "required from here" in requested[-1] else requested[0])
        at = _short(where.group("file"), where.group("line"))
        counts = [x.split(headers.ARITY_TAG + ":", 1)[1] for x in shim if headers.ARITY_TAG in x]
        if counts:
            return f"{at}: {counts[0].strip().rstrip(chr(34))}"
    if shim and user and all(any(r in u for r in _REQUESTED) for u in user):
        # the user's call instantiates a shim template that does not compile: name their line
        # and the header's complaint (without the header's path)
        said = [_ERR.match(x) for x in shim]
        what = "; ".join(dict.fromkeys(m.group("msg").strip() for m in said if m))
        return (
            f"{at}: this call does not compile against ptosim's pto-isa headers: {what[:600]} "
            "(if it is valid pto-isa C++, this is a ptosim bug: please report it with the kernel)"
        )
    if user:
        known = _unsupported_api(user)
        if known:
            return "\n".join(known)
        shown = "\n".join(user[:12])
        return f"{source.name}: compilation failed:\n{shown}"
    if wrap:
        return (
            f"{source.name}: no kernel function named {' / '.join(map(repr, entries))} "
            f'(give --entry an extern "C" function or a template instantiation such as '
            f"kern<float, 16>):\n" + "\n".join(wrap[:4])
        )
    if shim:
        return (
            "compilation failed inside ptosim's C++ headers; this is a ptosim bug, please report "
            "it with the kernel:\n" + "\n".join(shim[:8])
        )
    return f"{source.name}: compilation failed:\n{stderr[-4000:]}"
