"""The kernel-facing cube instructions (TMATMUL, TMATMUL_ACC, TMATMUL_BIAS, TGEMV*, the 950's
TMATMUL_MX), and the routing of the shared data-movement names (TLOAD, TSTORE, TMOV, TEXTRACT,
TFILLPAD) to their cube forms when an operand is a cube tile."""

from __future__ import annotations

from ...argcheck import as_int
from ...enums import AccPhase, AtomicType, Pipe, ReluPreMode, TileType
from ...errors import KernelError
from ...program import current, emit
from ...tensors import GlobalTensor, Tile
from ..registry import instruction
from ..spec import TMovCopy
from ..sync import UNIT_FLAG_EVENT, UnitFlagSet, UnitFlagWait
from .acc2vec import AccToVec, AccToVecMode
from .common import gm_arg, tile_arg
from .fixpipe import AccStore, AccToMat
from .load import MatFillPad, MatLoad, byte_views, conversion_of
from .matmul import MatMul
from .move import MatToBias, MatToL0, MatToMat, MatToScaling
from .mx import MxMatMul, mx_scale_load, mx_scale_move


def _matmul(kind: str, gemv: bool, name: str, dst, a, b, c_in=None, bias=None,
            phase="Unspecified") -> None:  # fmt: skip
    unit = AccPhase.parse(phase, f"{name} phase")
    final = unit is AccPhase.Final
    rec = current()
    if unit is not AccPhase.Unspecified and kind != "acc" and getattr(rec, "l0c_released", False):
        # a unit-flag mad that starts an accumulation waits for the fixpipe to have read out
        # L0C (the unit flag's other direction): a FIX -> M handshake issued here posts once
        # every fixpipe copy issued before it is done
        rec.l0c_released = False
        _unit_flag(UnitFlagSet, Pipe.PIPE_FIX, Pipe.PIPE_M)
        _unit_flag(UnitFlagWait, Pipe.PIPE_FIX, Pipe.PIPE_M)
    emit(
        MatMul(
            kind, gemv, tile_arg(dst, f"{name} dst"), tile_arg(a, f"{name} a"),
            tile_arg(b, f"{name} b"),
            None if c_in is None else tile_arg(c_in, f"{name} c_in"),
            None if bias is None else tile_arg(bias, f"{name} bias"),
        )
    )  # fmt: skip
    if final:
        _unit_flag(UnitFlagSet)


def _unit_flag(kind, src=Pipe.PIPE_M, dst=Pipe.PIPE_FIX) -> None:
    """The unit flag between a mad with AccPhase::Final and a fixpipe copy with STPhase::Final
    (ptosim/isa/sync.py UNIT_FLAG_EVENT), or back from the copy to the next unit-flag mad."""
    emit(kind(src, dst, UNIT_FLAG_EVENT)).via = "unit flag"


def _fixpipe_phase(phase, what: str) -> None:
    """A fixpipe copy with STPhase Final (same values as AccPhase) waits for the unit flag of
    the mad with AccPhase::Final and releases L0C to the next unit-flag mad."""
    if AccPhase.parse(phase, what) is AccPhase.Final:
        _unit_flag(UnitFlagWait)
        current().l0c_released = True


def _acc_args(dst, c_in, a, b) -> tuple:
    """(c_in, a, b) of ``NAME(c_out, c_in, a, b)`` or of the 3-operand ``NAME(c, a, b)``, which
    accumulates into c itself."""
    if b is None:
        return dst, c_in, a
    return c_in, a, b


@instruction(family="cube", summary="C = A x B into an Acc tile (mad on PIPE_M)")
def TMATMUL(dst: Tile, a: Tile, b: Tile, *, phase="Unspecified") -> None:
    """``dst = a @ b`` over m = a validRow, k = a validCol, n = b validCol (L0A x L0B -> L0C)."""
    _matmul("plain", False, "TMATMUL", dst, a, b, phase=phase)


@instruction(family="cube", summary="C += A x B (in place on the NPU; cIn + A x B on cpu)")
def TMATMUL_ACC(dst: Tile, c_in: Tile, a: Tile, b: Tile | None = None, *,
                phase="Unspecified") -> None:  # fmt: skip
    """``TMATMUL_ACC(c, a, b)`` or ``TMATMUL_ACC(c_out, c_in, a, b)``: accumulate the product."""
    c_in, a, b = _acc_args(dst, c_in, a, b)
    _matmul("acc", False, "TMATMUL_ACC", dst, a, b, c_in, phase=phase)


@instruction(family="cube", summary="C = bias + A x B (bias: a Bias tile row)")
def TMATMUL_BIAS(dst: Tile, a: Tile, b: Tile, bias: Tile, *, phase="Unspecified") -> None:
    """``dst[i, j] = bias[j] + sum_k a[i, k] b[k, j]``."""
    _matmul("bias", False, "TMATMUL_BIAS", dst, a, b, bias=bias, phase=phase)


@instruction(family="cube", summary="c = a x B for one row (mad in GEMV mode)")
def TGEMV(dst: Tile, a: Tile, b: Tile, *, phase="Unspecified") -> None:
    """A one-row product: m = 1, k and n from ``b``'s valid shape."""
    _matmul("plain", True, "TGEMV", dst, a, b, phase=phase)


@instruction(family="cube", summary="c += a x B for one row")
def TGEMV_ACC(dst: Tile, c_in: Tile, a: Tile, b: Tile | None = None, *,
              phase="Unspecified") -> None:  # fmt: skip
    """``TGEMV_ACC(c, a, b)`` or ``TGEMV_ACC(c_out, c_in, a, b)``."""
    c_in, a, b = _acc_args(dst, c_in, a, b)
    _matmul("acc", True, "TGEMV_ACC", dst, a, b, c_in, phase=phase)


@instruction(family="cube", summary="c = bias + a x B for one row")
def TGEMV_BIAS(dst: Tile, a: Tile, b: Tile, bias: Tile, *, phase="Unspecified") -> None:
    """A one-row product started from the bias."""
    _matmul("bias", True, "TGEMV_BIAS", dst, a, b, bias=bias, phase=phase)


@instruction(family="cube", summary="C = (A x 2^sA) x (B x 2^sB): the 950 MX mad (fp8 / fp4)")
def TMATMUL_MX(dst: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile,
               bias: Tile | None = None, *, phase="Unspecified") -> None:  # fmt: skip
    """The MX product of ``a`` (Left, fp8 e4m3 / e5m2 or fp4 e2m1 / e1m2) and ``b`` (Right),
    every 32 elements along K scaled by one float8_e8m0 of ``a_scale`` (ScaleLeft) /
    ``b_scale`` (ScaleRight), summed exactly and rounded once to float32 (ptosim/isa/cube/mx.py).

    The library's three overloads: ``TMATMUL_MX(c, a, aScale, b, bScale)``; ``TMATMUL_MX(c,
    a, aScale, b, bScale, bias)`` (the sum starts at the Bias row); ``TMATMUL_MX(cOut, cIn, a,
    aScale, b, bScale)`` (accumulates into cOut's L0C, as TMATMUL_ACC: cIn is not read).
    ``phase``: the AccPhase (no effect on data)."""
    _matmul_mx("TMATMUL_MX", False, dst, a, a_scale, b, b_scale, bias, phase)


@instruction(family="cube", summary="c = (a x 2^sA) x (B x 2^sB), one row (MX mad, GEMV mode)")
def TGEMV_MX(dst: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile,
             bias: Tile | None = None, *, phase="Unspecified") -> None:  # fmt: skip
    """TMATMUL_MX's one-row form (m = 1, the mad in GEMV mode): ``a`` a one-row Left tile and
    ``a_scale`` a one-row ScaleLeft tile, both read as plain vectors (their first k elements /
    k / 32 scales), k = a validCol, n = b validCol; the same three overloads (plain, bias,
    ``TGEMV_MX(cOut, cIn, ...)`` accumulating in place) and the same arithmetic."""
    _matmul_mx("TGEMV_MX", True, dst, a, a_scale, b, b_scale, bias, phase)


def _matmul_mx(name: str, gemv: bool, dst, a, a_scale, b, b_scale, bias, phase) -> None:
    AccPhase.parse(phase, f"{name} phase")
    accumulate = isinstance(a, Tile) and a.ref().loc is TileType.Acc
    if accumulate:  # (cOut, cIn, a, aScale, b, bScale): shift the operands by one
        if bias is None:
            raise KernelError(f"{name}(cOut, cIn, a, aScale, b, bScale) needs all six operands")
        a, a_scale, b, b_scale = a_scale, b, b_scale, bias
        bias = None
    emit(
        MxMatMul(
            name, tile_arg(dst, f"{name} dst"), tile_arg(a, f"{name} a"),
            tile_arg(a_scale, f"{name} a_scale"), tile_arg(b, f"{name} b"),
            tile_arg(b_scale, f"{name} b_scale"), accumulate,
            None if bias is None else tile_arg(bias, f"{name} bias"), gemv,
        )
    )  # fmt: skip


# -- the cube forms of the shared names (called from isa/data.py and isa/vector/layout.py) -------
def cube_load(tile: Tile, gm: GlobalTensor) -> bool:
    """Emit the converting TLOAD into L1 and return True, or False for the other loads."""
    if mx_scale_load(tile, gm):
        return True
    if not isinstance(tile, Tile) or not isinstance(gm, GlobalTensor):
        return False
    t, g = tile.ref(), gm.ref()
    if conversion_of(t, g) is None:
        return False
    emit(MatLoad(*byte_views(t, g)))
    return True


def _quant(quant, what: str):
    """A fixpipe copy's quantisation operand: None, a preQuantScalar word (an int, the C++
    uint64) or a Scaling tile of one word per output column (the ``*_FP`` forms)."""
    if quant is None or isinstance(quant, Tile):
        return None if quant is None else quant.ref()
    return as_int(quant, f"{what} quant (a preQuantScalar word)", lo=0)


def cube_store(gm, tile, atomic, relu, quant=None, phase="Unspecified") -> bool:
    """Emit TSTORE from an Acc tile (the fixpipe) and return True, else False."""
    if not isinstance(tile, Tile) or tile.ref().loc is not TileType.Acc:
        return False
    _fixpipe_phase(phase, "TSTORE phase")
    emit(
        AccStore(
            gm_arg(gm, "TSTORE gm"), tile.ref(), AtomicType.parse(atomic, "TSTORE atomic"),
            ReluPreMode.parse(relu, "TSTORE relu"), _quant(quant, "TSTORE"),
        )
    )  # fmt: skip
    return True


def cube_move(opcode: str, dst, src, index_row=0, index_col=0, relu="NoRelu", quant=None,
              phase="Unspecified", acc_to_vec=None) -> bool:  # fmt: skip
    """Emit the cube form of TMOV / TEXTRACT / TINSERT and return True, or False for Vec -> Vec.
    ``acc_to_vec``: the AccToVecMode of an Acc -> Vec copy (950; default SingleModeVec0)."""
    if not isinstance(dst, Tile) or not isinstance(src, Tile):
        return False
    d, s = dst.ref(), src.ref()
    r = as_int(index_row, f"{opcode} index_row")
    c = as_int(index_col, f"{opcode} index_col")
    # cpu: a TMOV to or from a Vec tile, or from Acc into a tile the fixpipe does not write
    # (Acc -> Left / Right: the library's cpu MLA demo), is the plain element copy (data.TMov;
    # cpu/TMov.hpp copies element (r, c) whatever the tiles)
    plain = TileType.Vec in (d.loc, s.loc) or (
        s.loc is TileType.Acc and d.loc not in (TileType.Mat, TileType.Acc)
    )
    if opcode == "TMOV" and plain and _tmov_any_tiles():
        return False
    if s.loc is TileType.Acc:
        _fixpipe_phase(phase, f"{opcode} phase")
        relu_mode = ReluPreMode.parse(relu, f"{opcode} relu")
        if d.loc is TileType.Vec and _acc_to_vec_path():
            mode = AccToVecMode.parse(acc_to_vec or "SingleModeVec0", f"{opcode} acc_to_vec")
            emit(AccToVec(opcode, d, s, r, c, relu_mode, mode, _quant(quant, opcode)))
        else:
            emit(AccToMat(opcode, d, s, r, c, relu_mode, _quant(quant, opcode)))
    elif d.loc is TileType.Scaling and opcode == "TMOV":
        emit(MatToScaling(d, s))
    elif d.loc is TileType.Bias and opcode == "TMOV":
        emit(MatToBias(d, s))
    elif d.loc in (TileType.Left, TileType.Right):
        emit(MatToL0(opcode, d, s, r, c))
    elif opcode in ("TMOV", "TEXTRACT") and mx_scale_move(opcode, d, s, r, c):
        pass
    elif d.loc is TileType.Mat and s.loc is TileType.Mat:
        emit(MatToMat(opcode, d, s, r, c))
    else:
        return False
    return True


def _acc_to_vec_path() -> bool:
    """Whether the fixpipe reaches the vector cores' UBs on this target (950)."""
    return current().program.arch.spec.cube.onchip_cv_paths


def _tmov_any_tiles() -> bool:
    """Whether TMOV copies elements between any tiles on this target (cpu: host memory)."""
    return current().program.arch.spec.dma.tmov is TMovCopy.ANY_TILES


def cube_fillpad(dst, src) -> bool:
    """Emit TFILLPAD on a Mat tile and return True, else False."""
    if not isinstance(dst, Tile) or dst.ref().loc is not TileType.Mat:
        return False
    emit(MatFillPad(tile_arg(dst, "TFILLPAD dst"), tile_arg(src, "TFILLPAD src")))
    return True
