"""The fixpipe: an accumulator (L0C) out to GM (TSTORE) or into L1 (TMOV / TEXTRACT Acc -> Mat),
on PIPE_FIX, with ReLU, a type conversion and, for TSTORE, an atomic add into GM
(reference/cube_isa.md 3.5).

Per element: ReLU in the accumulator type (``max(x, 0)``), then the conversion to the
destination type (round to nearest even for float -> half / bfloat16, as the CPU simulator's
``static_cast`` and the library's numpy goldens do) or the quantisation (``quant``: a
``preQuantScalar`` word, or a Scaling tile of one word per column: ``quant.py``; on the
targets whose ``CubeRules.quant_pairs`` list the type pair: Atlas A2/A3 and 950; elsewhere the
form stops the run naming it), then the store or the atomic add. On 950 TSTORE also writes the
convolution layouts NHWC / NCHW / NCDHW, and TMOV Acc -> Mat ND and DN Mat tiles (nz2nd /
nz2dn: ``CubeRules.acc_to_mat_forms``).
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType, names
from ...enums import (
    MATRIX_LAYOUTS,
    AtomicType,
    BLayout,
    Layout,
    Pipe,
    ReluPreMode,
    ScatterAtomicOp,
    SLayout,
    TileType,
)
from ...tensors import GmRef, TileRef
from ..atomic import atomic_update
from ..base import Arch, ExecContext
from ..spec import CubeRules, ExtractBounds
from .common import NZ, CubeInstruction, geom_of, read_block, storage, write_block
from .geometry import ceil_to
from .quant import FB_ADDRESS_UNIT_BYTES, quantise

# a fixpipe copy's quantisation: None, a preQuantScalar word (int) or a Scaling tile
Quant = int | TileRef | None

# the fixpipe's destination forms into L1 / UB, by the destination tile's (BLayout, SLayout)
# (a5 TMovCcToCb / TMovCcToUb: enableNz2Nd, enableNz2Dn, enableNz2Nz) and the layout each names
FIXPIPE_FORMS = {
    (BLayout.RowMajor, SLayout.NoneBox): "nz2nd",
    (BLayout.ColMajor, SLayout.NoneBox): "nz2dn",
    (BLayout.ColMajor, SLayout.RowMajor): "nz2nz",
}
FORM_LAYOUTS = {"nz2nd": "ND", "nz2dn": "DN", "nz2nz": "NZ"}


def fixpipe_form(dst: TileRef) -> str | None:
    """The fixpipe copy that writes ``dst``: "nz2nd", "nz2dn", "nz2nz"; None for another layout."""
    return FIXPIPE_FORMS.get((dst.geom.blayout, dst.geom.slayout))


def relu_convert(values: np.ndarray, relu: ReluPreMode, dst_np) -> np.ndarray:
    """ReLU in the source type, then the conversion to the destination type."""
    if relu is ReluPreMode.NormalRelu:
        values = np.maximum(values, values.dtype.type(0))
    if np.issubdtype(dst_np, np.integer) and not np.issubdtype(values.dtype, np.integer):
        values = np.trunc(values)  # static_cast<int>: toward zero (CPU simulator)
    return values.astype(dst_np)


# per convolution layout: (validRow's product, its value, validCol's dim, its value) of a
# GlobalTensor shape (s0 .. s4), as a5 TStoreAccNHWC / TStoreAccNCHW assert them
CONV_SHAPES = {
    Layout.NHWC: lambda s0, s1, s2, s3, s4: ("shape1*shape2*shape3", s1 * s2 * s3, "shape4", s4),
    Layout.NCHW: lambda s0, s1, s2, s3, s4: ("shape1*shape3*shape4", s1 * s3 * s4, "shape2", s2),
    Layout.NCDHW: lambda s0, s1, s2, s3, s4: ("shape0*shape3*shape4", s0 * s3 * s4, "shape1", s1),
}


class _Fixpipe(CubeInstruction):
    nominal_pipe = Pipe.PIPE_FIX
    quant: Quant = None

    @property
    def quant_form(self) -> str:
        if isinstance(self.quant, TileRef):
            return "vector quantisation (a Scaling tile)"
        return "scalar quantisation (a preQuantScalar)"

    def validate_quant(self, arch: Arch, src: TileRef, dst: DType, columns: int) -> bool:
        """The quantised form's rules; False when the copy is not quantised."""
        q = self.quant
        if q is None:
            return False
        pairs = arch.spec.cube.quant_pairs
        if not pairs:
            self.unsupported(
                "quant", "quantised-form", "a fixpipe form without quantisation on this target",
                self.quant_form, "the quantised fixpipe is not modelled on this target",
            )  # fmt: skip
        self.require(
            src.dtype in pairs and dst in pairs[src.dtype], "dst", "quant-dtype-pair",
            "; ".join(f"{k.name} -> {names(v)}" for k, v in pairs.items()),
            f"{src.dtype.name} -> {dst.name}", self.quant_form,
        )  # fmt: skip
        if isinstance(q, TileRef):
            self.require_kind("quant", q, TileType.Scaling)
            self.require(q.dtype.name == "uint64", "quant", "dtype", "uint64 (the quant words)",
                         q.dtype.name)  # fmt: skip
            first = self.fb_first_word()
            self.require(
                first + columns <= q.cols, "quant", "scaling-extent",
                f"{first} + {columns} words inside Cols {q.cols}", q.cols,
                "one quant word per output column",
            )  # fmt: skip
        else:
            self.require(0 <= q < 1 << 64, "quant", "quant-word", "a uint64 word", q)
        return True

    def fb_first_word(self) -> int:
        """The Scaling tile's word of output column 0: TEXTRACT_FP points the fixpipe at word
        indexCol, in the FPC register's 128-byte units (a2a3 textract_common.hpp SetFPC)."""
        if self.opcode != "TEXTRACT":
            return 0
        skip = (self.index_col * 8) // FB_ADDRESS_UNIT_BYTES * FB_ADDRESS_UNIT_BYTES
        return skip // 8

    def convert(self, ctx: ExecContext, values: np.ndarray, dst: DType) -> np.ndarray:
        """ReLU (before quantisation: ReluPreMode), then the conversion or the quantisation."""
        if self.quant is None:
            return relu_convert(values, self.relu, dst.np)
        if self.relu is ReluPreMode.NormalRelu:
            values = np.maximum(values, values.dtype.type(0))
        q = self.quant
        if isinstance(q, TileRef):
            first = self.fb_first_word()
            words = read_block(ctx, q, 1, first + values.shape[1])[0, first:]
        else:
            words = np.uint64(q)
        return quantise(values, words, dst)


class AccStore(_Fixpipe):
    """TSTORE(gm, acc): the valid region of the accumulator to GM (ND, NZ; 950 also NHWC,
    NCHW, NCDHW)."""

    opcode = "TSTORE"
    reads = ("tile",)
    writes = ("gm",)

    def __init__(self, gm: GmRef, tile: TileRef, atomic: AtomicType, relu: ReluPreMode,
                 quant: Quant = None):  # fmt: skip
        self.gm, self.tile, self.atomic, self.relu, self.quant = gm, tile, atomic, relu, quant
        reads = ["tile"]
        if isinstance(quant, TileRef):
            reads.append("quant")
        if atomic is AtomicType.AtomicAdd:
            reads.append("gm")
        self.reads = tuple(reads)

    @property
    def atomic_op(self) -> str | None:
        return None if self.atomic is AtomicType.AtomicNone else "Add"

    def validate(self, arch: Arch) -> None:
        t, g = self.tile, self.gm
        cube = arch.spec.cube
        self.require_kind("tile", t, TileType.Acc)
        if not self.validate_quant(arch, t, g.dtype, t.valid_col):
            pairs = cube.acc_store
            needs_quant = g.dtype in cube.quant_pairs.get(t.dtype, ()) and g.dtype not in pairs.get(
                t.dtype, ()
            )
            self.require(
                not needs_quant, "gm", "quant-needed",
                "a quant word (a preQuantScalar or TSTORE_FP's Scaling tile)", "none",
                f"{t.dtype.name} -> {g.dtype.name} is a quantised form",
            )  # fmt: skip
            self.require(
                t.dtype in pairs, "tile", "dtype", f"one of {names(tuple(pairs))}", t.dtype.name
            )
            self.require_dtype(
                "gm", g.dtype, pairs[t.dtype], "dtype-pair",
                f"the fixpipe output of {t.dtype.name}",
            )  # fmt: skip
            if cube.fractal_checks and (t.dtype.kind == "int") != (g.dtype.kind == "int"):
                self.unsupported(
                    "gm", "quantised-form", "a fixpipe form without quantisation",
                    f"{t.dtype.name} -> {g.dtype.name}",
                    "this dtype pair needs a quantisation mode (a preQuantScalar or TSTORE_FP)",
                )  # fmt: skip
        layouts = cube.acc_store_layouts
        self.require(
            g.layout.name in layouts, "gm", "layout", " or ".join(sorted(layouts)), g.layout.name
        )
        if g.layout not in MATRIX_LAYOUTS:
            self.validate_conv()
            return
        vr, vc = t.valid
        rows, cols = g.geom.logical_shape
        s0, s1, s2, s3, s4 = g.shape
        if cube.fractal_checks:
            self.require(1 <= vc <= 4095, "tile", "cols-range", "1 <= validCol <= 4095", vc)
            if g.layout is Layout.ND:
                hi = cube.acc_store_nd_rows
                self.require(hi is None or vr <= hi, "tile", "nd-rows", f"validRow <= {hi}", vr)
                self.require(
                    (s0, s1, s2) == (1, 1, 1) and (vr, vc) == (s3, s4), "gm", "nd-shape",
                    f"shape [1, 1, 1, validRow, validCol] = [1, 1, 1, {vr}, {vc}]", list(g.shape),
                )  # fmt: skip
            else:
                c0 = 32 // g.dtype.size_bytes
                ok_c0 = s4 in ((c0, 16) if g.dtype.size_bytes == 4 else (c0,))
                self.require(
                    s3 == 16 and ok_c0, "gm", "nz-shape",
                    f"shape[3] == 16 and shape[4] == {c0}", list(g.shape),
                )  # fmt: skip
                self.require(vc % 16 == 0, "tile", "nz-cols", "validCol % 16 == 0", vc)
        self.require(
            vr <= rows and vc <= cols, "gm", "gm-extent",
            f"the valid {vr}x{vc} inside the GlobalTensor's {rows}x{cols}", f"{rows}x{cols}",
        )  # fmt: skip
        if self.atomic is AtomicType.AtomicAdd:
            self.require_dtype(
                "gm", g.dtype, arch.spec.dma.atomic_add_dtypes, "atomic-dtype",
                "AtomicType::AtomicAdd",
            )  # fmt: skip

    def validate_conv(self) -> None:
        """NHWC / NCHW / NCDHW (a5 TStoreAccNHWC / TStoreAccNCHW): the valid rows are the
        spatial positions and the valid columns the channels, each a product of GM dims."""
        t, g = self.tile, self.gm
        vr, vc = t.valid
        s0, s1, s2, s3, s4 = g.shape
        rows_text, rows, cols_text, cols = CONV_SHAPES[g.layout](s0, s1, s2, s3, s4)
        self.require(
            (vr, vc) == (rows, cols), "gm", "conv-shape",
            f"validRow == {rows_text} ({rows}) and validCol == {cols_text} ({cols})",
            f"valid {vr}x{vc}",
        )  # fmt: skip
        self.require(1 <= t.rows <= 65535, "tile", "rows-range", "1 <= Rows <= 65535", t.rows)
        self.require(t.cols % 16 == 0, "tile", "conv-cols", "Cols % 16 == 0", t.cols)

    def gm_offsets(self) -> np.ndarray:
        """GM element offsets the store writes, one per element of ``source_rows``' result
        (row-major). NHWC: one nz2nd copy per shape[0] (the loop3 repeat, the destination
        advancing stride[0]), rows stride[3] apart; NCHW / NCDHW: one nz2dn copy, each
        channel's column of positions contiguous, channels stride[2] (NCDHW: stride[1])
        apart; ND / NZ: the GlobalTensor's own mapping."""
        t, g = self.tile, self.gm
        vr, vc = t.valid
        r, c = np.meshgrid(np.arange(vr), np.arange(vc), indexing="ij")
        st = g.stride
        if g.layout in MATRIX_LAYOUTS:
            return g.offsets(r, c).reshape(-1)
        if g.layout is not Layout.NHWC:
            step = st[1] if g.layout is Layout.NCDHW else st[2]
            return g.offset + (r + c * step).reshape(-1)
        per_repeat = [(b * st[0] + r * st[3] + c).reshape(-1) for b in range(g.shape[0])]
        return g.offset + np.concatenate(per_repeat)

    def source_rows(self, ctx: ExecContext) -> np.ndarray:
        """The accumulator values stored, (repeats x validRow) x validCol: an NHWC store
        repeats shape[0] times, the source advancing srcStride * shape[4] elements each time
        (the next shape[4] columns when shape[4] is a multiple of 16)."""
        t, g = self.tile, self.gm
        vr, vc = t.valid
        if g.layout is not Layout.NHWC or g.shape[0] == 1:
            return read_block(ctx, t, vr, vc)
        geom = geom_of(ctx, t)
        src, shift = storage(ctx, t), geom.rows * g.shape[4]
        r, c = np.meshgrid(np.arange(vr), np.arange(vc), indexing="ij")
        base = geom.offsets(r, c)
        last = int(base.max()) + (g.shape[0] - 1) * shift
        if last >= src.size:
            self.fail(
                "gm", "conv-batch", f"shape[0] repeats inside the Acc tile's {src.size} elements",
                f"repeat {g.shape[0] - 1} reaching element {last}",
            )  # fmt: skip
        return np.concatenate([src[base + b * shift] for b in range(g.shape[0])])

    def execute(self, ctx: ExecContext) -> None:
        g = self.gm
        raw = self.source_rows(ctx)
        vals = self.convert(ctx, raw, g.dtype).reshape(-1)
        offs = self.gm_offsets()
        ctx.gm_check(g, offs, "gm")
        store = g.storage()
        if self.atomic is AtomicType.AtomicNone:
            store[offs] = vals
            return
        atomic_update(store, offs, vals, ScatterAtomicOp.Add, g.dtype, ctx.spec.numerics.maxmin)


class AccToMat(_Fixpipe):
    """TMOV(mat, acc) / TEXTRACT(mat, acc, indexRow, indexCol): L0C -> L1 through the fixpipe;
    TINSERT(mat, acc, indexRow, indexCol) writes the accumulator into a window of the Mat tile."""

    reads = ("src",)
    writes = ("dst",)

    def __init__(self, opcode: str, dst: TileRef, src: TileRef, index_row: int, index_col: int,
                 relu: ReluPreMode, quant: Quant = None):  # fmt: skip
        self.opcode = opcode
        self.dst, self.src, self.index_row, self.index_col = dst, src, index_row, index_col
        self.relu, self.quant = relu, quant
        if isinstance(quant, TileRef):
            self.reads = ("src", "quant")

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        cube = arch.spec.cube
        self.require_kind("src", s, TileType.Acc)
        if d.loc is TileType.Vec:
            self.unsupported(
                "dst", "form", "Acc -> Mat", "Acc -> Vec",
                "the fixpipe reaches a vector core's UB on 950 only (in a cores='mix' kernel); "
                "here store the accumulator to GM (TSTORE) for the vector cores",
            )  # fmt: skip
        self.require_kind("dst", d, TileType.Mat)
        if not self.validate_quant(arch, s, d.dtype, self.extent(cube)[1]):
            pairs = cube.acc_to_mat
            self.require(
                s.dtype in pairs, "src", "dtype", f"one of {names(tuple(pairs))}", s.dtype.name,
                "Acc -> Mat without quantisation",
            )  # fmt: skip
            self.require_dtype(
                "dst", d.dtype, pairs[s.dtype], "dtype-pair", f"Acc {s.dtype.name} -> Mat"
            )
        if cube.fractal_checks:
            self.validate_form(cube.acc_to_mat_forms)
        if self.opcode == "TINSERT":
            self.validate_insert(cube.extract_bounds)
            return
        r0, c0 = self.index_row, self.index_col
        rows, cols = self.extent(cube)
        lim = (s.rows, s.cols) if cube.extract_bounds is ExtractBounds.STATIC else s.valid
        self.require(
            r0 + rows <= lim[0] and c0 + cols <= lim[1], "dst", "window-within-src",
            f"index + the copied {rows}x{cols} inside src {lim[0]}x{lim[1]}",
            f"({r0}+{rows}, {c0}+{cols})",
        )  # fmt: skip
        self.require(
            rows <= d.rows and cols <= d.cols, "dst", "dst-extent",
            f"the copied {rows}x{cols} inside Rows x Cols {d.rows}x{d.cols}", f"{d.rows}x{d.cols}",
        )  # fmt: skip

    def validate_form(self, forms: frozenset[str]) -> None:
        """The destination's layout: an NZ Mat tile (nz2nz), on 950 TMOV also ND / DN (nz2nd /
        nz2dn; their stride, Cols or Rows, is whole 32-byte blocks as every ND / DN tile's)."""
        d = self.dst
        if self.opcode != "TMOV" or forms == {"nz2nz"}:
            self.require_layout("dst", d, NZ, detail="an NZ Mat tile (fixpipe nz2nz)")
            return
        form = fixpipe_form(d)
        self.require(
            form in forms, "dst", "fractal-layout",
            " or ".join(FORM_LAYOUTS[f] for f in sorted(forms)), d.geom.layout_name,
            "the Mat tile layouts the fixpipe writes (nz2nd, nz2dn, nz2nz)",
        )  # fmt: skip

    def validate_insert(self, bounds: ExtractBounds) -> None:
        """The NPU asserts the source's Rows x Cols fit the destination from the index; the CPU
        simulator the source's valid region inside the destination's."""
        d, s = self.dst, self.src
        r0, c0 = self.index_row, self.index_col
        static = bounds is ExtractBounds.STATIC
        src_shape = (s.rows, s.cols) if static else s.valid
        dst_shape = (d.rows, d.cols) if static else d.valid
        self.require(
            r0 + src_shape[0] <= dst_shape[0] and c0 + src_shape[1] <= dst_shape[1], "dst",
            "window-within-dst",
            f"index + src {'Rows x Cols' if static else 'valid'} inside dst "
            f"{dst_shape[0]}x{dst_shape[1]}", f"({r0}+{src_shape[0]}, {c0}+{src_shape[1]})",
        )  # fmt: skip

    def extent(self, cube: CubeRules) -> tuple[int, int]:
        """(rows, cols) written: the NPU copies the source's Rows (the window's, for TEXTRACT:
        the destination's Rows, on 950 its valid rows) and the valid columns rounded up to the
        destination's C0 (nz2nd / nz2dn: the source's valid region as it is); the CPU
        simulator the valid region."""
        d, s = self.dst, self.src
        if cube.extract_bounds is ExtractBounds.VALID:
            return d.valid if self.opcode == "TEXTRACT" else s.valid
        if self.opcode == "TINSERT":
            return s.rows, min(ceil_to(s.valid_col, d.dtype.c0), s.cols)
        if self.opcode == "TMOV" and fixpipe_form(d) in ("nz2nd", "nz2dn"):
            return s.valid
        rows = d.rows if self.opcode == "TEXTRACT" else s.rows
        if self.opcode == "TEXTRACT" and cube.acc_extract_valid_rows:
            rows = d.valid_row
        vc = d.valid_col if self.opcode == "TEXTRACT" else s.valid_col
        return rows, min(ceil_to(vc, d.dtype.c0), d.cols)

    def execute(self, ctx: ExecContext) -> None:
        bounds = ctx.spec.cube.extract_bounds
        rows, cols = self.extent(ctx.spec.cube)
        if self.opcode != "TINSERT":
            vals = read_block(ctx, self.src, rows, cols, self.index_row, self.index_col)
            write_block(ctx, self.dst, self.convert(ctx, vals, self.dst.dtype))
            return
        vals = self.convert(ctx, read_block(ctx, self.src, rows, cols), self.dst.dtype)
        if bounds is ExtractBounds.VALID:  # CPU simulator: element by element at the index
            write_block(ctx, self.dst, vals, self.index_row, self.index_col)
            return
        # the NPU's fixpipe: C0-wide column blocks from the index's address, each block
        # ``Rows * C0`` elements after the previous (an index_col inside a fractal shifts every
        # block by the same amount, as the hardware's start address does)
        d = self.dst
        c0 = d.dtype.c0
        base = d.rows * c0 * (self.index_col // c0) + self.index_row * c0 + self.index_col % c0
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        offs = base + (c // c0) * d.rows * c0 + r * c0 + c % c0
        ctx.tile_storage(d)[offs] = vals
