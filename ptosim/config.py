"""Device configurations: pydantic models loaded from ``configs/<device>.toml``.

Models forbid unknown keys and carry no hardware defaults: every number comes from a TOML file,
where it has a ``# source:`` comment. A file may extend another and state only its differences
(``ptosim/config_files.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .config_files import (  # noqa: F401 - CONFIG_DIR and available_devices: public here
    CONFIG_DIR,
    Resolved,
    available_devices,
    config_path,
    resolve,
)
from .errors import ConfigError

# Where a number comes from (DESIGN.md "Confidence is data"), from most to least certain:
# fitted to hardware measurements, taken from the vendor's cost model or simulator parameters,
# a public hardware figure (datasheet, platform config), or an estimate (chosen, with a reason).
SourceKind = Literal["hardware-fitted", "vendor-model", "public-figure", "estimate"]
SOURCE_KINDS: tuple[str, ...] = ("hardware-fitted", "vendor-model", "public-figure", "estimate")


class _Strict(BaseModel):
    # strict: a TOML float is no int (no silent truncation), a string is no number; NaN and
    # infinities are rejected (the engine cannot schedule a NaN-cycle step)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class MemoryConfig(_Strict):
    """On-chip buffer sizes (bytes): the vector core's UB, the cube core's L1, L0A, L0B, L0C,
    bias table (BT) and fixpipe buffer (FB); ``ub_align_bytes`` is the address alignment of
    every one of them (TASSIGN and the allocator)."""

    ub_size_bytes: int = Field(gt=0)  # the UB a kernel may use
    l1_size_bytes: int = Field(gt=0)
    l0a_size_bytes: int = Field(gt=0)
    l0b_size_bytes: int = Field(gt=0)
    l0c_size_bytes: int = Field(gt=0)
    bt_size_bytes: int = Field(gt=0)
    fb_size_bytes: int = Field(gt=0)
    ub_align_bytes: int = Field(gt=0)
    # the physical UB where it is larger than the usable one (950: 256 KiB, of which 8 KiB are
    # reserved: the usable 248 KiB of the public platform config)
    ub_physical_bytes: int | None = Field(default=None, gt=0)

    def size_of(self, space: str) -> int:
        """The size of one buffer by its space name (``"UB"``, ``"L0C"`` ...)."""
        return getattr(self, f"{space.lower()}_size_bytes")


class AclConfig(_Strict):
    """The device runtime's allocator as a program sees it: ``aclrtMalloc(size)`` hands out
    ``size`` rounded up to ``malloc_round_bytes``, plus ``malloc_extra_bytes`` (D23)."""

    malloc_round_bytes: int = Field(gt=0)
    malloc_extra_bytes: int = Field(ge=0)

    def allocation_bytes(self, size_bytes: int) -> int:
        """Bytes of GM behind an ``aclrtMalloc(size_bytes)``."""
        r = self.malloc_round_bytes
        return -(-max(size_bytes, 1) // r) * r + self.malloc_extra_bytes


class SimtConfig(_Strict):
    """UB budget of a SIMT kernel (950): the reserved region and the data cache come off the
    physical UB; the reserve is the difference between physical and usable UB, so a SIMT kernel
    may use the usable UB minus the data cache (DESIGN.md section 4)."""

    ub_reserved_bytes: int = Field(ge=0)
    data_cache_bytes: int = Field(ge=0)
    default_dyn_ubuf_bytes: int = Field(gt=0)


class SyncConfig(_Strict):
    event_ids: int = Field(gt=0)
    # posts one event may hold unconsumed; unset: counting without limit (the cost model's
    # channels), so the hazard checker reports no depth overflow (F202 flag-depth)
    flag_depth: int | None = Field(default=None, gt=0)


class DmaConfig(_Strict):
    """One DMA engine (MTE2 GM->UB or MTE3 UB->GM).

    A DMA instruction costs ``latency_cycles`` plus its charged bytes at ``bw_bytes_per_cycle``;
    every burst is charged in whole ``granule_bytes`` (the UB block), and split into GM requests
    at ``gm_request_bytes`` boundaries (reported in the trace).
    """

    latency_cycles: int = Field(ge=0)
    bw_bytes_per_cycle: float = Field(gt=0)
    granule_bytes: int = Field(gt=0)
    gm_request_bytes: int = Field(gt=0)
    source: SourceKind  # where latency and bandwidth come from


class ScalarConfig(_Strict):
    """The scalar unit: issue, ALU, scalar UB and GM accesses (GM through a data cache)."""

    issue_cycles: int = Field(ge=0)
    op_cycles: int = Field(ge=0)
    loop_cycles: int = Field(ge=0)
    ub_load_cycles: int = Field(ge=0)
    ub_store_cycles: int = Field(ge=0)
    gm_load_hit_cycles: int = Field(ge=0)
    gm_load_miss_cycles: int = Field(ge=0)
    gm_store_cycles: int = Field(ge=0)
    dcache_bytes: int = Field(gt=0)
    dcache_line_bytes: int = Field(gt=0)
    flag_cycles: int = Field(ge=0)
    barrier_cycles: int = Field(ge=0)
    source: SourceKind  # the scalar unit's work: loops, UB/GM loads and stores
    control_source: SourceKind  # issue, flags and barriers


class VectorOpCost(_Strict):
    """Cost of one vector intrinsic (or of a class of intrinsics), in cycles.

    ``head + slope x repeats`` while the call issues, ``tail`` more when the vector stream drains
    after it (a barrier, a handshake, the end of the instruction: the pipeline latency). A call in
    count mode or with a partial lane mask issues for at least ``partial_floor`` cycles (0: no
    floor). Fractional values are allowed (a throughput of 0.67 cycle per repeat); a call's total
    is rounded to whole cycles.
    """

    head: float = Field(ge=0)
    slope: float = Field(ge=0)
    tail: float = Field(ge=0)
    partial_floor: float = Field(default=0, ge=0)
    # per-repeat cost of the element types that differ from ``slope`` (dtype names: float32,
    # half ...): ``slope`` covers every other type
    slope_by_dtype: dict[str, float] = Field(default_factory=dict)
    source: SourceKind

    def slope_for(self, dtype: str | None) -> float:
        """The per-repeat cost of one repeat of ``dtype`` elements (``slope`` when unlisted)."""
        if dtype is None or not self.slope_by_dtype:
            return self.slope
        return self.slope_by_dtype.get(dtype, self.slope)


class VfOpCost(_Strict):
    """One 950 vector-function intrinsic, from the vendor's 950 vector simulator parameters.

    ``kind``: a UB load (vlds ...), a UB store (vsts ...) or a register compute op. A compute op
    issues on one of ``ports`` issue ports (1: port 0 only), at most one op of its functional
    ``unit`` per ``ii`` cycles per port; its result is usable by the next compute op ``fwd - 1``
    cycles after it issued and by a store ``drain`` cycles after it issued; it completes after
    ``latency`` cycles. A load's result is usable by a compute op ``fwd - 1`` cycles after it
    issued; a store completes ``latency`` cycles after it issued.
    """

    kind: Literal["load", "store", "compute"]
    latency: int = Field(ge=0)
    ii: int = Field(ge=1)
    fwd: int = Field(ge=0)
    drain: int = Field(ge=0)
    ports: int = Field(ge=1)
    unit: Literal["alu", "sfu"]
    source: SourceKind


class VfConfig(_Strict):
    """The 950 vector-function issue model (targets/a5/vf.py): a VF starts its first load
    ``startup_cycles`` after it is called and ends ``drain_cycles`` after its last op completes;
    between, ``issue_ports`` compute ports, ``load_ports`` and ``store_ports`` UB ports, at most
    ``dispatch_width`` ops dispatched per cycle, and a loop over rows starts its next row at
    least ``loop_gap_cycles`` after the previous one. ``ops``: per intrinsic (a key
    ``name.dtype`` for an element type whose figures differ; ``other`` for the rest)."""

    startup_cycles: int = Field(ge=0)
    drain_cycles: int = Field(ge=0)
    issue_ports: int = Field(ge=1)
    load_ports: int = Field(ge=1)
    store_ports: int = Field(ge=1)
    dispatch_width: int = Field(ge=1)
    loop_gap_cycles: int = Field(ge=0)
    source: SourceKind
    ops: dict[str, VfOpCost]

    @model_validator(mode="after")
    def _other(self):
        if "other" not in self.ops:
            raise ValueError("vf.ops needs an 'other' entry (the cost of unlisted intrinsics)")
        return self

    def op(self, name: str, dtype: str | None = None) -> VfOpCost:
        """The entry of ``name`` for ``dtype`` (``name.dtype``, else ``name``, else ``other``)."""
        ops = self.ops
        if dtype is not None:
            hit = ops.get(f"{name}.{dtype}")
            if hit is not None:
                return hit
        return ops.get(name) or ops["other"]


class VectorConfig(_Strict):
    """The vector pipe: intrinsic cost = head + slope x repeats (+ tail when the stream drains).

    ``ops`` maps an intrinsic name to its cost, or to the name of a cost in ``classes`` (the
    A2/A3 model: a few fitted classes, docs/calibration.md). A key ending in ``*`` is a prefix
    rule (``vconv_*`` covers ``vconv_f322f16r``); the longest matching prefix wins, an exact
    name beats any prefix, and ``other`` covers the rest.
    """

    repeat_bytes: int = Field(gt=0, multiple_of=32)  # whole UB blocks: elements per repeat >= 1
    classes: dict[str, VectorOpCost] = Field(default_factory=dict)
    ops: dict[str, VectorOpCost | str]
    vf: VfConfig | None = None  # the 950 vector functions (target a5)

    def cost(self, op: str) -> VectorOpCost:
        """The cost entry of intrinsic ``op``: its exact name, else the longest ``prefix*`` key
        (``vconv_*`` for ``vconv_f322f16r``), else ``other``; a class name resolves to the
        class."""
        ops = self.ops
        cost = ops.get(op)
        if cost is None:
            best = max(
                (k for k in ops if k.endswith("*") and op.startswith(k[:-1])),
                key=len,
                default=None,
            )
            cost = ops[best if best is not None else "other"]
        return self.classes[cost] if isinstance(cost, str) else cost

    @model_validator(mode="after")
    def _known_classes(self):
        if "other" not in self.ops:
            raise ValueError("ops needs an 'other' entry (the cost of unlisted intrinsics)")
        for name, cost in self.ops.items():
            if isinstance(cost, str) and cost not in self.classes:
                raise ValueError(
                    f"ops.{name} names the cost class {cost!r}, which is not in classes "
                    f"({', '.join(sorted(self.classes)) or 'none defined'})"
                )
        return self


class SimtTimingConfig(_Strict):
    """The 950 SIMT model: warp schedulers, UB banks, GM sectors, atomics (DESIGN.md 5)."""

    warp_size: int = Field(gt=0)
    schedulers: int = Field(gt=0)
    policy: Literal["lrr", "gto"]
    issue_cycles: int = Field(gt=0)
    launch_cycles: int = Field(ge=0)
    alu_cycles: int = Field(ge=0)
    ub_latency_cycles: int = Field(ge=0)
    ub_bank_groups: int = Field(gt=0)
    ub_block_bytes: int = Field(gt=0)
    ub_conflict_cycles: int = Field(ge=0)
    gm_latency_cycles: int = Field(ge=0)
    gm_sector_bytes: int = Field(gt=0)
    gm_bw_bytes_per_cycle: float = Field(gt=0)
    max_outstanding_loads: int = Field(gt=0)
    atomic_cycles: int = Field(ge=0)
    scan_iteration_cycles: int = Field(gt=0)
    source: SourceKind


class ChipConfig(_Strict):
    """The chip's shared memory system for multi-core launches (ptosim/engine/chip.py).

    Every core's GM traffic (DMA transfers, SIMT GM sectors) shares ``gm_bw_bytes_per_cycle``,
    booked in a calendar of ``window_cycles``-long windows. Different cores touching the same
    ``same_address_bytes`` GM line serialise: each access holds the line for
    ``same_address_cycles``.
    """

    gm_bw_bytes_per_cycle: float = Field(gt=0)
    window_cycles: int = Field(gt=0)
    same_address_bytes: int = Field(gt=0)
    same_address_cycles: int = Field(ge=0)
    source: SourceKind  # of gm_bw_bytes_per_cycle (the chip's HBM figure)


class CubeTimingConfig(_Strict):
    """The cube core's engines (targets/a2a3/cube.py): ``mad`` on PIPE_M costs
    ``mad_head_cycles`` plus one cycle per 16 x C0 x 16 fractal step (``mad_fp32_step_cycles``
    per step for float inputs); the copies cost their bytes at these rates (bytes per cycle):
    L1 -> L0A / L0B / bias table on MTE1, L1 -> the fixpipe buffer and L0C -> GM / L1 on the
    fixpipe, the L1 fill (TFILLPAD on Mat), and L1 -> GM (TSTORE from Mat) on MTE3."""

    mad_head_cycles: int = Field(ge=0)
    mad_fp32_step_cycles: int = Field(gt=0)
    l1_to_l0a_bytes_per_cycle: float = Field(gt=0)
    l1_to_l0b_bytes_per_cycle: float = Field(gt=0)
    l1_to_bt_bytes_per_cycle: float = Field(gt=0)
    l1_to_fb_bytes_per_cycle: float = Field(gt=0)
    l0c_to_gm_bytes_per_cycle: float = Field(gt=0)
    l0c_to_l1_bytes_per_cycle: float = Field(gt=0)
    l1_fill_bytes_per_cycle: float = Field(gt=0)
    # the raw UB <-> L1 copies between a 950 cube core and its vector cores (copy_ubuf_to_cbuf,
    # copy_cbuf_to_ubuf); None on a device without that path
    ub_l1_bytes_per_cycle: float | None = Field(default=None, gt=0)
    source: SourceKind


class TimingConfig(_Strict):
    clock_ghz: float = Field(gt=0)
    clock_source: SourceKind  # cycles -> seconds: every us and GB/s figure rests on it
    scalar: ScalarConfig
    mte2: DmaConfig
    mte3: DmaConfig
    vector: VectorConfig
    simt: SimtTimingConfig | None = None
    chip: ChipConfig | None = None  # None: the cores do not share GM bandwidth (no limit)
    cube: CubeTimingConfig | None = None  # None: the device has no timed cube core


class DeviceConfig(_Strict):
    """One device: its target family, memories, synchronisation resources and timing."""

    name: str
    target: Literal["cpu", "a2a3", "a5"]
    description: str
    # blocks a kernel may launch at once (``block_dim``): the engine simulates one core per block
    vector_cores: int = Field(gt=0)
    # AI cores (one cube core and two vector cores each): the blocks of a cube or mixed kernel
    cube_cores: int = Field(gt=0)
    memory: MemoryConfig
    sync: SyncConfig
    simt: SimtConfig | None = None
    timing: TimingConfig | None = None
    # None: aclrtMalloc returns exactly the bytes asked for (the cpu target's host malloc)
    acl: AclConfig | None = None

    @model_validator(mode="after")
    def _simt_only_on_a5(self):
        if (self.simt is not None) != (self.target == "a5"):
            raise ValueError("a [simt] section is required on target a5 and only there")
        if self.target == "a5" and self.timing is not None and self.timing.vector.vf is None:
            raise ValueError("timing.vector.vf (the vector-function model) is required on a5")
        m = self.memory
        reserved = self.simt.ub_reserved_bytes if self.simt is not None else None
        if (
            reserved is not None
            and m.ub_physical_bytes is not None
            and m.ub_physical_bytes - reserved != m.ub_size_bytes
        ):
            raise ValueError(
                f"memory.ub_size_bytes ({m.ub_size_bytes}) must be the physical UB "
                f"({m.ub_physical_bytes}) minus simt.ub_reserved_bytes ({reserved}): the "
                "reserve is what is not usable"
            )
        return self

    @property
    def simt_max_dyn_ubuf_bytes(self) -> int | None:
        """Largest dynamic UB a SIMT kernel may declare: physical UB - reserve - data cache =
        usable UB - data cache (256 - 8 - 32 = 248 - 32 = 216 KiB on 950)."""
        if self.simt is None:
            return None
        usable = self.memory.ub_size_bytes
        if self.memory.ub_physical_bytes is None:  # a config giving the physical UB only
            usable -= self.simt.ub_reserved_bytes
        return usable - self.simt.data_cache_bytes


def _apply_overrides(raw: dict, overrides: dict) -> None:
    """Set dotted keys (``"timing.simt.gm_latency_cycles"``) of a raw config dict in place.

    Raises:
        ConfigError: a key names no existing setting.
    """
    if not isinstance(overrides, dict):
        raise ConfigError(
            f"overrides must be a dict of dotted keys to values, got {type(overrides).__name__}"
        )
    for dotted, value in overrides.items():
        if not isinstance(dotted, str) or not dotted.strip():
            raise ConfigError(f"override key must be a dotted setting name, got {dotted!r}")
        node = raw
        parts = dotted.split(".")
        for part in parts[:-1]:
            if not isinstance(node.get(part), dict):
                raise ConfigError(f"override {dotted!r}: no section {part!r} in the config")
            node = node[part]
        if parts[-1] not in node:
            raise ConfigError(f"override {dotted!r}: no setting {parts[-1]!r} in the config")
        node[parts[-1]] = value


def load_config(name_or_path: str | Path, overrides: dict | None = None) -> DeviceConfig:
    """Load a device config by name (``"a2"``) or by path to a TOML file (which may extend a
    shipped device or another file: ``extends = "a2"``).

    Args:
        name_or_path: a device name from ``configs/`` or a path to a TOML file.
        overrides: dotted keys to replace, e.g. ``{"timing.simt.gm_latency_cycles": 400}``
            (for the estimates marked in the configs); the result is validated as usual.

    Raises:
        ConfigError: unknown device, unreadable file, bad ``extends``, unknown override key or
            invalid content.
    """
    path = config_path(name_or_path)
    resolved = resolve(path)
    raw = resolved.raw
    if overrides is not None:
        _apply_overrides(raw, overrides)
    try:
        return DeviceConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path, overrides or {}, resolved)) from None


def _describe(exc: ValidationError, path: Path, overrides: dict, resolved: Resolved) -> str:
    """One line naming each bad setting; a bad value that came from an override blames the
    override (key and value), not the config file it was applied to; one a base file states
    names that file."""
    own, theirs = [], []
    for e in exc.errors():
        key = ".".join(str(p) for p in e["loc"]) or "<root>"
        culprit = next(
            (k for k in overrides if key == k or key.startswith(k + ".")),
            None,
        )
        origin = resolved.origin(key)
        if culprit is None and origin is not None and origin.file != path:
            own.append(f"{key}: {e['msg']} (set in {origin.file})")
        elif culprit is None:
            own.append(f"{key}: {e['msg']}")
        else:
            theirs.append(f"{culprit}={overrides[culprit]!r}: {e['msg']}")
    if theirs:
        text = f"invalid override {'; '.join(theirs)}"
        return text + (f"; and in {path}: {'; '.join(own)}" if own else "")
    return f"invalid device config {path}: {'; '.join(own)}"
