"""TMOV(dst, src, tmp): the 950's move of a row-major E8M0 exponent tile into the ZZ layout the
cube's MX scale loads expect (npu/a5 TMov.hpp, the ND -> ZZ form with a scratch tile).

dst (RowMajor, 16 x 2 boxes of one-byte elements: SLayout::RowMajor, 32-byte fractals) takes
R x G exponents, R = dst.valid_row, G = dst.valid_col, from src's first bytes read flat in rows
of G (``src[r * G + j]``: a one-row TQUANT exponent tile, or any RowMajor unboxed tile holding
them densely). The NPU gathers 16-bit pairs, so the move works on P = G / 2 column pairs (an odd
last column is dropped) and on ceil(R / 16) row blocks: dst's bytes are written flat, block
(rb, p) at byte ``(rb * P + p) * 32``, row q of the block at ``+ 2q`` (``src[(16 rb + q) G + 2p
+ d]``, d = 0, 1). The source rows from R up to the 16-row boundary are zeroed in place first
(the reference clears them so that the gather reads zeros), and tmp holds the gather's uint16
index tables afterwards (16 block-row bases ``q * P``, then per row block P offsets
``16 rb P + p``, then one more vector of 16 from the last block's base).

Element types uint8, float8_e8m0 or hifloat8, the same for the three tiles. cpu and a2a3: no
such form (UnsupportedError: their TMOV takes two tiles).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as D
from ..enums import BLayout, Pipe, SLayout
from .base import Arch, ExecContext, Instruction

__all__ = ["TMovNdToZz"]

_BOX_ROWS = 16  # rows of a ZZ box (16 x 2 one-byte elements, 32 bytes)
_DTYPES = (D.uint8, D.float8_e8m0, D.hifloat8)


class TMovNdToZz(Instruction):
    opcode = "TMOV"
    nominal_pipe = Pipe.PIPE_V
    reads = ("src",)
    writes = ("dst", "src", "tmp")

    def __init__(self, dst, src, tmp):
        self.dst, self.src, self.tmp = dst, src, tmp

    def validate(self, arch: Arch) -> None:
        if not arch.spec.dma.tmov_nd_to_zz:
            self.unsupported(
                "tmp", "tmov-nd-to-zz", f"a target with the ND -> ZZ move (not {arch.target})",
                "a tmp tile",
            )  # fmt: skip
        d, s, t = self.dst, self.src, self.tmp
        for name, ref in (("dst", d), ("src", s), ("tmp", t)):
            self.require_loc(name, ref)
            self.require_dtype(name, ref.dtype, _DTYPES)
        self.require_same_dtype("dst", d, "src", s)
        self.require_same_dtype("tmp", t, "src", s)
        g = s.geom
        self.require(
            g.blayout is BLayout.RowMajor and g.slayout is SLayout.NoneBox,
            "src", "layout", "RowMajor NoneBox", g.layout_name,
        )  # fmt: skip
        g = d.geom
        self.require(
            g.blayout is BLayout.RowMajor and g.slayout is SLayout.RowMajor and g.fractal == 32,
            "dst", "layout", "RowMajor with SLayout::RowMajor 32-byte fractals (ZZ, 16 x 2 boxes)",
            f"{g.layout_name} with {g.fractal}-byte fractals",
        )  # fmt: skip
        R, G = d.valid
        blocks = -(-R // _BOX_ROWS) * (G // 2)
        self.require(
            blocks * 32 <= d.size_bytes, "dst", "capacity",
            f">= {blocks * 32} bytes ({blocks} boxes)", d.size_bytes,
        )  # fmt: skip
        need = -(-R // _BOX_ROWS) * _BOX_ROWS * G
        self.require(s.size_bytes >= need, "src", "capacity", f">= {need} bytes", s.size_bytes)
        tmp_bytes = (_BOX_ROWS + -(-R // _BOX_ROWS) * (G // 2) + _BOX_ROWS) * 2
        self.require(
            t.size_bytes >= tmp_bytes, "tmp", "capacity", f">= {tmp_bytes} bytes", t.size_bytes
        )

    def execute(self, ctx: ExecContext) -> None:
        d, s, t = self.dst, self.src, self.tmp
        R, G = d.valid
        P, rbc = G // 2, -(-R // _BOX_ROWS)
        if P == 0 or R == 0:
            return
        src = ctx.memory_of(s).typed(s.address, D.uint8, rbc * _BOX_ROWS * G, what=self.label)
        src[R * G :] = 0  # the rows up to the 16-row boundary
        pairs = src[: rbc * _BOX_ROWS * G].reshape(rbc, _BOX_ROWS, G)[:, :, : 2 * P]
        boxes = pairs.reshape(rbc, _BOX_ROWS, P, 2).transpose(0, 2, 1, 3)
        ctx.memory_of(d).typed(d.address, D.uint8, boxes.size, what=self.label)[:] = boxes.ravel()
        q = np.arange(_BOX_ROWS)
        offsets = (np.arange(rbc)[:, None] * _BOX_ROWS * P + np.arange(P)[None, :]).ravel()
        table = np.concatenate([q * P, offsets, (rbc - 1) * _BOX_ROWS * P + q])
        n = table.size
        ctx.memory_of(t).typed(t.address, D.uint16, n, what=self.label)[:] = table & 0xFFFF
