"""MSCATTER: UB source tile -> GM table through a UB index tile (seed 000, semantics.md 3.2).

Row mode writes ``table[idx[r], 0:C] (op)= src[r, 0:C]``; Elem mode writes
``table_flat[idx[r, c]] (op)= src[r, c]``. ``op`` is a plain store (ScatterAtomicOp::None) or an
atomic Add/Max/Min. Index values are read as uint32 and remapped by the ScatterOOB policy with
``indexing.remap`` (D2-D4: Skip drops the write, Clamp/Wrap remap, an Undefined index past the
capacity is an OutOfBoundsError raised before anything is written, an empty table receives
nothing).

Per-target addressing (D3):

- Row, ND table: capacity shape[3] (cpu, a5) or shape0*shape1*shape2*shape3 (a2a3). GM element
  of (row k, column j): cpu ``k*stride[3] + j*stride[4]``; a2a3 ``k*stride[3] + j`` (one
  contiguous DMA burst per row); a5 ``k*C + j`` (the SIMT kernel's pitch is the valid column
  count, hence the "table-row-width" rule).
- Row, NZ table (a2a3 only): capacity gShape2*16 logical rows; GM through ``nz_offsets``. The
  multi-burst DMA moves the table's whole logical row, gShape0*gShape1*C0 columns, read from the
  source's NZ storage (``bc*Rows*C0 + r*C0 + cin``). With src valid cols equal to that width
  (the normal case) this is exactly the seed's formula; with a narrower valid region the padded
  source columns are written too, as the hardware does. Rule "nz-table-cols" (as MGATHER)
  requires src ValidCol <= that width <= src Cols, so no source column is silently dropped and
  the DMA never reads past the tile.
- Elem: capacity = product of the five dims; ND: the index addresses the table's raw element
  pointer ``table_ptr[k']`` (``indexing.elem_offsets``, as MGATHER and every reference kernel),
  whatever the strides; a2a3 NZ: ``k -> (k // nLogicalCols, k % nLogicalCols) -> nz_offsets``.

Index reading: every target reads the Row index tile linearly (``idx_storage[r]``), as the
reference kernels do; cpu accepts a [1, R] or [R, 1] NoneBox index of either BLayout (the CPU
simulator and its tests use a ColMajor [R, 1] one) whose first R storage elements are its
logical vector (rule ``index-layout-row``). Elem reads ``idx[r, c]`` through the tile layout
everywhere. cpu converts indices through ``size_t``, the NPUs through uint32 (D2,
``indexing.index_values``).

Duplicates (D6), ScatterAtomicOp::None:

- cpu and a2a3: the last writer of the sequential loop wins. The loop is row-major (highest r,
  then highest c) except for the a2a3 NZ Elem kernel, which walks block column -> row ->
  column inside the block (seed 000, "NZ Layout"), so there the last writer in that walk wins.
- a5 Conflict::Last (the a5 default): the largest flat source index wins (r*C + c in Elem,
  the largest r in Row); slots nobody targets are never modified.
- a5 Conflict::Default: the winner is the store the SIMT schedule lands last. A timed run
  takes the landing order from the simulated warp schedule (the a5 plan sets
  ``simt_store_order``, the flat source indices r*C + c in landing order, before the data
  window opens; in Row mode each column then keeps its own winner); an untimed run uses
  ``default_conflict_order`` (the launch mapping of semantics.md 3.2.4). Every resolved
  collision is reported as a finding (``SCATTER_COLLISION``) that names the slots and the
  competing source positions.

Atomics accumulate every duplicate in the sequential source order (row-major flat index
ascending; the NZ walk for a2a3 NZ Elem), one read-modify-write after another, with D12
arithmetic: float32 in float32; half and bfloat16 (and, on cpu, float8) add in float32 and round
to nearest even per add; int8/int16/uint8/uint16 add in int32 and wrap; int32/uint32 wrap.
Max/Min compare against the addressed element (D11 for cpu Row). cpu follows the CPU
simulator's ``std::max(table, src)`` / ``std::min(table, src)``: the current table value is
kept unless the comparison ``table < src`` (max) / ``src < table`` (min) is true, so a NaN
source never lands, a NaN already in the table stays, and an equal-valued zero keeps the table's
sign. a5 (atomicMax / atomicMin, int32/uint32/float32) uses the NPU choice of ``maxmin``: NaN
propagates and -0 < +0, whatever the operand order. Atomic modes ignore ScatterConflict on a5;
on cpu an explicit Conflict::Last with an atomic op is rejected like the reference's static
assert. On cpu the reference accepts every element type of its list for Add/Max/Min; we do too
(float8 computes in float32 and rounds).

Constraint choices beyond the reference's static asserts (taken from the seed's text):
- cpu: table shape must be <1, 1, 1, TableRows, RowWidth>; src.Rows == idx.Rows in Elem mode and
  for a [R, 1] Row index (the [1, R] Row form has one index row by construction).
- a5 Row: a [1, R] index must be RowMajor and a [R, 1] index ColMajor when R > 1 (the kernel
  reads the index linearly; any other layout would scatter to garbage rows).
- a5: the non-empty rule is checked only for a static valid shape (the reference gates its
  static asserts the same way); a dynamic empty source writes nothing.
"""

from __future__ import annotations

import numpy as np

from ..enums import (
    Coalesce,
    Layout,
    Pipe,
    ScatterAtomicOp,
    ScatterConflict,
    ScatterOOB,
)
from ..findings import SCATTER_COLLISION
from ..program import emit
from ..tensors import GlobalTensor, GmRef, Tile, TileRef
from .atomic import atomic_update
from .base import Arch, ExecContext, Instruction
from .data import _gm, _tile
from .indexing import (
    INDEX_DTYPES,
    elem_capacity,
    elem_offsets,
    linear_row_index_ok,
    nz_logical_shape,
    nz_offsets,
    read_indices,
    remap,
    require_loop_index_layout,
    row_capacity,
    row_pitch,
    validate_for_kernel,
)
from .registry import instruction
from .spec import IndexedKernel, RowColumns

_NONE = ScatterAtomicOp.None_
WARP_SIZE = 32
MAX_WARPS = 32
_FINDING_SLOTS = 4  # colliding slots named in a finding
_FINDING_SOURCES = 8  # competing sources named per slot


def default_conflict_order(mode: Coalesce, rows: int, cols: int) -> np.ndarray:
    """Order in which the a5 SIMT launch lands the stores of Conflict::Default (a model).

    Returns a permutation of the write units (source rows in Row mode, flat ``r*C + c`` in
    Elem mode): a unit later in the order overwrites an earlier one at a shared destination.

    Model of the launch mapping (semantics.md 3.2.4), used by untimed runs (a timed run takes
    the order from the simulated warp schedule, ``MScatter.simt_store_order``):
    - Elem: ``W = min(max(ceil(R*C/32), 1), 32)`` warps; thread ``tid = ty*32 + tx`` handles
      ``i = tid, tid + 32*W, ...``. A later grid-stride iteration wins, then a higher warp id
      ``ty``, then (inside one warp store instruction) the highest lane ``tx``.
    - Row: ``rowWarps = min(R, 32)``, ``warpsPerRow = max(1, min(32 // rowWarps,
      ceil(C/32)))``; row r is handled in row iteration ``r // rowWarps`` by the warps with
      ``ty % rowWarps == r % rowWarps``. Two rows colliding at a column share the column
      segment and lane, so the later row iteration wins, then the higher warp.
    With this in-order model the result equals Conflict::Last; real schedules may differ,
    which is why every collision under Default is reported.
    """
    if mode is Coalesce.Elem:
        total = rows * cols
        warps = min(max(-(-total // WARP_SIZE), 1), MAX_WARPS)
        threads = WARP_SIZE * warps
        i = np.arange(total, dtype=np.int64)
        iteration, ty, tx = i // threads, (i % threads) // WARP_SIZE, i % WARP_SIZE
        return np.lexsort((tx, ty, iteration))
    row_warps = 1 if rows == 0 else min(rows, MAX_WARPS)
    r = np.arange(rows, dtype=np.int64)
    iteration, ty = r // row_warps, r % row_warps  # column segment 0; equal for colliders
    return np.lexsort((ty, iteration))


def _complete_order(landed, units: int) -> np.ndarray:
    """A permutation of ``units`` write units that ends with the ``landed`` ones in landing
    order; units that never stored (skipped) go first (they write nothing)."""
    landed = np.asarray(landed, dtype=np.int64)
    missing = np.setdiff1d(np.arange(units, dtype=np.int64), landed, assume_unique=False)
    return np.concatenate([missing, landed])


class MScatter(Instruction):
    """MSCATTER(table, src, idx) with Coalesce, ScatterAtomicOp, ScatterOOB, ScatterConflict."""

    opcode = "MSCATTER"
    nominal_pipe = Pipe.PIPE_V
    reads = ("src", "idx")
    writes = ("table",)
    # Conflict::Default on a timed a5 run: the flat source indices r*C + c of the stores in
    # the order the simulated SIMT schedule lands them (set by the a5 plan before the data
    # window opens); None (untimed) -> default_conflict_order
    simt_store_order = None

    def __init__(
        self,
        table: GmRef,
        src: TileRef,
        idx: TileRef,
        coalesce: Coalesce = Coalesce.Row,
        atomic: ScatterAtomicOp = _NONE,
        oob: ScatterOOB = ScatterOOB.Undefined,
        conflict: ScatterConflict | None = None,
    ):
        self.table, self.src, self.idx = table, src, idx
        self.coalesce, self.atomic, self.oob, self.conflict = coalesce, atomic, oob, conflict
        if atomic is not _NONE:  # read-modify-write of the table
            self.reads = ("src", "idx", "table")

    @property
    def atomic_op(self) -> str | None:
        return None if self.atomic is _NONE else self.atomic.name

    # -- target facts ----------------------------------------------------------------------
    def effective_conflict(self, arch: Arch) -> ScatterConflict | None:
        """The conflict policy in force: the target's default (a5 Last, cpu Default) unless
        given; None on a target without a ScatterConflict parameter (a2a3)."""
        default = arch.spec.indexed.scatter_conflict_default
        if default is None:
            return None
        return default if self.conflict is None else self.conflict

    def is_scalar_fallback(self) -> bool:
        """a5 static Elem (1, 1): MScatterScalarImpl instead of a SIMT launch."""
        s = self.src
        return self.coalesce is Coalesce.Elem and s.static_valid and s.valid == (1, 1)

    def is_simt(self, arch: Arch) -> bool:
        simt = arch.spec.indexed.kernel is IndexedKernel.SIMT
        return simt and not self.is_scalar_fallback()

    # -- checks ----------------------------------------------------------------------------
    def validate(self, arch: Arch) -> None:
        s, i, g = self.src, self.idx, self.table
        self.require_loc("src", s)
        self.require_loc("idx", i)
        self.require_dtype("src", s.dtype, arch.spec.dtypes["MSCATTER"] or ())
        self.require_dtype("idx", i.dtype, INDEX_DTYPES, rule="index-dtype")
        self.require(
            g.dtype is s.dtype,
            "table",
            "same-dtype",
            f"__gm__ {s.dtype.name} (the dtype of src)",
            g.dtype.name,
            "GlobalTensor::DType must match the source element type",
        )
        self._validate_policies(arch)
        kernel = arch.spec.indexed.kernel
        validate_for_kernel(self, kernel)
        self._validate_index_shape(kernel)

    def _validate_policies(self, arch: Arch) -> None:
        s, op, rules = self.src, self.atomic, arch.spec.indexed
        if rules.scatter_conflict_default is None and self.conflict is not None:
            self.unsupported(
                "conflict",
                "conflict-param",
                "no ScatterConflict on Atlas A2/A3 (the kernel is sequential: the last write "
                "wins); pass conflict=None",
                str(self.conflict),
            )
        if op is _NONE:
            return
        allowed = rules.scatter_atomic_dtypes.get(op)
        if allowed is None:
            ops = ["None"] + [o.name for o, d in rules.scatter_atomic_dtypes.items() if d]
            self.unsupported(
                "atomic",
                "atomic-op",
                f"ScatterAtomicOp::{' or '.join(ops)} ({op.name} does not exist on {arch.target})",
                str(op),
            )
        if s.dtype.kind == "opaque":
            self.fail(
                "src",
                "atomic-dtype",
                f"a numeric dtype for {op}",
                s.dtype.name,
                "hifloat8 has no atomic arithmetic",
            )
        self.require_dtype(
            "src",
            s.dtype,
            allowed,
            rule="atomic-dtype",
            detail=f"{op} on target {arch.target}",
        )
        if not rules.conflict_last_with_atomic and self.conflict is ScatterConflict.Last:
            self.fail(
                "conflict",
                "conflict-atomic",
                "ScatterConflict::Default (or conflict=None) with an atomic op",
                str(self.conflict),
                "Conflict::Last cannot be used together with Atomic operations",
            )

    def _require_row_alignment(self, ref: TileRef) -> None:
        sz = ref.dtype.size_bytes
        if ref.geom.is_row_major:
            self.require(
                ref.cols * sz % 32 == 0,
                "src",
                "src-32B-aligned",
                "padded Cols*sizeof(T) % 32 == 0",
                f"{ref.cols}*{sz} bytes",
            )
        else:
            self.require(
                ref.rows * sz % 32 == 0,
                "src",
                "src-32B-aligned",
                "padded Rows*sizeof(T) % 32 == 0 (ColMajor)",
                f"{ref.rows}*{sz} bytes",
            )

    def _validate_loop(self) -> None:
        """The CPU simulator's loop (its asserts and the seed's rules)."""
        s, i, g = self.src, self.idx, self.table
        nd = "BLayout::RowMajor + SLayout::NoneBox"
        self.require(s.geom.is_nd, "src", "src-layout", nd, s.geom.layout_name)
        require_loop_index_layout(self, i, self.coalesce is Coalesce.Row)
        self.require(g.layout is Layout.ND, "table", "table-layout", "Layout::ND", g.layout.name)
        self._require_row_alignment(s)
        self.require(
            tuple(g.shape[:3]) == (1, 1, 1),
            "table",
            "table-shape",
            "Shape<1, 1, 1, TableRows, RowWidth>",
            list(g.shape),
        )

    def _validate_dma(self) -> None:
        """One DMA per row (ND or NZ table) or per element."""
        s, i, g = self.src, self.idx, self.table
        self.require(
            i.geom.is_nd,
            "idx",
            "index-layout",
            "BLayout::RowMajor + SLayout::NoneBox",
            i.geom.layout_name,
        )
        self.require(
            g.layout in (Layout.ND, Layout.NZ),
            "table",
            "table-layout",
            "Layout::ND or Layout::NZ",
            g.layout.name,
        )
        if g.layout is Layout.ND:
            self.require(
                s.geom.is_nd,
                "src",
                "layout-pairing",
                "an ND src tile (RowMajor + NoneBox) for an ND table",
                f"a {s.geom.layout_name} tile",
            )
        else:
            self.require(
                s.geom.is_nz,
                "src",
                "layout-pairing",
                "an NZ src tile (ColMajor + SLayout::RowMajor, fractal 512) for an NZ table",
                f"a {s.geom.layout_name} tile (fractal {s.geom.fractal})",
            )
        sz, c0 = s.dtype.size_bytes, s.dtype.c0
        if g.layout is Layout.NZ:  # (Cols % C0 implies the 32-byte rule: report it first)
            self.require(
                g.shape[3] == 16 and g.shape[4] == c0,
                "table",
                "nz-shape",
                f"shape[3] == 16 and shape[4] == 32/sizeof(T) == {c0}",
                list(g.shape),
            )
            self.require(s.cols % c0 == 0, "src", "nz-src-cols", f"Cols % {c0} == 0", s.cols)
            self.require(s.rows % 16 == 0, "src", "nz-src-rows", "Rows % 16 == 0", s.rows)
            if self.coalesce is Coalesce.Row:
                ncols = nz_logical_shape(g)[1]
                self.require(
                    s.valid_col <= ncols <= s.cols,
                    "table",
                    "nz-table-cols",
                    f"src ValidCol {s.valid_col} <= table logical cols "
                    f"(gShape0*gShape1*C0) <= src Cols {s.cols} (each row DMA moves "
                    "every table column)",
                    ncols,
                )
        self.require(
            s.cols * sz % 32 == 0,
            "src",
            "src-32B-aligned",
            "padded Cols*sizeof(T) % 32 == 0",
            f"{s.cols}*{sz} bytes",
        )

    def _validate_simt(self) -> None:
        """The SIMT kernel (ND tables, unboxed UB tiles, the row pitch is ValidCol)."""
        s, i, g = self.src, self.idx, self.table
        if g.layout is Layout.NZ:
            self.unsupported(
                "table",
                "table-layout",
                "Layout::ND (the 950 SIMT kernel has no NZ block-stride path)",
                g.layout.name,
            )
        self.require(g.layout is Layout.ND, "table", "table-layout", "Layout::ND", g.layout.name)
        self.require(
            not s.geom.is_boxed,
            "src",
            "src-layout",
            "BLayout::RowMajor or ColMajor with SLayout::NoneBox",
            s.geom.layout_name,
        )
        self.require(
            not i.geom.is_boxed,
            "idx",
            "index-layout",
            "BLayout::RowMajor or ColMajor with SLayout::NoneBox",
            i.geom.layout_name,
        )
        self._require_row_alignment(s)
        R, C = s.valid
        if s.static_valid:
            self.require(
                R > 0 and C > 0, "src", "non-empty", "a non-empty valid shape", f"({R}, {C})"
            )
        if self.coalesce is Coalesce.Row:
            self.require(
                g.shape[4] == C,
                "table",
                "table-row-width",
                f"shape[4] == src ValidCol == {C} (the SIMT row pitch is ValidCol)",
                f"shape[4] = {g.shape[4]}",
            )
            self.require(
                g.shape[3] >= 1, "table", "table-rows", "shape[3] >= 1", f"shape[3] = {g.shape[3]}"
            )

    def _validate_index_shape(self, kernel: IndexedKernel) -> None:
        loop = kernel is IndexedKernel.REFERENCE_LOOP
        s, i = self.src, self.idx
        R, C = s.valid
        iv = i.valid
        if self.coalesce is Coalesce.Elem:
            self.require(
                iv == (R, C),
                "idx",
                "index-shape-elem",
                f"idx valid shape == src valid shape ({R}, {C})",
                iv,
            )
            if loop:
                self.require(
                    i.rows == s.rows,
                    "idx",
                    "index-rows",
                    f"indexes.Rows == src.Rows == {s.rows}",
                    i.rows,
                )
            return
        forms = [(1, R)] if kernel is IndexedKernel.DMA else [(1, R), (R, 1)]
        self.require(
            iv in forms,
            "idx",
            "index-shape-row",
            " or ".join(f"({a}, {b})" for a, b in forms) + " for Coalesce::Row",
            iv,
        )
        if R > 1 and kernel is IndexedKernel.SIMT:
            want_rm = iv == (1, R)
            self.require(
                i.geom.is_row_major == want_rm,
                "idx",
                "index-layout-row",
                "a [1, R] index in BLayout::RowMajor or a [R, 1] index in "
                "BLayout::ColMajor (the index is read linearly)",
                f"{iv} in {i.geom.blayout}",
            )
        if loop:
            self.require(
                linear_row_index_ok(i, R),
                "idx",
                "index-layout-row",
                f"an index whose first {R} storage elements are its logical vector (a [1, R] "
                "RowMajor or [R, 1] ColMajor tile): the CPU simulator reads idx.data[r]",
                f"{iv} in {i.geom.layout_name} with {i.rows}x{i.cols} storage",
            )
        if loop and R > 1 and iv == (R, 1):
            self.require(
                i.rows == s.rows,
                "idx",
                "index-rows",
                f"indexes.Rows == src.Rows == {s.rows}",
                i.rows,
            )

    # -- semantics -------------------------------------------------------------------------
    def execute(self, ctx: ExecContext) -> None:
        s, g, rules = self.src, self.table, ctx.spec.indexed
        R, C = s.valid
        if R == 0 or C == 0:
            return
        nz = g.layout is Layout.NZ
        if self.coalesce is Coalesce.Row:
            idx = read_indices(ctx, self.idx, Coalesce.Row, R, 0)
            k, ok = remap(ctx, idx, row_capacity(rules, g), self.oob)
            if nz:
                width = nz_logical_shape(g)[1]
                cc = np.arange(width, dtype=np.int64)[None, :]
                offs = nz_offsets(g, k[:, None], cc)
                vals = ctx.tile_read(s, R, width)  # fits: rule nz-table-cols
            else:
                j = np.arange(C, dtype=np.int64)
                step = g.stride[4] if rules.row_columns is RowColumns.STRIDE else 1
                offs = g.offset + k[:, None] * row_pitch(rules, g, C) + j[None, :] * step
                vals = ctx.tile_read(s)
            seq = np.arange(R)
            slots = k
        else:
            raw = read_indices(ctx, self.idx, Coalesce.Elem, R, C)
            k, ok = remap(ctx, raw, elem_capacity(g), self.oob)
            if nz:
                ncols = nz_logical_shape(g)[1]
                offs = nz_offsets(g, k // ncols, k % ncols)
            else:  # the raw element pointer table_ptr[k']
                offs = elem_offsets(g, k)
            offs, vals = offs.reshape(-1, 1), ctx.tile_read(s).reshape(-1, 1)
            slots, ok = k.reshape(-1), ok.reshape(-1)
            if nz:  # a2a3 NZ walk: block column -> row -> column inside the block
                r, c = s.geom.grid(R, C)
                c0 = s.dtype.c0
                seq = np.lexsort(((c % c0).ravel(), r.ravel(), (c // c0).ravel()))
            else:
                seq = np.arange(R * C)
        order = seq
        if (
            self.atomic is _NONE
            and rules.kernel is IndexedKernel.SIMT
            and self.effective_conflict(ctx.arch) is ScatterConflict.Default
        ):
            landed = self.simt_store_order
            if landed is None:  # untimed: the modelled launch order
                order = default_conflict_order(self.coalesce, R, C)
                self._collision_finding(ctx, slots, ok, order, C)
            else:  # timed: the landing order of the simulated warp schedule
                order = _complete_order(landed, R * C)
                if self.coalesce is Coalesce.Row:  # write units become the elements
                    rank = np.empty(order.size, dtype=np.int64)
                    rank[order] = np.arange(order.size)
                    self._collision_finding(ctx, slots, ok, None, C, elem_rank=rank)
                    offs, vals = offs.reshape(-1, 1), vals.reshape(-1, 1)
                    ok = np.repeat(ok, C)
                else:
                    self._collision_finding(ctx, slots, ok, order, C)
        self._apply(ctx, offs[order], vals[order], ok[order])

    def _apply(self, ctx: ExecContext, offs, vals, ok) -> None:
        """Commit the writes in sequence (rows of offs/vals are write units, in order)."""
        g = self.table
        offs = offs[ok].reshape(-1)
        vals = vals[ok].reshape(-1)
        ctx.gm_check(g, offs, "table")
        if offs.size == 0:
            return
        store = g.storage()
        if self.atomic is _NONE:  # last writer of the sequence wins
            uniq, first = np.unique(offs[::-1], return_index=True)
            store[uniq] = vals[::-1][first]
            return
        atomic_update(store, offs, vals, self.atomic, g.dtype, ctx.spec.numerics.maxmin)

    def _collision_finding(
        self, ctx: ExecContext, slots, ok, order, cols: int, elem_rank=None
    ) -> None:
        """Report the destinations several sources write. ``order``: the landing order of the
        write units; ``elem_rank`` (Row with a per-element landing order instead): landing
        rank of each flat source element r*C + c, so each column keeps its own winner."""
        live = np.flatnonzero(ok)
        if live.size < 2:
            return
        uniq, counts = np.unique(slots[live], return_counts=True)
        hot = uniq[counts > 1]
        if hot.size == 0:
            return
        if order is not None:
            rank = np.empty(order.size, dtype=np.int64)
            rank[order] = np.arange(order.size)
        row = self.coalesce is Coalesce.Row

        def name(u: int) -> str:
            return f"row {u}" if row else f"({u // cols}, {u % cols})"

        parts = []
        for slot in hot[:_FINDING_SLOTS]:
            who = live[slots[live] == slot]
            if elem_rank is None:
                kept = name(int(who[np.argmax(rank[who])]))
            else:  # per column, the row whose element lands last
                ranks = elem_rank[who[:, None] * cols + np.arange(cols)[None, :]]
                kept = ", ".join(name(int(u)) for u in np.unique(who[np.argmax(ranks, axis=0)]))
            listed = ", ".join(name(int(u)) for u in who[:_FINDING_SOURCES])
            if who.size > _FINDING_SOURCES:
                listed += f", ... ({who.size} sources)"
            what = f"table row {int(slot)}" if row else f"table element {int(slot)}"
            parts.append(f"{what} <- src {listed} (kept {kept})")
        more = f" and {hot.size - _FINDING_SLOTS} more" if hot.size > _FINDING_SLOTS else ""
        ctx.finding(
            SCATTER_COLLISION,
            "scatter-collision",
            f"ScatterConflict::Default: {hot.size} destination slot(s) are written by several "
            f"sources and the surviving value depends on the SIMT warp schedule (modelled): "
            f"{'; '.join(parts)}{more}. Use ScatterConflict::Last for a deterministic result "
            "(the largest source index wins), or make the indices distinct.",
        )


# -- the kernel-facing API ------------------------------------------------------------------
@instruction(
    family="gather / scatter",
    summary="scatter rows or elements to GM by an index tile, optionally atomic",
)
def MSCATTER(
    table: GlobalTensor,
    src: Tile,
    idx: Tile,
    *,
    coalesce="row",
    atomic="none",
    oob="undefined",
    conflict=None,
) -> None:
    """Scatter ``src`` into the GM ``table`` through the index tile ``idx``.

    Mirrors ``MSCATTER<Coalesce, ScatterAtomicOp, ScatterOOB, ScatterConflict>(table, src,
    idx)``. Policies accept the enum member or its name (case-insensitive).

    Args:
        table: destination GlobalTensor (ND; NZ on Atlas A2/A3).
        src: UB source tile (Vec), valid shape (R, C).
        idx: UB index tile (Vec, int32/uint32): valid (1, R) (or (R, 1) on cpu and 950) for
            Row, (R, C) for Elem.
        coalesce: ``"row"`` (default, D1) or ``"elem"``.
        atomic: ``"none"``, ``"add"``, ``"max"`` or ``"min"``.
        oob: ``"undefined"``, ``"skip"``, ``"clamp"`` or ``"wrap"``.
        conflict: None for the target default (950: Last; cpu: Default, i.e. the last writer);
            ``"last"`` or ``"default"``. Atlas A2/A3 has no conflict parameter.

    Raises:
        ConstraintError / UnsupportedError: a rule of the target is violated (at record time).
        OutOfBoundsError: (run time) an Undefined index past the capacity, or a write outside
            the GM buffer; the table is left unchanged.
    """
    emit(
        MScatter(
            _gm(table, "MSCATTER table"),
            _tile(src, "MSCATTER src"),
            _tile(idx, "MSCATTER idx"),
            Coalesce.parse(coalesce, "MSCATTER coalesce"),
            ScatterAtomicOp.parse(atomic, "MSCATTER atomic"),
            ScatterOOB.parse(oob, "MSCATTER oob"),
            None if conflict is None else ScatterConflict.parse(conflict, "MSCATTER conflict"),
        )
    )


__all__ = ["MSCATTER", "MScatter", "default_conflict_order"]
