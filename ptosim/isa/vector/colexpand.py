"""Column broadcast: TCOLEXPAND and TCOLEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF} (vector_isa.md 3.18).

``TCOLEXPAND(dst, src)``: ``dst[i, j] = src[0, j]`` over dst's valid region (R, C); src and dst
share the dtype, ``src.validCol == C``. a2a3 copies src row 0 into every dst row with
``copy_ubuf_to_ubuf`` in whole 32-byte blocks (``VectorRules.block_copies_write_padding``), so
dst[i, C:] up to the block boundary gets src row 0's bytes there (writes padding); cpu and a5
write the valid region only.

``TCOLEXPAND<OP>(dst, src0, src1)``: one operand is *full* (dst's valid shape), the other a row
vector (valid [>= 1, C], row 0 used): ``dst[i, j] = full[i, j] OP row[0, j]`` with the operand
order kept (``src0 - src1``, ``src0 / src1``, ``exp(src0 - src1)``). cpu always takes src1 as
the row vector (``BroadcastRules.col_row_vector_in_src1``; it cannot express a row vector in
src0: rejected, rule ``cpu-row-vector``); a2a3/a5 take whichever operand has dst's valid shape
as the full one (src0 when both do). Arithmetic and dtypes are those of TROWEXPAND<OP>
(``rowexpand.compute``; the targets list the same dtypes: cpu std::max/min, NPU IEEE
maximum/minimum, one rounding to T, integer DIV by zero raises).
"""

from __future__ import annotations

import numpy as np

from ...errors import ExecutionError
from ...program import emit
from ...tensors import TileRef
from ..base import Arch, ExecContext, check_algorithm
from ..data import _tile
from ..registry import instruction
from ..rowexpand import compute
from .common import VectorInstruction, read_valid

__all__ = [
    "TCOLEXPAND",
    "TCOLEXPANDADD",
    "TCOLEXPANDDIV",
    "TCOLEXPANDEXPDIF",
    "TCOLEXPANDMAX",
    "TCOLEXPANDMIN",
    "TCOLEXPANDMUL",
    "TCOLEXPANDSUB",
]

BLOCK_BYTES = 32


def padded_cols(ref: TileRef, C: int) -> int:
    """Columns a 32-byte-block copy of C elements covers."""
    sz = ref.dtype.size_bytes
    return -(-C * sz // BLOCK_BYTES) * BLOCK_BYTES // sz


class TColExpand(VectorInstruction):
    """TCOLEXPAND(dst, src): ``dst[i, j] = src[0, j]``."""

    opcode = "TCOLEXPAND"
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef):
        self.dst, self.src = dst, src

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_vec("dst", d, arch)
        self.require_vec("src", s, arch)
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src", s)
        self.require(
            s.valid_col == d.valid_col,
            "src",
            "valid-cols",
            f"valid_col == dst valid_col {d.valid_col}",
            s.valid_col,
        )
        if d.valid_row and d.valid_col:
            self.require(s.valid_row >= 1, "src", "src-rows", "valid_row >= 1", s.valid_row)

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        R, C = d.valid
        if R == 0 or C == 0:
            return
        row = read_valid(ctx, s, 1, C)
        ctx.tile_write(d, np.repeat(row, R, axis=0), R, C)
        end = padded_cols(d, C)
        if ctx.spec.vector.block_copies_write_padding and end > C and d.geom.is_row_major:
            mem = ctx.memory_from(d)
            pad = ctx.memory_from(s)[C:end].copy()
            for i in range(R):
                mem[i * d.cols + C : i * d.cols + end] = pad


class TColExpandBinary(VectorInstruction):
    """TCOLEXPAND<OP>(dst, src0, src1): the row vector broadcast down the columns."""

    reads = ("src0", "src1")
    writes = ("dst",)

    def __init__(self, op: str, dst: TileRef, src0: TileRef, src1: TileRef):
        self.op, self.opcode = op, f"TCOLEXPAND{op}"
        self.dst, self.src0, self.src1 = dst, src0, src1

    def roles(self, arch: Arch) -> tuple[str, str]:
        """(full operand, row-vector operand)."""
        if arch.spec.broadcast.col_row_vector_in_src1 or self.src0.valid == self.dst.valid:
            return "src0", "src1"
        return "src1", "src0"

    def validate(self, arch: Arch) -> None:
        d = self.dst
        for name in ("dst", "src0", "src1"):
            self.require_vec(name, getattr(self, name), arch)
            self.require_same_dtype("dst", d, name, getattr(self, name))
        self.require_element_dtype("dst", d, arch)
        f_name, r_name = self.roles(arch)
        f, r = getattr(self, f_name), getattr(self, r_name)
        if arch.spec.broadcast.col_row_vector_in_src1:
            self.require(
                f.valid == d.valid,
                "src0",
                "cpu-row-vector",
                f"src0 with dst's valid shape {d.valid} (the cpu reference always reads the "
                "row vector from src1)",
                f.valid,
            )
        else:
            self.require(
                f.valid == d.valid,
                "src0/src1",
                "full-operand",
                f"src0 or src1 with dst's valid shape {d.valid}",
                f"src0 {self.src0.valid}, src1 {self.src1.valid}",
            )
        self.require(
            r.valid_col == d.valid_col and (r.valid_row >= 1 or d.valid_row == 0),
            r_name,
            "row-vector",
            f"a row vector with valid_col == {d.valid_col} and valid_row >= 1",
            r.valid,
        )

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        if R == 0 or C == 0:
            return
        f_name, r_name = self.roles(ctx.arch)
        full = read_valid(ctx, getattr(self, f_name), R, C)
        row = np.repeat(read_valid(ctx, getattr(self, r_name), 1, C), R, axis=0)
        a, b = (full, row) if f_name == "src0" else (row, full)
        if self.op == "DIV" and d.dtype.is_int and np.any(b == 0):
            raise ExecutionError(
                f"{self.label}: integer division by zero in the divisor src1; nothing was written"
            )
        ctx.tile_write(d, compute(self.op, d.dtype, a, b, ctx.spec.numerics.maxmin), R, C)


def _binary(op: str, dst, src0, src1) -> None:
    name = f"TCOLEXPAND{op}"
    emit(
        TColExpandBinary(
            op, _tile(dst, f"{name} dst"), _tile(src0, f"{name} src0"), _tile(src1, f"{name} src1")
        )
    )


def _doc(op: str, text: str) -> dict:
    return {"family": "column broadcast", "summary": text}


@instruction(family="column broadcast", summary="dst[i, j] = src[0, j]")
def TCOLEXPAND(dst, src) -> None:
    """``dst[i, j] = src[0, j]`` over dst's valid region."""
    emit(TColExpand(_tile(dst, "TCOLEXPAND dst"), _tile(src, "TCOLEXPAND src")))


@instruction(**_doc("ADD", "dst = src0 + src1, the row vector broadcast down the columns"))
def TCOLEXPANDADD(dst, src0, src1) -> None:
    """``dst = src0 + src1`` with the row-vector operand broadcast down the columns."""
    _binary("ADD", dst, src0, src1)


@instruction(**_doc("SUB", "dst = src0 - src1, the row vector broadcast down the columns"))
def TCOLEXPANDSUB(dst, src0, src1) -> None:
    """``dst = src0 - src1`` with the row-vector operand broadcast."""
    _binary("SUB", dst, src0, src1)


@instruction(**_doc("MUL", "dst = src0 * src1, the row vector broadcast down the columns"))
def TCOLEXPANDMUL(dst, src0, src1) -> None:
    """``dst = src0 * src1`` with the row-vector operand broadcast."""
    _binary("MUL", dst, src0, src1)


@instruction(**_doc("DIV", "dst = src0 / src1, the row vector broadcast down the columns"))
def TCOLEXPANDDIV(dst, src0, src1, *, algorithm="DEFAULT") -> None:
    """``dst = src0 / src1`` with the row-vector operand broadcast; correctly rounded under
    either ``algorithm`` (the C++ DivAlgorithm)."""
    check_algorithm("TCOLEXPANDDIV", algorithm)
    _binary("DIV", dst, src0, src1)


@instruction(**_doc("MAX", "dst = max(src0, src1), the row vector broadcast down the columns"))
def TCOLEXPANDMAX(dst, src0, src1) -> None:
    """``dst = max(src0, src1)`` with the row-vector operand broadcast."""
    _binary("MAX", dst, src0, src1)


@instruction(**_doc("MIN", "dst = min(src0, src1), the row vector broadcast down the columns"))
def TCOLEXPANDMIN(dst, src0, src1) -> None:
    """``dst = min(src0, src1)`` with the row-vector operand broadcast."""
    _binary("MIN", dst, src0, src1)


@instruction(**_doc("EXPDIF", "dst = exp(src0 - src1), the row vector broadcast down the columns"))
def TCOLEXPANDEXPDIF(dst, src0, src1) -> None:
    """``dst = exp(src0 - src1)`` with the row-vector operand broadcast (float types)."""
    _binary("EXPDIF", dst, src0, src1)
