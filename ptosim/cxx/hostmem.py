"""GlobalTensors over host memory: the cpu target runs host code.

The reference CPU simulator's GM is host memory, so a program may build a GlobalTensor over a
``std::vector``'s data and call instructions from ``main()`` with no ACL allocation or launch
(the library's cpu demos do). On the cpu target such an operand becomes a GM buffer over the
same bytes: an instruction that writes GM (TSTORE, MSCATTER) writes the host memory in place
and runs before the call returns, as the CPU simulator's does; an instruction that only reads
GM reads a copy of the bytes taken at the call, the values the CPU simulator would read then
(the calls before it are simulated later, together, so a later host write must not reach it).
On the NPU targets a GM pointer must be device memory (aclrtMalloc), as on hardware.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ..device import Device
from ..dtypes import dtype as as_dtype
from ..errors import CxxError
from ..memory import GM_BASE_ADDRESS

# instructions that write a GM operand (the others only read theirs)
GM_WRITERS = frozenset({"TSTORE", "MSCATTER"})


def extent_bytes(d: dict) -> int:
    """Bytes from a GlobalTensor operand's pointer to just past its last element."""
    shape, stride = d["shape"], d["stride"]
    if any(int(s) <= 0 for s in shape):
        return 0
    last = sum((int(s) - 1) * int(t) for s, t in zip(shape, stride))
    return (last + 1) * as_dtype(d["dt"]).size_bytes


class HostMemory:
    """Turns the host-memory GlobalTensor operands of plain-called instructions into GM
    buffers of ``dev`` (cpu target only) and rewrites the operands' pointers into the GM window
    at ``gm_window`` (the shim's host address of GM byte 0 of the simulated GM)."""

    def __init__(self, dev: Device, gm_window: int):
        self.dev, self.gm_window = dev, gm_window

    def applies(self) -> bool:
        return self.dev.target == "cpu"

    def adopt(self, req: dict, in_window) -> bool:
        """Rewrite ``req``'s host-memory GM operands; True when one is written (the caller
        simulates the pending calls now)."""
        writes = req["op"] in GM_WRITERS
        touched = False
        for d in req.get("a", []):
            if d.get("k") != "gm" or in_window(d["ptr"]):
                continue
            if not self.applies():
                raise CxxError(
                    f"{req['op']}: a GlobalTensor over host memory (not aclrtMalloc device "
                    f"memory) runs on the cpu target only, not on {self.dev.name}"
                )
            n = extent_bytes(d)
            host = np.ctypeslib.as_array((ctypes.c_uint8 * max(n, 1)).from_address(d["ptr"]))
            data = host if writes else host.copy()
            buf = self.dev.gm.adopt(data[:n], d["dt"])
            d["ptr"] = self.gm_window + (buf.address - GM_BASE_ADDRESS)
            touched = True
        return touched and writes
