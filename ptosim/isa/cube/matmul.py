"""TMATMUL, TMATMUL_ACC, TMATMUL_BIAS and TGEMV* on PIPE_M (reference/cube_isa.md 3.4).

``C[i, j] = sum_k A[i, k] * B[k, j]`` over ``m = a.validRow``, ``k = a.validCol``,
``n = b.validCol`` (TGEMV: m = 1, k and n from b). TMATMUL starts from zero, TMATMUL_ACC from
the accumulator, TMATMUL_BIAS from ``bias[j]``. The targets differ (``CubeRules``):

- TGEMV on the NPU reads its vector from the first k elements of the Left tile's storage (the
  GEMV operand path of TEXTRACT lays it there contiguously);
- a2a3 issues m == 1 as 16 rows (``m1_as_16``), so rows 1-15 of the accumulator are written
  too, from rows 1-15 of the Left tile (the Left tile must have them: rule ``acc-extent``);
- TMATMUL_ACC: the NPU accumulates in place at the destination (cIn is not read,
  ``AccInput.IN_PLACE``); the CPU simulator computes ``cIn + product`` (one more rounding);
- TMATMUL_BIAS: the NPU starts the sum at the bias (``BiasOrder.INITIAL_VALUE``); the CPU adds
  the bias to the finished product (``ADDED_AFTER``);
- the order and rounding of the sum: ``numerics`` (decision D18 of docs/decisions.md).
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ... import hifloat8
from ...dtypes import names
from ...enums import Pipe, TileType
from ...tensors import TileRef
from ..base import Arch, ExecContext
from ..spec import AccInput, BiasOrder, CubeAddressing
from .common import NZ, ZN, ZZ, CubeInstruction, read_block, storage, write_block
from .numerics import mad_sum, round_hf32

KINDS = ("plain", "acc", "bias")


class MatMul(CubeInstruction):
    """One ``mad``: TMATMUL / _ACC / _BIAS (``kind``), TGEMV / _ACC / _BIAS (``gemv``)."""

    nominal_pipe = Pipe.PIPE_M
    writes = ("dst",)

    def __init__(self, kind: str, gemv: bool, dst: TileRef, a: TileRef, b: TileRef,
                 c_in: TileRef | None = None, bias: TileRef | None = None):  # fmt: skip
        self.kind, self.gemv = kind, gemv
        base = "TGEMV" if gemv else "TMATMUL"
        self.opcode = base + {"plain": "", "acc": "_ACC", "bias": "_BIAS"}[kind]
        self.dst, self.a, self.b, self.c_in, self.bias = dst, a, b, c_in, bias
        reads = ["a", "b"]
        if c_in is not None:
            reads.append("c_in")
        if bias is not None:
            reads.append("bias")
        self.reads = tuple(reads)

    # -- the shape of the mad ----------------------------------------------------------------
    def mkn(self) -> tuple[int, int, int]:
        """(m, k, n) as the reference computes them (TGEMV: m = 1, k and n from b)."""
        if self.gemv:
            return 1, self.b.valid_row, self.b.valid_col
        return self.a.valid_row, self.a.valid_col, self.b.valid_col

    def rows_written(self, arch_spec) -> int:
        """Accumulator rows the mad writes: m, or 16 for TMATMUL with m == 1 on a2a3."""
        m = self.mkn()[0]
        return 16 if (m == 1 and not self.gemv and arch_spec.cube.m1_as_16) else m

    def validate(self, arch: Arch) -> None:
        d, a, b = self.dst, self.a, self.b
        cube = arch.spec.cube
        self.require_kind("dst", d, TileType.Acc)
        self.require_kind("a", a, TileType.Left)
        self.require_kind("b", b, TileType.Right)
        self.require_element_dtype("a", a, arch)
        self.require_element_dtype("b", b, arch)
        if (a.dtype, b.dtype) not in cube.mad_mixed_inputs:
            self.require_same_dtype("a", a, "b", b)
        want = cube.mad_pairs[a.dtype]
        self.require(
            d.dtype is want, "dst", "dtype-pair", f"{want.name} for {a.dtype.name} inputs",
            d.dtype.name,
        )  # fmt: skip
        if cube.addressing is CubeAddressing.FRACTALS or not cube.left_any_blayout:
            self.require_layout("a", a, (cube.left_blayout, NZ[1]), detail="TileLeft")
        else:
            self.require_layout("a", a, NZ, ZZ, detail="TileLeft")
        self.require_layout("b", b, ZN, detail="TileRight")
        self.require_layout("dst", d, NZ, detail="TileAcc")
        m, k, n = self.mkn()
        hi = cube.mad_max
        for name, v in (("m", m), ("k", k), ("n", n)):
            self.require(
                v >= 1 and (hi is None or v <= hi), "a" if name != "n" else "b", "mad-shape",
                f"1 <= {name} <= {hi}", v, "m = a validRow, k = a validCol, n = b validCol",
            )  # fmt: skip
        if cube.static_shapes and not self.gemv:
            self.require(a.rows == d.rows, "dst", "static-shape", f"Rows == Left Rows {a.rows}",
                         d.rows)  # fmt: skip
            self.require(a.cols == b.rows, "b", "static-shape", f"Rows == Left Cols {a.cols}",
                         b.rows)  # fmt: skip
            self.require(b.cols == d.cols, "dst", "static-shape", f"Cols == Right Cols {b.cols}",
                         d.cols)  # fmt: skip
        if not self.gemv:
            self.require(
                b.valid_row == k, "b", "mad-shape", f"validRow == k ({k}, a's validCol)",
                b.valid_row,
            )  # fmt: skip
        rows = self.rows_written(arch.spec)
        self.require(
            rows <= a.rows, "a", "acc-extent",
            f"the {rows} rows the mad reads inside Rows {a.rows}", a.rows,
        )  # fmt: skip
        self.require(
            rows <= d.rows and n <= d.cols, "dst", "acc-extent",
            f"the {rows}x{n} result inside Rows x Cols {d.rows}x{d.cols}", f"{d.rows}x{d.cols}",
        )  # fmt: skip
        if self.c_in is not None:
            self.require_kind("c_in", self.c_in, TileType.Acc)
            self.require_same_dtype("dst", d, "c_in", self.c_in)
        if self.bias is not None:
            bias = self.bias
            self.require_kind("bias", bias, TileType.Bias)
            self.require_same_dtype("dst", d, "bias", bias)
            self.require(bias.rows == 1, "bias", "one-row", "Rows == 1", bias.rows)
            self.require(bias.cols >= n, "bias", "bias-extent", f"Cols >= n ({n})", bias.cols)

    # -- semantics ------------------------------------------------------------------------------
    def execute(self, ctx: ExecContext) -> None:
        cube = ctx.spec.cube
        d = self.dst
        m, k, n = self.mkn()
        rows = self.rows_written(ctx.spec)
        if self.gemv and cube.addressing is CubeAddressing.FRACTALS:  # the vector in L0A
            a = storage(ctx, self.a)[:k].reshape(1, k)
        else:
            a = read_block(ctx, self.a, rows, k)
        b = read_block(ctx, self.b, k, n)
        a, b = _values(a, self.a.dtype), _values(b, self.b.dtype)
        tf32 = self.a.mad_tf32 or self.b.mad_tf32
        bits = cube.tf32_mantissa_bits
        if tf32 and bits is not None and a.dtype == np.float32:
            a, b = round_hf32(a, tf32, bits), round_hf32(b, tf32, bits)
        init = None
        if self.kind == "acc":
            src = d if cube.acc_input is AccInput.IN_PLACE else self.c_in
            init = read_block(ctx, src, rows, n)
        bias = None
        if self.kind == "bias":
            bias = np.broadcast_to(read_block(ctx, self.bias, 1, n), (rows, n))
        added_after = cube.bias_order is BiasOrder.ADDED_AFTER
        after = None
        if cube.acc_input is AccInput.C_IN_PLUS_PRODUCT and init is not None:
            init, after = None, init
        if bias is not None:
            if added_after:
                after = bias
            else:
                init = bias
        sequential = cube.addressing is CubeAddressing.LOGICAL
        write_block(ctx, d, mad_sum(a, b, d.dtype, init, after, sequential=sequential))


def _values(x: np.ndarray, dt) -> np.ndarray:
    """The numbers a mad input holds: hifloat8 bytes decoded (the other types are numpy
    types already, float8 through ml_dtypes)."""
    return hifloat8.decode(x) if dt is D.hifloat8 else x


def dtype_text(dts) -> str:
    return names(dts)
