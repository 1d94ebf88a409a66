"""The cpu target's behaviour: the PTO CPU simulator (``include/pto/cpu``), program order.

Every value is the CPU simulator's as the references describe it: semantics.md (sections 3.x,
the ``cpu/*.hpp`` paragraphs), vector_isa.md (the "CPU semantics" paragraphs; numerics 2.3) and
the decisions D1-D17 of docs/decisions.md where the reference leaves a choice.
"""

from __future__ import annotations

from ptosim.enums import BLayout, ScatterAtomicOp, ScatterConflict
from ptosim.isa import spec as S

from ..spec_common import (
    ALL,
    ARITH,
    COMMON_DTYPES,
    FLOATS,
    GATHER_NINE,
    INTS,
    NON_OPAQUE,
    SIZED_124,
    bf16,
    e4m3,
    e5m2,
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
    s4,
    u8,
    u16,
    u32,
    u64,
)

# -- tables -----------------------------------------------------------------------------------
# MGATHER/MSCATTER: the seeds' list plus fp8 (allowed when the simulator is built for AICore)
_GATHER = GATHER_NINE + (e4m3, e5m2)
# TROWEXPAND<OP> (semantics.md 3.4; seed 002): uint8 for MUL only, EXPDIF floats only
_ROWEXPAND = (f32, f16, i32, i16, u32, u16)
_PART = (i32, i16, f16, bf16, f32, i8, u8)  # cpu/TPartOp.hpp
_SAME = {d: (d,) for d in ARITH}
# reductions, src -> dst dtypes (vector_isa.md 3.5, 3.17): TROWSUM and TCOLSUM may widen
ROW_PAIRS = {
    "SUM": {f16: (f16, f32), bf16: (bf16, f32), f32: (f32,), i16: (i16, i32), i32: (i32,)},
    "MAX": _SAME,
    "MIN": _SAME,
    "PROD": _SAME,
}
COL_PAIRS = {
    "SUM": {f16: (f16, f32), bf16: (bf16, f32), f32: (f32,)},
    "MAX": {bf16: (bf16, f32), f16: (f16, f32), f32: (f32,), i8: (i8,), u8: (u8,)},
    "MIN": _SAME,
    "PROD": _SAME,
}
ARG_INDEX = {d: (i32, u32) for d in ARITH}  # TROWARG* / TCOLARG*: any source, 32-bit index
# TAXPY (vector_isa.md 3.4): (dst, src) of one type (the float32 += half form is common)
AXPY_PAIRS = ((f16, f16), (bf16, bf16), (f32, f32))

FIFO_OPS = ("TPUSH", "TPOP", "TALLOC", "TFREE")
_MATMULS = ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")

DTYPES: dict[str, tuple | None] = {
    **COMMON_DTYPES,
    # the simulator copies any element type (int4 one per byte, fp4 two per byte)
    "TLOAD": ALL + (s4, fp4_e2m1, fp4_e1m2),
    "TSTORE": ALL + (s4, fp4_e2m1, fp4_e1m2),
    **{name: COMMON_DTYPES[name] + (s4, fp4_e2m1, fp4_e1m2) for name in ("TASSIGN", "TRESHAPE")},
    "MGATHER": _GATHER,
    "MSCATTER": _GATHER,
    "TSCATTER": ALL,  # bit copies (cpu/TScatter.hpp needs an integral index only)
    "TGATHER": NON_OPAQUE,
    **expand_family(
        {op: _ROWEXPAND for op in ("ADD", "SUB", "DIV", "MAX", "MIN")}
        | {"MUL": _ROWEXPAND + (u8,), "EXPDIF": floats_only(_ROWEXPAND)}
    ),
    # element-wise (vector_isa.md 3.3, 3.4, 3.8): the types the C++ expression is written for
    **{f"T{op}": ARITH for op in ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN")},
    **{f"T{op}": INTS for op in ("AND", "OR", "XOR", "SHL", "SHR")},
    **{name: ARITH for name in ("TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS")},
    **{name: INTS for name in ("TANDS", "TORS", "TXORS", "TSHLS", "TSHRS")},
    "TLRELU": ARITH,  # cpu/ElementOp.h: src > 0 ? src : src * s for any arithmetic T
    "TAXPY": tuple(d for d, _ in AXPY_PAIRS),
    "TEXP": FLOATS,
    "TLOG": (i16, i32) + FLOATS,  # (T)std::log(double(x)): integers by the C cast
    "TSQRT": FLOATS,
    "TABS": (i8, i16, i32, f16, bf16, f32),
    "TNEG": (i8, i16, u16, i32, u32) + FLOATS,
    "TRELU": (i8, i16, i32) + FLOATS,
    "TNOT": INTS,
    "TRECIP": (i16, u16, i32, u32, i64, u64) + FLOATS,
    # cpu/ElementOp.h (vector_isa.md 3.23)
    **{name: INTS[:6] + FLOATS for name in ("TFMOD", "TFMODS", "TREM", "TREMS", "TPOW", "TPOWS")},
    "TPRELU": ARITH,  # cpu/ElementOp.h OP_PRELU: written for any arithmetic T
    **{f"TPART{op}": _PART for op in ("ADD", "MUL", "MAX", "MIN")},
    "TPARTARGMAX": _PART,
    "TPARTARGMIN": _PART,
    # reductions: the source types of the pair tables
    **{f"TROW{op}": S.pair_sources(ROW_PAIRS[op]) for op in ROW_PAIRS},
    **{f"TCOL{op}": S.pair_sources(COL_PAIRS[op]) for op in COL_PAIRS},
    **{name: S.pair_sources(ARG_INDEX) for name in ("TROWARGMAX", "TROWARGMIN")},
    **{name: S.pair_sources(ARG_INDEX) for name in ("TCOLARGMAX", "TCOLARGMIN")},
    # hifloat8 has no defined encoding; int4 and fp4 convert with the float-like types
    "TCVT": tuple(d for d in ALL if d is not hif8) + (s4, fp4_e2m1, fp4_e1m2),
    "TCI": NON_OPAQUE,
    # compare / select (vector_isa.md 3.19, 3.20)
    "TCMP": (i32, f16, f32, u32, u16, i16, u8, i8, bf16),
    "TCMPS": NON_OPAQUE,
    "TSEL": NON_OPAQUE,
    "TSELS": NON_OPAQUE,
    # layout (vector_isa.md 3.1, 3.9, 3.11, 3.13)
    "TTRANS": SIZED_124 + (hif8,),  # cpu/TTrans.hpp: a bit copy, element sizes checked only
    "TTRI": (i32, i16, u32, u16, f16, bf16, f32),
    "TEXTRACT": SIZED_124 + (i64, u64),
    "TINSERT": SIZED_124 + (i64, u64),
    # sort / other (vector_isa.md 3.16, 3.24)
    "TSORT32": (i32, i16, f16, bf16, f32),  # cpu/TSort32.hpp's static_assert
    "TMRGSORT": (f32, f16, u16),  # 8-byte records of 2 or 4 elements (cpu/TMrgSort.hpp)
    "THISTOGRAM": (u16, u32),
    # the cube (reference/cube_isa.md 3.4): the Left / Right element type
    **{name: (i8, f16, bf16, f32) for name in _MATMULS},
    "TMATMUL_MX": None,  # the MX mad is the 950's only
    "TGEMV_MX": None,
    # the cube <-> vector FIFO (cube_isa.md 3.8): the tiles its TSTORE / TLOAD move
    **{name: ALL for name in FIFO_OPS},
    "SET_QUANT_SCALAR": None,
    "SET_QUANT_VECTOR": None,
}

REFUSALS: dict[str, S.Refusal] = {
    name: S.Refusal("the quantised fixpipe is modelled on Atlas A2/A3 only")
    for name in ("SET_QUANT_SCALAR", "SET_QUANT_VECTOR")
}

NOTES = {"TSEL": "mask read as a continuous bit stream"}

SPEC = S.TargetSpec(
    name="cpu",
    devices=("cpu",),
    summary="reference semantics of the PTO CPU simulator, program order, no timing",
    timed=False,
    dtypes=DTYPES,
    refusals=REFUSALS,
    notes=NOTES,
    numerics=S.Numerics(
        maxmin=S.MaxMin.FIRST_OPERAND,  # std::max / std::min (maxmin.py)
        float_abs=S.FloatAbs.NEGATE_NEGATIVES,  # x < 0 ? -x : x (vector_isa.md 3.8)
        exp_half_in_float32=True,  # TEXP half is expf (vector_isa.md 2.3)
        rsqrt=S.Rsqrt.IN_DOUBLE,  # 1.0 / sqrt(double(x))
    ),
    vector=S.VectorRules(
        row_major_operands=False,  # addressed through the tile layout
        # the CPU code asserts row-major tiles for these (vector_isa.md 3.4)
        row_major_instructions=frozenset({"TADDS", "TMULS", "TDIVS", "TMAXS", "TLRELU"}),
        block_copies_write_padding=False,
    ),
    dma=S.DmaRules(
        transfer=S.DmaTransfer.EXACT_ELEMENTS,  # cpu/TLoad.hpp maps every (r, c) (D7, D8)
        gm_burst_pitch=S.GmBurstPitch.STRIDE,  # (no bursts)
        ub_burst_pitch=S.UbBurstPitch.TILE_DIM,  # (no bursts)
        burst_count_must_match=True,  # the simulator asserts both valid dims (D13)
        burst_length_must_match=True,
        store_valid_within_view=True,  # the reference asserts the view holds it
        burst_count_limit=None,
        atomic_add_dtypes=NON_OPAQUE,  # any arithmetic type, under a mutex (semantics.md 3.5)
        # cpu/TMov.hpp: SetElement(r, c, GetElement(r, c)) over src's valid region, whatever
        # the layouts and tile kinds (Vec -> Left / Right, Acc -> Vec ...; D16)
        tmov=S.TMovCopy.ANY_TILES,
        tmov_nd_to_fractal=False,  # any layouts are copied element by element (ANY_TILES)
        # its TLOAD assert (valid == the view) is compiled out in the Release build the library's
        # test runners make (tests/run_cpu.py); its tpow test loads 63x63 from a 64x64 view (D7)
        load_valid_within_view=True,
    ),
    indexed=S.IndexedRules(
        kernel=S.IndexedKernel.REFERENCE_LOOP,  # semantics.md 3.1.2, 3.2.2
        index_conversion=S.IndexConversion.SIZE_T,  # D2
        row_capacity=S.RowCapacity.ROWS_DIM,  # shape[3] (D3)
        row_pitch=S.RowPitch.STRIDE,  # stride[3] (D3)
        row_columns=S.RowColumns.STRIDE,  # k*stride[3] + c*stride[4]
        l1_staged=False,  # the UB semantics into L1; scratch ignored (semantics.md 3.1.3(e))
        scatter_conflict_default=ScatterConflict.Default,  # the last writer of the loop (D6)
        scatter_atomic_dtypes={
            op: _GATHER for op in (ScatterAtomicOp.Add, ScatterAtomicOp.Max, ScatterAtomicOp.Min)
        },  # fmt: skip
        conflict_last_with_atomic=False,  # the reference's static assert
    ),
    tscatter=S.TScatterRules(
        addressing=S.Addressing.TILE_LAYOUT,  # semantics.md 3.3.1
        zero_fills_dst=False,  # the reference test pre-zeroes with TEXPANDS
        index_dtypes=INTS,  # any integral index type
        index_size_pairs=None,
        duplicate_order=S.ScatterOrder.SEQUENTIAL,  # D6
        b64_max_index_cols=None,
        mask_dtypes=tuple(d for d in NON_OPAQUE if d.size_bytes in (2, 4)),  # 16/32-bit only
        mask_row_cursor=True,  # SCATTER_ROW's (sR, sC) cursor wraps at src Cols
    ),
    broadcast=S.BroadcastRules(
        row_broadcast=S.RowBroadcast.REFERENCE_FORMULA,  # semantics.md 3.4 (cpu formula)
        full_operand_tie=S.FullOperandTie.SRC0,
        hidden_scratch=None,
        col_row_vector_in_src1=True,  # vector_isa.md 3.18: src1 is the row vector
        row_expand_b64_max_cols=None,  # a loop over every column
    ),
    elementwise=S.ElementwiseRules(
        bitwise=S.Bitwise.DIRECT,
        tsubs_negates_through_float=False,
        division_via_dup=False,
        axpy_pairs=AXPY_PAIRS,
        math_vector_sequence=False,  # cpu/ElementOp.h in double
        remainder=S.Remainder.IN_DOUBLE,  # cpu/ElementOp.h: fmod / % in double or T
        math_tmp_checked=False,
        partial_one_source_full=False,  # any valid shapes (cpu/TPartOp.hpp)
        axpy_fused=False,  # the CPU simulator's volatile product, then the sum
        int64_zero_divisor_gives_zero=False,  # C++ division by zero is undefined
        int64_shift_count_mod_64=False,  # C++ shift by >= the width is undefined
        partial_copy_then_op=False,
    ),
    reduce=S.ReduceRules(
        row_pairs=ROW_PAIRS,
        col_pairs=COL_PAIRS,
        row_arg_index=ARG_INDEX,
        col_arg_index=ARG_INDEX,
        part_arg_index={d: (i32, u32) for d in _PART},  # cpu/TPartOp.hpp: 32-bit indices
        part_arg_select=S.PartArgSelect.SRC1_IF_BETTER,  # cpu/TPartOp.hpp: strict compare
        arg_compare=S.ArgCompare.MAXMIN_SCAN,
        row_order=S.RowReduceOrder.SEQUENTIAL,  # vector_isa.md 3.5 CPU semantics
        col_order=S.ColReduceOrder.SEQUENTIAL_IN_DST,
        tmp_required=False,  # tmp is ignored
    ),
    convert=S.ConvertRules(
        rounding=S.ConvertRounding.HOST_CAST,  # cpu/TCvt.hpp: C casts (vector_isa.md 3.7)
        pairs=None,
        saturation=S.Saturation.EXPLICIT_ONLY,  # default OFF for every pair
        narrowing_sat_off=frozenset(),
        tmp_two_step_pairs=frozenset(),
        saturate_narrowing_floats=False,
        ctrl_register=False,
        iterates_src_valid=True,  # cpu/TCvt.hpp iterates src's valid shape
        distinct_when_resizing=False,
        same_float_to_integral=False,  # a C cast
        # cpu/TCvt.hpp SafeLimits (e1m2's upper limit is 3.5 there, not the format's 1.75)
        packed_sat_limits={s4: (-8.0, 7.0), fp4_e2m1: (-6.0, 6.0), fp4_e1m2: (-4.0, 3.5)},
    ),
    compare=S.CompareRules(
        mask_writer=S.MaskWriter.REFERENCE_WORDS,  # vector_isa.md 3.19
        mask_dtypes=(u8, u32),
        tcmps_mask_dtypes=(u8,),
        u8_mask_src_dtypes=(i32, f16, f32),
        int32_eq_only=False,
        tcmps_b16_as_half=False,
        tcmps_tile_reads_first=False,
        tcmps_tolerance=1e-9,  # EQ/NE compare |a - b| with 1e-9 in double (vector_isa.md 4)
        select_bits=S.SelectBits.CONTINUOUS_STREAM,  # TSEL (vector_isa.md 3.20)
        select_same_tile_type=True,
        select_tmp_required=False,
        select_scalar_in_tmp=False,
    ),
    layout=S.LayoutRules(
        fillpad=S.FillPad.WHOLE_TILE,  # vector_isa.md 3.14
        transpose_tmp=False,
        window=S.Window.VALID_REGION,  # TEXTRACT/TINSERT assert the valid regions
        extract_b16_copy=False,
        reshape_same_kind=True,  # TRESHAPE keeps float / integral
        # int4b_t is a one-byte struct; fp4 elements k sit in nibble k % 2 of byte k // 2
        nibbles={s4: S.Nibbles.UNPACKED, fp4_e2m1: S.Nibbles.FLAT, fp4_e1m2: S.Nibbles.FLAT},
        gather_index_dtypes=(i32, u32),
        gather_bounds=S.GatherBounds.CHECKED,  # semantics.md 3.6: out of range gives 0
        gather_offsets_in_tmp=False,
        quant_via_tcvt=False,
        dequant_row_params=False,
        tci_tmp_bytes=None,
        # cpu/TQuant.hpp: a running std::max over float(|x|) (NaN skipped) for MXFP8, bf16
        # rounding of the scaled value for bf16 sources of MXFP4 only (ApplyE2M1ScaleForSource),
        # E4M3 by a nearest-code search (a negative value rounding to zero gives 0x00), exp at
        # its (row, group) element, dst zeroed first for MXFP4 (InitMxOutput)
        mx_quant=S.MxQuantRules(
            fp8_sources=(f32, f16, bf16),
            fp4_sources=(f32, f16, bf16),
            zeroes_src_pad=False,
            fp8_max_skips_nan=True,
            bf16_scaled_rounds=("MXFP4_E2M1",),
            e4m3_keeps_zero_sign=False,
            exp_flat_one_row=False,
            side_tiles_bf16_bits=False,
            zeroes_fp4_dst=True,
            nz_exponent_form=True,
        ),
        # cpu/TSort32.hpp: block b at dst column 2*32*b; 2-byte records take 4 columns, so a
        # later block overwrites half of the one before (tsort32.md gives 4*32*b for the NPUs)
        sort32_pitch=S.Sort32Pitch.TWICE_COLUMNS,
        sort32_partial_block=True,  # the last block sorts its min(32, C - 32*b) pairs
        mrgsort_block_len=True,  # cpu/TMrgSort.hpp: whole 4-block groups of dst's valid columns
    ),
    cube=S.CubeRules(
        addressing=S.CubeAddressing.LOGICAL,  # GetElement / SetElement (cube_isa.md 2.2)
        left_blayout=BLayout.ColMajor,  # the CPU build uses the a5 (NZ) TileLeft alias
        left_any_blayout=True,  # cpu/TMatmul.hpp accepts either Left fractal order
        mad_pairs={i8: i32, f16: f32, bf16: f32, f32: f32},  # cpu/TMatmul.hpp CheckMadValid
        m1_as_16=False,
        acc_input=S.AccInput.C_IN_PLUS_PRODUCT,  # cpu/TMatmul.hpp: cIn + acc
        bias_order=S.BiasOrder.ADDED_AFTER,  # the product, then AddToElement(bias)
        static_shapes=True,  # Left::Rows == Acc::Rows ... (static_assert)
        mad_max=4095,  # CheckDynamicMmad asserts
        tload_mat=frozenset({"any"}),  # element-wise through both layouts (cube_isa.md 3.1)
        fractal_checks=False,  # the CPU TEXTRACT copies elements, no fractal rules
        extract_bounds=S.ExtractBounds.VALID,  # cpu/TExtract.hpp assert
        bias_pairs={i32: (i32,), f32: (f32,), f16: (f32,)},  # as the NPU (no CPU check)
        bias_align_dst=False,  # no alignment rule (fractal_checks is off)
        acc_to_mat={f32: (f32, f16, bf16), i32: (i32,)},  # an implicit C++ conversion
        acc_store={f32: (f32, f16, bf16, i32), i32: (i32, f32, f16, bf16)},  # static_cast
        acc_store_layouts=frozenset({"ND", "NZ", "DN"}),  # MapTileIndicesToGlobalOffset
        acc_store_nd_rows=None,
        mat_store=True,
        tf32_mantissa_bits=None,  # SetMadTF32Mode is compiled for the cube only
        fifo_no_split_both_store=False,  # cpu/TPush.hpp: AIV1 is an inactive lane, no store
        # every tile's storage is host memory: its tests write Acc tiles through tile.data()
        # (the tassign system test); GetValue / SetValue static_assert a Vec tile
        raw_access_cube_tiles=True,
        shared_buffers=True,
        fp_forms_copy_unquantised=True,
    ),
)
