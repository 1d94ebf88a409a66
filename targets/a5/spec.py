"""The Ascend 950PR/950DT target's behaviour: the ``include/pto/npu/a5`` code.

Every value is what the references say of the a5 code: semantics.md (the ``npu/a5`` paragraphs of
section 3: SIMT MGATHER/MSCATTER, vector-register TSCATTER/TROWEXPAND), vector_isa.md (the a5
paragraphs and tables) and the decisions D1-D17 of docs/decisions.md; where the reference gives
no a5 body, the choice is named in the comment.
"""

from __future__ import annotations

from ptosim.enums import BLayout, ScatterAtomicOp, ScatterConflict
from ptosim.isa import spec as S

from ..spec_common import (
    ALL,
    ARITH,
    COMMON_DTYPES,
    F16_F32,
    FLOATS,
    GATHER_NINE,
    INTS,
    INTS_124,
    NARROWING_SAT_OFF,
    NON_OPAQUE,
    ONCHIP_CV,
    SIZED_124,
    bf16,
    e4m3,
    e5m2,
    e8m0,
    expand_family,
    f16,
    f32,
    floats_only,
    fp4_e1m2,
    fp4_e2m1,
    hif8,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
)

# -- tables -----------------------------------------------------------------------------------
_TSCATTER = (i32, i16, i8, f16, f32, u32, u16, u8, bf16, i64, u64)  # npu/a5/TScatter.hpp
_ROWEXPAND = (i32, u32, f32, i16, u16, f16, bf16, u8, i8)  # semantics.md 3.4
# npu/a5/TRowReduceIdx.hpp: the value+index form takes 16- or 32-bit indices for half, 32-bit
# for float (the index-only form: 32-bit; choice: one table for both forms)
ROW_ARG_INDEX = {f32: (i32, u32), f16: (i16, u16, i32, u32)}
# npu/a5/TColReduceIdx.hpp: any 1/2/4-byte source; index-only form 32-bit indices, value+index
# form 16-bit for 2-byte sources, 32-bit for 4-byte ones (no 1-byte value form)
COL_ARG_INDEX = {
    **{d: (i32, u32) for d in (i8, u8)},
    **{d: (i16, u16, i32, u32) for d in (i16, u16, f16, bf16)},
    **{d: (i32, u32) for d in (i32, u32, f32)},
}
# npu/a5/TPartArgBinOps.hpp (TPartArgCheck): half with 16- or 32-bit indices, float with 32-bit
PART_ARG_INDEX = {f16: (i16, u16, i32, u32), f32: (i32, u32)}
# npu/a5/TPartAdd.hpp, TPartMax.hpp, TPartMin.hpp: the static_assert's types, 64-bit through the
# Int64Part helpers; TPartMul.hpp: the same without the 64-bit types
_PART_MUL = (i8, u8, i16, u16, i32, u32, f16, bf16, f32)
_PART = _PART_MUL + (i64, u64)
_COL = {d: (d,) for d in ARITH}
# reductions, src -> dst dtypes (vector_isa.md 3.5, 3.17): no widening
ROW_PAIRS = {
    "SUM": {d: (d,) for d in (f16, f32, i32, i16, i64, u64)},
    "MAX": {d: (d,) for d in (f16, f32, i32, i16, i8, u8, i64, u64)},
    "MIN": {d: (d,) for d in (f16, f32, i32, i16, i8, u8, i64, u64)},
    "PROD": {d: (d,) for d in (f16, f32, i32, i16)},  # choice: a5/TRowProd.hpp's list unknown
}
COL_PAIRS = {op: _COL for op in ("SUM", "MAX", "MIN", "PROD")}
AXPY_PAIRS = ((f16, f16), (f32, f32))
# TCVT (vector_isa.md 3.7): the (src, dst) pairs vcvt converts
CONVERT_PAIRS = frozenset(
    [(f32, d) for d in (f32, f16, bf16, i16, i32, i64, e4m3, e5m2, hif8)]
    + [(f16, d) for d in (f32, i32, i16, i8, u8, hif8)]
    + [(bf16, d) for d in (f32, i32, f16, fp4_e1m2, fp4_e2m1)]
    + [(fp4_e1m2, bf16), (fp4_e2m1, bf16)]
    + [(i16, d) for d in (u8, f16, f32, u32, i32)]
    + [(i32, d) for d in (f32, i16, u16, i64, u8)]
    + [(i64, f32), (i64, i32), (u8, f16), (u8, u16)]
    + [(i8, d) for d in (f16, i16, i32)]
    + [(u32, d) for d in (u8, u16, i16)]
    + [(e4m3, f32), (e5m2, f32), (hif8, f32)]
)

FIFO_OPS = ("TPUSH", "TPOP", "TALLOC", "TFREE")
_MATMULS = ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")

DTYPES: dict[str, tuple | None] = {
    **COMMON_DTYPES,
    **{name: () for name in ONCHIP_CV},  # flags and raw byte copies: no element type
    # npu/a5/TColExpand.hpp: b8/b16/b32 through the VF, int64/uint64 through Int64ColExpand
    "TCOLEXPAND": GATHER_NINE + (i64, u64),
    # TLOAD/TSTORE: fp4 moves as its bytes (columns counted in nibbles, common.hpp GetByteSize)
    "TLOAD": ALL + (fp4_e2m1, fp4_e1m2, e8m0),
    "TSTORE": ALL + (fp4_e2m1, fp4_e1m2, e8m0),
    **{name: COMMON_DTYPES[name] + (fp4_e2m1, fp4_e1m2, e8m0) for name in ("TASSIGN", "TRESHAPE")},
    # MGATHER/MSCATTER: the seeds' list plus hifloat8 and fp8 on the 950
    "MGATHER": GATHER_NINE + (hif8, e4m3, e5m2),
    "MSCATTER": GATHER_NINE + (hif8, e4m3, e5m2),
    "TSCATTER": _TSCATTER,
    # npu/a5/TRowExpand.hpp: b8/b16/b32 through the VF, int64/uint64 through Int64RowExpand
    "TROWEXPAND": GATHER_NINE + (i64, u64),
    "TGATHER": NON_OPAQUE,
    **expand_family(
        {op: _ROWEXPAND for op in ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN")}
        | {"EXPDIF": floats_only(_ROWEXPAND)}
    ),
    # element-wise (vector_isa.md 3.3, 3.4, 3.8)
    **{f"T{op}": ARITH for op in ("ADD", "SUB", "MAX", "MIN")},
    "TMUL": tuple(d for d in ARITH if d.size_bytes > 1),
    "TDIV": (i16, u16, i32, u32, i64, u64, f16, f32),
    # npu/a5 TAnd/TOr: any 1/2/4-byte type (vand/vor on its bits); TXor: the integers
    "TAND": SIZED_124,
    "TOR": SIZED_124,
    "TXOR": INTS_124,
    "TSHL": INTS,
    "TSHR": INTS,
    **{name: ARITH for name in ("TADDS", "TSUBS", "TMAXS", "TMINS")},
    "TMULS": tuple(d for d in ARITH if d.size_bytes > 1),
    "TDIVS": tuple(d for d in ARITH if d.size_bytes > 1 and d is not bf16),
    "TLRELU": F16_F32,
    # npu/a5 TAndS/TOrS/TXorS: any 1/2/4-byte type (the static_assert checks the size only)
    **{name: SIZED_124 for name in ("TANDS", "TORS", "TXORS")},
    "TSHLS": INTS,
    "TSHRS": INTS,
    "TAXPY": tuple(d for d, _ in AXPY_PAIRS),
    "TEXP": F16_F32,
    "TLOG": F16_F32,
    "TSQRT": F16_F32,
    "TABS": (i8, i16, i32, f16, f32),
    "TNEG": (i16, u16, i32, u32) + FLOATS,
    "TRELU": (i32,) + F16_F32,
    "TNOT": INTS_124,
    "TRECIP": (i16, u16, i32, u32, i64, u64) + F16_F32,
    # npu/a5 TFMod.hpp / TFModS.hpp (TFModCheck; TFMODS: the 2- and 4-byte types it lowers)
    "TFMOD": (i16, u16, i32, u32, f16, f32),
    "TFMODS": (i16, u16, i32, u32, f16, f32),
    # npu/a5 TRem.hpp / TRemS.hpp (TRemCheck; 64-bit through the Int64Div helpers)
    "TREM": (i16, u16, i32, u32, i64, u64, f16, f32),
    "TREMS": (i16, u16, i32, u32, i64, u64, f16, f32),
    "TPOW": INTS_124 + F16_F32,
    "TPOWS": INTS_124 + F16_F32,
    "TPRELU": F16_F32,
    **{f"TPART{op}": _PART for op in ("ADD", "MAX", "MIN")},
    "TPARTMUL": _PART_MUL,
    "TPARTARGMAX": S.pair_sources(PART_ARG_INDEX),
    "TPARTARGMIN": S.pair_sources(PART_ARG_INDEX),
    **{f"TROW{op}": S.pair_sources(ROW_PAIRS[op]) for op in ROW_PAIRS},
    **{f"TCOL{op}": S.pair_sources(COL_PAIRS[op]) for op in COL_PAIRS},
    "TROWARGMAX": S.pair_sources(ROW_ARG_INDEX),
    "TROWARGMIN": S.pair_sources(ROW_ARG_INDEX),
    "TCOLARGMAX": S.pair_sources(COL_ARG_INDEX),
    "TCOLARGMIN": S.pair_sources(COL_ARG_INDEX),
    # hifloat8: ptosim/hifloat8.py, rounded ties away (npu/a5 TCvt.hpp uses ROUND_A)
    "TCVT": tuple(d for d in ALL + (fp4_e2m1, fp4_e1m2) if any(d in p for p in CONVERT_PAIRS)),
    "TCI": (i16, u16, i32, u32),  # vci
    # compare / select (vector_isa.md 3.19, 3.20): 1/2/4/8-byte types
    "TCMP": NON_OPAQUE,
    "TCMPS": NON_OPAQUE,
    "TSEL": tuple(d for d in NON_OPAQUE if d.size_bytes in (1, 2, 4, 8)),
    "TSELS": tuple(d for d in NON_OPAQUE if d.size_bytes in (1, 2, 4, 8)),
    # layout (vector_isa.md 3.1, 3.9, 3.11, 3.13)
    "TMRGSORT": (f32, f16),  # npu/a5/TMrgSort.hpp (CheckStatic: half or float records)
    # npu/a5 TTrans.hpp: any 1/2/4-byte type (a byte move)
    "TTRANS": SIZED_124 + (hif8, e8m0),
    "TTRI": (i32, i16, u32, u16, f16, bf16, f32, i8, u8, i64, u64),
    "TEXTRACT": SIZED_124 + (hif8,),  # npu/a5 TExtract.hpp: Vec -> Vec moves hifloat8 bytes
    "TINSERT": SIZED_124,
    "TSORT32": (f32, f16),
    "THISTOGRAM": (u16, u32),  # npu/a5 THistogram.hpp
    # the cube core: the mad input types of a5/TMatmul.hpp (cube_isa.md 3.4)
    **{name: (i8, f16, bf16, f32, e4m3, e5m2, hif8) for name in _MATMULS},
    "TMATMUL_MX": (e4m3, e5m2, fp4_e2m1, fp4_e1m2),  # a5 CheckMadMxValid
    "TGEMV_MX": (e4m3, e5m2, fp4_e2m1, fp4_e1m2),
    # the on-chip FIFO (ptosim/isa/cube/fifo_onchip.py); the tile types C++ arithmetic takes
    **{name: ARITH for name in FIFO_OPS},
    # the quant registers of a TPUSH's FixpipeParams (the a2a3 output types; the fixpipe's own
    # pairs check the conversion)
    "SET_QUANT_SCALAR": (i8, u8, f16, bf16),
    "SET_QUANT_VECTOR": (i8, u8, f16, bf16),
}

REFUSALS = {}

NOTES = {
    "TMATMUL_MX": "MX mad, float8_e8m0 scales per 32 of K; costs estimates",
    "TGEMV_MX": "MX mad in GEMV mode (m = 1); costs estimates",
    "MGATHER": "SIMT launch",
    "MSCATTER": "SIMT launch",
    **{name: "one VF; half via float32" for name in ("TPOW", "TPOWS")},
    **{name: "one VF; half via float32" for name in ("TFMOD", "TFMODS", "TREM", "TREMS")},
    "TPRELU": "as a2a3",
    **{
        f"TPART{op}": "one source full-size, the other inside it"
        for op in ("ADD", "MUL", "MAX", "MIN")
    },  # fmt: skip
    "TEXP": "vexp",
    "TLOG": "vln",
    "TSQRT": "vsqrt",
    "TRSQRT": "vsqrt + vdiv",
    "TRECIP": "vdiv",
    "TABS": "vabs",
    "TNEG": "vmuls by -1",
    "TRELU": "vrelu",
    "TNOT": "vnot",
    "TCI": "vci",
    "TCVT": "vcvt",
    "TCMP": "predicate stores",
}

SPEC = S.TargetSpec(
    name="a5",
    devices=("950pr", "950dt"),
    summary="Ascend 950PR/950DT vector core: SIMT launches dim3{32, W} and vector-register loops",
    timed=True,
    dtypes=DTYPES,
    refusals=REFUSALS,
    notes=NOTES,
    numerics=S.Numerics(
        # vmax/vmin, atomicMax/atomicMin: IEEE maximum/minimum (maxmin.py)
        maxmin=S.MaxMin.IEEE_754_2019,
        float_abs=S.FloatAbs.CLEAR_SIGN_BIT,  # vabs
        exp_half_in_float32=False,  # vexp modelled correctly rounded
        rsqrt=S.Rsqrt.SQRT_THEN_DIV,  # vsqrt then vdiv(1, .) (vector_isa.md 3.8)
    ),
    vector=S.VectorRules(
        row_major_operands=True,
        row_major_instructions=frozenset(),
        block_copies_write_padding=False,  # predicated vector stores
    ),
    dma=S.DmaRules(
        transfer=S.DmaTransfer.BURSTS,  # semantics.md 3.5
        gm_burst_pitch=S.GmBurstPitch.STRIDE,  # start-to-start strides
        ub_burst_pitch=S.UbBurstPitch.TILE_DIM,  # the UB stride is programmed directly
        burst_count_must_match=True,  # the burst count must match the view (D15)
        burst_length_must_match=False,  # the burst length is free
        store_valid_within_view=False,
        burst_count_limit=None,
        # assumed to be a2a3's set_atomic types (the a5 DMA atomics are not in the reference)
        atomic_add_dtypes=(i8, i16, i32, f16, bf16, f32),
        tmov=S.TMovCopy.VALID_ELEMENTS,  # the valid region through both layouts
        tmov_nd_to_fractal=True,  # npu/a5 TMov.hpp: TMovToVecNd2Nz, TMovNdTo2Zn
        tmov_nd_to_zz=True,  # npu/a5 TMov.hpp: TMovNdTo2Zz (the 3-tile TMOV)
        # npu/a5 TLoad.hpp / TStore.hpp and the register-arch tload_common.hpp: the vector
        # copies take the burst pitch and outer strides only (ND stride 3, DN stride 4, NZ
        # stride 1; loops over strides 0-2), never the burst dimension's (D13, F112)
        reads_burst_strides=False,
        # NZ2NZ TLOAD: shape1 bursts of validRow*32 bytes, the valid shape not checked; the
        # rest of the tile keeps its bytes (tload_common.hpp TLoadVecNZ2NZ, TLoadCubeNZ2NZ)
        nz_load_valid_shape_free=True,
    ),
    indexed=S.IndexedRules(
        kernel=S.IndexedKernel.SIMT,  # semantics.md 3.1.4, 3.2.4
        index_conversion=S.IndexConversion.UINT32,  # D2
        row_capacity=S.RowCapacity.ROWS_DIM,  # shape[3] (D3)
        row_pitch=S.RowPitch.VALID_COLS,  # the SIMT kernel's row pitch is ValidCol (D3)
        row_columns=S.RowColumns.CONTIGUOUS,
        l1_staged=True,  # the GM -> L1 paragraph of semantics.md 3.1.4
        scatter_conflict_default=ScatterConflict.Last,  # the a5 default (semantics.md 3.2.4)
        scatter_atomic_dtypes={
            ScatterAtomicOp.Add: (i32, u32, f32, f16, bf16),
            ScatterAtomicOp.Max: (i32, u32, f32),  # atomicMax / atomicMin
            ScatterAtomicOp.Min: (i32, u32, f32),
        },
        conflict_last_with_atomic=True,  # atomic modes ignore ScatterConflict
    ),
    tscatter=S.TScatterRules(
        addressing=S.Addressing.ROW_STRIDE,  # i*Cols + j (semantics.md 3.3)
        zero_fills_dst=True,  # the vector zero fill of Rows*Cols elements first
        index_dtypes=(i16, i32, u16, u32),
        index_size_pairs=((4, 4), (2, 2), (1, 2), (8, 4)),  # (sizeof T, sizeof TIdx)
        duplicate_order=S.ScatterOrder.VSCATTER_LANES,  # one vscatter per (row, batch) (D6)
        # Int64Scatter: one vector of 256 / 4 u32 index lanes per row, mask computed once
        b64_max_index_cols=64,
        mask_dtypes=_TSCATTER,
        mask_row_cursor=False,
    ),
    broadcast=S.BroadcastRules(
        row_broadcast=S.RowBroadcast.VECTOR_LOADS,  # vlds BRC / the 1-D path (semantics.md 3.4)
        full_operand_tie=S.FullOperandTie.SRC0,
        hidden_scratch=None,  # tmp is accepted and ignored
        col_row_vector_in_src1=False,
        # npu/a5 Int64RowExpand: one interleaved vsts of two 64-lane b32 registers per row
        row_expand_b64_max_cols=64,
    ),
    elementwise=S.ElementwiseRules(
        bitwise=S.Bitwise.DIRECT,
        tsubs_negates_through_float=False,  # a5 TSUBS negates in T
        division_via_dup=False,  # a5 TDIVS divides (the doc's reciprocal claim is not the code)
        axpy_pairs=AXPY_PAIRS,
        math_vector_sequence=True,  # TPRELU: the a2a3 model (choice, vector_isa.md 3.23)
        pow_float32_registers=True,  # npu/a5/TPow.hpp (integers: the a2a3 squaring's values)
        remainder=S.Remainder.VF_REGISTERS,  # npu/a5 TFMod(S).hpp, TRem(S).hpp, TFmodRemHp.hpp
        math_tmp_checked=False,
        partial_one_source_full=True,  # choice: the NPU shape rule of a2a3 (no a5 TPART body)
        # vaxpy rounds once: the a5 taxpy folder's golden is float64 dst + src*s rounded once, and
        # its half cases with cancellation fail its own tolerance with a rounded product
        axpy_fused=True,
        # npu/a5 Int64Div: the quotient is selected to 0 where the divisor is 0
        int64_zero_divisor_gives_zero=True,
        # npu/a5 Int64Binary.hpp: Int64ShiftRegs ands the count's low word with 63
        int64_shift_count_mod_64=True,
        partial_copy_then_op=False,  # one vector function, predicated stores
    ),
    reduce=S.ReduceRules(
        row_pairs=ROW_PAIRS,
        col_pairs=COL_PAIRS,
        row_arg_index=ROW_ARG_INDEX,
        col_arg_index=COL_ARG_INDEX,
        part_arg_index=PART_ARG_INDEX,
        part_arg_select=S.PartArgSelect.SRC1_IF_BETTER,  # a5/TPartArgBinOps.hpp: vcmp_gt/lt
        arg_compare=S.ArgCompare.VECTOR_COMPARE,  # npu/a5/TRowReduceIdx.hpp, TColReduceIdx.hpp
        row_order=S.RowReduceOrder.CHUNK_LANE_TREE,  # vector_isa.md 3.5 (a5)
        col_order=S.ColReduceOrder.PAIRWISE,  # vector_isa.md 3.17 (a5)
        tmp_required=False,  # tmp is accepted and ignored
    ),
    convert=S.ConvertRules(
        rounding=S.ConvertRounding.VCVT_MODE,
        pairs=CONVERT_PAIRS,
        saturation=S.Saturation.PAIR_DEFAULT,
        narrowing_sat_off=NARROWING_SAT_OFF,
        tmp_two_step_pairs=frozenset(),  # tmp is ignored
        saturate_narrowing_floats=True,  # sat ON clamps to +-max finite
        ctrl_register=True,
        iterates_src_valid=False,  # dst's valid shape
        distinct_when_resizing=False,
        same_float_to_integral=True,  # npu/a5 TCvt.hpp: FP32 -> FP32 is vtrc with the mode
        packed_whole_bytes=True,  # npu/a5 castBf16toFp4: zero-fill, then whole bytes
    ),
    compare=S.CompareRules(
        mask_writer=S.MaskWriter.PREDICATE_STORES,  # vector_isa.md 3.19 (a5)
        mask_dtypes=(u8, u32),
        tcmps_mask_dtypes=(u8, u32),
        u8_mask_src_dtypes=None,
        int32_eq_only=False,
        tcmps_b16_as_half=False,
        # npu/a5 TCmps tile form: src1 is loaded once by a broadcast vlds of its element 0
        tcmps_tile_reads_first=True,
        tcmps_tolerance=None,
        select_bits=S.SelectBits.ROW_ALIGNED,
        select_same_tile_type=False,
        select_tmp_required=False,
        select_scalar_in_tmp=False,
    ),
    layout=S.LayoutRules(
        # npu/a5/TMrgSort.hpp: the a2a3 form (one vmrgsort4 repeated per 4-block group); a5 has
        # no PTO_ASSERT on blockLen % 64 or whole groups (it runs validCol / (4 blockLen) of
        # them): choice, ptosim keeps refusing those forms as on a2a3
        mrgsort_block_len_repeats=True,
        fillpad=S.FillPad.WHOLE_TILE,  # "VF with the same intent": the CPU result
        transpose_tmp=False,
        window=S.Window.STORAGE,
        extract_b16_copy=False,  # an exact copy (ND and NZ)
        reshape_same_kind=False,
        # npu/a5: fp4 columns counted in nibbles, byte offsets halved
        nibbles={fp4_e2m1: S.Nibbles.FLAT, fp4_e1m2: S.Nibbles.FLAT},
        gather_index_dtypes=(i16, u16, i32, u32),
        gather_bounds=S.GatherBounds.RAW_UB,  # choice: no bounds rule given (semantics.md 3.6)
        gather_offsets_in_tmp=False,
        quant_via_tcvt=False,  # choice: the formula (no a5 lowering in our sources)
        dequant_row_params=True,  # npu/a5 TDeQuant.hpp: a BRC_B32 load of [i * RowStride]
        tci_tmp_bytes=None,  # vci; tmp ignored
        # npu/a5 TQuant.hpp: ZeroPadSourceTile (16-bit sources), vmax reductions (a NaN wins),
        # the bf16 multiply of bf16 sources, vcvt to e4m3 (rounding keeps a zero's sign), a
        # one-row exponent tile written flat (TRESHAPE to 1D), bf16 bits in the max / scaling
        # tiles of 16-bit sources (the B16 exponent paths store uint16 patterns)
        mx_quant=S.MxQuantRules(
            fp8_sources=(f32, f16, bf16),
            fp4_sources=(f16, bf16),  # CheckTQuantMxTypes
            zeroes_src_pad=True,
            fp8_max_skips_nan=False,
            bf16_scaled_rounds=("MXFP8", "MXFP4_E2M1"),
            e4m3_keeps_zero_sign=True,
            exp_flat_one_row=True,
            side_tiles_bf16_bits=True,
            zeroes_fp4_dst=False,
            nz_exponent_form=False,
        ),
        histogram_idx_shape=True,  # npu/a5 THistogram.hpp THISTOGRAM_IMPL
        # npu/a5/TSort32.hpp, the 4-operand form: the a2a3 padded tail, the whole-row path
        # limited by the row's bytes
        sort32_tail_via_tmp=True,
        gather_mask_b64_row_pitch=True,  # npu/a5 Int64Rearrange.hpp, Int64GatherPattern
        gather_compare=True,  # npu/a5 TGather.hpp, TGATHER<..., CmpMode>: vcmp + vsqz
        gather_compare_squeeze=True,
        sort32_tmp_row_limit_unit=S.Sort32TmpLimit.BYTES,
        # npu/a5/TSort32.hpp: the tail pad loads one vector register (vlds) at the last block
        sort32_tail_load_bytes=256,
    ),  # the facts of reference/cube_isa.md for the 950 cube
    cube=S.CubeRules(
        onchip_cv_paths=True,  # UB <-> L1 between the cube core and its vector cores
        addressing=S.CubeAddressing.FRACTALS,
        left_blayout=BLayout.ColMajor,  # TileLeft is NZ on a5 (cube_isa.md 2.1)
        left_any_blayout=False,
        mad_pairs={i8: i32, f16: f32, bf16: f32, f32: f32, e4m3: f32, e5m2: f32, hif8: f32},
        mad_mixed_inputs=frozenset({(e4m3, e5m2), (e5m2, e4m3)}),  # a5 CheckMadValid
        # a5 CheckMadMxValid: fp8 x fp8 or fp4 x fp4 (either format each), float out
        mx_pairs={e4m3: f32, e5m2: f32, fp4_e2m1: f32, fp4_e1m2: f32},
        m1_as_16=False,  # gemvCtrl disables GEMV for TMATMUL (cube_isa.md 3.4)
        acc_input=S.AccInput.IN_PLACE,
        bias_order=S.BiasOrder.INITIAL_VALUE,
        static_shapes=False,
        mad_max=4095,
        tload_mat=frozenset({"ND2NZ", "DN2NZ", "ND2ND", "DN2DN", "NZ2NZ", "DN2ZN"}),
        fractal_checks=True,
        extract_bounds=S.ExtractBounds.STATIC,
        # a5/TMov.hpp: bfloat16 -> float too, and the 64-byte rule on dst's Cols*sizeof(dst)
        bias_pairs={i32: (i32,), f32: (f32,), f16: (f32,), bf16: (f32,)},
        bias_align_dst=True,
        acc_to_mat={f32: (f16, bf16, f32), i32: (i32,)},  # a5 CheckTMovAccValid
        acc_store={f32: (f32, f16, bf16), i32: (i32,)},
        # a5 GetScalarPreQuantModeGm / GetVectorPreQuantModeGm (cube_isa.md 3.5): float -> int8
        # / uint8 (QF322B8_PRE), half, bfloat16, fp8 e4m3, float, hifloat8; int32 -> int8 /
        # uint8 (REQ8), half (DEQF16), bfloat16 (QS322BF16_PRE); the same modes for the
        # quantised TMOV / TEXTRACT / TINSERT into L1 (a5 CheckTMovAccValid with quant)
        quant_pairs={f32: (i8, u8, f16, bf16, e4m3, f32, hif8), i32: (i8, u8, f16, bf16)},
        # a5 TMovCcToCb: nz2nd / nz2dn into ND / DN Mat tiles too (CheckTMovAccValid)
        acc_to_mat_forms=frozenset({"nz2nz", "nz2nd", "nz2dn"}),
        acc_extract_valid_rows=True,  # a5 TExtractAccToMat: dst.GetValidRow() rows
        # a5 CheckStaticAcc: ND, NZ and the convolution layouts (no DN)
        acc_store_layouts=frozenset({"ND", "NZ", "NHWC", "NCHW", "NCDHW"}),
        acc_store_nd_rows=None,
        mat_store=False,  # a5 TSTORE accepts only Vec and Acc sources (cube_isa.md 3.5)
        tf32_mantissa_bits=10,  # the a5 mode rounds to e8m10 (cube_isa.md 3.4)
        fifo_no_split_both_store=True,  # the a5 GM ring as a2a3 (not modelled yet)
        # ND2NZ / DN2ZN write whole 32-byte C0 blocks, the tail after dValue zero (the a5
        # tmatmul_mx kernels rely on it: "TLOAD pads to 32B alignment", their TFILLPAD only
        # when K is a C0 block or more short of the tile)
        nd2nz_zero_c0_tail=True,
    ),
)
