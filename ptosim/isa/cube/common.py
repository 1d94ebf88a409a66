"""What the cube instructions share: tile-kind checks, element access through a tile's stored
geometry (compact tiles, ``geometry.stored``) and the kernel-facing operand conversion."""

from __future__ import annotations

import numpy as np

from ...enums import BLayout, SLayout, TileType
from ...errors import KernelError
from ...tensors import GlobalTensor, GmRef, Tile, TileRef
from ..base import Arch, ExecContext, Instruction
from ..spec import CubeAddressing
from .geometry import byte_geom, packed_axis, stored

# the layouts (BLayout, SLayout) each cube tile kind may have, whatever the target
NZ = (BLayout.ColMajor, SLayout.RowMajor)
ZN = (BLayout.RowMajor, SLayout.ColMajor)
ZZ = (BLayout.RowMajor, SLayout.RowMajor)
CUBE_DTYPES_TEXT = "int8, half, bfloat16, float"


def layout_of(ref: TileRef) -> tuple[BLayout, SLayout]:
    return ref.geom.blayout, ref.geom.slayout


class CubeInstruction(Instruction):
    """A cube-core instruction: operand kinds are checked by name (``require_kind``)."""

    def require_kind(self, operand: str, ref: TileRef, *kinds: TileType) -> None:
        if ref.loc not in kinds:
            want = " or ".join(f"TileType::{k.name}" for k in kinds)
            self.fail(operand, "tile-location", want, f"TileType::{ref.loc.name}")

    def require_layout(self, operand: str, ref: TileRef, *layouts, detail: str = "") -> None:
        if layout_of(ref) not in layouts:
            names = " or ".join(_layout_text(b, s) for b, s in layouts)
            self.fail(operand, "fractal-layout", names, ref.geom.layout_name, detail)


def _layout_text(b: BLayout, s: SLayout) -> str:
    return {NZ: "NZ", ZN: "ZN", ZZ: "ZZ"}.get((b, s), f"{b.name}+{s.name}")


def geom_of(ctx: ExecContext, ref: TileRef):
    """Where a tile's elements are: the NPU stores a compact tile at its valid extent
    (``geometry.stored``); the CPU simulator addresses every tile through Rows / Cols."""
    if ctx.spec.cube.addressing is CubeAddressing.FRACTALS:
        return stored(ref)
    return ref.geom


def storage(ctx: ExecContext, ref: TileRef) -> np.ndarray:
    """A tile's storage: Rows x Cols elements, or a compact tile's stored extent on the NPU."""
    g = geom_of(ctx, ref)
    if g is ref.geom:
        return ctx.tile_storage(ref)
    return ctx.memory_of(ref).typed(ref.address, ref.dtype, g.numel, what=ref.name)


def read_block(ctx: ExecContext, ref: TileRef, rows: int, cols: int, r0: int = 0, c0: int = 0):
    """Logical block [r0:r0+rows, c0:c0+cols] of a tile, through its stored geometry (a
    packed 4-bit tile: its 4-bit fields, uint8 0..15)."""
    g = geom_of(ctx, ref)
    r, c = np.meshgrid(np.arange(r0, r0 + rows), np.arange(c0, c0 + cols), indexing="ij")
    if ref.dtype.packed:
        at, high = _nibbles(g, r, c)
        b = storage(ctx, ref)[at]
        return np.where(high, b >> 4, b & 0x0F).astype(np.uint8)
    return storage(ctx, ref)[g.offsets(r, c)]


def _nibbles(g, r: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(byte offset, is the high nibble) of elements (r, c) of a packed tile of geometry g
    (geometry.byte_geom)."""
    bg = byte_geom(g)
    if packed_axis(g) == 0:
        return bg.offsets(r // 2, c), (r % 2) == 1
    return bg.offsets(r, c // 2), (c % 2) == 1


def write_block(ctx: ExecContext, ref: TileRef, values, r0: int = 0, c0: int = 0) -> None:
    """Write a 2-D block at logical (r0, c0) of a tile, through its stored geometry."""
    values = np.asarray(values)
    rows, cols = values.shape
    if rows == 0 or cols == 0:
        return
    g = geom_of(ctx, ref)
    r, c = np.meshgrid(np.arange(r0, r0 + rows), np.arange(c0, c0 + cols), indexing="ij")
    if ref.dtype.packed:  # 4-bit fields into their nibbles, the other nibble kept
        at, high = _nibbles(g, r, c)
        st = storage(ctx, ref)
        v = values.astype(np.uint8) & 0x0F
        lo = ~high  # each byte's two nibbles in two passes (a pass has no repeated byte)
        st[at[lo]] = (st[at[lo]] & 0xF0) | v[lo]
        st[at[high]] = (st[at[high]] & 0x0F) | (v[high] << 4)
        return
    storage(ctx, ref)[g.offsets(r, c)] = values.astype(ref.dtype.np, copy=False)


def tile_arg(value, what: str) -> TileRef:
    if not isinstance(value, Tile):
        raise KernelError(f"{what} must be a pto.Tile, got {type(value).__name__}")
    return value.ref()


def gm_arg(value, what: str) -> GmRef:
    if not isinstance(value, GlobalTensor):
        raise KernelError(f"{what} must be a pto.GlobalTensor, got {type(value).__name__}")
    return value.ref()


def is_cube_tile(value) -> bool:
    """A tile of the cube core's buffers other than L1 (Left, Right, Acc, Bias, Scaling)."""
    return isinstance(value, Tile) and value.ref().loc not in (TileType.Vec, TileType.Mat)


__all__ = ["Arch", "CubeInstruction", "ExecContext", "read_block", "write_block"]
