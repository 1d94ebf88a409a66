"""The CPU simulator's tiles are all host memory: TMOV copies element (r, c) to (r, c) between
any layouts and tile kinds (Vec -> Left / Right, Acc -> Vec), TLOAD fills any tile, TINSERT
copies between any tiles converting as C++ does. The NPU targets keep their rules."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

# (BLayout, SLayout) of the layouts the library's cpu TMOV test pairs
LAYOUTS = {"ND": ("RowMajor", "NoneBox"), "DN": ("ColMajor", "NoneBox"),
           "NZ": ("ColMajor", "RowMajor")}  # fmt: skip


def _tile(loc, dt, rows, cols, layout, valid=None):
    bl, sl = LAYOUTS[layout]
    return pto.Tile(loc, dt, rows, cols, bl, valid=valid, slayout=sl)


@pytest.mark.parametrize("src_layout, dst_layout", [("ND", "DN"), ("DN", "NZ"), ("NZ", "ND")])
def test_cpu_tmov_between_layouts_copies_each_element(src_layout, dst_layout):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((13, 30)).astype(np.float32)

    @pto.kernel
    def k(src, out):
        a = _tile("Vec", "float32", 16, 32, src_layout, valid=(13, 30))
        b = _tile("Vec", "float32", 16, 32, dst_layout, valid=(13, 30))
        pto.TLOAD(a, pto.GlobalTensor(src, (13, 30)))
        pto.TMOV(b, a)
        pto.TSTORE(pto.GlobalTensor(out, (13, 30)), b)

    dev = pto.Device("cpu")
    out = dev.gm_zeros((13, 30), "float32")
    dev.run(k, dev.gm_array(x), out)
    assert np.array_equal(out.numpy(), x)


def test_950_tmov_between_layouts_stays_refused():
    @pto.kernel
    def k():
        pto.TMOV(_tile("Vec", "float32", 16, 32, "DN"), _tile("Vec", "float32", 16, 32, "ND"))

    with pytest.raises(pto.ConstraintError) as e:
        pto.Device("950pr").run(k)
    assert e.value.rule == "same-layout"


def _matmul_kernel():
    """The CPU flash-attention demo's pattern: Vec tiles moved into Left / Right, TMATMUL, the
    Acc moved back into a Vec tile, stored."""

    @pto.kernel
    def k(a, b, out):
        va = pto.Tile("Vec", "float32", 16, 16)
        vb = pto.Tile("Vec", "float32", 16, 16)
        vc = pto.Tile("Vec", "float32", 16, 16)
        left = pto.Tile("Left", "float32", 16, 16, "ColMajor", slayout="RowMajor")
        right = pto.Tile("Right", "float32", 16, 16, "RowMajor", slayout="ColMajor")
        acc = pto.Tile("Acc", "float32", 16, 16, "ColMajor", slayout="RowMajor")
        pto.TLOAD(va, pto.GlobalTensor(a, (16, 16)))
        pto.TLOAD(vb, pto.GlobalTensor(b, (16, 16)))
        pto.TMOV(left, va)
        pto.TMOV(right, vb)
        pto.TMATMUL(acc, left, right)
        pto.TMOV(vc, acc)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), vc)

    return k


def test_cpu_tmov_vec_to_l0_and_acc_to_vec():
    rng = np.random.default_rng(7)
    a = rng.integers(-8, 8, (16, 16)).astype(np.float32)  # small integers: every sum exact
    b = rng.integers(-8, 8, (16, 16)).astype(np.float32)
    dev = pto.Device("cpu")
    out = dev.gm_zeros((16, 16), "float32")
    dev.run(_matmul_kernel(), dev.gm_array(a), dev.gm_array(b), out)
    want = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32)
    assert np.array_equal(out.numpy(), want)


def test_a2_tmov_vec_to_left_stays_refused():
    dev = pto.Device("a2")
    z = dev.gm_zeros((16, 16), "float32")
    with pytest.raises(pto.PtoSimError) as e:
        dev.run(_matmul_kernel(), z, z, dev.gm_zeros((16, 16), "float32"))
    assert e.value.rule in ("tile-location", "core-buffer")


def test_cpu_tload_fills_an_acc_tile():
    x = np.arange(16 * 16, dtype=np.float32).reshape(16, 16) - 100

    @pto.kernel
    def k(src, out):
        acc = pto.Tile("Acc", "float32", 16, 16, "ColMajor", slayout="RowMajor")
        v = pto.Tile("Vec", "float32", 16, 16)
        pto.TLOAD(acc, pto.GlobalTensor(src, (16, 16)))
        pto.TMOV(v, acc, relu="NormalRelu")  # cpu/TMov.hpp: negative results become 0
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), v)

    dev = pto.Device("cpu")
    out = dev.gm_zeros((16, 16), "float32")
    dev.run(k, dev.gm_array(x), out)
    assert np.array_equal(out.numpy(), np.where(x < 0, 0, x))


@pytest.mark.parametrize("loc", ["Mat", "Vec"])
def test_cpu_tinsert_converts_into_any_tile(loc):
    # int32 -> float32 rounds to nearest, ties to even: 2**24 + 1 lies halfway between 2**24
    # and 2**24 + 2 (-> 2**24), 2**24 + 3 halfway between 2**24 + 2 and 2**24 + 4 (-> + 4)
    x = np.array([[2**24 + 1, 2**24 + 3, -(2**24 + 1), 7]] * 2, np.int32)
    want = np.zeros((8, 8), np.float32)
    want[5:7, 3:7] = np.array([2**24, 2**24 + 4, -(2**24), 7], np.float32)

    @pto.kernel
    def k(src, out):
        s = pto.Tile(loc, "int32", 8, 8, valid=(2, 4))
        d = pto.Tile(loc, "float32", 8, 8)
        pto.TLOAD(s, pto.GlobalTensor(src, (2, 4)))
        pto.TEXPANDS(d, 0.0) if loc == "Vec" else pto.TLOAD(d, pto.GlobalTensor(zero, (8, 8)))
        pto.TINSERT(d, s, 5, 3)
        pto.TSTORE(pto.GlobalTensor(out, (8, 8)), d)

    dev = pto.Device("cpu")
    zero = dev.gm_zeros((8, 8), "float32")
    out = dev.gm_zeros((8, 8), "float32")
    dev.run(k, dev.gm_array(x), out)
    assert np.array_equal(out.numpy(), want)


def test_cpu_tinsert_refuses_a_narrowing_conversion():
    @pto.kernel
    def k():
        pto.TINSERT(pto.Tile("Vec", "int8", 8, 32), pto.Tile("Vec", "float32", 8, 8))

    with pytest.raises(pto.ConstraintError) as e:
        pto.Device("cpu").run(k)
    assert e.value.rule == "insert-dtype"


def test_cpu_tmov_acc_to_left_feeds_a_second_matmul():
    # the library's cpu MLA demo: (A @ B) moved straight from Acc into Left, then @ C
    rng = np.random.default_rng(11)
    a, b, c = (rng.integers(-4, 4, (16, 16)).astype(np.float32) for _ in range(3))

    @pto.kernel
    def k(ga, gb, gc, out):
        va, vb, vc, vo = (pto.Tile("Vec", "float32", 16, 16) for _ in range(4))
        left = pto.Tile("Left", "float32", 16, 16, "ColMajor", slayout="RowMajor")
        left2 = pto.Tile("Left", "float32", 16, 16, "ColMajor", slayout="RowMajor")
        right = pto.Tile("Right", "float32", 16, 16, "RowMajor", slayout="ColMajor")
        right2 = pto.Tile("Right", "float32", 16, 16, "RowMajor", slayout="ColMajor")
        acc = pto.Tile("Acc", "float32", 16, 16, "ColMajor", slayout="RowMajor")
        acc2 = pto.Tile("Acc", "float32", 16, 16, "ColMajor", slayout="RowMajor")
        for v, g in ((va, ga), (vb, gb), (vc, gc)):
            pto.TLOAD(v, pto.GlobalTensor(g, (16, 16)))
        pto.TMOV(left, va)
        pto.TMOV(right, vb)
        pto.TMOV(right2, vc)
        pto.TMATMUL(acc, left, right)
        pto.TMOV(left2, acc)  # Acc -> Left: an element copy on cpu
        pto.TMATMUL(acc2, left2, right2)
        pto.TMOV(vo, acc2)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), vo)

    dev = pto.Device("cpu")
    out = dev.gm_zeros((16, 16), "float32")
    dev.run(k, *(dev.gm_array(x) for x in (a, b, c)), out)
    i64 = [x.astype(np.int64) for x in (a, b, c)]
    assert np.array_equal(out.numpy(), (i64[0] @ i64[1] @ i64[2]).astype(np.float32))
