"""Simulated memories: byte-addressed UB / L1 scratchpads and GM made of host-allocated buffers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .dtypes import DType, check_values_fit
from .dtypes import dtype as as_dtype
from .enums import TileType
from .errors import KernelError, OutOfBoundsError

# UB/L1 start each run filled with this byte: every float type reads NaN and every integer
# type reads -1 / its maximum, so data that no instruction wrote is easy to spot.
POISON_BYTE = 0xFF
# GM bytes past the end of an allocation (a DMA may read them: D21) read as this byte. Zero,
# because the library's a2a3 tmatmul split-K test (case3: K = 75 in slices of 32) reads 21 rows
# past its B buffer and 21 elements past its A buffer into its last mad, and its golden - met
# on the hardware - is the K = 75 product: those rows must add nothing.
GM_PAST_END_BYTE = 0x00
GM_ALIGN_BYTES = 512  # host allocations start on a 512 B boundary (the A2/A3 DMA burst size)
GM_BASE_ADDRESS = 0x1_0000_0000  # arbitrary, non-zero so that GM and UB addresses differ

# The on-chip buffer each tile kind lives in (reference/cube_isa.md 1.2, common/memory.hpp's
# address-space qualifier per tile kind): the vector core's UB; the cube core's L1 (cbuf), L0A,
# L0B, L0C, bias table (BT) and fixpipe buffer (FB). The 950 MX scale tiles sit in L0A / L0B.
SPACE_OF_LOC = {
    TileType.Vec: "UB",
    TileType.Mat: "L1",
    TileType.Left: "L0A",
    TileType.Right: "L0B",
    TileType.Acc: "L0C",
    TileType.Bias: "BT",
    TileType.Scaling: "FB",
    TileType.ScaleLeft: "L0A",
    TileType.ScaleRight: "L0B",
}
# The buffers of each core kind (ptosim/cores.py): a vector core of a vector-only launch keeps
# the L1 it had before the cube core was modelled (kernels staging GM -> L1 with MGATHER).
CORE_SPACES = {
    "vec": ("UB", "L1"),
    "aiv": ("UB",),
    "aic": ("L1", "L0A", "L0B", "L0C", "BT", "FB"),
}


def space_of(loc: TileType) -> str:
    """The memory space (``"UB"``, ``"L1"``, ``"L0A"`` ...) a tile kind lives in."""
    return SPACE_OF_LOC[loc]


class Scratchpad:
    """A byte-addressed on-chip memory (UB, L1, L0A, L0B, L0C, BT or FB)."""

    def __init__(self, name: str, size_bytes: int):
        self.name = name
        self.size_bytes = size_bytes
        self.data = np.full(size_bytes, POISON_BYTE, dtype=np.uint8)

    def typed(
        self, address: int, dt: DType, count: int | None = None, *, what: str = ""
    ) -> np.ndarray:
        """A writable typed view of ``count`` elements (default: to the end) at ``address``.

        Raises:
            OutOfBoundsError: the range leaves the memory.
        """
        size = dt.size_bytes
        if count is None:
            count = (self.size_bytes - address) // size
        end = address + count * size
        if address < 0 or end > self.size_bytes:
            raise OutOfBoundsError(
                f"{what or 'access'}: {self.name} bytes [{address:#x}, {end:#x}) leave the "
                f"{self.name} of {self.size_bytes} bytes"
            )
        return self.data[address:end].view(dt.np)


@dataclass
class GmBuffer:
    """A host allocation in simulated GM, returned by ``Device.gm_array`` / ``gm_zeros``.

    Attributes:
        address: GM byte address of element 0.
        dtype: element type; shape: host shape used for ``numpy()``.
    """

    buffer_id: int
    address: int
    dtype: DType
    shape: tuple[int, ...]
    data: np.ndarray = field(repr=False)  # uint8 backing store
    # the bytes the program asked for, when the allocator handed out more (aclrtMalloc's
    # padding, D23): writes past them land in the padding, with finding F113
    requested_bytes: int | None = None

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.data.size

    @property
    def usable_bytes(self) -> int:
        """The bytes the program asked for (the whole allocation when nothing was padded)."""
        return self.nbytes if self.requested_bytes is None else self.requested_bytes

    def typed(self) -> np.ndarray:
        """Writable flat typed view of the whole buffer."""
        return self.data.view(self.dtype.np)

    def numpy(self) -> np.ndarray:
        """A host copy of the buffer, in its shape and dtype."""
        return self.typed().reshape(self.shape).copy()

    def write(self, values) -> None:
        """Overwrite the buffer from host values (same number of elements)."""
        try:
            arr = np.asarray(values)
        except (ValueError, TypeError) as exc:  # ragged nested lists and the like
            raise KernelError(f"GM buffer #{self.buffer_id}: write needs an array: {exc}") from None
        if arr.size != self.size:
            raise OutOfBoundsError(
                f"GM buffer #{self.buffer_id}: writing {arr.size} elements into {self.size}"
            )
        # values that do not fit the buffer's dtype are refused, never wrapped or truncated
        self.typed()[:] = check_values_fit("GmBuffer.write", "values", arr.reshape(-1), self.dtype)

    def __repr__(self) -> str:
        return (
            f"GmBuffer(#{self.buffer_id}, {self.dtype.name}{list(self.shape)} @ {self.address:#x})"
        )


class GlobalMemory:
    """GM: a set of host-allocated buffers; nothing outside them is addressable."""

    def __init__(self):
        self.buffers: list[GmBuffer] = []
        self._next_address = GM_BASE_ADDRESS

    def allocate(self, shape, dt, fill=None) -> GmBuffer:
        dt = as_dtype(dt)
        shape = tuple(int(s) for s in np.atleast_1d(np.asarray(shape, dtype=np.int64)))
        count = int(np.prod(shape, dtype=np.int64))
        data = np.zeros(count * dt.size_bytes, dtype=np.uint8)
        buf = GmBuffer(len(self.buffers), self._next_address, dt, shape, data)
        if fill is not None:
            buf.write(fill)
        return self._add(buf)

    def adopt(self, data: np.ndarray, dt) -> GmBuffer:
        """A buffer over existing bytes ``data`` (uint8, used in place, not copied): the cpu
        target's GlobalTensors over host memory (ptosim/cxx/hostmem.py)."""
        dt = as_dtype(dt)
        shape = (data.size // dt.size_bytes,)
        return self._add(GmBuffer(len(self.buffers), self._next_address, dt, shape, data))

    def _add(self, buf: GmBuffer) -> GmBuffer:
        self.buffers.append(buf)
        span = max(buf.data.size, 1)
        self._next_address += -(-span // GM_ALIGN_BYTES) * GM_ALIGN_BYTES
        return buf
