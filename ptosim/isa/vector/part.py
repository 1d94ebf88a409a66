"""Partial element-wise instructions: TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN, TPARTARGMAX,
TPARTARGMIN (vector_isa.md 3.22; numerics 2.3).

``TPART<OP>(dst, src0, src1)`` combines two tiles whose valid regions may differ. For (i, j) in
dst's valid region, a source is *valid* at (i, j) when i < its valid rows and j < its valid
columns; then

- both sources valid: ``dst = src0 OP src1`` (the arithmetic of ``binary.elementwise``: floats
  rounded once to T, integers wrap, MAX/MIN by ``maxmin`` per target);
- only one valid: ``dst`` = that source's element (a copy, bit for bit);
- neither valid: ``dst = 0`` (cpu only: the NPU targets reject those shapes, below).

Elements of dst outside its valid region are not written (except the a2a3 padding below).

``TPARTARG<MAX|MIN>(dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx)`` do the same on
(value, index) pairs: where both pairs are valid, src1's pair is taken when its value is
strictly greater (MAX) / smaller (MIN) than src0's, else src0's pair (ties and NaNs keep src0,
like the CPU's strict-comparison arg scans); one valid pair is copied; neither gives (0, 0).
The a5 code (npu/a5/TPartArgBinOps.hpp) does exactly this: ``vcmp_gt`` (``vcmp_lt``) of src1
against src0, ``vsel`` of the pair, the full source's pairs elsewhere. Validity comes from the
value tiles; each index tile must have its value tile's valid shape. Index types per value type:
``ReduceRules.part_arg_index`` (a5: half with 16- or 32-bit indices, float with 32-bit). The
C++ operand order of the library is (dst, src0, src1, dstIdx, src0Idx, src1Idx); the C++ shim
reorders it. The NPU targets take the shape rule below (``part-shape``).

``ReduceRules.part_arg_select`` says which pair wins where both are valid:

- ``src1-if-better`` (cpu, a5): the rule above.
- ``vsel-src0-if-not-worse`` (a2a3, ``a2a3/TPartArgOp.hpp``): the stages of the TPART lowering
  below (the op over the small source's rows then a copy of the full source's other rows, or
  the copy of the full source's rows then the op over the small region), where the op is, per
  row and 256-byte repeat of values, ``vcmp_ge`` (MAX) / ``vcmp_le`` (MIN) of src0 against
  src1 and two ``vsel``: src0's pair where the compare holds, else src1's. Ties keep src0; a NaN
  on either side gives src1's pair. The index ``vsel`` works on 32-bit lanes for 32-bit
  indices (64 per repeat) and on the value lanes for 16-bit ones. With half values and 32-bit
  indices the library sets the lane mask of the whole repeats to the low 64 lanes, so of every
  full 128-value repeat only the first 64 (value, index) pairs are written, and in the last,
  partial repeat of ``n`` values only ``min(n, 64)`` indices: the other elements of dst keep
  their bytes (the library's tests use at most 64 columns there). The copies are the TPART
  ones (whole rows when dst and the source have the same Cols, else whole 32-byte blocks
  covering the valid columns: **writes padding**).

Targets:

- cpu (``cpu/TPartOp.hpp``): any valid shapes, the rule above (std::max/min first-operand
  rules for MAX/MIN).
- a2a3 (``a2a3/TPartOp.hpp``; ``ElementwiseRules.partial_one_source_full`` and
  ``partial_copy_then_op``): only "one source is full": one source has dst's valid shape and
  the other's valid region fits inside it (rows <= R and cols <= C); otherwise ConstraintError
  rule ``part-shape`` (the reference's PTO_ASSERT). If src0 is the smaller one the operands are
  swapped (harmless: the NPU ops are commutative, MAX/MIN being IEEE maximum/minimum). The
  stages run on the memory in order:

  * *rows-smaller* (the small source has dst's valid columns): the op over the small source's
    rows, then ``copy_ubuf_to_ubuf`` of the remaining rows of the full source;
  * *cols-smaller*: ``copy_ubuf_to_ubuf`` of the full source's R rows into dst, barrier, then
    ``dst = op(small, dst)`` over the small region. If dst overlaps the small source (and is
    not the full source itself) the copy clobbers it first: finding F105.

  The copies move whole 32-byte blocks: each copied row also writes dst's padding up to the
  next 32-byte boundary with the full source's bytes there (**writes padding**).
- a5: the reference gives no a5 TPART body. Choice: the NPU shape rule of a2a3 (rule
  ``part-shape``) and dtypes, the NPU arithmetic, no padding writes (a5 stores are
  predicated), one vector function (targets/a5/part.py).
"""

from __future__ import annotations

import numpy as np

from ...findings import TILE_OVERLAP
from ...program import emit
from ...tensors import TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from ..spec import PartArgSelect
from .binary import elementwise
from .common import VectorInstruction
from .unary import overlaps

__all__ = [
    "TPARTADD",
    "TPARTARGMAX",
    "TPARTARGMIN",
    "TPARTMAX",
    "TPARTMIN",
    "TPARTMUL",
    "TPart",
    "TPartArg",
    "npu_split",
]

BLOCK_BYTES = 32
REPEAT_BYTES = 256  # one vector repeat (vcmp, vsel)


def _block(ctx: ExecContext, ref: TileRef, rows: int, cols: int) -> np.ndarray:
    """The top-left ``rows x cols`` block of ``ref`` (clipped to its valid region), padded
    with zeros to ``rows x cols``, and the mask of its valid elements."""
    r, c = min(rows, ref.valid_row), min(cols, ref.valid_col)
    out = np.zeros((rows, cols), dtype=ref.dtype.np)
    mask = np.zeros((rows, cols), dtype=bool)
    if r > 0 and c > 0:
        out[:r, :c] = ctx.tile_read(ref, r, c).reshape(r, c)
        mask[:r, :c] = True
    return out, mask


def npu_split(instr, dst: TileRef, src0: TileRef, src1: TileRef):
    """The NPU roles: (full source name, full, small source name, small, path) with path
    ``"rows"`` (the small one has dst's valid columns) or ``"cols"``; None if unsupported."""
    for fn, full, sn, small in (("src0", src0, "src1", src1), ("src1", src1, "src0", src0)):
        inside = small.valid_row <= dst.valid_row and small.valid_col <= dst.valid_col
        if full.valid == dst.valid and inside:
            path = "rows" if small.valid_col == dst.valid_col else "cols"
            return fn, full, sn, small, path
    return None


def row_block_copy(ctx: ExecContext, dst: TileRef, src: TileRef, r0: int, r1: int, C: int):
    """``copy_ubuf_to_ubuf`` (the copy-then-op lowering) of rows [r0, r1) of ``src`` into dst.
    Tiles of the same Cols: one copy of the whole rows (their padding columns too); else one
    copy per row of whole 32-byte blocks, so dst's padding up to the block boundary after
    column C gets src's bytes there."""
    if r1 <= r0:
        return
    sz = dst.dtype.size_bytes
    ds, ss = ctx.tile_storage(dst), ctx.tile_storage(src)
    if dst.cols == src.cols:
        a = r0 * dst.cols
        b = min(a + -(-(r1 - r0) * dst.cols * sz // BLOCK_BYTES) * BLOCK_BYTES // sz, ds.size)
        ds[a:b] = ss[a:b].copy()
        return
    end = -(-C * sz // BLOCK_BYTES) * BLOCK_BYTES // sz
    for r in range(r0, r1):
        ds[r * dst.cols : r * dst.cols + end] = ss[r * src.cols : r * src.cols + end].copy()


class TPart(VectorInstruction):
    """``TPART<OP>(dst, src0, src1)``, OP in ADD, MUL, MAX, MIN."""

    reads = ("src0", "src1")
    writes = ("dst",)

    def __init__(self, op: str, dst: TileRef, src0: TileRef, src1: TileRef):
        if op not in ("ADD", "MUL", "MAX", "MIN"):
            raise ValueError(f"unknown TPART op {op!r}")
        self.op, self.opcode = op, f"TPART{op}"
        self.dst, self.src0, self.src1 = dst, src0, src1

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d = self.dst
        self.require_vec("dst", d, arch)
        self.require_element_dtype("dst", d, arch)
        for name in ("src0", "src1"):
            ref = getattr(self, name)
            self.require_vec(name, ref, arch)
            self.require_same_dtype("dst", d, name, ref)
        if arch.spec.elementwise.partial_one_source_full:
            self.require_npu_shape()

    def require_npu_shape(self) -> None:
        d, s0, s1 = self.dst, self.src0, self.src1
        self.require(
            d.valid_row == 0 or d.valid_col == 0 or npu_split(self, d, s0, s1) is not None,
            "src1" if s0.valid == d.valid else "src0",
            "part-shape",
            f"one source with dst's valid shape {d.valid} and the other's valid region inside it",
            f"src0 valid {s0.valid}, src1 valid {s1.valid}",
            "the a2a3 lowering supports only these shapes (PTO_ASSERT)",
        )

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        if R == 0 or C == 0:
            return
        if ctx.spec.elementwise.partial_copy_then_op:
            self.require_npu_shape()
            self._execute_copy_then_op(ctx)
            return
        dt = d.dtype
        a, va = _block(ctx, self.src0, R, C)
        b, vb = _block(ctx, self.src1, R, C)
        both = elementwise(self.op, dt, a, b, ctx.spec.numerics.maxmin)
        out = np.where(va & vb, both, np.where(va, a, np.where(vb, b, np.zeros_like(a))))
        ctx.tile_write(d, out.astype(dt.np))

    def _execute_copy_then_op(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        dt = d.dtype
        rule = ctx.spec.numerics.maxmin
        _, full, sn, small, path = npu_split(self, d, self.src0, self.src1)
        r, c = small.valid
        if path == "rows":  # op over the small source's rows, then copy the full one's rest
            if r > 0:
                x = ctx.tile_read(full, r, C).reshape(r, C)
                y = ctx.tile_read(small, r, C).reshape(r, C)
                ctx.tile_write(d, elementwise(self.op, dt, x, y, rule), r, C)
            row_block_copy(ctx, d, full, r, R, C)
            return
        if overlaps(d, small) and not (d.address == full.address and d.loc is full.loc):
            ctx.finding(
                TILE_OVERLAP,
                "tile-overlap",
                f"{self.opcode} dst {d.name} overlaps {sn} {small.name}: the {ctx.target} lowering "
                f"copies the full source into dst before it reads {sn}; use a separate dst tile",
            )
        row_block_copy(ctx, d, full, 0, R, C)  # copy, barrier, dst = op(small, dst)
        if r > 0 and c > 0:
            y = ctx.tile_read(small, r, c).reshape(r, c)
            x = ctx.tile_read(d, r, c).reshape(r, c)
            ctx.tile_write(d, elementwise(self.op, dt, y, x, rule), r, c)


class TPartArg(VectorInstruction):
    """``TPARTARG<MAX|MIN>(dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx)``."""

    reads = ("src0_val", "src0_idx", "src1_val", "src1_idx")
    writes = ("dst_val", "dst_idx")

    def __init__(self, op, dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx):
        if op not in ("MAX", "MIN"):
            raise ValueError(f"unknown TPARTARG op {op!r}")
        self.op, self.opcode = op, f"TPARTARG{op}"
        self.dst_val, self.dst_idx = dst_val, dst_idx
        self.src0_val, self.src0_idx = src0_val, src0_idx
        self.src1_val, self.src1_idx = src1_val, src1_idx

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        dv, di = self.dst_val, self.dst_idx
        self.require_vec("dst_val", dv, arch)
        self.require_element_dtype("dst_val", dv, arch)
        self.require_vec("dst_idx", di, arch)
        self.require_dtype("dst_idx", di.dtype, arch.spec.reduce.part_arg_index.get(dv.dtype, ()))
        for k in ("dst", "src0", "src1"):
            val, idx = getattr(self, f"{k}_val"), getattr(self, f"{k}_idx")
            if k != "dst":
                self.require_vec(f"{k}_val", val, arch)
                self.require_same_dtype("dst_val", dv, f"{k}_val", val)
                self.require_vec(f"{k}_idx", idx, arch)
                self.require_same_dtype("dst_idx", di, f"{k}_idx", idx)
            self.require_same_valid(f"{k}_val", val, f"{k}_idx", idx)
        if arch.spec.elementwise.partial_one_source_full:
            self.require(
                dv.valid_row == 0
                or dv.valid_col == 0
                or npu_split(self, dv, self.src0_val, self.src1_val) is not None,
                "src1_val" if self.src0_val.valid == dv.valid else "src0_val",
                "part-shape",
                f"one source with dst's valid shape {dv.valid} and the other's valid region "
                "inside it",
                f"src0 valid {self.src0_val.valid}, src1 valid {self.src1_val.valid}",
                "the NPU lowering supports only these shapes (PTO_ASSERT)",
            )

    def execute(self, ctx: ExecContext) -> None:
        dv, di = self.dst_val, self.dst_idx
        R, C = dv.valid
        if R == 0 or C == 0:
            return
        if ctx.spec.reduce.part_arg_select is PartArgSelect.VSEL_SRC0_IF_NOT_WORSE:
            self._execute_vsel(ctx)
            return
        a, va = _block(ctx, self.src0_val, R, C)
        b, vb = _block(ctx, self.src1_val, R, C)
        ia, _ = _block(ctx, self.src0_idx, R, C)
        ib, _ = _block(ctx, self.src1_idx, R, C)
        better = (b > a) if self.op == "MAX" else (b < a)  # NaN compares false: src0 kept
        take_b = (vb & ~va) | (va & vb & better)
        keep_a = va & ~take_b
        zero_v, zero_i = np.zeros_like(a), np.zeros_like(ia)
        ctx.tile_write(dv, np.where(take_b, b, np.where(keep_a, a, zero_v)))
        ctx.tile_write(di, np.where(take_b, ib, np.where(keep_a, ia, zero_i)))

    def _execute_vsel(self, ctx: ExecContext) -> None:
        """The a2a3 stages (module docstring), each on the memory in order."""
        dv, di = self.dst_val, self.dst_idx
        R, C = dv.valid
        _, full, sn, small, path = npu_split(self, dv, self.src0_val, self.src1_val)
        full_idx = self.src1_idx if sn == "src0" else self.src0_idx
        r, c = small.valid
        if path == "rows":
            self._vsel_pairs(ctx, r, C)
            row_block_copy(ctx, dv, full, r, R, C)
            row_block_copy(ctx, di, full_idx, r, R, C)
            return
        row_block_copy(ctx, dv, full, 0, R, C)
        row_block_copy(ctx, di, full_idx, 0, R, C)
        self._vsel_pairs(ctx, r, c)

    def _vsel_pairs(self, ctx: ExecContext, rows: int, cols: int) -> None:
        """``vcmp`` + two ``vsel`` per row and repeat over the top-left ``rows x cols``."""
        if rows == 0 or cols == 0:
            return
        dv, di = self.dst_val, self.dst_idx
        val_lanes = REPEAT_BYTES // dv.dtype.size_bytes
        # the index vsel runs on float lanes for 32-bit indices, else on the value type's
        idx_lanes = REPEAT_BYTES // 4 if di.dtype.size_bytes == 4 else val_lanes
        # whole repeats: set_vector_mask(0, -1) (64 lanes) when the widths differ, else all
        mask_lanes = 64 if dv.dtype.size_bytes != di.dtype.size_bytes else 128
        j = np.arange(cols)
        lane = j % val_lanes
        in_full = j < cols // val_lanes * val_lanes
        active = np.where(in_full, lane < mask_lanes, True)  # the last repeat: cols % E lanes
        write_v, write_i = active & (lane < val_lanes), active & (lane < idx_lanes)
        a = ctx.tile_read(self.src0_val, rows, cols).reshape(rows, cols)
        b = ctx.tile_read(self.src1_val, rows, cols).reshape(rows, cols)
        ia = ctx.tile_read(self.src0_idx, rows, cols).reshape(rows, cols)
        ib = ctx.tile_read(self.src1_idx, rows, cols).reshape(rows, cols)
        keep_a = (a >= b) if self.op == "MAX" else (a <= b)  # vcmp_ge / vcmp_le: NaN -> src1
        for ref, out, cols_written in (
            (dv, np.where(keep_a, a, b), write_v),
            (di, np.where(keep_a, ia, ib), write_i),
        ):
            rr, cc = ref.geom.grid(rows, cols)
            sel = np.broadcast_to(cols_written, (rows, cols))
            ctx.tile_storage(ref)[ref.offsets(rr, cc).reshape(rows, cols)[sel]] = out[sel]


# -- the kernel-facing API ------------------------------------------------------------------
_FAMILY = "elementwise tile-tile"


def _emit(op: str, dst, src0, src1) -> None:
    name = f"TPART{op}"
    emit(
        TPart(
            op,
            _tile(dst, f"{name} dst"),
            _tile(src0, f"{name} src0"),
            _tile(src1, f"{name} src1"),
        )
    )


def _emit_arg(op: str, *tiles) -> None:
    name = f"TPARTARG{op}"
    names = ("dst_val", "dst_idx", "src0_val", "src0_idx", "src1_val", "src1_idx")
    emit(TPartArg(op, *(_tile(t, f"{name} {n}") for t, n in zip(tiles, names))))


@instruction(
    family=_FAMILY,
    summary="dst = src0 + src1 where both valid, else the valid one (cpu: else 0)",
)
def TPARTADD(dst, src0, src1) -> None:
    """Partial add: ``src0 + src1`` where both are valid, the valid one elsewhere."""
    _emit("ADD", dst, src0, src1)


@instruction(
    family=_FAMILY,
    summary="dst = src0 * src1 where both valid, else the valid one (cpu: else 0)",
)
def TPARTMUL(dst, src0, src1) -> None:
    """Partial multiply: ``src0 * src1`` where both are valid, the valid one elsewhere."""
    _emit("MUL", dst, src0, src1)


@instruction(
    family=_FAMILY,
    summary="dst = max(src0, src1) where both valid, else the valid one (cpu: else 0)",
)
def TPARTMAX(dst, src0, src1) -> None:
    """Partial max (cpu: std::max, first operand kept; NPU: IEEE maximum)."""
    _emit("MAX", dst, src0, src1)


@instruction(
    family=_FAMILY,
    summary="dst = min(src0, src1) where both valid, else the valid one (cpu: else 0)",
)
def TPARTMIN(dst, src0, src1) -> None:
    """Partial min (cpu: std::min, first operand kept; NPU: IEEE minimum)."""
    _emit("MIN", dst, src0, src1)


@instruction(
    family=_FAMILY,
    summary="(value, index) of the larger of two partial (value, index) pairs",
)
def TPARTARGMAX(dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx) -> None:
    """Partial arg-max: src1's pair where its value is strictly greater, else src0's (a2a3:
    src0's pair where ``src0 >= src1``, else src1's, so a NaN takes src1's)."""
    _emit_arg("MAX", dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx)


@instruction(
    family=_FAMILY,
    summary="(value, index) of the smaller of two partial (value, index) pairs",
)
def TPARTARGMIN(dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx) -> None:
    """Partial arg-min: src1's pair where its value is strictly smaller, else src0's (a2a3:
    src0's pair where ``src0 <= src1``, else src1's, so a NaN takes src1's)."""
    _emit_arg("MIN", dst_val, dst_idx, src0_val, src0_idx, src1_val, src1_idx)
