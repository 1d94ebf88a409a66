"""Raw element accesses of C++ kernels (``tile.data()[i]``, ``*gm_ptr``) served by the session.

The shim (ptosim_shim/entry.hpp) turns a fault in the reserved tile-storage / GM ranges into two
requests: ``raw`` (before the access: a read issues the GetValue of the element; both return the
bytes of the page as the session's memory holds them, which the shim maps for the one access)
and, after a write, ``raw_done`` (the page as the access left it: the changed elements, and
always the addressed one, become SetValue instructions in address order).

Element of an address: in GM, the GM buffer's dtype and ``offset // itemsize``; in UB, the tile
most recently TASSIGNed or used over the address, its dtype and ``offset // itemsize`` from its
start. Reads and writes are the GetValue / SetValue instructions (PIPE_S, timed, seen by the
hazard checker), so they need the session: a plain recording switches to it (NeedsSession).
"""

from __future__ import annotations

import ctypes
import platform
import sys

import numpy as np

from .. import api as pto
from ..errors import CxxError
from ..isa.scalar_access import raw_get, raw_set
from ..memory import SPACE_OF_LOC
from ..program import NeedsSession

# ptosim_shim/record.hpp: tiles without TASSIGN point into the on-chip range from here on
UNPLACED_BASE_BYTES = 32 << 20
ONCHIP_SPAN_BYTES = 64 << 20
# where the shim serves raw accesses (entry.hpp PTOSIM_RAW_ACCESS: the page-fault error code and
# the trap flag); elsewhere a raw access stops the run with its line
RAW_ACCESS_SERVED = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")


class RawAccess:
    """Serves the raw accesses of one block's run (``Dispatcher.raw`` / ``raw_done``)."""

    def __init__(self, dispatcher):
        self.d = dispatcher
        self.pending: dict | None = None  # the write in flight: addr, page, given bytes, site

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
        whole = pto.GlobalTensor(buf, shape=(buf.nbytes // size,), dtype=buf.dtype)
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
            self.pending = {"addr": addr, "page": page, "given": given, "site": site}

    def done(self, out) -> None:
        p, self.pending = self.pending, None
        if p is None:
            raise CxxError("internal error: a raw write ended without its start")
        self.d.recorder.source = p["site"]
        given = np.frombuffer(p["given"], np.uint8)
        now = np.frombuffer(ctypes.string_at(out, len(given)), np.uint8)
        self.store_page(p["addr"], p["page"], given, now)

    def replay_write(self, req: dict) -> None:
        """A raw tile write made by a kernel called as a plain function (host.py keeps it with
        the call's other requests): the page was given as zeros, ``req["bytes"]`` holds its
        non-zero bytes after the write (offset -> value)."""
        n = int(req["page_size"])
        given = np.zeros(n, np.uint8)
        now = given.copy()
        offsets = np.asarray(req["offsets"], np.int64)
        now[offsets] = np.asarray(req["values"], np.uint8)
        self.store_page(req["addr"], req["page"], given, now)

    def store_page(self, addr: int, page: int, given, now) -> None:
        """SetValue of each element whose bytes a raw write changed, and always of the addressed
        one (storing the value already there is still a store), in address order."""
        changed = [page + int(i) for i in np.flatnonzero(now != given)]
        elements: dict[int, tuple] = {}  # first byte -> (tile or tensor, index, itemsize)
        for a in sorted({addr, *changed}):
            obj, index, size, first = self.element(a, aligned=a == addr)
            elements.setdefault(first, (obj, index, size))
        for first in sorted(elements):
            obj, index, size = elements[first]
            if first < page or first + size > page + len(now):
                raise CxxError(
                    f"a raw write to element {index} straddles two pages: ptosim does not serve "
                    "it (use SetValue)"
                )
            dt = obj.geom.dtype if isinstance(obj, pto.Tile) else obj.dtype
            value = np.frombuffer(now[first - page : first - page + size].tobytes(), dt.np)[0]
            raw_set(obj, index, value.item())
