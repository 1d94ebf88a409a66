"""Loading kernel files for the command line.

A kernel file is a Python file that defines one or more ``@pto.kernel`` functions and says how
to build their inputs:

- ``inputs(dev)`` returns the kernel's positional arguments (a tuple or a list) or a dict with
  ``args`` and ``kwargs``; ``inputs_<kernel>(dev)`` takes precedence for that kernel.
- optional ``check(dev, args, run)`` (or ``check_<kernel>``) verifies the outputs: it returns
  False or raises AssertionError when they are wrong.
- optional ``RUN_OPTIONS = {"block_dim": 2, "dyn_ubuf_size": ...}`` (or ``RUN_OPTIONS_<kernel>``).

``FILE.py:name`` selects a kernel; without a name the file must define exactly one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import KernelError
from .program import Kernel


@dataclass
class KernelSpec:
    path: Path
    kernel: Kernel
    module: object

    def _hook(self, base: str):
        return getattr(self.module, f"{base}_{self.kernel.name}", None) or getattr(
            self.module, base, None
        )

    def build_inputs(self, dev, **params) -> tuple[tuple, dict]:
        """The kernel's args and kwargs on ``dev`` (``params``: a sweep point's parameters,
        passed on to ``inputs(dev, **params)``; see ptosim/sweep.py).

        Raises:
            KernelError: the file has no inputs function or it returns something unusable.
        """
        fn = self._hook("inputs")
        if fn is None:
            raise KernelError(
                f"{self.path}: define inputs(dev) (or inputs_{self.kernel.name}(dev)) returning "
                "the kernel's arguments"
            )
        got = fn(dev, **params)
        if isinstance(got, dict):
            return tuple(got.get("args", ())), dict(got.get("kwargs", {}))
        if isinstance(got, (tuple, list)):
            return tuple(got), {}
        return (got,), {}

    def run_options(self) -> dict:
        return dict(
            getattr(self.module, f"RUN_OPTIONS_{self.kernel.name}", None)
            or getattr(self.module, "RUN_OPTIONS", None)
            or {}
        )

    def check(self, dev, args, run) -> bool | None:
        """Run the file's check; None when it has none."""
        fn = self._hook("check")
        if fn is None:
            return None
        try:
            verdict = fn(dev, args, run)
        except AssertionError:
            return False
        return True if verdict is None else bool(verdict)


def _load_module(file: str):
    """Execute a kernel file as a module whose directory is importable, so it can import its
    sibling modules however ptosim was started (``python -m ptosim`` or the ``ptosim`` script),
    as ``python FILE.py`` would.

    Raises:
        KernelError: missing file or a syntax error in it.
    """
    path = Path(file)
    if not path.is_file():
        raise KernelError(f"no such kernel file: {file}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    mod_name = f"ptosim_kernelfile_{digest}"  # one module per file path
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise KernelError(f"{path.name}:{exc.lineno}: syntax error: {exc.msg}") from None
    return path, module


def _split(target: str) -> tuple[str, str]:
    file, _, name = target.partition(":")
    if ":" in target and len(file) == 1:  # a Windows drive letter: C:\\x.py[:k]
        file, _, name = target[2:].partition(":")
        file = target[:2] + file
    return file, name


def _kernels(file: str, module) -> dict[str, Kernel]:
    kernels = {k.name: k for k in vars(module).values() if isinstance(k, Kernel)}
    if not kernels:
        raise KernelError(f"{file} defines no @pto.kernel function")
    return kernels


def load(target: str, several_hint: str = "") -> KernelSpec:
    """Load ``FILE.py[:kernel]``.

    Raises:
        KernelError: missing file, no kernel, ambiguous kernel, unknown kernel name.
    """
    file, name = _split(target)
    path, module = _load_module(file)
    kernels = _kernels(file, module)
    if name:
        if name not in kernels:
            raise KernelError(f"{file} has no kernel {name!r}; it defines {', '.join(kernels)}")
        return KernelSpec(path, kernels[name], module)
    if len(kernels) > 1:
        raise KernelError(
            f"{file} defines several kernels ({', '.join(kernels)}); choose one with "
            f"{file}:<kernel>" + (f" ({several_hint})" if several_hint else "")
        )
    return KernelSpec(path, next(iter(kernels.values())), module)


def load_all(target: str) -> list[KernelSpec]:
    """``FILE.py:kernel`` -> that kernel; ``FILE.py`` -> every kernel it defines, in order.

    Raises:
        KernelError: as ``load``.
    """
    file, name = _split(target)
    if name:
        return [load(target)]
    path, module = _load_module(file)
    return [KernelSpec(path, k, module) for k in _kernels(file, module).values()]
