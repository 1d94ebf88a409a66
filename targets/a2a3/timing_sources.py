"""The cost entries each instruction's A2/A3 lowering uses (for ``ptosim instructions -v``).

Keys: an intrinsic name (priced by its vector class in ``timing.vector``), ``mte2`` / ``mte3``
(the DMA engines), ``scalar`` (the scalar unit's loops and loads) and ``control`` (issue,
flags, barriers). Flags, barriers and handshakes inside an instruction are control costs too
(the vendor cost model's 1 cycle) and not listed. The main lowering path of each instruction;
the source kind of every key comes from the device config (ptosim/sources.py).
tests/targets/test_timing_sources.py checks these against the steps real kernels produce.
"""

from __future__ import annotations

from ..common import ROWEXPAND_INTRINSICS
from .elementwise import BINARY_INTRINSICS, SCALAR_INTRINSICS

_SYNC = ("SyncAll", "ffts_cross_core_sync", "pipe_barrier", "set_flag", "wait_flag",
         "wait_flag_dev")  # fmt: skip
_COPY = "copy_ubuf_to_ubuf"
_L0 = ("load_cbuf_to_ca*", "load_cbuf_to_cb*")  # L1 -> L0A / L0B (with _transpose)
_MATMULS = ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")
_MATH = ("vector_dup", "vdiv", "vmul", "vsub", "vmuls", "vconv_f322f32f", "vconv_f322f32z",
         "vconv_f322s32r", "vconv_s322f32", "vadd", "vcmpvs_gt", "vcmpvs_lt", "vsel", "vexp",
         "vln", "vabs")  # fmt: skip
_REDUCE = {"SUM": ("vcadd", "vcgadd", "vadd"), "MAX": ("vcmax", "vcgmax", "vmax"),
           "MIN": ("vcmin", "vcgmin", "vmin"), "PROD": ("vmul",)}  # fmt: skip

USES: dict[str, tuple[str, ...]] = {
    "GetValue": ("scalar",),
    "SetValue": ("scalar",),
    "TASSIGN": ("control",),
    "TEXPANDS": ("vector_dup",),
    "TLOAD": ("mte2",),
    "TSTORE": ("mte3", "copy_matrix_cc_to_gm"),
    "TMOV": (_COPY, *_L0, "copy_cbuf_to_bt", "copy_cbuf_to_fbuf", "copy_matrix_cc_to_cbuf"),
    **{name: ("control",) for name in _SYNC},
    "MGATHER": ("scalar", "mte2", "mte3"),
    "MSCATTER": ("scalar", "mte2", "mte3"),
    "TGATHER": ("vgather", "vreducev2", "vector_dup", "vcopy", "vcmpvs_*", "vconv_*", "scalar"),
    "TGATHERB": ("vgatherb",),
    "TSCATTER": ("vector_dup", "vcopy", "scalar"),
    "TROWEXPAND": ("scalar", "vector_dup", "vbrcb"),
    **{f"TROWEXPAND{op}": ("vbrcb", *i) for op, i in ROWEXPAND_INTRINSICS.items()},
    "TCOLEXPAND": (_COPY,),
    **{f"TCOLEXPAND{op}": tuple(i) for op, i in ROWEXPAND_INTRINSICS.items()},
    **{f"T{op}": (i,) for op, i in BINARY_INTRINSICS.items() if op not in ("AND", "OR")},
    "TAND": ("vand", "vector_dup"),
    "TOR": ("vor", "vector_dup"),
    "TXOR": ("vand", "vor", "vnot"),
    "TSHL": ("scalar",),
    "TSHR": ("scalar",),
    **{f"TPART{op}": (BINARY_INTRINSICS[op], _COPY) for op in ("ADD", "MUL", "MAX", "MIN")},
    "TPARTARGMAX": ("vcmp_ge", "vsel", _COPY),
    "TPARTARGMIN": ("vcmp_le", "vsel", _COPY),
    **{name: _MATH for name in ("TFMOD", "TREM", "TPOW", "TPRELU", "TFMODS", "TREMS", "TPOWS")},
    **{name: (i,) for name, i in SCALAR_INTRINSICS.items()},
    "TDIVS": ("vector_dup", "vdiv", "vmuls", "scalar"),
    "TANDS": ("vector_dup", "vand"),
    "TORS": ("vector_dup", "vor"),
    "TXORS": ("vector_dup", "vand", "vor", "vnot"),
    "TAXPY": ("vaxpy",),
    "TABS": ("vabs",),
    "TEXP": ("vexp",),
    "TLOG": ("vln",),
    "TSQRT": ("vsqrt",),
    "TRSQRT": ("vrsqrt", "vsqrt", "vdiv", "vector_dup"),
    "TRELU": ("vrelu",),
    "TNOT": ("vnot",),
    "TNEG": ("vmuls",),
    "TRECIP": ("vector_dup", "vdiv", "scalar"),
    **{f"TROW{op}": (*i, _COPY) for op, i in _REDUCE.items()},
    **{f"TCOL{op}": (*_REDUCE[op][2:], _COPY) for op in _REDUCE},
    "TROWARGMAX": ("vcmax", "vreducev2", "vector_dup", "scalar"),
    "TROWARGMIN": ("vcmin", "vreducev2", "vector_dup", "scalar"),
    "TCOLARGMAX": ("vcmpv_gt", "vsel", "vmax", "vector_dup", _COPY),
    "TCOLARGMIN": ("vcmpv_lt", "vsel", "vmin", "vector_dup", _COPY),
    "TCVT": ("vconv_*",),
    "TQUANT": ("vconv_*", "vmuls", "vadds", "vbrcb", "vmul", "vadd", "vector_dup"),
    "TDEQUANT": ("vconv_*", "vmuls", "vadds", "vcgadd", "vand", "vector_dup"),
    "TCI": ("scalar",),
    "TCMP": ("vcmpv_*", "vector_dup"),
    "TCMPS": ("vcmpvs_*", "vector_dup"),
    "TSEL": ("vsel", "vnot", "vector_dup"),
    "TSELS": ("vsel", "vector_dup"),
    "TEXTRACT": (_COPY, "vcopy", "scalar", *_L0, "copy_matrix_cc_to_cbuf"),
    "TFILLPAD": ("vcopy", "vector_dup", "scalar", "create_cbuf_matrix"),
    "TFILLPAD_EXPAND": ("vcopy", "vector_dup", "scalar"),
    "TFILLPAD_INPLACE": ("vector_dup", "scalar"),
    "TRESHAPE": ("control",),
    "TSUBVIEW": ("control",),
    "TTRANS": ("scatter_vnchwconv_*", "vgather", _COPY, "scalar"),
    "TTRI": ("vector_dup",),
    "TMRGSORT": ("vmrgsort4",),
    "TSORT32": ("vbitsort", "vector_dup"),
    # the cube core (targets/a2a3/cube.py): the vendor cube cost model's entries
    **{name: ("mad",) for name in _MATMULS},
    # the cube <-> vector FIFO: the stores and loads it issues, and its flags (control)
    "TPUSH": ("control", "copy_matrix_cc_to_gm", "mte3"),
    "TPOP": ("control", "mte2"),
    "TALLOC": ("control",),
    "TFREE": ("control",),
    # the fixpipe's quant registers: set at issue, no data moves
    "SET_QUANT_SCALAR": ("control",),
    "SET_QUANT_VECTOR": ("control",),
}
