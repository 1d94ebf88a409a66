"""The cores of a launch: which core each simulated program runs on, and the groups of the FFTS
cross-core flags between them.

An Atlas A2/A3 (and 950) AI core is one cube core (AIC) and two vector cores (AIV0, AIV1)
(reference/cube_isa.md 1.1). A kernel declares which of them it uses (``@pto.kernel(cores=...)``):

- ``"vec"`` (the default): a vector-only kernel; ``block_dim`` counts vector cores, as before.
  Each block is one core with the vector core's UB (and, for the kernels written before the
  cube was modelled, an L1 of its own).
- ``"cube"``: a cube-only kernel; ``block_dim`` counts AI cores, each block runs on its AIC.
- ``"mix"``: a mixed kernel; ``block_dim`` counts AI cores and the kernel body runs on all three
  cores of each: the AIC, AIV0 and AIV1 (the C++ kernel's cube half sees ``__DAV_CUBE__``, its
  vector half ``__DAV_VEC__``).

Each core of a launch is one program of the engine; its index (``core``) is its place in the
launch's list: block ``b`` of a mixed kernel is cores ``3b`` (AIC), ``3b + 1`` (AIV0) and
``3b + 2`` (AIV1).

FFTS flags (``ffts_cross_core_sync(pipe, mode, flag)`` / ``wait_flag_dev(flag)``, cube_isa.md
1.4): a post joins a *round* of a group of posters; when every poster has posted, each
*receiver* of the round counts one on its semaphore of that flag.

- mode 0: every core of the poster's kind (vector-only launch: every core);
- mode 1: the two vector cores of one AI core (vector-only launch: blocks ``2g``, ``2g + 1``);
- mode 2 (mixed launches): a post from the AIC reaches both AIVs of its AI core (broadcast: a
  round of one poster, two receivers); a post from an AIV joins the round of both AIVs, and
  the AIC counts one when both have posted (a wait on the cube needs both vector cores).
- modes 3, 4, 5 (950 intra-block flags, ptosim/isa/sync.py ``set_intra_block``): point to point
  within an AI core, one poster and one receiver: the AIC to AIV0 (3) or AIV1 (4), an AIV to
  the AIC (5).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import KernelError

LAUNCHES = ("vec", "cube", "mix")
# core kinds: a vector core of a vector-only launch, the cube core, a vector core of an AI core
VEC, AIC, AIV = "vec", "aic", "aiv"
# the pseudo modes of the 950 intra-block flags: AIC -> AIV0, AIC -> AIV1, AIV -> AIC
# (ptosim/isa/sync.py INTRA_TO_AIV0, INTRA_TO_AIV1, INTRA_TO_AIC)
INTRA_MODES = (3, 4, 5)
INTRA_FLAG_BASE = 64  # intra-block ids are keyed from here, apart from the FFTS flags 0..15
INTRA_SUBCORE_OFFSET = 16  # the library's a5 VEC_CORE_ID_OFFSET: cube id + 16 addresses AIV1
INTRA_ID_RULE = (
    "cube ids 0-15 reach AIV0, 16-31 AIV1 as id - 16; AIVk's id reaches the cube as id + 16 k"
)


def parse_cores(value, what: str = "kernel cores") -> str | None:
    """A launch kind from ``"vec"``, ``"cube"``, ``"mix"`` (any case) or None (decided by the
    body: ``"cube"`` when it uses a cube buffer, else ``"vec"``).

    Raises:
        KernelError: any other value.
    """
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in LAUNCHES:
        return value.strip().lower()
    raise KernelError(f"{what}: {value!r} is not one of 'vec', 'cube', 'mix'")


@dataclass(frozen=True)
class CoreRole:
    """One core of a launch.

    Attributes:
        block: the block (``get_block_idx()``): the vector core of a vector-only launch, the AI
            core of a cube or mixed one.
        kind: ``"vec"``, ``"aic"`` or ``"aiv"``.
        subblock: ``get_subblockid()``: 0 or 1 for AIV0 / AIV1, else 0.
        launch: ``"vec"``, ``"cube"`` or ``"mix"``.
    """

    block: int
    kind: str = VEC
    subblock: int = 0
    launch: str = "vec"

    @property
    def is_cube(self) -> bool:
        return self.kind == AIC

    @property
    def subblock_dim(self) -> int:
        """``get_subblockdim()``: the vector cores of the AI core this vector core shares."""
        return 2 if self.kind == AIV else 1

    @property
    def name(self) -> str:
        """``AIC``, ``AIV0``, ``AIV1``, or ``AIV`` on a vector-only launch."""
        if self.kind == AIC:
            return "AIC"
        return f"AIV{self.subblock}" if self.kind == AIV else "AIV"

    @property
    def label(self) -> str:
        """How messages and traces name the core: ``core 3`` (vector-only launch) or
        ``block 3 AIV1``."""
        if self.kind == VEC:
            return f"core {self.block}"
        return f"block {self.block} {self.name}"


def launch_roles(launch: str, block_dim: int) -> list[CoreRole]:
    """The cores of a launch of ``block_dim`` blocks, in engine order."""
    if launch == "vec":
        return [CoreRole(b) for b in range(block_dim)]
    if launch == "cube":
        return [CoreRole(b, AIC, 0, "cube") for b in range(block_dim)]
    out = []
    for b in range(block_dim):
        out += [CoreRole(b, AIC, 0, "mix"), CoreRole(b, AIV, 0, "mix"), CoreRole(b, AIV, 1, "mix")]
    return out


class Topology:
    """Who takes part in the FFTS rounds of a launch (see the module docstring)."""

    def __init__(self, roles: list[CoreRole]):
        self.roles = list(roles)
        self._index = {(r.block, r.kind, r.subblock): n for n, r in enumerate(self.roles)}
        self._rounds: dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    @classmethod
    def vector(cls, n_cores: int) -> Topology:
        """The topology of a vector-only launch of ``n_cores`` cores."""
        return cls(launch_roles("vec", n_cores))

    def __len__(self) -> int:
        return len(self.roles)

    def label(self, core: int) -> str:
        return self.roles[core].label if 0 <= core < len(self.roles) else f"core {core}"

    def names(self, cores, lead: str = "cores") -> str:
        """Cores in a message: ``cores 0, 1`` (``lead`` and the numbers) on a vector-only
        launch, ``block 0 AIV0, block 0 AIV1`` on a cube or mixed one."""
        if all(0 <= c < len(self.roles) and self.roles[c].kind != VEC for c in cores):
            return ", ".join(self.roles[c].label for c in cores)
        return f"{lead} " + ", ".join(str(c) for c in cores)

    def _core(self, block: int, kind: str, subblock: int = 0) -> int:
        """The index of a core of the launch, or a number past the launch when it was not
        launched (a vector-only launch of an odd number of cores, mode 1)."""
        return self._index.get((block, kind, subblock), len(self.roles) + block)

    def round_of(self, core: int, mode: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(posters, receivers) of the round a post of ``core`` in ``mode`` joins."""
        key = (core, mode)
        hit = self._rounds.get(key)
        if hit is None:
            hit = self._rounds[key] = self._round(core, mode)
        return hit

    def posters_to(self, core: int, mode: int) -> tuple[int, ...]:
        """The posters of the round of ``mode`` whose receivers include ``core`` (the cores a
        ``wait_flag_dev`` on ``core`` waits for)."""
        role = self.roles[core]
        if mode != 2 or role.kind == VEC:
            return self.round_of(core, mode)[0]
        if role.kind == AIC:
            return (self._core(role.block, AIV, 0), self._core(role.block, AIV, 1))
        return (self._core(role.block, AIC),)

    def likely_mode(self, core: int) -> int:
        """The mode of a wait whose flag nobody posts (a wait carries no mode): the cube <-> vector
        hand-over (2) on a mixed launch, else every core of the kind (0)."""
        return 2 if self.roles[core].launch == "mix" else 0

    def memory_owner(self, core: int, space: str) -> tuple[str, int]:
        """(buffer, owning core) of an on-chip access by ``core`` where the cores of an AI
        core reach each other's buffers (950): the cube core's ``UB@AIVk`` is AIVk's UB, a
        vector core's ``L1`` its cube core's; any other access is to ``core``'s own buffer."""
        role = self.roles[core] if 0 <= core < len(self.roles) else None
        if role is None or role.launch != "mix":
            return space, core
        if space.startswith("UB@AIV"):
            return "UB", self._core(role.block, AIV, int(space[len("UB@AIV") :]))
        if space == "L1" and role.kind == AIV:
            return "L1", self._core(role.block, AIC)
        return space, core

    def intra_sender(self, core: int, flag: int) -> tuple[int, int, int] | None:
        """For a 950 ``wait_intra_block`` on ``core`` (its ``flag``: INTRA_FLAG_BASE + id, see
        ptosim/isa/sync.py): (the one core that can post it, the id that core passes to
        set_intra_block, the id waited on); None for an FFTS flag. The cube core's ids 0-15
        come from AIV0 and 16-31 from AIV1 (as id - 16); AIVk's id comes from the cube core's
        id + 16 k (the library's a5 SyncAll and TSync)."""
        block_id = flag - INTRA_FLAG_BASE
        if block_id < 0:
            return None
        role = self.roles[core]
        if role.kind == AIC:
            sub, sent = divmod(block_id, INTRA_SUBCORE_OFFSET)
            return self._core(role.block, AIV, sub), sent, block_id
        sent = block_id + INTRA_SUBCORE_OFFSET * role.subblock
        return self._core(role.block, AIC), sent, block_id

    def intra_missing(self, core: int, flag: int) -> str | None:
        """Why a 950 ``wait_intra_block`` on ``core`` never returns: which core would post it
        and with which id; None for an FFTS flag."""
        sender = self.intra_sender(core, flag)
        if sender is None:
            return None
        poster, sent, block_id = sender
        return (
            f"no set_intra_block(pipe, {sent}) from {self.names([poster], 'core')} reaches "
            f"{self.names([core], 'core')} as id {block_id} ({INTRA_ID_RULE})"
        )

    def _round(self, core: int, mode: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        role = self.roles[core]
        if mode in INTRA_MODES:  # 950 intra-block: one poster, one receiver
            if mode == INTRA_MODES[2]:
                return (core,), (self._core(role.block, AIC),)
            return (core,), (self._core(role.block, AIV, mode - INTRA_MODES[0]),)
        if mode == 0:
            same = tuple(n for n, r in enumerate(self.roles) if r.kind == role.kind)
            return same, same
        if role.kind == VEC:  # mode 1 on a vector-only launch: the pair 2g, 2g + 1
            pair = (core & ~1, core | 1)
            return pair, pair
        aivs = (self._core(role.block, AIV, 0), self._core(role.block, AIV, 1))
        if mode == 1:
            return aivs, aivs
        if role.kind == AIC:  # mode 2 from the cube: both vector cores count one
            return (core,), aivs
        return aivs, (self._core(role.block, AIC),)  # mode 2 from a vector core: the cube
