"""What a target family does where the references differ: the type of its behaviour spec.

Each target package (``targets/cpu``, ``targets/a2a3``, ``targets/a5``) exports one
``TargetSpec`` (``SPEC``); the Device puts it on the ``Arch`` it builds, and the instruction
definitions of ``ptosim.isa`` read it there (``arch.spec``, ``ctx.spec``) instead of testing the
target's name. A new target is a new package with its own spec (and a device config): it picks a
value for every field below, each value a named behaviour, so the instruction code never learns
which target it runs for.

The spec holds:
- ``dtypes``: per registered instruction, the element types the target accepts, or None where it
  does not define the instruction (the ``-`` of the generated tables);
- ``refusals``: forms the target declines with UnsupportedError, and why;
- ``notes``: the short per-instruction notes of the generated tables (lowering, intrinsics);
- one group of rules per instruction family (``Numerics``, ``DmaRules``, ...). A field names a
  behaviour, and its value says which one the target has; the instruction modules document what
  each behaviour computes.

This module is at the bottom of the stack: it imports only dtypes and enums.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum

from ..dtypes import DType
from ..enums import BLayout, ScatterAtomicOp, ScatterConflict

DTypes = tuple[DType, ...]


# -- values of the rules (named after the behaviour) ----------------------------------------------
class MaxMin(Enum):
    """How max/min treat NaN and signed zeros (ptosim.isa.maxmin)."""

    FIRST_OPERAND = "first-operand"  # std::max/std::min: a unless (a < b) / (b < a)
    IEEE_754_2019 = "ieee-754-2019"  # maximum/minimum: NaN propagates, -0 < +0


class FloatAbs(Enum):
    """TABS on floats."""

    NEGATE_NEGATIVES = "negate-negatives"  # x < 0 ? -x : x (keeps -0 and a NaN's sign)
    CLEAR_SIGN_BIT = "clear-sign-bit"  # IEEE abs


class Rsqrt(Enum):
    """TRSQRT: one evaluation or the two-step chain."""

    IN_DOUBLE = "in-double"  # 1.0 / sqrt(double(x)), then the cast to T
    SQRT_THEN_DIV = "sqrt-then-div"  # vsqrt then vdiv(1, .), each rounded to T
    # IN_DOUBLE; with a tmp tile vector_dup(tmp, 1) over one block, then SQRT_THEN_DIV
    SQRT_THEN_DIV_WITH_TMP = "sqrt-then-div-with-tmp"


class IndexConversion(Enum):
    """How MGATHER/MSCATTER convert an index value (indexing.index_values)."""

    SIZE_T = "size_t"  # the CPU simulator's size_t: a negative int32 is 2^64 + v
    UINT32 = "uint32"  # read as uint32: a negative int32 is 2^32 + v


class DmaTransfer(Enum):
    """How TLOAD/TSTORE move data (data.py)."""

    EXACT_ELEMENTS = "exact-elements"  # every valid (r, c) through both layouts; any strides and
    # layout pairs; TLOAD pads the whole tile first
    BURSTS = "bursts"  # DMA bursts of contiguous GM elements (dma_bursts); layouts must pair


class GmBurstPitch(Enum):
    """GM elements from one DMA burst to the next."""

    STRIDE = "stride"  # start-to-start: the GlobalTensor stride
    BURST_PLUS_GAP = "burst-plus-gap"  # lenBurst + gmGap, gmGap = stride - shape (unsigned)


class UbBurstPitch(Enum):
    """Tile elements from one DMA burst to the next."""

    TILE_DIM = "tile-dim"  # Cols (ND) / Rows (DN)
    BLOCKS_PLUS_GAP = "blocks-plus-gap"  # whole 32-byte blocks moved, then ubGap blocks


class TMovCopy(Enum):
    """TMOV between Vec tiles (cpu: between any tiles the cube paths do not model)."""

    VALID_ELEMENTS = "valid-elements"  # the valid region through both layouts (same layouts)
    # the valid region through both layouts, any layout pair and any tile kinds (cpu: every
    # tile is host memory, so TMOV is one element copy whatever the tiles' buffers)
    ANY_TILES = "any-tiles"
    UB_BLOCKS = "ub-blocks"  # copy_ubuf_to_ubuf in 32-byte blocks, any layout pair, same shape


class IndexedKernel(Enum):
    """The kernel behind MGATHER/MSCATTER (selects their layout and index-shape rules)."""

    REFERENCE_LOOP = "reference-loop"  # the CPU simulator's loops
    DMA = "dma"  # one DMA per row / element driven by the scalar unit
    SIMT = "simt"  # a SIMT launch (the static Elem (1, 1) case: a scalar fallback)


class RowCapacity(Enum):
    """Table rows a Row-mode index may address."""

    ROWS_DIM = "rows-dim"  # shape[3]
    OUTER_DIMS = "outer-dims"  # shape0*shape1*shape2*shape3


class RowPitch(Enum):
    """GM elements between table rows in Row mode."""

    STRIDE = "stride"  # stride[3]
    VALID_COLS = "valid-cols"  # the valid column count


class RowColumns(Enum):
    """GM step between the columns of one table row in Row mode."""

    STRIDE = "stride"  # stride[4]
    CONTIGUOUS = "contiguous"  # 1 (a DMA burst / SIMT row reads contiguous elements)


class ScatterOrder(Enum):
    """Which TSCATTER write survives at a duplicated index."""

    SEQUENTIAL = "sequential"  # the last in row-major order
    VSCATTER_LANES = "vscatter-lanes"  # later vscatters win; inside one, the lowest lane


class Addressing(Enum):
    """How an instruction addresses its tile operands."""

    TILE_LAYOUT = "tile-layout"  # logical (r, c) through each tile's layout
    ROW_STRIDE = "row-stride"  # i*Cols + j, as the vector unit does


class FullOperandTie(Enum):
    """TROWEXPAND<OP>: which source is the full one when both have dst's valid shape."""

    SRC0 = "src0"
    LARGER_ROW_STRIDE = "larger-row-stride"  # src0 iff src0.RowStride >= src1.RowStride


class RowBroadcast(Enum):
    """TROWEXPAND<OP>: how the expanded operand reaches the vector unit."""

    REFERENCE_FORMULA = "reference-formula"  # op(src0(r, c % vc0), src1(r, c % vc1)), layouts
    VBRCB_BUFFER = "vbrcb-buffer"  # mode 1 through a broadcast buffer (tmp or hidden scratch)
    VECTOR_LOADS = "vector-loads"  # mode 1 by broadcast loads (the flattened 1-D path reads
    # E[i*Cols])


class Bitwise(Enum):
    """TAND/TOR/TXOR(S), TNOT lowering."""

    DIRECT = "direct"  # on T, tmp ignored
    B16_LANES = "b16-lanes"  # 16-bit lanes (an odd 1-byte width writes one padding byte per
    # row), TXOR(S) in four steps through tmp, operands asserted distinct


class Remainder(Enum):
    """TFMOD(S)/TREM(S) lowering (ptosim.isa.vector.mathops, remainder)."""

    IN_DOUBLE = "in-double"  # exact fmod / floor remainder in double, C % for integers
    UB_CHAIN = "ub-chain"  # float32 vdiv chain on UB per stage; int32 through float32;
    # TFMODS broadcasts the scalar into dst first; TREMS as TREM
    VF_REGISTERS = "vf-registers"  # one vector function on registers: half through float32
    # (result truncated to half), integer vmod / vdiv, 64-bit truncating division, TREMS
    # without the sign fix-up, HIGH_PRECISION float32 as the scaled reduction


class RowReduceOrder(Enum):
    """TROW<OP> accumulation order (reduce_order)."""

    SEQUENTIAL = "sequential"  # left to right; SUM of half/bfloat16 in float32
    REPEAT_TREE = "repeat-tree"  # chunk tree + vcadd lane tree in T; ints per 32-byte block
    CHUNK_LANE_TREE = "chunk-lane-tree"  # a lane tree per 256-byte chunk, chunks in order


class ArgCompare(Enum):
    """How TROWARG*/TCOLARG* find the first extreme (reduce_order.arg_scan / a5_row_arg)."""

    MAXMIN_SCAN = "maxmin-scan"  # one scan in index order by numerics.maxmin
    # a5: rows: per 256-byte chunk the first extreme (vcmax/vcmin, by numerics.maxmin), chunks
    # combined from the identity (-inf, +inf or the integer limit) by a strict compare;
    # columns: a strict compare row by row (NaN and -0/+0 ties keep the earlier row)
    VECTOR_COMPARE = "vector-compare"


class PartArgSelect(Enum):
    """TPARTARG<MAX|MIN>: which (value, index) pair wins where both sources are valid
    (vector.part)."""

    SRC1_IF_BETTER = "src1-if-better"  # src1's pair where strictly greater / smaller
    # a2a3: vcmp_ge / vcmp_le(src0, src1) then vsel per 256-byte repeat: src0's pair unless it
    # compares false (NaN gives src1's); 32-bit indices with half values: 64 lanes per repeat
    VSEL_SRC0_IF_NOT_WORSE = "vsel-src0-if-not-worse"


class ColReduceOrder(Enum):
    """TCOL<OP> accumulation order."""

    SEQUENTIAL_IN_DST = "sequential-in-dst"  # rows in order in dst's type; is_binary ignored
    SEQUENTIAL = "sequential"  # rows in order in T; is_binary: the level-wise tree
    PAIRWISE = "pairwise"  # row 0, then pairs (2j+1, 2j+2); is_binary: the level-wise tree


class ConvertRounding(Enum):
    """How TCVT applies a RoundMode."""

    HOST_CAST = "host-cast"  # float -> int in double, then the C cast; the rest plain C casts
    INTRINSIC_TABLE = "intrinsic-table"  # one vconv_* per pair; a missing mode -> its default
    VCVT_MODE = "vcvt-mode"  # vcvt with the mode; CAST_NONE truncates float -> int


class Saturation(Enum):
    """TCVT's SaturationMode default and which pairs honour an explicit one."""

    EXPLICIT_ONLY = "explicit-only"  # off unless sat="ON"
    NARROWING_PAIRS = "narrowing-pairs"  # narrowing pairs: OFF by default, honour sat; others ON
    PAIR_DEFAULT = "pair-default"  # narrowing pairs OFF, others ON by default; sat honoured


class MaskWriter(Enum):
    """How TCMP/TCMPS write a mask row."""

    REFERENCE_WORDS = "reference-words"  # whole dst zeroed, bits past C are 0
    COMPARE_REPEATS = "compare-repeats"  # whole 256-byte repeats: garbage bits past C; NE is
    # EQ then a vnot over the mask rows
    PREDICATE_STORES = "predicate-stores"  # 16/32-byte predicate stores, bits past C are 0


class SelectBits(Enum):
    """Where TSEL finds the bit of dst element (i, j)."""

    ROW_ALIGNED = "row-aligned"  # mask row i (pitch: mask Cols)
    CONTINUOUS_STREAM = "continuous-stream"  # one bit stream over the valid elements


class Window(Enum):
    """Bounds of a TEXTRACT/TINSERT window."""

    VALID_REGION = "valid-region"  # inside the other tile's valid region, any layouts
    STORAGE = "storage"  # inside the other tile's Rows x Cols; ND -> ND or NZ -> NZ


class GatherBounds(Enum):
    """TGATHER/TGATHERB out-of-range indices."""

    CHECKED = "checked"  # an index outside src reads 0 (TGATHERB skips the block)
    RAW_UB = "raw-ub"  # the UB bytes at that offset (past UB: OutOfBoundsError)


class FillPad(Enum):
    """TFILLPAD lowering."""

    WHOLE_TILE = "whole-tile"  # dst = src's valid region, the rest pad
    ROW_BLOCKS = "row-blocks"  # whole src rows, the partial block (pads differ), blocks right
    # of it, rows below


class Sort32Pitch(Enum):
    """Where TSORT32 writes the records of block ``b`` (32 source columns) in a dst row."""

    RECORDS = "records"  # after the previous block's records: element 32*b*(8/size)
    TWICE_COLUMNS = "twice-columns"  # element 2*32*b whatever the size (2-byte blocks overlap)


class Sort32TmpLimit(Enum):
    """The unit of TSORT32's whole-row-through-tmp limit (32 * 255 of it)."""

    ELEMENTS = "elements"  # valid columns
    BYTES = "bytes"  # valid columns times the element size


# -- the rule groups ----------------------------------------------------------------------------
class CubeAddressing(Enum):
    """How the cube instructions address L1 / L0 tiles (ptosim/isa/cube)."""

    LOGICAL = "logical"  # every valid (r, c) through each tile's own layout (CPU simulator)
    FRACTALS = "fractals"  # the intrinsics: whole fractals, mad reads L0A / L0B / L0C at the
    # geometry m, k, n give (not the tiles' Rows / Cols), compact strides (NPU)


class AccInput(Enum):
    """What TMATMUL_ACC (and TGEMV_ACC) accumulates onto."""

    IN_PLACE = "in-place"  # mad accumulates at cOut's address: cIn is ignored (NPU)
    C_IN_PLUS_PRODUCT = "c-in-plus-product"  # cOut = cIn + (A x B rounded): one more rounding


class BiasOrder(Enum):
    """Where TMATMUL_BIAS adds the bias."""

    INITIAL_VALUE = "initial-value"  # the bias table is the accumulator's start value (NPU mad)
    ADDED_AFTER = "added-after"  # the product, then + bias: one more rounding (CPU simulator)


class ExtractBounds(Enum):
    """TEXTRACT from L1 / L0C: which shape the window must fit."""

    VALID = "valid"  # index + dst valid <= src valid (CPU simulator's assert)
    STATIC = "static"  # index + dst Rows/Cols <= src Rows/Cols (the NPU's check)


class Nibbles(Enum):
    """Where a packed 4-bit tile's elements sit in its bytes (ptosim/nibbles.py)."""

    ROW_PITCH = "row-pitch"  # row r at byte r * Cols, its elements in the first Cols / 2 bytes
    FLAT = "flat"  # element offset k in byte k // 2 (rows Cols / 2 bytes apart)
    UNPACKED = "unpacked"  # one element per byte, in its low nibble


@dataclass(frozen=True, eq=False)
class Refusal:
    """A form the target declines with UnsupportedError (rule ``target``)."""

    reason: str
    # the element types refused; empty: the whole instruction
    dtypes: DTypes = ()


@dataclass(frozen=True, eq=False)
class Numerics:
    """Arithmetic rules shared by several families."""

    maxmin: MaxMin  # every MAX/MIN (element-wise, reductions, TRELU, atomics)
    float_abs: FloatAbs
    exp_half_in_float32: bool  # TEXP half: expf in float32, then the cast to half
    rsqrt: Rsqrt


@dataclass(frozen=True, eq=False)
class VectorRules:
    """Operand rules shared by the vector families."""

    row_major_operands: bool  # element-wise/reduce operands must be RowMajor ND
    # instructions that assert RowMajor operands even without row_major_operands
    row_major_instructions: frozenset[str]
    # copy_ubuf_to_ubuf moves whole 32-byte blocks: a row copy writes dst padding up to the
    # block boundary (TCOLEXPAND, TCOL<OP>, TPART<OP>)
    block_copies_write_padding: bool


@dataclass(frozen=True, eq=False)
class DmaRules:
    """TLOAD / TSTORE / TMOV."""

    transfer: DmaTransfer
    gm_burst_pitch: GmBurstPitch  # (BURSTS)
    ub_burst_pitch: UbBurstPitch  # (BURSTS)
    burst_count_must_match: bool  # ND/DN valid burst-count dim == the view's
    burst_length_must_match: bool  # ND/DN valid burst-length dim == the view's
    # ND/DN TSTORE: the valid region need only fit in the view (where a must-match applies)
    store_valid_within_view: bool
    burst_count_limit: int | None  # Rows and nBurst below this; every shape dim > 0
    atomic_add_dtypes: DTypes  # TSTORE<AtomicAdd>
    tmov: TMovCopy
    # Vec TMOV from an ND tile into an NZ or ZN tile converts the layout (VALID_ELEMENTS)
    tmov_nd_to_fractal: bool = False
    # TMOV(dst, src, tmp): a row-major E8M0 tile into the cube's ZZ scale layout (vector/tmov_zz.py)
    tmov_nd_to_zz: bool = False
    # ND/DN TLOAD: the valid region need only fit in the view (where a must-match applies)
    load_valid_within_view: bool = False
    # the DMA reads the stride of the burst dimension (ND stride[4], DN stride[3], NZ strides
    # 2-4), so a strided one is refused (rule gm-inner-stride); False: it never reads them, a
    # burst is contiguous whatever they say (finding F112, D13)
    reads_burst_strides: bool = True
    # TLOAD into a one-row ND (one-column DN) Mat tile moves the GlobalTensor's whole row
    # (column), shape4 (shape3) elements, whatever validCol (validRow): the a2a3 library loads
    # such a tile as one ND2NZ row (tload_common.hpp, the "vector input" loads)
    mat_vector_load_moves_view: bool = False
    # NZ2NZ TLOAD (UB and L1): nBurst is the GlobalTensor's shape1 and lenBurst validRow*32 B,
    # with no check of the valid shape against the view: validRow is free, validCol unused (the
    # register-arch tload_common.hpp TLoadVecNZ2NZ / TLoadCubeNZ2NZ, no static assert on it)
    nz_load_valid_shape_free: bool = False


@dataclass(frozen=True, eq=False)
class IndexedRules:
    """MGATHER / MSCATTER."""

    kernel: IndexedKernel
    index_conversion: IndexConversion
    row_capacity: RowCapacity
    row_pitch: RowPitch
    row_columns: RowColumns
    # GM -> L1 MGATHER through the nd2nz DMA: capacity shape0..3, zero-fill for
    # GatherOOB::Zero, Elem staged through the GM scratch; False: UB semantics into L1
    l1_staged: bool
    scatter_conflict_default: ScatterConflict | None  # None: no ScatterConflict parameter
    # element types per atomic op (None: the op does not exist)
    scatter_atomic_dtypes: Mapping[ScatterAtomicOp, DTypes | None]
    conflict_last_with_atomic: bool  # Conflict::Last may be combined with an atomic op


@dataclass(frozen=True, eq=False)
class TScatterRules:
    """TSCATTER (index and mask forms)."""

    addressing: Addressing
    zero_fills_dst: bool  # the whole dst tile is zeroed first
    index_dtypes: DTypes
    index_size_pairs: tuple[tuple[int, int], ...] | None  # (sizeof T, sizeof TIdx); None: any
    duplicate_order: ScatterOrder
    b64_max_index_cols: int | None  # 8-byte T: ValidCol limit of the index
    mask_dtypes: DTypes
    # SCATTER_ROW reads src through a cursor wrapping at src Cols (reads padding when
    # src.valid_col < Cols)
    mask_row_cursor: bool


@dataclass(frozen=True, eq=False)
class BroadcastRules:
    """TROWEXPAND<OP> and TCOLEXPAND<OP>."""

    row_broadcast: RowBroadcast
    full_operand_tie: FullOperandTie
    # the UB bytes 3-operand VBRCB_BUFFER mode 1 uses when no tmp is given: (offset, size)
    hidden_scratch: tuple[int, int] | None
    col_row_vector_in_src1: bool  # TCOLEXPAND<OP> reads the row vector from src1 only
    # TROWEXPAND of a 64-bit type writes at most this many columns per row (one vector store per
    # row); a wider dst is refused. None: no limit
    row_expand_b64_max_cols: int | None


@dataclass(frozen=True, eq=False)
class ElementwiseRules:
    """Element-wise tile-tile, tile-scalar, unary and math families."""

    bitwise: Bitwise
    tsubs_negates_through_float: bool  # TSUBS adds T(-(float)s)
    # float s/src, src/s and TRECIP: vector_dup then vdiv (src/s in place: reciprocal vmuls);
    # integer TDIVS on the scalar unit
    division_via_dup: bool
    axpy_pairs: tuple[tuple[DType, DType], ...]  # TAXPY (dst, src) dtypes besides f32 += f16
    axpy_fused: bool  # TAXPY rounds dst + src*s once (else the product, then the sum)
    int64_zero_divisor_gives_zero: bool  # 64-bit integer TDIV/TDIVS: x / 0 = 0 (else an error)
    # 64-bit TSHL/TSHR/TSHLS/TSHRS shift by ``count & 63`` (else a count outside [0, 64) is an
    # error)
    int64_shift_count_mod_64: bool
    math_vector_sequence: bool  # TPOW/TPRELU as the NPU vector sequences
    remainder: Remainder  # TFMOD(S)/TREM(S): which lowering computes them
    math_tmp_checked: bool  # their tmp must hold the lowering's intermediates
    # TPART<OP>: one source has dst's valid shape, the other's valid region fits inside it
    partial_one_source_full: bool
    partial_copy_then_op: bool  # TPART<OP>: copy the full source, then op the small one
    # TPOW(S) of a float type as one vector function on float32 registers: half widened, the
    # HIGH_PRECISION form the extended log/exp (vector.pow_vf); False: the NPU chain rounding
    # every intrinsic to T (math_vector_sequence) or the host's pow
    pow_float32_registers: bool = False


@dataclass(frozen=True, eq=False)
class ReduceRules:
    """Row and column reductions: dtype pairs, orders and tmp."""

    row_pairs: Mapping[str, Mapping[DType, DTypes] | None]  # op -> src -> dst dtypes
    col_pairs: Mapping[str, Mapping[DType, DTypes] | None]
    row_arg_index: Mapping[DType, DTypes] | None  # TROWARG*: src -> index dtypes
    col_arg_index: Mapping[DType, DTypes] | None
    part_arg_index: Mapping[DType, DTypes] | None  # TPARTARG*: value -> index dtypes
    part_arg_select: PartArgSelect
    arg_compare: ArgCompare
    row_order: RowReduceOrder
    col_order: ColReduceOrder
    tmp_required: bool  # tmp must hold what the lowering puts there


@dataclass(frozen=True, eq=False)
class ConvertRules:
    """TCVT (and the TCVT steps of TQUANT)."""

    rounding: ConvertRounding
    # (src, dst) -> (intrinsic family, mode suffixes it has, default suffix) for
    # INTRINSIC_TABLE; the pairs the target converts (None: every pair of its dtypes)
    pairs: Mapping[tuple[DType, DType], tuple[str, str, str]] | frozenset | None
    saturation: Saturation
    narrowing_sat_off: frozenset  # pairs whose default saturation is OFF
    tmp_two_step_pairs: frozenset  # sat OFF with a tmp tile: through int32
    saturate_narrowing_floats: bool  # sat ON clamps a narrowing float -> float to +-max
    ctrl_register: bool  # need_set_ctrl=False leaves the reset CTRL (saturate)
    iterates_src_valid: bool  # the iteration domain is src's valid shape (else dst's)
    distinct_when_resizing: bool  # dst and src must not overlap when element sizes differ
    # float -> the same float type rounds to an integral value by the mode (a2a3
    # vconv_f322f32<m>, vector_isa.md 3.7); else it is a copy
    same_float_to_integral: bool
    # cpu/TCvt.hpp SafeLimits of the 4-bit types: sat ON clamps to them (in double) first
    packed_sat_limits: Mapping[DType, tuple[float, float]] = field(default_factory=dict)
    # a conversion into a packed tile zeroes its valid rows' bytes first and writes whole bytes
    # only (an odd valid column count leaves the row's last nibble 0: npu/a5 castBf16toFp4)
    packed_whole_bytes: bool = False


@dataclass(frozen=True, eq=False)
class CompareRules:
    """TCMP / TCMPS / TSEL / TSELS."""

    mask_writer: MaskWriter
    mask_dtypes: DTypes  # TCMP dst
    tcmps_mask_dtypes: DTypes
    u8_mask_src_dtypes: DTypes | None  # TCMP src dtypes allowed with a uint8 mask
    int32_eq_only: bool  # int32 compares EQ whatever the mode (NE = EQ then not)
    tcmps_b16_as_half: bool  # TCMPS compares int16/uint16 as half bit patterns
    tcmps_tile_reads_first: bool  # TCMPS(dst, src0, tile) compares with tile[0]
    tcmps_tolerance: float | None  # EQ/NE of TCMPS with this tolerance in double
    select_bits: SelectBits  # for TSEL (TSELS is row-aligned everywhere)
    select_same_tile_type: bool  # TSEL's operands share dst's Rows x Cols
    select_tmp_required: bool
    select_scalar_in_tmp: bool  # TSELS stores the scalar into tmp[0]


@dataclass(frozen=True, eq=False)
class MxQuantRules:
    """TQUANT's MX forms (MXFP8 E4M3, MXFP4 E2M1 with shared E8M0 exponents per group of 32;
    vector/mxquant.py): what differs between the targets that define them."""

    fp8_sources: DTypes  # src dtypes of MXFP8
    fp4_sources: DTypes  # src dtypes of MXFP4_E2M1
    # a 16-bit src's columns past valid_col (up to Cols) are zeroed in place before the groups
    # are reduced (the NPU's pad pass); else they are read as they are
    zeroes_src_pad: bool
    # MXFP8: a NaN element is skipped by the group max (a running std::max); else it makes the
    # group's exponent 0xFF
    fp8_max_skips_nan: bool
    # quant forms whose bf16 source's scaled value is rounded to bf16 before the encoding
    bf16_scaled_rounds: tuple[str, ...]
    # E4M3 of a negative value that rounds to zero: True 0x80 (rounding keeps the sign); False
    # the cpu simulator's nearest-code search (module doc of mxquant)
    e4m3_keeps_zero_sign: bool
    # a one-row exponent tile holds the groups flat (else the group (r, j) is exp[r, j])
    exp_flat_one_row: bool
    # max / scaling tiles of a 16-bit source hold bf16 bit patterns (else values of their dtype)
    side_tiles_bf16_bits: bool
    # MXFP4: dst's whole storage is zeroed first
    zeroes_fp4_dst: bool
    # the NZ form with a reordered exponent tile (TQUANT<MXFP8, VecStoreMode::NZ>)
    nz_exponent_form: bool


@dataclass(frozen=True, eq=False)
class LayoutRules:
    """Layout, fill, view, gather, quantise and index-sequence families."""

    fillpad: FillPad
    transpose_tmp: bool  # TTRANS goes through the tmp buffer (when its strides allow)
    window: Window
    extract_b16_copy: bool  # TEXTRACT ND: 32-byte index_col, NZ index rules, odd tail lost
    reshape_same_kind: bool  # TRESHAPE keeps the kind (float / integral) of the dtype
    gather_index_dtypes: DTypes  # TGATHER index form
    gather_bounds: GatherBounds
    gather_offsets_in_tmp: bool  # TGATHER: int32 byte offsets (wrapping) through tmp
    quant_via_tcvt: bool  # TQUANT: tmp required, src clobbered, three TCVT steps
    dequant_row_params: bool  # TDEQUANT reads offset/scale [i, 0]
    # TCI with tmp: bytes tmp needs per element size (descending gives -(start + j)); None:
    # tmp ignored
    tci_tmp_bytes: Mapping[int, int] | None
    sort32_pitch: Sort32Pitch = Sort32Pitch.RECORDS
    # TSORT32 with validCol not a multiple of 32: the tail block's records only (False: refused,
    # the NaN-padded tail the NPU sorts through tmp is not modelled)
    sort32_partial_block: bool = False
    # TQUANT's MX forms; None: UnsupportedError naming the form
    mx_quant: MxQuantRules | None = None
    # TSORT32 with tmp and such a tail: the a2a3 4-operand lowering (the row or the tail block
    # copied to tmp, padded to 32 with -NaN, sorted whole; vector.sort)
    sort32_tail_via_tmp: bool = False
    # that lowering's whole-row path takes rows up to 32 * 255 of this unit; longer rows sort
    # their whole blocks from src and only the tail block through tmp (a2a3: elements, a5:
    # bytes, npu/a5/TSort32.hpp compares validCol * sizeof(T))
    sort32_tmp_row_limit_unit: Sort32TmpLimit = Sort32TmpLimit.ELEMENTS
    # bytes the padding step loads from the start of tmp's last block (a5: a whole 256-byte
    # vector register, vlds; 0: a2a3 pads with a masked vector_dup and loads nothing): with
    # the sorted blocks, the extent of tmp the lowering touches, whatever tmp's declared size
    sort32_tail_load_bytes: int = 0
    # TMRGSORT(dst, src, blockLen) over the groups inside dst's valid columns, any whole-record
    # blockLen (False: refused; the NPU's blockLen and repeat rules are not modelled)
    mrgsort_block_len: bool = False
    # THISTOGRAM idx: uint16 a DN column (Cols 1), uint32 RowMajor with one row per filter byte
    # and src's Cols (npu/a5 THistogram.hpp static_asserts); False: any layout
    histogram_idx_shape: bool = False
    # the same form as one repeated vmrgsort4 (a2a3/TMrgSort.hpp): src's valid columns in whole
    # groups of 4 blocks, blockLen a multiple of 64, 1-255 groups (vector.sort)
    mrgsort_block_len_repeats: bool = False
    # TGATHER's compare form (a2a3/TGather.hpp: vcmpvs, then vreducev2 of an index ramp in tmp;
    # vector.tgather); False: UnsupportedError
    gather_compare: bool = False
    # that form as npu/a5 TGather.hpp's vector functions: per row the lanes compared in 64-lane
    # groups (converted to 32 bits), the selected lanes' indices squeezed into dst's row (vector.
    # tgather_squeeze); False with gather_compare: the a2a3 mask-and-reduce form
    gather_compare_squeeze: bool = False
    # TGATHER mask form, GATHER_ROW, of a 64-bit type: per src row the first
    # min(validCol // times, 64) kept elements (one 64-lane gather of each 32-bit half), stored
    # at dst row pitch Cols // times; dst's valid width is free (npu/a5 Int64GatherPattern).
    # False: every row's kept elements packed densely one after another
    gather_mask_b64_row_pitch: bool = False
    # packed 4-bit dtypes the target has -> where each element's nibble sits
    nibbles: Mapping[DType, Nibbles] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class CubeRules:
    """The cube core: L1 / L0 tiles, TMATMUL and the fixpipe (ptosim/isa/cube)."""

    addressing: CubeAddressing
    left_blayout: BLayout  # the fractal order of TileLeft / what mad reads from L0A
    left_any_blayout: bool  # TMATMUL accepts a Left tile of either fractal order
    mad_pairs: Mapping[DType, DType]  # TMATMUL: Left/Right dtype -> Acc dtype
    m1_as_16: bool  # TMATMUL with m == 1 issues mad with m = 16 (rows 1-15 written too)
    acc_input: AccInput
    bias_order: BiasOrder
    static_shapes: bool  # TMATMUL: Left Rows == Acc Rows, Left Cols == Right Rows ... (static)
    mad_max: int | None  # largest m, k, n (valid shapes) of a mad; None: no limit
    tload_mat: frozenset[str]  # TLOAD GM -> Mat layout pairs ("ND2NZ" ...; "any": every pair)
    fractal_checks: bool  # TEXTRACT / TMOV to L0: the fractal, alignment and index rules
    extract_bounds: ExtractBounds
    bias_pairs: Mapping[DType, DTypes]  # TMOV Mat -> Bias: src dtype -> dst dtypes
    bias_align_dst: bool  # the 64-byte rule of TMOV Mat -> Bias on dst (a5), else on src
    acc_to_mat: Mapping[DType, DTypes]  # TMOV / TEXTRACT Acc -> Mat (no quant): src -> dst
    acc_store: Mapping[DType, DTypes]  # TSTORE Acc -> GM (no quant): src -> dst dtypes
    acc_store_layouts: frozenset[str]  # GM layouts of TSTORE from Acc ("ND", "NZ", "DN")
    acc_store_nd_rows: int | None  # ND output: at most this many rows (a2a3: 8192)
    mat_store: bool  # TSTORE Mat -> GM exists
    # Tile.SetMadTF32Mode rounds fp32 mad inputs to this many mantissa bits (a cube-build
    # feature); None: the mode has no effect
    tf32_mantissa_bits: int | None
    # TPUSH of a TILE_NO_SPLIT Vec tile (vector -> cube): AIV1 stores it too (into the same
    # slot, reference/cube_isa.md 6); False: AIV1 is an inactive lane that skips its store
    fifo_no_split_both_store: bool
    # a raw element access (C++ tile.data()[i]) reaches the cube buffers' tiles too (Mat, Left,
    # Right, Acc); False: Vec tiles only, as GetValue / SetValue (no scalar path to L1 / L0)
    raw_access_cube_tiles: bool = False
    # TMATMUL (Left dtype, Right dtype) pairs of two different types the mad takes (a5: the
    # fp8 mixes e4m3 x e5m2 and e5m2 x e4m3); the other pairs need one type
    mad_mixed_inputs: frozenset[tuple[DType, DType]] = frozenset()
    # the MX mad (mad_mx, ptosim/isa/cube/mx.py): Left / Right dtypes -> Acc dtype, each Left
    # dtype with each Right dtype of the map (a5: fp8 e4m3 / e5m2 and fp4 e2m1 / e1m2, every
    # combination within fp8 and within fp4); empty: no MX mad on this target
    mx_pairs: Mapping[DType, DType] = field(default_factory=dict)
    # the fixpipe's quantised forms (a preQuantScalar word, a Scaling tile): Acc dtype -> output
    # dtypes, for TSTORE and the copies into L1 / UB alike; empty: not modelled on this target
    # (the form stops the run naming it)
    quant_pairs: Mapping[DType, DTypes] = field(default_factory=dict)
    # the destination forms of TMOV / TMOV_FP Acc -> Mat (the fixpipe's addressing into L1,
    # ``fixpipe.fixpipe_form``): "nz2nz" (an NZ Mat tile), and on 950 "nz2nd" (ND: row r at
    # r * Cols) and "nz2dn" (DN: column c at c * Rows); TEXTRACT / TINSERT write NZ only
    acc_to_mat_forms: frozenset[str] = frozenset({"nz2nz"})
    # TEXTRACT Acc -> Mat copies the destination's valid rows (a5 TExtractAccToMat, no index
    # assertion against Rows); False: its Rows (a2a3 asserts indexRow + Rows <= src Rows)
    acc_extract_valid_rows: bool = False
    # TLOAD ND2NZ / DN2ZN zeros the rest of the C0 block each moved row / column ends in
    nd2nz_zero_c0_tail: bool = False
    # every core has every buffer (cpu: tiles are host memory, and code using Vec and cube
    # tiles together - the CPU flash-attention demo - runs as one program); False: each core
    # kind has its own (memory.CORE_SPACES)
    shared_buffers: bool = False
    # TEXTRACT_FP / TINSERT_FP of a dtype pair without vector quantisation (any pair but
    # float32 -> int8/uint8 and int32 -> int8/uint8/half/int16) is the plain TEXTRACT /
    # TINSERT, the Scaling tile unread (cpu/common.hpp GetVectorPreQuantMode); False: every
    # FP form is the fixpipe's quantisation (not modelled)
    fp_forms_copy_unquantised: bool = False
    # the cube core and the vector cores of an AI core are tightly coupled (950, reference/
    # cube_isa.md 1.1): a vector core of a mixed kernel reaches its cube core's L1 (UB -> L1
    # copies) and the cube core reaches each vector core's UB (L1 -> UB copies)
    onchip_cv_paths: bool = False


@dataclass(frozen=True, eq=False)
class TargetSpec:
    """Everything a target family does where the references differ (module docstring)."""

    name: str  # the target family ("cpu", "a2a3", "a5")
    devices: tuple[str, ...]  # the devices of the family (table headings)
    summary: str
    timed: bool  # the engine plans and times its instructions
    dtypes: Mapping[str, DTypes | None]
    refusals: Mapping[str, Refusal]
    notes: Mapping[str, str]
    numerics: Numerics
    vector: VectorRules
    dma: DmaRules
    indexed: IndexedRules
    tscatter: TScatterRules
    broadcast: BroadcastRules
    elementwise: ElementwiseRules
    reduce: ReduceRules
    convert: ConvertRules
    compare: CompareRules
    layout: LayoutRules
    cube: CubeRules

    def dtypes_of(self, instruction: str) -> DTypes | None:
        """The element types ``instruction`` accepts here, or None if it is not defined."""
        return self.dtypes.get(instruction)

    def defines(self, instruction: str) -> bool:
        return self.dtypes.get(instruction) is not None

    def __repr__(self) -> str:
        return f"TargetSpec({self.name!r})"


def rule_groups(spec: TargetSpec) -> list[tuple[str, object]]:
    """(field name, value) of every rule group of ``spec`` (the dataclass-typed fields)."""
    return [
        (f.name, getattr(spec, f.name))
        for f in fields(spec)
        if hasattr(getattr(spec, f.name), "__dataclass_fields__")
    ]


def _cell(value) -> str | None:
    """A rule value for the docs table; None for a table-valued field (dtypes, pairs)."""
    if isinstance(value, Enum):  # the spec's enums by value, ptosim.enums by name
        return value.value if isinstance(value.value, str) else value.name
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return ", ".join(str(v) for v in value)
    if isinstance(value, frozenset) and all(isinstance(v, str) for v in value):
        return " ".join(sorted(value)) if value else "-"
    return None


def rules_table(targets: Sequence[TargetSpec]) -> str:
    """The rule x target table of the docs: every rule (named behaviour, flag, limit) of every
    rule group, one column per target spec (table-valued fields, such as dtype and pair
    tables, are left out)."""
    lines = [
        "| rule | " + " | ".join(t.name for t in targets) + " |",
        "|---|" + "---|" * len(targets),
    ]
    for group_name, group in rule_groups(targets[0]):
        for f in fields(group):
            cells = [_cell(getattr(getattr(t, group_name), f.name)) for t in targets]
            if None not in cells:
                lines.append(f"| {group_name}.{f.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def pair_sources(pairs: Mapping[DType, DTypes] | None) -> DTypes | None:
    """The source element types of a (src -> dst dtypes) table, None when undefined."""
    return None if pairs is None else tuple(pairs)
