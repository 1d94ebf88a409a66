"""The cost entries each instruction's 950 lowering uses (for ``ptosim instructions -v``).

Keys: a vector-function op (priced by ``timing.vector.vf``; ``vf`` is the function's startup
and drain), ``copy_ubuf_to_ubuf``, ``mte2`` / ``mte3`` (the DMA engines), ``simt`` (the SIMT
model of MGATHER/MSCATTER), ``scalar`` and ``control``. Flags and barriers inside an
instruction are control costs, not listed. The main lowering path of each instruction; the
source kind of every key comes from the device config (ptosim/sources.py).
"""

from __future__ import annotations

from ..common import ROWEXPAND_INTRINSICS
from .elementwise import BINARY_INTRINSICS, SCALAR_INTRINSICS

_SYNC = ("SyncAll", "ffts_cross_core_sync", "pipe_barrier", "set_flag", "wait_flag",
         "wait_flag_dev", "set_intra_block", "wait_intra_block")  # fmt: skip
_LS = ("vf", "vlds", "vsts")
_L0 = ("load_cbuf_to_ca*", "load_cbuf_to_cb*")  # the cube core's L1 -> L0A / L0B (a2a3 plans)
_MATMULS = ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")
_MATH = (*_LS, "vdup", "vdiv", "vmul", "vsub", "vadd", "vcvt", "vtrc", "vfloor", "vcmps",
         "vsel", "vexp", "vln", "vabs", "vmuls", "vmod", "vmula", "vmins", "vneg",
         "vor")  # fmt: skip
# the MX forms of TQUANT (convert.plan_tquant_mx) and the ND -> ZZ TMOV (plan_tmov_nd_to_zz)
_MX_QUANT = ("vabs", "vmax", "vcmax", "vand", "vsub", "vsel")
_ZZ = ("vci", "vmuls", "vadd", "vgather2")
# the fixpipe's Acc -> Vec copy into a vector core's UB (targets/a5/cube.py plan_acc_to_vec)
_A2V = ("copy_matrix_cc_to_ub",)
_REDUCE = {"SUM": ("vcadd", "vadd"), "MAX": ("vcmax", "vmax"), "MIN": ("vcmin", "vmin"),
           "PROD": ("vmul",)}  # fmt: skip

USES: dict[str, tuple[str, ...]] = {
    "GetValue": ("scalar",),
    "SetValue": ("scalar",),
    "TASSIGN": ("control",),
    "TEXPANDS": ("vf", "vdup", "vsts"),
    "TLOAD": ("mte2",),
    "TSTORE": ("mte3", "copy_matrix_cc_to_gm"),
    "TMOV": (*_LS, *_L0, "copy_cbuf_to_bt", "copy_cbuf_to_fbuf", "copy_matrix_cc_to_cbuf")
    + (*_ZZ, *_A2V),
    **{name: ("control",) for name in _SYNC},
    # the raw UB <-> L1 copies between the cube core and its vector cores (targets/a5/cube.py)
    "copy_ubuf_to_cbuf": ("copy_ubuf_to_cbuf",),
    "copy_cbuf_to_ubuf": ("copy_cbuf_to_ubuf",),
    # the cube core (targets/a5/cube.py): the a2a3 cube model's entries, as estimates
    **{name: ("mad",) for name in _MATMULS},
    "TMATMUL_MX": ("mad_mx",),
    "TGEMV_MX": ("mad_mx",),
    # the cube <-> vector FIFO (targets/a5/cube.py, ptosim/isa/cube/fifo.py): on chip the
    # fixpipe into UB (Acc -> Vec) and UB -> L1 (Vec -> Mat); through GM the stores and loads
    # of the GM ring; and its flags (control)
    "TPUSH": ("control", *_A2V, "copy_ubuf_to_cbuf", "copy_matrix_cc_to_gm", "mte3"),
    "TPOP": ("control", "mte2"),
    "TALLOC": ("control",),
    "TFREE": ("control",),
    # the fixpipe's quant registers (a TPUSH's FixpipeParams): set at issue, no data moves
    "SET_QUANT_SCALAR": ("control",),
    "SET_QUANT_VECTOR": ("control",),
    "MGATHER": ("simt", "scalar"),
    "MSCATTER": ("simt", "scalar"),
    "TGATHER": (*_LS, "vgather2", "vsqz", "vci", "vcvt", "vcmp", "vstur", "vadd", "vstar")
    + ("sprsts",),
    "TGATHERB": (*_LS, "vgatherb"),
    "TSCATTER": (*_LS, "vdup", "vscatter", "vintlv", "vadd"),
    "TROWEXPAND": ("vf", "vbr", "vsts"),
    **{f"TROWEXPAND{op}": (*_LS, "vbr", "vdup", *i) for op, i in ROWEXPAND_INTRINSICS.items()},
    "TCOLEXPAND": _LS,
    **{f"TCOLEXPAND{op}": (*_LS, *i) for op, i in ROWEXPAND_INTRINSICS.items()},
    **{f"T{op}": (*_LS, i) for op, i in BINARY_INTRINSICS.items()},
    **{f"TPART{op}": (*_LS, BINARY_INTRINSICS[op]) for op in ("ADD", "MUL", "MAX", "MIN")},
    **{name: _MATH for name in ("TFMOD", "TREM", "TPOW", "TPRELU", "TFMODS", "TREMS", "TPOWS")},
    **{name: (*_LS, i, "vdup") for name, (i, _) in SCALAR_INTRINSICS.items()},
    "TAXPY": (*_LS, "vaxpy"),
    "TABS": (*_LS, "vabs"),
    "TEXP": (*_LS, "vexp"),
    "TLOG": (*_LS, "vln"),
    "TSQRT": (*_LS, "vsqrt"),
    "TRSQRT": (*_LS, "vsqrt", "vdiv", "vdup"),
    "TRELU": (*_LS, "vrelu"),
    "TNOT": (*_LS, "vnot"),
    "TNEG": (*_LS, "vmuls"),
    "TRECIP": (*_LS, "vdup", "vdiv"),
    **{f"TROW{op}": (*_LS, "vdup", *i) for op, i in _REDUCE.items()},
    **{f"TCOL{op}": (*_LS, *i[-1:]) for op, i in _REDUCE.items()},
    **{
        f"TROWARG{op}": (*_LS, "vdup", "vbr", i, "vintlv", "vadd", "vcmp", "vsel", "vadds")
        for op, i in (("MAX", "vcmax"), ("MIN", "vcmin"))
    },  # fmt: skip
    **{f"TCOLARG{op}": (*_LS, "vdup", "vadds", "vcmp", "vsel") for op in ("MAX", "MIN")},
    **{f"TPARTARG{op}": (*_LS, "vcmp", "vsel", "vmov") for op in ("MAX", "MIN")},
    "TCVT": (*_LS, "vcvt", "vbr"),
    "TQUANT": (*_LS, "vcvt", "vbr", "vmul", "vadd", *_MX_QUANT),
    "TDEQUANT": (*_LS, "vcvt", "vbr", "vmul", "vsub"),
    "TCI": ("vf", "vci", "vsts"),
    "TCMP": (*_LS, "vcmp", "psts"),
    "TCMPS": (*_LS, "vdup", "vcmps", "psts"),
    "TSEL": (*_LS, "plds", "vsel"),
    "TSELS": (*_LS, "plds", "vdup", "vsel"),
    "TEXTRACT": (*_LS, "copy_ubuf_to_ubuf", "scalar", *_L0, "copy_matrix_cc_to_cbuf", *_A2V),
    "TINSERT": (*_LS, "copy_ubuf_to_ubuf", "scalar", *_A2V, "copy_ubuf_to_cbuf"),
    "TFILLPAD": (*_LS, "vdup"),
    "TFILLPAD_EXPAND": (*_LS, "vdup"),
    "TFILLPAD_INPLACE": (*_LS, "vdup"),
    "TRESHAPE": ("control",),
    "TSUBVIEW": ("control",),
    "TTRANS": (*_LS, "vgather2"),
    "TTRI": ("vf", "vdup", "vsel", "vsts"),
    "TMRGSORT": (*_LS, "vmrgsort4"),
    "TSORT32": (*_LS, "vbitsort", "copy_ubuf_to_ubuf", "vdup"),
    "THISTOGRAM": (*_LS, "vdintlv", "vcmp_eq", "chistv2", "vcvt", "vadd"),
}
