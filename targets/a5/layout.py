"""950 (a5) plans of the layout / fill / gather family (vector_isa.md 3.1, 3.2, 3.9,
3.11-3.14, 2.6).

Every instruction is one ``__VEC_SCOPE__`` (``VectorFunction``): loops of identical intrinsics,
one vector = 256 bytes. The reference gives the a5 bodies only in outline, so the loops below
are the natural VF forms (estimates where marked):

- TRESHAPE / TSUBVIEW: an address constant in a register (PIPE_S), no VF.
- TFILLPAD: ``vdup`` of the pad once; ``vlds`` of src's valid rows (ceil(Cs/VLe) per row);
  ``vsts`` of every dst row (ceil(Cols/VLe) per row: the whole tile is written).
- TTRANS (estimate: the a5 transpose VF is not described): per src row ``vlds``, per dst row a
  ``vgather2`` of the transposed column and a ``vsts``.
- TTRI (estimate): two ``vdup`` (0 and 1) once, then per row and vector a ``vsel`` and a
  ``vsts``.
- TEXTRACT / TINSERT: a statically 1x1 window is one scalar copy; a 32-byte aligned window
  (column index and width whole blocks) is one ``copy_ubuf_to_ubuf``; else per row ``vlds`` +
  ``vsts`` (unaligned loads/stores, costed as vlds/vsts).
- TGATHER index: per row and vector ``vlds`` of the indices, ``vgather2``, ``vsts``. Mask form
  (estimate): ``vlds`` of the source vectors, ``vsqz`` (ROW compaction), ``vsts``. TGATHERB:
  per row ``vlds`` of the offsets, ``vgatherb``, ``vsts``.
"""

from __future__ import annotations

from ptosim import dtypes as D
from ptosim.enums import Pipe
from ptosim.isa.vector.layout import TExtract, TFillPad, TInsert, TTrans, TTri, _is_nd
from ptosim.isa.vector.tgather import TGather, TGatherB, TGatherCmp, TGatherMask
from ptosim.isa.vector.tgather_squeeze import group_width
from ptosim.isa.vector.views import TReshape, TSubView

from ..a2a3.layout import plan_view, rows_region, scalar_copy_cycles, ub_copy_step
from ..a2a3.vec import VecStream
from ..costs import ceil_div, tile_region
from .vf import VectorFunction


def _vecs(n: int, sz: int, vl: int) -> int:
    return ceil_div(n * sz, vl)


def plan_fillpad(instr: TFillPad, ctx) -> list:
    d, s = instr.dst, instr.src
    vf = VectorFunction(ctx, d.dtype)
    sz = d.dtype.size_bytes
    Rs, Cs = s.valid
    vf.op("vdup", 1, "pad")
    vf.op("vlds", Rs * _vecs(Cs, sz, vf.vl), "src rows", reads=(rows_region(s, 0, Rs, 0, Cs),))
    vf.op("vsts", d.rows * _vecs(d.cols, sz, vf.vl), "dst rows", writes=(tile_region(d),))
    return vf.steps()


def plan_trans(instr: TTrans, ctx) -> list:
    d, s = instr.dst, instr.src
    R, C = s.valid
    sz = s.dtype.size_bytes
    vf = VectorFunction(ctx, d.dtype)
    vf.op("vlds", R * _vecs(C, sz, vf.vl), "src rows", reads=(rows_region(s, 0, R, 0, C),))
    n = C * _vecs(R, sz, vf.vl)
    vf.op("vgather2", n, "transpose")
    vf.op("vsts", n, "dst rows", writes=(rows_region(d, 0, C, 0, R),))
    return vf.steps()


def plan_tri(instr: TTri, ctx) -> list:
    d = instr.dst
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    n = R * _vecs(C, d.dtype.size_bytes, vf.vl)
    vf.op("vdup", 2, "0 and 1")
    vf.op("vsel", n, "triangle")
    vf.op("vsts", n, "rows", writes=(rows_region(d, 0, R, 0, C),))
    return vf.steps()


def _plan_window(instr, ctx, R: int, C: int, src_reg, dst_reg) -> list:
    d = instr.dst
    sz = d.dtype.size_bytes
    if R == 0 or C == 0:
        return []
    if d.static_valid and (R, C) == (1, 1) and isinstance(instr, TExtract):
        vs = VecStream(ctx)
        vs.handshake(Pipe.PIPE_V, Pipe.PIPE_S)
        vs.scalar(scalar_copy_cycles(ctx, 1), "scalar copy", reads=(src_reg,), writes=(dst_reg,))
        vs.handshake(Pipe.PIPE_S, Pipe.PIPE_V)
        return vs.steps()
    aligned = (instr.index_col * sz) % 32 == 0 and (C * sz) % 32 == 0
    if aligned or not _is_nd(d):
        return [ub_copy_step(ctx, R * C * sz, instr.opcode, (src_reg,), (dst_reg,))]
    vf = VectorFunction(ctx, d.dtype)
    n = R * _vecs(C, sz, vf.vl)
    vf.op("vlds", n, "rows", reads=(src_reg,))
    vf.op("vsts", n, "rows", writes=(dst_reg,))
    return vf.steps()


def _region(ref, r0: int, n: int, c0: int, c1: int):
    return rows_region(ref, r0, n, c0, c1) if _is_nd(ref) else tile_region(ref)


def plan_extract(instr: TExtract, ctx) -> list:
    d, s = instr.dst, instr.src
    R, C = d.valid
    r0, c0 = instr.index_row, instr.index_col
    return _plan_window(instr, ctx, R, C, _region(s, r0, R, c0, c0 + C), _region(d, 0, R, 0, C))


def plan_insert(instr: TInsert, ctx) -> list:
    d, s = instr.dst, instr.src
    R, C = s.valid
    r0, c0 = instr.index_row, instr.index_col
    return _plan_window(instr, ctx, R, C, _region(s, 0, R, 0, C), _region(d, r0, R, c0, c0 + C))


def plan_gather(instr: TGather, ctx) -> list:
    d, s, x = instr.dst, instr.src0, instr.idx
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    n = R * _vecs(C, x.dtype.size_bytes, vf.vl)
    m = R * _vecs(C, d.dtype.size_bytes, vf.vl)
    vf.op("vlds", n, "indices", reads=(rows_region(x, 0, R, 0, C),))
    vf.op("vgather2", m, "gather", reads=(tile_region(s),))
    vf.op("vsts", m, "dst rows", writes=(rows_region(d, 0, R, 0, C),))
    return vf.steps()


def plan_gather_mask(instr: TGatherMask, ctx) -> list:
    d, s = instr.dst, instr.src
    sz = d.dtype.size_bytes
    vf = VectorFunction(ctx, d.dtype)
    if instr.axis == "GATHER_ROW":
        R, C = s.valid
        n_in = R * _vecs(C, sz, vf.vl)
        n_out = _vecs(R * instr.row_count(ctx.arch), sz, vf.vl)
        vf.op("vlds", n_in, "src rows", reads=(rows_region(s, 0, R, 0, C),))
        vf.op("vsqz", n_in, "compact")
        vf.op("vsts", n_out, "dst", writes=(tile_region(d),))
    else:
        R, C = d.valid
        n = R * _vecs(C, sz, vf.vl)
        vf.op("vlds", n, "src rows", reads=(tile_region(s),))
        vf.op("vsts", n, "dst rows", writes=(rows_region(d, 0, R, 0, C),))
    return vf.steps()


def plan_gatherb(instr: TGatherB, ctx) -> list:
    d, s, o = instr.dst, instr.src, instr.offset
    R, C = d.valid
    vf = VectorFunction(ctx, d.dtype)
    n = R * _vecs(C, d.dtype.size_bytes, vf.vl)
    vf.op("vlds", R, "offsets", reads=(tile_region(o),))
    vf.op("vgatherb", n, "blocks", reads=(tile_region(s),))
    vf.op("vsts", n, "dst rows", writes=(rows_region(d, 0, R, 0, C),))
    return vf.steps()


def plan_gather_cmp(instr: TGatherCmp, ctx) -> list:
    """npu/a5 TGather.hpp, compare form: one vector function; per row and 64-lane group a
    load (with a ``vcvt`` or an unpack for non-32-bit sources), the compare, ``vsqz``,
    ``vstur`` and the index ``vadd``; per row ``vstar`` and the count's ``sprsts``."""
    d, s, c = instr.dst, instr.src0, instr.cdst
    R, C = s.valid
    vf = VectorFunction(ctx, s.dtype)
    groups = R * ceil_div(C, group_width(s.dtype)) * (group_width(s.dtype) // 64)
    vf.op("vci", 1, "index ramp")
    vf.op("vlds", groups, "scores", reads=(rows_region(s, 0, R, 0, C), tile_region(instr.k_value)))
    vf.op("vcvt", groups if s.dtype is not D.uint32 and s.dtype is not D.int32 else 0, "to 32 bits")
    vf.op("vcmp", groups, instr.cmp_mode)
    vf.op("vsqz", groups, "indices")
    vf.op("vstur", groups, "packed", writes=(tile_region(d),))
    vf.op("vadd", groups, "next indices")
    vf.op("vstar", R, "row tails", writes=(tile_region(d),))
    vf.op("sprsts", R, "counts", writes=(tile_region(c),))
    return vf.steps()


PLANS = {
    TReshape: plan_view,
    TSubView: plan_view,
    TFillPad: plan_fillpad,
    TTrans: plan_trans,
    TTri: plan_tri,
    TExtract: plan_extract,
    TInsert: plan_insert,
    TGather: plan_gather,
    TGatherCmp: plan_gather_cmp,
    TGatherMask: plan_gather_mask,
    TGatherB: plan_gatherb,
}
