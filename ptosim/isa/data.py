"""Data movement: TASSIGN, TLOAD, TSTORE, TMOV, TEXPANDS.

TLOAD/TSTORE follow the DMA arithmetic of each target (semantics.md 3.5): on a2a3 a burst of
``lenBurst`` bytes is followed by a GM gap, so the GM row pitch is ``validCol + stride3 - shape4``
elements (D7); on a5 the pitch is ``stride3``; the CPU maps every valid (r, c) exactly.
Padding (D8): a2a3/a5 pad each row only up to its 32-byte boundary when PadValue != Null; the
CPU fills every non-valid element with the pad value (0 for Null).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import dtypes as D
from ..enums import Layout, PadValue, Pipe, TileType
from ..errors import KernelError, MemoryLayoutError
from ..findings import GM_PITCH
from ..program import current, emit
from ..tensors import GlobalTensor, GmRef, Placement, Tile, TileRef
from .base import Arch, ExecContext, Instruction

_A2A3_DMA_DTYPES = (
    D.int8,
    D.uint8,
    D.int16,
    D.uint16,
    D.int32,
    D.uint32,
    D.int64,
    D.uint64,
    D.half,
    D.bfloat16,
    D.float32,
)
_DMA_DTYPES = {
    "cpu": D.ALL,
    "a2a3": _A2A3_DMA_DTYPES,
    "a5": D.ALL,
}
_NBURST_MAX = 4096  # a2a3 nBurst / Rows limit (semantics.md 3.5: "< 4096")


def pad_scalar(ref: TileRef, *, null_as_zero: bool):
    """The pad element for a tile's PadValue as a numpy scalar, or None for Null."""
    pad, dt = ref.pad, ref.dtype
    if isinstance(pad, float):  # custom pad: the float value converted to T
        return np.array(pad, dtype=np.float64).astype(dt.np)
    if pad is PadValue.Null:
        return dt.np.type(0) if null_as_zero else None
    if pad is PadValue.Zero or dt.size_bytes == 8:  # 64-bit types always pad with 0
        return dt.np.type(0)
    hi = pad is PadValue.Max
    if dt.is_float:
        return np.array(np.inf if hi else -np.inf).astype(dt.np)
    info = np.iinfo(dt.np)
    return dt.np.type(info.max if hi else info.min)


@dataclass(frozen=True)
class Bursts:
    """A DMA transfer as equal-length bursts between GM and a tile's storage (elements).

    ``gm_start[i]`` / ``tile_start[i]`` start burst i; each moves ``length`` elements; after
    each burst ``pad`` tile elements are filled with the pad value (TLOAD only).
    """

    gm_start: np.ndarray
    tile_start: np.ndarray
    length: int
    pad: int = 0

    def gm_offsets(self) -> np.ndarray:
        return (self.gm_start[:, None] + np.arange(self.length)).reshape(-1)

    def tile_offsets(self) -> np.ndarray:
        return (self.tile_start[:, None] + np.arange(self.length)).reshape(-1)

    def pad_offsets(self) -> np.ndarray:
        return (self.tile_start[:, None] + self.length + np.arange(self.pad)).reshape(-1)


def dma_bursts(target: str, tile: TileRef, gm: GmRef, *, load: bool) -> Bursts:
    """The bursts of a TLOAD (load=True) or TSTORE between ``tile`` and ``gm`` on a2a3/a5."""
    s0, s1, s2, s3, s4 = gm.shape
    st = gm.stride
    vr, vc = tile.valid
    c0 = tile.dtype.c0
    if gm.layout is Layout.NZ:
        # one burst of validRow*32 bytes per column block; GM blocks are stride1 apart
        # (TSTORE: lenBurst + gmGap = validRow*C0 + stride1 - S2*S3*S4)
        i, j = np.meshgrid(np.arange(s0), np.arange(s1), indexing="ij")
        pitch = st[1] if load or target == "a5" else vr * c0 + st[1] - s2 * s3 * s4
        gm_start = gm.offset + i.reshape(-1) * st[0] + j.reshape(-1) * pitch
        tile_start = (i.reshape(-1) * s1 + j.reshape(-1)) * tile.rows * c0
        return Bursts(gm_start, tile_start, vr * c0)
    # ND: bursts are rows of validCol elements; DN: columns of validRow elements
    if gm.layout is Layout.DN:
        n_burst, length, inner, stride_in, tile_pitch = s4, vr, s3, st[4], tile.rows
    else:
        n_burst, length, inner, stride_in, tile_pitch = s3, vc, s4, st[3], tile.cols
    # a2a3: GM advances lenBurst + gmGap = length + stride - inner elements per burst (D7)
    pitch = stride_in if target == "a5" else length + stride_in - inner
    i, j, k, q = np.meshgrid(
        np.arange(s0), np.arange(s1), np.arange(s2), np.arange(n_burst), indexing="ij"
    )
    block = (i * s1 + j) * s2 + k
    gm_start = gm.offset + i * st[0] + j * st[1] + k * st[2] + q * pitch
    tile_start = (block * n_burst + q) * tile_pitch
    pad = 0
    if load and not (isinstance(tile.pad, PadValue) and tile.pad is PadValue.Null):
        pad = min((-length) % c0, tile_pitch - length)
    return Bursts(gm_start.reshape(-1), tile_start.reshape(-1), length, pad)


def _pairing_ok(tile: TileRef, layout: Layout) -> bool:
    g = tile.geom
    if layout is Layout.ND:
        return g.is_nd
    if layout is Layout.DN:
        return g.layout_name == "DN"
    return g.is_nz


class _Transfer(Instruction):
    """Shared checks of TLOAD and TSTORE (tile <-> GlobalTensor)."""

    tile: TileRef
    gm: GmRef
    is_load = True

    def validate(self, arch: Arch) -> None:
        t, g = self.tile, self.gm
        if t.loc not in (TileType.Vec, TileType.Mat):
            self.fail(
                "tile", "tile-location", "TileType::Vec or TileType::Mat", f"TileType::{t.loc.name}"
            )
        self.require_dtype("tile", t.dtype, _DMA_DTYPES[arch.target])
        self.require(
            t.dtype is g.dtype,
            "gm",
            "same-dtype",
            t.dtype.name,
            g.dtype.name,
            "GlobalTensor::DType must equal the tile element type",
        )
        self.require(
            _pairing_ok(t, g.layout),
            "tile",
            "layout-pairing",
            f"a {g.layout.name} tile for a {g.layout.name} GlobalTensor "
            "(only ND2ND, DN2DN and NZ2NZ)",
            f"a {t.geom.layout_name} tile",
        )
        s0, s1, s2, s3, s4 = g.shape
        vr, vc = t.valid
        if g.layout is Layout.NZ:
            self.require(
                s3 == 16 and s4 == t.dtype.c0,
                "gm",
                "nz-shape",
                f"shape[3] == 16 and shape[4] == {t.dtype.c0}",
                f"{list(g.shape)}",
            )
            rows_needed, cols_needed = s2 * s3, s0 * s1 * s4
        elif g.layout is Layout.DN:
            rows_needed, cols_needed = s3, s0 * s1 * s2 * s4
        else:
            rows_needed, cols_needed = s0 * s1 * s2 * s3, s4
        # The dimension split across bursts must match exactly; on a2a3 a burst length that
        # differs from the GM dimension follows the DMA arithmetic and is a finding (D7).
        outer_ok = (vc == cols_needed) if g.layout is Layout.DN else (vr == rows_needed)
        inner_ok = (vr == rows_needed) if g.layout is Layout.DN else (vc == cols_needed)
        outer = (
            ("validCol", vc, cols_needed)
            if g.layout is Layout.DN
            else ("validRow", vr, rows_needed)
        )
        self.require(
            outer_ok,
            "tile",
            "valid-shape",
            f"{outer[0]} == {outer[2]} (from the GlobalTensor shape {list(g.shape)})",
            outer[1],
        )
        if not inner_ok and (arch.target != "a2a3" or g.layout is Layout.NZ):
            inner = (
                ("validRow", vr, rows_needed)
                if g.layout is Layout.DN
                else ("validCol", vc, cols_needed)
            )
            self.fail(
                "tile",
                "valid-shape",
                f"{inner[0]} == {inner[2]} (from the GlobalTensor shape {list(g.shape)})",
                inner[1],
            )
        if arch.target == "a2a3":
            n_burst = {Layout.ND: s3, Layout.DN: s4, Layout.NZ: s1}[g.layout]
            self.require(t.rows < _NBURST_MAX, "tile", "a2a3-rows", f"Rows < {_NBURST_MAX}", t.rows)
            self.require(
                n_burst < _NBURST_MAX, "gm", "a2a3-nburst", f"nBurst < {_NBURST_MAX}", n_burst
            )
            self.require(
                min(g.shape) > 0, "gm", "positive-shape", "all shape dims > 0", list(g.shape)
            )
        if self.is_load and isinstance(t.pad, PadValue) and t.pad in (PadValue.Max, PadValue.Min):
            ok = t.dtype.kind in ("int", "uint") or t.dtype in (D.half, D.bfloat16, D.float32)
            self.require(
                ok,
                "tile",
                "pad-value",
                "PadValue::Max/Min only for integer, half, bfloat16 and float tiles",
                f"{t.pad} on {t.dtype.name}",
            )

    def _pitch_finding(self, ctx: ExecContext) -> None:
        g, (vr, vc) = self.gm, self.tile.valid
        inner, dim, v = (
            (g.shape[3], "validRow", vr) if g.layout is Layout.DN else (g.shape[4], "validCol", vc)
        )
        if ctx.target == "a2a3" and g.layout is not Layout.NZ and v != inner:
            stride_in = g.stride[4] if g.layout is Layout.DN else g.stride[3]
            ctx.finding(
                GM_PITCH,
                "gm-pitch",
                f"{dim} {v} != GlobalTensor shape {inner}: the a2a3 DMA advances GM by lenBurst + "
                f"gmGap = {v} + {stride_in} - {inner} = {v + stride_in - inner} elements per "
                f"burst, not stride {stride_in} (give the tile {dim} == {inner} or a "
                f"GlobalTensor whose shape matches the valid region)",
            )

    def _element_pairs(self, ctx: ExecContext):
        """(GM element offsets, tile storage offsets) of every element moved, GM checked."""
        t, g = self.tile, self.gm
        if ctx.target == "cpu":  # exact (r, c) mapping of the valid region
            r, c = t.geom.grid(*t.valid)
            gm_offs, tile_offs, pad = g.offsets(r, c), t.offsets(r, c), None
        else:  # the DMA burst arithmetic (D7, D8)
            self._pitch_finding(ctx)
            b = dma_bursts(ctx.target, t, g, load=self.is_load)
            gm_offs, tile_offs = b.gm_offsets(), b.tile_offsets()
            pad = b.pad_offsets() if b.pad else None
        ctx.gm_check(g, gm_offs, "gm")
        return gm_offs, tile_offs, pad


class TLoad(_Transfer):
    opcode = "TLOAD"
    nominal_pipe = Pipe.PIPE_MTE2
    reads = ("gm",)
    writes = ("tile",)
    is_load = True

    def __init__(self, tile: TileRef, gm: GmRef):
        self.tile, self.gm = tile, gm

    def execute(self, ctx: ExecContext) -> None:
        gm_offs, tile_offs, pad = self._element_pairs(ctx)
        store = ctx.tile_storage(self.tile)
        values = self.gm.storage()[gm_offs]
        if ctx.target == "cpu":  # D8: the CPU fills the whole tile with the pad value first
            store[:] = pad_scalar(self.tile, null_as_zero=True)
        elif pad is not None:  # NPUs pad each row up to its 32-byte boundary only
            store[pad] = pad_scalar(self.tile, null_as_zero=True)
        store[tile_offs] = values


class TStore(_Transfer):
    opcode = "TSTORE"
    nominal_pipe = Pipe.PIPE_MTE3
    reads = ("tile",)
    writes = ("gm",)
    is_load = False

    def __init__(self, gm: GmRef, tile: TileRef):
        self.gm, self.tile = gm, tile

    def execute(self, ctx: ExecContext) -> None:
        gm_offs, tile_offs, _ = self._element_pairs(ctx)
        self.gm.storage()[gm_offs] = ctx.tile_storage(self.tile)[tile_offs]


class TAssign(Instruction):
    """TASSIGN(tile, address): bind a tile to a byte address of its memory (UB or L1)."""

    opcode = "TASSIGN"
    nominal_pipe = Pipe.PIPE_S

    def __init__(self, tile: TileRef, address: int):
        self.tile, self.address = tile, address

    def tile_operands(self) -> dict[str, TileRef]:
        return {"tile": self.tile}

    def validate(self, arch: Arch) -> None:
        t = self.tile
        mem, cap = (
            ("L1", arch.l1_size_bytes) if t.loc is TileType.Mat else ("UB", arch.ub_size_bytes)
        )
        if self.address % arch.ub_align_bytes:
            raise MemoryLayoutError(
                "TASSIGN",
                "address",
                "alignment",
                f"a multiple of {arch.ub_align_bytes} bytes",
                hex(self.address),
                target=arch.target,
                source=self.source,
                position=self.position,
                detail=f"tile {t.name}",
            )
        if self.address < 0 or self.address + t.size_bytes > cap:
            raise MemoryLayoutError(
                "TASSIGN",
                "address",
                "fits-in-memory",
                f"address + {t.size_bytes} bytes <= {mem} size {cap}",
                f"{self.address:#x} + {t.size_bytes} = {self.address + t.size_bytes:#x}",
                target=arch.target,
                source=self.source,
                position=self.position,
                detail=f"tile {t.name}",
            )

    def execute(self, ctx: ExecContext) -> None:
        """Binding happened at record time; nothing moves."""


class TMov(Instruction):
    """TMOV(dst, src) between Vec tiles (UB -> UB)."""

    opcode = "TMOV"
    nominal_pipe = Pipe.PIPE_V
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef):
        self.dst, self.src = dst, src

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        self.require_loc("dst", d)
        self.require_loc("src", s)
        self.require_same_dtype("dst", d, "src", s)
        self.require(
            d.geom.layout_name == s.geom.layout_name,
            "src",
            "same-layout",
            d.geom.layout_name,
            s.geom.layout_name,
        )
        if arch.target == "a2a3":
            self.require(
                (d.rows, d.cols) == (s.rows, s.cols),
                "src",
                "same-shape",
                f"{d.rows}x{d.cols}",
                f"{s.rows}x{s.cols}",
            )
        else:
            self.require(d.valid == s.valid, "src", "same-valid-shape", d.valid, s.valid)

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        rows = min(d.valid_row, s.valid_row)
        cols = min(d.valid_col, s.valid_col)
        if ctx.target == "a2a3" and d.geom.is_nd and cols < d.cols:
            # copy_ubuf_to_ubuf moves whole 32-byte blocks per row
            c0 = d.dtype.c0
            cols = min(d.cols, -(-cols // c0) * c0)
        ctx.tile_write(d, ctx.tile_read(s, rows, cols), rows, cols)


class TExpandS(Instruction):
    """TEXPANDS(tile, scalar): fill the valid region with a scalar."""

    opcode = "TEXPANDS"
    nominal_pipe = Pipe.PIPE_V
    writes = ("dst",)

    def __init__(self, dst: TileRef, scalar):
        self.dst, self.scalar = dst, scalar

    def validate(self, arch: Arch) -> None:
        self.require_loc("dst", self.dst)
        self.require(
            self.dst.dtype.kind != "opaque", "dst", "dtype", "a numeric dtype", self.dst.dtype.name
        )
        D.check_scalar_fits(self, "scalar", self.scalar, self.dst.dtype)

    def execute(self, ctx: ExecContext) -> None:
        d = self.dst
        value = np.array(self.scalar).astype(d.dtype.np)
        ctx.tile_write(d, np.full(d.valid, value, dtype=d.dtype.np))


# -- the kernel-facing API ------------------------------------------------------------------
def _tile(value, what: str) -> TileRef:
    if not isinstance(value, Tile):
        raise KernelError(f"{what} must be a pto.Tile, got {type(value).__name__}")
    return value.ref()


def _gm(value, what: str) -> GmRef:
    if not isinstance(value, GlobalTensor):
        raise KernelError(f"{what} must be a pto.GlobalTensor, got {type(value).__name__}")
    return value.ref()


def TASSIGN(tile: Tile, address: int) -> None:
    """Bind ``tile`` to a byte address of UB (Vec) or L1 (Mat).

    Raises:
        MemoryLayoutError: misaligned, or the tile would overflow the memory.
    """
    if not isinstance(tile, Tile):
        raise KernelError(f"TASSIGN: tile must be a pto.Tile, got {type(tile).__name__}")
    if not isinstance(address, (int, np.integer)) or isinstance(address, bool):
        raise KernelError(f"TASSIGN: address must be an integer byte address, got {address!r}")
    current()
    placement = Placement(int(address), auto=False)
    ref = tile.ref()
    ref = TileRef(
        ref.geom,
        ref.valid_row,
        ref.valid_col,
        ref.static_valid,
        ref.pad,
        placement,
        ref.name,
        ref.tile_id,
    )
    emit(TAssign(ref, int(address)))
    tile.placement = placement


def TLOAD(tile: Tile, gm: GlobalTensor) -> None:
    """GM -> tile (MTE2): load the tile's valid region from ``gm``."""
    emit(TLoad(_tile(tile, "TLOAD tile"), _gm(gm, "TLOAD gm")))


def TSTORE(gm: GlobalTensor, tile: Tile) -> None:
    """Tile -> GM (MTE3): store the tile's valid region into ``gm``."""
    emit(TStore(_gm(gm, "TSTORE gm"), _tile(tile, "TSTORE tile")))


def TMOV(dst: Tile, src: Tile) -> None:
    """Copy ``src`` into ``dst`` (Vec -> Vec)."""
    emit(TMov(_tile(dst, "TMOV dst"), _tile(src, "TMOV src")))


def TEXPANDS(dst: Tile, scalar) -> None:
    """Fill the valid region of ``dst`` with ``scalar``."""
    emit(TExpandS(_tile(dst, "TEXPANDS dst"), scalar))
