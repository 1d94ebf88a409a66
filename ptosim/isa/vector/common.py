"""What every vector instruction shares: operand checks, valid regions and exact rounding.

Checks (vector_isa.md 2.1, 2.2): operands are Vec tiles; on the NPU targets (a2a3, a5:
``VectorRules.row_major_operands``) the element-wise and reduction instructions require RowMajor
tiles (``isRowMajor``); the element types are the target's (``TargetSpec.dtypes``); sources must
match the destination's valid shape where the reference asserts it (its ``PTO_ASSERT``s are
compiled out in release builds, ptosim turns them into constraint errors, as the reference
advises).

Numerics (vector_isa.md 2.3): ``round_to`` rounds exact (float64 or wider-than-T) values to T
once, round-to-nearest-even, for every float dtype including bfloat16 and float8, without the
double-rounding error a float64 -> float32 -> bfloat16 cast can make; ``wrap_to`` stores
integers with C++ wrap-around.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...enums import BLayout, Pipe, SLayout, TileType
from ...tensors import TileRef
from ..base import Arch, ExecContext, Instruction


class VectorInstruction(Instruction):
    """Base of the vector instructions: runs on PIPE_V, shares the operand checks (the element
    types and whether the target defines the instruction come from ``arch.spec.dtypes`` under
    ``dtype_key``)."""

    nominal_pipe = Pipe.PIPE_V

    def require_vec(self, operand: str, ref: TileRef, arch: Arch, *, row_major: bool = True):
        """A Vec tile; RowMajor NoneBox where the target's vector operands must be row-major
        (``VectorRules.row_major_operands``), when ``row_major``."""
        self.require_loc(operand, ref)
        if row_major and arch.spec.vector.row_major_operands:
            g = ref.geom
            ok = g.blayout is BLayout.RowMajor and g.slayout is SLayout.NoneBox
            self.require(ok, operand, "row-major", "BLayout::RowMajor (ND)", g.layout_name)

    def require_same_valid(self, a: str, ra: TileRef, b: str, rb: TileRef) -> None:
        self.require(
            ra.valid == rb.valid,
            b,
            "same-valid-shape",
            f"valid shape {ra.valid} (the valid shape of {a})",
            rb.valid,
        )

    def require_nonempty(self, operand: str, ref: TileRef) -> None:
        self.require(
            ref.valid_row > 0 and ref.valid_col > 0,
            operand,
            "non-empty",
            "a non-empty valid region",
            ref.valid,
        )


def is_vec(ref: TileRef) -> bool:
    return ref.loc is TileType.Vec


def read_valid(ctx: ExecContext, ref: TileRef, rows: int | None = None, cols: int | None = None):
    """The (rows, cols) block of a tile (default: its valid region) as a 2-D array."""
    rows = ref.valid_row if rows is None else rows
    cols = ref.valid_col if cols is None else cols
    return ctx.tile_read(ref, rows, cols).reshape(rows, cols)


def _round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd: exact values stay, inexact ones get the odd
    neighbour; a second rounding to a format with at most 22 significand bits is then the
    correct rounding of x (Boldo and Melquiond)."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        inexact = np.isfinite(x) & (f.astype(np.float64) != x)
        # the neighbour of x toward zero, then force the last bit to 1
        toward_zero = np.where(
            np.abs(f.astype(np.float64)) > np.abs(x), np.nextafter(f, np.float32(0)), f
        )
        bits = toward_zero.view(np.uint32) | np.uint32(1)
        return np.where(inexact, bits.view(np.float32), f)


def round_to(values, dt: D.DType) -> np.ndarray:
    """Round exact values (any numeric array; floats as float64) to ``dt`` once, nearest-even.

    Integers wrap (``wrap_to``). half comes straight from float64 (numpy rounds it correctly);
    bfloat16 and float8 go through a round-to-odd float32, so there is no double rounding.
    """
    v = np.asarray(values)
    if dt.is_int:
        return wrap_to(v, dt)
    x = v.astype(np.float64)
    if dt is D.float32:
        with np.errstate(over="ignore"):
            return x.astype(np.float32)
    if dt is D.half:
        with np.errstate(over="ignore"):
            return x.astype(np.float16)
    return _round_to_odd_f32(x).astype(dt.np)


def wrap_to(values, dt: D.DType) -> np.ndarray:
    """Integers stored into ``dt`` with C++ wrap-around (two's complement truncation)."""
    v = np.asarray(values)
    if v.dtype.kind == "f":
        raise TypeError("wrap_to takes integers; round or truncate first")
    return v.astype(np.int64).astype(dt.np) if v.dtype.kind != "u" else v.astype(dt.np)


def host_cast_to_int(r: np.ndarray, dt: D.DType) -> tuple[np.ndarray, np.ndarray]:
    """The C cast double -> integer ``dt`` as x86-64 code does it: truncate; in range of the
    conversion width (64 bits for u8/u32/i64/u64, else 32) exact then the store wraps, else the
    "integer indefinite" value. Returns (values, mask of undefined-behaviour elements)."""
    t = np.trunc(np.asarray(r, dtype=np.float64))
    if dt is D.uint64:
        ok = (t >= 0) & (t < 2.0**64)
        v = np.where(ok, t, 2.0**63).astype(np.uint64)
        return v.astype(dt.np), ~ok
    width = 64 if dt in (D.uint8, D.uint32, D.int64) else 32
    lim = 2.0 ** (width - 1)
    ok = (t >= -lim) & (t < lim)
    with np.errstate(invalid="ignore"):
        v = np.where(ok, t, -lim).astype(np.int64)
    in_range = (t >= float(np.iinfo(dt.np).min)) & (t <= float(np.iinfo(dt.np).max))
    return v.astype(dt.np), ~in_range
