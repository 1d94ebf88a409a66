"""The raw burst copies of mixed 950 kernels (the library's a5 tinsert / tpushpop tests), each
``(dst, src, sid, nBurst, lenBurst, srcGap, dstGap)`` in 32-byte blocks:

- ``copy_gm_to_ubuf`` on a vector core (MTE2): a TLOAD of a uint8 ND Vec tile laid over the UB
  bursts (row pitch lenBurst + dstGap blocks) from a uint8 view of the GM bursts (row pitch
  lenBurst + srcGap blocks);
- ``copy_ubuf_to_cbuf`` (a vector core, UB -> its cube core's L1) and ``copy_cbuf_to_ubuf``
  (the cube core, L1 -> the UB of vector core ``sid``): ptosim's instructions of the same names
  (ptosim/isa/cube/onchip.py).
"""

from __future__ import annotations

from .. import api as pto
from ..dtypes import dtype as as_dtype
from ..errors import CxxError
from .l1_copies import BLOCK_BYTES, MAX_ROWS


def _burst_args(req: dict) -> tuple:
    return (req["dst"], req["src"], req["sid"], req["n_burst"], req["len_burst"],
            req["src_gap"], req["dst_gap"])  # fmt: skip


def copy_gm_to_ubuf(dispatcher, req: dict) -> None:
    buf, off = dispatcher.gm_over(req["src"], "copy_gm_to_ubuf src")
    n, length = req["n_burst"], req["len_burst"] * BLOCK_BYTES
    if n == 0 or length == 0:
        return
    src_pitch = length + req["src_gap"] * BLOCK_BYTES
    dst_pitch = length + req["dst_gap"] * BLOCK_BYTES
    u8 = as_dtype("uint8")
    for r0 in range(0, n, MAX_ROWS):
        rows = min(MAX_ROWS, n - r0)
        tile = pto.Tile("Vec", u8, rows, dst_pitch, valid=(rows, length))
        pto.TASSIGN(tile, req["dst"] + r0 * dst_pitch)
        gm = pto.GlobalTensor(buf, shape=(rows, length), stride=(src_pitch, 1),
                              offset=off + r0 * src_pitch, dtype=u8)  # fmt: skip
        pto.TLOAD(tile, gm)


def onchip_copy(dispatcher, op: str, req: dict) -> None:
    """copy_ubuf_to_cbuf / copy_cbuf_to_ubuf (module docstring)."""
    getattr(pto, op)(*_burst_args(req))


def copy_ubuf_to_gm_align_v2(dispatcher, req: dict) -> None:
    """The a5 raw UB -> GM copy (a vector core, MTE3): ``n_burst`` bursts of ``len_burst_bytes``,
    their starts ``src_stride_bytes`` apart in UB and ``dst_stride_bytes`` apart in GM; run as a
    TSTORE of a uint8 Vec tile laid over the UB bursts."""
    what = "copy_ubuf_to_gm_align_v2"
    buf, off = dispatcher.gm_over(req["gm"], f"{what} dst")
    n, length = req["n_burst"], req["len_burst_bytes"]
    if n == 0 or length == 0:
        return
    src_stride = req["src_stride_bytes"] if n > 1 else -(-length // BLOCK_BYTES) * BLOCK_BYTES
    dst_stride = req["dst_stride_bytes"] if n > 1 else length
    if src_stride < length or dst_stride < length or src_stride % BLOCK_BYTES:
        raise CxxError(
            f"{what}: {n} bursts of {length} bytes with strides {src_stride} (UB) and "
            f"{dst_stride} (GM) bytes: ptosim models bursts that do not overlap, the UB stride a "
            f"multiple of {BLOCK_BYTES} bytes"
        )
    u8 = as_dtype("uint8")
    for r0 in range(0, n, MAX_ROWS):
        rows = min(MAX_ROWS, n - r0)
        tile = pto.Tile("Vec", u8, rows, src_stride, valid=(rows, length))
        pto.TASSIGN(tile, req["ub"] + r0 * src_stride)
        gm = pto.GlobalTensor(buf, shape=(rows, length), stride=(dst_stride, 1),
                              offset=off + r0 * dst_stride, dtype=u8)  # fmt: skip
        pto.TSTORE(gm, tile)
