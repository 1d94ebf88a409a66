"""A2 vector calibration cases: the hardware measurements V1-V34 and their vendor lowerings.

Each case is one instruction measured alone on an Atlas A2 NPU (operands already in UB), with
the sequence of vector intrinsics, barriers, handshakes and UB->UB copies that the reference
a2a3 library issues for it (the "vendor lowering"). The sequences are data written by hand from
that lowering (repeat counts, masks, element types), independent of ptosim's plans, so that

- ``targets/vector_fit.py`` fits the cost classes of ``configs/a2.toml`` to them
  (``benchmarks/fit_vector_costs.py`` prints the fit, its residuals and leave-one-out errors),
- the tests check that the configured model reproduces every case (``sequence_cycles``) and that
  the real plans reproduce the cases end to end.

V1-V19 are the reference notes' set 1b, V20-V34 their set 1c. The notes say the data come from
two measurement campaigns that disagree on some sequences (the older one reads lower by tens of
cycles: V21 against V5, V27 against V11); the fit is robust to that (docs/calibration.md).

The model of a sequence (docs/calibration.md): consecutive intrinsics pay their issue cost
``head + slope * repeats`` (the slope by element type; at least ``partial_floor`` in count mode
or under a partial mask, for the classes with a floor); the vector stream drains (``tail``, the
pipeline latency of the last call) before a ``pipe_barrier(PIPE_V)``, a V<->S handshake and at
the end of the instruction; a barrier costs ``barrier_cycles``; a copy_ubuf_to_ubuf costs its
issue plus one cycle per block.
"""

from __future__ import annotations

from dataclasses import dataclass

from .costs import UB_COPY, vector_cycles


# -- the sequence vocabulary ----------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One vector intrinsic: ``repeats`` repeats of ``dtype`` elements; ``mode`` norm (full
    mask), partial (a narrower lane mask) or count (count mode over ceil(N/E) repeats)."""

    op: str
    repeats: int
    mode: str = "norm"
    dtype: str = "float32"

    @property
    def partial(self) -> bool:
        return self.mode != "norm"


@dataclass(frozen=True)
class Copy:
    """One copy_ubuf_to_ubuf of ``blocks`` 32-byte blocks."""

    blocks: int


@dataclass(frozen=True)
class Barrier:
    """pipe_barrier(PIPE_V)."""


@dataclass(frozen=True)
class ScalarRead:
    """The library's V->S handshake, one scalar UB load, then the S->V handshake."""


@dataclass(frozen=True)
class Ctrl:
    """A control-register intrinsic (get_ctrl, set_ctrl): one issue, no data."""

    op: str


BARRIER = Barrier()
SCALAR_READ = ScalarRead()
# TCVT<NeedSetCtrl = true> (the default): read CTRL and set the saturation bit before the
# conversions, restore it after
_SAT_ON, _RESTORE = (Ctrl("get_ctrl"), Ctrl("set_ctrl")), (Ctrl("set_ctrl"),)


@dataclass(frozen=True)
class Case:
    name: str
    instruction: str
    what: str  # dtype, shape, addresses as measured
    lowering: str  # the vendor lowering in words
    sequence: tuple
    measured: int  # cycles on the Atlas A2
    vendor_model: int  # the vendor cost model's prediction, for comparison


def _rep(n: int, *items) -> tuple:
    return tuple(items) * n


def _tree(level_calls: list[int]) -> tuple:
    """Binary-tree levels of count-mode one-repeat vadds, each level closed by a barrier."""
    out: tuple = ()
    for n in level_calls:
        out += _rep(n, Call("vadd", 1, "count")) + (BARRIER,)
    return out


F16, I16, I32 = "half", "int16", "int32"

CASES: tuple[Case, ...] = (
    # -- set 1b ------------------------------------------------------------------------------
    Case("V1", "TMOV", "fp32 64x128 Vec->Vec, src 0x0, dst 0x20000",
         "one copy_ubuf_to_ubuf of 1024 blocks", (Copy(1024),), 1029, 55),
    Case("V2", "TMOV", "fp32 16x24, valid 15x23, src 0x0, dst 0x20000",
         "one copy_ubuf_to_ubuf per valid row (15 copies of 3 blocks)",
         _rep(15, Copy(3)), 120, 0),
    Case("V3", "TROWEXPAND", "fp32 64x64 dst, src 64x64, src 0x0, dst 0x8000",
         "count mode; per row a V->S handshake, a scalar read, an S->V handshake, vector_dup of "
         "64 elements", _rep(64, SCALAR_READ, Call("vector_dup", 1, "count")), 933, 1796),
    Case("V4", "TADD", "fp32 64x64, 0x0, 0x4000, 0x8000", "vadd, 64 repeats",
         (Call("vadd", 64),), 160, 152),
    Case("V5", "TSUB", "fp32 64x64, 0x0, 0x4000, 0x8000", "vsub, 64 repeats",
         (Call("vsub", 64),), 153, 152),
    Case("V6", "TMUL", "fp16 16x256, 0x0, 0x4000, 0x8000", "vmul, 32 repeats",
         (Call("vmul", 32, dtype=F16),), 96, 89),
    Case("V7", "TDIV", "fp32 64x64, 0x0, 0x4000, 0x8000", "vdiv, 64 repeats",
         (Call("vdiv", 64),), 288, 286),
    Case("V8", "TABS", "fp32 64x64, src 0x0, dst 0x8000", "vabs, 64 repeats",
         (Call("vabs", 64),), 68, 93),
    Case("V9", "TADDS", "fp32 32x64, scalar 0.0, src 0x0, dst 0x28000", "vadds, 32 repeats",
         (Call("vadds", 32),), 57, 63),
    Case("V10", "TMULS", "fp32 256x16, scalar 1.0, src 0x0, dst 0x28000",
         "16-lane mask, vmuls 255 repeats + 1 repeat (8-bit repeat field)",
         (Call("vmuls", 255, "partial"), Call("vmuls", 1, "partial")), 266, 284),
    Case("V11", "TMINS", "fp32 64x64, scalar 0.0, src 0x400, dst 0x8400", "vmins, 64 repeats",
         (Call("vmins", 64),), 87, 94),
    Case("V12", "TDIVS", "fp32 32x64, tile / scalar, not in place",
         "vector_dup of the scalar (32 repeats), pipe_barrier(V), vdiv (32 repeats)",
         (Call("vector_dup", 32), BARRIER, Call("vdiv", 32)), 205, 215),
    Case("V13", "TEXP", "fp16 64x64, src 0x0, dst 0x11000", "vexp, 32 repeats",
         (Call("vexp", 32, dtype=F16),), 95, 95),
    Case("V14", "TSQRT", "fp32 64x64, src 0x0, dst 0x20000", "vsqrt, 64 repeats",
         (Call("vsqrt", 64),), 160, 167),
    Case("V15", "TROWMAX", "fp32 64x64 src, tmp and dst 64x64, 0x0, 0x4000, 0x8000",
         "count-mode vcmax over 4096 elements, pipe_barrier",
         (Call("vcmax", 64, "count"), BARRIER), 480, 11),
    Case("V16", "TROWSUM", "fp16 64x128 src, tmp and dst, 0x0, 0x4000, 0x8000",
         "count-mode vcadd over 8192 elements, pipe_barrier",
         (Call("vcadd", 64, "count", F16), BARRIER), 495, 51),
    Case("V17", "TCOLMAX", "fp32 64x64, dst 64x64, src 0x0, dst 0x8000",
         "copy row 0 (8 blocks), barrier, then 63 x (count-mode vmax of one row + barrier)",
         (Copy(8), BARRIER) + _rep(63, Call("vmax", 1, "count"), BARRIER), 2589, 2589),
    Case("V18", "TCOLSUM", "fp32 64x64, binary tree, tmp 64x64 valid 32x64, dst 1x64",
         "count-mode vadds of 64 elements: 32 row pairs, then tree levels of 16, 8, 4, 2, 1, a "
         "barrier after each level, then a copy of tmp row 0 (8 blocks)",
         _tree([32, 16, 8, 4, 2, 1]) + (Copy(8),), 1263, 1188),
    Case("V19", "TCVT", "fp32 -> fp16 4x64, CAST_NONE, src 0x0, dst 0x8000",
         "get_ctrl, set_ctrl (saturation on), vconv_f322f16r one call of 1 repeat per row "
         "(4 calls), set_ctrl (restore)",
         _SAT_ON + _rep(4, Call("vconv_f322f16r", 1)) + _RESTORE, 33, 31),
    # -- set 1c: dynamic valid shapes equal to the tile (the general path of each lowering) --
    Case("V20", "TADD", "int32 64x64, 0x0, 0x4000, 0x8000",
         "whole rows valid: vadd, 64 repeats", (Call("vadd", 64, dtype=I32),), 151, 152),
    Case("V21", "TSUB", "half 16x256, 0x0, 0x4000, 0x8000",
         "whole rows valid: vsub, 32 repeats", (Call("vsub", 32, dtype=F16),), 68, 88),
    Case("V22", "TMUL", "float32 64x64, 0x0, 0x4000, 0x8000",
         "whole rows valid: vmul, 64 repeats", (Call("vmul", 64),), 168, 153),
    Case("V23", "TADDS", "half 63x64 scalar 1.5, src 0x0, dst 0x28000",
         "rows as repeats: vadds of 63 repeats under a 64-lane mask (half of 128)",
         (Call("vadds", 63, "partial", F16),), 69, 96),
    Case("V24", "TADDS", "int16 15x192 scalar 3, src 0x0, dst 0x28000",
         "rows as repeats: vadds of 15 repeats (128 lanes), then 15 repeats under a 64-lane mask",
         (Call("vadds", 15, dtype=I16), Call("vadds", 15, "partial", I16)), 40, 63),
    Case("V25", "TMULS", "int32 31x128 scalar 1, src 0x0, dst 0x28000",
         "rows as repeats: two vmuls of 31 repeats (one per 64-column chunk)",
         (Call("vmuls", 31, dtype=I32), Call("vmuls", 31, dtype=I32)), 70, 88),
    Case("V26", "TMINS", "int32 64x64 scalar 1, src 0x400, dst 0x8400",
         "rows as repeats: vmins of 64 repeats", (Call("vmins", 64, dtype=I32),), 68, 94),
    Case("V27", "TMINS", "half 64x64 scalar 0.0, src 0x400, dst 0x8400",
         "rows as repeats: vmins of 64 repeats under a 64-lane mask",
         (Call("vmins", 64, "partial", F16),), 55, 96),
    Case("V28", "TDIVS", "half 63x64 / 1.0, host buffers back to back from 0x0",
         "rows as repeats under a 64-lane mask: vector_dup of the scalar (63 repeats), "
         "pipe_barrier(V), vdiv (63 repeats)",
         (Call("vector_dup", 63, "partial", F16), BARRIER, Call("vdiv", 63, "partial", F16)),
         328, 388),
    Case("V29", "TABS", "half 16x256, src 0x0, dst 0x8000",
         "whole rows valid: vabs, 32 repeats", (Call("vabs", 32, dtype=F16),), 36, 61),
    Case("V30", "TEXP", "half 32x32, src 0x0, dst 0x11000",
         "whole rows valid: vexp, 8 repeats", (Call("vexp", 8, dtype=F16),), 47, 47),
    Case("V31", "TSQRT", "half 64x64, src 0x0, dst 0x20000",
         "whole rows valid: vsqrt, 32 repeats", (Call("vsqrt", 32, dtype=F16),), 160, 103),
    Case("V32", "TROWMAX", "half 64x128 src, tmp and dst, 0x0, 0x4000, 0x8000",
         "count-mode vcmax over 8192 elements, pipe_barrier",
         (Call("vcmax", 64, "count", F16), BARRIER), 481, 11),
    Case("V33", "TCOLMAX", "float32 1x3072, src 0x0, dst 0x8000",
         "one row: a single copy of the row (384 blocks)", (Copy(384),), 390, 21),
    Case("V34", "TCVT", "half -> float32 4x64, CAST_NONE, src 0x0, dst 0x8000",
         "get_ctrl, set_ctrl (saturation on), vconv_f162f32 one call of 1 repeat per row "
         "(4 calls), set_ctrl (restore)",
         _SAT_ON + _rep(4, Call("vconv_f162f32", 1, dtype=F16)) + _RESTORE, 33, 31),
)  # fmt: skip

CASE = {c.name: c for c in CASES}


# -- the model of a sequence ----------------------------------------------------------------
def drains(seq: tuple, k: int) -> bool:
    """The vector stream drains after item ``k`` unless another intrinsic follows it."""
    return k + 1 == len(seq) or not isinstance(seq[k + 1], Call)


def scalar_read_cycles(t) -> int:
    """Critical path of a ScalarRead between two vector calls, as the engine runs it: set_flag
    on V, wait_flag on S, the UB load, set_flag on S, PIPE_S issuing the wait_flag to V, the
    wait on V (PIPE_S issues the next call meanwhile)."""
    s = t.scalar
    return 4 * s.flag_cycles + s.ub_load_cycles + s.issue_cycles


def sequence_cycles(t, seq: tuple) -> int:
    """Cycles of a lowering sequence under the timing config ``t`` (integer per call, as the
    plans charge them)."""
    total = 0
    for k, item in enumerate(seq):
        if isinstance(item, Call):
            total += vector_cycles(
                t,
                item.op,
                item.repeats,
                last=drains(seq, k),
                partial=item.partial,
                dtype=item.dtype,
            )
        elif isinstance(item, Copy):
            total += vector_cycles(t, UB_COPY, item.blocks)
        elif isinstance(item, Barrier):
            total += t.scalar.barrier_cycles
        elif isinstance(item, Ctrl):
            total += vector_cycles(t, item.op, 0, last=False)
        else:
            total += scalar_read_cycles(t)
    return total
