"""The accumulation order of each target's row and column reductions (vector_isa.md 2.3, 3.5,
3.17, 4.1, 4.2): pure numpy, no instruction. The reductions are bit-exact per target, so every
function here reproduces one reference lowering operation by operation, each operation rounded
to its type (numpy's same-dtype float ops are correctly rounded for half, bfloat16 and float32:
they compute in float32 or wider, which has at least 2p+2 bits; integer ops wrap).

Conventions: a row function takes ``x`` of shape (R, C) in the source type and reduces axis 1;
a column function takes (R, C) and reduces axis 0. ``op`` is ``SUM``, ``PROD``, ``MAX`` or
``MIN``. MAX/MIN use ``maxmin`` under the target's rule (``Numerics.maxmin``): std::max/std::min
on cpu, IEEE maximum/minimum on the NPU (so the NPU max/min results do not depend on the order,
only the plans do). Which function reduces for a target is its ``ReduceRules.row_order`` /
``col_order`` (``sequential``: cpu; ``repeat tree``: a2a3; ``chunk lane tree`` / ``pairwise``:
a5).

The lane tree (``tree``), our choice for the "pairs of lanes added recursively" of ``vcadd`` /
``vcgadd`` (vector_isa.md 3.5: exact pairing uncertain): level by level, lane 2k is combined
with lane 2k+1 (the lower lane is the first operand); an odd last lane is carried unchanged to
the next level. Masked-off lanes take no part, which equals a full power-of-two tree whose
missing lanes are the identity.
"""

from __future__ import annotations

import numpy as np

from ... import dtypes as D
from ..maxmin import maxmin
from ..spec import MaxMin

OPS = ("SUM", "PROD", "MAX", "MIN")
REPEAT_BYTES = 256  # a2a3 repeat and a5 vector length (VL)
BLOCK_BYTES = 32
GROUP = 8  # vcgadd: one result per 32-byte block of float32 (8 elements)

# a2a3 special static shapes of float32 row reductions with a DN dst (vector_isa.md 3.5 step 1)
SPECIAL_SHAPES = ((64, 128), (32, 256), (16, 512), (8, 1024))


def combine(op: str, rule: MaxMin, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a op b`` elementwise in the arrays' (common) type: wrap for integers, one rounding
    for floats; MAX/MIN per ``maxmin`` under ``rule``."""
    if op in ("MAX", "MIN"):
        return maxmin(rule, op, a, b).astype(a.dtype, copy=False)
    with np.errstate(all="ignore"):
        return np.add(a, b) if op == "SUM" else np.multiply(a, b)


def tree(op: str, rule: MaxMin, x: np.ndarray) -> np.ndarray:
    """Reduce the last axis with the recursive adjacent-pair lane tree (module doc)."""
    while x.shape[-1] > 1:
        n = x.shape[-1]
        h = n // 2
        paired = combine(op, rule, x[..., 0 : 2 * h : 2], x[..., 1 : 2 * h : 2])
        x = np.concatenate([paired, x[..., 2 * h :]], axis=-1) if n % 2 else paired
    return x[..., 0]


def identity(op: str, dt: np.dtype):
    """The initial accumulator of a reduction in numpy type ``dt``."""
    if op == "SUM":
        return dt.type(0)
    if op == "PROD":
        return dt.type(1)
    if dt.kind == "f":
        return dt.type(-np.inf if op == "MAX" else np.inf)
    info = np.iinfo(dt)
    return dt.type(info.min if op == "MAX" else info.max)


def cpu_acc_type(dst: D.DType) -> np.dtype:
    """The CPU TROWSUM accumulator: float32 for a half/bfloat16 dst, else dst's type."""
    return np.dtype(np.float32) if dst in (D.half, D.bfloat16) else dst.np


# -- sequential (cpu) ---------------------------------------------------------------------------
def _sequential(
    op: str, rule: MaxMin, x: np.ndarray, acc_t: np.dtype, out_t: np.dtype
) -> np.ndarray:
    """Axis 1 of ``x`` left to right in ``acc_t``: SUM/PROD from 0/1; MAX/MIN from element 0,
    replaced only when strictly greater/less (std::max: a leading NaN sticks)."""
    R, C = x.shape
    v = x.astype(acc_t)
    if op in ("MAX", "MIN"):
        acc = v[:, 0].copy()
        for j in range(1, C):
            acc = maxmin(rule, op, acc, v[:, j]).astype(acc_t, copy=False)
    else:
        acc = np.full(R, identity(op, acc_t), dtype=acc_t)
        for j in range(C):
            acc = combine(op, rule, acc, v[:, j])
    return _cast(acc, out_t)


def _cast(values: np.ndarray, out_t: np.dtype) -> np.ndarray:
    """C++ conversion to the result type: RNE for floats, wrap for integers."""
    with np.errstate(all="ignore"):  # numpy int -> int casts wrap like C++
        return values.astype(out_t)


def sequential_row(op: str, rule: MaxMin, x: np.ndarray, dst: D.DType) -> np.ndarray:
    """cpu TROW<op>: sequential; SUM in ``cpu_acc_type`` then one rounding to dst; the others
    in dst's type (vector_isa.md 3.5 CPU semantics)."""
    acc_t = cpu_acc_type(dst) if op == "SUM" else dst.np
    return _sequential(op, rule, x, acc_t, dst.np)


def sequential_col(op: str, rule: MaxMin, x: np.ndarray, dst: D.DType) -> np.ndarray:
    """cpu TCOL<op>: rows in ascending order in dst's type (TCOLSUM does not widen)."""
    return _sequential(op, rule, x.T, dst.np, dst.np)


# -- repeat tree (a2a3) -------------------------------------------------------------------------
def a2a3_row_float(op: str, rule: MaxMin, x: np.ndarray, *, special: bool):
    """a2a3 TROWSUM/TROWMAX/TROWMIN on half/float32 (vector_isa.md 3.5), in T throughout.

    Returns (values, tmp) where ``tmp`` is the (R, W) block the lowering leaves at the start of
    each tmp row (None when tmp is not used or not modelled).
    """
    R, C = x.shape
    E = REPEAT_BYTES // x.dtype.itemsize
    if special:
        return _a2a3_groups(op, rule, x), None
    if C <= E:  # one vcadd per row over C lanes
        return tree(op, rule, x), None
    n, r = divmod(C, E)
    chunk = [x[:, k * E : (k + 1) * E] for k in range(n)]
    if op == "SUM":
        tmp = [combine(op, rule, chunk[2 * k], chunk[2 * k + 1]) for k in range(n // 2)]
        if n == 1:
            tmp = [chunk[0].copy()]
        if n % 2 and n > 1:
            tmp[0] = combine(op, rule, tmp[0], chunk[n - 1])
    else:
        tmp = [combine(op, rule, chunk[0], chunk[1]) if n >= 2 else chunk[0].copy()]
    if r:
        tmp[0] = tmp[0].copy()
        tmp[0][:, :r] = combine(op, rule, tmp[0][:, :r], x[:, n * E :])
    if op == "SUM":
        m = len(tmp)
        while m > 1:  # pairwise chunk tree; an odd leftover goes into the last kept chunk
            h = m // 2
            for k in range(h):
                tmp[k] = combine(op, rule, tmp[2 * k], tmp[2 * k + 1])
            if m % 2:
                tmp[h - 1] = combine(op, rule, tmp[h - 1], tmp[m - 1])
            m = h
    else:
        for k in range(2, n):
            tmp[0] = combine(op, rule, tmp[0], chunk[k])
    return tree(op, rule, tmp[0]), np.concatenate(tmp, axis=1)


def _a2a3_groups(op: str, rule: MaxMin, x: np.ndarray) -> np.ndarray:
    """The special static shapes: vcgadd (a lane tree per block of 8), then block-wise vadd
    levels combining adjacent blocks (2b, 2b+1) until one block per row is left, then a final
    vcgadd (our choice of pairing; the source only says "pairwise")."""
    R, C = x.shape
    g = tree(op, rule, x.reshape(R, C // GROUP, GROUP))  # (R, C/8)
    blocks = g.reshape(R, -1, GROUP)
    while blocks.shape[1] > 1:
        blocks = combine(op, rule, blocks[:, 0::2], blocks[:, 1::2])
    return tree(op, rule, blocks[:, 0])


def a2a3_row_blocks(op: str, rule: MaxMin, x: np.ndarray):
    """The a2a3 per-row block scheme (int16/int32 SUM/MAX/MIN, and TROWPROD for every dtype):
    B lanes start at the identity, each 32-byte block (the last one partial) is combined
    lane-wise in T, then the scalar unit combines lanes 0..B-1 in order, in T (wrapping), except
    a half product, whose lanes are multiplied in float32 and rounded once to half.

    Returns (values, lanes of the last row) -- the lanes stay in tmp[0:B].
    """
    R, C = x.shape
    t = x.dtype
    B = BLOCK_BYTES // t.itemsize
    lanes = np.full((R, B), identity(op, t), dtype=t)
    for b0 in range(0, C, B):
        w = min(B, C - b0)
        lanes[:, :w] = combine(op, rule, lanes[:, :w], x[:, b0 : b0 + w])
    acc_t = np.dtype(np.float32) if (op == "PROD" and t == np.float16) else t
    acc = lanes[:, 0].astype(acc_t)
    for k in range(1, B):
        acc = combine(op, rule, acc, lanes[:, k].astype(acc_t))
    return _cast(acc, t), lanes[-1]


def a2a3_col(op: str, rule: MaxMin, x: np.ndarray) -> np.ndarray:
    """a2a3 TCOL<op> sequential form: dst = row 0, then dst = dst op row i, i ascending, in T."""
    acc = x[0].copy()
    for i in range(1, x.shape[0]):
        acc = combine(op, rule, acc, x[i])
    return acc


def colsum_binary(rule: MaxMin, x: np.ndarray):
    """TCOLSUM with ``isBinary`` (a2a3 and a5): level 1 ``tmp[k] = x[2k] + x[2k+1]`` (an odd last
    row added into tmp[0]); then while cnt > 1: ``tmp[k] = tmp[2k] + tmp[2k+1]`` for
    k < cnt/2, an odd leftover added into tmp[0]. Returns (column sums, tmp rows or None)."""
    R = x.shape[0]
    if R == 1:
        return x[0].copy(), None
    tmp = [combine("SUM", rule, x[2 * k], x[2 * k + 1]) for k in range(R // 2)]
    if R % 2:
        tmp[0] = combine("SUM", rule, tmp[0], x[R - 1])
    cnt = R // 2
    while cnt > 1:
        h = cnt // 2
        for k in range(h):
            tmp[k] = combine("SUM", rule, tmp[2 * k], tmp[2 * k + 1])
        if cnt % 2:
            tmp[0] = combine("SUM", rule, tmp[0], tmp[cnt - 1])
        cnt = h
    return tmp[0], np.stack(tmp)


# -- chunk lane tree / pairwise (a5) ------------------------------------------------------------
def a5_row(op: str, rule: MaxMin, x: np.ndarray) -> np.ndarray:
    """a5 TROW<op>: per row, acc = identity; per 256-byte chunk (the last one masked) acc =
    acc op (lane tree of the chunk), in T; int16 SUM accumulates in int32 and wraps (equal to a
    wrapping sum)."""
    R, C = x.shape
    t = x.dtype
    vle = REPEAT_BYTES // t.itemsize
    acc_t = np.dtype(np.int32) if (op == "SUM" and t == np.int16) else t
    acc = np.full(R, identity(op, acc_t), dtype=acc_t)
    for c0 in range(0, C, vle):
        part = tree(op, rule, x[:, c0 : c0 + vle].astype(acc_t))
        acc = combine(op, rule, acc, part)
    return _cast(acc, t)


def a5_col(op: str, rule: MaxMin, x: np.ndarray) -> np.ndarray:
    """a5 TCOL<op>: acc = row 0; acc = acc op (row 2j+1 op row 2j+2); an odd last row alone."""
    R = x.shape[0]
    acc = x[0].copy()
    for j in range((R - 1) // 2):
        acc = combine(op, rule, acc, combine(op, rule, x[2 * j + 1], x[2 * j + 2]))
    if (R - 1) % 2:
        acc = combine(op, rule, acc, x[R - 1])
    return acc


# -- arg forms ----------------------------------------------------------------------------------
def _better(rule: MaxMin, op: str, v: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Whether ``v`` replaces ``best``. ``FIRST_OPERAND`` (cpu): strictly greater (less) -- the
    first extreme wins, NaN never replaces. ``IEEE_754_2019`` (NPU): the order of IEEE
    maximum/minimum -- a NaN beats a number and +0 > -0 (-0 < +0 for MIN) -- strictly, so the
    first extreme wins too."""
    gt = (v > best) if op == "MAX" else (v < best)
    if not isinstance(rule, MaxMin):
        raise TypeError(f"arg_scan: rule must be a MaxMin, got {rule!r}")
    if rule is MaxMin.FIRST_OPERAND or v.dtype.kind != "f":
        return gt
    nan = np.isnan(v) & ~np.isnan(best)
    zeros = (v == 0) & (best == 0)
    sign = (
        (np.signbit(best) & ~np.signbit(v)) if op == "MAX" else (~np.signbit(best) & np.signbit(v))
    )
    return gt | nan | (zeros & sign)


def arg_scan(rule: MaxMin, op: str, x: np.ndarray):
    """ARGMAX/ARGMIN along axis 1 of ``x``: (extreme values, first index of the extreme)."""
    best = x[:, 0].copy()
    idx = np.zeros(x.shape[0], dtype=np.int64)
    for j in range(1, x.shape[1]):
        upd = _better(rule, op, x[:, j], best)
        best = np.where(upd, x[:, j], best)
        idx = np.where(upd, j, idx)
    return best, idx


def a5_row_arg(rule: MaxMin, op: str, x: np.ndarray, chunk: int):
    """The a5 TROWARG<MAX|MIN> (npu/a5/TRowReduceIdx.hpp): per chunk of ``chunk`` columns the
    first extreme (vcmax/vcmin, ``arg_scan`` under ``rule``), then the running pair, started at
    (the identity, 0), takes a chunk's pair only when its value is strictly greater (smaller):
    (values, indices)."""
    R, C = x.shape
    if x.dtype.kind == "f":
        identity = -np.inf if op == "MAX" else np.inf
    else:
        info = np.iinfo(x.dtype)
        identity = info.min if op == "MAX" else info.max
    best = np.full(R, identity, dtype=x.dtype)
    idx = np.zeros(R, dtype=np.int64)
    for c0 in range(0, C, chunk):
        vals, at = arg_scan(rule, op, x[:, c0 : c0 + chunk])
        upd = (vals > best) if op == "MAX" else (vals < best)  # vcmp: NaN compares false
        best = np.where(upd, vals, best)
        idx = np.where(upd, c0 + at, idx)
    return best, idx
