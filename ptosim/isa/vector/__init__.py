"""The vector instruction set (vector_isa.md): one module per family, each registering its
kernel-facing functions with ``ptosim.isa.registry``. Importing this package registers them all.
"""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

# Every module of this package is a family (or shared helpers, which register nothing).
for _mod in iter_modules(__path__):
    import_module(f"{__name__}.{_mod.name}")
