"""Argument checks shared by the public API: integers, shapes and output paths.

Every public function checks its arguments here so that a wrong type or value raises a coded
``KernelError`` naming the argument, instead of a TypeError/ValueError from numpy or a silent
truncation (``int(3.5) == 3``).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from .errors import KernelError

INT64_MAX = 2**63 - 1


def is_int(value) -> bool:
    """True for Python and numpy integers; False for bool, floats and everything else."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def as_int(value, what: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a Python int in ``[lo, hi]``.

    Raises:
        KernelError: not an integer (floats, bools and None included) or out of range.
    """
    if not is_int(value):
        raise KernelError(f"{what} must be an integer, got {value!r} ({type(value).__name__})")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        bounds = [f">= {lo}"] * (lo is not None) + [f"<= {hi}"] * (hi is not None)
        raise KernelError(f"{what} must be {' and '.join(bounds)}, got {v}")
    return v


def as_shape(
    value, what: str, *, max_dims: int | None = None, counts: bool = True
) -> tuple[int, ...]:
    """An int or a sequence of ints >= 0 whose product fits int64 (``counts``; strides are
    not counts: their product means nothing), as a tuple.

    Raises:
        KernelError: not integers, negative, too many dimensions, or the count overflows int64.
    """
    if is_int(value):
        dims = (value,)
    elif isinstance(value, (tuple, list)) or (isinstance(value, np.ndarray) and value.ndim == 1):
        dims = tuple(value)
    else:
        raise KernelError(
            f"{what} must be an integer or a sequence of integers, got {value!r} "
            f"({type(value).__name__})"
        )
    if max_dims is not None and not 1 <= len(dims) <= max_dims:
        raise KernelError(f"{what} must have 1 to {max_dims} entries, got {len(dims)}")
    out = tuple(as_int(d, f"{what} entry", lo=0) for d in dims)
    if counts and math.prod(out) > INT64_MAX:
        raise KernelError(f"{what} {out} holds more than 2**63-1 elements")
    return out


def check_output_path(path, what: str) -> Path:
    """A file path a writer may create or overwrite: a str or os.PathLike, never an integer
    file descriptor, whose directory exists and which is not itself a directory.

    Raises:
        KernelError: any other value or an unusable path.
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise KernelError(
            f"{what}: the path must be a str or os.PathLike, got {path!r} ({type(path).__name__})"
        )
    p = Path(os.fspath(path))
    if not str(p).strip() or str(path) == "":
        raise KernelError(f"{what}: the path is empty")
    if p.is_dir():
        raise KernelError(f"{what}: {str(p)!r} is a directory; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise KernelError(f"{what}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise KernelError(f"{what}: {str(p)!r} is not writable")
    return p
