"""Independent references for element-wise instructions (Python integers wrapped to T, float32
arithmetic rounded once to T) and the vector-event helpers of their timing tests."""

import numpy as np

import ptosim as pto

DEV = {"cpu": "cpu", "a2a3": "a2", "a5": "950pr"}


TARGETS = tuple(DEV)


def bs_of(dt):
    return 32 // pto.dtypes.dtype(dt).size_bytes


def npdt(dt):
    return pto.dtypes.dtype(dt).np


def is_int(dt):
    return pto.dtypes.dtype(dt).is_int


# -- independent references ------------------------------------------------------------------
def wrap(values, dt):
    """Python ints wrapped to dt (two's complement)."""
    bits = 8 * np.dtype(npdt(dt)).itemsize
    signed = pto.dtypes.dtype(dt).kind == "int"
    out = []
    for v in np.asarray(values, dtype=object).ravel():
        v = int(v) % (1 << bits)
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=object).reshape(np.shape(values)).astype(npdt(dt))


def int_ref(op, x, y):
    """C++ integer semantics on Python ints (before the store's truncation)."""
    x, y = int(x), int(y)
    if op == "DIV":
        q = abs(x) // abs(y)
        return q if (x < 0) == (y < 0) else -q
    return {
        "ADD": lambda: x + y,
        "SUB": lambda: x - y,
        "MUL": lambda: x * y,
        "MAX": lambda: max(x, y),
        "MIN": lambda: min(x, y),
        "AND": lambda: x & y,
        "OR": lambda: x | y,
        "XOR": lambda: x ^ y,
        "SHL": lambda: x << y,
        "SHR": lambda: x >> y,
    }[op]()


def reference(op, dt, a, b):
    """``a OP b`` in T: ints exact then wrapped; floats in float32, rounded once to T."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    if op in ("AND", "OR", "XOR") and not is_int(dt):  # on the bit patterns (Python ints)
        bits = np.dtype(f"u{np.dtype(npdt(dt)).itemsize}")
        x = np.ascontiguousarray(a, dtype=npdt(dt)).view(bits).ravel().tolist()
        y = np.ascontiguousarray(b, dtype=npdt(dt)).view(bits).ravel().tolist()
        vals = [int_ref(op, p, q) for p, q in zip(x, y)]
        return np.array(vals, dtype=bits).reshape(a.shape).view(npdt(dt))
    if is_int(dt):
        vals = [int_ref(op, x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist())]
        return wrap(np.array(vals, dtype=object).reshape(a.shape), dt)
    x, y = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        r = {
            "ADD": x + y,
            "SUB": x - y,
            "MUL": x * y,
            "DIV": x / y,
            "MAX": np.maximum(x, y),
            "MIN": np.minimum(x, y),
        }[op]
        return r.astype(npdt(dt))


def rand(rng, dt, shape, *, role="a", op="ADD"):
    """Random operands: full range integers (shift counts in range, non-zero divisors)."""
    if is_int(dt):
        info = np.iinfo(npdt(dt))
        if role == "b" and op in ("SHL", "SHR"):
            width = 64 if info.bits == 64 else 32
            return rng.integers(0, width, size=shape).astype(npdt(dt))
        v = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=npdt(dt))
        if role == "b" and op == "DIV":
            v[v == 0] = 1
        return v
    v = rng.uniform(-8, 8, size=shape)
    if role == "b" and op == "DIV":
        v = np.where(np.abs(v) < 0.25, 0.5, v)
    return v.astype(npdt(dt))


# -- a2a3 timing: skeleton A --------------------------------------------------------------
def vector_events(run, opcode):
    return [e for e in run.trace.events if e.opcode == opcode and e.kind == "vector"]


def intrinsics(run, opcode):
    return [(e.args["intrinsic"], e.args["repeats"]) for e in vector_events(run, opcode)]
