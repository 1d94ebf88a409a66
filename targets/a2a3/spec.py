"""The Atlas A2/A3 target's behaviour: the ``include/pto/npu/a2a3`` lowerings.

Every value is what the references say of the a2a3 code: semantics.md (the ``npu/a2a3``
paragraphs of section 3), vector_isa.md (the a2a3 lowering paragraphs and tables; numerics 2.3,
quirks 4.x) and the decisions D1-D17 of docs/decisions.md where the reference leaves a choice.
"""

from __future__ import annotations

from ptosim.enums import BLayout, ScatterAtomicOp
from ptosim.isa import spec as S

from ..spec_common import (
    ALL,
    ARITH,
    COMMON_DTYPES,
    F16_F32,
    GATHER_NINE,
    INTS_124,
    NARROWING_SAT_OFF,
    NON_OPAQUE,
    SIZED_124,
    bf16,
    expand_family,
    f16,
    f32,
    floats_only,
    i8,
    i16,
    i32,
    i64,
    s4,
    u8,
    u16,
    u32,
)

# The hidden UB scratch of the 3-operand TROWEXPAND<OP> mode 1 (D10: TMP_UB_OFFSET = 184 KiB,
# 8 KiB up to the end of the 192 KiB UB).
HIDDEN_SCRATCH_OFFSET_BYTES = 184 * 1024
HIDDEN_SCRATCH_SIZE_BYTES = 8 * 1024

# -- tables -----------------------------------------------------------------------------------
_BASIC = (i32, i16, f16, f32)  # the a2a3 arithmetic types (vector_isa.md 3.3)
_TSCATTER = (i32, i16, i8, f16, f32, u32, u16, u8, bf16)  # npu/a2a3/TScatter.hpp
_ROW_SAME = {d: (d,) for d in (f16, f32, i32, i16)}
_COL_SAME = {d: (d,) for d in (f16, f32, i16, i32)}
# reductions, src -> dst dtypes (vector_isa.md 3.5, 3.17): no widening
ROW_PAIRS = {op: _ROW_SAME for op in ("SUM", "MAX", "MIN", "PROD")}
COL_PAIRS = {op: _COL_SAME for op in ("SUM", "MAX", "MIN", "PROD")}
ROW_ARG_INDEX = {f32: (i32, u32), f16: (i16, u16, i32, u32)}
# npu/a2a3/TPartArgOp.hpp (checkTiles): float with 32-bit indices, half with 16- or 32-bit
PART_ARG_INDEX = {f32: (i32, u32), f16: (i16, u16, i32, u32)}
COL_ARG_INDEX = {d: (i16, u16, i32, u32) for d in (f32, f16, u32, u16)}
AXPY_PAIRS = ((f16, f16), (f32, f32))

# TCVT (vector_isa.md 3.7): (src, dst) -> (vconv_* family, round-mode suffixes it has, default
# suffix; "" = the plain intrinsic)
CONVERT_PAIRS = {
    (f32, f16): ("vconv_f322f16", "rafczo", "r"),
    (f32, f32): ("vconv_f322f32", "rafcz", "r"),
    (f32, bf16): ("vconv_f322bf16", "rafcz", "r"),
    (f32, i64): ("vconv_f322s64", "rafcz", "z"),
    (f32, i32): ("vconv_f322s32", "rafcz", "z"),
    (f32, i16): ("vconv_f322s16", "rafcz", "z"),
    (f16, i32): ("vconv_f162s32", "rafcz", "z"),
    (f16, i16): ("vconv_f162s16", "rafcz", "z"),
    (f16, i8): ("vconv_f162s8", "rafcz", "z"),
    (f16, u8): ("vconv_f162u8", "rafcz", "z"),
    # int4b_t (packed, ptosim/nibbles.py); the plain vconv_f162s4 rounds to nearest even
    # (choice: the hardware's default rounding, as for the other plain intrinsics)
    (f16, s4): ("vconv_f162s4", "rafcz", ""),
    (s4, f16): ("vconv_s42f16", "", ""),
    (bf16, i32): ("vconv_bf162s32", "rafcz", "z"),
    (i16, f16): ("vconv_s162f16", "rafcz", ""),
    (i32, f32): ("vconv_s322f32", "rafcz", ""),
    (i64, f32): ("vconv_s642f32", "rafcz", "r"),
    (f16, f32): ("vconv_f162f32", "", ""),
    (bf16, f32): ("vconv_bf162f32", "", ""),
    (u8, f16): ("vconv_u82f16", "", ""),
    (i8, f16): ("vconv_s82f16", "", ""),
    (i16, f32): ("vconv_s162f32", "", ""),
    (i64, i32): ("vconv_s642s32", "", ""),
    (i32, i64): ("vconv_s322s64", "", ""),
    (i32, i16): ("vconv_s322s16", "", ""),
    (i32, f16): ("vconv_deq", "", ""),
}
# the pairs with a two-step path through int32 when a tmp tile is given and sat is OFF
TMP_TWO_STEP_PAIRS = frozenset([(f32, i16), (f16, i16), (f16, i8)])

FIFO_OPS = ("TPUSH", "TPOP", "TALLOC", "TFREE")
_MATMULS = ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")

DTYPES: dict[str, tuple | None] = {
    **COMMON_DTYPES,
    "TLOAD": ARITH,  # no float8 / hifloat8 in the a2a3 DMA's type list
    "TSTORE": ARITH,
    # MGATHER: the seed's UB list omits float32, but the a2a3 code, its GM -> L1 list and the
    # seeds' own examples use it (semantics.md 3.1.3)
    "MGATHER": GATHER_NINE,
    "MSCATTER": GATHER_NINE,
    "TSCATTER": _TSCATTER,
    "TGATHER": tuple(d for d in NON_OPAQUE if d.size_bytes in (2, 4)),
    **expand_family(
        {op: _BASIC for op in ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN")}
        | {"EXPDIF": floats_only(_BASIC)}
    ),
    # element-wise (vector_isa.md 3.3, 3.4, 3.8)
    **{f"T{op}": _BASIC for op in ("ADD", "SUB", "MUL", "MAX", "MIN")},
    "TDIV": F16_F32,
    # TAND/TOR/TXOR: no dtype assert in npu/a2a3/TAnd.hpp, TOr.hpp, TXor.hpp: vand/vor/vnot
    # move the bit patterns of any 1/2/4-byte type (the library's TAND test runs half)
    **{f"T{op}": INTS_124 + (f16, bf16, f32) for op in ("AND", "OR", "XOR")},
    **{f"T{op}": INTS_124 for op in ("SHL", "SHR")},
    **{name: _BASIC for name in ("TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS")},
    "TLRELU": F16_F32,
    **{name: INTS_124 for name in ("TANDS", "TORS", "TXORS")},
    "TSHLS": (i32, i16, u32, u16),
    "TSHRS": (i32, i16, u32, u16),
    "TAXPY": tuple(d for d, _ in AXPY_PAIRS),
    "TEXP": F16_F32,
    "TLOG": F16_F32,
    "TSQRT": F16_F32,
    "TABS": F16_F32,
    "TNEG": (i16, i32) + F16_F32,
    "TRELU": (i32,) + F16_F32,
    "TNOT": INTS_124,
    "TRECIP": (i16, i32) + F16_F32,
    # vector_isa.md 3.23
    "TFMOD": (f32,),
    "TFMODS": (f32,),
    "TREM": (i32, f32),
    "TREMS": (i32, f32),
    "TPOW": INTS_124 + F16_F32,
    "TPOWS": INTS_124 + F16_F32,
    "TPRELU": F16_F32,
    **{f"TPART{op}": _BASIC for op in ("ADD", "MUL", "MAX", "MIN")},
    "TPARTARGMAX": S.pair_sources(PART_ARG_INDEX),
    "TPARTARGMIN": S.pair_sources(PART_ARG_INDEX),
    **{f"TROW{op}": S.pair_sources(ROW_PAIRS[op]) for op in ROW_PAIRS},
    **{f"TCOL{op}": S.pair_sources(COL_PAIRS[op]) for op in COL_PAIRS},
    "TROWARGMAX": S.pair_sources(ROW_ARG_INDEX),
    "TROWARGMIN": S.pair_sources(ROW_ARG_INDEX),
    "TCOLARGMAX": S.pair_sources(COL_ARG_INDEX),
    "TCOLARGMIN": S.pair_sources(COL_ARG_INDEX),
    "TCVT": tuple(d for d in ALL + (s4,) if any(d in p for p in CONVERT_PAIRS)),
    # an int4b_t tile is placed and viewed as bytes (the tcvt test aliases a uint8 tile to it)
    **{name: COMMON_DTYPES[name] + (s4,) for name in ("TASSIGN", "TRESHAPE")},
    "TCI": (i16, u16, i32, u32),  # 2/4-byte integers
    # compare / select (vector_isa.md 3.19, 3.20)
    "TCMP": (i32, f16, f32),
    "TCMPS": (i32, f32, f16, u16, i16),
    "TSEL": (i16, u16, i32, u32, f16, bf16, f32),
    "TSELS": (i16, u16, i32, u32, f16, bf16, f32),
    # layout (vector_isa.md 3.1, 3.9, 3.11, 3.13)
    "TTRANS": (u32, i32, f32, u16, i16, f16, bf16, u8, i8),
    "TTRI": (i32, i16, u32, u16, f16, f32),
    "TEXTRACT": tuple(d for d in SIZED_124 if d.kind != "float" or d.size_bytes > 1),
    "TINSERT": None,
    "TSORT32": (f32, f16),
    "TMRGSORT": (f32, f16),  # a2a3/TMrgSort.hpp (CheckStatic: half or float records)
    "THISTOGRAM": None,
    # the cube (reference/cube_isa.md 3.4): the Left / Right element type (int8 -> int32, the
    # floats -> float)
    **{name: (i8, f16, bf16, f32) for name in _MATMULS},
    "TMATMUL_MX": None,  # the MX mad is the 950's only
    "TGEMV_MX": None,
    # the cube <-> vector FIFO (cube_isa.md 3.8): the tiles its TSTORE / TLOAD move
    **{name: ARITH for name in FIFO_OPS},
    # the fixpipe's quant registers (cube_isa.md 3.6): the quantised output types
    "SET_QUANT_SCALAR": (i8, u8, f16, bf16),
    "SET_QUANT_VECTOR": (i8, u8, f16, bf16),
}

REFUSALS = {
    "TINSERT": S.Refusal("the a2a3 library implements TINSERT only from Acc to Mat (cube fixpipe)"),
    "THISTOGRAM": S.Refusal("the NPU lowering of THISTOGRAM is not given in the reference"),
}

_PART_NOTE = "one source full-size, the other inside it; copies write padding"
NOTES = {
    "TFMOD": "vdiv, trunc, vmul, vsub",
    "TFMODS": "vector_dup, vdiv, trunc, vmuls, vsub",
    "TREM": "vdiv, floor, vmul, vsub, sign fix-up",
    "TREMS": "vector_dup, then as TREM",
    "TPOW": "vabs, vln, vmul, vexp + scalar fix-up; ints scalar",
    "TPOWS": "vabs, vln, vmuls, vexp + scalar fix-up; ints scalar",
    "TPRELU": "vmul, vcmpvs_gt, vsel",
    **{f"TPART{op}": _PART_NOTE for op in ("ADD", "MUL", "MAX", "MIN")},
    **{
        f"TPARTARG{op}": f"vcmp_{c}, vsel; {_PART_NOTE}" for op, c in (("MAX", "ge"), ("MIN", "le"))
    },
    "TEXP": "vexp",
    "TLOG": "vln",
    "TSQRT": "vsqrt",
    "TRSQRT": "vrsqrt; with tmp vsqrt + vdiv",
    "TRECIP": "vector_dup + vdiv; ints on PIPE_S",
    "TABS": "vabs",
    "TNEG": "vmuls by -1",
    "TRELU": "vrelu",
    "TNOT": "vnot on 16-bit lanes",
    "TCI": "tmp + descending gives -(start + j)",
    "TCVT": "vconv_* per (pair, mode)",
    "TQUANT": "needs tmp; scales src in place",
    "TCMP": "vcmpv_*; int32 always EQ/NE",
    "TCMPS": "vcmpvs_*; i16/u16 compared as half; tile form uses src1[0]",
    "TMATMUL": "mad on PIPE_M; m == 1 runs as 16 rows",
    "TMATMUL_ACC": "mad accumulating in place (cIn ignored)",
    "TMATMUL_BIAS": "mad from the bias table",
    "TGEMV": "mad in GEMV mode (m = 1)",
}

SPEC = S.TargetSpec(
    name="a2a3",
    devices=("a2", "a3"),
    summary="Atlas A2/A3 vector core: scalar pipe S, MTE2 GM->UB, MTE3 UB->GM, vector pipe V",
    timed=True,
    dtypes=DTYPES,
    refusals=REFUSALS,
    notes=NOTES,
    numerics=S.Numerics(
        # vmax/vmin: not described for NaN / signed zeros; IEEE maximum/minimum (maxmin.py)
        maxmin=S.MaxMin.IEEE_754_2019,
        float_abs=S.FloatAbs.CLEAR_SIGN_BIT,  # vabs (vector_isa.md 3.8)
        exp_half_in_float32=False,  # vexp modelled correctly rounded
        rsqrt=S.Rsqrt.SQRT_THEN_DIV_WITH_TMP,  # vrsqrt; the 3-operand form vsqrt + vdiv
    ),
    vector=S.VectorRules(
        row_major_operands=True,  # isRowMajor static asserts (vector_isa.md 2.1)
        row_major_instructions=frozenset(),
        block_copies_write_padding=True,  # copy_ubuf_to_ubuf moves 32-byte blocks
    ),
    dma=S.DmaRules(
        transfer=S.DmaTransfer.BURSTS,  # semantics.md 3.5
        gm_burst_pitch=S.GmBurstPitch.BURST_PLUS_GAP,  # lenBurst + gmGap (D7)
        ub_burst_pitch=S.UbBurstPitch.BLOCKS_PLUS_GAP,  # whole blocks + ubGap
        burst_count_must_match=False,  # nBurst comes from the GlobalTensor (D14, F106)
        burst_length_must_match=False,  # (F101)
        store_valid_within_view=False,
        burst_count_limit=4096,  # nBurst and Rows "< 4096" (semantics.md 3.5)
        # TSTORE<AtomicAdd>: the set_atomic_{s8,s16,s32,f16,bf16,f32} types (semantics.md 3.5)
        atomic_add_dtypes=(i8, i16, i32, f16, bf16, f32),
        tmov=S.TMovCopy.UB_BLOCKS,  # TMovToVec: copy_ubuf_to_ubuf (D16)
        tmov_nd_to_fractal=False,  # a plain block copy between any layouts (D16)
        # the GM <-> UB/L1 copies take only the outer strides (ND 0-3, DN 0-2 and 4, NZ 0-1)
        # and a burst length: a burst is contiguous whatever the inner stride (D13, F112)
        reads_burst_strides=False,
        # a one-row Mat tile (a bias or quant-word row) loads as an ND2NZ of the view's row:
        # dValue = shape4, not validCol (tload_common.hpp TLoadGm2L1VectorInND / InDn)
        mat_vector_load_moves_view=True,
    ),
    indexed=S.IndexedRules(
        kernel=S.IndexedKernel.DMA,  # semantics.md 3.1.3, 3.2.3
        index_conversion=S.IndexConversion.UINT32,  # D2
        row_capacity=S.RowCapacity.OUTER_DIMS,  # shape0*shape1*shape2*shape3 (D3)
        row_pitch=S.RowPitch.STRIDE,  # stride[3] (D3)
        row_columns=S.RowColumns.CONTIGUOUS,  # one DMA burst per row
        l1_staged=True,  # nd2nz DMA (semantics.md 3.1.3(e))
        scatter_conflict_default=None,  # no ScatterConflict parameter: the last write wins
        scatter_atomic_dtypes={
            ScatterAtomicOp.Add: (i8, i16, i32, f16, bf16, f32),
            ScatterAtomicOp.Max: None,  # no atomic Max/Min on Atlas A2/A3
            ScatterAtomicOp.Min: None,
        },
        conflict_last_with_atomic=True,  # (no conflict parameter at all)
    ),
    tscatter=S.TScatterRules(
        addressing=S.Addressing.ROW_STRIDE,  # i*Cols + j (semantics.md 3.3)
        zero_fills_dst=True,  # InitUBBuffer of Rows*Cols elements first
        index_dtypes=(i16, i32, u16, u32),
        index_size_pairs=((4, 4), (2, 2), (1, 2)),  # (sizeof T, sizeof TIdx)
        duplicate_order=S.ScatterOrder.SEQUENTIAL,  # a sequential loop (D6)
        b64_max_index_cols=None,
        mask_dtypes=_TSCATTER,
        mask_row_cursor=False,
    ),
    broadcast=S.BroadcastRules(
        row_broadcast=S.RowBroadcast.VBRCB_BUFFER,  # semantics.md 3.4, D10
        full_operand_tie=S.FullOperandTie.LARGER_ROW_STRIDE,  # src0 iff its RowStride >= src1's
        hidden_scratch=(HIDDEN_SCRATCH_OFFSET_BYTES, HIDDEN_SCRATCH_SIZE_BYTES),
        col_row_vector_in_src1=False,  # the operand with dst's valid shape is the full one
        row_expand_b64_max_cols=None,  # no 64-bit TROWEXPAND on a2a3
    ),
    elementwise=S.ElementwiseRules(
        bitwise=S.Bitwise.B16_LANES,  # vector_isa.md 2.4, 4.14
        tsubs_negates_through_float=True,  # T(-(float)s) (vector_isa.md 4.6)
        division_via_dup=True,  # vector_dup + vdiv; in-place src/s: vmuls by 1/s (4.7)
        axpy_pairs=AXPY_PAIRS,
        math_vector_sequence=True,  # vector_isa.md 3.23 (the a2a3 sequences)
        remainder=S.Remainder.UB_CHAIN,  # vector_isa.md 3.23 (npu/a2a3 TFMod/TRem*.hpp)
        math_tmp_checked=True,
        partial_one_source_full=True,  # the reference's PTO_ASSERT (vector_isa.md 3.22)
        axpy_fused=False,  # assumed like the CPU's two roundings (vaxpy's fusion is not public)
        int64_zero_divisor_gives_zero=False,  # no 64-bit integer division on a2a3
        int64_shift_count_mod_64=False,  # no 64-bit integer shifts on a2a3
        partial_copy_then_op=True,  # copy_ubuf_to_ubuf, barrier, op
    ),
    reduce=S.ReduceRules(
        row_pairs=ROW_PAIRS,
        col_pairs=COL_PAIRS,
        row_arg_index=ROW_ARG_INDEX,
        col_arg_index=COL_ARG_INDEX,
        part_arg_index=PART_ARG_INDEX,
        part_arg_select=S.PartArgSelect.VSEL_SRC0_IF_NOT_WORSE,  # a2a3/TPartArgOp.hpp
        arg_compare=S.ArgCompare.MAXMIN_SCAN,
        row_order=S.RowReduceOrder.REPEAT_TREE,  # vector_isa.md 3.5
        col_order=S.ColReduceOrder.SEQUENTIAL,  # vector_isa.md 3.17
        tmp_required=True,  # tmp holds the lowering's partial results
    ),
    convert=S.ConvertRules(
        rounding=S.ConvertRounding.INTRINSIC_TABLE,
        pairs=CONVERT_PAIRS,
        saturation=S.Saturation.NARROWING_PAIRS,  # CTRL bit 59; only the six pairs honour sat
        narrowing_sat_off=NARROWING_SAT_OFF,
        tmp_two_step_pairs=TMP_TWO_STEP_PAIRS,
        saturate_narrowing_floats=False,  # saturation concerns integer destinations only
        ctrl_register=True,
        iterates_src_valid=False,  # dst's valid shape
        distinct_when_resizing=True,  # not in-place safe between element sizes
        same_float_to_integral=True,  # vconv_f322f32<m>: round to an integral value
    ),
    compare=S.CompareRules(
        mask_writer=S.MaskWriter.COMPARE_REPEATS,  # vcmpv_* over whole repeats (4 item 4)
        mask_dtypes=(u8,),
        tcmps_mask_dtypes=(u8,),
        u8_mask_src_dtypes=None,
        int32_eq_only=True,  # int32 always compares EQ (vector_isa.md 4 item 5)
        tcmps_b16_as_half=True,  # vcmpvs on half bit patterns
        tcmps_tile_reads_first=True,  # the tile form loads src1[0] (V -> S)
        tcmps_tolerance=None,
        select_bits=S.SelectBits.ROW_ALIGNED,
        select_same_tile_type=False,
        select_tmp_required=True,  # the cmpmask is loaded through tmp
        select_scalar_in_tmp=True,  # TSELS stores the scalar into tmp[0]
    ),
    layout=S.LayoutRules(
        fillpad=S.FillPad.ROW_BLOCKS,  # vector_isa.md 3.14 (a2a3 lowering)
        transpose_tmp=True,  # vnchwconv through tmp (vector_isa.md 3.11)
        window=S.Window.STORAGE,
        extract_b16_copy=True,  # vector_isa.md 3.1: a 16-bit vcopy of the tail
        reshape_same_kind=False,
        nibbles={s4: S.Nibbles.ROW_PITCH},  # a2a3/TCvt.hpp: int4 rows keep the row stride
        gather_index_dtypes=(i32, u32),
        gather_bounds=S.GatherBounds.RAW_UB,  # vgather: no bounds check (semantics.md 3.6)
        gather_offsets_in_tmp=True,  # vmuls in int32 into dst's row or tmp
        quant_via_tcvt=True,  # vector_isa.md 3.15: three TCVT steps, tmp required
        dequant_row_params=True,  # vadds / vmuls with per-row scalars
        tci_tmp_bytes={4: 768, 2: 1792},  # the vector path's tmp (vector_isa.md 3.21)
        sort32_tail_via_tmp=True,  # a2a3/TSort32.hpp, the 4-operand form
        mrgsort_block_len_repeats=True,  # a2a3/TMrgSort.hpp, TMRGSORT(dst, src, blockLen)
        gather_compare=True,  # a2a3/TGather.hpp, TGATHER<..., CmpMode>
    ),
    cube=S.CubeRules(
        addressing=S.CubeAddressing.FRACTALS,  # the intrinsics move whole fractals
        left_blayout=BLayout.RowMajor,  # TileLeft is ZZ on a2a3 (cube_isa.md 2.1)
        left_any_blayout=False,
        mad_pairs={i8: i32, f16: f32, bf16: f32, f32: f32},  # a2a3/TMatmul.hpp (cube_isa 3.4)
        m1_as_16=True,  # "avoid gemv mode" (cube_isa.md 3.4)
        acc_input=S.AccInput.IN_PLACE,  # mad accumulates at cOut (cube_isa.md 3.4)
        bias_order=S.BiasOrder.INITIAL_VALUE,  # cmatrixSource = 1: C starts at the bias
        static_shapes=False,  # only Loc checks are static on a2a3
        mad_max=4095,  # CheckDynamicMad: 1 <= m, k, n <= 4095
        tload_mat=frozenset({"ND2ND", "DN2DN", "NZ2NZ", "ND2NZ", "DN2ZN"}),  # cube_isa.md 3.1
        fractal_checks=True,  # textract_common.hpp static asserts (cube_isa.md 3.2)
        extract_bounds=S.ExtractBounds.STATIC,  # a2a3/TExtract.hpp index + dst Rows <= src Rows
        bias_pairs={i32: (i32,), f32: (f32,), f16: (f32,)},  # a2a3/TMov.hpp TMovToBt
        bias_align_dst=False,  # Cols*sizeof(src) % 64 == 0 (cube_isa.md 3.3)
        acc_to_mat={f32: (f16, bf16)},  # CheckTMovAccToMat: cast form float -> half / bf16
        # CheckAcc2gm admits int32/float/half/bf16 outputs for either source (cube_isa 3.5)
        acc_store={f32: (i32, f32, f16, bf16), i32: (i32, f32, f16, bf16)},
        acc_store_layouts=frozenset({"ND", "NZ"}),  # NC1HWC0 / NDC1HWC0: convolution layouts
        acc_store_nd_rows=8192,
        mat_store=True,  # TStoreMat (cube_isa.md 3.5)
        tf32_mantissa_bits=11,  # e8m11 (cube_isa.md 3.4)
        fifo_no_split_both_store=True,  # pushVec2GMFiFo: both sub-cores store (cube_isa.md 6)
        # the quantisation modes of a2a3/common.hpp by dtype pair (cube_isa.md 3.5): float ->
        # int8 / uint8 (QF322B8_PRE), half, bf16 (QF322F16_PRE, QF322BF16_PRE); int32 -> int8 /
        # uint8 (REQ8), half (DEQF16), int16 (SHIFTS322S16)
        quant_pairs={f32: (i8, u8, f16, bf16), i32: (i8, u8, f16, i16)},
        # the tload_gm2mat goldens: zeros after dValue up to the C0 boundary (cube_isa.md 3.1)
        nd2nz_zero_c0_tail=True,
    ),
)
