"""Data movement: TASSIGN, TLOAD, TSTORE, TMOV, TEXPANDS.

TLOAD/TSTORE follow the DMA arithmetic of each target (semantics.md 3.5; the target's
``DmaRules``): on a2a3 a burst of ``lenBurst`` bytes is followed by a GM gap, so the GM row pitch
is ``validCol + stride3 - shape4`` elements (D7, ``GmBurstPitch.BURST_PLUS_GAP``); on a5 the
pitch is ``stride3`` (``STRIDE``); the CPU maps every valid (r, c) exactly
(``DmaTransfer.EXACT_ELEMENTS``).
Padding (D8): a2a3/a5 pad each row only up to its 32-byte boundary when PadValue != Null; the
CPU fills every non-valid element with the pad value (0 for Null).
Packed fp4 on cpu moves nibble by nibble (``moves_nibbles``): the CPU simulator
copies element (r, c) through its nibble accessors whatever the strides, so a row of an odd
number of columns starts in the middle of a byte.
Views the NPU DMA cannot express are errors there, the a2a3 DMA takes its burst count from the
GlobalTensor, cpu pairs any layouts, and a2a3 TMOV copies between any layouts (D13-D16, see
``_Transfer`` and ``TMov``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import dtypes as D
from .. import nibbles
from ..enums import (
    MATRIX_LAYOUTS,
    AtomicType,
    BLayout,
    CompactMode,
    Layout,
    PadValue,
    Pipe,
    ReluPreMode,
    ScatterAtomicOp,
    SLayout,
    TileType,
)
from ..errors import KernelError, MemoryLayoutError
from ..findings import DMA_EXTENT, GM_PITCH, GM_STRIDE_IGNORED
from ..layout import BLOCK_BYTES, GmGeom
from ..memory import space_of
from ..program import current, emit
from ..tensors import GlobalTensor, GmRef, Placement, Tile, TileRef
from . import base as isa_base
from .atomic import atomic_update
from .base import Arch, ExecContext, Instruction
from .cube.geometry import stored
from .cube.instructions import cube_load, cube_move, cube_store
from .registry import instruction
from .spec import (
    CubeAddressing,
    DmaRules,
    DmaTransfer,
    GmBurstPitch,
    Nibbles,
    TMovCopy,
    UbBurstPitch,
)
from .tmov_zz import TMovNdToZz


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


def mat_vector_load(rules: DmaRules, tile: TileRef, gm: GmRef) -> bool:
    """Whether a TLOAD of ``gm`` into ``tile`` is the a2a3 "vector input" load: a one-row ND
    (one-column DN) Mat tile is loaded as one ND2NZ row (column) of the GlobalTensor's shape4
    (shape3) elements, whatever validCol (validRow), and like every a2a3 ND2NZ it zero-fills
    the rest of the C0 block the row ends in (D19; tload_common.hpp TLoadGm2L1VectorInND /
    TLoadGm2L1VectorInDn). The library's tmov_acc2mat test loads 64 quant words into a
    Mat tile of validCol 61 and its fixpipe then reads all 64."""
    if not rules.mat_vector_load_moves_view or tile.loc is not TileType.Mat:
        return False
    return tile.rows == 1 if gm.layout is Layout.ND else gm.layout is Layout.DN and tile.cols == 1


def _ub_burst_pitch(rules: DmaRules, tile: TileRef, gm: GmRef, length: int) -> int:
    """Tile elements between the starts of two bursts of one DMA instruction.

    ``UbBurstPitch.TILE_DIM`` (a5) programs the UB stride directly (``Cols`` for ND, ``Rows``
    for DN). ``BLOCKS_PLUS_GAP`` (a2a3) lands a burst on whole 32-byte blocks and then skips
    ``ubGap`` blocks, ``ubGap = ((Cols - validCol) * sizeof(T)) >> 5`` (ND) or ``((Rows - S3) *
    sizeof(T)) >> 5`` (DN): that is ``Cols`` for every ND tile (its rows are 32-byte multiples)
    but differs from ``Rows`` for a DN tile whose validRow != S3 (semantics.md 3.5).
    """
    dn = gm.layout is Layout.DN
    dim = tile.rows if dn else tile.cols
    if rules.ub_burst_pitch is UbBurstPitch.TILE_DIM:
        return dim
    sz = tile.dtype.size_bytes
    moved_blocks = -(-length * sz // BLOCK_BYTES)
    gap_bytes = (dim - (gm.shape[3] if dn else length)) * sz
    if gap_bytes < 0:  # an unsigned ubGap would wrap: the burst leaves the tile
        return tile.numel
    return (moved_blocks + (gap_bytes >> 5)) * BLOCK_BYTES // sz


def dma_bursts(rules: DmaRules, tile: TileRef, gm: GmRef, *, load: bool) -> Bursts:
    """The bursts of a TLOAD (load=True) or TSTORE between ``tile`` and ``gm`` under the DMA
    rules of a burst target (a2a3, a5).

    The DMA loops over the GlobalTensor's shape (``nBurst = S3`` rows for ND, ``S4`` columns
    for DN, one loop per outer block), not over the tile's valid shape: only the burst length
    comes from the tile (``validCol`` for ND, ``validRow`` for DN).
    """
    s0, s1, s2, s3, s4 = gm.shape
    st = gm.stride
    vr, vc = tile.valid
    c0 = tile.dtype.c0
    stride_pitch = rules.gm_burst_pitch is GmBurstPitch.STRIDE
    if gm.layout is Layout.NZ:
        # one burst of validRow*32 bytes per column block; GM blocks are stride1 apart
        # (TSTORE: lenBurst + gmGap = validRow*C0 + stride1 - S2*S3*S4)
        i, j = np.meshgrid(np.arange(s0), np.arange(s1), indexing="ij")
        pitch = st[1] if load or stride_pitch else vr * c0 + st[1] - s2 * s3 * s4
        gm_start = gm.offset + i.reshape(-1) * st[0] + j.reshape(-1) * pitch
        tile_start = (i.reshape(-1) * s1 + j.reshape(-1)) * tile.rows * c0
        return Bursts(gm_start, tile_start, vr * c0)
    # ND: bursts are rows of validCol elements; DN: columns of validRow elements
    if gm.layout is Layout.DN:
        n_burst, length, inner, stride_in, chunk = s4, vr, s3, st[4], s4 * tile.rows
    else:
        n_burst, length, inner, stride_in, chunk = s3, vc, s4, st[3], s3 * tile.cols
    vector_row = load and mat_vector_load(rules, tile, gm)
    if vector_row:  # one ND2NZ row (column) of the view's length, whatever the valid shape
        length = inner
    # BURST_PLUS_GAP: GM advances lenBurst + gmGap = length + stride - inner elements (D7)
    pitch = stride_in if stride_pitch else length + stride_in - inner
    ub_pitch = _ub_burst_pitch(rules, tile, gm, length)
    # the (s0, s1, s2, nBurst) grid by broadcasting (as meshgrid "ij", without the copies)
    i = np.arange(s0).reshape(-1, 1, 1, 1)
    j = np.arange(s1).reshape(1, -1, 1, 1)
    k = np.arange(s2).reshape(1, 1, -1, 1)
    q = np.arange(n_burst).reshape(1, 1, 1, -1)
    block = (i * s1 + j) * s2 + k
    gm_start = gm.offset + i * st[0] + j * st[1] + k * st[2] + q * pitch
    tile_start = block * chunk + q * ub_pitch
    pad = 0
    if vector_row or (load and not (isinstance(tile.pad, PadValue) and tile.pad is PadValue.Null)):
        tile_dim = tile.rows if gm.layout is Layout.DN else tile.cols
        pad = max(0, min((-length) % c0, tile_dim - length))
    return Bursts(gm_start.reshape(-1), tile_start.reshape(-1), length, pad)


# dma_bursts memo: a burst pattern depends on the GM offset only through gm_start, which
# grows with it (the same transfer shape at each loop iteration is computed once)
_BURSTS: dict[tuple, Bursts] = {}
# objects keyed by identity in the memos, kept alive so that their ids are never reused
_GEOMS: dict[int, object] = {}


def _alive(*objs) -> tuple[int, ...]:
    """The ids of ``objs``, each kept alive in ``_GEOMS`` (a memo key holding an id must not
    outlive its object, whose id could then be reused)."""
    if len(_GEOMS) >= 4096:  # drop every key holding ids before releasing the objects
        _BURSTS.clear()
        isa_base._VALID.clear()
        _GEOMS.clear()
    for obj in objs:
        _GEOMS.setdefault(id(obj), obj)
    return tuple(id(obj) for obj in objs)


def _memo_bursts(rules: DmaRules, tile: TileRef, gm: GmRef, load: bool) -> Bursts:
    g = gm.geom
    geom, rules_id = _alive(tile.geom, rules)
    key = (rules_id, load, geom, tile.valid_row, tile.valid_col, tile.pad, g.shape, g.stride,
           g.layout)  # fmt: skip
    base = _BURSTS.get(key)
    if base is None:
        if len(_BURSTS) >= 1024:
            _BURSTS.clear()
        base = dma_bursts(rules, tile, replace(gm, offset=0), load=load)
        base.gm_start.flags.writeable = False
        base.tile_start.flags.writeable = False  # shared by every transfer of this shape
        _BURSTS[key] = base
    return Bursts(base.gm_start + gm.offset, base.tile_start, base.length, base.pad)


# element offsets of a memoised burst pattern (keyed by its shared tile_start array, which the
# value holds: the id stays valid): offsets at GM offset 0, tile and pad offsets
_OFFSETS: dict[int, tuple] = {}


def _burst_offsets(b: Bursts) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(GM element offsets, tile offsets, pad offsets or None) of ``b``'s elements."""
    memo = _OFFSETS.get(id(b.tile_start)) if not b.tile_start.flags.writeable else None
    if memo is None or memo[0] is not b.tile_start:
        gm, tile = b.gm_offsets(), b.tile_offsets()
        pad = b.pad_offsets() if b.pad else None
        if b.tile_start.flags.writeable or not b.gm_start.size:
            return gm, tile, pad  # not from the memo (_memo_bursts): nothing shared
        if len(_OFFSETS) >= 1024:
            _OFFSETS.clear()
        for a in (tile, pad):
            if a is not None:
                a.flags.writeable = False
        memo = _OFFSETS[id(b.tile_start)] = (b.tile_start, gm - b.gm_start[0], tile, pad)
        return gm, tile, pad
    _, rel, tile, pad = memo
    return rel + b.gm_start[0], tile, pad  # the same pattern, shifted like gm_start


def _pairing_ok(tile: TileRef, layout: Layout) -> bool:
    g = tile.geom
    if layout is Layout.ND:
        return g.is_nd
    if layout is Layout.DN:
        return g.layout_name == "DN"
    return g.is_nz


def _vector_store_view(tile: TileRef, gm: GmRef) -> GmRef | None:
    """The view a burst TSTORE walks for a one-row or one-column tile whose layout does not
    pair with the GlobalTensor's, or None. The library's TSTORE accepts such a tile with any
    view (its static assert names "the special case of one row/one column") and dispatches on
    the tile's layout: the view's shape and strides read as ND for a RowMajor tile, DN for a
    ColMajor one (common/arch/memory/tstore_common.hpp)."""
    g = tile.geom
    if not (tile.rows == 1 or tile.cols == 1) or _pairing_ok(tile, gm.layout) or g.is_boxed:
        return None
    lay = Layout.ND if g.is_row_major else Layout.DN
    return replace(gm, geom=GmGeom(gm.shape, gm.stride, lay))


def _inner_stride_rules(gm: GmRef) -> list[tuple[str, int]]:
    """(stride name, required value) pairs a DMA burst needs: it reads contiguous GM elements.

    ND bursts run along dim 4, DN bursts along dim 3, NZ bursts over whole 16 x C0 fractals
    (dims 2, 3 and 4). A dim of size 1 has no step to take, so its stride is free.
    """
    s0, s1, s2, s3, s4 = gm.shape
    if gm.layout is Layout.ND:
        return [("stride[4]", 1)] if s4 > 1 else []
    if gm.layout is Layout.DN:
        return [("stride[3]", 1)] if s3 > 1 else []
    out = [("stride[4]", 1), ("stride[3]", s4)]
    return out + ([("stride[2]", s3 * s4)] if s2 > 1 else [])


def _cpu_load_flat(t: TileRef, g: GmRef) -> bool:
    """Whether a cpu TLOAD of an ND or DN GlobalTensor has one of the two valid shapes the CPU
    simulator's load check accepts whatever the GlobalTensor's layout (cpu/TLoad.hpp
    CheckTileData): a row-major tile whose validRow is the product of shape[0..3] and validCol
    shape[4], or a column-major one whose validCol is the product of shape[0..2] and shape[4]
    and validRow shape[3]. The elements then move through the layout's own (r, c) -> offset
    map (``GmGeom.offsets``), which runs past shape[3] (DN rows) or shape[4] (ND columns)."""
    if g.layout not in (Layout.ND, Layout.DN):
        return False
    s0, s1, s2, s3, s4 = g.shape
    vr, vc = t.valid
    if t.geom.is_row_major:
        return (vr, vc) == (s0 * s1 * s2 * s3, s4)
    return (vr, vc) == (s3, s0 * s1 * s2 * s4)


class _Transfer(Instruction):
    """Shared checks of TLOAD and TSTORE (tile <-> GlobalTensor).

    Per target (docs/decisions.md D7, D13-D15; the target's ``DmaRules``):
    - cpu (``EXACT_ELEMENTS``) maps every valid (r, c) exactly, so any strides and any Vec tile
      layout work; the valid shape must equal the GlobalTensor's 2-D view (the CPU simulator
      asserts it).
    - a2a3 and a5 (``BURSTS``) move bursts of contiguous GM elements: a view whose burst
      dimension is strided cannot be expressed and is rejected (rule ``gm-inner-stride``); tile
      and GM layouts must pair (ND2ND, DN2DN, NZ2NZ).
    - a2a3 loops over the GlobalTensor's shape and takes only the burst length from the tile:
      a valid shape that differs from the view is accepted and follows the DMA arithmetic,
      with finding F101 (burst length) or F106 (burst count).
    - a5 programs start-to-start strides: the burst length (validCol for ND, validRow for DN)
      is free, the other valid dimension must match the view; an NZ TLOAD checks neither
      (``nz_load_valid_shape_free``: shape1 bursts of validRow*32 bytes, validCol unused).
    """

    tile: TileRef
    gm: GmRef
    is_load = True
    _bursts: tuple[DmaRules, Bursts] | None = None

    def dma_gm(self, rules: DmaRules) -> GmRef:
        """The GlobalTensor as the target's DMA walks it (``_vector_store_view``: a burst
        TSTORE of a one-row/one-column tile follows the tile's layout), else ``gm``."""
        if self.is_load or rules.transfer is DmaTransfer.EXACT_ELEMENTS:
            return self.gm
        return _vector_store_view(self.tile, self.gm) or self.gm

    def bursts(self, rules: DmaRules) -> Bursts:
        """``dma_bursts`` of this transfer under ``rules``, computed once: the validation, the
        plan and the execution all need it, and tile and GlobalTensor refs are frozen."""
        cached = self._bursts
        if cached is None or cached[0] is not rules:
            gm = self.dma_gm(rules)
            cached = self._bursts = (rules, _memo_bursts(rules, self.tile, gm, self.is_load))
        return cached[1]

    def validation_key(self, arch: Arch) -> tuple | None:
        # validate reads the tile's geometry, valid shape and pad, the GM dtype and geometry,
        # never the GM offset or buffer (the GlobalTensor checked its own bounds): a loop's
        # transfers validate once. Plain fields (frozen dataclasses hash in Python, slowly);
        # the geometry and dtype objects by identity, kept alive by _GEOMS.
        t, g = self.tile, self.gm
        geom, dtype = _alive(t.geom, g.dtype)
        return (type(self), id(arch), geom, t.valid_row, t.valid_col, t.static_valid, t.pad,
                dtype, g.geom.shape, g.geom.stride, g.geom.layout)  # fmt: skip

    def validate(self, arch: Arch) -> None:
        if self.gm.layout not in MATRIX_LAYOUTS:  # NHWC ...: a fixpipe (Acc) output only
            self.unsupported(
                "gm", "layout", "ND, DN or NZ", self.gm.layout.name,
                "a convolution layout is written only by TSTORE from an Acc tile",
            )  # fmt: skip
        t, g = self.tile, self.dma_gm(arch.spec.dma)
        dma = arch.spec.dma
        # the CPU simulator copies element by element into any tile (its tests load a bias row
        # straight into a Bias tile, its TMOV tests an Acc tile); the NPU DMA reaches UB and L1
        locs = (TileType.Vec, TileType.Mat)
        if dma.transfer is DmaTransfer.EXACT_ELEMENTS:
            locs = tuple(TileType)
        if t.loc not in locs:
            self.fail(
                "tile", "tile-location", " or ".join(f"TileType::{x.name}" for x in locs),
                f"TileType::{t.loc.name}",
            )  # fmt: skip
        self.require_element_dtype("tile", t, arch)
        nibble_copy = moves_nibbles(arch.spec, t.dtype)
        self.require(  # a packed transfer that moves as bytes was rewritten (byte_views)
            not t.dtype.packed or nibble_copy, "tile", "packed-bytes",
            "a 4-bit tile of an even extent along its GlobalTensor's contiguous dimension, "
            "strides and offset even (it moves as bytes)",
            f"{t.geom.layout_name} tile of {t.cols} cols, GM stride {list(g.stride)} offset "
            f"{g.offset}",
        )  # fmt: skip
        self.require(
            t.dtype is g.dtype,
            "gm",
            "same-dtype",
            t.dtype.name,
            g.dtype.name,
            "GlobalTensor::DType must equal the tile element type",
        )
        # The CPU simulator maps (r, c) through both layouts, so it pairs any tile layout
        # with any GlobalTensor layout (its own tests load ND tensors into ColMajor tiles).
        exact = dma.transfer is DmaTransfer.EXACT_ELEMENTS
        if not exact and t.loc is TileType.Mat and not _pairing_ok(t, g.layout):
            # ND/DN -> NZ into L1 is the cube unit's data path (a layout conversion in the DMA)
            self.unsupported(
                "tile",
                "gm2mat-layout",
                f"a {g.layout.name} Mat tile for a {g.layout.name} GlobalTensor",
                f"a {t.geom.layout_name} Mat tile",
                f"TLOAD {g.layout.name} to {t.geom.layout_name} (GM to L1, the cube data path) "
                "is not implemented by ptosim",
            )
        self.require(
            exact or _pairing_ok(t, g.layout),
            "tile",
            "layout-pairing",
            f"a {g.layout.name} tile for a {g.layout.name} GlobalTensor "
            "(only ND2ND, DN2DN and NZ2NZ)",
            f"a {t.geom.layout_name} tile",
        )
        s0, s1, s2, s3, s4 = g.shape
        if g.layout is Layout.NZ:
            self.require(
                s3 == 16 and s4 == t.dtype.c0,
                "gm",
                "nz-shape",
                f"shape[3] == 16 and shape[4] == {t.dtype.c0}",
                f"{list(g.shape)}",
            )
        self._check_valid_shape(dma)
        if not exact:
            self._check_dma_view(dma)
        limit = dma.burst_count_limit
        if limit is not None:
            n_burst = {Layout.ND: s3, Layout.DN: s4, Layout.NZ: s1}[g.layout]
            self.require(t.rows < limit, "tile", "a2a3-rows", f"Rows < {limit}", t.rows)
            self.require(n_burst < limit, "gm", "a2a3-nburst", f"nBurst < {limit}", n_burst)
            # an empty view (a dim of 0) is no burst at all: the library's TPART tests load
            # (16, 0) and (0, 32) views and expect nothing to move
        if not exact:
            self._check_footprint(dma)
        if self.is_load and isinstance(t.pad, PadValue) and t.pad in (PadValue.Max, PadValue.Min):
            ok = t.dtype.kind in ("int", "uint") or t.dtype in (D.half, D.bfloat16, D.float32)
            fp4 = " (and fp4 on cpu)" if nibble_copy else ""
            self.require(
                ok or (nibble_copy and t.dtype.kind == "float4"),
                "tile",
                "pad-value",
                f"PadValue::Max/Min only for integer, half, bfloat16 and float tiles{fp4}",
                f"{t.pad} on {t.dtype.name}",
            )
        if self.is_load and nibble_copy and isinstance(t.pad, float):
            self.fail("tile", "pad-value", "PadValue Null, Zero, Max or Min for a 4-bit tile",
                      f"the custom pad {t.pad}")  # fmt: skip

    def _dims(self, dma: DmaRules) -> tuple[tuple[str, int, int], tuple[str, int, int]]:
        """(name, valid, view) of the burst-length dimension and of the burst-count one."""
        g = self.dma_gm(dma)
        (vr, vc), (rows, cols) = self.tile.valid, g.geom.logical_shape
        row, col = ("validRow", vr, rows), ("validCol", vc, cols)
        # DN bursts are columns of validRow elements, NZ bursts validRow*32 bytes per block
        return (col, row) if g.layout is Layout.ND else (row, col)

    def _check_valid_shape(self, dma: DmaRules) -> None:
        g = self.dma_gm(dma)
        if (
            self.is_load
            and dma.transfer is DmaTransfer.EXACT_ELEMENTS
            and _cpu_load_flat(self.tile, g)
        ):
            return
        burst, count = self._dims(dma)
        nz = g.layout is Layout.NZ
        if nz and self.is_load and dma.nz_load_valid_shape_free:
            return  # the bursts follow shape1 and validRow alone (dma_bursts)
        # cpu asserts both dims; a5 and NZ need the burst count; a2a3 ND/DN need neither.
        checks = []
        if nz or dma.burst_count_must_match:
            checks.append(count)
        if nz or dma.burst_length_must_match:
            checks.append(burst)
        # an ND/DN view may only bound the valid region (cpu: each valid (row, col) moves at its
        # GM offset; a TSTORE's view must hold it, a TLOAD's too in the Release build)
        within = dma.load_valid_within_view if self.is_load else dma.store_valid_within_view
        bound = within and not nz
        for name, valid, view in checks:
            self.require(
                valid <= view if bound else valid == view,
                "tile",
                "valid-shape",
                f"{name} {'<=' if bound else '=='} {view} (from the GlobalTensor shape "
                f"{list(g.shape)})",
                valid,
            )

    def _check_dma_view(self, dma: DmaRules) -> None:
        """Reject views the target's DMA cannot express (instead of moving other elements)."""
        g = self.dma_gm(dma)
        for name, want in _inner_stride_rules(g) if dma.reads_burst_strides else ():
            got = g.stride[int(name[-2])]
            if got != want:
                self.unsupported(
                    "gm",
                    "gm-inner-stride",
                    f"{name} == {want} for a {g.layout.name} GlobalTensor of shape "
                    f"{list(g.shape)} (a DMA burst reads contiguous elements)",
                    f"strides {list(g.stride)}",
                    "the cpu target honours any stride; split the transfer or pack the data",
                )
        if dma.gm_burst_pitch is not GmBurstPitch.BURST_PLUS_GAP:
            return
        # the gap between bursts (gmGap = stride - burst) is an unsigned field
        s0, s1, s2, s3, s4 = g.shape
        vr = self.tile.valid_row
        if g.layout is Layout.ND:
            gap = (s3 > 1, "stride[3]", s4)
        elif g.layout is Layout.DN:
            gap = (s4 > 1, "stride[4]", s3)
        else:
            gap = (s1 > 1, "stride[1]", vr * s4 if self.is_load else s2 * s3 * s4)
        used, name, least = gap
        got = g.stride[int(name[-2])]
        if used and got < least:
            self.unsupported(
                "gm",
                "a2a3-gm-gap",
                f"{name} >= {least} (gmGap = {name} - burst length must not be negative)",
                f"strides {list(g.stride)}",
                "a2a3 DMA bursts cannot overlap or go backwards in GM",
            )

    def storage_elements(self, dma: DmaRules) -> int:
        """Elements from the tile's address the DMA touches: the tile's storage, or more when
        the bursts (which follow the GlobalTensor's shape, D14) run past its end."""
        b = self.bursts(dma)
        if b.tile_start.size == 0 or b.length == 0:
            return self.tile.numel
        return max(self.tile.numel, int(b.tile_start.max()) + b.length + b.pad)

    def _check_footprint(self, dma: DmaRules) -> None:
        """A DMA whose bursts run past the tile's storage moves the UB bytes after it, as the
        hardware does (the library's release build has no check; D14): allowed here, finding
        F106 at run time, an OutOfBoundsError past the end of UB (``_storage``)."""
        b = self.bursts(dma)
        if b.tile_start.size and int(b.tile_start.min()) < 0:  # not reachable by the DMA
            self.fail("tile", "dma-within-tile", "tile elements >= 0", int(b.tile_start.min()))

    def _storage(self, ctx: ExecContext) -> np.ndarray:
        """The UB (L1) elements the transfer touches from the tile's address (its storage, or
        more, with finding F106 naming the bytes past the tile)."""
        t = self.tile
        if ctx.spec.dma.transfer is DmaTransfer.EXACT_ELEMENTS:
            return ctx.tile_storage(t)
        count = self.storage_elements(ctx.spec.dma)
        if count == t.numel:
            return ctx.tile_storage(t)
        sz = t.dtype.size_bytes
        lo, hi = t.address + t.size_bytes, t.address + count * sz
        mem = ctx.memory_of(t)
        view = mem.typed(t.address, t.dtype, count, what=f"{self.label} tile {t.name}")
        verb = "writes" if self.is_load else "reads"
        ctx.finding(
            DMA_EXTENT,
            "dma-extent",
            f"the DMA {verb} {mem.name} bytes [{lo:#x}, {hi:#x}) past the end of tile {t.name} "
            f"(its bursts follow the GlobalTensor shape {list(self.gm.shape)}, not the tile's "
            f"{t.rows}x{t.cols} storage)",
        )
        return view

    def _pitch_finding(self, dma: DmaRules, ctx: ExecContext) -> None:
        """F101 / F106 where the burst arithmetic moves other elements than the valid region
        names (only a target that checks neither valid dimension gets here with a mismatch)."""
        g = self.dma_gm(dma)
        if dma.gm_burst_pitch is not GmBurstPitch.BURST_PLUS_GAP or g.layout is Layout.NZ:
            return
        (dim, v, _), (cdim, cv, cview) = self._dims(dma)
        inner = g.shape[3] if g.layout is Layout.DN else g.shape[4]
        # a vector-input load moves the view's row whatever validCol: no pitch to report
        if v != inner and not (self.is_load and mat_vector_load(dma, self.tile, g)):
            stride_in = g.stride[4] if g.layout is Layout.DN else g.stride[3]
            ctx.finding(
                GM_PITCH,
                "gm-pitch",
                f"{dim} {v} != GlobalTensor shape {inner}: the a2a3 DMA advances GM by lenBurst + "
                f"gmGap = {v} + {stride_in} - {inner} = {v + stride_in - inner} elements per "
                f"burst, not stride {stride_in} (give the tile {dim} == {inner} or a "
                f"GlobalTensor whose shape matches the valid region)",
            )
        if cv != cview:
            what = "rows" if cdim == "validRow" else "columns"
            ctx.finding(
                DMA_EXTENT,
                "dma-extent",
                f"{cdim} {cv} != {cview} {what} of the GlobalTensor shape {list(g.shape)}: the "
                f"a2a3 DMA moves {cview} {what} (nBurst comes from the GlobalTensor), not the "
                f"tile's {cv} valid ones (give the GlobalTensor the valid shape)",
            )

    def _ignored_stride_finding(self, dma: DmaRules, ctx: ExecContext) -> None:
        """F112, once per site: a burst-dimension stride the DMA never reads is not the
        contiguous one, so the bursts move other GM elements than the view names (D13)."""
        g = self.dma_gm(dma)
        wrong = [(n, w) for n, w in _inner_stride_rules(g) if g.stride[int(n[-2])] != w]
        if not wrong or not ctx.first_at_site("gm-stride-ignored"):
            return
        said = ", ".join(f"{n} = {g.stride[int(n[-2])]} (contiguous: {w})" for n, w in wrong)
        ctx.finding(
            GM_STRIDE_IGNORED,
            "gm-stride-ignored",
            f"operand 'gm' ({g.layout.name} GlobalTensor of shape {list(g.shape)}, strides "
            f"{list(g.stride)}) has {said}: the {ctx.arch.target} DMA never reads that stride, "
            "each burst moves contiguous GM elements from its start (the cpu target follows the "
            "stride)",
        )

    def _element_pairs(self, ctx: ExecContext):
        """(GM element offsets, tile storage offsets) of every element moved, GM checked."""
        t, g = self.tile, self.gm
        dma = ctx.spec.dma
        if dma.transfer is DmaTransfer.EXACT_ELEMENTS:  # the valid region, (r, c) exactly
            r, c = t.geom.grid(*t.valid)
            gm_offs, tile_offs, pad = g.offsets(r, c), t.offsets(r, c), None
        else:  # the DMA burst arithmetic (D7, D8)
            self._pitch_finding(dma, ctx)
            if not dma.reads_burst_strides:
                self._ignored_stride_finding(dma, ctx)
            gm_offs, tile_offs, pad = _burst_offsets(self.bursts(dma))
        ctx.gm_check(g, gm_offs, "gm", read=self.is_load)  # a load may read past the end (D21)
        return gm_offs, tile_offs, pad

    def _nibble_pairs(self, ctx: ExecContext):
        """(r, c, GM element offsets) of a nibble-by-nibble transfer (``moves_nibbles``), the
        GM bytes checked: element k is nibble k % 2 (the high one when odd) of byte k // 2."""
        t, g = self.tile, self.gm
        r, c = t.geom.grid(*t.valid)
        k = g.offsets(r, c)
        ctx.gm_check(replace(g, dtype=D.uint8), k // 2, "gm", read=self.is_load)
        return r, c, k


def moves_nibbles(spec, dtype) -> bool:
    """Whether a TLOAD / TSTORE of a packed ``dtype`` moves it nibble by nibble: on cpu, whose
    exact element copy reads and writes fp4 element k as nibble k % 2 of byte k // 2 (its
    GetProperDataPart / SetProperDataPart), for any strides and an odd number of columns."""
    return (
        dtype.packed
        and spec.dma.transfer is DmaTransfer.EXACT_ELEMENTS
        and spec.layout.nibbles.get(dtype) is Nibbles.FLAT
    )


def packed_pad_field(ref: TileRef) -> int:
    """The 4-bit field a cpu TLOAD pads a packed fp4 tile with: 0 for Null and Zero; for Max
    and Min the CPU simulator's numeric limits of its MX types (no infinity): max() is field
    0x7 (the largest finite value), min() field 0x1 (the smallest positive subnormal)."""
    return {PadValue.Max: 0x7, PadValue.Min: 0x1}.get(ref.pad, 0)


class TLoad(_Transfer):
    opcode = "TLOAD"
    nominal_pipe = Pipe.PIPE_MTE2
    reads = ("gm",)
    writes = ("tile",)
    is_load = True

    def __init__(self, tile: TileRef, gm: GmRef):
        self.tile, self.gm = tile, gm

    def execute(self, ctx: ExecContext) -> None:
        if self.tile.dtype.packed:  # only where moves_nibbles (validate)
            self._load_nibbles(ctx)
            return
        gm_offs, tile_offs, pad = self._element_pairs(ctx)
        store = self._storage(ctx)
        values = self.gm.read(gm_offs)
        if ctx.spec.dma.transfer is DmaTransfer.EXACT_ELEMENTS:  # D8: the whole tile first
            store[:] = pad_scalar(self.tile, null_as_zero=True)
        elif pad is not None:  # NPUs pad each row up to its 32-byte boundary only
            zero = mat_vector_load(ctx.spec.dma, self.tile, self.gm)  # an ND2NZ zero-fills
            store[pad] = 0 if zero else pad_scalar(self.tile, null_as_zero=True)
        store[tile_offs] = values

    def _load_nibbles(self, ctx: ExecContext) -> None:
        """The CPU simulator's fp4 TLOAD: every byte of its tile (Rows * Cols / 2 of them) gets
        the pad field in both nibbles, then each valid element its GM nibble."""
        t = self.tile
        r, c, k = self._nibble_pairs(ctx)
        store = ctx.tile_storage(t)
        store[: t.numel // 2] = packed_pad_field(t) * 0x11
        gm_bytes = replace(self.gm, dtype=D.uint8).read(k // 2)
        fields = np.where(k % 2 == 1, gm_bytes >> 4, gm_bytes & 0x0F)
        nibbles.write(store, t, r, c, fields, Nibbles.FLAT.value)


class TStore(_Transfer):
    """TSTORE(gm, tile), optionally ``AtomicType::AtomicAdd``: GM += tile, as a hardware atomic
    (two cores adding into one region do not race; D12 arithmetic, like MSCATTER Add)."""

    opcode = "TSTORE"
    nominal_pipe = Pipe.PIPE_MTE3
    reads = ("tile",)
    writes = ("gm",)
    is_load = False

    def __init__(self, gm: GmRef, tile: TileRef, atomic: AtomicType = AtomicType.AtomicNone):
        self.gm, self.tile, self.atomic = gm, tile, atomic
        if atomic is AtomicType.AtomicAdd:
            self.reads = ("tile", "gm")  # a read-modify-write of GM

    @property
    def atomic_op(self) -> str | None:  # "Add" for AtomicAdd (the op MSCATTER Add also has)
        return None if self.atomic is AtomicType.AtomicNone else self.atomic.name[len("Atomic") :]

    def validation_key(self, arch: Arch) -> tuple | None:
        key = super().validation_key(arch)
        return key + (self.atomic,)

    def validate(self, arch: Arch) -> None:
        super().validate(arch)
        if self.atomic is AtomicType.AtomicAdd:
            self.require_dtype(
                "tile",
                self.tile.dtype,
                arch.spec.dma.atomic_add_dtypes,
                rule="atomic-dtype",
                detail=f"AtomicType::AtomicAdd on target {arch.target}",
            )

    def execute(self, ctx: ExecContext) -> None:
        if self.tile.dtype.packed:  # only where moves_nibbles (validate): nibble by nibble
            t, g = self.tile, self.gm
            r, c, _ = self._nibble_pairs(ctx)
            fields = nibbles.read(ctx.tile_storage(t), t, r, c, Nibbles.FLAT.value)
            nibbles.write(g.buffer.data, g, r, c, fields, Nibbles.FLAT.value)
            return
        gm_offs, tile_offs, _ = self._element_pairs(ctx)
        store = self.gm.storage()
        values = self._storage(ctx)[tile_offs]
        if self.atomic is AtomicType.AtomicNone:
            store[gm_offs] = values
            return
        atomic_update(
            store, np.ravel(gm_offs), np.ravel(values), ScatterAtomicOp.Add, self.gm.dtype,
            ctx.spec.numerics.maxmin,
        )  # fmt: skip


class TAssign(Instruction):
    """TASSIGN(tile, address): bind a tile to a byte address of its buffer (UB, L1, L0A ...).

    A TASSIGN only sets an address: a tile placed (partly) past the end of its memory is
    accepted with finding F111 (once per site, ``checks/tile_bounds.py``), and the first
    instruction that reads or writes it stops with rule ``fits-in-memory``
    (``ExecContext.tile_storage``, D22). The library passes
    tiles it never touches for some dtypes (TGATHER's tmp for float), so on the device such a
    placement is harmless until an access."""

    opcode = "TASSIGN"
    nominal_pipe = Pipe.PIPE_S

    def __init__(self, tile: TileRef, address: int):
        self.tile, self.address = tile, address

    def tile_operands(self) -> dict[str, TileRef]:
        return {"tile": self.tile}

    def _extent_bytes(self, arch: Arch) -> int:
        t = self.tile
        if arch.spec.cube.addressing is CubeAddressing.FRACTALS:  # a compact tile's extent
            return stored(t).size_bytes
        return t.size_bytes

    def validate(self, arch: Arch) -> None:
        t = self.tile
        size = self._extent_bytes(arch)
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
        if self.address < 0:
            raise MemoryLayoutError(
                "TASSIGN",
                "address",
                "fits-in-memory",
                f"address >= 0 in {space_of(t.loc)}",
                f"{self.address:#x} + {size} = {self.address + size:#x}",
                target=arch.target,
                source=self.source,
                position=self.position,
                detail=f"tile {t.name}",
            )

    def overflow_bytes(self, arch: Arch) -> tuple[int, int]:
        """(end byte of the tile, bytes of it past the end of its memory; 0 when it fits or the
        core lacks that memory, the run's rule core-buffer)."""
        cap = arch.size_of(space_of(self.tile.loc))
        end = self.address + self._extent_bytes(arch)
        return end, (0 if cap is None else max(0, end - cap))

    def execute(self, ctx: ExecContext) -> None:
        """Binding happened at record time; nothing moves."""


def tmov_copied_elements(dst: TileRef, src: TileRef) -> tuple[int, int]:
    """``TMovCopy.UB_BLOCKS`` (a2a3): (storage rows, elements per row) copied; whole rows when
    validCol == Cols."""
    rows = min(dst.valid_row, src.valid_row)
    cols = min(dst.valid_col, src.valid_col)
    if cols < dst.cols:  # copy_ubuf_to_ubuf moves whole 32-byte blocks per row
        c0 = dst.dtype.c0
        cols = min(dst.cols, -(-cols // c0) * c0)
    return rows, cols


class TMov(Instruction):
    """TMOV(dst, src) between Vec tiles (UB -> UB).

    a5 (``TMovCopy.VALID_ELEMENTS``) copies the valid region element by element through both
    tiles' layouts, so the layouts must match there (rule ``same-layout``) and so must the
    valid shapes; a5 also converts an ND tile into an NZ or ZN one
    (``DmaRules.tmov_nd_to_fractal``, ``_check_nd_to_fractal``). cpu (``TMovCopy.ANY_TILES``)
    copies it element by element through any two layouts and between any tile kinds the cube
    paths do not take (Vec -> Left / Right, Acc -> Vec ...: every tile is host memory there),
    the valid shapes equal (the CPU simulator asserts it), ``relu`` NormalRelu then zeroing the
    negative results. a2a3 (``TMovToVec``, ``TMovCopy.UB_BLOCKS``) is a ``copy_ubuf_to_ubuf`` of
    the ``min(valid)`` region in 32-byte blocks: equal Rows x Cols are required but any
    BLayout/SLayout
    pair is accepted (the vendor tests run every combination). Between different layouts it is a
    plain storage copy: rows of ``Cols`` storage elements, ``validRow * Cols`` elements at once when
    whole rows are valid, else per row the blocks covering ``validCol`` elements. Between equal
    layouts an ND tile copies the blocks covering ``validCol`` per row, and DN/NZ tiles copy their
    valid region (D16).
    """

    opcode = "TMOV"
    nominal_pipe = Pipe.PIPE_V
    reads = ("src",)
    writes = ("dst",)

    def __init__(self, dst: TileRef, src: TileRef, relu: bool = False):
        self.dst, self.src, self.relu = dst, src, relu

    def validate(self, arch: Arch) -> None:
        d, s = self.dst, self.src
        if arch.spec.dma.tmov is TMovCopy.ANY_TILES:
            self.require_same_dtype("dst", d, "src", s)
            self.require(d.valid == s.valid, "src", "same-valid-shape", d.valid, s.valid)
            return
        self.require_loc("dst", d)
        self.require_loc("src", s)
        self.require_same_dtype("dst", d, "src", s)
        if arch.spec.dma.tmov is TMovCopy.UB_BLOCKS:
            self.require(
                (d.rows, d.cols) == (s.rows, s.cols),
                "src",
                "same-shape",
                f"{d.rows}x{d.cols}",
                f"{s.rows}x{s.cols}",
            )
            return
        pair = (s.geom.layout_name, d.geom.layout_name)
        if arch.spec.dma.tmov_nd_to_fractal and pair in (("ND", "NZ"), ("ND", "ZN")):
            self._check_nd_to_fractal(pair[1])
        else:
            self.require(
                d.geom.layout_name == s.geom.layout_name,
                "src",
                "same-layout",
                d.geom.layout_name,
                s.geom.layout_name,
            )
        self.require(d.valid == s.valid, "src", "same-valid-shape", d.valid, s.valid)

    def _check_nd_to_fractal(self, kind: str) -> None:
        """The a5 ND -> NZ / ND -> ZN forms where the reference's addressing is the tiles'
        layouts: NZ packs its column blocks ``ceil16(validRow)`` rows apart (so the valid rows
        must round up to Rows); ZN reads the source rows ``validCol`` apart and numbers the
        fractals by ``validCol / 16`` (so both valid widths must be Cols, and the valid shape
        whole fractals). Other shapes are not modelled."""
        d, s = self.dst, self.src
        if kind == "NZ":
            ok = nz_block_pitch_rows(d) <= d.rows
            want = (
                f"dst valid rows rounding up to 16 * ceil(rows/16) (plus one for a RowPlusOne "
                f"tile) <= Rows {d.rows}"
            )
            given = f"valid rows {d.valid_row}"
        else:
            k0 = d.dtype.c0
            ok = d.valid_col == d.cols and s.valid_col == s.cols
            ok = ok and d.valid_row % k0 == 0 and d.valid_col % 16 == 0
            want = f"valid columns = Cols on both tiles, valid rows a multiple of {k0}"
            given = f"dst valid {d.valid}, src valid {s.valid}, Cols {d.cols}/{s.cols}"
        if not ok:
            self.unsupported("dst", f"tmov-nd-to-{kind.lower()}", want, given)

    def execute(self, ctx: ExecContext) -> None:
        d, s = self.dst, self.src
        pitch = nz_block_pitch_rows(d) if d.geom.layout_name == "NZ" else d.rows
        if (
            ctx.spec.dma.tmov_nd_to_fractal and pitch != d.rows
            and (s.geom.layout_name, d.geom.layout_name) == ("ND", "NZ")
        ):  # fmt: skip
            # a5 ND -> NZ packs the column blocks ``pitch`` rows apart whatever the dst's Rows
            c0 = BLOCK_BYTES // d.dtype.size_bytes
            r = np.arange(s.valid_row)[:, None]
            c = np.arange(s.valid_col)[None, :]
            offs = (c // c0) * pitch * c0 + r * c0 + c % c0
            ctx.tile_storage(d)[offs] = ctx.tile_read(s)
            return
        if ctx.spec.dma.tmov is not TMovCopy.UB_BLOCKS:
            values = ctx.tile_read(s)
            if self.relu and ctx.spec.dma.tmov is TMovCopy.ANY_TILES:
                # cpu/TMov.hpp: v < 0 -> 0 (NaN is not < 0: it stays)
                values = np.where(values < 0, np.zeros_like(values), values)
            ctx.tile_write(d, values)
            return
        rows, cols = tmov_copied_elements(d, s)
        if d.geom.layout_name != s.geom.layout_name:  # plain storage copy (D16)
            offs = (np.arange(rows)[:, None] * d.cols + np.arange(cols)).reshape(-1)
            ctx.tile_storage(d)[offs] = ctx.tile_storage(s)[offs]
            return
        if not d.geom.is_nd:  # same layout: the valid region, through the layout
            rows, cols = min(d.valid_row, s.valid_row), min(d.valid_col, s.valid_col)
        ctx.tile_write(d, ctx.tile_read(s, rows, cols), rows, cols)


def nz_block_pitch_rows(d: TileRef) -> int:
    """The rows between the column blocks an a5 ND -> NZ TMOV writes into ``d``: its valid rows
    rounded up to 16, plus one for a ``CompactMode::RowPlusOne`` tile (a5 TMov.hpp
    TMovToVecNd2Nz; the extra row keeps the blocks off one UB bank)."""
    aligned = -(-d.valid_row // 16) * 16
    return aligned + (1 if d.geom.compact is CompactMode.RowPlusOne else 0)


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
def byte_views(t: TileRef, g: GmRef) -> tuple[TileRef, GmRef]:
    """A transfer of a packed 4-bit tile as the target moves it: where its nibbles are
    ``UNPACKED``, uint8 views of the same shape; where they are ``FLAT`` (ptosim/nibbles.py),
    uint8 views with the contiguous dimension halved (rounded up) and every other stride and
    the offset in bytes (npu/a5 common.hpp GetByteSize halves them): an ND or NZ tile halves
    its columns (GM dimension 4), a DN tile its rows (GM dimension 3). Anything else is
    returned as given: on cpu, which moves fp4 nibble by nibble (``moves_nibbles``), else
    the transfer's validation refuses a packed tile (rule ``packed-bytes``)."""
    if not t.dtype.packed:
        return t, g
    rule = current().program.arch.spec.layout.nibbles.get(t.dtype)
    if rule is Nibbles.UNPACKED:  # one element per byte: a byte transfer of the same shape
        u8 = D.uint8
        return replace(t, geom=replace(t.geom, dtype=u8)), replace(g, dtype=u8)
    if rule is not Nibbles.FLAT or moves_nibbles(current().program.arch.spec, t.dtype):
        return t, g
    # the tile's contiguous axis and the GM dimension it walks: the columns and dimension 4
    # for an ND or NZ tile (also for a DN view on cpu, whose exact element copy pairs any
    # layouts), the rows and dimension 3 for a DN (ColMajor) tile
    tg = t.geom
    if tg.is_nd or tg.is_nz:
        inner, halved = 4, t.cols
    elif tg.blayout is BLayout.ColMajor and tg.slayout is SLayout.NoneBox:
        inner, halved = 3, t.rows
    else:
        return t, g
    outer = [(n, st) for k, (n, st) in enumerate(zip(g.shape, g.stride)) if k != inner]
    odd = any(n > 1 and st % 2 for n, st in outer) or g.offset % 2 or halved % 2
    if odd or g.stride[inner] != 1:
        return t, g
    u8 = D.uint8
    if inner == 3:
        geom = replace(t.geom, dtype=u8, rows=t.rows // 2)
        tile = replace(t, geom=geom, valid_row=(t.valid_row + 1) // 2)
    else:
        geom = replace(t.geom, dtype=u8, cols=t.cols // 2)
        tile = replace(t, geom=geom, valid_col=(t.valid_col + 1) // 2)
    shape = list(g.shape)
    shape[inner] = (shape[inner] + 1) // 2
    stride = [st // 2 if n > 1 else 1 for n, st in zip(g.shape, g.stride)]
    stride[inner] = 1
    gm = GmRef(g.buffer, u8, GmGeom(tuple(shape), tuple(stride), g.layout), g.offset // 2)
    return tile, gm


def _tile(value, what: str) -> TileRef:
    if not isinstance(value, Tile):
        raise KernelError(f"{what} must be a pto.Tile, got {type(value).__name__}")
    return value.ref()


def _gm(value, what: str) -> GmRef:
    if not isinstance(value, GlobalTensor):
        raise KernelError(f"{what} must be a pto.GlobalTensor, got {type(value).__name__}")
    return value.ref()


@instruction(
    family="data movement",
    summary="bind a tile to a byte address of its buffer (UB, L1, L0A, L0B, L0C, BT, FB)",
)
def TASSIGN(tile: Tile, address: int) -> None:
    """Bind ``tile`` to a byte address of its buffer: UB (Vec), L1 (Mat), L0A (Left), L0B
    (Right), L0C (Acc), the bias table (Bias) or the fixpipe buffer (Scaling).

    Raises:
        MemoryLayoutError: misaligned, or the tile would overflow the memory.
    """
    if not isinstance(tile, Tile):
        raise KernelError(f"TASSIGN: tile must be a pto.Tile, got {type(tile).__name__}")
    if not isinstance(address, (int, np.integer)) or isinstance(address, bool):
        raise KernelError(f"TASSIGN: address must be an integer byte address, got {address!r}")
    rec = current()
    placement = Placement(int(address), auto=False)
    ref = tile.ref()
    if ref.loc is TileType.Vec and _peer_ub(rec.program):
        # 950: a Vec tile on the cube core is an address in a vector core's UB, which only the
        # fixpipe's Acc -> Vec copy writes (isa/cube/acc2vec.py); no instruction of its own
        tile.placement = placement
        return
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
    placement.assigned_at = emit(TAssign(ref, int(address))).source
    tile.placement = placement


def _peer_ub(program) -> bool:
    """Whether UB is a vector core's buffer this (cube) core reaches through the fixpipe."""
    arch = program.arch
    return arch.size_of("UB") is None and arch.spec.cube.onchip_cv_paths and arch.launch == "mix"


@instruction(
    family="data movement", summary="GM -> UB/L1 (ND, DN, NZ; ND2NZ, DN2ZN into L1) on MTE2"
)
def TLOAD(tile: Tile, gm: GlobalTensor) -> None:
    """GM -> tile (MTE2): load the tile's valid region from ``gm``; into a Mat tile also with
    the ND -> NZ and DN -> ZN conversions (docs/guide-cube.md)."""
    if cube_load(tile, gm):
        return
    emit(TLoad(*byte_views(_tile(tile, "TLOAD tile"), _gm(gm, "TLOAD gm"))))


@instruction(
    family="data movement",
    summary="UB -> GM (ND, DN, NZ): DMA bursts on MTE3; AtomicAdd accumulates",
)
def TSTORE(
    gm: GlobalTensor, tile: Tile, *, atomic=AtomicType.AtomicNone, relu="NoRelu",
    phase="Unspecified", quant=None,
) -> None:  # fmt: skip
    """Tile -> GM (MTE3): store the tile's valid region into ``gm``. From an Acc tile it is the
    fixpipe (PIPE_FIX): ND or NZ output, dtype conversion, ReLU (docs/guide-cube.md).

    Args:
        atomic: ``AtomicType.AtomicNone`` (plain store) or ``AtomicType.AtomicAdd`` (GM += tile;
            also ``"none"``/``"add"``), C++ ``TSTORE<Tile, Gm, AtomicType::AtomicAdd>``.
        relu: ``ReluPreMode`` of an Acc store (``"NoRelu"``, ``"NormalRelu"``).
        phase: the ``STPhase`` of an Acc store: ``"Final"`` waits for the unit flag of the
            TMATMUL with ``phase="Final"`` (the hardware's M -> FIX handshake).
        quant: the fixpipe's quantisation of an Acc store (on the targets that model it, see
            docs/guide-cube.md): an int, the C++ ``preQuantScalar`` word, or a Scaling tile of
            one word per column (C++ ``TSTORE_FP``).
    """
    if cube_store(gm, tile, atomic, relu, quant, phase):
        return
    if quant is not None or ReluPreMode.parse(relu, "TSTORE relu") is not ReluPreMode.NoRelu:
        what = f"relu={relu}" if quant is None else "quant"
        loc = tile.ref().loc.name if isinstance(tile, Tile) else type(tile).__name__
        raise KernelError(f"TSTORE {what}: a fixpipe form, it stores an Acc tile, not a {loc} tile")
    mode = AtomicType.parse(atomic, "TSTORE atomic")
    t, g = byte_views(_tile(tile, "TSTORE tile"), _gm(gm, "TSTORE gm"))
    emit(TStore(g, t, mode))


@instruction(
    family="data movement",
    summary="Vec -> Vec copy; Mat -> Left/Right/Bias (MTE1), Acc -> Mat (fixpipe)",
)
def TMOV(
    dst: Tile, src: Tile, tmp: Tile | None = None, *, relu="NoRelu", quant=None,
    phase="Unspecified", acc_to_vec=None,
) -> None:  # fmt: skip
    """Copy ``src`` into ``dst``: Vec -> Vec, or the cube paths L1 -> L0A / L0B / bias table
    and L0C -> L1 (``relu``: ReluPreMode of the fixpipe; ``quant``: its quantisation, as for
    TSTORE, C++ ``TMOV_FP`` with a Scaling tile; ``phase="Final"``: the unit flag, as for
    TSTORE); L1 -> the fixpipe buffer (a Scaling tile of quant words); on 950 Acc -> Vec into
    a vector core's UB (``acc_to_vec``: an AccToVecMode, default ``"SingleModeVec0"``). With
    ``tmp``: an E8M0 exponent tile into the ZZ scale layout (950; tmov_zz.py)."""
    if tmp is not None:
        emit(TMovNdToZz(_tile(dst, "TMOV dst"), _tile(src, "TMOV src"), _tile(tmp, "TMOV tmp")))
        return
    if cube_move("TMOV", dst, src, relu=relu, quant=quant, phase=phase, acc_to_vec=acc_to_vec):
        return
    normal = ReluPreMode.parse(relu, "TMOV relu") is ReluPreMode.NormalRelu
    emit(TMov(_tile(dst, "TMOV dst"), _tile(src, "TMOV src"), normal))


@instruction(family="data movement", summary="fill a tile's valid region with a scalar")
def TEXPANDS(dst: Tile, scalar) -> None:
    """Fill the valid region of ``dst`` with ``scalar``."""
    emit(TExpandS(_tile(dst, "TEXPANDS dst"), scalar))
