"""What a timed run moved between GM and the core, for bandwidths that compare across devices.

The GM bytes of a trace event: a DMA's and a SIMT launch's payload, a scalar step's GM loads and
stores. UB->UB copies and the 950's vector-register loads and stores move no GM bytes (counting
them made a 950 run look several times faster than an A2 run of the same kernel). A bandwidth
is GM bytes per simulated second: bytes / cycles x the device's clock (GHz gives GB/s).
"""

from __future__ import annotations


def gm_bytes(event) -> int:
    """The GM bytes one trace event moves (see the module doc)."""
    kind = event.kind
    if kind == "dma" or kind == "simt":
        return event.bytes
    if kind == "scalar" and ("gm_loads" in event.args or "gm_stores" in event.args):
        return event.bytes
    return 0


def run_gm_bytes(result) -> int:
    """The GM bytes of a whole timed run (every pipe event; warp sub-events are part of their
    launch)."""
    return sum(gm_bytes(e) for e in result.trace.events if not e.pipe.startswith("SIMT_SCHED"))


def gbps(nbytes: int, cycles: int, clock_ghz: float) -> float:
    """Bytes per simulated second, in GB/s: ``nbytes`` over ``cycles`` at ``clock_ghz``."""
    return nbytes / cycles * clock_ghz if cycles else 0.0
