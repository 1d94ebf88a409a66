"""The active recording, and the hooks through which the data objects reach the layers above.

Tiles and GlobalTensors (``tensors.py``) sit below the instruction definitions and the
recorder: ``tile.GetValue(i)`` is the GetValue instruction (``isa/scalar_access.py``), which
imports ``tensors``, so tensors cannot import it back. Instead:

- ``ACTIVE`` holds the recorder the instructions emitted now go to (``program.Recorder`` or a
  session's), None outside ``Device.run``; ``tile_name`` asks it for a tile's name.
- the run layer (``device.py``) installs the scalar element access (``install_scalar_access``)
  when it is imported. A kernel body only runs under ``Device.run``, so the access is installed
  whenever a body can call it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from .errors import KernelError

# The recorder of the kernel body running in this context (thread), None outside a run.
ACTIVE: ContextVar = ContextVar("ptosim_recorder", default=None)

OUTSIDE_A_RUN = (
    "PTO instructions can only be called inside a @pto.kernel function run by Device.run()"
)

# (get_value(x, index), set_value(x, index, value)): the scalar unit's element access
_scalar_access: tuple[Callable, Callable] | None = None


def tile_name(tile) -> str:
    """The tile's name in the program being recorded (``Recorder.tile_name``: numbered in
    order of first use); outside a recording its geometry alone."""
    rec = ACTIVE.get()
    return tile.name if rec is None else rec.tile_name(tile)


def install_scalar_access(get_value: Callable, set_value: Callable) -> None:
    """Set the functions ``Tile`` / ``GlobalTensor`` ``GetValue`` and ``SetValue`` call."""
    global _scalar_access
    _scalar_access = (get_value, set_value)


def _access() -> tuple[Callable, Callable]:
    if _scalar_access is None:  # only ptosim.device installs it: no run can have started
        raise KernelError(OUTSIDE_A_RUN)
    return _scalar_access


def get_value(x, index):
    """``x.GetValue(index)`` through the installed scalar access."""
    return _access()[0](x, index)


def set_value(x, index, value) -> None:
    """``x.SetValue(index, value)`` through the installed scalar access."""
    _access()[1](x, index, value)
