"""The host side of a test case: ACL runtime calls, kernel launches, and a test body that drives
tiles itself.

A ``Host`` serves the requests of one case: outside a launch, ACL calls (device memory is
ptosim's GM), ``kernel<<<blocks, l2, stream>>>(args)`` (simulated by ``Device.run`` with
``block_dim = blocks``) and instructions of a kernel called as a plain function (kept, and
simulated as one single-block run at the next runtime call); inside a launch, the kernel's own
requests through a ``Dispatcher``.

Some tests (the library's cpu tests of TMOV, TEXTRACT, TCOLPROD ...) have no kernel: the test
body itself assigns tiles, fills them through ``tile.data()``, calls instructions and reads the
results. ``run_body_as_kernel`` runs such a body as a single-block kernel, so its raw accesses
and ``GetValue`` calls are served by the simulation session like a kernel's.
"""

from __future__ import annotations

import ctypes
import json
import re
import shutil
import subprocess

import numpy as np

from .. import program as _program
from ..device import Device
from ..errors import CxxError, PtoSimError
from ..memory import GM_BASE_ADDRESS, SPACE_OF_LOC
from ..program import Kernel
from . import build as _build
from .dispatch import Dispatcher, _located
from .hostmem import GM_WRITERS, HostMemory  # GM_WRITERS: a raw host read of GM waits for them
from .kept_tiles import KeptTiles
from .kernel import _CALLBACK, _fault_error, _Loaded
from .raw import ONCHIP_SPAN_BYTES, PAGE_BYTES, element_writes, parse_log

# the host-side errors that mean "this test body is the kernel" (run_body_as_kernel)
BODY_IS_KERNEL = ("raw access to device memory", "scalar read in a kernel called without")


class Host:
    """Serves the requests of one test case: ACL calls on the host side, launches, and (while
    a launch is being recorded) the kernel's instructions through a Dispatcher."""

    def __init__(self, loaded: _Loaded, dev: Device, cores: str | None = None, halves=None):
        self.loaded = loaded
        self.dev = dev
        self.cores = cores  # the folder's launch kind (testdir.folder_cores)
        # build.FLAVOURS half -> the library of that half (the host's, and for a mixed folder
        # the other half, which runs the host's launches through ptosim_run_launch)
        self.halves: dict[str, _Loaded] = halves or {}
        self.block: Dispatcher | None = None
        self.error: BaseException | None = None
        self.runs: list = []
        # requests of a kernel called as a plain function (no <<<>>>): replayed as one block at
        # the next host runtime call, the way a stream synchronisation ends a launch
        self.implicit: list[tuple[dict, str | None]] = []
        self.callback = _CALLBACK(self.handle)  # kept alive as long as the host
        self.hostmem = HostMemory(dev, loaded.gm_base)  # GlobalTensors over host memory (cpu)
        self._given: dict[int, bytes] = {}  # page -> its bytes given for a raw write (raw.py)
        # a plain-called kernel's raw tile reads: its requests so far simulated once, the
        # on-chip memories after them (raw writes since applied), for len(implicit) requests
        self._seen: tuple[int, dict, Dispatcher] | None = None
        # the last flushed run and its Dispatcher: what a read of tile storage right after a
        # flush sees (a plain-called kernel copying a loaded tile into GM element by element:
        # its first GM write flushes the calls before it)
        self._flushed: tuple | None = None
        # cpu: the storage of the tiles the plain calls used, as the last run left it
        self.kept = KeptTiles() if dev.target == "cpu" else None

    # -- a kernel called as a plain function writing tile storage (tile.data()[i] = v,
    # std::fill): kept with its other requests as the SetValues of the elements it wrote (the
    # page is given as zeros: a write needs no old value; the addressed element is always stored)
    def raw_tile_write(self, req: dict, out) -> None:
        n = int(req["page"])
        ctypes.memset(out, 0, n)
        self._given[req["addr"] - req["addr"] % n] = bytes(n)

    def raw_log(self, req: dict) -> None:
        """The raw writes the shim logged since its last request: host writes to device memory
        go to the GM buffers now; a plain-called kernel's tile writes are kept with its other
        requests (and applied to the memories its reads see)."""
        writes = parse_log(req, self.loaded.first_user_site)
        given, self._given = self._given, {}
        n = PAGE_BYTES
        tile_writes = []
        for w in writes:
            if self._in_gm(w.addr):
                self._gm_write(w.addr - w.addr % n + w.first, w.data)
            else:
                tile_writes.append(w)
        if not tile_writes:
            return
        pages = {w.addr - w.addr % n for w in tile_writes}
        req = {"op": "raw_writes", "writes": tile_writes, "page_size": n,
               "given": {p: given[p] for p in pages}}  # fmt: skip
        fresh = self._seen is not None and self._seen[0] == len(self.implicit)
        self.implicit.append((req, tile_writes[0].site))
        if fresh:  # the replay's SetValues, applied to the simulated memory too
            _, mems, disp = self._seen
            stores = element_writes(tile_writes, req["given"], disp.raw.element, n)
            for obj, index, value, _ in stores:
                at = obj.placement.address + index * len(value)
                mems[SPACE_OF_LOC[obj.loc]][at : at + len(value)] = np.frombuffer(value, np.uint8)
            self._seen = (len(self.implicit), mems, disp)

    def raw_tile_read(self, req: dict, out) -> None:
        """A plain-called kernel reading tile storage (the library's TMRGSORT top-k test copies
        tiles element by element between its instructions): its requests so far are simulated
        (once per new instruction; the memory then follows its raw writes) and the page is
        served from the on-chip memory of the addressed tile. The read itself is not an
        instruction: the plain call is replayed as one run at the next runtime call."""
        if self._seen is None or self._seen[0] != len(self.implicit):
            if not self.implicit and self._flushed is not None:
                res, disp = self._flushed  # the memories as the last run left them
            else:
                res, disp = self._simulate(list(self.implicit))
            mems = {k: m.data.copy() for k, m in res.blocks[0].buffers.items()}
            self._seen = (len(self.implicit), mems, disp)
        _, mems, disp = self._seen
        n = int(req["page"])
        off = req["addr"] - self.loaded.onchip_base
        tile = disp.tile_over(off)
        if tile is None:
            raise CxxError(
                f"the kernel reads UB address {off:#x} directly, but no tile was TASSIGNed or "
                "used over it: its element type is unknown"
            )
        mem = mems[SPACE_OF_LOC[tile.loc]]
        page = off - off % n
        data = np.zeros(n, np.uint8)
        lo, hi = page, min(page + n, mem.size)
        if lo < hi:
            data[: hi - lo] = mem[lo:hi]
        self._serve_readable(out, page + self.loaded.onchip_base, data.tobytes())

    def _serve_readable(self, out, page: int, data: bytes) -> None:
        """Give the shim ``data`` as the page's bytes, which its later reads may use until its
        next request (entry.hpp): host reads and a plain-called kernel's are no instructions,
        so a loop copying tile storage element by element costs one request per page."""
        n = len(data)
        ctypes.memmove(out, data, n)
        ctypes.memset(out + n, 1, 1)
        self._given[page] = data

    # -- host code touching device memory directly (the CPU simulator's device memory is host
    # memory, so tests fill aclrtMalloc buffers in place): served from the GM buffers, no
    # instruction; between launches the buffers hold the device's memory
    def _in_gm(self, addr: int) -> bool:
        return self.loaded.gm_base <= addr < self.loaded.gm_base + (16 << 30)

    def _page(self, page: int, n: int) -> bytes:
        out = np.zeros(n, np.uint8)
        base = self.loaded.gm_base
        for buf in self.dev.gm.buffers:
            start = base + (buf.address - GM_BASE_ADDRESS)
            lo, hi = max(page, start), min(page + n, start + buf.nbytes)
            if lo < hi:
                out[lo - page : hi - page] = buf.data[lo - start : hi - start]
        return out.tobytes()

    def _pending_conflicts(self, write: bool) -> bool:
        """Whether the plain-call instructions not yet simulated must run before a raw GM access
        by code on the host thread: a read follows their GM writes, a write follows any of their
        GM accesses. Otherwise the access is served now and they stay one kernel (a plain-called
        kernel that reads a scalar argument from GM between its instructions keeps its tiles)."""
        for req, _ in self.implicit:
            if req["op"] in GM_WRITERS:
                return True
            if write and any(d.get("k") == "gm" for d in req.get("a", [])):
                return True
        return False

    def raw_gm(self, req: dict, out) -> None:
        self._buffer(req["addr"])  # an address outside every aclrtMalloc buffer is an error
        n = int(req["page"])
        page = req["addr"] - req["addr"] % n
        self._serve_readable(out, page, self._page(page, n))

    def _gm_write(self, addr: int, data: bytes) -> None:
        """Host code's write of ``data`` at host address ``addr`` of device memory."""
        base = self.loaded.gm_base
        for buf in self.dev.gm.buffers:
            start = base + (buf.address - GM_BASE_ADDRESS)
            lo, hi = max(addr, start), min(addr + len(data), start + buf.nbytes)
            if lo < hi:
                buf.data[lo - start : hi - start] = bytearray(data[lo - addr : hi - addr])

    def handle(self, request: bytes, out) -> int:
        if self.block is not None:  # inside a launch: the kernel's own requests
            rc = self.block.handle(request, out)
            if rc:
                self.error = self.block.error
            return rc
        site = None
        try:
            req = json.loads(request)
            site = self.loaded.request_site(req)
            if req["op"] == "raw" and self._in_gm(req["addr"]):
                if self._pending_conflicts(req["write"]):
                    self.flush()  # the access must see (or follow) the work issued before it
                self.raw_gm(req, out)
            elif req["op"] == "raw_log":
                self.raw_log(req)
            elif req["op"] == "raw" and req["write"] and self._onchip(req["addr"]):
                self.raw_tile_write(req, out)
            elif req["op"] == "raw" and self._onchip(req["addr"]):
                self.raw_tile_read(req, out)
            elif req["op"] == "raw":
                raise CxxError(
                    "raw access to device memory (tile.data()) outside a kernel launch "
                    "<<<...>>>: launch the kernel"
                )
            elif req["op"] == "launch" or req["op"].startswith("acl."):
                self.flush()
                self.host(req, out)
            elif req["op"] == "__unsupported__":  # at once: host threads may follow it
                raise CxxError(f"{req['what']} is not supported by ptosim")
            elif req["op"].endswith("GetValue"):  # (a SetValue is kept like an instruction)
                raise CxxError(
                    "scalar read in a kernel called without <<<...>>>: its data is only known "
                    "after the call; launch it with <<<...>>>"
                )
            else:
                written = self.hostmem.adopt(req, self._in_gm)
                self.implicit.append((req, site))
                if written:  # a GM write to host memory: visible when the call returns
                    self.flush()
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
            size = max(int(req["size"]), 1)
            acl = self.dev.config.acl
            buf = self.dev.gm_zeros(acl.allocation_bytes(size) if acl else size, "uint8")
            if acl is not None:
                buf.requested_bytes = size  # the padding after it: D23
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
                req.get("words"), req.get("dyn_ubuf"),
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
        self._seen = None
        if reqs:
            res, disp = self._simulate(reqs)
            self.runs.append(res)
            self._flushed = (res, disp)
            if self.kept is not None:
                self.kept.save(disp.tiles, res.blocks[0].buffers)

    def _onchip(self, addr: int) -> bool:
        return 0 <= addr - self.loaded.onchip_base < ONCHIP_SPAN_BYTES

    def _simulate(self, reqs: list) -> tuple:
        """(RunResult, Dispatcher) of ``reqs`` run as one single-block launch."""
        host = self
        disps: list[Dispatcher] = []

        def implicit_launch():
            rec = _program.current()
            disp = Dispatcher(host.loaded, rec, list(host.dev.gm.buffers))
            disps.append(disp)
            if host.kept is not None:
                host.kept.restore(reqs, disp)
            for req, site in reqs:
                rec.source = site
                try:
                    disp.issue(req, site, None)
                except BaseException as exc:
                    raise _located(exc, site) from None
                finally:
                    rec.source = None

        res = self.dev.run(Kernel(implicit_launch, cores=self.cores), block_dim=1)
        return res, disps[-1]

    def launch(
        self, blocks: int, symbol: str, key: str | None = None, words=None, dyn_ubuf=None
    ) -> None:
        """Run ``symbol`` on ``blocks`` blocks (``dyn_ubuf``: the launch's dynamic UB bytes, the
        second ``<<<...>>>`` parameter when it is an integer)."""
        host = self

        def body():
            rec = _program.current()
            arch = rec.program.arch
            half = _build.flavour(arch.target, arch.launch, arch.core_kind)
            lib = host.halves.get(half, host.loaded)
            host.block = Dispatcher(lib, rec, list(host.dev.gm.buffers))
            lib.dll.ptosim_set_callback(host.callback)  # the thread's own shim state
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
            self.runs.append(
                self.dev.run(
                    Kernel(body, cores=self.cores), block_dim=blocks,
                    dyn_ubuf_size=int(dyn_ubuf) if dyn_ubuf else None,
                )
            )  # fmt: skip
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


def run_body_as_kernel(loaded: _Loaded, index: int, dev: Device) -> tuple[int, Host]:
    """Run test case ``index`` as the body of a single-block kernel on ``dev``: its instructions,
    raw tile accesses and GetValue calls are served like a kernel's (in a simulation session
    when it reads values). Returns the runner's code (0 pass, 1 a gtest check failed, 2 ptosim
    stopped it, 3 a raw access ptosim cannot serve, 4 another C++ exception) and the host."""
    host = Host(loaded, dev)
    codes: list[int] = []

    def body():
        rec = _program.current()
        host.block = Dispatcher(loaded, rec, list(dev.gm.buffers))
        loaded.dll.ptosim_set_callback(host.callback)
        loaded.dll.ptosim_set_block(0, 1)
        try:
            rc = loaded.dll.ptosim_test_run(index)
        finally:
            err = host.block.error
            host.block = None
            rec.source = None
        if rc == 2 and err is not None:
            raise err  # a ptosim error, or the request for a session (re-run by Device.run)
        codes.append(rc)

    body.__name__ = "test_body"
    try:
        host.runs.append(dev.run(Kernel(body), block_dim=1))
    except PtoSimError as exc:
        host.error = exc
        return 2, host
    return (codes[-1] if codes else 2), host
