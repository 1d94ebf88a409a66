"""The layout / fill, sort, gather and data-movement instructions called from C++ in each of their
template forms (tests/cxx/layoutsort.cpp) give the bits, cycles and findings of the same kernel
written in Python, on every target family; where a target does not support a form, both stop with
the same error code (the C++ one naming its line)."""

from __future__ import annotations

from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import PtoSimError
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "layoutsort.cpp"
DEVICES = ("cpu", "a2", "950pr")
NP = {
    "float32": np.float32, "half": np.float16, "int32": np.int32, "uint32": np.uint32,
    "int16": np.int16, "uint16": np.uint16, "uint8": np.uint8, "bfloat16": ml_dtypes.bfloat16,
}  # fmt: skip


@dataclass
class Case:
    body: object  # the Python twin's body: body(out, a, b, c)
    args: object  # args(rng) -> four numpy arrays (out, a, b, c), each copied into GM
    ops: tuple
    errors: dict = field(default_factory=dict)  # device -> the error code both must raise


CASES: dict[str, Case] = {}


def case(entry, ops, args, errors=None):
    def register(body):
        CASES[entry] = Case(body, args, tuple(ops), errors or {})
        return body

    return register


# -- the C++ helpers, in Python -----------------------------------------------------------------
def V(dt, r, c, valid=None, pad="Null", addr=None):
    """A Vec tile as the C++ V<T, R, C, VR, VC, P> (a static valid shape), TASSIGNed at addr."""
    t = pto.Tile("Vec", dt, r, c, valid=valid or (r, c), pad=pad)
    if addr is not None:
        pto.TASSIGN(t, addr)
    return t


def load(t, buf, r, c, offset=0):
    pto.TLOAD(t, pto.GlobalTensor(buf, (1, 1, 1, r, c), offset=offset, dtype=t.dtype))


def store(buf, t, r, c):
    pto.TSTORE(pto.GlobalTensor(buf, (1, 1, 1, r, c), dtype=t.dtype), t)


def sync(src, dst):
    pto.set_flag(src, dst, pto.EVENT_ID0)
    pto.wait_flag(src, dst, pto.EVENT_ID0)


MTE2, V_, MTE3 = pto.PIPE_MTE2, pto.PIPE_V, pto.PIPE_MTE3


def rand(rng, dt, shape, lo=-4.0, hi=4.0):
    if np.issubdtype(NP[dt], np.integer):
        info = np.iinfo(NP[dt])
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(NP[dt])
    return rng.uniform(lo, hi, shape).astype(NP[dt])


def zeros(dt, shape):
    return np.zeros(shape, NP[dt])


DUMMY = np.zeros((1, 8), np.int32)


# -- layout / fill ------------------------------------------------------------------------------
def extract_case(entry, dt, *idx):
    def args(rng):
        return [zeros(dt, (8, 16)), rand(rng, dt, (16, 32)), DUMMY, DUMMY]

    @case(entry, ["TEXTRACT"], args)
    def body(out, a, b, c):
        src, dst = V(dt, 16, 32, addr=0x0), V(dt, 8, 16, addr=0x4000)
        load(src, a, 16, 32)
        sync(MTE2, V_)
        pto.TEXTRACT(dst, src, *idx)
        sync(V_, MTE3)
        store(out, dst, 8, 16)


extract_case("TEXTRACT_f32", "float32")
extract_case("TEXTRACT_idx_f32", "float32", 4, 8)
extract_case("TEXTRACT_idx_f16", "half", 4, 16)
extract_case("TEXTRACT_idx_i32", "int32", 8, 16)
extract_case("TEXTRACT_idx_bf16", "bfloat16", 0, 16)


def insert_case(entry, dt, r0, c0):
    def args(rng):
        return [zeros(dt, (16, 32)), rand(rng, dt, (16, 32)), rand(rng, dt, (8, 16)), DUMMY]

    # a2a3 has no Vec -> Vec TINSERT (only the cube Acc -> Mat form)
    @case(entry, ["TINSERT"], args, errors={"a2": "PTO102"})
    def body(out, a, b, c):
        dst, src = V(dt, 16, 32, addr=0x0), V(dt, 8, 16, addr=0x4000)
        load(dst, a, 16, 32)
        load(src, b, 8, 16)
        sync(MTE2, V_)
        pto.TINSERT(dst, src, r0, c0)
        sync(V_, MTE3)
        store(out, dst, 16, 32)


insert_case("TINSERT_f32", "float32", 4, 8)
insert_case("TINSERT_f16", "half", 8, 16)
insert_case("TINSERT_i32", "int32", 0, 16)


def fillpad_case(entry, fn, dt, pad, dc, dst_addr):
    def args(rng):
        return [zeros(dt, (16, dc)), rand(rng, dt, (8, 20)), DUMMY, DUMMY]

    @case(entry, [fn.__name__], args)
    def body(out, a, b, c):
        src = V(dt, 16, 32, valid=(8, 20), addr=0x0)
        dst = V(dt, 16, dc, pad=pad, addr=dst_addr)
        load(src, a, 8, 20)
        sync(MTE2, V_)
        fn(dst, src)
        sync(V_, MTE3)
        store(out, dst, 16, dc)


fillpad_case("TFILLPAD_zero_f32", pto.TFILLPAD, "float32", "Zero", 32, 0x4000)
fillpad_case("TFILLPAD_max_f32", pto.TFILLPAD, "float32", "Max", 32, 0x4000)
fillpad_case("TFILLPAD_min_f16", pto.TFILLPAD, "half", "Min", 32, 0x4000)
fillpad_case("TFILLPAD_max_i32", pto.TFILLPAD, "int32", "Max", 32, 0x4000)
fillpad_case("TFILLPAD_min_i32", pto.TFILLPAD, "int32", "Min", 32, 0x4000)
fillpad_case("TFILLPAD_EXPAND_max_f32", pto.TFILLPAD_EXPAND, "float32", "Max", 64, 0x4000)
fillpad_case("TFILLPAD_EXPAND_min_i32", pto.TFILLPAD_EXPAND, "int32", "Min", 64, 0x4000)
fillpad_case("TFILLPAD_INPLACE_min_f32", pto.TFILLPAD_INPLACE, "float32", "Min", 32, 0x0)
fillpad_case("TFILLPAD_INPLACE_zero_f16", pto.TFILLPAD_INPLACE, "half", "Zero", 32, 0x0)
fillpad_case("TFILLPAD_custom_f32", pto.TFILLPAD, "float32", -1.0, 32, 0x4000)
fillpad_case("TFILLPAD_custom_f16_expand", pto.TFILLPAD_EXPAND, "half", -1.5, 64, 0x4000)
fillpad_case("TFILLPAD_custom_i16_inplace", pto.TFILLPAD_INPLACE, "int16", -7.0, 32, 0x0)
# TFILLPAD<TFillPadMode::...>(dst, src) is the mode's instruction; a custom pad's bits are
# decoded in dst's element type (-1.5f; 0xBC00 is half -1.0; int32 -7; a uint16 of value 2, which
# is not PadValue::Max)
fillpad_case("TFILLPAD_mode_expand_f32", pto.TFILLPAD_EXPAND, "float32", "Max", 64, 0x4000)
fillpad_case("TFILLPAD_mode_inplace_f16", pto.TFILLPAD_INPLACE, "half", "Min", 32, 0x0)
fillpad_case("TFILLPAD_custom16_f16", pto.TFILLPAD, "half", -1.0, 32, 0x4000)
fillpad_case("TFILLPAD_custom_i32", pto.TFILLPAD, "int32", -7.0, 32, 0x4000)
fillpad_case("TFILLPAD_custom_two_u16", pto.TFILLPAD, "uint16", 2.0, 32, 0x4000)


def reshape_case(entry, dt, dr, dc, dts=None):
    dts = dts or dt

    def args(rng):
        return [zeros(dts, (dr, dc // 2)), rand(rng, dt, (16, 32)), DUMMY, DUMMY]

    @case(entry, ["TRESHAPE"], args)
    def body(out, a, b, c):
        src = V(dt, 16, 32, addr=0x0)
        load(src, a, 16, 32)
        sync(MTE2, V_)
        dst = V(dts, dr, dc, valid=(dr, dc // 2))  # no TASSIGN: the reshape aliases it
        pto.TRESHAPE(dst, src)
        sync(V_, MTE3)
        store(out, dst, dr, dc // 2)


reshape_case("TRESHAPE_f32", "float32", 32, 16)
reshape_case("TRESHAPE_f16", "half", 8, 64)
reshape_case("TRESHAPE_i32_u32", "int32", 64, 8, "uint32")


def subview_case(entry, dt, ri, ci):
    def args(rng):
        return [zeros(dt, (8, 16)), rand(rng, dt, (16, 32)), DUMMY, DUMMY]

    @case(entry, ["TSUBVIEW"], args)
    def body(out, a, b, c):
        src = V(dt, 16, 32, addr=0x0)
        load(src, a, 16, 32)
        sync(MTE2, V_)
        dst = V(dt, 16, 32, valid=(8, 16))
        pto.TSUBVIEW(dst, src, ri, ci)
        sync(V_, MTE3)
        store(out, dst, 8, 16)


subview_case("TSUBVIEW_f32", "float32", 4, 8)
subview_case("TSUBVIEW_f16", "half", 2, 16)


def trans_case(entry, dt):
    def args(rng):
        return [zeros(dt, (32, 16)), rand(rng, dt, (16, 32)), DUMMY, DUMMY]

    @case(entry, ["TTRANS"], args)
    def body(out, a, b, c):
        src = V(dt, 16, 32, addr=0x0)
        dst, tmp = V(dt, 32, 16, addr=0x4000), V(dt, 32, 16, addr=0x8000)
        load(src, a, 16, 32)
        sync(MTE2, V_)
        pto.TTRANS(dst, src, tmp)
        sync(V_, MTE3)
        store(out, dst, 32, 16)


trans_case("TTRANS_f32", "float32")
trans_case("TTRANS_f16", "half")
trans_case("TTRANS_i32", "int32")
trans_case("TTRANS_bf16", "bfloat16")


def tri_case(entry, dt, upper, diagonal, errors=None):
    def args(rng):
        return [zeros(dt, (16, 32)), DUMMY, DUMMY, DUMMY]

    @case(entry, ["TTRI"], args, errors)
    def body(out, a, b, c):
        dst = V(dt, 16, 32, addr=0x0)
        pto.TTRI(dst, diagonal, is_upper_or_lower=upper)
        sync(V_, MTE3)
        store(out, dst, 16, 32)


tri_case("TTRI_lower_f32", "float32", 0, 0)
tri_case("TTRI_upper_f32", "float32", 1, 2)
tri_case("TTRI_lower_i32", "int32", 0, -3)
tri_case("TTRI_upper_f16", "half", 1, -2)
tri_case("TTRI_lower_i16", "int16", 0, 5)
tri_case("TTRI_upper_bf16", "bfloat16", 1, 1, {"a2": "PTO101"})  # a2a3: no bfloat16


# -- sorts --------------------------------------------------------------------------------------
def sort32_case(entry, dt, with_tmp):
    dc = 64 * 8 // np.dtype(NP[dt]).itemsize

    def args(rng):
        scores = (rng.integers(-40, 40, (8, 64)) / 4).astype(NP[dt])  # ties on purpose
        index = np.stack([rng.permutation(64) for _ in range(8)]).astype(np.uint32)
        return [zeros(dt, (8, dc)), scores, index, DUMMY]

    @case(entry, ["TSORT32"], args)
    def body(out, a, b, c):
        src, idx = V(dt, 8, 64), V("uint32", 8, 64)
        dst, tmp = V(dt, 8, dc), V(dt, 8, 64)
        for t, addr in ((src, 0x0), (idx, 0x1000), (dst, 0x4000), (tmp, 0x8000)):
            pto.TASSIGN(t, addr)
        load(src, a, 8, 64)
        load(idx, b, 8, 64)
        sync(MTE2, V_)
        pto.TSORT32(dst, src, idx, tmp) if with_tmp else pto.TSORT32(dst, src, idx)
        sync(V_, MTE3)
        store(out, dst, 8, dc)


sort32_case("TSORT32_f32", "float32", False)
sort32_case("TSORT32_tmp_f32", "float32", True)
sort32_case("TSORT32_f16", "half", False)
sort32_case("TSORT32_tmp_f16", "half", True)

LIST_AT = (0, 64, 96, 112)  # float offsets of the lists in `a` (tests/cxx/layoutsort.cpp)
LIST_ADDR = (0x0, 0x400, 0x600, 0x700)


def records(rng, lengths):
    """Sorted (descending) 8-byte [score f32][index u32] lists, back to back, as float32."""
    parts = []
    for n in lengths:
        rec = np.zeros((n, 2), np.float32)
        rec[:, 0] = -np.sort(-(rng.integers(-20, 20, n) / 2))  # ties inside and across lists
        rec[:, 1] = rng.integers(0, 1000, n).astype(np.uint32).view(np.float32)
        parts.append(rec.reshape(-1))
    return np.concatenate(parts)


def mrgsort_case(entry, lengths, exhausted=False):
    total = 2 * sum(lengths)

    def args(rng):
        return [zeros("float32", (1, total)), records(rng, lengths), DUMMY, zeros("int32", (1, 8))]

    @case(entry, ["TMRGSORT"], args)
    def body(out, a, b, c):
        srcs = []
        for k, n in enumerate(lengths):
            s = V("float32", 1, 2 * n, addr=LIST_ADDR[k])
            load(s, a, 1, 2 * n, offset=LIST_AT[k])
            srcs.append(s)
        dst, _tmp = V("float32", 1, total, addr=0x800), V("float32", 1, total, addr=0xC00)
        sync(MTE2, V_)
        pto.TMRGSORT(dst, *srcs, exhausted=exhausted)  # tmp: the library's scratch
        sync(V_, MTE3)
        store(out, dst, 1, total)
        g = pto.GlobalTensor(c, (1, 1, 1, 1, 8))
        for k in range(4):  # every record of every list consumed: the counts of instr.hpp
            # (after an exhausted stop the counts depend on the data: instr.hpp leaves the
            # kernel's zero-initialised struct as it was)
            g.SetValue(k, lengths[k] if k < len(lengths) and not exhausted else 0)


mrgsort_case("TMRGSORT2_f32", (32, 16))
mrgsort_case("TMRGSORT3_f32", (32, 16, 8))
mrgsort_case("TMRGSORT4_f32", (32, 16, 8, 24))
mrgsort_case("TMRGSORT_exhausted_f32", (32, 16), exhausted=True)


def _blocklen_args(rng):
    return [zeros("float32", (1, 128)), records(rng, (64,)), DUMMY, DUMMY]


# a2 and 950pr: the form exists, blockLen 32 is not a multiple of 64 (PTO101; the a2a3 rule)
@case("TMRGSORT_blocklen_f32", ["TMRGSORT"], _blocklen_args, {"a2": "PTO101", "950pr": "PTO101"})
def _blocklen(out, a, b, c):
    src = V("float32", 1, 128, addr=0x0)
    load(src, a, 1, 128)
    dst = V("float32", 1, 128, addr=0x800)
    sync(MTE2, V_)
    pto.TMRGSORT(dst, src, block_len=32)
    sync(V_, MTE3)
    store(out, dst, 1, 128)


def hist_case(entry, dt, byte, a5_error="PTO101"):
    def args(rng):
        idx = rng.integers(0, 2, (4, 32)).astype(np.uint8)
        nbytes = np.dtype(NP[dt]).itemsize
        parts = rng.integers(0, 2, (nbytes - 1, 4, 64))  # high bytes: often the filter's
        low = rng.integers(0, 256, (4, 64))
        v = low.astype(np.uint64)
        for k in range(nbytes - 1):
            v |= parts[k].astype(np.uint64) << np.uint64(8 * (k + 1))
        return [zeros("uint32", (4, 256)), v.astype(NP[dt]), idx, DUMMY]

    # THISTOGRAM: a2a3 has no lowering; a5 wants a DN idx column (uint16) or one RowMajor row
    # per filter byte with src's Cols (uint32), which this 4x32 idx is not (BYTE_3 reads none)
    errors = {"a2": "PTO102", **({"950pr": a5_error} if a5_error else {})}

    @case(entry, ["THISTOGRAM"], args, errors)
    def body(out, a, b, c):
        src, idx = V(dt, 4, 64, addr=0x0), V("uint8", 4, 32, addr=0x1000)
        dst = V("uint32", 4, 256, addr=0x2000)
        load(src, a, 4, 64)
        load(idx, b, 4, 32)
        sync(MTE2, V_)
        pto.THISTOGRAM(dst, src, idx, byte=byte)
        sync(V_, MTE3)
        store(out, dst, 4, 256)


hist_case("THISTOGRAM_u16_b0", "uint16", "BYTE_0")
hist_case("THISTOGRAM_u16_b1", "uint16", "BYTE_1")
hist_case("THISTOGRAM_u32_b0", "uint32", "BYTE_0")
hist_case("THISTOGRAM_u32_b2", "uint32", "BYTE_2")
hist_case("THISTOGRAM_u32_b3", "uint32", "BYTE_3", a5_error=None)


# -- gather -------------------------------------------------------------------------------------
def gather_index_case(entry, dt):
    def args(rng):
        idx = rng.integers(0, 512, (16, 32)).astype(np.int32)
        return [zeros(dt, (16, 32)), rand(rng, dt, (16, 32)), idx, DUMMY]

    @case(entry, ["TGATHER"], args)
    def body(out, a, b, c):
        src, idx = V(dt, 16, 32), V("int32", 16, 32)
        tmp, dst = V("int32", 16, 32), V(dt, 16, 32)
        for t, addr in ((src, 0x0), (idx, 0x2000), (tmp, 0x4000), (dst, 0x6000)):
            pto.TASSIGN(t, addr)
        load(src, a, 16, 32)
        load(idx, b, 16, 32)
        sync(MTE2, V_)
        pto.TGATHER(dst, src, idx, tmp)
        sync(V_, MTE3)
        store(out, dst, 16, 32)


gather_index_case("TGATHER_idx_f32", "float32")
gather_index_case("TGATHER_idx_f16", "half")
gather_index_case("TGATHER_idx_i32", "int32")
gather_index_case("TGATHER_idx_bf16", "bfloat16")


def gather_mask_case(entry, dt, dr, dc, mask, axis):
    def args(rng):
        return [zeros(dt, (dr, dc)), rand(rng, dt, (16, 32)), DUMMY, DUMMY]

    @case(entry, ["TGATHER"], args)
    def body(out, a, b, c):
        src, dst = V(dt, 16, 32, addr=0x0), V(dt, dr, dc, addr=0x4000)
        load(src, a, 16, 32)
        sync(MTE2, V_)
        pto.TGATHER(dst, src, mask=mask, axis=axis)
        sync(V_, MTE3)
        store(out, dst, dr, dc)


gather_mask_case("TGATHER_P0101_row_f32", "float32", 16, 16, "P0101", "GATHER_ROW")
gather_mask_case("TGATHER_P1010_f16", "half", 16, 16, "P1010", None)
gather_mask_case("TGATHER_P0001_row_i32", "int32", 16, 8, "P0001", "GATHER_ROW")
gather_mask_case("TGATHER_P0100_row_f32", "float32", 16, 8, "P0100", "GATHER_ROW")
gather_mask_case("TGATHER_P1111_row_f32", "float32", 16, 32, "P1111", "GATHER_ROW")
gather_mask_case("TGATHER_P0010_col_f32", "float32", 4, 32, "P0010", "GATHER_COL")
gather_mask_case("TGATHER_P1000_col_f16", "half", 4, 32, "P1000", "GATHER_COL")
gather_mask_case("TGATHER_typed_P1010_f32", "float32", 16, 16, "P1010", None)


def gatherb_case(entry, dt):
    cols = 128 // np.dtype(NP[dt]).itemsize

    def args(rng):
        off = (rng.integers(0, 32, (8, 8)) * 32).astype(np.uint32)
        return [zeros(dt, (8, cols)), rand(rng, dt, (8, cols)), off, DUMMY]

    @case(entry, ["TGATHERB"], args)
    def body(out, a, b, c):
        src, off = V(dt, 8, cols, addr=0x0), V("uint32", 8, 8, addr=0x1000)
        dst = V(dt, 8, cols, addr=0x2000)
        load(src, a, 8, cols)
        load(off, b, 8, 8)
        sync(MTE2, V_)
        pto.TGATHERB(dst, src, off)
        sync(V_, MTE3)
        store(out, dst, 8, cols)


gatherb_case("TGATHERB_f32", "float32")
gatherb_case("TGATHERB_f16", "half")
gatherb_case("TGATHERB_u8", "uint8")


# -- data movement and the seeds' template forms ------------------------------------------------
def one_tile_case(entry, dt, op, fn):
    def args(rng):
        return [zeros(dt, (16, 32)), rand(rng, dt, (16, 32)), DUMMY, DUMMY]

    @case(entry, [op], args)
    def body(out, a, b, c):
        src, dst = V(dt, 16, 32, addr=0x0), V(dt, 16, 32, addr=0x4000)
        load(src, a, 16, 32)
        sync(MTE2, V_)
        fn(dst, src)
        sync(V_, MTE3)
        store(out, dst, 16, 32)


one_tile_case("TMOV_f32", "float32", "TMOV", pto.TMOV)
one_tile_case("TMOV_f16", "half", "TMOV", pto.TMOV)
one_tile_case("TMOV_i32", "int32", "TMOV", pto.TMOV)
one_tile_case("TMOV_bf16", "bfloat16", "TMOV", pto.TMOV)
one_tile_case("TEXPANDS_f32", "float32", "TEXPANDS", lambda d, s: pto.TEXPANDS(d, 1.5))
one_tile_case("TEXPANDS_f16", "half", "TEXPANDS", lambda d, s: pto.TEXPANDS(d, -2.5))
one_tile_case("TEXPANDS_i32", "int32", "TEXPANDS", lambda d, s: pto.TEXPANDS(d, -7))
one_tile_case("TEXPANDS_bf16", "bfloat16", "TEXPANDS", lambda d, s: pto.TEXPANDS(d, 1.25))


def _tassign_args(rng):
    return [zeros("float32", (8, 32)), rand(rng, "float32", (16, 32)),
            zeros("float32", (8, 32)), zeros("float32", (8, 32))]  # fmt: skip


@case("TASSIGN_forms_f32", ["TASSIGN", "TLOAD", "TSTORE"], _tassign_args)
def _tassign(out, a, b, c):
    whole = V("float32", 16, 32, addr=0x0)
    load(whole, a, 16, 32)
    w8, w4 = V("float32", 8, 32, addr=0x400), V("float32", 8, 32, addr=0x200)
    w2 = V("float32", 8, 32, addr=0x100)
    sync(MTE2, MTE3)
    store(out, w8, 8, 32)
    store(b, w4, 8, 32)
    store(c, w2, 8, 32)


def _index(rng, row, oob):
    """Row: 16 table rows of 64; Elem: 16x32 flat indices of 2048 (oob: some out of range)."""
    n, shape = (64, (1, 16)) if row else (2048, (16, 32))
    idx = rng.integers(0, n, shape).astype(np.int32)
    if oob:
        idx.flat[::5] = n + rng.integers(0, 3 * n, idx.flat[::5].shape)
        idx.flat[1::7] = -1
    return idx


def mgather_case(entry, row, bad=False, errors=None, **kw):
    def args(rng):
        return [zeros("float32", (16, 32)), rand(rng, "float32", (64, 32)), _index(rng, row, bad),
                DUMMY]  # fmt: skip

    @case(entry, ["MGATHER"], args, errors)
    def body(out, a, b, c):
        tab = pto.GlobalTensor(a, (1, 1, 1, 64, 32))
        dst = V("float32", 16, 32, addr=0x0)
        idx = V("int32", *((1, 16) if row else (16, 32)), addr=0x4000)
        load(idx, b, *((1, 16) if row else (16, 32)))
        sync(MTE2, V_)
        pto.MGATHER(dst, tab, idx, **kw)
        sync(V_, MTE3)
        store(out, dst, 16, 32)


mgather_case("MGATHER_plain_row", True, coalesce="Row")
mgather_case("MGATHER_plain_elem", False, coalesce="Elem")
mgather_case("MGATHER_row", True, coalesce="Row")
mgather_case("MGATHER_elem", False, coalesce="Elem")
mgather_case("MGATHER_row_clamp", True, True, coalesce="Row", oob="Clamp")
mgather_case("MGATHER_elem_wrap", False, True, coalesce="Elem", oob="Wrap")
mgather_case("MGATHER_elem_zero", False, True, coalesce="Elem", oob="Zero")
mgather_case("MGATHER_oob_zero_row", True, True, oob="Zero")
mgather_case("MGATHER_exec_scalar", False, True, coalesce="Elem", oob="Clamp", gather_exec="Scalar")
# GatherExec::Simt exists only for the a5 GM -> L1 Elem form: a Vec destination stops everywhere
mgather_case("MGATHER_exec_simt", False, False, dict.fromkeys(DEVICES, "PTO102"), coalesce="Elem",
             gather_exec="Simt")  # fmt: skip


def _l1_args(rng):
    idx = rng.integers(-5, 280, (16, 16)).astype(np.int32)
    return [np.full((1, 256), 7, np.float32), rand(rng, "float32", (1, 256)), idx, DUMMY]


def mgather_l1_case(entry, gather_exec, errors=None):
    @case(entry, ["MGATHER"], _l1_args, errors)
    def body(out, a, b, c):
        tab = pto.GlobalTensor(a, (1, 1, 1, 1, 256))
        idx = pto.GlobalTensor(b, (1, 1, 1, 16, 16))
        scratch = pto.GlobalTensor(out, (1, 1, 1, 1, 256))
        dst = pto.Tile("Mat", "float32", 16, 16, "ColMajor", valid=(16, 16), slayout="RowMajor")
        pto.TASSIGN(dst, 0x0)
        pto.MGATHER(dst, tab, idx, coalesce="Elem", oob="Zero", scratch=scratch,
                    gather_exec=gather_exec)  # fmt: skip


mgather_l1_case("MGATHER_L1_scalar", "Scalar")
# GatherExec::Simt: a5 only
mgather_l1_case("MGATHER_L1_simt", "Simt", {"cpu": "PTO102", "a2": "PTO102"})


def mscatter_case(entry, row, kind="unique", errors=None, **kw):
    def args(rng):
        if kind == "unique":
            n, shape = (64, (1, 16)) if row else (2048, (16, 32))
            idx = rng.permutation(n)[: int(np.prod(shape))].reshape(shape).astype(np.int32)
        elif kind == "dups":
            idx = rng.integers(0, 64 if row else 200, (1, 16) if row else (16, 32)).astype(np.int32)
        else:
            idx = _index(rng, row, True)
        return [rand(rng, "float32", (64, 32)), rand(rng, "float32", (16, 32)), idx, DUMMY]

    @case(entry, ["MSCATTER"], args, errors)
    def body(out, a, b, c):
        tab = pto.GlobalTensor(out, (1, 1, 1, 64, 32))
        src = V("float32", 16, 32, addr=0x0)
        idx = V("int32", *((1, 16) if row else (16, 32)), addr=0x4000)
        load(src, a, 16, 32)
        load(idx, b, *((1, 16) if row else (16, 32)))
        sync(MTE2, V_)
        pto.MSCATTER(tab, src, idx, **kw)


mscatter_case("MSCATTER_plain_row", True, coalesce="Row")
mscatter_case("MSCATTER_plain_elem", False, coalesce="Elem")
mscatter_case("MSCATTER_row", True, coalesce="Row")
mscatter_case("MSCATTER_elem_add_skip", False, "oob", coalesce="Elem", atomic="Add", oob="Skip")
# a2a3 has no atomic Max/Min and no ScatterConflict parameter
A2 = {"a2": "PTO102"}
mscatter_case("MSCATTER_elem_max_clamp", False, "oob", A2, coalesce="Elem", atomic="Max",
              oob="Clamp")  # fmt: skip
mscatter_case("MSCATTER_row_min_wrap", True, "oob", A2, coalesce="Row", atomic="Min", oob="Wrap")
mscatter_case("MSCATTER_elem_last", False, "dups", A2, coalesce="Elem", conflict="Last")
mscatter_case("MSCATTER_elem_default", False, "dups", A2, coalesce="Elem", oob="Skip",
              conflict="Default")  # fmt: skip


def tscatter_index_case(entry, dt, it):
    def args(rng):
        idx = rng.permutation(512).reshape(16, 32).astype(NP[it])
        return [zeros(dt, (16, 32)), rand(rng, dt, (16, 32)), idx, DUMMY]

    @case(entry, ["TSCATTER"], args)
    def body(out, a, b, c):
        src, idx, dst = V(dt, 16, 32), V(it, 16, 32), V(dt, 16, 32)
        for t, addr in ((src, 0x0), (idx, 0x2000), (dst, 0x4000)):
            pto.TASSIGN(t, addr)
        load(src, a, 16, 32)
        load(idx, b, 16, 32)
        sync(MTE2, V_)
        pto.TSCATTER(dst, src, idx)
        sync(V_, MTE3)
        store(out, dst, 16, 32)


tscatter_index_case("TSCATTER_idx_f32", "float32", "int32")
tscatter_index_case("TSCATTER_idx_i32", "int32", "int32")
tscatter_index_case("TSCATTER_idx_f16", "half", "int16")


def tscatter_mask_case(entry, dt, sr, sc, **kw):
    def args(rng):
        return [zeros(dt, (16, 32)), rand(rng, dt, (sr, sc)), DUMMY, DUMMY]

    @case(entry, ["TSCATTER"], args)
    def body(out, a, b, c):
        src, dst = V(dt, sr, sc, addr=0x0), V(dt, 16, 32, addr=0x4000)
        load(src, a, sr, sc)
        sync(MTE2, V_)
        pto.TSCATTER(dst, src, **kw)
        sync(V_, MTE3)
        store(out, dst, 16, 32)


tscatter_mask_case("TSCATTER_default_f32", "float32", 16, 32)
tscatter_mask_case("TSCATTER_P0101_f16", "half", 16, 16, mask="P0101")
tscatter_mask_case("TSCATTER_P0100_row_f32", "float32", 16, 8, mask="P0100", axis="SCATTER_ROW")
tscatter_mask_case("TSCATTER_P0010_col_i32", "int32", 4, 32, mask="P0010", axis="SCATTER_COL")


# -- the test -----------------------------------------------------------------------------------
ENTRIES = sorted(CASES) + ["TGATHER_cmp_f32", "TSUBVIEW_assigned_f32", "TRESHAPE_assigned_f32"]


@pytest.fixture(scope="module")
def prog(cxx_program):
    return cxx_program(SRC, ENTRIES)


def make_args(entry):
    def make(dev):
        arrays = CASES[entry].args(np.random.default_rng(11))
        return [dev.gm_array(np.ascontiguousarray(x)) for x in arrays]

    return make


def python_twin(entry):
    body = CASES[entry].body

    def k(out, a, b, c):
        body(out, a, b, c)

    k.__name__ = entry
    return pto.kernel(k)


def run(kernel, device, make):
    dev = pto.Device(device)
    return dev.run(kernel, *make(dev))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("entry", sorted(CASES))
def test_cxx_form_matches_python(prog, assert_twins, entry, device):
    c = CASES[entry]
    want = c.errors.get(device)
    if want is None:
        assert_twins(prog.entry(entry), python_twin(entry), device, make_args(entry), c.ops)
        return
    with pytest.raises(PtoSimError) as py:
        run(python_twin(entry), device, make_args(entry))
    with pytest.raises(PtoSimError) as cx:
        run(prog.entry(entry), device, make_args(entry))
    assert py.value.code == want, py.value
    assert cx.value.code == want, cx.value
    assert "layoutsort.cpp:" in str(cx.value), cx.value


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("entry", "dt", "pad"),
    [("TFILLPAD_custom_f32", "float32", -1.0), ("TFILLPAD_custom_f16_expand", "half", -1.5)],
)
def test_cxx_custom_pad_fills_with_its_value(prog, device, entry, dt, pad):
    """PadValueCustom(v): every element of dst outside src's 8 x 20 valid region is v."""
    dev = pto.Device(device)
    bufs = make_args(entry)(dev)
    a = bufs[1].numpy()
    dev.run(prog.entry(entry), *bufs)
    got = bufs[0].numpy()
    outside = np.ones(got.shape, bool)
    outside[:8, :20] = False
    assert (got[outside] == np.array(pad, NP[dt])).all()
    np.testing.assert_array_equal(got[:8, :20], a)


@pytest.mark.parametrize("device", DEVICES)
def test_cxx_tgather_compare_form_reaches_its_rules_at_its_line(prog, device):
    """TGATHER<Dst, Src, CmpMode>(dst, src0, kValue, cdst, tmp, offset) is the compare form:
    a2 and 950 check it (this call's float kValue is refused: k-dtype), cpu refuses the form;
    either way one error naming the rule and the C++ line."""
    dev = pto.Device(device)
    cls = pto.UnsupportedError if device == "cpu" else pto.ConstraintError
    with pytest.raises(cls) as err:
        dev.run(prog.entry("TGATHER_cmp_f32"), *(dev.gm_zeros((1, 8), "int32") for _ in range(4)))
    assert "layoutsort.cpp:" in str(err.value)
    assert err.value.rule == ("unsupported-mode" if device == "cpu" else "k-dtype")


@pytest.mark.parametrize(
    "entry, dt, pad",
    [
        ("TFILLPAD_custom_f32", np.float32, -1.0),
        ("TFILLPAD_custom16_f16", np.float16, -1.0),
        ("TFILLPAD_custom_i32", np.int32, -7),
        ("TFILLPAD_custom_two_u16", np.uint16, 2),
    ],
)
def test_cxx_custom_pad_is_the_bit_pattern_in_the_element_type(prog, entry, dt, pad):
    """PadValueCustom(-1.5f), PadValueCustom16(0xBC00), PadValueCustom(int32_t(-7)),
    PadCustom<2>: TFILLPAD copies src's 8x20 valid region and writes the decoded pad elsewhere
    (the expected tile built here with numpy)."""
    dev = pto.Device("cpu")
    a = np.random.default_rng(3).integers(0, 100, (8, 20)).astype(dt)
    out = dev.gm_zeros((16, 32), np.dtype(dt).name)
    dummy = dev.gm_array(DUMMY)
    dev.run(prog.entry(entry), out, dev.gm_array(a), dummy, dummy)
    want = np.full((16, 32), pad, dt)
    want[:8, :20] = a
    assert np.array_equal(out.numpy().view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("device", DEVICES)
def test_cxx_views_of_a_tassigned_dst_alias_src(prog, device):
    """TSUBVIEW / TRESHAPE into a dst that had its own TASSIGN (the library's tsubview and
    treshape tests): dst.data() is src's storage afterwards, so the TSTORE of dst stores src's
    window (numpy: the 8x16 block at (4, 8); the 16x32 tile read as 32x16, left half)."""
    dev = pto.Device(device)
    a = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    dummy = dev.gm_array(DUMMY)
    out = dev.gm_zeros((8, 16), "float32")
    dev.run(prog.entry("TSUBVIEW_assigned_f32"), out, dev.gm_array(a), dummy, dummy)
    np.testing.assert_array_equal(out.numpy(), a[4:12, 8:24])
    out = dev.gm_zeros((32, 8), "float32")
    dev.run(prog.entry("TRESHAPE_assigned_f32"), out, dev.gm_array(a), dummy, dummy)
    np.testing.assert_array_equal(out.numpy(), a.reshape(32, 16)[:, :8])
