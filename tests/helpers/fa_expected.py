"""The library's common flash-attention kernel's output, computed with numpy in the kernel's own
order and rounding (independent of ptosim's instruction code), for the a2/a3 cube and vector
units as docs/decisions.md and the reference's documented lowerings describe them:

- each ``mad`` (TMATMUL / TMATMUL_ACC) sums the exact fp16 products in float64, starting from
  the float32 accumulator for TMATMUL_ACC, and rounds once to float32 (D18); the kernel's QK is
  one mad per 128-key sub-tile (k = head = 64 fits one L0 slice), its PV a TMATMUL then a
  TMATMUL_ACC over the two 128-key halves of a 256-key tile;
- the vector steps in float32, each correctly rounded, as the softmax and update macros issue
  them: row max, subtract, scale, exp (computed in double, rounded once), the row sum in the
  a2a3 TROWSUM order for a 256-column float row (chunk pairs 0+1 and 2+3 of 64 lanes, their
  sum, then an adjacent-pair lane tree: reference/vector_isa.md 3.5 and ptosim's documented
  choice of the lane pairing), P converted to half with CAST_ROUND (to nearest, ties away from
  zero), and the running update O * exp(m_old - m_new) + PV, O / sum at the last tile.
"""

from __future__ import annotations

import numpy as np

F32 = np.float32


def inv_sqrt(x: float) -> np.float32:
    """The kernel's constexpr 1 / sqrt(x): eight Newton steps in float32."""
    x = F32(x)
    guess = x
    for _ in range(8):
        guess = F32(F32(0.5) * F32(guess + F32(x / guess)))
    return F32(F32(1.0) / guess)


def mad(a: np.ndarray, b: np.ndarray, acc: np.ndarray | None = None) -> np.ndarray:
    """One mad: exact products of the half inputs summed in float64 (from acc), rounded once."""
    s = a.astype(np.float64) @ b.astype(np.float64)
    if acc is not None:
        s = s + acc.astype(np.float64)
    return s.astype(F32)


def lane_tree_sum(x: np.ndarray) -> np.ndarray:
    """Adjacent-pair tree over the last axis, each sum rounded to float32 (a power-of-two width)."""
    while x.shape[-1] > 1:
        x = (x[..., 0::2] + x[..., 1::2]).astype(F32)
    return x[..., 0]


def row_sum_256(p: np.ndarray) -> np.ndarray:
    """a2a3 TROWSUM of float32 rows of 256: (c0 + c1) + (c2 + c3) per lane, then the lane tree."""
    c = [p[:, 64 * i : 64 * (i + 1)] for i in range(4)]
    t = ((c[0] + c[1]).astype(F32) + (c[2] + c[3]).astype(F32)).astype(F32)
    return lane_tree_sum(t)


def to_half_round_away(x: np.ndarray) -> np.ndarray:
    """float32 -> half to nearest, ties away from zero (RoundMode::CAST_ROUND)."""
    x64 = x.astype(np.float64)
    h = x.astype(np.float16)  # to nearest, ties to even
    h64 = h.astype(np.float64)
    away = np.nextafter(h, np.copysign(np.float16(np.inf), h)).astype(np.float64)
    # a tie rounded toward zero: x lies exactly halfway between h and the next value away
    tie = (np.abs(h64) < np.abs(x64)) & (np.abs(x64 - h64) == np.abs(away - x64))
    return np.where(tie, away.astype(np.float16), h)


def expected_output(q, k, v, tile_s1: int = 256, cube_s1: int = 128) -> np.ndarray:
    """O of the kernel for one block of S0 query rows (q: S0 x head, k, v: S1 x head, half)."""
    head = q.shape[1]
    scale = inv_sqrt(head)
    gmax = gsum = o = None
    for t0 in range(0, k.shape[0], tile_s1):
        s = np.concatenate(
            [mad(q, k[c : c + cube_s1].T) for c in range(t0, t0 + tile_s1, cube_s1)], axis=1
        )
        if gmax is None:  # softmax_opt_fa_init_impl
            m = s.max(axis=1)
            p = np.exp(((s - m[:, None]).astype(F32) * scale).astype(F32).astype(np.float64))
            p = p.astype(F32)
            gmax, gsum, exp_max = m, row_sum_256(p), None
        else:  # softmax_opt_fa_not_init_impl
            m = np.maximum(s.max(axis=1), gmax)
            exp_max = (gmax - m).astype(F32)
            gmax = m
            p = np.exp(((s - m[:, None]).astype(F32) * scale).astype(F32).astype(np.float64))
            p = p.astype(F32)
            exp_max = np.exp((exp_max * scale).astype(F32).astype(np.float64)).astype(F32)
            gsum = ((exp_max * gsum).astype(F32) + row_sum_256(p)).astype(F32)
        p16 = to_half_round_away(p)
        pv = None
        for c in range(0, tile_s1, cube_s1):  # TMATMUL, then TMATMUL_ACC
            pv = mad(p16[:, c : c + cube_s1], v[t0 + c : t0 + c + cube_s1], pv)
        if o is None:
            o = pv
        else:  # pto_macro_fa_gu / _last
            o = ((o * exp_max[:, None]).astype(F32) + pv).astype(F32)
    return (o / gsum[:, None]).astype(F32)
