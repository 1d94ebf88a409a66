"""Two L1 forms of C++ cube kernels, run as the instructions they amount to:

- TLOAD of a convolution tile (``ConvTile`` with a GM view in NC1HWC0, FRACTAL_Z or NDC1HWC0):
  the a2a3 library copies the view densely into L1 in its dimension order (a2a3/TLoad.hpp conv
  path: bursts over the outer dims, gaps skipping what the view cuts), which is the ND TLOAD of
  the 5-D view into a Mat tile of (the product of the outer dims) x the last dim. NDC1HWC0 has a
  sixth dim (C0, the elements of one W step): one such load per N.
- ``copy_cbuf_to_gm(dst, src, sid, nBurst, lenBurst, srcGap, dstGap)``, the raw L1 -> GM copy
  on MTE3: nBurst bursts of lenBurst 32-byte blocks, srcGap / dstGap blocks between bursts in L1
  / GM: a TSTORE of an ND Mat tile laid over those L1 bytes into an ND view of the GM bytes.
"""

from __future__ import annotations

import itertools
import math

from .. import api as pto
from ..dtypes import dtype as as_dtype
from ..errors import CxxError

CONV_LAYOUTS = ("NC1HWC0", "FRACTAL_Z", "NDC1HWC0")
MAX_ROWS = 4095  # rows of one DMA (the a2a3 burst count limit; the library loops past it too)
BLOCK_BYTES = 32  # one burst block (copy_cbuf_to_gm lenBurst and gap unit)


def conv_load(dispatcher, raw: list[dict]) -> None:
    """TLOAD(convTile, gm) with ``gm`` in a convolution layout."""
    tile = dispatcher.operand(raw[0])
    d = raw[1]
    dt = as_dtype(d["dt"])
    buf, off = dispatcher.gm_over(d["ptr"], "GlobalTensor pointer")
    size = dt.size_bytes
    shape, stride, base = list(d["shape"]), list(d["stride"]), off // size
    if d["lay"] == "NDC1HWC0":  # the view's dims are N, D, C1, H, W; C0 elements per W step
        c0 = BLOCK_BYTES // size
        views = [
            (shape[1:] + [c0], stride[1:] + [1], base + n * stride[0]) for n in range(shape[0])
        ]
    else:
        views = [(shape, stride, base)]
    rows = math.prod(views[0][0][:-1])
    cols = views[0][0][-1]
    if cols != tile.cols or rows * len(views) > tile.rows:
        raise CxxError(
            f"TLOAD of a {d['lay']} GlobalTensor {shape}: the ConvTile's {tile.rows}x{tile.cols} "
            f"elements do not hold it densely ({rows * len(views)}x{cols})"
        )
    address = tile.placement.address
    row = 0
    for shp, st, eoff in views:
        for sub_shape, sub_off in _chunks(shp, st, eoff):
            n = math.prod(sub_shape[:-1])
            part = tile
            if n != tile.rows:
                part = pto.Tile("Mat", dt, n, cols)
                pto.TASSIGN(part, address + row * cols * size)
            view = pto.GlobalTensor(buf, shape=sub_shape, stride=st, offset=sub_off, dtype=dt)
            pto.TLOAD(part, view)
            row += n


def _chunks(shape: list[int], stride: list[int], offset: int):
    """(shape, element offset) of sub-views of at most MAX_ROWS rows (the product of the outer
    dims) covering the view in order, as the library's loop over the outer dims issues them."""
    outer = shape[:-1]
    k = len(outer)
    while k > 0 and math.prod(outer[k - 1 :]) <= MAX_ROWS:
        k -= 1
    if k == len(outer):  # the innermost outer dim alone is too long: split it
        k -= 1
    lead = outer[:k]
    inner = outer[k:]
    step = max(1, MAX_ROWS // math.prod(inner[1:])) if inner else 1
    for idx in itertools.product(*(range(n) for n in lead)):
        base = offset + sum(i * s for i, s in zip(idx, stride))
        if not inner:
            yield [1] * k + [shape[-1]], base
            continue
        for start in range(0, inner[0], step):
            count = min(step, inner[0] - start)
            yield [1] * k + [count] + inner[1:] + [shape[-1]], base + start * stride[k]


def copy_cbuf_to_gm(dispatcher, req: dict) -> None:
    """The raw L1 -> GM copy (module docstring)."""
    buf, off = dispatcher.gm_over(req["gm"], "copy_cbuf_to_gm dst")
    dt = buf.dtype
    size = dt.size_bytes
    if BLOCK_BYTES % size or off % size:
        raise CxxError(
            f"copy_cbuf_to_gm into a {dt.name} buffer at byte {off}: ptosim copies whole "
            f"{dt.name} elements (32-byte blocks of an element size dividing 32)"
        )
    block = BLOCK_BYTES // size
    n, length = req["n_burst"], req["len_burst"]
    src_gap, dst_gap = req["src_gap"], req["dst_gap"]
    if n == 0 or length == 0:
        return
    if src_gap == 0 and dst_gap == 0:  # one contiguous run: rows of one block each
        rows, cols, tile_cols, gm_stride = n * length, block, block, block
    else:
        rows, cols = n, length * block
        tile_cols, gm_stride = (length + src_gap) * block, (length + dst_gap) * block
    for r0 in range(0, rows, MAX_ROWS):
        n_rows = min(MAX_ROWS, rows - r0)
        tile = pto.Tile("Mat", dt, n_rows, tile_cols, valid=(n_rows, cols))
        pto.TASSIGN(tile, req["l1"] + r0 * tile_cols * size)
        gm = pto.GlobalTensor(buf, shape=(n_rows, cols), stride=(gm_stride, 1),
                              offset=off // size + r0 * gm_stride, dtype=dt)  # fmt: skip
        pto.TSTORE(gm, tile)
