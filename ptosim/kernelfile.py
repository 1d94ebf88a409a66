"""Loading kernel files for the command line.

A kernel file is a Python file that defines one or more ``@pto.kernel`` functions and says how
to build their inputs:

- ``inputs(dev)`` returns the kernel's positional arguments (a tuple) or a dict with ``args``
  and ``kwargs``; ``inputs_<kernel>(dev)`` takes precedence for that kernel.
- optional ``check(dev, args, run)`` (or ``check_<kernel>``) verifies the outputs: it returns
  False or raises AssertionError when they are wrong.
- optional ``RUN_OPTIONS = {"block_dim": 2, "dyn_ubuf_size": ...}`` (or ``RUN_OPTIONS_<kernel>``).

``FILE.py:name`` selects a kernel; without a name the file must define exactly one.
"""

from __future__ import annotations

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

    def build_inputs(self, dev) -> tuple[tuple, dict]:
        """The kernel's args and kwargs on ``dev``.

        Raises:
            KernelError: the file has no inputs function or it returns something unusable.
        """
        fn = self._hook("inputs")
        if fn is None:
            raise KernelError(
                f"{self.path}: define inputs(dev) (or inputs_{self.kernel.name}(dev)) returning "
                "the kernel's arguments"
            )
        got = fn(dev)
        if isinstance(got, dict):
            return tuple(got.get("args", ())), dict(got.get("kwargs", {}))
        if isinstance(got, tuple):
            return got, {}
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


def load(target: str) -> KernelSpec:
    """Load ``FILE.py[:kernel]``.

    Raises:
        KernelError: missing file, no kernel, ambiguous kernel, unknown kernel name.
    """
    file, _, name = target.partition(":")
    if ":" in target and len(file) == 1:  # a Windows drive letter: C:\\x.py[:k]
        file, _, name = target[2:].partition(":")
        file = target[:2] + file
    path = Path(file)
    if not path.is_file():
        raise KernelError(f"no such kernel file: {file}")
    mod_name = f"ptosim_kernelfile_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    spec.loader.exec_module(module)
    kernels = {k.name: k for k in vars(module).values() if isinstance(k, Kernel)}
    if not kernels:
        raise KernelError(f"{file} defines no @pto.kernel function")
    if name:
        if name not in kernels:
            raise KernelError(f"{file} has no kernel {name!r}; it defines {', '.join(kernels)}")
        return KernelSpec(path, kernels[name], module)
    if len(kernels) > 1:
        raise KernelError(
            f"{file} defines several kernels ({', '.join(kernels)}); choose one with "
            f"{file}:<kernel>"
        )
    return KernelSpec(path, next(iter(kernels.values())), module)
