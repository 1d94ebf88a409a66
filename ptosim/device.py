"""Device: a simulated NPU (or the CPU reference) with its GM and the ``run`` entry point."""

from __future__ import annotations

import dataclasses

import numpy as np

from . import dtypes as D
from . import recording, session
from .argcheck import as_int, as_shape
from .config import DeviceConfig, load_config
from .cores import VEC, CoreRole, launch_roles
from .errors import FindingsError, KernelError
from .gcpause import gc_paused
from .isa.base import Arch
from .isa.scalar_access import GetValue, SetValue
from .memory import CORE_SPACES, GlobalMemory, GmBuffer
from .program import Kernel, NeedsCube, NeedsSession, Program, header, record
from .run import RunResult, run_blocks
from .targets import spec_of

# Tile / GlobalTensor GetValue and SetValue are these instructions (tensors sit below them).
recording.install_scalar_access(GetValue, SetValue)

# The simulated GM lives in host memory: one device may hold at most this many bytes of buffers,
# so a typo such as gm_zeros((10**6, 10**6)) fails at once instead of exhausting the host.
GM_CAPACITY_BYTES = 4 * 2**30
# The most blocks one launch may have. Choice: it bounds the host memory of the simulated
# on-chip buffers, which every block has its own of (about 0.75 MiB for a 950 vector core, so
# 4096 blocks take about 3 GiB); the library's folders launch at most 64. A launch of more blocks
# than the device's cores runs in waves (ptosim/engine/waves.py).
MAX_BLOCK_DIM = 4096


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
        # what a vector core of a vector-only launch may know; ``arch_of`` derives the others
        self.arch = Arch(
            c.target,
            c.name,
            c.memory.ub_size_bytes,
            c.memory.l1_size_bytes,
            c.memory.ub_align_bytes,
            c.sync.event_ids,
            spec_of(c.target),  # what the target does (ptosim.isa.spec)
            tuple((sp, c.memory.size_of(sp)) for sp in CORE_SPACES[VEC]),
        )
        self._archs: dict[tuple, Arch] = {}
        self.gm = GlobalMemory()

    def arch_of(self, core_kind: str, launch: str) -> Arch:
        """What instructions may know of one core of a launch: ``self.arch`` with the core's
        kind and buffers (one object per core kind and launch kind: validations are memoised
        by its identity)."""
        if (core_kind, launch) == (VEC, "vec"):
            return self.arch
        key = (core_kind, launch, id(self.arch))
        arch = self._archs.get(key)
        if arch is None or arch.spec is not self.arch.spec:
            mem = self.config.memory
            spaces = CORE_SPACES[core_kind]
            if self.arch.spec.cube.shared_buffers:  # cpu: every buffer on every core
                spaces = tuple(dict.fromkeys(CORE_SPACES[VEC] + CORE_SPACES["aic"]))
            elif self.arch.spec.cube.onchip_cv_paths and (core_kind, launch) == ("aiv", "mix"):
                spaces = ("UB", "L1")  # 950: its cube core's L1 (shared, ptosim/run.py)
            arch = self._archs[key] = dataclasses.replace(
                self.arch,
                buffers=tuple(
                    (sp, mem.size_of(sp)) for sp in spaces if mem.size_of(sp) is not None
                ),
                core_kind=core_kind,
                launch=launch,
            )
        return arch

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def target(self) -> str:
        return self.config.target

    def _reserve(self, what: str, shape, dt: D.DType) -> tuple[int, ...]:
        """Check a new buffer's shape and that it fits the GM capacity; returns the shape.

        Raises:
            KernelError: a bad shape, or the buffers would exceed GM_CAPACITY_BYTES.
        """
        shp = as_shape(shape, f"{what} shape")
        nbytes = int(np.prod(shp, dtype=object)) * dt.size_bytes
        used = sum(b.nbytes for b in self.gm.buffers)
        if used + nbytes > GM_CAPACITY_BYTES:
            raise KernelError(
                f"{what}: a {dt.name}{list(shp)} buffer needs {nbytes} bytes but the simulated GM "
                f"holds at most {GM_CAPACITY_BYTES} bytes ({used} already allocated)"
            )
        return shp

    def gm_array(self, array, dtype=None) -> GmBuffer:
        """Copy a host array into a new GM buffer.

        ``dtype`` converts the values to another element type only when they fit it (integers
        in range, no float overflow; float rounding is allowed); hifloat8 takes uint8 bit
        patterns, a packed 4-bit type (int4b_t, fp4) its uint8 bytes, two elements each, the
        first in the low nibble. A 0-d array makes a one-element buffer.

        Raises:
            KernelError: not a numeric array, or too large for the simulated GM.
            ConstraintError: a value does not fit ``dtype`` (rule ``values-range``).
        """
        try:
            arr = np.asarray(array)
        except (ValueError, TypeError) as exc:  # ragged nested lists and the like
            raise KernelError(f"gm_array needs a numeric array: {exc}") from None
        numeric = arr.dtype != np.bool_ and (arr.dtype in D._BY_NP or arr.dtype.kind in "iuf")
        if not numeric or (dtype is None and arr.dtype not in D._BY_NP):
            raise KernelError(
                f"gm_array needs an array of a PTO element type, got numpy dtype {arr.dtype} "
                "(give dtype=... or convert it on the host with astype)"
            )
        dt = D.dtype(dtype) if dtype is not None else D.dtype(arr.dtype)
        if dt is D.hifloat8 and arr.dtype != np.uint8:
            raise KernelError("hifloat8 data must be given as its uint8 bit patterns")
        if dt.packed and arr.dtype != np.uint8:
            raise KernelError(f"{dt.name} data must be given as its uint8 bytes (two per byte)")
        shape = self._reserve("gm_array", arr.shape, dt)
        fill = D.check_values_fit("gm_array", "array", arr, dt)
        return self.gm.allocate(shape, dt, fill=fill)

    def gm_zeros(self, shape, dtype) -> GmBuffer:
        """A new zero-filled GM buffer of ``shape`` (an int or a tuple of ints >= 0)."""
        dt = D.dtype(dtype)
        return self.gm.allocate(self._reserve("gm_zeros", shape, dt), dt)

    def gm_full(self, shape, dtype, value) -> GmBuffer:
        """A new GM buffer filled with ``value``, which must fit ``dtype`` exactly."""
        dt = D.dtype(dtype)
        shp = self._reserve("gm_full", shape, dt)
        scalar = D.check_scalar_fits("gm_full", "value", value, dt)
        return self.gm.allocate(shp, dt, fill=np.full(shp, scalar, dtype=dt.np))

    def run(
        self,
        kernel,
        *args,
        strict: bool = False,
        dyn_ubuf_size: int | None = None,
        block_dim: int = 1,
        progress=None,
        max_steps: int | None = None,
        **kwargs,
    ) -> RunResult:
        """Record the kernel (once per block) and run it on this device.

        Args:
            kernel: a ``@pto.kernel`` function (a plain function is accepted too), or a
                recorded Program (a list of them, one per block), such as the one
                ``ptosim.checks.fixes.apply_fixes`` returns.
            *args, **kwargs: passed to the kernel body (GM buffers, sizes ...).
            strict: raise FindingsError when the run has any finding.
            dyn_ubuf_size: declared dynamic UB bytes for a 950 SIMT kernel (default 128 KiB).
            block_dim: number of blocks: vector cores for a vector kernel, AI cores (one cube
                core and two vector cores each) for a cube or mixed one (``@pto.kernel(cores=
                ...)``); ``pto.get_block_idx()`` tells them apart. More blocks than the device
                has cores run in waves, each later block on the first core that frees up
                (``RunResult.waves``).
            progress: optional callable(done, total) called now and then while simulating
                (``total`` is None for a block that reads values: its length is not known
                until it ends); if it also has a ``phase(name)`` method, that is called as
                each phase starts (recording each block, simulating, analysing).
            max_steps: instructions one block may record before the run stops it with a
                KernelError naming the line it reached (a body that never ends); default
                ``ptosim.program.DEFAULT_MAX_STEPS``.

        Raises:
            PtoSimError: constraint violations, placement errors, out-of-bounds accesses,
                and (strict) findings.
        """
        recorded = _recorded(kernel)
        if recorded is not None:
            return self._run_recorded(recorded, args, kwargs, strict, block_dim, progress)
        if not isinstance(kernel, Kernel):
            if not callable(kernel):
                raise KernelError(f"run() needs a kernel function, got {type(kernel).__name__}")
            kernel = Kernel(kernel)
        launch = kernel.cores
        block_dim = as_int(
            block_dim,
            f"run: block_dim (1 to {MAX_BLOCK_DIM}; blocks past the {self.config.vector_cores} "
            f"cores of {self.name} ({self.config.cube_cores} AI cores for a cube or mixed kernel) "
            "run in waves)",
            lo=1,
            hi=MAX_BLOCK_DIM,
        )
        if dyn_ubuf_size is not None:
            dyn_ubuf_size = as_int(dyn_ubuf_size, "run: dyn_ubuf_size (bytes)", lo=1)
        if max_steps is not None:
            max_steps = as_int(max_steps, "run: max_steps (instructions per block)", lo=1)
        if not isinstance(strict, (bool, np.bool_)):
            raise KernelError(f"run: strict must be True or False, got {strict!r}")
        if progress is not None and not callable(progress):
            raise KernelError(f"run: progress must be a callable(done, total), got {progress!r}")
        phase = getattr(progress, "phase", None)  # optional: told each phase of a long run
        with gc_paused():  # ptosim/gcpause.py: full collections cost a third of a long run
            try:
                programs = self._record(kernel, launch or "vec", block_dim, args, kwargs,
                                        dyn_ubuf_size, phase, max_steps,
                                        probe=launch is None)  # fmt: skip
            except NeedsCube:  # undeclared, and the body uses a cube buffer: a cube kernel
                programs = self._record(
                    kernel,
                    "cube",
                    block_dim,
                    args,
                    kwargs,
                    dyn_ubuf_size,
                    phase,
                    max_steps,
                    probe=False,
                )
            result = run_blocks(programs, self.config, self.gm, progress)
        if strict and result.findings:
            raise FindingsError(result.findings)
        return result

    def _record(
        self,
        kernel,
        launch,
        block_dim,
        args,
        kwargs,
        dyn_ubuf_size,
        phase,
        max_steps,
        *,
        probe: bool,
    ) -> list[Program]:
        """The program of every core of a launch (``probe``: the kernel did not declare its
        cores: the first core's recording raises NeedsCube when the body uses a cube buffer)."""
        programs = []
        seen: dict = {}  # whether a block's body has read a value (block_program's)
        roles = launch_roles(launch, block_dim)
        for n, role in enumerate(roles):
            if phase is not None:
                where = f"block {n + 1}/{len(roles)}" if launch == "vec" else role.label
                phase(f"recording {where}")
            programs.append(
                block_program(
                    kernel,
                    self.arch_of(role.kind, launch),
                    args,
                    kwargs,
                    block_idx=role.block,
                    block_num=block_dim,
                    dyn_ubuf_size=dyn_ubuf_size,
                    seen=seen,
                    role=role,
                    max_steps=max_steps,
                    probe_cube=probe and n == 0,
                )
            )
        return programs

    def _run_recorded(self, programs, args, kwargs, strict, block_dim, progress) -> RunResult:
        """Run recorded programs (one per block), e.g. ``apply_fixes``' repaired program."""
        if args or kwargs:
            raise KernelError(
                "run(program): a recorded program takes no kernel arguments (its GM tensors "
                "were bound when it was recorded)"
            )
        if block_dim not in (1, len(programs)):
            raise KernelError(
                f"run(program): block_dim is the number of programs ({len(programs)}), "
                f"got {block_dim}"
            )
        for p in programs:
            if p.arch.device != self.arch.device:
                raise KernelError(
                    f"run(program): the program of {p.kernel_name!r} was recorded for "
                    f"{p.arch.device}, not {self.arch.device}; record it on this device"
                )
        with gc_paused():
            result = run_blocks(list(programs), self.config, self.gm, progress)
        if strict and result.findings:
            raise FindingsError(result.findings)
        return result

    def __repr__(self) -> str:
        return f"Device({self.name!r}, target={self.target})"


def _recorded(kernel) -> list | None:
    """The programs of a recorded kernel (a Program, or one per block), else None."""
    if isinstance(kernel, Program):
        return [kernel]
    if isinstance(kernel, (list, tuple)) and kernel and all(isinstance(p, Program) for p in kernel):
        return list(kernel)
    return None


def block_program(
    kernel: Kernel,
    arch: Arch,
    args,
    kwargs,
    *,
    block_idx: int = 0,
    block_num: int = 1,
    dyn_ubuf_size: int | None = None,
    seen: dict | None = None,
    max_steps: int | None = None,
    role: CoreRole | None = None,
    probe_cube: bool = False,
) -> Program:
    """The program of one core: recorded ahead (``program.record``) when its body reads no
    value, else a not yet started session program (ptosim/session.py).

    Args:
        seen: shared by the cores of one run: once a core's body has read a value, the next
            cores start in a session instead of recording up to their first read again.
        role: the core it runs on (ptosim/cores.py).
        probe_cube: raise NeedsCube when the body uses a cube buffer (an undeclared kernel).

    Raises:
        NeedsCube: see ``probe_cube``.
    """
    like = header(kernel, arch, block_idx, block_num, dyn_ubuf_size, role)
    if max_steps is not None:
        like.max_steps = max_steps
    if kernel.session or session.FORCE or (seen is not None and seen.get("reads")):
        return session.SessionProgram.of_kernel(kernel, like, args, kwargs)
    try:
        return record(
            kernel,
            arch,
            args,
            kwargs,
            block_idx=block_idx,
            block_num=block_num,
            dyn_ubuf_size=dyn_ubuf_size,
            max_steps=max_steps,
            role=role,
            probe_cube=probe_cube,
        )
    except NeedsSession:
        # the body reads a value: rerun it in a session (recording has no effect on data). The
        # run's next blocks start in a session at once (``seen``), so only the first block that
        # reads is run twice up to its first read.
        if seen is not None:
            seen["reads"] = True
        return session.SessionProgram.of_kernel(kernel, like, args, kwargs)
