"""The fixpipe's quantisation registers and the ``FixpipeParams`` of a TPUSH from the cube
(reference/cube_isa.md 3.6; the library's a2a3 SetQuantScalar.hpp, SetQuantVector.hpp,
common/fixpipe.hpp and TPush.hpp).

``SET_QUANT_SCALAR<OutT>(scale)`` writes the scalar quant word (``set_quant_pre``) and
``SET_QUANT_VECTOR(fp)`` points the fixpipe at a Scaling tile (``set_fpc``); a TPUSH whose
``FixpipeParams`` name a quantisation mode reads them. ptosim keeps both registers per core in
program order: a push uses the values its core set last before it.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import dtype as as_dtype
from ...errors import KernelError
from ...program import current
from ...tensors import Tile, TileRef
from ..base import Arch, Instruction
from ..registry import instruction

# QuantMode_t of a FixpipeParams -> (the output dtype, where its quant word comes from). The
# output dtype is the library's FixpipeConsDType (common/fixpipe.hpp): half for F322F16,
# QF322F16_PRE, DEQF16, VDEQF16; bfloat16 for F322BF16, QF322BF16_PRE; int8 for QF322B8_PRE,
# REQ8 and their vector forms; the Acc's own type otherwise. None: no quant word (a cast).
QUANT_MODES: dict[str, tuple[str | None, str | None]] = {
    "NoQuant": (None, None),
    "F322F16": ("float16", None),
    "F322BF16": ("bfloat16", None),
    "QF322F16_PRE": ("float16", "scalar"),
    "QF322BF16_PRE": ("bfloat16", "scalar"),
    "DEQF16": ("float16", "scalar"),
    "VDEQF16": ("float16", "vector"),
    "QF322B8_PRE": ("int8", "scalar"),
    "REQ8": ("int8", "scalar"),
    "VQF322B8_PRE": ("int8", "vector"),
    "VREQ8": ("int8", "vector"),
}


def quant_word(scale: float, out_dtype) -> int:
    """The word ``SET_QUANT_SCALAR<OutT>(scale)`` writes: the float's bits widened from int32
    (sign-extended, as the library casts them), bit 46 set for an int8 output and cleared for
    uint8 (the other outputs keep it)."""
    bits = int(np.array(scale, np.float32).view(np.int32))
    word = bits & (1 << 64) - 1
    dt = as_dtype(out_dtype)
    if dt.size_bytes == 1:
        word = (word & ~(1 << 46)) | (int(dt.name == "int8") << 46)
    return word


class QuantRegisterCheck(Instruction):
    """The target rule of SET_QUANT_SCALAR / SET_QUANT_VECTOR, checked where the kernel writes
    them (they set the core's register state and record no instruction)."""

    def __init__(self, opcode: str):
        self.opcode = opcode

    def validate(self, arch: Arch) -> None:
        self.require_defined(arch)

    def execute(self, ctx) -> None:
        """No data effect (never recorded)."""


@instruction(family="cube", summary="set the fixpipe's scalar quant word (set_quant_pre)")
def SET_QUANT_SCALAR(scale: float, out_dtype) -> None:
    """``SET_QUANT_SCALAR<OutT>(scale)``: the quant word of the following TPUSH with a scalar
    quantisation mode (``quant_mode="DEQF16"`` ...) on this core."""
    current().validate(QuantRegisterCheck("SET_QUANT_SCALAR"))
    try:
        value = float(scale)
    except (TypeError, ValueError):
        raise KernelError(f"SET_QUANT_SCALAR scale must be a number, got {scale!r}") from None
    current().fixpipe_quant_pre = quant_word(value, out_dtype)


@instruction(family="cube", summary="point the fixpipe's vector quantisation at a Scaling tile")
def SET_QUANT_VECTOR(fp: Tile) -> None:
    """``SET_QUANT_VECTOR(fp)``: the Scaling tile (one quant word per column) of the following
    TPUSH with a vector quantisation mode (``quant_mode="VDEQF16"`` ...) on this core."""
    current().validate(QuantRegisterCheck("SET_QUANT_VECTOR"))
    if not isinstance(fp, Tile):
        raise KernelError(f"SET_QUANT_VECTOR needs a Scaling tile, got {type(fp).__name__}")
    current().fixpipe_fpc = fp


def push_quant(quant_mode: str, acc: TileRef):
    """(output dtype name, ``quant`` operand of the fixpipe TSTORE) of a TPUSH's mode."""
    if quant_mode not in QUANT_MODES:
        raise KernelError(
            f"TPUSH quant_mode {quant_mode!r}: ptosim models the FixpipeParams modes "
            f"{', '.join(QUANT_MODES)}"
        )
    out, source = QUANT_MODES[quant_mode]
    rec = current()
    if source == "scalar":
        word = getattr(rec, "fixpipe_quant_pre", None)
        if word is None:
            raise KernelError(
                f"TPUSH with quant_mode {quant_mode}: no SET_QUANT_SCALAR before it on this core"
            )
        return out, word
    if source == "vector":
        fp = getattr(rec, "fixpipe_fpc", None)
        if fp is None:
            raise KernelError(
                f"TPUSH with quant_mode {quant_mode}: no SET_QUANT_VECTOR before it on this core"
            )
        return out, fp
    return out or acc.dtype.name, None
