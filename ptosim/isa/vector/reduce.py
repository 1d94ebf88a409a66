"""Row and column reductions (vector_isa.md 3.5, 3.17; numerics 2.3; orders in reduce_order).

Row: ``TROW<OP>(dst, src, tmp)`` with OP in SUM, MAX, MIN, PROD: ``dst[i, 0] = reduce_j
src[i, j]`` over src's valid region (R, C); ``TROWARG<MAX|MIN>(dst_idx, src, tmp)`` or
``(dst_val, dst_idx, src, tmp)`` store the first column index of the extreme (and its value).
Column: ``TCOL<OP>(dst, src)`` (``TCOLSUM(dst, src, tmp, is_binary)`` too): ``dst[0, j] =
reduce_i src[i, j]``; ``TCOLARG<MAX|MIN>`` likewise with row indices.

Each target reduces in its reference order and accumulator type, bit-exactly (reduce_order; the
target's ``ReduceRules.row_order`` / ``col_order``):
cpu sequential (TROWSUM in float32 for a half/bfloat16 dst), a2a3 its lowering (chunk tree +
vcadd lane tree in T, per-row int blocks with a scalar lane combine, TCOLSUM copy-then-add or
the binary tree), a5 per-chunk lane trees summed sequentially and the pairwise column order.

Checks (vector_isa.md 3.5/3.17): Vec tiles; on the NPU src is RowMajor ND and a row-reduction
dst is ND or a DN column (ColMajor, Cols 1); ``dst.validRow == R`` (rows) / ``dst.validCol == C``
(columns); row reductions need R, C != 0 (an empty column reduction is a no-op). ``tmp`` is
mandatory in the row API and ignored on cpu and a5; on a2a3 it must hold what the lowering puts
there (``tmp_need``), same dtype as src; for TCOLARG<MAX|MIN> only its address counts (the
lowering's scratch, ``TColArg.scratch_elements``, may run past a small tmp tile). a2a3 also
writes padding: the column reductions copy row 0 (or tmp row 0) to dst in whole 32-byte blocks,
so dst[0, C:] up to the block boundary gets the copied row's bytes.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ...errors import KernelError
from ...program import emit
from ...tensors import TileRef
from ..base import Arch, ExecContext
from ..data import _tile
from ..registry import instruction
from ..spec import ArgCompare, ColReduceOrder, MaxMin, RowReduceOrder
from . import reduce_order as O
from .common import VectorInstruction, read_valid

__all__ = [
    "TCOLARGMAX",
    "TCOLARGMIN",
    "TCOLMAX",
    "TCOLMIN",
    "TCOLPROD",
    "TCOLSUM",
    "TROWARGMAX",
    "TROWARGMIN",
    "TROWMAX",
    "TROWMIN",
    "TROWPROD",
    "TROWSUM",
]

f32 = D.float32


def special_shape(src: TileRef, dst: TileRef) -> bool:
    """The a2a3 static shapes reduced with vcgadd/vcgmax/vcgmin (vector_isa.md 3.5 step 1)."""
    return (
        src.dtype is f32
        and not dst.geom.is_row_major
        and src.static_valid
        and src.valid == (src.rows, src.cols)
        and (src.rows, src.cols) in O.SPECIAL_SHAPES
    )


def a2a3_blocks_path(op: str, dt: D.DType) -> bool:
    """The per-row block scheme with a scalar lane combine (ints, and TROWPROD always)."""
    return op == "PROD" or dt.is_int


class _Reduce(VectorInstruction):
    """Checks shared by the row and column reductions."""

    def _check_pair(self, src_name: str, src: TileRef, dst_name: str, dst: TileRef, pairs):
        allowed = pairs or {}
        self.require_dtype(src_name, src.dtype, tuple(allowed))
        self.require_dtype(
            dst_name,
            dst.dtype,
            allowed[src.dtype],
            "dtype-pair",
            f"the {dst_name} dtypes allowed for a {src.dtype.name} {src_name}",
        )

    def _check_row_dst(self, name: str, d: TileRef, s: TileRef, arch: Arch) -> None:
        self.require_loc(name, d)
        if arch.spec.vector.row_major_operands:
            g = d.geom
            ok = not g.is_boxed and (g.is_row_major or d.cols == 1)
            self.require(
                ok,
                name,
                "row-reduce-dst-layout",
                "ND (RowMajor) or a DN column (ColMajor, Cols == 1)",
                f"{g.layout_name} {d.rows}x{d.cols}",
            )
        self.require(
            d.valid_row == s.valid_row,
            name,
            "valid-rows",
            f"valid_row == src valid_row {s.valid_row}",
            d.valid_row,
        )
        self.require(d.valid_col >= 1, name, "valid-cols", "valid_col >= 1", d.valid_col)

    def _check_tmp(self, need: tuple[int, int, int] | None, arch: Arch) -> None:
        """``need`` = (rows, cols, elements) tmp must hold where the lowering uses it
        (``ReduceRules.tmp_required``: a2a3; None: not used)."""
        t = self.tmp
        if not arch.spec.reduce.tmp_required or need is None:
            return
        self.require(t is not None, "tmp", "tmp-required", "a tmp tile (a2a3 lowering)", None)
        self.require_loc("tmp", t)
        self.require_same_dtype("src", self.src, "tmp", t)
        rows, cols, elems = need
        self.require(
            t.geom.is_row_major and not t.geom.is_boxed,
            "tmp",
            "row-major",
            "BLayout::RowMajor (ND)",
            t.geom.layout_name,
        )
        self.require(
            t.rows >= rows and t.cols >= cols and t.numel >= elems,
            "tmp",
            "tmp-size",
            f"at least {rows} rows x {cols} cols ({elems} elements) for the a2a3 lowering",
            f"{t.rows}x{t.cols}",
        )


def _write_rows_block(ctx: ExecContext, ref: TileRef, block: np.ndarray) -> None:
    """Write a (rows, w) block at the start of each row of ``ref`` (row pitch = Cols), as the
    vector unit addresses it."""
    rows, w = block.shape
    mem = ctx.memory_from(ref)
    offs = (np.arange(rows)[:, None] * ref.cols + np.arange(w)[None, :]).reshape(-1)
    mem[offs] = block.reshape(-1).astype(ref.dtype.np, copy=False)


# -- row reductions ---------------------------------------------------------------------------
class TRowReduce(_Reduce):
    """TROW<OP>(dst, src, tmp), OP in SUM, MAX, MIN, PROD."""

    reads = ("src",)
    writes = ("dst", "tmp")

    def __init__(self, op: str, dst: TileRef, src: TileRef, tmp: TileRef | None):
        self.op, self.opcode = op, f"TROW{op}"
        self.dst, self.src, self.tmp = dst, src, tmp

    def tmp_need(self) -> tuple[int, int, int] | None:
        """(rows, cols, elements) the a2a3 lowering uses in tmp, or None."""
        s = self.src
        R, C = s.valid
        E = O.REPEAT_BYTES // s.dtype.size_bytes
        if a2a3_blocks_path(self.op, s.dtype):
            return 1, 1, s.dtype.c0
        if special_shape(s, self.dst):
            return 1, 1, R * C // O.GROUP
        if C <= E:
            return None
        chunks = max(1, (C // E) // 2) if self.op == "SUM" else 1
        return R, chunks * E, 0

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d, s = self.dst, self.src
        self.require_vec("src", s, arch)
        self._check_pair("src", s, "dst", d, arch.spec.reduce.row_pairs.get(self.op))
        self.require_nonempty("src", s)
        self._check_row_dst("dst", d, s, arch)
        self._check_tmp(self.tmp_need(), arch)

    def execute(self, ctx: ExecContext) -> None:
        d, s, t = self.dst, self.src, self.tmp
        x = read_valid(ctx, s)
        R = x.shape[0]
        tmp_block = None
        order, rule = ctx.spec.reduce.row_order, ctx.spec.numerics.maxmin
        if order is RowReduceOrder.SEQUENTIAL:
            vals = O.sequential_row(self.op, rule, x, d.dtype)
        elif order is RowReduceOrder.CHUNK_LANE_TREE:
            vals = O.a5_row(self.op, rule, x)
        elif a2a3_blocks_path(self.op, s.dtype):
            vals, lanes = O.a2a3_row_blocks(self.op, rule, x)
            tmp_block = lanes[None, :]
        else:
            special = special_shape(s, d)
            vals, tmp_block = O.a2a3_row_float(self.op, rule, x, special=special)
        ctx.tile_write(d, vals.reshape(R, 1), R, 1)
        if tmp_block is not None and t is not None:
            _write_rows_block(ctx, t, tmp_block)


class TRowArg(_Reduce):
    """TROWARG<MAX|MIN>([dst_val,] dst_idx, src, tmp): the first column of the extreme."""

    reads = ("src",)
    writes = ("dst_val", "dst_idx", "tmp")

    def __init__(self, op, dst_val, dst_idx, src, tmp):
        self.op, self.opcode = op, f"TROWARG{op}"
        self.dst_val, self.dst_idx, self.src, self.tmp = dst_val, dst_idx, src, tmp

    def tmp_need(self) -> tuple[int, int, int] | None:
        """a2a3 (``a2a3/TRowReduceIdxOps.hpp``), by the lowering's path, with E values per
        256-byte repeat, B per 32-byte block and ``n1 = ceil(C/E)`` chunks per row:

        - ``C <= E``, index only: ``vcmax`` in index mode writes dst directly: no tmp;
        - ``C <= E`` with values: the (value, index) pair of every row, packed: ``2 R``
          elements;
        - ``E < C <= E*E``: per row, at tmp's row pitch, the chunk indices and at
          ``o = ceil(2 n1 / B) * B`` the final pair, which the scalar pass reads back after
          every row's vector work: ``R`` rows of ``o + 2`` columns;
        - ``C > E*E``: a second level over the ``n1`` chunk values: the first-level indices,
          the second level's (``n2 = ceil(n1 / E)``) at ``o2 = ceil(n1 / B) * B`` and the
          final pair at ``o2 + ceil(2 n2 / B) * B``: ``R`` rows of that plus 2 columns.

        The size covers what is read back; the chunk values the lowering writes on the way
        reach further (``o + n1``, ``ceil(2 n1 / B) * B + n1`` in the two-level form) and land
        past a tmp sized to this rule (the library's own tests do so)."""
        R, C = self.src.valid
        E = O.REPEAT_BYTES // self.src.dtype.size_bytes
        B = O.BLOCK_BYTES // self.src.dtype.size_bytes
        n1 = -(-C // E)
        if C <= E:
            return None if self.dst_val is None else (1, 1, 2 * R)
        if C <= E * E:
            cols = -(-2 * n1 // B) * B + 2
        else:
            n2 = -(-n1 // E)
            cols = -(-n1 // B) * B + -(-2 * n2 // B) * B + 2
        return R, cols, R * cols

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        s, di, dv = self.src, self.dst_idx, self.dst_val
        self.require_vec("src", s, arch)
        self._check_pair("src", s, "dst_idx", di, arch.spec.reduce.row_arg_index)
        self.require_nonempty("src", s)
        self._check_row_dst("dst_idx", di, s, arch)
        if dv is not None:
            self.require_same_dtype("src", s, "dst_val", dv)
            self._check_row_dst("dst_val", dv, s, arch)
        self._check_tmp(self.tmp_need(), arch)

    def execute(self, ctx: ExecContext) -> None:
        x = read_valid(ctx, self.src)
        R = x.shape[0]
        rule = ctx.spec.numerics.maxmin
        if ctx.spec.reduce.arg_compare is ArgCompare.VECTOR_COMPARE:
            chunk = O.REPEAT_BYTES // self.src.dtype.size_bytes
            vals, idx = O.a5_row_arg(rule, self.op, x, chunk)
        else:
            vals, idx = O.arg_scan(rule, self.op, x)
        ctx.tile_write(self.dst_idx, idx.reshape(R, 1).astype(self.dst_idx.dtype.np), R, 1)
        if self.dst_val is not None:
            ctx.tile_write(self.dst_val, vals.reshape(R, 1), R, 1)


# -- column reductions ------------------------------------------------------------------------
def _pad_copy(ctx: ExecContext, dst: TileRef, src: TileRef, C: int) -> None:
    """The copy_ubuf_to_ubuf of row 0 moves whole 32-byte blocks
    (``VectorRules.block_copies_write_padding``): dst[0, C:] up to the block boundary receives
    the source row's bytes there (padding)."""
    sz = dst.dtype.size_bytes
    end = -(-C * sz // O.BLOCK_BYTES) * O.BLOCK_BYTES // sz
    if end > C:
        ctx.memory_from(dst)[C:end] = ctx.memory_from(src)[C:end]


class TColReduce(_Reduce):
    """TCOL<OP>(dst, src[, tmp, is_binary]), OP in SUM, MAX, MIN, PROD."""

    reads = ("src",)
    writes = ("dst", "tmp")

    def __init__(self, op, dst, src, tmp=None, is_binary=False):
        self.op, self.opcode = op, f"TCOL{op}"
        self.dst, self.src, self.tmp, self.is_binary = dst, src, tmp, bool(is_binary)

    @property
    def binary(self) -> bool:
        """The level-wise tree (TCOLSUM with a tmp tile and ``is_binary``)."""
        return self.op == "SUM" and self.is_binary and self.tmp is not None

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        d, s = self.dst, self.src
        self.require_vec("src", s, arch)
        self.require_vec("dst", d, arch)
        self._check_pair("src", s, "dst", d, arch.spec.reduce.col_pairs.get(self.op))
        self.require(
            d.valid_col == s.valid_col,
            "dst",
            "valid-cols",
            f"valid_col == src valid_col {s.valid_col}",
            d.valid_col,
        )
        if self.is_binary:
            self.require(self.op == "SUM", "is_binary", "binary-sum", "TCOLSUM only", self.op)
            self.require(
                self.tmp is not None, "tmp", "tmp-required", "a tmp tile for is_binary", None
            )
        tree = arch.spec.reduce.col_order is not ColReduceOrder.SEQUENTIAL_IN_DST
        if self.binary and tree:  # the level-wise tree writes tmp
            self.require_loc("tmp", self.tmp)
            self.require_same_dtype("src", s, "tmp", self.tmp)
            R, C = s.valid
            self.require(
                self.tmp.rows >= max(1, R // 2) and self.tmp.cols >= C,
                "tmp",
                "tmp-size",
                f"at least {max(1, R // 2)} rows and Cols >= C = {C} (row stride)",
                f"{self.tmp.rows}x{self.tmp.cols}",
            )

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        R, C = s.valid
        if R == 0 or C == 0:
            return
        x = read_valid(ctx, s)
        tmp_rows = None
        order, rule = ctx.spec.reduce.col_order, ctx.spec.numerics.maxmin
        if order is ColReduceOrder.SEQUENTIAL_IN_DST:
            vals = O.sequential_col(self.op, rule, x, d.dtype)
        elif self.binary:
            vals, tmp_rows = O.colsum_binary(rule, x)
        elif order is ColReduceOrder.PAIRWISE:
            vals = O.a5_col(self.op, rule, x)
        else:
            vals = O.a2a3_col(self.op, rule, x)
        if tmp_rows is not None:
            _write_rows_block(ctx, self.tmp, tmp_rows)
        if ctx.spec.vector.block_copies_write_padding:
            _pad_copy(ctx, d, self.tmp if tmp_rows is not None else s, C)
        ctx.tile_write(d, vals.reshape(1, C), 1, C)


class TColArg(_Reduce):
    """TCOLARG<MAX|MIN>([dst_val,] dst_idx, src, tmp): the first row index of the extreme."""

    reads = ("src",)
    writes = ("dst_val", "dst_idx", "tmp")

    def __init__(self, op, dst_val, dst_idx, src, tmp):
        self.op, self.opcode = op, f"TCOLARG{op}"
        self.dst_val, self.dst_idx, self.src, self.tmp = dst_val, dst_idx, src, tmp

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)
        s, di, dv = self.src, self.dst_idx, self.dst_val
        self.require_vec("src", s, arch)
        self.require_vec("dst_idx", di, arch)
        self._check_pair("src", s, "dst_idx", di, arch.spec.reduce.col_arg_index)
        for name, ref in (("dst_idx", di), ("dst_val", dv)):
            if ref is None:
                continue
            self.require_vec(name, ref, arch)
            self.require(
                ref.valid_col == s.valid_col,
                name,
                "valid-cols",
                f"valid_col == src valid_col {s.valid_col}",
                ref.valid_col,
            )
        if dv is not None:
            self.require_same_dtype("src", s, "dst_val", dv)
        # a2a3: only tmp's address and dtype matter (``scratch_elements``)
        self._check_tmp((1, 1, 0), arch)

    def scratch_elements(self) -> int:
        """Elements of src's type the a2a3 lowering uses from tmp's address, whatever the tmp
        tile's shape (npu/a2a3/TColReduceIdx.hpp checks only its dtype): per 256-byte block of
        columns, the running row index at tmp[0], the running extreme at tmp[gap] and, for a
        2-byte src without dst_val, the selected indices at tmp[2 * gap]; gap is one repeat
        when C fills one, else C rounded up to a 32-byte block."""
        sz = self.src.dtype.size_bytes
        per_repeat, per_block = 256 // sz, 32 // sz
        C = self.src.valid_col
        gap = per_repeat if per_repeat <= C else -(-C // per_block) * per_block
        return (3 if sz == 2 and self.dst_val is None else 2) * gap

    def execute(self, ctx: ExecContext) -> None:
        R, C = self.src.valid
        if R == 0 or C == 0:
            return
        t = self.tmp
        if ctx.spec.reduce.tmp_required and t is not None:  # the scratch must lie inside UB
            what = f"{self.label} tmp scratch of {self.scratch_elements()} elements"
            ctx.memory_of(t).typed(t.address, t.dtype, self.scratch_elements(), what=what)
        x = read_valid(ctx, self.src)
        rule = ctx.spec.numerics.maxmin
        if ctx.spec.reduce.arg_compare is ArgCompare.VECTOR_COMPARE:
            rule = MaxMin.FIRST_OPERAND  # a strict compare row by row: the earlier row keeps ties
        vals, idx = O.arg_scan(rule, self.op, x.T)
        ctx.tile_write(self.dst_idx, idx.reshape(1, C).astype(self.dst_idx.dtype.np), 1, C)
        if self.dst_val is not None:
            ctx.tile_write(self.dst_val, vals.reshape(1, C), 1, C)


# -- the kernel-facing API --------------------------------------------------------------------
def _row(op: str, dst, src, tmp) -> None:
    name = f"TROW{op}"
    emit(
        TRowReduce(
            op, _tile(dst, f"{name} dst"), _tile(src, f"{name} src"), _tile(tmp, f"{name} tmp")
        )
    )


def _arg(kind: str, op: str, operands: tuple) -> None:
    name = f"T{kind.upper()}ARG{op}"
    if len(operands) not in (3, 4):
        raise KernelError(
            f"{name} takes (dst_idx, src, tmp) or (dst_val, dst_idx, src, tmp), "
            f"got {len(operands)} operands"
        )
    names = (
        ("dst_idx", "src", "tmp") if len(operands) == 3 else ("dst_val", "dst_idx", "src", "tmp")
    )
    refs = dict(zip(names, (_tile(v, f"{name} {n}") for n, v in zip(names, operands))))
    cls = TRowArg if kind == "row" else TColArg
    emit(cls(op, refs.get("dst_val"), refs["dst_idx"], refs["src"], refs["tmp"]))


def _col(op: str, dst, src, tmp=None, is_binary=False) -> None:
    name = f"TCOL{op}"
    t = None if tmp is None else _tile(tmp, f"{name} tmp")
    emit(TColReduce(op, _tile(dst, f"{name} dst"), _tile(src, f"{name} src"), t, is_binary))


def _row_doc(op):
    return {"family": "reduction"}


@instruction(summary="dst[i, 0] = sum_j src[i, j] (per-target order)", **_row_doc("SUM"))
def TROWSUM(dst, src, tmp) -> None:
    """Row sums; cpu accumulates half/bfloat16 in float32, a2a3/a5 in T (module doc)."""
    _row("SUM", dst, src, tmp)


@instruction(summary="dst[i, 0] = max_j src[i, j]", **_row_doc("MAX"))
def TROWMAX(dst, src, tmp) -> None:
    """Row maxima (cpu std::max: a leading NaN sticks; NPU IEEE maximum)."""
    _row("MAX", dst, src, tmp)


@instruction(summary="dst[i, 0] = min_j src[i, j]", **_row_doc("MIN"))
def TROWMIN(dst, src, tmp) -> None:
    """Row minima (cpu std::min; NPU IEEE minimum)."""
    _row("MIN", dst, src, tmp)


@instruction(summary="dst[i, 0] = prod_j src[i, j] (per-target order)", **_row_doc("PROD"))
def TROWPROD(dst, src, tmp) -> None:
    """Row products (cpu sequential in T; a2a3 per-block lanes then a scalar lane product)."""
    _row("PROD", dst, src, tmp)


_ARG_ROW = _ARG_COL = {"family": "reduction"}


@instruction(summary="dst_idx[i, 0] = first j of max_j src[i, j] (+ dst_val)", **_ARG_ROW)
def TROWARGMAX(*operands) -> None:
    """``TROWARGMAX(dst_idx, src, tmp)`` or ``TROWARGMAX(dst_val, dst_idx, src, tmp)``."""
    _arg("row", "MAX", operands)


@instruction(summary="dst_idx[i, 0] = first j of min_j src[i, j] (+ dst_val)", **_ARG_ROW)
def TROWARGMIN(*operands) -> None:
    """``TROWARGMIN(dst_idx, src, tmp)`` or ``TROWARGMIN(dst_val, dst_idx, src, tmp)``."""
    _arg("row", "MIN", operands)


@instruction(
    family="reduction",
    summary="dst[0, j] = sum_i src[i, j] (sequential, or a tree with is_binary)",
)
def TCOLSUM(dst, src, tmp=None, is_binary=False) -> None:
    """Column sums: ``TCOLSUM(dst, src)`` or ``TCOLSUM(dst, src, tmp, is_binary)``."""
    _col("SUM", dst, src, tmp, is_binary)


@instruction(family="reduction", summary="dst[0, j] = max_i src[i, j]")
def TCOLMAX(dst, src) -> None:
    """Column maxima."""
    _col("MAX", dst, src)


@instruction(family="reduction", summary="dst[0, j] = min_i src[i, j]")
def TCOLMIN(dst, src) -> None:
    """Column minima."""
    _col("MIN", dst, src)


@instruction(
    family="reduction",
    summary="dst[0, j] = prod_i src[i, j]",
)
def TCOLPROD(dst, src) -> None:
    """Column products."""
    _col("PROD", dst, src)


@instruction(summary="dst_idx[0, j] = first i of max_i src[i, j] (+ dst_val)", **_ARG_COL)
def TCOLARGMAX(*operands) -> None:
    """``TCOLARGMAX(dst_idx, src, tmp)`` or ``TCOLARGMAX(dst_val, dst_idx, src, tmp)``."""
    _arg("col", "MAX", operands)


@instruction(summary="dst_idx[0, j] = first i of min_i src[i, j] (+ dst_val)", **_ARG_COL)
def TCOLARGMIN(*operands) -> None:
    """``TCOLARGMIN(dst_idx, src, tmp)`` or ``TCOLARGMIN(dst_val, dst_idx, src, tmp)``."""
    _arg("col", "MIN", operands)
