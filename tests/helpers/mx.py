"""MX matmul operands for the cube tests, built by hand (tests/isa/cube/test_tmatmul_mx.py,
test_tgemv_mx.py): fp8 through ml_dtypes, fp4 from the OCP MX tables written out here (bit 3 the
sign, two fields per byte, the low nibble first), and the GM byte images of a scale matrix in
the MX scale layouts (the byte orders the library's tmatmul_mx gen_data writes):

- MX_A_ZZ: [M/16][K/64][16][2]; MX_A_ND: M x K/32 row by row; MX_A_DN: [K/64][M][2];
- MX_B_NN: [N/16][K/64][16 columns][2]; MX_B_ND: [K/64][N][2]; MX_B_DN: N x K/32 row by row.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

# 4-bit magnitudes (bit 3 the sign): E2M1 and E1M2 (the OCP MX formats)
FP4 = {
    "float4_e2m1": [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0],
    "float4_e1m2": [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75],
}
FP8 = {"float8_e4m3": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}


def mx_values(dt: str, shape, rng, fp8_choices) -> tuple[np.ndarray, np.ndarray]:
    """(GM bytes row-major, float64 values) of a ``dt`` operand: fp4 fields drawn at random and
    packed two per byte (low nibble first); fp8 values drawn from ``fp8_choices``."""
    if dt in FP4:
        f = rng.integers(0, 16, shape).astype(np.uint8)
        vals = np.where(f & 8, -1.0, 1.0) * np.array(FP4[dt])[f & 7]
        return (f[:, 0::2] | (f[:, 1::2] << 4)).astype(np.uint8), vals
    vals = rng.choice(fp8_choices, shape)
    return vals.astype(FP8[dt]).view(np.uint8), vals


def a_scale_image(s: np.ndarray, layout: str) -> np.ndarray:
    """GM bytes of A's M x K/32 scale matrix in ``layout``."""
    m, g = s.shape
    if layout == "MX_A_ZZ":
        return s.reshape(m // 16, 16, g // 2, 2).transpose(0, 2, 1, 3).reshape(-1)
    if layout == "MX_A_DN":
        return s.reshape(m, g // 2, 2).transpose(1, 0, 2).reshape(-1)
    return s.reshape(-1)  # MX_A_ND


def b_scale_image(s: np.ndarray, layout: str) -> np.ndarray:
    """GM bytes of B's K/32 x N scale matrix in ``layout``."""
    g, n = s.shape
    if layout == "MX_B_NN":
        return s.reshape(g // 2, 2, n // 16, 16).transpose(2, 0, 3, 1).reshape(-1)
    if layout == "MX_B_ND":
        return s.reshape(g // 2, 2, n).transpose(0, 2, 1).reshape(-1)
    return s.T.reshape(-1)  # MX_B_DN
