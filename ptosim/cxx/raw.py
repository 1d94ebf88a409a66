"""Raw element accesses of C++ kernels (``tile.data()[i]``, ``*gm_ptr``) served by the session.

The shim (ptosim_shim/entry.hpp) turns a fault in the reserved tile-storage / GM ranges into
requests. A read: ``raw`` (the GetValue of the element; the reply is the bytes of the page as
the session's memory holds them, which the shim maps for the one access). A write: ``raw`` for
the first write to a page since the last request (the page's bytes, ``given``); the shim then
single-steps each write against its own copy of the page and logs what it changed
(record.hpp RawLog), and sends the log, ``raw_log``, before its next request of any kind. Each
logged write becomes the SetValue of the elements it changed, and always of the addressed one
(storing the value already there is still a store), in address order; consecutive stores of
consecutive elements from one line are one SetValue of that many elements (``raw_set_run``),
so a ``std::fill`` over a tile costs one instruction per page, not one per element.

Element of an address: in GM, the GM buffer's dtype and ``offset // itemsize``; in UB, the tile
most recently TASSIGNed or used over the address, its dtype and ``offset // itemsize`` from its
start. Reads and writes are the GetValue / SetValue instructions (PIPE_S, timed, seen by the
hazard checker), so they need the session: a plain recording switches to it (NeedsSession).
"""

from __future__ import annotations

import ctypes
import platform
import struct
import sys
from dataclasses import dataclass

import numpy as np

from .. import api as pto
from ..errors import CxxError, PtoSimError
from ..isa.scalar_access import raw_get, raw_set_run
from ..memory import SPACE_OF_LOC
from ..program import NeedsSession

# ptosim_shim/record.hpp: tiles without TASSIGN point into the on-chip range from here on
UNPLACED_BASE_BYTES = 32 << 20
ONCHIP_SPAN_BYTES = 64 << 20
# where the shim serves raw accesses (entry.hpp PTOSIM_RAW_ACCESS: the page-fault error code and
# the trap flag); elsewhere a raw access stops the run with its line
RAW_ACCESS_SERVED = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
PAGE_BYTES = 4096  # entry.hpp RAW_PAGE: the unit the shim maps for a raw access
# one logged write (record.hpp RawLog): address, stack id, first changed byte of the page, count
_RECORD = struct.Struct("<QIHH")


@dataclass
class LoggedWrite:
    """One raw write of a kernel: its address, the user's line, and the bytes it changed
    (``data``, from page offset ``first``; their page is ``addr``'s)."""

    addr: int
    site: str | None
    first: int
    data: bytes


def parse_log(req: dict, site_of_stack) -> list[LoggedWrite]:
    """The writes of a ``raw_log`` request, in program order (``site_of_stack(pcs)``: the
    user's line of a stack of call sites)."""
    blob = ctypes.string_at(req["log"], req["size"])
    sites = [site_of_stack(pcs) for pcs in req["stacks"]]
    out, pos = [], 0
    for _ in range(req["count"]):
        addr, stack, first, n = _RECORD.unpack_from(blob, pos)
        pos += _RECORD.size
        out.append(LoggedWrite(addr, sites[stack], first, blob[pos : pos + n]))
        pos += n
    return out


def element_writes(writes: list[LoggedWrite], given: dict, element, page_size: int) -> list:
    """The element stores of ``writes``, in order: (object, index, value bytes, site) for each
    element a write changed and for the one it addressed, in address order per write.
    ``given``: page address -> the bytes the page was given with; ``element``: as
    ``RawAccess.element``."""
    states: dict[int, bytearray] = {}
    out = []
    for w in writes:
        page = w.addr - w.addr % page_size
        state = states.get(page)
        if state is None:
            state = states[page] = bytearray(given[page])
        end = w.first + len(w.data)
        old = bytes(state[w.first : end])
        state[w.first : end] = w.data
        if len(w.data) <= 16:
            changed = [page + w.first + k for k, (a, b) in enumerate(zip(old, w.data)) if a != b]
        else:
            diff = np.frombuffer(old, np.uint8) != np.frombuffer(w.data, np.uint8)
            changed = (np.flatnonzero(diff) + page + w.first).tolist()
        try:
            done_to = -1  # the end of the last element stored (a wide write covers several)
            for a in sorted({w.addr, *changed}):
                if a < done_to:
                    continue
                obj, index, size, first = element(a, aligned=a == w.addr)
                if first < page or first + size > page + page_size:
                    raise CxxError(
                        f"a raw write to element {index} straddles two pages: ptosim does not "
                        "serve it (use SetValue)"
                    )
                done_to = first + size
                out.append((obj, index, bytes(state[first - page : done_to - page]), w.site))
        except PtoSimError as exc:
            if w.site and w.site not in exc.message:
                exc.message = f"{w.site}: {exc.message}"
                exc.args = (exc.message,)
            raise
    return out


def store_runs(stores: list, recorder) -> None:
    """Issue ``element_writes``' stores: each run of consecutive elements of one object from
    one line is one SetValue (``raw_set_run``)."""
    k = 0
    while k < len(stores):
        obj, index, _, site = stores[k]
        j = k + 1
        while (
            j < len(stores)
            and stores[j][0] is obj
            and stores[j][3] == site
            and stores[j][1] == index + (j - k)
        ):
            j += 1
        dt = obj.geom.dtype if isinstance(obj, pto.Tile) else obj.dtype
        values = np.frombuffer(b"".join(s[2] for s in stores[k:j]), dt.np)
        recorder.source = site
        raw_set_run(obj, index, values)
        k = j


class RawAccess:
    """Serves the raw accesses of one block's run (``Dispatcher.raw`` / ``log``)."""

    def __init__(self, dispatcher):
        self.d = dispatcher
        self.given: dict[int, bytes] = {}  # page -> its bytes when its first write was served
        self._whole: dict[int, pto.GlobalTensor] = {}  # GM buffer id -> a view of all of it

    # -- address -> element -----------------------------------------------------------------
    def element(self, addr: int, *, aligned: bool = True):
        """(Tile or GlobalTensor, element index, itemsize, host address of the element's first
        byte) of the host address ``addr`` (``aligned``: it must be that first byte)."""
        d = self.d
        loaded = d.loaded
        off = addr - loaded.onchip_base
        if 0 <= off < ONCHIP_SPAN_BYTES:
            if off >= UNPLACED_BASE_BYTES:
                raise CxxError(
                    "the kernel reads or writes the storage of a tile without TASSIGN directly "
                    "(tile.data()[i]): ptosim serves raw tile accesses only at TASSIGNed addresses "
                    "(or use tile.GetValue(i) / SetValue(i, v))"
                )
            tile = d.tile_over(off)
            if tile is None:
                raise CxxError(
                    f"the kernel reads or writes UB address {off:#x} directly, but no tile was "
                    "TASSIGNed or used over it: its element type is unknown"
                )
            size = tile.geom.dtype.size_bytes
            rel = off - tile.placement.address
            if aligned and rel % size:
                raise CxxError(
                    f"raw access {rel} bytes into tile {tile.name} ({tile.geom.dtype.name}): "
                    f"not a multiple of its {size}-byte element"
                )
            return tile, rel // size, size, addr - rel % size
        buf, rel = d.gm_over(addr)
        size = buf.dtype.size_bytes
        if aligned and rel % size:
            raise CxxError(
                f"raw __gm__ access {rel} bytes into GM buffer #{buf.buffer_id}: not a multiple "
                f"of its {buf.dtype.name} element size"
            )
        whole = self._whole.get(buf.buffer_id)
        if whole is None:
            whole = pto.GlobalTensor(buf, shape=(buf.nbytes // size,), dtype=buf.dtype)
            self._whole[buf.buffer_id] = whole
        return whole, rel // size, size, addr - rel % size

    # -- the page as the session's memory holds it ----------------------------------------------
    def page_bytes(self, page: int, n: int, obj) -> bytes:
        """The ``n`` bytes from host address ``page`` as the session holds them; on chip, in the
        memory of ``obj``, the tile the access addresses (UB, or L1 / L0A / L0B / L0C for a cube
        tile: the shim maps every on-chip space at the same base)."""
        d = self.d
        ctx = d.recorder.session.ctx
        out = np.zeros(n, np.uint8)
        off = page - d.loaded.onchip_base
        if 0 <= off < ONCHIP_SPAN_BYTES:
            mem = ctx.buffers[SPACE_OF_LOC[obj.loc]].data
            lo, hi = off, min(off + n, mem.size)
            if lo < hi:
                out[: hi - lo] = mem[lo:hi]
            return out.tobytes()
        for buf, start in d.gm_spans():
            lo, hi = max(page, start), min(page + n, start + buf.nbytes)
            if lo < hi:
                out[lo - page : hi - page] = buf.data[lo - start : hi - start]
        return out.tobytes()

    # -- requests --------------------------------------------------------------------------------
    def access(self, req: dict, site: str | None, out) -> None:
        if getattr(self.d.recorder, "session", None) is None:
            raise NeedsSession  # a plain recording simulates nothing: rerun in a session
        addr, n = req["addr"], req["page"]
        obj, index, size, first = self.element(addr)
        page = addr - addr % n
        if first + size > page + n:
            raise CxxError(
                f"a raw access to element {index} straddles two pages: ptosim does not serve it "
                "(use GetValue / SetValue)"
            )
        if not req["write"]:
            raw_get(obj, index)  # PIPE_S has executed it: the memory is current for it
        given = self.page_bytes(page, n, obj)
        ctypes.memmove(out, given, n)
        if req["write"]:
            self.given[page] = given

    def log(self, req: dict) -> None:
        """The writes the shim logged since its last request (``raw_log``)."""
        writes = parse_log(req, self.d.loaded.first_user_site)
        given, self.given = self.given, {}
        self.store(writes, given, PAGE_BYTES)

    def replay_writes(self, req: dict) -> None:
        """The raw tile writes of a kernel called as a plain function (host.py keeps them with
        the call's other requests; their pages were given as zeros)."""
        self.store(req["writes"], req["given"], req["page_size"])

    def store(self, writes: list[LoggedWrite], given: dict, page_size: int) -> None:
        store_runs(element_writes(writes, given, self.element, page_size), self.d.recorder)
