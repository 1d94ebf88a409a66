"""Row broadcast: TROWEXPAND and the binary family TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}.

Sources: seed 002 (TROWEXPANDMAX), reference/semantics.md 3.4, DESIGN.md D9 and D10.

Binary family, ``TROWEXPAND<OP>(dst, src0, src1[, tmp])`` with ``R, C = dst.valid``:

- Exactly one of src0/src1 has dst's valid shape: the *full* operand F (must be RowMajor); the
  other is the *expanded* operand E with ``E.valid_row == R``. When both have dst's valid shape
  cpu/a5 take src0 as F; a2a3 takes src0 iff ``src0.RowStride >= src1.RowStride`` (RowStride =
  Cols for RowMajor, 1 for ColMajor).
- Mode 1: E ColMajor with ``valid_col == 1`` -> one scalar per row. Mode 2: E RowMajor with
  ``valid_col == bs = 32/sizeof(T)`` -> ``E[i, j mod bs]``. The operand order is kept:
  ``dst = src0 OP src1`` with whichever operand is expanded broadcast (matters for SUB, DIV,
  EXPDIF). Only dst's valid region is written.

Addressing per target (the numbers are storage element offsets; the target's
``BroadcastRules.row_broadcast``):

- cpu (``REFERENCE_FORMULA``): ``dst(r, c) = op(src0(r, c % src0.validCol), src1(r, c %
  src1.validCol))`` through each tile's real layout (any layout, boxed tiles included).
- a2a3 (``VBRCB_BUFFER``) and a5 (``VECTOR_LOADS``) address plainly like the vector units:
  ``F[i*F.Cols + j]``, ``dst[i*dst.Cols + j]`` (RowStride arithmetic, also for a boxed RowMajor
  tile). Mode 2 (D9): E is read at row pitch bs whatever its Cols: ``E[i*bs + j % bs]``. Mode 1:
  a2a3 reads E as a packed vector ``E[i]`` (vbrcb); a5 reads ``E[i]`` (vlds BRC, 2-D loop) except on
  its flattened 1-D path -- taken when ``dst.Cols < 256/sizeof(T)`` and dst is contiguous (a static
  valid shape with ``ValidCol == Cols``, or ``Rows == 1``) -- which reads ``E[i*E.Cols]``
  (semantics.md 3.4: "reading E + i*E::Cols"). Both agree for the usual ``[R, 1]`` ColMajor E; a
  ColMajor E with Cols > 1 gets what the hardware gives.
- a2a3 mode 1 goes through a broadcast buffer (D10, ``VBRCB_BUFFER``): vbrcb writes ``ceil(n/8)*8``
  32-byte blocks (block k = ``E[start + k]`` repeated bs times) for chunks of n <= 240 rows (one
  chunk when R < 256), then the mode-2 op reads the blocks back. The buffer is the hidden UB scratch
  (``BroadcastRules.hidden_scratch``: ``[184 KiB, 192 KiB)`` on a2a3) for the 3-operand form -- a
  finding (F104 hidden-scratch) names every UB tile of the program overlapping that range -- or the
  tmp tile for the 4-operand form (which accepts mode 1 only). Only tmp's address is passed to the
  hardware: the blocks take ``ceil(R/8)*256`` bytes (7680 for R >= 256) from it whatever tmp's size
  (the vendor's own test passes a [16, 1] tmp), so a smaller tmp is accepted and the bytes past it
  are written; a live tile there is finding F204 (``stray_writes``), an operand of the same call
  F105. Each chunk writes its blocks, then reads its F rows and blocks, then writes its dst rows, so
  aliasing tiles see what the hardware sequence would give them. a5 and cpu accept and ignore tmp.

Arithmetic (choices): half/bfloat16/float32 compute in float32 and round to T once (correctly
rounded for ADD/SUB/MUL/DIV since float32 has >= 2p+2 bits for half and bfloat16); DIV is IEEE
division (the hardware's DIV precision template is not modelled); EXPDIF = exp(src0 - src1) with
the difference rounded to T first (the CPU subtracts in T, the NPU issues vsub then vexp), then
exp in double rounded once to T (``expdif``; float types only); MAX/MIN follow ``maxmin``: cpu
std::max/std::min (the first operand, src0, is kept unless the comparison is true), NPU IEEE
maximum/minimum (NaN propagates, -0 < +0). Integers: ADD/SUB/MUL wrap in T; DIV truncates toward
zero (INT_MIN / -1 wraps to INT_MIN); an integer division by zero raises ExecutionError naming
the instruction and the row, before anything is written.

Dtypes (rule ``dtype``, the target's ``TargetSpec.dtypes``): a2a3 int32/int16/half/float32; a5
int32/uint32/float32/int16/uint16/half/bfloat16/uint8/int8; cpu float32/half/int32/int16/uint32/
uint16, plus uint8 for MUL; EXPDIF float types only on every target.

TROWEXPAND(dst, src): ``dst[r, c] = src[r, 0]`` over dst's valid region on every target (the cpu
reference formula; a pure broadcast, so every target reads ``src(r, 0)`` through the tile
layout). Choices: dst must be a RowMajor Vec tile; src is a Vec tile of any layout (a ColMajor
``[R, 1]`` vector or a RowMajor tile whose column 0 is used) with ``valid_row == R`` and
``valid_col >= 1``; same dtype, any 1/2/4-byte numeric dtype on every target, plus int64/uint64
on a5, where a 64-bit dst is at most ``BroadcastRules.row_expand_b64_max_cols`` (64) valid columns
wide (its 64-bit path stores one register pair per row; a wider one is UnsupportedError).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import dtypes as D
from ..enums import Pipe, TileType
from ..errors import ExecutionError
from ..findings import HIDDEN_SCRATCH, TILE_OVERLAP
from ..program import emit
from ..tensors import TileRef
from .base import Arch, ExecContext, Instruction, check_algorithm
from .data import _tile
from .maxmin import maxmin
from .registry import instruction
from .spec import FullOperandTie, MaxMin, RowBroadcast

__all__ = [
    "TROWEXPAND",
    "TROWEXPANDADD",
    "TROWEXPANDDIV",
    "TROWEXPANDEXPDIF",
    "TROWEXPANDMAX",
    "TROWEXPANDMIN",
    "TROWEXPANDMUL",
    "TROWEXPANDSUB",
]

OPS = ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF")

REPEAT_BYTES = 256  # one vbrcb repeat: 8 rows -> 8 blocks of 32 bytes
CHUNK_ROWS = 240  # R >= 256: vbrcb runs 30 repeats (240 rows) per loop iteration
CHUNK_THRESHOLD = 256
VL_BYTES = 256  # VECTOR_LOADS: the vector length of the flattened 1-D path


@dataclass(frozen=True)
class StrayBytes:
    """UB/L1 bytes an instruction writes outside its operand tiles (``stray_writes``); shaped
    like a tile operand (name, loc, address, size_bytes) for the live-overlap check."""

    name: str
    loc: TileType
    address: int
    size_bytes: int


def tmp_bytes_needed(rows: int) -> int:
    """Bytes of broadcast buffer ``VBRCB_BUFFER`` mode 1 writes for ``rows`` valid rows."""
    if rows <= 0:
        return 0
    if rows >= CHUNK_THRESHOLD:
        return CHUNK_ROWS // 8 * REPEAT_BYTES
    return -(-rows // 8) * REPEAT_BYTES


def _row_stride(ref: TileRef) -> int:
    return ref.cols if ref.geom.is_row_major else 1


def _layout(ref: TileRef) -> str:
    return "RowMajor" if ref.geom.is_row_major else "ColMajor"


def expdif(dt: D.DType, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``exp(a - b)`` as the references compute it: the difference taken in T (one rounding to
    T: the CPU's ``src0 - src1`` in T, the NPU's ``vsub``), then exp evaluated in double and
    rounded once to T (the CPU's ``exp(double(d))``; the NPU's ``vexp`` accuracy is not public,
    so it is modelled as correctly rounded)."""
    with np.errstate(all="ignore"):
        d = (a.astype(np.float32) - b.astype(np.float32)).astype(dt.np)
        return np.exp(d.astype(np.float64)).astype(dt.np)


def compute(op: str, dt: D.DType, a: np.ndarray, b: np.ndarray, rule: MaxMin) -> np.ndarray:
    """``a OP b`` elementwise in element type ``dt`` (module docstring: rounding; ``maxmin``
    under the target's ``rule``: MAX/MIN with NaN and signed zeros).

    Integer DIV expects non-zero divisors (checked by the caller).
    """
    if op in ("MAX", "MIN"):
        return maxmin(rule, op, a.astype(dt.np), b.astype(dt.np)).astype(dt.np)
    if dt.is_float:
        if op == "EXPDIF":
            return expdif(dt, a, b)
        x = a.astype(np.float32)
        y = b.astype(np.float32)
        with np.errstate(all="ignore"):
            if op == "ADD":
                r = x + y
            elif op == "SUB":
                r = x - y
            elif op == "MUL":
                r = x * y
            else:  # DIV
                r = x / y
            return r.astype(dt.np)  # overflow to inf is the IEEE result, not an error
    x = a.astype(dt.np)
    y = b.astype(dt.np)
    if op == "DIV":
        xi, yi = x.astype(np.int64), y.astype(np.int64)
        q = np.abs(xi) // np.abs(yi)
        return np.where((xi < 0) != (yi < 0), -q, q).astype(dt.np)
    with np.errstate(all="ignore"):
        r = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply}[op](x, y)
    return r.astype(dt.np)


class TRowExpandBinary(Instruction):
    """TROWEXPAND<OP>(dst, src0, src1[, tmp]): row-broadcast binary op (opcode set per op)."""

    nominal_pipe = Pipe.PIPE_V
    reads = ("src0", "src1")
    writes = ("dst", "tmp")

    def __init__(
        self, op: str, dst: TileRef, src0: TileRef, src1: TileRef, tmp: TileRef | None = None
    ):
        if op not in OPS:
            raise ValueError(f"unknown TROWEXPAND binary op {op!r}")
        self.op = op
        self.opcode = f"TROWEXPAND{op}"
        self.dst, self.src0, self.src1, self.tmp = dst, src0, src1, tmp

    # -- roles -------------------------------------------------------------------------
    def roles(self, arch: Arch) -> tuple[str, str] | None:
        """(full operand name, expanded operand name), or None when neither matches dst."""
        d, s0, s1 = self.dst, self.src0, self.src1
        m0, m1 = s0.valid == d.valid, s1.valid == d.valid
        if m0 and m1:
            tie = arch.spec.broadcast.full_operand_tie
            if tie is FullOperandTie.LARGER_ROW_STRIDE and _row_stride(s0) < _row_stride(s1):
                return "src1", "src0"
            return "src0", "src1"
        if m0:
            return "src0", "src1"
        if m1:
            return "src1", "src0"
        return None

    def mode(self, arch: Arch) -> int:
        """1 (ColMajor scalar per row) or 2 (RowMajor 32-byte block per row)."""
        _, e = self.roles(arch)
        return 2 if getattr(self, e).geom.is_row_major else 1

    def one_d(self) -> bool:
        """The ``VECTOR_LOADS`` flattened 1-D loop (changes where mode 1 reads E)."""
        d = self.dst
        contiguous = (d.static_valid and d.valid_col == d.cols) or d.rows == 1
        return d.cols < VL_BYTES // d.dtype.size_bytes and contiguous

    # -- checks ------------------------------------------------------------------------
    def validate(self, arch: Arch) -> None:
        d, s0, s1 = self.dst, self.src0, self.src1
        for name in ("dst", "src0", "src1"):
            self.require_loc(name, getattr(self, name))
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src0", s0)
        self.require_same_dtype("dst", d, "src1", s1)
        self.require(
            d.geom.is_row_major,
            "dst",
            "dst-layout",
            "a RowMajor dst tile",
            f"{_layout(d)} ({d.geom.layout_name})",
        )
        roles = self.roles(arch)
        if roles is None:
            self.fail(
                "src0/src1",
                "full-operand",
                f"src0 or src1 with the valid shape of dst {d.valid_row}x{d.valid_col}",
                f"src0 {s0.valid_row}x{s0.valid_col}, src1 {s1.valid_row}x{s1.valid_col}",
                "the validShape of src0 or src1 should be equal to dst",
            )
        f_name, e_name = roles
        f, e = getattr(self, f_name), getattr(self, e_name)
        self.require(
            f.geom.is_row_major,
            f_name,
            "full-layout",
            "a RowMajor full-size operand",
            f"{_layout(f)} ({f.geom.layout_name})",
            f"{f_name} has dst's valid shape, so it is the full-size operand",
        )
        bs = d.dtype.c0
        if e.geom.is_row_major:
            self.require(
                e.valid_col == bs,
                e_name,
                "expanded-cols",
                f"valid_col == 32/sizeof({d.dtype.name}) = {bs} (mode 2: RowMajor "
                "expanded operand, one 32-byte block per row)",
                e.valid_col,
            )
        else:
            self.require(
                e.valid_col == 1,
                e_name,
                "expanded-cols",
                "valid_col == 1 (mode 1: ColMajor expanded operand, one scalar per row)",
                e.valid_col,
            )
        self.require(
            e.valid_row == d.valid_row,
            e_name,
            "expanded-rows",
            f"valid_row == dst valid_row {d.valid_row}",
            e.valid_row,
        )
        t = self.tmp
        if t is not None and arch.spec.broadcast.row_broadcast is RowBroadcast.VBRCB_BUFFER:
            self.require_loc("tmp", t)
            self.require(
                not e.geom.is_row_major,
                "tmp",
                "tmp-mode",
                f"mode 1 (a ColMajor {e_name} with valid_col 1) for the tmp overload",
                f"mode 2 ({e_name} is RowMajor)",
                "on a2a3 the tmp overload only supports mode 1",
            )

    def stray_writes(self, arch: Arch) -> tuple[StrayBytes, ...]:
        """UB bytes written outside the operand tiles, for the live-overlap check (F204): with
        ``VBRCB_BUFFER`` (a2a3) the 4-operand mode 1 vbrcb writes ``tmp_bytes_needed(R)`` bytes
        from the tmp tile's address whatever the tmp tile's size (only its address is passed),
        so the bytes past a smaller tmp tile are written too."""
        t = self.tmp
        vbrcb = arch.spec.broadcast.row_broadcast is RowBroadcast.VBRCB_BUFFER
        if not vbrcb or t is None or t.address is None or self.mode(arch) != 1:
            return ()
        extra = tmp_bytes_needed(self.dst.valid_row) - t.size_bytes
        if extra <= 0:
            return ()
        return (
            StrayBytes(
                f"the vbrcb blocks of {self.label} past tmp {t.name}",
                t.loc,
                t.address + t.size_bytes,
                extra,
            ),
        )

    # -- semantics ---------------------------------------------------------------------
    def _check_divisors(self, divisor: np.ndarray, rows: np.ndarray) -> None:
        if self.op != "DIV" or not self.dst.dtype.is_int:
            return
        zero = np.argwhere(divisor == 0)
        if zero.size:
            k = tuple(zero[0])
            raise ExecutionError(
                f"{self.label}{f' ({self.source})' if self.source else ''}: integer division "
                f"by zero in row {int(rows[k])}"
                f" (divisor src1, {int(np.count_nonzero(divisor == 0))} zero element(s)); "
                "nothing was written"
            )

    def _combine(self, ctx, f_name: str, full: np.ndarray, exp: np.ndarray, rows: np.ndarray):
        a, b = (full, exp) if f_name == "src0" else (exp, full)
        self._check_divisors(b, rows)
        return compute(self.op, self.dst.dtype, a, b, ctx.spec.numerics.maxmin)

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        R, C = d.valid
        how = ctx.spec.broadcast.row_broadcast
        if how is RowBroadcast.REFERENCE_FORMULA:
            self._execute_formula(ctx, R, C)
            return
        f_name, e_name = self.roles(ctx.arch)
        f, e = getattr(self, f_name), getattr(self, e_name)
        bs = d.dtype.c0
        if how is RowBroadcast.VBRCB_BUFFER and not e.geom.is_row_major:
            self._execute_vbrcb_mode1(ctx, f_name, f, e, R, C, bs)
            return
        if R == 0 or C == 0:
            return
        i = np.arange(R, dtype=np.int64)[:, None]
        j = np.arange(C, dtype=np.int64)[None, :]
        e_store = ctx.tile_storage(e)
        if e.geom.is_row_major:  # mode 2, pitch bs (D9)
            ev = e_store[i * bs + j % bs]
        else:  # VECTOR_LOADS mode 1
            pitch = e.cols if self.one_d() else 1
            ev = np.broadcast_to(e_store[i * pitch], (R, C))
        fv = ctx.tile_storage(f)[i * f.cols + j]
        out = self._combine(ctx, f_name, fv, ev, np.broadcast_to(i, (R, C)))
        ctx.tile_storage(d)[i * d.cols + j] = out

    def _execute_formula(self, ctx: ExecContext, R: int, C: int) -> None:
        if R == 0 or C == 0:
            return
        d, s0, s1 = self.dst, self.src0, self.src1
        r, c = d.geom.grid(R, C)
        a = ctx.tile_storage(s0)[s0.offsets(r, c % s0.valid_col)]
        b = ctx.tile_storage(s1)[s1.offsets(r, c % s1.valid_col)]
        self._check_divisors(b, r)
        out = compute(self.op, d.dtype, a, b, ctx.spec.numerics.maxmin)
        ctx.tile_storage(d)[d.offsets(r, c)] = out

    def _execute_vbrcb_mode1(self, ctx, f_name, f, e, R, C, bs) -> None:
        d, dt = self.dst, self.dst.dtype
        if R == 0:
            return
        # Check integer divisors on the inputs before any write (scratch or dst).
        # vbrcb reads whole repeats of 8 elements from e: at most R + 7 of them (or up to the
        # end of the memory); a shorter view than memory_from keeps the snapshot small
        mem = ctx.memory_of(e)
        e_vec = mem.typed(
            e.address, e.dtype, min(R + 7, (mem.size_bytes - e.address) // e.dtype.size_bytes)
        )
        if self.op == "DIV" and dt.is_int and C:
            i = np.arange(R, dtype=np.int64)[:, None]
            fv = ctx.tile_storage(f)[i * f.cols + np.arange(C)]
            ev = np.broadcast_to(e_vec[:R][:, None], (R, C))
            a, b = (fv, ev) if f_name == "src0" else (ev, fv)
            self._check_divisors(b, np.broadcast_to(i, (R, C)))
        if self.tmp is None:
            base, size = ctx.spec.broadcast.hidden_scratch
            self._scratch_finding(ctx, base, size, tmp_bytes_needed(R))
            buf = ctx.ub.typed(base, dt, size // dt.size_bytes, what=f"{self.label} hidden scratch")
        else:  # only tmp's address matters: the blocks may run past a smaller tmp tile
            t = self.tmp
            nbytes = max(t.size_bytes, tmp_bytes_needed(R))
            buf = ctx.memory_of(t).typed(
                t.address, dt, nbytes // dt.size_bytes, what=f"{self.label} tmp {t.name}"
            )
            self._tmp_operand_overlap(ctx, t.address + t.size_bytes, t.address + nbytes)
        chunk = CHUNK_ROWS if R >= CHUNK_THRESHOLD else R
        f_store, d_store = ctx.tile_storage(f), ctx.tile_storage(d)
        for start in range(0, R, chunk):
            n = min(chunk, R - start)
            blocks = -(-n // 8) * 8
            vals = e_vec[start : start + blocks]  # vbrcb reads whole repeats of 8 elements
            buf[: vals.size * bs] = np.repeat(vals, bs)
            if C == 0:
                continue
            i = np.arange(n, dtype=np.int64)[:, None]
            j = np.arange(C, dtype=np.int64)[None, :]
            ev = buf[i * bs + j % bs]
            fv = f_store[(start + i) * f.cols + j]
            out = self._combine(ctx, f_name, fv, ev, np.broadcast_to(start + i, (n, C)))
            d_store[(start + i) * d.cols + j] = out

    def _tmp_operand_overlap(self, ctx: ExecContext, lo: int, hi: int) -> None:
        """F105 when the blocks written past the tmp tile land on another operand of this
        instruction (vbrcb runs before the op reads its sources). Other live tiles: F204 via
        ``stray_writes``."""
        if hi <= lo:
            return
        hits = []
        for name in ("dst", "src0", "src1"):
            ref = getattr(self, name)
            a, b = ref.address, ref.address + ref.size_bytes
            if ref.loc is self.tmp.loc and a < hi and lo < b:
                hits.append(f"{name} {ref.name} [{a:#x}, {b:#x})")
        if hits:
            ctx.finding(
                TILE_OVERLAP,
                "tile-overlap",
                f"the vbrcb broadcast blocks run past tmp {self.tmp.name} into UB bytes "
                f"[{lo:#x}, {hi:#x}) (this call writes ceil(R/8)*256 = {hi - self.tmp.address} "
                f"bytes from tmp's address), which overlap {', '.join(hits)}; give tmp at least "
                "that many bytes or move the tiles apart",
            )

    def _scratch_finding(self, ctx: ExecContext, base: int, size: int, written: int) -> None:
        lo, hi = base, base + size
        hits = []
        for s in ctx.tiles:
            addr = s.placement.address
            if s.loc is not TileType.Vec or addr is None:
                continue
            end = addr + s.size_bytes
            if addr < hi and end > lo:
                clobbered = addr < lo + written
                hits.append(
                    f"{s.name} [{addr:#x}, {end:#x})"
                    + (" (overwritten by this call)" if clobbered else "")
                )
        if hits:
            _, e_name = self.roles(ctx.arch)
            ctx.finding(
                HIDDEN_SCRATCH,
                "hidden-scratch",
                f"3-operand mode 1 on {ctx.target} broadcasts {e_name} with vbrcb into the hidden "
                f"UB scratch [{lo:#x}, {hi:#x}) (TMP_UB_OFFSET = {lo // 1024} KiB; this call "
                f"writes [{lo:#x}, {lo + written:#x})), which overlaps tile(s) "
                f"{', '.join(hits)}; keep tiles below {lo // 1024} KiB or pass a tmp tile "
                f"({self.opcode}(dst, src0, src1, tmp))",
            )


class TRowExpand(Instruction):
    """TROWEXPAND(dst, src): ``dst[r, c] = src[r, 0]`` over dst's valid region."""

    opcode = "TROWEXPAND"
    nominal_pipe = Pipe.PIPE_V
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef):
        self.dst, self.src = dst, src

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_loc("dst", d)
        self.require_loc("src", s)
        self.require_element_dtype("dst", d, arch)
        self.require_same_dtype("dst", d, "src", s)
        self.require(
            d.geom.is_row_major,
            "dst",
            "dst-layout",
            "a RowMajor dst tile",
            f"{_layout(d)} ({d.geom.layout_name})",
        )
        self.require(
            s.valid_row == d.valid_row,
            "src",
            "src-rows",
            f"valid_row == dst valid_row {d.valid_row}",
            s.valid_row,
        )
        limit = arch.spec.broadcast.row_expand_b64_max_cols
        if limit is not None and d.dtype.size_bytes == 8 and d.valid_col > limit:
            self.unsupported(
                "dst",
                "b64-row-width",
                f"valid_col <= {limit} for a 64-bit dtype",
                d.valid_col,
                "the 64-bit TROWEXPAND stores one vector register pair per "
                f"row ({limit} elements); the columns past it would stay unwritten",
            )
        if d.valid_row and d.valid_col:
            self.require(
                s.valid_col >= 1,
                "src",
                "src-cols",
                "valid_col >= 1 (column 0 holds the per-row scalar)",
                s.valid_col,
            )

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        R, C = d.valid
        if R == 0 or C == 0:
            return
        r, c = d.geom.grid(R, C)
        values = ctx.tile_storage(s)[s.offsets(r, np.zeros_like(c))]
        ctx.tile_storage(d)[d.offsets(r, c)] = values


# -- the kernel-facing API ------------------------------------------------------------------
def _binary(op: str, dst, src0, src1, tmp) -> None:
    name = f"TROWEXPAND{op}"
    emit(
        TRowExpandBinary(
            op,
            _tile(dst, f"{name} dst"),
            _tile(src0, f"{name} src0"),
            _tile(src1, f"{name} src1"),
            None if tmp is None else _tile(tmp, f"{name} tmp"),
        )
    )


@instruction(
    family="row broadcast",
    summary="dst = max(src0, src1), one operand broadcast per row",
)
def TROWEXPANDMAX(dst, src0, src1, tmp=None) -> None:
    """``dst = max(src0, src1)`` with the expanded operand broadcast per row (see module doc)."""
    _binary("MAX", dst, src0, src1, tmp)


@instruction(
    family="row broadcast",
    summary="dst = min(src0, src1), one operand broadcast per row",
)
def TROWEXPANDMIN(dst, src0, src1, tmp=None) -> None:
    """``dst = min(src0, src1)`` with the expanded operand broadcast per row."""
    _binary("MIN", dst, src0, src1, tmp)


@instruction(
    family="row broadcast",
    summary="dst = src0 + src1, one operand broadcast per row",
)
def TROWEXPANDADD(dst, src0, src1, tmp=None) -> None:
    """``dst = src0 + src1`` with the expanded operand broadcast per row."""
    _binary("ADD", dst, src0, src1, tmp)


@instruction(
    family="row broadcast",
    summary="dst = src0 - src1, one operand broadcast per row",
)
def TROWEXPANDSUB(dst, src0, src1, tmp=None) -> None:
    """``dst = src0 - src1`` with the expanded operand broadcast per row."""
    _binary("SUB", dst, src0, src1, tmp)


@instruction(
    family="row broadcast",
    summary="dst = src0 * src1, one operand broadcast per row",
)
def TROWEXPANDMUL(dst, src0, src1, tmp=None) -> None:
    """``dst = src0 * src1`` with the expanded operand broadcast per row."""
    _binary("MUL", dst, src0, src1, tmp)


@instruction(
    family="row broadcast",
    summary="dst = src0 / src1, one operand broadcast per row",
)
def TROWEXPANDDIV(dst, src0, src1, tmp=None, *, algorithm="DEFAULT") -> None:
    """``dst = src0 / src1`` with the expanded operand broadcast per row; correctly rounded
    under either ``algorithm`` (the C++ DivAlgorithm).

    Raises:
        ExecutionError: (at run time) an integer division by zero.
    """
    check_algorithm("TROWEXPANDDIV", algorithm)
    _binary("DIV", dst, src0, src1, tmp)


@instruction(
    family="row broadcast",
    summary="dst = exp(src0 - src1), one operand broadcast per row",
)
def TROWEXPANDEXPDIF(dst, src0, src1, tmp=None) -> None:
    """``dst = exp(src0 - src1)`` with the expanded operand broadcast per row (float types)."""
    _binary("EXPDIF", dst, src0, src1, tmp)


@instruction(
    family="row broadcast",
    summary="dst[r, c] = src[r, 0]",
)
def TROWEXPAND(dst, src) -> None:
    """``dst[r, c] = src[r, 0]`` over dst's valid region."""
    emit(TRowExpand(_tile(dst, "TROWEXPAND dst"), _tile(src, "TROWEXPAND src")))
