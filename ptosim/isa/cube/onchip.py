"""The raw on-chip copies between a 950 cube core and its vector cores (reference/cube_isa.md
1.1: on 950 UB <-> L1 is a direct path; 1.3: Vec -> Mat runs ``copy_ubuf_to_cbuf``):

- ``copy_ubuf_to_cbuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap)`` on a vector core
  (PIPE_MTE3): UB -> the L1 of its AI core's cube core;
- ``copy_cbuf_to_ubuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap)`` on the cube core
  (PIPE_MTE1): L1 -> the UB of vector core ``sid`` (AIV0 or AIV1) of its AI core.

Both move ``nBurst`` bursts of ``lenBurst`` 32-byte blocks; ``srcGap`` / ``dstGap`` blocks
separate one burst's end from the next one's start (the library's a5 TINSERT computes them so:
a source column block of Rows blocks holds a burst of validRow blocks and a gap of Rows -
validRow). Addresses are byte offsets in the buffers. Which core's buffer is written is the
memory space the instruction names: ``L1`` on a vector core is its cube core's L1 (shared,
ptosim/run.py), ``UB@AIV0`` / ``UB@AIV1`` on the cube core are the vector cores' UBs; the
checker keys both by the core that owns them (ptosim/cores.py ``Topology.memory_owner``).
"""

from __future__ import annotations

from ...argcheck import as_int
from ...dtypes import dtype
from ...enums import Pipe
from ...errors import ConstraintError
from ...program import current, emit
from ..base import Arch, ExecContext, Instruction
from ..registry import instruction

BLOCK_BYTES = 32  # one burst block (lenBurst and gap unit)
MAX_BURSTS = 4095  # nBurst is a 12-bit field of the move intrinsics
PEER_UB = ("UB@AIV0", "UB@AIV1")
UINT8 = dtype("uint8")  # the cube core's names of its vector cores' UBs


class OnchipCopy(Instruction):
    """One raw UB <-> L1 copy of bursts (module docstring)."""

    reads = ()
    writes = ()

    def __init__(self, opcode: str, pipe: Pipe, src_space: str, dst_space: str, src: int,
                 dst: int, sid: int, n_burst: int, len_burst: int, src_gap: int,
                 dst_gap: int, core_kind: str):  # fmt: skip
        self.opcode, self.pipe = opcode, pipe
        self.src_space, self.dst_space = src_space, dst_space
        self.src, self.dst, self.sid = src, dst, sid
        self.n_burst, self.len_burst = n_burst, len_burst
        self.src_gap, self.dst_gap = src_gap, dst_gap
        self.core_kind = core_kind

    @property
    def nominal_pipe(self) -> Pipe:  # type: ignore[override]
        return self.pipe

    @property
    def written_spaces(self) -> tuple[str, ...]:  # type: ignore[override]
        return (self.dst_space,)

    def address(self, side: str) -> int | None:
        """The first byte of ``side`` ("src" or "dst"): a byte address, or a tile's address
        plus a byte offset (a tile is placed after recording); None while unplaced."""
        v = self.src if side == "src" else self.dst
        if isinstance(v, int):
            return v
        ref, offset = v
        base = ref.placement.address
        return None if base is None else base + offset

    def bursts(self, space: str) -> list[tuple[int, int]]:
        """The [start, end) byte ranges of the bursts in ``space`` (src or dst)."""
        base, gap = self.address(space), self.src_gap if space == "src" else self.dst_gap
        size = self.len_burst * BLOCK_BYTES
        pitch = size + gap * BLOCK_BYTES
        return [(base + i * pitch, base + i * pitch + size) for i in range(self.n_burst)]

    def validate(self, arch: Arch) -> None:
        want = "aiv" if self.opcode == "COPY_UBUF_TO_CBUF" else "aic"
        self.require(
            arch.spec.cube.onchip_cv_paths and arch.launch == "mix" and arch.core_kind == want,
            "kernel", "onchip-path",
            f"a mixed kernel (cores='mix') on 950, on the {'vector' if want == 'aiv' else 'cube'}"
            " core (the direct UB <-> L1 path between the cube core and its vector cores)",
            f"the {arch.core_kind} core of a {arch.launch} kernel on target {arch.target}",
        )  # fmt: skip
        self.require(
            self.sid in (0, 1) or want == "aiv", "sid", "vector-core", "0 (AIV0) or 1 (AIV1)",
            self.sid,
        )  # fmt: skip
        self.require(
            0 <= self.n_burst <= MAX_BURSTS, "nBurst", "burst-count", f"0..{MAX_BURSTS}",
            self.n_burst,
        )  # fmt: skip
        for name, space in (("src", self.src_space), ("dst", self.dst_space)):
            addr = self.address(name)
            if addr is None:  # a tile placed later: the placement checks its bounds
                continue
            size = arch.size_of(space.split("@")[0])
            end = max((hi for _, hi in self.bursts(name)), default=addr)
            self.require(
                addr % BLOCK_BYTES == 0, name, "alignment", f"a multiple of {BLOCK_BYTES} bytes",
                f"byte {addr}",
            )  # fmt: skip
            self.require(
                size is None or end <= size, name, "within-buffer",
                f"the bursts inside {space.split('@')[0]} ({size} bytes)", f"up to byte {end}",
            )  # fmt: skip

    def execute(self, ctx: ExecContext) -> None:
        src_mem, dst_mem = ctx.buffers[self.src_space], ctx.buffers[self.dst_space]
        for (s0, s1), (d0, d1) in zip(self.bursts("src"), self.bursts("dst")):
            data = src_mem.typed(s0, UINT8, s1 - s0).copy()
            dst_mem.typed(d0, UINT8, d1 - d0)[:] = data

    def describe(self) -> str:
        dst, src = self.address("dst") or 0, self.address("src") or 0
        return (
            f"{self.opcode.lower()}({self.dst_space}[{dst:#x}], {self.src_space}"
            f"[{src:#x}], sid {self.sid}, {self.n_burst} x {self.len_burst} blocks, gaps "
            f"{self.src_gap} / {self.dst_gap})"
        )


def _ints(*values) -> list[int]:
    return [as_int(v, "burst operand", lo=0) for v in values]


@instruction(
    family="cube",
    summary="raw UB -> L1 copy from a vector core into its cube core's L1 (950)",
)
def copy_ubuf_to_cbuf(dst, src, sid, n_burst, len_burst, src_gap, dst_gap) -> None:
    """Copy ``n_burst`` bursts of ``len_burst`` 32-byte blocks from UB byte ``src`` to the cube
    core's L1 byte ``dst`` on PIPE_MTE3; ``src_gap`` / ``dst_gap`` blocks between bursts."""
    vals = _ints(dst, src, sid, n_burst, len_burst, src_gap, dst_gap)
    kind = current().program.core_role.kind
    emit(OnchipCopy("COPY_UBUF_TO_CBUF", Pipe.PIPE_MTE3, "UB", "L1", vals[1], vals[0],
                    *vals[2:], kind))  # fmt: skip


@instruction(
    family="cube",
    summary="raw L1 -> UB copy from the cube core into a vector core's UB (950)",
)
def copy_cbuf_to_ubuf(dst, src, sid, n_burst, len_burst, src_gap, dst_gap) -> None:
    """Copy ``n_burst`` bursts of ``len_burst`` 32-byte blocks from L1 byte ``src`` to byte
    ``dst`` of the UB of vector core ``sid`` (0: AIV0, 1: AIV1) on PIPE_MTE1."""
    vals = _ints(dst, src, sid, n_burst, len_burst, src_gap, dst_gap)
    kind = current().program.core_role.kind
    peer = PEER_UB[vals[2]] if vals[2] in (0, 1) else "UB@AIV?"
    emit(OnchipCopy("COPY_CBUF_TO_UBUF", Pipe.PIPE_MTE1, "L1", peer, vals[1], vals[0],
                    *vals[2:], kind))  # fmt: skip


# -- TINSERT(mat, vec) on 950: the vector core's UB -> its cube core's L1 ------------------------
# The library's a5 TINSERT Vec -> Mat is a few copy_ubuf_to_cbuf calls whose bursts follow the
# source's layout (reference/cube_isa.md 3.7); ptosim emits the same copies (each an OnchipCopy
# marked ``via`` TINSERT). With c0 = 32 / sizeof(T) elements per block and (r, c) the index:
# - NZ source: one burst per c0-wide column block of the valid columns, each of validRow
#   blocks; the source's blocks are Rows apart, the destination's dstRow (the Mat tile's Rows,
#   or its Cols for a row-major Mat) apart; the first lands at (c / c0) column blocks plus r
#   rows plus c % c0 elements;
# - ZN source (into a ZN Mat): one burst per c0-row block of the valid rows, each of validCol
#   blocks, the source's rows Cols apart (a compact tile: the valid columns rounded up to 16,
#   plus one for RowPlusOne), the destination's Mat Cols apart;
# - ND source (and any other row-major source but ZN, such as ZZ: the library's dispatch): row
#   by row (validCol x sizeof(T) / 32 blocks each, the rows Cols apart in both), or one run
#   when the rows are whole and the widths agree, or when a row is under one block (the whole
#   valid bytes rounded up to blocks);
# - TINSERT<SPLIT2 / SPLIT4> (NZ source): the column blocks of the valid rows rounded up to 16
#   in 2 or 4 groups (the last takes the remainder), the same bursts as one NZ insert.
# A packed 4-bit type moves as bytes (sizeof is 1 for two elements): an NZ source's validCol
# and index column, a ZN source's validRow and index row, are halved first (the library's
# byteValidCol / byteIndexCol); the other counts are used as given, as the library does.
def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def vec_to_mat_bursts(dst, src, r: int, c: int, mode: str | None) -> list[tuple]:
    """(dst byte offset, src byte offset, nBurst, lenBurst, srcGap, dstGap) of each copy of a
    TINSERT(dst Mat, src Vec) at (r, c) (the comment above)."""
    sz = src.dtype.size_bytes
    c0 = BLOCK_BYTES // sz
    vr, vc = src.valid
    g = src.geom
    zn = g.is_row_major and g.slayout.name == "ColMajor"
    if src.dtype.packed and not g.is_row_major:  # NZ fp4: the column index and count in bytes
        vc, c = vc // 2, c // 2
    elif src.dtype.packed and zn:  # ZN fp4: the row index and count in bytes
        vr, r = vr // 2, r // 2
    if mode is not None:  # split inserts: NZ source
        aligned = _ceil(vr, 16) * 16
        total = _ceil(vc, c0)
        k = 2 if mode == "SPLIT2" else 4
        part, last = total // k, total - (total // k) * (k - 1)
        src_gap, dst_gap = src.rows - aligned, dst.rows - aligned
        src_block, dst_block = (aligned + src_gap) * BLOCK_BYTES, dst.rows * BLOCK_BYTES
        d0 = ((c // c0) * dst.rows * c0 + r * c0 + c % c0) * sz
        counts = [part, last] if k == 2 else [part, part, part, last]
        return [(d0 + i * part * dst_block, i * part * src_block, n, aligned, src_gap, dst_gap)
                for i, n in enumerate(counts)]  # fmt: skip
    if zn:
        stride = {"Null": src.cols, "RowPlusOne": _ceil(vc, 16) * 16 + 1}.get(
            g.compact.name, _ceil(vc, 16) * 16
        )
        d0 = ((r // c0) * dst.cols * c0 + c * c0 + r % c0) * sz
        return [(d0, 0, _ceil(vr, c0), vc, stride - vc, dst.cols - vc)]
    if g.is_row_major:  # ND
        d0 = (r * dst.cols + c) * sz
        total = vr * vc * sz
        if vc == src.cols == dst.cols and total >= BLOCK_BYTES:
            return [(d0, 0, 1, total // BLOCK_BYTES, 0, 0)]
        if vc * sz >= BLOCK_BYTES:
            return [(d0, 0, vr, vc * sz // BLOCK_BYTES, (src.cols - vc) * sz // BLOCK_BYTES,
                     (dst.cols - vc) * sz // BLOCK_BYTES)]  # fmt: skip
        return [(d0, 0, 1, _ceil(total, BLOCK_BYTES), 0, 0)]
    dst_row = dst.rows if not dst.geom.is_row_major else dst.cols  # NZ
    d0 = ((c // c0) * dst_row * c0 + r * c0 + c % c0) * sz
    return [(d0, 0, _ceil(vc, c0), vr, src.rows - vr, dst_row - vr)]


def vec_to_mat_applies() -> bool:
    """Whether TINSERT(Mat, Vec) is the UB -> L1 path here (a target with on-chip cube <->
    vector paths: 950)."""
    return current().program.arch.spec.cube.onchip_cv_paths


def _refuse(arch: Arch, operand: str, rule: str, expected: str, given) -> None:
    raise ConstraintError("TINSERT", operand, rule, expected, given, target=arch.target)


def vec_to_mat_tinsert(dst, src, r: int, c: int, mode) -> None:
    """Emit TINSERT(dst Mat, src Vec, r, c[, mode]) as its UB -> L1 copies (950)."""
    arch = current().program.arch
    if mode is not None:
        mode = str(getattr(mode, "name", mode)).upper()
        if mode not in ("SPLIT2", "SPLIT4"):
            _refuse(arch, "mode", "insert-mode", "None, SPLIT2 or SPLIT4", mode)
    if dst.dtype != src.dtype:
        _refuse(arch, "src", "dtype-pair", f"the dst's {dst.dtype.name}", src.dtype.name)
    g = src.geom
    nz = not g.is_row_major and g.slayout.name == "RowMajor"
    zn = g.is_row_major and g.slayout.name == "ColMajor"
    # the library's dispatch: ZN, else any row-major source (ND, or a boxed one such as the
    # ZZ of an MX scale tile) by the ND copies, else NZ; a mode needs NZ (a5 TInsert.hpp)
    if not (nz or (mode is None and g.is_row_major)):
        _refuse(arch, "src", "layout", "an NZ Vec tile (or, without a mode, a row-major one: "
                "ZN, ND or another row-major box layout)", g.layout_name)  # fmt: skip
    vr, vc = src.valid
    if r + vr > dst.rows or c + vc > dst.cols:
        _refuse(arch, "src", "window-within-dst", f"index + src valid <= {dst.rows}x{dst.cols}",
                f"({r}, {c}) + {vr}x{vc}")  # fmt: skip
    rows_zn = BLOCK_BYTES // src.dtype.size_bytes  # a ZN fractal's rows
    if zn and (r % rows_zn or vr % rows_zn):
        _refuse(arch, "index_row", "fractal-multiple", "index_row and valid rows multiples of "
                "the ZN fractal's rows", (r, vr))  # fmt: skip
    kind = current().program.core_role.kind
    for d_off, s_off, n, length, s_gap, d_gap in vec_to_mat_bursts(dst, src, r, c, mode):
        if n == 0:
            continue
        copy = OnchipCopy("COPY_UBUF_TO_CBUF", Pipe.PIPE_MTE3, "UB", "L1", (src, s_off),
                          (dst, d_off), 0, n, length, s_gap, d_gap, kind)  # fmt: skip
        copy.via = "TINSERT"
        emit(copy)
