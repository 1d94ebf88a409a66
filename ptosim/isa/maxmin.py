"""Max / Min of two operands as each target computes them (TROWEXPANDMAX/MIN, MSCATTER Max/Min).

The target's spec says which rule it follows (``Numerics.maxmin``):
- ``MaxMin.FIRST_OPERAND`` (cpu): the CPU simulator uses ``std::max(a, b)`` / ``std::min(a, b)``,
  which return the *first* operand unless the comparison (``a < b`` / ``b < a``) is true. So
  ``max(1, NaN) = 1``, ``max(NaN, 1) = NaN``, ``max(+0, -0) = +0`` and ``max(-0, +0) = -0``
  (likewise for min).
- ``MaxMin.IEEE_754_2019`` (NPU: a2a3, a5): the kernels issue ``vmax`` / ``vmin`` (and atomicMax /
  atomicMin on a5); the reference does not say what they do with NaN or signed zeros (vector_isa.md
  2.3: uncertain). ptosim uses the IEEE 754-2019 ``maximum`` / ``minimum`` operations: a NaN operand
  gives NaN and -0 < +0. Chosen because it is the IEEE-defined result of a hardware max unit and it
  does not depend on the operand order, which on the NPU is an artefact (which operand the vector
  unit takes as "full", the landing order of atomics), so a result never hinges on it.
Integers compare exactly on every target.
"""

from __future__ import annotations

import numpy as np

from .spec import MaxMin


def _first_operand(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    take_b = (a < b) if op == "MAX" else (b < a)
    return np.where(take_b, b, a)


def _ieee(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.maximum(a, b) if op == "MAX" else np.minimum(a, b)  # NaN propagates
    if out.dtype.kind != "f":
        return out
    zeros = (a == 0) & (b == 0)
    if not zeros.any():
        return out
    # max: +0 unless both are -0; min: -0 if either is -0
    neg = (np.signbit(a) & np.signbit(b)) if op == "MAX" else (np.signbit(a) | np.signbit(b))
    signed_zero = np.where(neg, -0.0, 0.0).astype(out.dtype)
    return np.where(zeros, signed_zero, out)


def maxmin(rule: MaxMin, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``max(a, b)`` (op ``"MAX"``) or ``min(a, b)`` (``"MIN"``) elementwise under ``rule``;
    ``a`` is the first operand (src0 for TROWEXPAND*, the table value for MSCATTER)."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    if rule is MaxMin.FIRST_OPERAND:
        return _first_operand(op, a, b)
    if rule is MaxMin.IEEE_754_2019:
        return _ieee(op, a, b)
    raise TypeError(f"maxmin: rule must be a MaxMin, got {rule!r}")  # (a target name, say)
