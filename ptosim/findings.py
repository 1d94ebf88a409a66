"""Findings: problems a run detects and collects (they do not stop the run), and the one
registry of their codes (``FindingCode``): every finding is made from its code's entry, and the
docs tables are generated from the registry (``finding_codes``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """One machine-readable edit of a fix, on the recorded program (kernel positions).

    Attributes:
        action: ``"insert"`` (a new sync instruction), ``"move"`` (an existing wait_flag) or
            ``"retarget"`` (give the set_flag/wait_flag at ``position`` ``event_id``).
        op: ``"set_flag"``, ``"wait_flag"``, ``"pipe_barrier"``, ``"wait_flag_dev"`` or
            ``"wait_intra_block"``.
        where: ``"before"`` or ``"after"`` the anchor instruction.
        anchor: kernel position of the anchor instruction.
        anchor_source: source line of the anchor (``file.py:line``), when known.
        src, dst, event_id: the flag (set_flag / wait_flag; for wait_flag_dev, event_id is
            the FFTS flag id; for wait_intra_block, the id waited on); pipe: the barrier's
            pipe, or the pipe a wait_intra_block blocks.
        position: for ``"move"``, the kernel position of the instruction to move.
    """

    action: str
    op: str
    where: str
    anchor: int
    anchor_source: str | None = None
    src: str | None = None
    dst: str | None = None
    event_id: int | None = None
    pipe: str | None = None
    position: int | None = None

    def describe(self) -> str:
        line = f" ({self.anchor_source})" if self.anchor_source else ""
        if self.action == "retarget":
            return f"use EVENT_ID{self.event_id} in #{self.position}{line}"
        if self.op == "pipe_barrier":
            what = f"pipe_barrier({self.pipe})"
        elif self.op == "wait_flag_dev":
            what = f"wait_flag_dev({self.event_id})"
        elif self.op == "wait_intra_block":
            what = f"wait_intra_block({self.pipe}, {self.event_id})"
        else:
            what = f"{self.op}({self.src}, {self.dst}, EVENT_ID{self.event_id})"
        if self.action == "move":
            what = f"move {what} #{self.position}"
        else:
            what = f"insert {what}"
        return f"{what} {self.where} #{self.anchor}{line}"


@dataclass(frozen=True)
class Finding:
    """One collected finding.

    Attributes:
        code: stable code (``F1xx`` semantics, ``F2xx`` synchronisation).
        kind: short machine-readable kind (``gm-pitch``, ``index-outside-tile`` ...).
        message: the explanation, naming the instruction(s) and how to fix it.
        instructions: kernel positions involved.
        fix: the suggested fix as edits of the recorded program (``ptosim.checks.fixes``
            applies them); empty when there is no mechanical fix.
        patch: for a cause, its fix as ``LineEdit``s of the kernel's source lines (applied
            to every instruction recorded from those lines, as a patch of the file is).
        consequences: for a cause, the findings its fix removes.
    """

    code: str
    kind: str
    message: str
    instructions: tuple[int, ...] = ()
    fix: tuple[Edit, ...] = ()
    # causes first (ptosim.checks.causes): the repair as edits of source lines, and the
    # findings this one causes (they go away with its fix)
    patch: tuple = ()
    consequences: tuple[Finding, ...] = ()

    def __str__(self) -> str:
        return f"[{self.code} {self.kind}] {self.message}"


def flatten(findings) -> list[Finding]:
    """Every finding of a causes-first list: each cause, then its consequences."""
    out: list[Finding] = []
    for f in findings:
        out.append(f)
        out += flatten(f.consequences)
    return out


_CODES: dict[str, FindingCode] = {}


@dataclass(frozen=True)
class FindingCode:
    """One stable finding code: the registry entry every finding of that code is made from.

    Attributes:
        code: ``F1xx`` (semantics a target leaves to the kernel) or ``F2xx`` (synchronisation).
        name: short name (its findings' kind when it has one kind).
        kinds: the kinds its findings carry (``Finding.kind``); by default ``(name,)``.
        meaning: one line saying what was found.
        fix: one line saying how a kernel usually fixes it ("" when there is no usual fix).
        No text of the registry may contain ``|`` (its docs tables are markdown).
    """

    code: str
    name: str
    meaning: str
    fix: str = ""
    kinds: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.kinds:
            object.__setattr__(self, "kinds", (self.name,))
        if self.code in _CODES:
            raise ValueError(f"finding code {self.code} is defined twice")
        _CODES[self.code] = self

    def make(
        self, kind: str, message: str, instructions: tuple[int, ...] = (), fix: tuple = ()
    ) -> Finding:
        """A finding of this code (``kind`` one of ``kinds``)."""
        if kind not in self.kinds:
            raise ValueError(f"{self.code} has no kind {kind!r} (kinds: {self.kinds})")
        return Finding(self.code, kind, message, tuple(instructions), tuple(fix))


def finding_codes() -> list[FindingCode]:
    """Every finding code, in code order (the docs tables are generated from them)."""
    return sorted(_CODES.values(), key=lambda c: c.code)


def markdown_table(*, short: bool = False) -> str:
    """The docs table of the finding codes (generated into docs/reference/codes.md; ``short``: code
    and meaning only, for the README)."""
    if short:
        lines = ["| code | finding |", "|---|---|"]
        for c in finding_codes():
            kinds = ", ".join(f"`{k}`" for k in c.kinds)
            lines.append(f"| {c.code} | {kinds}: {c.meaning} |")
    else:
        lines = ["| code | kinds | meaning | fix |", "|---|---|---|---|"]
        for c in finding_codes():
            kinds = ", ".join(f"`{k}`" for k in c.kinds)
            lines.append(f"| {c.code} | {kinds} | {c.meaning} | {c.fix or '-'} |")
    return "\n".join(lines) + "\n"


# -- the registry ----------------------------------------------------------------------------
# D<n> refers to the semantic decisions of docs/decisions.md.
GM_PITCH = FindingCode(
    "F101",
    "gm-pitch",
    "an a2a3 TLOAD/TSTORE with `validCol != shape4` reads or writes packed-valid GM rows "
    "(pitch `validCol + stride3 - shape4`, D7)",
    "give the tile the view's column count, or a view whose shape4 is the valid width",
)
INDEX_OUTSIDE_TILE = FindingCode(
    "F102",
    "index-outside-tile",
    "a TSCATTER index past the destination tile; names the tiles the write lands on (D5)",
    "keep every index below Rows * Cols of the destination",
)
SCATTER_COLLISION = FindingCode(
    "F103",
    "scatter-collision",
    "an a5 MSCATTER with Conflict::Default resolved colliding writes in the simulated "
    "schedule's order (D6)",
    "use Conflict::Last, or indices without duplicates",
)
HIDDEN_SCRATCH = FindingCode(
    "F104",
    "hidden-scratch",
    "a live tile overlaps the hidden a2a3 TROWEXPAND* scratch at [184 KiB, 192 KiB) (D10)",
    "place no live tile in the last 8 KiB of UB, or pass a tmp tile",
)
TILE_OVERLAP = FindingCode(
    "F105",
    "tile-overlap",
    "the operands of one instruction overlap in UB",
    "give dst its own tile",
)
DMA_EXTENT = FindingCode(
    "F106",
    "dma-extent",
    "an a2a3 TLOAD/TSTORE whose valid rows (ND) or columns (DN) differ from the view's; the "
    "DMA moves the view's extent, past the tile into the UB after it if need be (D14)",
    "make the view's shape match the tile's valid shape",
)
DUP_CLOBBERS_SRC = FindingCode(
    "F107",
    "dup-clobbers-src",
    "an a2a3 TDIVS/TRECIP whose vector_dup of the scalar overwrites a src that overlaps dst "
    "before the division reads it",
    "give dst its own tile",
)
SCALAR_ROUNDED = FindingCode(
    "F108",
    "scalar-rounded",
    "an a2a3 int32 TSUBS whose scalar (magnitude above 2**24), negated through float, was "
    "rounded: the result is not an exact subtraction",
    "keep the scalar within 2**24 in magnitude, or subtract a tile (TSUB)",
)
CONVERSION_UNDEFINED = FindingCode(
    "F109",
    "conversion-undefined",
    "TCVT (or a cpu TLOG / TPOW on integers) whose result the reference leaves undefined (NaN, "
    "infinities or out-of-range values to an integer type); ptosim gives the result "
    "docs/reference/conversion.md names",
    "clamp or filter the data before converting",
)
GM_READ_PAST_END = FindingCode(
    "F110",
    "gm-read-past-end",
    "a GM read runs past the end of its allocation; on hardware the DMA reads whatever lies "
    "there, ptosim reads zero bytes (what the library's own tests assume); reported once per "
    "instruction site and tensor",
    "size the GM buffer for the whole view, or shrink the view",
)
TILE_OUTSIDE_MEMORY = FindingCode(
    "F111",
    "tile-outside-memory",
    "a TASSIGN places a tile (partly) past the end of its memory (UB, L1 ...); only an address is "
    "set, so the run goes on and the first instruction that reads or writes bytes of it past "
    "the end stops with rule `fits-in-memory` (D22); reported once per TASSIGN site",
    "a TASSIGN address with the whole tile inside the memory (`ptosim devices` lists the sizes)",
)
GM_STRIDE_IGNORED = FindingCode(
    "F112",
    "gm-stride-ignored",
    "an a2a3 TLOAD/TSTORE view whose burst-dimension stride (ND stride[4], DN stride[3], NZ "
    "strides 2-4) is not the contiguous one: the DMA never reads it and moves contiguous bursts "
    "(D13); reported once per instruction site",
    "give the view the contiguous stride (DN stride[3] = 1), or pack the data",
)
GM_WRITE_INTO_PADDING = FindingCode(
    "F113",
    "gm-write-into-padding",
    "a GM write runs past the bytes the program asked aclrtMalloc for, into the padding the "
    "runtime adds (D23): it works on the device but corrupts whatever follows under any other "
    "allocator, and aclrtMemcpy of the requested size never returns those bytes; reported once "
    "per instruction site and buffer",
    "allocate the bytes the kernel writes (whole 32-byte blocks for block copies), or shrink the "
    "write",
)
UB_RESERVE = FindingCode(
    "F114",
    "ub-reserve",
    "a TASSIGN or raw UB copy of a launch without SIMT work reaches the top of the 950 UB that "
    "the platform config reserves (its ub_size, 248 KiB, ends 8 KiB below the physical 256 "
    "KiB): the library's own kernels and limits use the whole UB, so the run goes on; memory "
    "managed by AscendC stays below it and a SIMT launch may not use it; reported once per site",
    "keep the tile below the platform config's ub_size if the kernel shares the core with "
    "AscendC-managed buffers or SIMT work",
)
FLAG_UNCONSUMED = FindingCode(
    "F201",
    "flag-unconsumed",
    "a `set_flag` never waited (names its line and where to put the drain wait); "
    "`cross-flag-unconsumed`: a cross-core round (`ffts_cross_core_sync`) no `wait_flag_dev` "
    "consumed by the end of the run, or one a core of its group never completed; a 950 "
    "`set_intra_block` post no `wait_intra_block` consumed",
    "wait for it before the kernel ends (`wait_flag`, `wait_flag_dev(flag)`, "
    "`wait_intra_block(pipe, id)`)",
    kinds=(
        "flag-unconsumed",
        "cross-flag-unconsumed",
        "missing-wait",
        "stray-set",
        "wrong-event",
        "wrong-pipe-pair",
    ),
)
FLAG_MISUSE = FindingCode(
    "F202",
    "flag-misuse",
    "a kernel flag pairs with a step of an instruction's internal flag chain "
    "(`flag-library-collision`), or (with `sync.flag_depth` set) an event may hold more "
    "posts than its depth (`flag-depth`); reuse that the counting pairs right is no finding",
    "use another event id, or wait before setting again",
    kinds=("flag-library-collision", "flag-depth"),
)
RACE = FindingCode(
    "F203",
    "race",
    "two pipes of one core access overlapping UB/L1/GM bytes (one writes) with nothing "
    "ordering them; names both instructions, pipes and bytes",
    "the set_flag/wait_flag pair the finding names (`finding.fix`)",
    kinds=("race-raw", "race-war", "race-waw", "missing-handshake", "wrong-pipe-pair"),
)
LIVE_OVERLAP = FindingCode(
    "F204",
    "tile-overlap-live",
    "a tile is written while an overlapping tile still holds live data",
    "move one of the tiles (TASSIGN) or end the other's use first",
)
CROSS_CORE = FindingCode(
    "F205",
    "cross-core-race",
    "two blocks (cores) touch overlapping GM, one writes, and no cross-core flag chain "
    "orders them (hardware atomics of the same op excepted)",
    "order them with `ffts_cross_core_sync` / `wait_flag_dev`, or use an atomic op",
    kinds=("cross-core-race", "fifo-no-split-push"),
)
DMA_REORDER = FindingCode(
    "F206",
    "dma-reorder",
    "two DMAs of one MTE pipe write overlapping GM with no `pipe_barrier` (or flag chain) "
    "between them",
    "`pipe_barrier` on that pipe between them",
)
VECTOR_ORDER = FindingCode(
    "F207",
    "vector-order",
    "a vector instruction reads (or overwrites) UB an earlier vector instruction writes, "
    "with no `pipe_barrier(PIPE_V)` (or flag chain through another pipe) between them; a2a3 "
    "and cpu only",
    "`pipe_barrier(PIPE_V)` between them",
    kinds=("vector-raw", "vector-waw"),
)
FLAG_REUSED = FindingCode(
    "F208",
    "event-reused",
    "a kernel `set_flag` on an event whose earlier post is not waited yet (program order); "
    'names both sets and the next wait (the reference\'s "Event ID still occupied")',
    "wait before setting again, or give the second set and its wait a free id",
    kinds=("event-reused", "reused-event", "wrong-pipe-pair"),
)
FLAG_NEVER_POSTED = FindingCode(
    "F209",
    "wait-never-posted",
    "a wait never passes: nothing posts it, its post comes after it, or a cross-core round "
    "never completes; a hang (`DeadlockError`) on every target, cpu included",
    "add the missing set, correct the event, or move the wait after its post",
    kinds=(
        "wait-never-posted",
        "wait-before-post",
        "cross-wait-never-posted",
        "missing-set",
        "wrong-event",
        "wrong-pipe-pair",
        "stray-wait",
    ),
)
