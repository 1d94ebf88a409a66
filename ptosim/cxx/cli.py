"""``ptosim run KERNEL.cpp --entry NAME --arg name=VALUE ...``: a C++ kernel as a run spec.

The spec has the interface of ptosim/kernelfile.py's KernelSpec (kernel, build_inputs,
run_options, check), so ``ptosim run`` runs it through the same path as a Python kernel file.

``--arg`` values, bound to the C++ parameters by name (or position: arg0, arg1 ...):

- ``path.npy``: the array (its dtype and shape);
- ``path.bin``: raw elements of the pointer parameter's element type (``float *x`` -> float32);
- ``SHAPE:DTYPE`` (``2x16x16:float32``): a zero buffer;
- a number, for an integer or floating parameter.

After the run, every buffer that came from a file and changed is written back to that file; zero
buffers are written to ``--out DIR`` as ``NAME.bin`` (or ``NAME.npy`` with ``--npy``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from ..dtypes import dtype as as_dtype
from ..errors import KernelError
from .kernel import load

CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++")


def is_cxx(path: str) -> bool:
    return path.lower().endswith(CXX_SUFFIXES)


class CxxRunSpec:
    """A C++ kernel with its arguments, for ``ptosim run``."""

    def __init__(
        self,
        file: str,
        entry: str | None,
        args: list[str],
        out_dir: str | None,
        compiler: str | None,
        block_dim: int | None,
        several: bool = False,
        cores: str | None = None,
    ):
        if not entry:
            raise KernelError(f"{file}: a C++ kernel file needs --entry NAME (the kernel function)")
        self.file = file
        self.program = load(file, compiler=compiler, cores=cores)
        self.kernel = self.program.entry(entry)
        self.raw_args = _parse_args(args)
        self.out_dir = out_dir
        self.block_dim = block_dim
        self.several = several
        self._sources: list[tuple[str, object, str | None, bytes | None]] = []

    def build_inputs(self, dev) -> tuple[tuple, dict]:
        params = self.kernel.parameters(
            dev.target, "cube" if self.kernel.cores == "cube" else "vec"
        )
        unknown = set(self.raw_args) - {p["name"] for p in params}
        if unknown:
            names = ", ".join(p["name"] for p in params)
            raise KernelError(
                f"--arg {sorted(unknown)[0]}: {self.kernel.name} has no such parameter "
                f"(parameters: {names})"
            )
        values, self._sources = [], []
        for p in params:
            if p["name"] not in self.raw_args:
                raise KernelError(f"{self.kernel.name}: missing --arg {p['name']}=... ({_kind(p)})")
            text = self.raw_args[p["name"]]
            if p["k"] == "ptr":
                buf, path = _buffer(dev, p, text)
                values.append(buf)
                self._sources.append((p["name"], buf, path, bytes(buf.data) if path else None))
            elif p["k"] == "int":
                values.append(_number(p, text, int))
            elif p["k"] == "float":
                values.append(_number(p, text, float))
            else:
                raise KernelError(
                    f"parameter {p['name']}: C++ type {p.get('type')} cannot be given "
                    "on the command line"
                )
        return tuple(values), {}

    def run_options(self) -> dict:
        return {} if self.block_dim is None else {"block_dim": self.block_dim}

    def check(self, dev, args, run) -> None:
        """Write the outputs back (there is no verdict for a C++ kernel run)."""
        for name, buf, path, before in self._sources:
            data = bytes(buf.data)
            if path is not None:
                if data == before:
                    continue
                target = _per_device(path, dev.name, self.several)
            elif self.out_dir is not None:
                os.makedirs(self.out_dir, exist_ok=True)
                target = _per_device(
                    os.path.join(self.out_dir, f"{name}.bin"), dev.name, self.several
                )
            else:
                print(f"{name}: zero buffer not saved (give --out DIR to save it)")
                continue
            if target.endswith(".npy"):
                np.save(target, buf.numpy())
            else:
                buf.typed().tofile(target)
            print(f"{name}: written to {target}")
        return None


def _per_device(path: str, device: str, several: bool) -> str:
    if not several:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}.{device}{ext}"


def _kind(p: dict) -> str:
    if p["k"] == "ptr":
        return f"a {p['dt']} buffer: path.bin, path.npy or SHAPE:DTYPE"
    return f"a {p['dt']} number"


def _parse_args(items) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise KernelError(f"--arg expects NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


_ZERO = re.compile(r"^(\d+(?:[x,]\d+)*):(\w+)$")


def _buffer(dev, p: dict, text: str):
    """(GM buffer, source file or None) for a pointer parameter."""
    m = _ZERO.match(text)
    if m and not os.path.exists(text):
        shape = tuple(int(s) for s in re.split(r"[x,]", m.group(1)))
        return dev.gm_zeros(shape, as_dtype(m.group(2))), None
    path = Path(text)
    if not path.is_file():
        raise KernelError(
            f"--arg {p['name']}={text}: no such file (or give SHAPE:DTYPE, e.g. 16x16:float32)"
        )
    if path.suffix == ".npy":
        return dev.gm_array(np.load(path)), str(path)
    if p["dt"] in ("unknown", "bool"):
        raise KernelError(
            f"--arg {p['name']}={text}: the parameter's element type is unknown; give a .npy file"
        )
    dt = as_dtype(p["dt"])
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size % dt.size_bytes:
        raise KernelError(
            f"--arg {p['name']}={text}: {raw.size} bytes is not a whole number of "
            f"{dt.name} elements"
        )
    return dev.gm_array(raw.view(dt.np), dtype=dt), str(path)


def _number(p: dict, text: str, kind):
    try:
        return kind(text) if kind is float else int(text, 0)
    except ValueError:
        raise KernelError(f"--arg {p['name']}={text}: expected {_kind(p)}") from None
