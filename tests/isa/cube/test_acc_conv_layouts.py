"""TSTORE from an Acc tile into the 950's convolution layouts (reference/cube_isa.md 3.5; a5
TStoreAccNHWC / TStoreAccNCHW): NHWC writes positions as rows of channels, NCHW / NCDHW each
channel's positions contiguously; expected values are numpy reshapes of A @ B."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from ptosim.errors import ConstraintError, UnsupportedError
from tests.helpers.cube import multiply_into_acc

M, K, N = 32, 16, 32


def _kernel(shape, stride, layout, m=M, n=N, valid=None):
    vr, vc = valid or (m, n)

    @pto.kernel(cores="cube")
    def store(a, b, out):
        acc = multiply_into_acc(a, b, m, K, n)
        acc.set_valid(vr, vc)
        pto.TSTORE(pto.GlobalTensor(out, shape, stride=stride, layout=layout), acc)

    return store


def _run(kern, out_elems, m=M, n=N):
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (m, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, n)).astype(np.float16)
    dev = pto.Device("950pr")
    out = dev.gm_zeros((out_elems,), "float32")
    run = dev.run(kern, dev.gm_array(a), dev.gm_array(b), out)
    assert run.findings == []
    return out.numpy(), (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32)


def test_nhwc_rows_are_positions_of_channels():
    got, c = _run(_kernel((1, 2, 4, 4, 32), (1024, 512, 128, 32, 1), "NHWC"), M * N)
    assert np.array_equal(got.reshape(2, 4, 4, 32), c.reshape(2, 4, 4, 32))


def test_nhwc_shape0_repeats_from_the_next_channel_block_of_the_acc():
    # valid 16 x 16: batch b reads Acc columns 16b .. 16b+15 (the source advances Rows * 16)
    k = _kernel((2, 1, 4, 4, 16), (256, 256, 64, 16, 1), "NHWC", m=16, n=32, valid=(16, 16))
    got, c = _run(k, 512, m=16, n=32)
    want = np.stack([c[:, :16], c[:, 16:]]).reshape(-1)
    assert np.array_equal(got, want)


def test_nchw_writes_each_channel_contiguously():
    got, c = _run(_kernel((1, 1, 32, 4, 8), (1024, 1024, 32, 8, 1), "NCHW"), M * N)
    assert np.array_equal(got.reshape(32, 32), c.T)


def test_ncdhw_channels_are_stride1_apart():
    # a 2-deep D dim of which the store fills slice 0: channel j at j * 64
    got, c = _run(_kernel((1, 32, 1, 4, 8), (2048, 64, 32, 8, 1), "NCDHW"), 2048)
    got = got.reshape(32, 2, 32)
    assert np.array_equal(got[:, 0, :], c.T) and not got[:, 1, :].any()


def test_a_conv_store_whose_shape_does_not_match_the_valid_region_stops():
    with pytest.raises(ConstraintError) as exc:
        _run(_kernel((1, 1, 16, 4, 8), (1024, 1024, 32, 8, 1), "NCHW"), M * N)
    assert "conv-shape" in str(exc.value) and "test_acc_conv_layouts.py" in str(exc.value)


def test_a_vec_transfer_with_a_conv_layout_is_refused():
    @pto.kernel
    def load(x):
        t = pto.Tile("Vec", "float32", 8, 8)
        pto.TLOAD(t, pto.GlobalTensor(x, (1, 1, 8, 1, 8), layout="NHWC"))

    dev = pto.Device("950pr")
    with pytest.raises(UnsupportedError) as exc:
        dev.run(load, dev.gm_zeros((64,), "float32"))
    assert "'layout'" in str(exc.value) and "NHWC" in str(exc.value)
