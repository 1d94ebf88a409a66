"""TGATHER's compare form as the a5 vector functions run it (``gather_compare_squeeze``).

``npu/a5/TGather.hpp`` (TGather_cmp and its ten bodies), for src0's valid rows i < R and valid
columns C: one index register starts at ``offset + lane`` (64 int32 lanes) and grows by 64
after every 64-lane compare, never reset between rows, so the element at column j of row i
carries index ``offset + i * W + j`` with ``W`` the row's compared width: ``ceil(C / 64) * 64``
(``ceil(C / 128) * 128`` for 1-byte sources, two 64-lane halves per 128-byte load). Per row
``k`` is element i of k_value (flat). Each element is compared as a 32-bit lane:

- float32: ``vcvt`` to int32 rounding to nearest even, then compared **unsigned** with k
  (uint32); a NaN or a value beyond int32 is not published (ptosim: NaN 0, saturated: choice);
- int32 / uint32: the bits, unsigned, against k;
- half: widened to float32 and compared with ``float(int16(k))`` (k uint16), NaN false;
- int16 / uint16: the 16 bits zero-extended, unsigned, against k; uint16 always compares EQ
  (the library's dispatch sends every 2-byte source other than int16 / half to its EQ body);
- int8 / uint8: the 8 bits zero-extended, against ``uint32(float(int32(k)))`` (= k for a
  uint16 k); ptosim takes the natural lane order of the two 64-lane halves (what the golden of
  the library's own test shows).

GT or EQ (``vcmps_gt`` / ``vcmps_eq`` / ``vcmp_*``). The float32, int32 and uint32 bodies
predicate the last group at C; the others compare every lane of it, reading src0's row storage
past column C (the next row or whatever follows). The selected lanes' indices are squeezed
(``vsqz``) and stored packed from dst's row i start (``vstur``, row pitch dst Cols, packed rows
longer than Cols run on); the count of the row (``SPR_AR`` through ``sprsts``, taken here as an
element count: the unit is not published, the library's test does not read cdst) goes to cdst
element i. tmp is not used.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ..base import ExecContext

LANES = 64  # 32-bit lanes of one 256-byte vector register


def group_width(src: D.DType) -> int:
    """Columns one compare step of a row covers (a 1-byte source loads 128 per step)."""
    return 2 * LANES if src.size_bytes == 1 else LANES


def tail_predicated(src: D.DType) -> bool:
    """The float32 / int32 / uint32 bodies mask the last group at C; the others do not."""
    return src.size_bytes == 4


def _lanes(scores: np.ndarray, src: D.DType, k, cmp_mode: str) -> np.ndarray:
    """The compare's predicate over one row's lanes."""
    if src is D.float32:
        with np.errstate(invalid="ignore"):
            r = np.rint(np.nan_to_num(scores.astype(np.float64), nan=0.0))
        lhs = np.clip(r, -(2**31), 2**31 - 1).astype(np.int64) & 0xFFFFFFFF
        rhs = int(k) & 0xFFFFFFFF
    elif src is D.half:
        lhs = scores.astype(np.float32)
        rhs = np.float32(np.int16(np.uint16(int(k) & 0xFFFF)))
    else:
        lhs = scores.view(f"u{src.size_bytes}").astype(np.int64)
        rhs = int(k) & 0xFFFFFFFF
        if src.size_bytes == 1:
            rhs = int(np.float32(np.int32(np.uint32(rhs)))) & 0xFFFFFFFF
        if src is D.uint16:
            cmp_mode = "EQ"
    return lhs > rhs if cmp_mode == "GT" else lhs == rhs


def squeeze_gather(instr, ctx: ExecContext) -> None:
    """``TGatherCmp.execute`` on a5 (module docstring)."""
    d, s, k, c = instr.dst, instr.src0, instr.k_value, instr.cdst
    R, C = s.valid
    src = s.dtype
    step = group_width(src)
    width = -(-C // step) * step
    smem, dmem = ctx.memory_from(s), ctx.memory_from(d)
    kv = ctx.memory_from(k)[:R]
    counts = np.zeros(R, np.int64)
    for i in range(R):
        scores = smem[i * s.cols : i * s.cols + width]
        hit = _lanes(scores, src, kv[i], instr.cmp_mode)
        if tail_predicated(src):
            hit[C:] = False
        sel = np.flatnonzero(hit)
        index = (instr.offset + i * width + sel) & 0xFFFFFFFF
        dmem[i * d.cols : i * d.cols + sel.size] = index.astype(np.uint32).view(d.dtype.np)
        counts[i] = sel.size
    ctx.memory_from(c)[:R] = counts.astype(c.dtype.np)
