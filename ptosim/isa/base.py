"""Instruction base class, the facts a target exposes to checks, and the execution context.

An instruction is defined once: operands, per-target constraint checks (``validate``), the
operands it reads and writes, and its numpy reference semantics (``execute``), parameterised by
the target family where the reference implementations differ (DESIGN.md section 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NoReturn

import numpy as np

from ..dtypes import DType, names
from ..enums import Pipe, TileType
from ..errors import (
    ConstraintError,
    KernelError,
    MemoryLayoutError,
    OutOfBoundsError,
    UnsupportedError,
)
from ..findings import GM_READ_PAST_END, GM_WRITE_INTO_PADDING, Finding, FindingCode
from ..memory import GM_PAST_END_BYTE, SPACE_OF_LOC, GlobalMemory, Scratchpad
from ..tensors import GmRef, TileRef
from .spec import TargetSpec

# the C++ precision template arguments (DivAlgorithm, ExpAlgorithm ...): ptosim models the
# correctly rounded result, which the HIGH_PRECISION sequences are written to produce
ALGORITHMS = ("DEFAULT", "HIGH_PRECISION")


def check_algorithm(name: str, algorithm) -> str:
    """The upper-case algorithm name, or KernelError naming the instruction."""
    if not isinstance(algorithm, str) or algorithm.upper() not in ALGORITHMS:
        raise KernelError(
            f"{name}: algorithm must be one of {', '.join(ALGORITHMS)} (the C++ precision "
            f"template argument), got {algorithm!r}"
        )
    return algorithm.upper()


@dataclass(frozen=True)
class Arch:
    """What instruction checks may know about the device and the core they run on: the target
    family's behaviour spec (``spec``, read instead of the family name), memory sizes, and the
    core (``core_kind``: ``"vec"``, ``"aic"`` or ``"aiv"``, ptosim/cores.py) of a launch of kind
    ``launch`` (``"vec"``, ``"cube"``, ``"mix"``) with the buffers it has (``buffers``: space
    name -> bytes)."""

    target: str  # the family name, for messages ("cpu" | "a2a3" | "a5")
    device: str
    ub_size_bytes: int
    l1_size_bytes: int
    ub_align_bytes: int
    event_ids: int
    spec: TargetSpec
    buffers: tuple[tuple[str, int], ...] = ()
    core_kind: str = "vec"
    launch: str = "vec"

    def size_of(self, space: str) -> int | None:
        """Bytes of buffer ``space`` on this core, None when the core has no such buffer."""
        for name, size in self.buffers:
            if name == space:
                return size
        return None


# Validation memo (Instruction.check): an instruction whose ``validation_key`` is not None is
# validated once per key. False: validate every instruction.
VALIDATE_CACHE = True
_VALID: dict[tuple, Arch] = {}  # key -> the arch it was validated for
_VALID_SIZE = 4096


class Instruction:
    """Base of every recorded instruction.

    Subclasses set ``opcode`` (ISA spelling) and ``nominal_pipe``, list their operand attribute
    names in ``reads``/``writes`` and implement ``validate`` and ``execute``.
    """

    opcode: ClassVar[str] = "?"
    nominal_pipe: ClassVar[Pipe] = Pipe.PIPE_S
    reads: ClassVar[tuple[str, ...]] = ()
    writes: ClassVar[tuple[str, ...]] = ()
    # on-chip memory spaces written through no tile operand (the 950 raw UB <-> L1 copies,
    # ptosim/isa/cube/onchip.py): the data effects snapshot them too
    written_spaces: tuple[str, ...] = ()

    position: int = -1
    source: str | None = None
    # the kernel-code lines that called the helper function ``source`` is in, outermost first
    # (the kernel body's own call line first); empty when the kernel body emits it directly
    sites: tuple[str, ...] = ()
    # the atomic read-modify-write it applies to GM ("Add", "Max", "Min"), None: plain stores
    atomic_op: str | None = None
    # the FIFO operation (TPUSH, TPOP, TALLOC, TFREE) this instruction is part of, if any
    via: str | None = None
    # what it does for a TPipe (ptosim/isa/cube/fifo.py FifoMark), for the checker
    fifo: object = None
    _arch: Arch | None = None

    # -- operands ----------------------------------------------------------------------
    def tile_operands(self) -> dict[str, TileRef]:
        """Tile operands by name (used for placement, budgets and messages)."""
        out = {}
        for name in dict.fromkeys(self.reads + self.writes):
            value = getattr(self, name, None)
            if isinstance(value, TileRef):
                out[name] = value
        return out

    def gm_operands(self) -> dict[str, GmRef]:
        """GlobalTensor operands by name (what the instruction reads or writes in GM)."""
        out = {}
        for name in dict.fromkeys(self.reads + self.writes):
            value = getattr(self, name, None)
            if isinstance(value, GmRef):
                out[name] = value
        return out

    def is_simt(self, arch: Arch) -> bool:
        """True when this instruction runs as a SIMT launch on the target (950 budget rules)."""
        return False

    @property
    def label(self) -> str:
        name = self.opcode if self.via is None else f"{self.via}:{self.opcode}"
        return f"{name} #{self.position}" if self.position >= 0 else name

    # -- checks ------------------------------------------------------------------------
    @property
    def dtype_key(self) -> str:
        """The registry name whose dtype table (``TargetSpec.dtypes``) this instruction uses."""
        return self.opcode

    def validate(self, arch: Arch) -> None:
        """Check every constraint of the specification for ``arch``; raise ConstraintError."""

    def require_defined(self, arch: Arch, operand: str = "", dtype: DType | None = None) -> None:
        """UnsupportedError when the target does not define the instruction, or refuses it
        for ``operand``'s ``dtype`` (``TargetSpec.refusals``)."""
        spec = arch.spec
        refusal = spec.refusals.get(self.dtype_key)
        if refusal is not None and refusal.dtypes and dtype in refusal.dtypes:
            accepted = names(spec.dtypes.get(self.dtype_key) or ())
            self.unsupported(
                operand, "dtype", f"one of {accepted} on {arch.target}", dtype.name, refusal.reason
            )
        if spec.dtypes.get(self.dtype_key) is None or (refusal is not None and not refusal.dtypes):
            self.unsupported(
                "instruction", "target", "a target that defines " + self.dtype_key, arch.target,
                refusal.reason if refusal is not None else "",
            )  # fmt: skip

    def require_element_dtype(self, operand: str, ref, arch: Arch, rule: str = "dtype") -> None:
        """The operand's dtype is one the target accepts for this instruction."""
        self.require_dtype(operand, ref.dtype, arch.spec.dtypes.get(self.dtype_key) or (), rule)

    def check(self, arch: Arch) -> None:
        """Entry point used by the recorder: remembers the arch, then validates.

        An instruction with a ``validation_key`` is validated once per key; a failing
        validation raises every time (only successes are remembered)."""
        self._arch = arch
        key = self.validation_key(arch) if VALIDATE_CACHE else None
        if key is not None and _VALID.get(key) is arch:
            return
        self.check_valid_shapes()
        self.validate(arch)
        if key is not None:
            if len(_VALID) >= _VALID_SIZE:
                _VALID.clear()
            _VALID[key] = arch

    # operands whose valid shape no lowering reads (only their address: scratch tiles)
    address_only: ClassVar[frozenset[str]] = frozenset({"tmp"})

    def check_valid_shapes(self) -> None:
        """ConstraintError ``valid-within-shape`` when an operand's runtime valid shape exceeds
        its tile (``Tile.set_valid`` accepts it, as the library's constructor does: the
        instruction that reads the valid region refuses it; scratch operands are exempt). An
        empty valid region (a valid dim 0, such as the library's a5 TPARTARG tests' 8 x 0 view
        of a 1 x 8 tile) holds no element, whatever its other dim: it passes, as on the
        hardware, where such a transfer or operand moves nothing."""
        for name in self.reads + self.writes:
            ref = getattr(self, name, None)
            if (
                isinstance(ref, TileRef)
                and (ref.valid_row > ref.geom.rows or ref.valid_col > ref.geom.cols)
                and ref.valid_row
                and ref.valid_col
                and name not in self.address_only
            ):
                self.fail(
                    name,
                    "valid-within-shape",
                    f"0 <= ValidRow <= {ref.geom.rows} and 0 <= ValidCol <= {ref.geom.cols}",
                    f"({ref.valid_row}, {ref.valid_col})",
                )

    def validation_key(self, arch: Arch) -> tuple | None:
        """The signature ``validate`` is a pure function of, or None (the default) to validate
        every instance. A subclass whose validation is costly and reads only part of its
        operands (not a GM offset, say) returns ``(class, id(arch), <that part>)``: ``check``
        then validates once per signature (only successes are remembered)."""
        return None

    def fail(self, operand: str, rule: str, expected, given, detail: str = "") -> NoReturn:
        raise ConstraintError(
            self.opcode,
            operand,
            rule,
            expected,
            given,
            target=self._arch.target if self._arch else None,
            position=self.position if self.position >= 0 else None,
            source=self.source,
            detail=detail,
        )

    def unsupported(self, operand: str, rule: str, expected, given, detail: str = "") -> NoReturn:
        raise UnsupportedError(
            self.opcode,
            operand,
            rule,
            expected,
            given,
            target=self._arch.target if self._arch else None,
            position=self.position if self.position >= 0 else None,
            source=self.source,
            detail=detail,
        )

    def require(self, ok: bool, operand: str, rule: str, expected, given, detail: str = ""):
        if not ok:
            self.fail(operand, rule, expected, given, detail)

    def require_dtype(self, operand: str, dt: DType, allowed, rule: str = "dtype", detail=""):
        if dt not in allowed:
            self.fail(operand, rule, f"one of {names(allowed)}", dt.name, detail)

    def require_loc(self, operand: str, ref: TileRef, loc: TileType = TileType.Vec):
        if ref.loc is not loc:
            self.fail(
                operand, "tile-location", f"TileType::{loc.name}", f"TileType::{ref.loc.name}"
            )

    def require_same_dtype(self, a: str, ra, b: str, rb):
        if ra.dtype is not rb.dtype:
            self.fail(b, "same-dtype", f"{ra.dtype.name} (the dtype of {a})", rb.dtype.name)

    # -- semantics ---------------------------------------------------------------------
    def execute(self, ctx: ExecContext) -> None:
        raise NotImplementedError(self.opcode)

    def __repr__(self) -> str:
        return f"<{self.label}>"


class ExecContext:
    """Memories and collected findings of a run, with typed accessors for instructions.

    ``buffers`` maps each on-chip space of the core (``"UB"``, ``"L1"``, ``"L0A"`` ...) to its
    memory; ``ub`` and ``l1`` are two of them (None on a core without that buffer)."""

    def __init__(
        self,
        arch: Arch,
        ub: Scratchpad | None,
        l1: Scratchpad | None,
        gm: GlobalMemory,
        buffers: dict[str, Scratchpad] | None = None,
    ):
        self.arch = arch
        self.ub = ub
        self.l1 = l1
        self.gm = gm
        self.buffers: dict[str, Scratchpad] = {}
        for mem in (ub, l1):
            if mem is not None:
                self.buffers[mem.name] = mem
        self.buffers.update(buffers or {})
        self.findings: list[Finding] = []
        self.instr: Instruction | None = None
        self.tiles: list = []  # placement slots of every tile the program uses (name, address)
        self.config = None  # the DeviceConfig (set by the run; plans read their costs from it)
        self.plan_state: dict = {}  # per-core state of a target's planner (e.g. a cache model)
        self.simulate_launch = None  # the engine's SIMT model, handed to plans by the run
        self._gm_reported: set[tuple] = set()  # F110, F113 reported (once per site)
        self._once: set[tuple] = set()  # (finding kind, site) pairs reported once per run

    @property
    def target(self) -> str:
        return self.arch.target

    @property
    def spec(self) -> TargetSpec:
        """The target family's behaviour spec (what instruction semantics branch on)."""
        return self.arch.spec

    def memory_of(self, ref: TileRef) -> Scratchpad:
        """The memory a tile lives in (the run placed only tiles its core has)."""
        return self.buffers[SPACE_OF_LOC[ref.loc]]

    def first_at_site(self, kind: str) -> bool:
        """True the first time the current instruction's site (its source line) reports
        ``kind`` in this run: a loop repeating the line reports it once."""
        site = (self.instr.source or self.instr.position) if self.instr else None
        if (kind, site) in self._once:
            return False
        self._once.add((kind, site))
        return True

    def tile_storage(self, ref: TileRef) -> np.ndarray:
        """Writable typed view of the tile's whole storage (Rows*Cols elements).

        Raises:
            MemoryLayoutError: rule ``fits-in-memory`` at the accessing instruction, for a tile
                a TASSIGN placed (partly) past the end of its memory (D22).
        """
        mem = self.memory_of(ref)
        address = ref.address
        if address is not None and (address < 0 or address + ref.size_bytes > mem.size_bytes):
            self._outside_memory(ref, mem)
        return mem.typed(address, ref.dtype, ref.numel)

    def _outside_memory(self, ref: TileRef, mem: Scratchpad) -> NoReturn:
        instr = self.instr
        operand = next(
            (name for name, r in instr.tile_operands().items() if r is ref), "tile"
        ) if instr else "tile"  # fmt: skip
        end = ref.address + ref.size_bytes
        placement = getattr(ref.placement, "root", ref.placement)
        at = f" at {placement.assigned_at}" if getattr(placement, "assigned_at", None) else ""
        raise MemoryLayoutError(
            instr.opcode if instr else "access",
            operand,
            "fits-in-memory",
            f"address + {ref.size_bytes} bytes <= {mem.name} size {mem.size_bytes}",
            f"{ref.address:#x} + {ref.size_bytes} = {end:#x}",
            target=self.arch.target,
            source=instr.source if instr else None,
            position=instr.position if instr else None,
            detail=f"tile {ref.name}, placed by the TASSIGN{at}; this instruction accesses it",
        )

    def memory_from(self, ref: TileRef) -> np.ndarray:
        """Writable typed view from the tile's address to the end of its memory."""
        return self.memory_of(ref).typed(ref.address, ref.dtype)

    def tile_read(self, ref: TileRef, rows: int | None = None, cols: int | None = None):
        """Copy of the logical block [0:rows, 0:cols] (default: the valid region)."""
        rows = ref.valid_row if rows is None else rows
        cols = ref.valid_col if cols is None else cols
        r, c = ref.geom.grid(rows, cols)
        return self.tile_storage(ref)[ref.offsets(r, c)]

    def tile_write(self, ref: TileRef, values, rows: int | None = None, cols: int | None = None):
        """Write a (rows, cols) block (default: the valid region) at logical [0:rows, 0:cols]."""
        rows = ref.valid_row if rows is None else rows
        cols = ref.valid_col if cols is None else cols
        r, c = ref.geom.grid(rows, cols)
        self.tile_storage(ref)[ref.offsets(r, c)] = np.asarray(values).astype(
            ref.dtype.np, copy=False
        )

    def gm_check(self, ref: GmRef, offsets, operand: str, *, read: bool = False) -> None:
        """Raise OutOfBoundsError if any element offset leaves the operand's GM buffer; a read
        (``read=True``) past its end proceeds instead, with finding F110 (D21)."""
        self._gm_bounds(ref, offsets, operand, read)

    def _gm_bounds(
        self, ref: GmRef, offsets, operand: str, read: bool = False
    ) -> tuple[int, int] | None:
        """``gm_check``; returns the (lowest, highest) element offset inside the buffer, None
        when there is none."""
        offsets = np.asarray(offsets)
        if offsets.size == 0:
            return None
        limit = ref.buffer.nbytes // ref.dtype.size_bytes
        lo, hi = int(offsets.min()), int(offsets.max())
        if lo < 0 or (hi >= limit and not read):
            bad = lo if lo < 0 else hi
            instr = self.instr
            where = f" ({instr.source})" if instr is not None and instr.source else ""
            raise OutOfBoundsError(
                f"{instr.label if instr else ''}{where}: operand '{operand}' would access "
                f"element {bad} of {ref.buffer!r} which holds {limit} elements"
                f"{_padding_note(ref.buffer)}; nothing was written"
            )
        if hi >= limit:
            self._read_past_end(ref, (hi + 1) * ref.dtype.size_bytes, operand)
            hi = limit - 1
        elif not read and (hi + 1) * ref.dtype.size_bytes > ref.buffer.usable_bytes:
            self._write_into_padding(ref, (hi + 1) * ref.dtype.size_bytes, operand)
        return (lo, hi) if lo <= hi else None

    def _write_into_padding(self, ref: GmRef, end_byte: int, operand: str) -> None:
        """Finding F113, once per (instruction site, buffer) of the run (D23)."""
        site = (self.instr.source or self.instr.opcode) if self.instr else ""
        key = ("padding", site, ref.buffer.buffer_id)
        if key in self._gm_reported:
            return
        self._gm_reported.add(key)
        asked = ref.buffer.usable_bytes
        self.finding(
            GM_WRITE_INTO_PADDING,
            "gm-write-into-padding",
            f"operand '{operand}' ({ref.describe()}) writes {end_byte - asked} byte(s) past the "
            f"{asked} bytes asked of aclrtMalloc for GM buffer #{ref.buffer.buffer_id}, into the "
            f"runtime's padding (the allocation is {ref.buffer.nbytes} bytes)",
        )

    def _read_past_end(self, ref: GmRef, end_byte: int, operand: str) -> None:
        """Finding F110, once per (instruction site, tensor) of the run: a loop re-reading the
        same view reports it once."""
        site = (self.instr.source or self.instr.opcode) if self.instr else ""
        key = (site, ref.buffer.buffer_id, ref.offset, ref.geom.shape, ref.geom.stride)
        if key in self._gm_reported:
            return
        self._gm_reported.add(key)
        nbytes = ref.buffer.nbytes
        self.finding(
            GM_READ_PAST_END,
            "gm-read-past-end",
            f"operand '{operand}' ({ref.describe()}, element offset {ref.offset}) reads "
            f"{end_byte - nbytes} byte(s) past the end of GM buffer #{ref.buffer.buffer_id}, "
            f"whose allocation is {nbytes} bytes; they read as {GM_PAST_END_BYTE:#04x} bytes",
        )

    def finding(self, code: FindingCode, kind: str, message: str, *extra_positions: int) -> None:
        positions = ((self.instr.position,) if self.instr else ()) + extra_positions
        label = f"{self.instr.label}" + (f" ({self.instr.source})" if self.instr.source else "")
        self.findings.append(code.make(kind, f"{label}: {message}", positions))


def _padding_note(buf) -> str:
    """How an allocation padded by the runtime came to its size (D23), or nothing."""
    if buf.requested_bytes is None:
        return ""
    return (
        f" ({buf.requested_bytes} bytes asked of aclrtMalloc, {buf.nbytes - buf.requested_bytes} "
        "bytes of the runtime's padding after them)"
    )
