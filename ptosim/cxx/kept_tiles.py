"""Tile storage that outlives a run: the cpu target's plain calls from host code.

In the reference CPU simulator a tile is host memory owned by the C++ object: what an instruction
writes into it stays there for as long as the object lives, whatever the host does in between.
ptosim simulates the plain calls of host code in runs, one per flush (a TSTORE to host memory, a
runtime call; host.py), and every run starts with fresh on-chip memories. A tile used by a call of
one run and read by a call of a later one (the library's cpu MLA demo loads its projection weights
once, before its loop over heads, and stores each head's output to a host vector) would read the
fresh memory's poison in the later run.

``KeptTiles`` carries it over: after each run it keeps the bytes of every tile the run used (by
the shim's tile id, which a C++ object keeps for its whole life), and before the next run it
stores them back into each kept tile that run uses, as one SetValue of its whole storage issued
ahead of the run's first call (an instruction, so the checker sees the tile written). A tile whose
first request in the new run is a TASSIGN starts over, as the C++ tile's data pointer does.
"""

from __future__ import annotations

import numpy as np

from ..isa.scalar_access import raw_set_run
from ..isa.sync import pipe_barrier
from ..memory import SPACE_OF_LOC


class KeptTiles:
    """C++ tile id -> the bytes of its storage after the last run that used it."""

    def __init__(self):
        self.storage: dict[int, bytes] = {}

    def save(self, tiles: dict, buffers: dict) -> None:
        """Keep the storage of ``tiles`` (Dispatcher.tiles: C++ id -> Tile) as ``buffers``
        (space name -> the run's final memory) hold it."""
        for tile_id, tile in tiles.items():
            address = tile.address
            mem = buffers.get(SPACE_OF_LOC[tile.loc])
            if address is None or mem is None:
                continue
            self.storage[tile_id] = mem.data[address : address + tile.geom.size_bytes].tobytes()

    def restore(self, reqs: list, disp) -> None:
        """Issue into ``disp``'s recording the SetValues that give each kept tile of ``reqs``
        its kept storage, in the order the tiles first appear."""
        first: dict[int, tuple[str, dict, str | None]] = {}
        for req, site in reqs:
            for d in req.get("a", []):
                if d.get("k") == "tile":
                    first.setdefault(d["id"], (req["op"], d, site))
        restored = False
        for tile_id, (op, d, site) in first.items():
            kept = self.storage.get(tile_id)
            if kept is None or op == "TASSIGN":
                continue
            disp.recorder.source = site  # the line of the call that uses the kept values
            tile = disp.tile(d)
            dt = tile.geom.dtype.np
            values = np.frombuffer(kept, np.uint8)
            values = values[: len(values) - len(values) % dt.itemsize].view(dt)
            raw_set_run(tile, 0, values)
            restored = True
        if restored:
            # the values were there before the run's first call: ordered before all its work
            pipe_barrier("PIPE_ALL")
        disp.recorder.source = None
