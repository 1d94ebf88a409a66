"""``ptosim test DIR``: run a vendor-style test folder (kernel.cpp, main.cpp, gen_data.py).

Steps: ``gen_data.py`` runs in a temporary work folder (``<work>/data``); every ``.cpp`` of the
folder is built with the ACL and gtest stand-ins and the test runner; each gtest case runs in
process (cwd ``<work>/data/bin``, as the vendor's scripts do) on a fresh device. ACL device
memory is ptosim GM; each ``kernel<<<blocks, l2, stream>>>(args)`` is simulated by
``Device.run`` with ``block_dim = blocks`` (the closure stored by the launch runs once per
block, live-recorded like ``ptosim run``). Per case: the test's own verdict, output.bin vs
golden.bin, the cycles and findings of each launch.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import program as _program
from ..config import available_devices
from ..device import Device
from ..errors import CxxError, KernelError, PtoSimError
from ..memory import GM_BASE_ADDRESS
from ..program import Kernel
from . import build as _build
from .dispatch import Dispatcher, _located
from .kernel import _CALLBACK, _fault_error, _Loaded


@dataclass
class CaseReport:
    case: str
    device: str
    verdict: str  # "pass", "FAIL" (a gtest check failed) or "ERROR" (ptosim stopped it)
    output: str  # "bit-exact", "differs in N of M bytes", "no golden/output pair"
    cycles: list = field(default_factory=list)  # per launch (None when untimed)
    findings: list = field(default_factory=list)  # str of each finding
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.verdict == "pass"


# the CMake functions of the reference library's test folders that say which cores a folder's
# kernels run on (tests/npu/*/src/st/testcase/CMakeLists.txt: pto_vec_st, pto_cube_st,
# pto_mix_st build for dav-c220-vec, dav-c220-cube and dav-c220)
_CMAKE_CORES = re.compile(r"^\s*pto_(vec|cube|mix)_st\s*\(", re.M)


def folder_cores(test_dir: Path) -> str | None:
    """``"vec"``, ``"cube"`` or ``"mix"`` as the folder's CMakeLists.txt builds its kernel;
    None when it does not say (the kernel's body decides, ``@pto.kernel(cores=None)``)."""
    cmake = test_dir / "CMakeLists.txt"
    try:
        m = _CMAKE_CORES.search(cmake.read_text(errors="replace"))
    except OSError:
        return None
    return m.group(1) if m else None


def folder_devices(test_dir: Path) -> list[str]:
    """The devices a folder's target allows (``--device all``): by the path's target name."""
    parts = {p.lower() for p in test_dir.resolve().parts}
    if "a2a3" in parts:
        return ["a2", "a3"]
    if "a5" in parts:
        return ["950pr", "950dt"]
    if "cpu" in parts:
        return ["cpu"]

    return [d for d in available_devices()]


def _common_includes(test_dir: Path) -> list[Path]:
    """tests/common (test_common.h) of a pto-isa checkout, when the folder lives in one."""
    for parent in [test_dir, *test_dir.parents]:
        for cand in (parent / "tests" / "common", parent / "common"):
            if (cand / "test_common.h").is_file():
                return [cand]
    return []


def compare_outputs(case_dir: Path) -> str:
    gold, out = case_dir / "golden.bin", case_dir / "output.bin"
    if not (gold.is_file() and out.is_file()):
        return "no golden/output pair"
    g, o = gold.read_bytes(), out.read_bytes()
    n = min(len(g), len(o))
    diff = sum(1 for a, b in zip(g[:n], o[:n]) if a != b)
    if diff == 0 and len(g) == len(o):
        return "bit-exact"
    if diff == 0:
        return f"bit-exact on the first {n} bytes (golden {len(g)} B, output {len(o)} B)"
    return f"differs in {diff} of {n} bytes"


class _Host:
    """Serves the requests of one test case: ACL calls on the host side, launches, and (while
    a launch is being recorded) the kernel's instructions through a Dispatcher."""

    def __init__(self, loaded: _Loaded, dev: Device, cores: str | None = None, halves=None):
        self.loaded = loaded
        self.dev = dev
        self.cores = cores  # the folder's launch kind (folder_cores)
        # build.FLAVOURS half -> the library of that half (the host's, and for a mixed folder
        # the other half, which runs the host's launches through ptosim_run_launch)
        self.halves: dict[str, _Loaded] = halves or {}
        self.block: Dispatcher | None = None
        self.error: BaseException | None = None
        self.runs: list = []
        # requests of a kernel called as a plain function (no <<<>>>): replayed as one block at
        # the next host runtime call, the way a stream synchronisation ends a launch
        self.implicit: list[tuple[dict, str | None]] = []

    def handle(self, request: bytes, out) -> int:
        if self.block is not None:  # inside a launch: the kernel's own requests
            rc = self.block.handle(request, out)
            if rc:
                self.error = self.block.error
            return rc
        site = None
        try:
            req = json.loads(request)
            site = self.loaded.site(req.get("pc", -1))
            if "pcs" in req:  # a raw access: the first frame in the user's code
                site = self.loaded.first_user_site(req["pcs"])
            if req["op"] in ("raw", "raw_done"):
                raise CxxError(
                    "raw access to device memory (a __gm__ pointer or tile.data()) outside a "
                    "kernel launch <<<...>>>: use aclrtMemcpy, or launch the kernel"
                )
            if req["op"] == "launch" or req["op"].startswith("acl."):
                self.flush()
                self.host(req, out)
            elif req["op"].endswith(("GetValue", "SetValue")):
                raise CxxError(
                    "scalar access in a kernel called without <<<...>>>: its data is only known "
                    "after the call; launch it with <<<...>>>"
                )
            else:
                self.implicit.append((req, site))
            return 0
        except BaseException as exc:
            located = isinstance(exc, PtoSimError) and re.match(r"\S+:\d+: ", exc.message)
            if site and isinstance(exc, PtoSimError) and not located:
                exc.message = f"{site}: {exc.message}"
                exc.args = (exc.message,)
            self.error = exc
            return 1

    def _buffer(self, addr: int):
        base = self.loaded.gm_base
        for buf in self.dev.gm.buffers:
            start = base + (buf.address - GM_BASE_ADDRESS)
            if start <= addr < start + max(buf.nbytes, 1):
                return buf, addr - start
        raise CxxError(
            f"device address {addr - base + GM_BASE_ADDRESS:#x} is not in any aclrtMalloc buffer"
        )

    def host(self, req: dict, out) -> None:
        op = req["op"]
        if op == "acl.malloc":
            buf = self.dev.gm_zeros(max(int(req["size"]), 1), "uint8")
            addr = self.loaded.gm_base + (buf.address - GM_BASE_ADDRESS)
            ctypes.memmove(out, ctypes.byref(ctypes.c_uint64(addr)), 8)
        elif op == "acl.memcpy":
            self._memcpy(req["dst"], req["src"], int(req["n"]))
        elif op == "acl.memset":
            buf, off = self._buffer(req["dst"])
            n = min(int(req["n"]), buf.nbytes - off)
            buf.data[off : off + n] = req["value"] & 0xFF
        elif op == "launch":
            self.launch(
                int(req["blocks"]), req.get("kernel") or "kernel", req.get("key"),
                req.get("words"),
            )  # fmt: skip
        else:
            raise CxxError(f"{op} outside a kernel launch (PTO calls run inside kernel<<<...>>>)")

    def _memcpy(self, dst: int, src: int, n: int) -> None:
        lo, hi = self.loaded.gm_base, self.loaded.gm_base + (16 << 30)
        if lo <= src < hi:
            sbuf, soff = self._buffer(src)
            n = min(n, sbuf.nbytes - soff)
            data = sbuf.data[soff : soff + n].tobytes()
        else:
            data = ctypes.string_at(src, n)
        if lo <= dst < hi:
            dbuf, doff = self._buffer(dst)
            m = min(len(data), dbuf.nbytes - doff)
            dbuf.data[doff : doff + m] = bytearray(data[:m])
        else:
            ctypes.memmove(dst, data, len(data))

    def flush(self) -> None:
        """Simulate the pending plain-call requests as one single-block launch."""
        reqs, self.implicit = self.implicit, []
        if not reqs:
            return
        host = self

        def implicit_launch():
            rec = _program.current()
            disp = Dispatcher(host.loaded, rec, list(host.dev.gm.buffers))
            for req, site in reqs:
                rec.source = site
                try:
                    disp.issue(req, site, None)
                except BaseException as exc:
                    raise _located(exc, site) from None
                finally:
                    rec.source = None

        self.runs.append(self.dev.run(Kernel(implicit_launch), block_dim=1))

    def launch(self, blocks: int, symbol: str, key: str | None, words) -> None:
        host = self

        def body():
            rec = _program.current()
            arch = rec.program.arch
            half = _build.flavour(arch.target, arch.launch, arch.core_kind)
            lib = host.halves.get(half, host.loaded)
            host.block = Dispatcher(lib, rec, list(host.dev.gm.buffers))
            lib.set_core(rec.program)
            try:
                if lib is host.loaded:
                    rc = lib.dll.ptosim_run_pending()
                else:  # the same kernel in the other half's library, with the launch's words
                    rc = _run_in(lib, symbol, key, words)
            finally:
                err = host.block.error
                host.block = None
                rec.source = None
                lib.dll.ptosim_set_core(0, 1)
            if rc == 1 and err is not None:
                raise err
            if rc == 3:
                raise _fault_error(lib)
            if rc == 4:
                raise CxxError(
                    f"{symbol}: the {half} half of the kernel could not run the launch (its "
                    "arguments are not all pointers and integers)"
                )
            if rc != 0:
                raise CxxError(f"{symbol}: the kernel ended with a C++ exception (code {rc})")

        body.__name__ = _demangle(symbol)
        try:
            self.runs.append(self.dev.run(Kernel(body, cores=self.cores), block_dim=blocks))
        finally:  # host code after the launch (and plain calls) is block 0 of 1 again
            self.loaded.dll.ptosim_set_block(0, 1)


def _run_in(lib: _Loaded, symbol: str, key: str | None, words) -> int:
    """Run a launch the host library stored in another half's library: the kernel ``symbol``
    there, of function type ``key``, with the launch's argument words (entry.hpp
    ptosim_run_launch); 4 when it cannot."""
    if key is None or words is None:
        return 4
    try:
        fn = ctypes.cast(lib.dll[symbol], ctypes.c_void_p).value
    except AttributeError:
        return 4
    argv = (ctypes.c_uint64 * max(len(words), 1))(*[int(w) & (2**64 - 1) for w in words])
    return lib.dll.ptosim_run_launch(fn, key.encode(), argv)


def _demangle(name: str) -> str:
    exe = shutil.which("c++filt")
    if not name.startswith("_Z") or exe is None:
        return name
    out = subprocess.run([exe, name], capture_output=True, text=True).stdout.strip()
    return out.split("(")[0] or name


def run_test_dir(
    test_dir,
    devices: list[str],
    *,
    compiler: str | None = None,
    work: Path | None = None,
    case_filter: str = "",
) -> list[CaseReport]:
    """Run every gtest case of ``test_dir`` on each device; see the module docstring.

    Raises:
        CxxBuildError: the folder does not build. KernelError: gen_data.py failed.
    """
    test_dir = Path(test_dir).resolve()
    if not test_dir.is_dir():
        raise KernelError(f"ptosim test: {test_dir} is not a folder")
    sources = sorted(test_dir.glob("*.cpp"))
    if not sources:
        raise KernelError(f"ptosim test: no .cpp files in {test_dir}")
    work = Path(work or tempfile.mkdtemp(prefix=f"ptosim_test_{test_dir.name}_")).resolve()
    data = work / "data"
    (data / "bin").mkdir(parents=True, exist_ok=True)
    gen = test_dir / "gen_data.py"
    if gen.is_file():
        # the vendor's run scripts put the suite's shared helpers (tests/cpu/st/utils.py) on
        # the path: the folder and its ancestors up to the suite's root
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(test_dir), str(test_dir.parent), str(test_dir.parent.parent)]
            + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        )
        proc = subprocess.run(
            [sys.executable, str(gen)], cwd=data, capture_output=True, text=True, env=env
        )
        if proc.returncode != 0:
            raise KernelError(f"ptosim test: gen_data.py failed:\n{proc.stderr[-2000:]}")
    reports = []
    cores = folder_cores(test_dir)
    for device in devices:
        target = Device(device).target
        incs = _common_includes(test_dir)
        # the host code runs in the build of the vector half (the cube half for a cube-only
        # folder); a mixed folder's cube core runs the cube half's build of the same kernel
        host = _build.flavour(target, cores or "vec", "aic" if cores == "cube" else "vec")
        lib = _build.build_test(
            sources, target=target, compiler=compiler, include_dirs=incs, kind=host
        )
        loaded = _Loaded(lib)
        halves = {host: loaded}
        if cores == "mix":
            other = _build.flavour(target, "mix", "aic")
            cube = _build.build_test(
                sources, target=target, compiler=compiler, include_dirs=incs, kind=other
            )
            halves[other] = _Loaded(cube, adopt_gm_base=loaded.gm_base)
        loaded.dll.ptosim_test_count.restype = ctypes.c_int
        loaded.dll.ptosim_test_name.restype = ctypes.c_char_p
        loaded.dll.ptosim_test_name.argtypes = [ctypes.c_int]
        loaded.dll.ptosim_test_run.argtypes = [ctypes.c_int]
        loaded.dll.ptosim_run_pending.restype = ctypes.c_int
        for i in range(loaded.dll.ptosim_test_count()):
            name = loaded.dll.ptosim_test_name(i).decode()
            if case_filter and case_filter not in name:
                continue
            reports.append(_run_case(loaded, i, name, device, data, cores, halves))
    return reports


def _run_case(
    loaded: _Loaded, index: int, name: str, device: str, data: Path, cores=None, halves=None
) -> CaseReport:
    host = _Host(loaded, Device(device), cores, halves)
    cb = _CALLBACK(host.handle)
    libs = list({id(lib): lib for lib in [loaded, *(halves or {}).values()]}.values())
    for lib in libs:  # the other half's kernel calls back too (a mixed folder)
        lib.dll.ptosim_set_callback(cb)
    loaded.dll.ptosim_set_block(0, 1)
    cwd = os.getcwd()
    os.chdir(data / "bin")  # the vendor tests read ../<Suite>.<case>/input.bin
    try:
        rc = loaded.dll.ptosim_test_run(index)
        if rc in (0, 1) and host.implicit:  # a plain call after the last runtime call
            try:
                host.flush()
            except PtoSimError as exc:
                host.error, rc = exc, 2
    finally:
        os.chdir(cwd)
        for lib in libs:
            lib.dll.ptosim_set_callback(_CALLBACK(0))
    error = None
    if rc == 2:
        error = str(host.error) if host.error is not None else "stopped by ptosim"
    elif rc == 3:
        error = str(_fault_error(loaded))
    elif rc == 4:
        error = "the test ended with a C++ exception"
    verdict = {0: "pass", 1: "FAIL"}.get(rc, "ERROR")
    return CaseReport(
        name,
        device,
        verdict,
        compare_outputs(data / name),
        [r.cycles for r in host.runs],
        [str(f) for r in host.runs for f in r.findings],
        error,
    )


def print_reports(reports: list[CaseReport]) -> None:
    for r in reports:
        tail = f"  <- {r.error.splitlines()[0]}" if r.error else ""
        if not r.error and r.findings:
            tail = f"  ({len(r.findings)} finding(s): {r.findings[0].splitlines()[0]})"
        cycles = ",".join("-" if c is None else str(c) for c in r.cycles) or "-"
        print(f"{r.device:<6} {r.case:<40} {r.verdict:<5} {r.output:<24} cycles {cycles}{tail}")
    ok = sum(r.ok for r in reports)
    exact = sum(r.output == "bit-exact" for r in reports)
    print(f"{ok}/{len(reports)} cases pass, {exact}/{len(reports)} outputs bit-exact to golden.bin")
