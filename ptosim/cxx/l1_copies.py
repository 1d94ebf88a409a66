"""The convolution-layout and raw L1 forms of C++ cube kernels, run as the instructions they
amount to:

- TLOAD of a convolution tile (``ConvTile`` with a GM view in NC1HWC0, FRACTAL_Z or NDC1HWC0):
  the a2a3 library copies the view densely into L1 in its dimension order (a2a3/TLoad.hpp conv
  path: bursts over the outer dims, gaps skipping what the view cuts), which is the ND TLOAD of
  the 5-D view into a Mat tile of (the product of the outer dims) x the last dim. NDC1HWC0 has a
  sixth dim (C0, the elements of one W step): one such load per N.
- TSTORE of an Acc tile into a GM view in NC1HWC0 or NDC1HWC0: the fixpipe writes C0-wide
  column blocks of the accumulator, each block's rows one after another (C0 elements each) and
  block j at j x the destination stride the library computes (``N * stride(C1 or D... ) ...``,
  a2a3 tstore_common.hpp TStoreAccNz2NC1HWC0 / NDC1HWC0): the fixpipe's NZ store into a GM
  view of C0-wide column blocks at that stride.
- ``copy_cbuf_to_gm(dst, src, sid, nBurst, lenBurst, srcGap, dstGap)``, the raw L1 -> GM copy
  on MTE3: nBurst bursts of lenBurst 32-byte blocks, srcGap / dstGap blocks between bursts in L1
  / GM: a TSTORE of an ND Mat tile laid over those L1 bytes into an ND view of the GM bytes.
- ``copy_gm_to_cbuf_align_v2(dst, src, sid, nBurst, lenBurst, leftPad, rightPad, dataSelect,
  l2CacheCtl, srcStride, dstStride)``, the a5 raw GM -> L1 copy on MTE2: nBurst bursts of lenBurst
  bytes, burst i from src + i x srcStride to dst + i x dstStride (bytes, start to start: the
  library's a5 TLOAD into L1 passes the GM row stride and the L1 block-column stride there):
  a TLOAD of a uint8 ND Mat tile laid over those L1 bytes from a uint8 view of the GM bytes.
"""

from __future__ import annotations

import itertools
import math

from .. import api as pto
from ..dtypes import dtype as as_dtype
from ..errors import CxxError, OutOfBoundsError

CONV_LAYOUTS = ("NC1HWC0", "FRACTAL_Z", "NDC1HWC0")
ACC_STORE_CONV_LAYOUTS = ("NC1HWC0", "NDC1HWC0")
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


def acc_store_conv(dispatcher, t: dict, raw: list[dict], fp=None) -> None:
    """TSTORE(gm, acc) (or TSTORE_FP with the Scaling tile ``fp``) with ``gm`` in NC1HWC0 /
    NDC1HWC0 (module docstring)."""
    d = raw[0]
    acc = dispatcher.operand(raw[1])
    dt = as_dtype(d["dt"])
    buf, off = dispatcher.gm_over(d["ptr"], "GlobalTensor pointer")
    size = dt.size_bytes
    g0, g1, g2, g3, g4 = d["shape"]
    s0, s1, s2, s3, s4 = d["stride"]
    vr, vc = acc.valid
    if d["lay"] == "NC1HWC0":  # dims N, C1, H, W, C0
        c0, rows, cols = g4, g0 * g2 * g3, g1 * g4
        block_stride = g0 * s1 // s3 * g4
    else:  # NDC1HWC0: dims N, D, C1, H, W; C0 elements per W step (16 for int32)
        c0 = 16 if dt.name == "int32" else BLOCK_BYTES // size
        rows, cols = g0 * g3 * g4, g1 * g2 * c0
        block_stride = g0 * s2 // s4 * c0
    if (vr, vc) != (rows, cols) or cols % c0:
        raise CxxError(
            f"TSTORE of an Acc tile with valid {vr}x{vc} into a {d['lay']} GlobalTensor "
            f"{d['shape']}: the valid shape must be {rows}x{cols} (a2a3 TStoreAccNz2{d['lay']})"
        )
    view = pto.GlobalTensor(
        buf, shape=(1, cols // c0, -(-rows // 16), 16, c0),
        stride=(cols // c0 * block_stride, block_stride, 16 * c0, c0, 1), layout="NZ",
        offset=off // size, dtype=dt,
    )  # fmt: skip
    quant = int(t["prequant"]) if "prequant" in t else fp
    pto.TSTORE(view, acc, atomic=t.get("atomic", "AtomicNone"), relu=t.get("relu", "NoRelu"),
               phase=t.get("phase", "Unspecified"), quant=quant)  # fmt: skip


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
    _check_gm_end(buf, off, n, length, dst_gap)
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


def _check_gm_end(buf, off: int, n: int, length: int, dst_gap: int) -> None:
    """A copy whose last 32-byte block runs past the GM allocation stops before writing: the
    copy moves whole blocks, so a burst rounded up past the end of a buffer would overwrite
    the memory after it (the same rule as every GM write, PTO202)."""
    end = off + ((n - 1) * (length + dst_gap) + length) * BLOCK_BYTES
    if end <= buf.nbytes:
        return
    raise OutOfBoundsError(
        f"copy_cbuf_to_gm(nBurst {n}, lenBurst {length}, dstGap {dst_gap}) writes GM bytes "
        f"[{off}, {end}) of buffer #{buf.buffer_id}, whose allocation is {buf.nbytes} bytes: "
        f"{end - buf.nbytes} byte(s) past its end (each burst moves whole 32-byte blocks; "
        f"expected an end <= {buf.nbytes}, given {end}); nothing was written"
    )


def copy_gm_to_cbuf_align_v2(dispatcher, req: dict) -> None:
    """The a5 raw GM -> L1 copy (module docstring)."""
    what = "copy_gm_to_cbuf_align_v2"
    buf, off = dispatcher.gm_over(req["gm"], f"{what} src")
    n, length = req["n_burst"], req["len_burst_bytes"]
    if req["left_pad"] or req["right_pad"]:
        raise CxxError(
            f"{what} with padding counts (left {req['left_pad']}, right {req['right_pad']}): the "
            "padded form is not modelled (ptosim runs the unpadded copy only)"
        )
    if n == 0 or length == 0:
        return
    src_stride = req["src_stride_bytes"] if n > 1 else length
    dst_stride = req["dst_stride_bytes"] if n > 1 else length
    if src_stride < length or dst_stride < length or dst_stride % BLOCK_BYTES:
        raise CxxError(
            f"{what}: {n} bursts of {length} bytes with strides {src_stride} (GM) and "
            f"{dst_stride} (L1) bytes: ptosim models bursts that do not overlap, the L1 stride a "
            f"multiple of {BLOCK_BYTES} bytes"
        )
    if n == 1 and length % BLOCK_BYTES == 0:  # one run: rows of one 32-byte block each
        n, length = length // BLOCK_BYTES, BLOCK_BYTES
        src_stride = dst_stride = BLOCK_BYTES
    u8 = as_dtype("uint8")
    for r0 in range(0, n, MAX_ROWS):
        n_rows = min(MAX_ROWS, n - r0)
        tile = pto.Tile("Mat", u8, n_rows, -(-dst_stride // BLOCK_BYTES) * BLOCK_BYTES,
                        valid=(n_rows, length))  # fmt: skip
        pto.TASSIGN(tile, req["l1"] + r0 * dst_stride)
        gm = pto.GlobalTensor(buf, shape=(n_rows, length), stride=(src_stride, 1),
                              offset=off + r0 * src_stride, dtype=u8)  # fmt: skip
        pto.TLOAD(tile, gm)
