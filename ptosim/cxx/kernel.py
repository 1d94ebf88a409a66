"""C++ kernels as ptosim kernels: ``load("k.cpp").entry("name")`` runs like a ``@pto.kernel``.

Live recording: ``Device.run`` records each block by calling the kernel's body; the body of a
``CxxKernel`` calls the compiled entry through ctypes, and every call of the shim (TLOAD,
set_flag, TASSIGN, GetValue ...) comes back at once through one callback as a JSON request that
``dispatch.Dispatcher`` turns into the matching ptosim API call, appended to the current
recorder with the C++ ``file:line`` as its source. An error raised there is stored, the callback
returns 1, the shim unwinds the kernel (C++ exception) and the error is re-raised here.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import struct
from pathlib import Path

import numpy as np

from .. import program as _program
from ..cores import parse_cores
from ..errors import CxxError, KernelError, PtoSimError
from ..memory import GM_BASE_ADDRESS, GmBuffer
from ..program import Kernel
from . import build as _build
from .diagnostics import ptosim_header
from .dispatch import Dispatcher
from .raw import ONCHIP_SPAN_BYTES, RAW_ACCESS_SERVED
from .sites import SiteMap

# the compiler's and C library's headers (std::fill's loop is not the kernel's line)
_SYSTEM_HEADERS = ("/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/lib64/")
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class _Loaded:
    """One built library, loaded: its C entry points and call-site map."""

    def __init__(self, lib: _build.Library, adopt_gm_base: int | None = None):
        self.info = lib
        self.dll = ctypes.CDLL(str(lib.path), mode=os.RTLD_LOCAL | getattr(os, "RTLD_NOW", 2))
        self.dll.ptosim_set_callback.argtypes = [_CALLBACK]
        self.dll.ptosim_set_block.argtypes = [ctypes.c_int, ctypes.c_int]
        self.dll.ptosim_set_core.argtypes = [ctypes.c_int, ctypes.c_int]
        self.dll.ptosim_run_launch.argtypes = [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_uint64),
        ]
        self.dll.ptosim_run_launch.restype = ctypes.c_int
        self.dll.ptosim_adopt_gm_base.argtypes = [ctypes.c_uint64]
        self.dll.ptosim_gm_base.restype = ctypes.c_uint64
        self.dll.ptosim_onchip_base.restype = ctypes.c_uint64
        self.dll.ptosim_fault.argtypes = [
            ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_longlong),
            ctypes.c_int,
        ]
        if adopt_gm_base is not None:  # share another library's GM window (before any use)
            self.dll.ptosim_adopt_gm_base(adopt_gm_base)
        self.gm_base = int(self.dll.ptosim_gm_base())
        self.onchip_base = int(self.dll.ptosim_onchip_base())
        if not self.gm_base or not self.onchip_base:
            raise CxxError(
                "could not reserve the address ranges for tile storage and GM (mmap failed)"
            )
        self.sites = SiteMap(lib.path)
        self._site_of_pc: dict[int, str | None] = {}  # site() answers, per call-site offset
        self.signatures = []
        for i in range(len(lib.entries)):
            sig = getattr(self.dll, f"ptosim_entry_sig_{i}")
            sig.restype = ctypes.c_char_p
            call = getattr(self.dll, f"ptosim_entry_call_{i}")
            call.argtypes = [ctypes.POINTER(ctypes.c_uint64)]
            call.restype = ctypes.c_int
            self.signatures.append(json.loads(sig().decode()))

    def set_core(self, program) -> None:
        """Tell the library which core the next recording runs on (block, vector core)."""
        role = program.core_role
        self.dll.ptosim_set_block(program.block_idx, program.block_num)
        self.dll.ptosim_set_core(role.subblock, role.subblock_dim)

    def site(self, pc: int) -> str | None:
        """``kernel.cpp:42`` for a call-site offset in the user's code (None inside ptosim's
        headers or unknown); cached per offset (a raw access loop asks for the same ones)."""
        try:
            return self._site_of_pc[pc]
        except KeyError:
            site = self._site_of_pc[pc] = self._site(pc)
            return site

    def _site(self, pc: int) -> str | None:
        where = self.sites.lookup(pc)
        if where is None:
            return None
        path, line = where
        if ptosim_header(path) or path.startswith(_SYSTEM_HEADERS) or "/ziglang/lib/" in path:
            return None  # a frame in ptosim's or the C++ library's headers: not the user's line
        return f"{os.path.basename(path)}:{line}"

    def request_site(self, req: dict) -> str | None:
        """The user's line of a shim request (a raw access: the first frame in the user's
        code)."""
        if "pcs" in req:
            return self.first_user_site(req["pcs"])
        return self.site(req.get("pc", -1))

    def first_user_site(self, pcs) -> str | None:
        for pc in pcs:
            s = self.site(pc)
            if s is not None:
                return s
        return None


class CxxProgram:
    """A C++ kernel file; ``entry(name)`` gives a runnable kernel.

    Args:
        path: the .cpp file (its own directory is on the include path).
        compiler: ``"zig"``, ``"g++"``, ``"clang++"`` or a path (default: PTOSIM_CXX, else the
            system g++, else clang++, else zig's clang).
        defines: extra ``NAME`` / ``NAME=VALUE`` macros; include_dirs: extra include directories.
    """

    def __init__(
        self, path, *, compiler: str | None = None, defines=(), include_dirs=(), cores=None
    ):
        self.path = Path(path)
        if not self.path.is_file():
            raise _build.CxxBuildError(f"C++ kernel file not found: {self.path}")
        self.compiler = compiler
        self.defines = list(defines)
        self.include_dirs = list(include_dirs)
        self.cores = parse_cores(cores, "load: cores")
        self._entries: list[str] = []  # every entry asked for: one library serves them all
        self._loaded: dict[tuple[str, str], _Loaded] = {}  # (target family, half) -> library

    def entry(self, name: str, *, cores=None) -> CxxKernel:
        """The kernel function ``name`` (an extern "C" function or a template instantiation such as
        ``kern<float, 16>``), usable with ``Device.run`` like a ``@pto.kernel``; ``cores``: the
        cores it runs on (``"vec"``, ``"cube"``, ``"mix"``; default the program's, else decided
        by the body, as ``@pto.kernel(cores=...)``)."""
        if not isinstance(name, str) or not name.strip():
            raise KernelError(f"entry: a function name is needed, got {name!r}")
        _build.entry_expression(name)  # refuse a malformed name now, not at run time
        if name not in self._entries:
            self._entries.append(name)
        cores = parse_cores(cores, "entry: cores")
        return CxxKernel(self, name, cores if cores is not None else self.cores)

    def library(self, entry: str, target: str, kind: str = "vec") -> tuple[_Loaded, int]:
        """The loaded library holding ``entry`` for one target family and core kind (the half
        ``kind`` of ``build.FLAVOURS``), and the entry's index in it; built (or fetched from the
        cache) with every entry asked for so far."""
        loaded = self._loaded.get((target, kind))
        if loaded is None or entry not in loaded.info.entries:
            lib = _build.build(
                self.path, list(self._entries), target=target, compiler=self.compiler,
                defines=self.defines, include_dirs=self.include_dirs, kind=kind,
            )  # fmt: skip
            loaded = self._loaded[(target, kind)] = _Loaded(lib)
        return loaded, loaded.info.entries.index(entry)

    def __repr__(self) -> str:
        return f"<pto.cxx program {self.path.name}>"


def load(
    path, *, compiler: str | None = None, defines=(), include_dirs=(), cores=None
) -> CxxProgram:
    """Load a C++ kernel file (built lazily, per target and core half, when a kernel of it is
    run); ``cores``: the cores its kernels run on (``"vec"``, ``"cube"``, ``"mix"``; default:
    decided by the body, as ``@pto.kernel(cores=...)``). A mixed kernel is built twice, with
    ``__DAV_CUBE__`` for the cube core and ``__DAV_VEC__`` for the vector cores."""
    return CxxProgram(
        path, compiler=compiler, defines=defines, include_dirs=include_dirs, cores=cores
    )


class CxxKernel(Kernel):
    """One C++ kernel function, run by ``Device.run(kernel, *args, block_dim=N)``.

    Arguments are passed positionally (or by the C++ parameter names): GM buffers for pointer
    parameters, Python numbers for integer / floating parameters.
    """

    def __init__(self, program: CxxProgram, name: str, cores=None):
        self.program = program
        self.entry_name = name

        def body(*args, **kwargs):
            return self._run_block(args, kwargs)

        body.__name__ = re.sub(r"\s+", "", _build.entry_expression(name))
        super().__init__(body, cores=cores)

    # -- parameters ------------------------------------------------------------------------------
    def parameters(self, target: str = "a2a3", kind: str | None = None) -> list[dict]:
        """The C++ parameters: [{"name", "k": ptr|int|float|opaque, "dt"}], in order (read from
        the build of half ``kind``; default the one the kernel's first core runs)."""
        if kind is None:
            launch = self.cores or "vec"
            kind = _build.flavour(target, launch, "aic" if launch != "vec" else "vec")
        loaded, index = self.program.library(self.entry_name, target, kind)
        sig = loaded.signatures[index]
        names = parameter_names(loaded.info.preprocessed, self.name, len(sig))
        return [dict(p, name=n) for p, n in zip(sig, names)]

    # -- one block -------------------------------------------------------------------------------
    def _run_block(self, args, kwargs) -> None:
        rec = _program.current()
        arch = rec.program.arch
        target = arch.target
        kind = _build.flavour(target, arch.launch, arch.core_kind)
        loaded, index = self.program.library(self.entry_name, target, kind)
        params = self.parameters(target, kind)
        values = _bind(self.name, params, args, kwargs)
        buffers = [v for v in values if isinstance(v, GmBuffer)]
        words = (ctypes.c_uint64 * max(len(params), 1))()
        for i, (p, v) in enumerate(zip(params, values)):
            words[i] = _word(self.name, p, v, loaded.gm_base)
        dispatcher = Dispatcher(loaded, rec, buffers)

        def callback(request, out):
            return dispatcher.handle(request, out)

        cb = _CALLBACK(callback)  # kept alive for the call below
        loaded.dll.ptosim_set_callback(cb)
        loaded.set_core(rec.program)
        call = getattr(loaded.dll, f"ptosim_entry_call_{index}")
        try:
            rc = call(words)
        finally:
            rec.source = None
            loaded.dll.ptosim_set_callback(_CALLBACK(0))
        if rc == 0:
            return
        if rc == 1 and dispatcher.error is not None:
            raise dispatcher.error
        if rc == 3:
            raise _fault_error(loaded)
        raise CxxError(f"{self.name}: the C++ kernel ended with an exception (code {rc})")


def _fault_error(loaded: _Loaded) -> CxxError:
    addr = ctypes.c_uint64(0)
    sites = (ctypes.c_longlong * 48)()
    n = loaded.dll.ptosim_fault(ctypes.byref(addr), sites, 48)
    where = loaded.first_user_site(list(sites[:n])) or "<unknown line>"
    a = addr.value
    if loaded.onchip_base <= a < loaded.onchip_base + ONCHIP_SPAN_BYTES:
        what = "reads or writes tile storage directly (tile.data()[i])"
    elif a >= loaded.gm_base:
        what = "dereferences a __gm__ pointer directly"
    else:
        return CxxError(f"{where}: the kernel dereferences an invalid pointer ({a:#x})")
    if RAW_ACCESS_SERVED:
        why = (
            "ptosim serves one element access at a time within one page: this access "
            "straddles two pages or touched that memory again before it completed"
        )
    else:
        why = "ptosim serves raw element accesses on x86_64 Linux only"
    return CxxError(
        f"{where}: the kernel {what}; {why}: use tile.GetValue(i) / SetValue(i, v) "
        "(or GlobalTensor GetValue / SetValue)"
    )


def _bind(name: str, params: list[dict], args, kwargs) -> list:
    if len(args) > len(params):
        raise KernelError(f"{name}: takes {len(params)} arguments, got {len(args)}")
    values = list(args) + [None] * (len(params) - len(args))
    given = [True] * len(args) + [False] * (len(params) - len(args))
    index = {p["name"]: i for i, p in enumerate(params)}
    for k, v in kwargs.items():
        if k not in index:
            raise KernelError(f"{name}: no parameter named {k!r} (parameters: {', '.join(index)})")
        if given[index[k]]:
            raise KernelError(f"{name}: parameter {k!r} given twice")
        values[index[k]], given[index[k]] = v, True
    missing = [p["name"] for p, g in zip(params, given) if not g]
    if missing:
        raise KernelError(f"{name}: missing arguments for {', '.join(missing)}")
    return values


def _word(name: str, p: dict, v, gm_base: int) -> int:
    """One 64-bit argument word for the entry call."""
    what = f"{name}: parameter {p['name']!r}"
    if p["k"] == "ptr":
        if v is None:
            return 0
        if not isinstance(v, GmBuffer):
            raise KernelError(
                f"{what} is a pointer: pass a GM buffer (dev.gm_array / gm_zeros), "
                f"got {type(v).__name__}"
            )
        return gm_base + (v.address - GM_BASE_ADDRESS)
    if p["k"] == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            try:
                if isinstance(v, np.integer):
                    return int(v) & (2**64 - 1)
            except ImportError:  # pragma: no cover
                pass
            raise KernelError(f"{what} is an integer ({p['dt']}), got {v!r}")
        return int(v) & (2**64 - 1)
    if p["k"] == "float":
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise KernelError(f"{what} is a floating value ({p['dt']}), got {v!r}") from None
        return struct.unpack("<Q", struct.pack("<d", f))[0]
    raise KernelError(f"{what} has a C++ type ptosim cannot pass ({p.get('type')})")


def parameter_names(text: str, name: str, count: int) -> list[str]:
    """The parameter names of function ``name`` in preprocessed C++ ``text`` (its definition),
    or arg0..argN when they cannot be read."""
    base = re.sub(r"<.*$", "", name).split("::")[-1]
    for m in re.finditer(rf"\b{re.escape(base)}\s*\(", text):
        start = m.end()
        depth, i = 1, start
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        after = text[i : i + 200].lstrip()
        if not after.startswith("{"):
            continue  # a call or a declaration
        params = _split_params(text[start : i - 1])
        names = []
        for prm in params:
            prm = prm.split("=")[0].strip()
            ids = re.findall(r"[A-Za-z_]\w*", prm)
            names.append(ids[-1] if len(ids) >= 2 else "")
        if len(names) == count and all(names) and len(set(names)) == count:
            return names
    return [f"arg{i}" for i in range(count)]


def _split_params(s: str) -> list[str]:
    if not s.strip() or s.strip() == "void":
        return []
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


__all__ = ["CxxKernel", "CxxProgram", "PtoSimError", "load"]
