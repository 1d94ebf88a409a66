"""Device: a simulated NPU (or the CPU reference) with its GM and the ``run`` entry point."""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .config import DeviceConfig, load_config
from .errors import FindingsError, KernelError
from .isa.base import Arch
from .memory import GlobalMemory, GmBuffer
from .program import Kernel, record
from .run import RunResult, run_blocks


class Device:
    """A simulated device.

    Args:
        name: ``"cpu"``, ``"a2"``, ``"a3"``, ``"950pr"``, ``"950dt"`` or a path to a config TOML.
        overrides: dotted config keys to replace, e.g. ``{"timing.simt.policy": "gto"}``.

    Raises:
        ConfigError: unknown device or invalid config.
    """

    def __init__(self, name: str = "cpu", overrides: dict | None = None):
        self.config: DeviceConfig = load_config(name, overrides)
        c = self.config
        self.arch = Arch(
            c.target,
            c.name,
            c.memory.ub_size_bytes,
            c.memory.l1_size_bytes,
            c.memory.ub_align_bytes,
            c.sync.event_ids,
        )
        self.gm = GlobalMemory()

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def target(self) -> str:
        return self.config.target

    def gm_array(self, array, dtype=None) -> GmBuffer:
        """Copy a host array into a new GM buffer (``dtype`` reinterprets, e.g. hifloat8 bits)."""
        arr = np.asarray(array)
        dt = D.dtype(dtype) if dtype is not None else D.dtype(arr.dtype)
        if dt is D.hifloat8 and arr.dtype != np.uint8:
            raise KernelError("hifloat8 data must be given as its uint8 bit patterns")
        return self.gm.allocate(arr.shape, dt, fill=arr)

    def gm_zeros(self, shape, dtype) -> GmBuffer:
        """A new zero-filled GM buffer."""
        return self.gm.allocate(shape, dtype)

    def gm_full(self, shape, dtype, value) -> GmBuffer:
        """A new GM buffer filled with ``value``."""
        dt = D.dtype(dtype)
        return self.gm.allocate(shape, dt, fill=np.full(shape, value).astype(dt.np))

    def run(
        self,
        kernel,
        *args,
        strict: bool = False,
        dyn_ubuf_size: int | None = None,
        block_dim: int = 1,
        progress=None,
        **kwargs,
    ) -> RunResult:
        """Record the kernel (once per block) and run it on this device.

        Args:
            kernel: a ``@pto.kernel`` function (a plain function is accepted too).
            *args, **kwargs: passed to the kernel body (GM buffers, sizes ...).
            strict: raise FindingsError when the run has any finding.
            dyn_ubuf_size: declared dynamic UB bytes for a 950 SIMT kernel (default 128 KiB).
            block_dim: number of blocks (cores); ``pto.get_block_idx()`` tells them apart.
            progress: optional callable(done, total) called now and then during long runs.

        Raises:
            PtoSimError: constraint violations, placement errors, out-of-bounds accesses,
                and (strict) findings.
        """
        if not isinstance(kernel, Kernel):
            if not callable(kernel):
                raise KernelError(f"run() needs a kernel function, got {type(kernel).__name__}")
            kernel = Kernel(kernel)
        if not isinstance(block_dim, int) or block_dim < 1:
            raise KernelError(f"block_dim must be a positive integer, got {block_dim!r}")
        programs = [
            record(
                kernel,
                self.arch,
                args,
                kwargs,
                block_idx=b,
                block_num=block_dim,
                dyn_ubuf_size=dyn_ubuf_size,
            )
            for b in range(block_dim)
        ]
        result = run_blocks(programs, self.config, self.gm, progress)
        if strict and result.findings:
            raise FindingsError(result.findings)
        return result

    def __repr__(self) -> str:
        return f"Device({self.name!r}, target={self.target})"
