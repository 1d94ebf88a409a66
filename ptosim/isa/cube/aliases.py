"""The C++ tile aliases of the cube (``TileLeft``, ``TileRight``, ``TileAcc``, their Compact
variants) as functions: inside a kernel body they build a ``pto.Tile`` with the fractal layout
the running target gives the alias (reference/cube_isa.md 2.1: TileLeft is ZZ on Atlas A2/A3,
NZ on 950 and in the CPU simulator). Plus ``TileMatNZ`` / ``TileMatZN`` for L1 panels."""

from __future__ import annotations

from ...program import current
from ...tensors import Tile


def _valid(rows, cols, valid_row, valid_col):
    if valid_row is None and valid_col is None:
        return None
    return (rows if valid_row is None else valid_row, cols if valid_col is None else valid_col)


def TileLeft(dtype, rows: int, cols: int, valid_row=None, valid_col=None, *, compact=False,
             name=None) -> Tile:  # fmt: skip
    """``TileLeft<T, Rows, Cols, ValidRow, ValidCol>``: an L0A operand A[M, K]."""
    blayout = current().program.arch.spec.cube.left_blayout
    return Tile(
        "Left", dtype, rows, cols, blayout.name, valid=_valid(rows, cols, valid_row, valid_col),
        slayout="RowMajor", fractal=512, compact="Normal" if compact else "Null", name=name,
    )  # fmt: skip


def TileRight(dtype, rows: int, cols: int, valid_row=None, valid_col=None, *, compact=False,
              name=None) -> Tile:  # fmt: skip
    """``TileRight<T, Rows, Cols, ValidRow, ValidCol>``: an L0B operand B[K, N] (ZN)."""
    return Tile(
        "Right", dtype, rows, cols, "RowMajor", valid=_valid(rows, cols, valid_row, valid_col),
        slayout="ColMajor", fractal=512, compact="Normal" if compact else "Null", name=name,
    )  # fmt: skip


def TileAcc(dtype, rows: int, cols: int, valid_row=None, valid_col=None, *, compact=False,
            name=None) -> Tile:  # fmt: skip
    """``TileAcc<T, Rows, Cols, ValidRow, ValidCol>``: an L0C accumulator (NZ, 16 x 16)."""
    return Tile(
        "Acc", dtype, rows, cols, "ColMajor", valid=_valid(rows, cols, valid_row, valid_col),
        slayout="RowMajor", fractal=1024, compact="Normal" if compact else "Null", name=name,
    )  # fmt: skip


def TileMatNZ(dtype, rows: int, cols: int, valid_row=None, valid_col=None, *, name=None,
              pad="Null") -> Tile:  # fmt: skip
    """An L1 panel in NZ fractals (``Tile<Mat, T, R, C, ColMajor, VR, VC, RowMajor>``)."""
    return Tile(
        "Mat", dtype, rows, cols, "ColMajor", valid=_valid(rows, cols, valid_row, valid_col),
        slayout="RowMajor", fractal=512, pad=pad, name=name,
    )  # fmt: skip


def TileMatZN(dtype, rows: int, cols: int, valid_row=None, valid_col=None, *, name=None,
              pad="Null") -> Tile:  # fmt: skip
    """An L1 panel in ZN fractals (``Tile<Mat, T, R, C, RowMajor, VR, VC, ColMajor>``), what
    a DN GlobalTensor loads into (DN2ZN) and a Right tile takes without a transpose."""
    return Tile(
        "Mat", dtype, rows, cols, "RowMajor", valid=_valid(rows, cols, valid_row, valid_col),
        slayout="ColMajor", fractal=512, pad=pad, name=name,
    )  # fmt: skip


ALIASES = ("TileLeft", "TileRight", "TileAcc", "TileMatNZ", "TileMatZN")
