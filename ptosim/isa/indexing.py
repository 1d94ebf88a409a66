"""Index handling shared by MGATHER and MSCATTER: reading index tiles, table capacities, row
pitches and the OOB remaps (semantics.md 3.1.1 / 3.2.1, DESIGN.md D2-D4).

Decisions:
- D2: index values are read as uint32 on the NPU targets (a negative int32 is a huge index that
  goes through the OOB policy). The cpu target converts them as the CPU simulator does, through
  the 64-bit ``size_t``: a negative int32 ``v`` is ``2^64 + v``. The two agree except under Wrap
  (``(2^64 - 1) % 7 = 1`` but ``(2^32 - 1) % 7 = 3``). ``index_values`` keeps such a cpu index
  as the negative int64 ``v`` and ``remap`` reads it as ``2^64 + v``.
- D3: Row capacity is shape0*shape1*shape2*shape3 on a2a3 (NZ: gShape2*16 logical rows) and
  shape[3] on cpu/a5; the GM row pitch is stride[3] on cpu/a2a3 and the valid column count on a5
  (the target's ``IndexedRules.row_capacity`` / ``row_pitch``).
  Elem capacity is the product of the five dims (NZ: logical rows x logical cols), and an ND
  Elem index addresses the table's raw element pointer, ``table_ptr[k']`` (``elem_offsets``),
  whatever the strides, as every reference kernel does.
- D4: an empty table (capacity 0) gathers zeros and scatters nothing, under any policy.
- An Undefined index past the capacity is an OutOfBoundsError (the caller broke the contract);
  it is raised before anything is written.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as D
from ..enums import Coalesce, GatherOOB, Layout, ScatterOOB
from ..errors import OutOfBoundsError
from ..tensors import GmRef, TileRef
from .base import ExecContext
from .spec import IndexConversion, IndexedKernel, IndexedRules, RowCapacity, RowPitch

# MGATHER/MSCATTER index types on every target (the seeds); the element types are the target's
# (``TargetSpec.dtypes``)
INDEX_DTYPES = (D.int32, D.uint32)


_SIZE_T = 1 << 64  # the CPU simulator converts indices to size_t


def index_values(conversion: IndexConversion, raw) -> np.ndarray:
    """Index values as int64, converted by ``conversion`` (D2).

    ``UINT32`` (NPU targets): the uint32 reinterpretation. ``SIZE_T`` (cpu): the ``size_t``
    conversion, kept as the signed value (a negative int32 ``v`` stands for ``2^64 + v``;
    ``remap`` treats it so).
    """
    raw = np.asarray(raw)
    if conversion is IndexConversion.SIZE_T:
        if raw.dtype.kind == "i":
            return raw.astype(np.int64)
    elif conversion is not IndexConversion.UINT32:
        raise TypeError(f"index_values: conversion must be an IndexConversion, got {conversion!r}")
    return raw.astype(np.int64) & 0xFFFFFFFF


def read_indices(ctx: ExecContext, idx: TileRef, mode: Coalesce, rows: int, cols: int):
    """Index values of the index tile, converted as the target does (``index_values``, D2).

    Row mode reads the index tile linearly (``idx_storage[r]`` for r < rows, whatever its
    layout), as every reference kernel does; Elem mode reads logical (r, c) through the tile
    layout. Returns shape (rows,) for Row and (rows, cols) for Elem.
    """
    storage = ctx.tile_storage(idx)
    if mode is Coalesce.Row:
        raw = storage[:rows]
    else:
        r, c = idx.geom.grid(rows, cols)
        raw = storage[idx.offsets(r, c)]
    return index_values(ctx.spec.indexed.index_conversion, raw)


def linear_row_index_ok(idx: TileRef, rows: int) -> bool:
    """True when reading ``idx_storage[r]`` (r < rows) yields the index tile's logical vector,
    i.e. a [1, R] index whose row is contiguous or an [R, 1] index whose column is."""
    if rows <= 1:
        return True
    n = np.arange(rows)
    logical = idx.offsets(0, n) if idx.valid == (1, rows) else idx.offsets(n, 0)
    return bool(np.array_equal(logical, n))


_KERNEL_CHECKS = {
    IndexedKernel.REFERENCE_LOOP: "_validate_loop",
    IndexedKernel.DMA: "_validate_dma",
    IndexedKernel.SIMT: "_validate_simt",
}


def validate_for_kernel(instr, kernel: IndexedKernel) -> None:
    """Run the layout and shape rules of the target's MGATHER/MSCATTER kernel (the
    instruction's ``_validate_loop`` / ``_validate_dma`` / ``_validate_simt``)."""
    getattr(instr, _KERNEL_CHECKS[kernel])()


def require_loop_index_layout(instr, idx: TileRef, row_mode: bool) -> None:
    """``IndexedKernel.REFERENCE_LOOP`` (cpu) index layout: Row reads ``idx.data[r]`` linearly and
    the CPU simulator asserts NoneBox only (RowMajor or ColMajor); Elem needs an ND tile."""
    if row_mode:
        instr.require(
            not idx.geom.is_boxed,
            "idx",
            "index-layout",
            "SLayout::NoneBox (RowMajor or ColMajor) for Coalesce::Row",
            idx.geom.layout_name,
        )
    else:
        instr.require(
            idx.geom.is_nd,
            "idx",
            "index-layout",
            "BLayout::RowMajor + SLayout::NoneBox",
            idx.geom.layout_name,
        )


def nz_logical_shape(gm: GmRef) -> tuple[int, int]:
    """(logical rows, logical cols) of an NZ table: (gShape2*16, gShape0*gShape1*C0)."""
    s0, s1, s2, s3, s4 = gm.shape
    return s2 * s3, s0 * s1 * s4


def row_capacity(rules: IndexedRules, gm: GmRef) -> int:
    """Rows addressable by a Row-mode index (D3)."""
    s0, s1, s2, s3, _ = gm.shape
    if gm.layout is Layout.NZ:
        return nz_logical_shape(gm)[0]
    if rules.row_capacity is RowCapacity.OUTER_DIMS:
        return s0 * s1 * s2 * s3
    return s3


def elem_capacity(gm: GmRef) -> int:
    """Elements addressable by an Elem-mode index (product of the five dims)."""
    return int(np.prod(gm.shape, dtype=np.int64))


def elem_offsets(gm: GmRef, k) -> np.ndarray:
    """Buffer element offsets of remapped Elem indices into an ND table: the raw element
    pointer ``table_ptr[k']`` of every reference kernel, not a walk through the strides (the two
    differ when the table is not packed, e.g. stride[3] != shape[4])."""
    return gm.offset + np.asarray(k, dtype=np.int64)


def row_pitch(rules: IndexedRules, gm: GmRef, valid_cols: int) -> int:
    """GM elements between consecutive table rows in Row mode (ND tables, D3)."""
    return valid_cols if rules.row_pitch is RowPitch.VALID_COLS else gm.stride[3]


def nz_offsets(gm: GmRef, row, col) -> np.ndarray:
    """Buffer element offsets of logical (row, col) of an NZ table (MGatherNZGmOffset)."""
    s0, s1 = gm.shape[0], gm.shape[1]
    c0 = gm.shape[4]
    st = gm.stride
    row = np.asarray(row, dtype=np.int64)
    col = np.asarray(col, dtype=np.int64)
    bc, cin = col // c0, col % c0
    br, rin = row // 16, row % 16
    if s0 == 1:
        o0, o1 = np.zeros_like(bc), bc
    else:
        o0 = bc // s1
        o1 = bc - o0 * s1
    return gm.offset + o0 * st[0] + o1 * st[1] + br * st[2] + rin * st[3] + cin * st[4]


def _undefined_error(ctx: ExecContext, operand: str, k: np.ndarray, cap: int, policy) -> None:
    bad = np.argwhere((k >= cap) | (k < 0))  # (negative: a cpu size_t past 2^63)
    if bad.size == 0:
        return
    pos = tuple(int(v) for v in bad[0])
    where = f"[{', '.join(map(str, pos))}]"
    value = int(k[pos])
    shown = f"{value + _SIZE_T} (size_t of {value})" if value < 0 else str(value)
    label = ctx.instr.label if ctx.instr else ""
    src = f" ({ctx.instr.source})" if ctx.instr and ctx.instr.source else ""
    raise OutOfBoundsError(
        f"{label}{src}: operand '{operand}' element {where} = {shown} is not below the table "
        f"capacity {cap}, and {policy} promises in-range indices; nothing was written (use an OOB "
        "policy such as Clamp/Wrap or fix the index)"
    )


def remap(ctx: ExecContext, k: np.ndarray, cap: int, oob: GatherOOB | ScatterOOB):
    """Apply a GatherOOB or ScatterOOB policy to indices converted by ``index_values``.

    A negative value (cpu only) is the size_t ``2^64 + k``: past every capacity, and Wrap takes
    its 64-bit remainder. Returns (index, mask): mask is False where the access does not happen
    (GatherOOB::Zero reads yield T(0); ScatterOOB::Skip writes are dropped; every access of an
    empty table, D4).

    Raises:
        OutOfBoundsError: an Undefined index >= capacity (nothing has been written).
    """
    k = np.asarray(k, dtype=np.int64)
    everywhere = np.ones(k.shape, dtype=bool)
    if cap == 0:  # D4
        return np.zeros_like(k), ~everywhere
    huge = k < 0  # a cpu size_t of 2^64 + k: past any capacity
    if oob.name == "Undefined":
        _undefined_error(ctx, "idx", k, cap, oob)
        return k, everywhere
    if oob.name == "Clamp":
        return np.where(huge, cap - 1, np.minimum(k, cap - 1)), everywhere
    if oob.name == "Wrap":  # (2^64 + k) % cap == (2^64 % cap + k % cap) % cap
        return np.where(huge, (_SIZE_T % cap + k % cap) % cap, k % cap), everywhere
    ok = (k < cap) & ~huge  # GatherOOB::Zero / ScatterOOB::Skip
    return np.where(ok, k, 0), ok
