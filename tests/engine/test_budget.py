"""The 950 SIMT UB budget (DESIGN.md section 4): 128 KiB by default, at most 216 KiB declared."""

import numpy as np
import pytest

import ptosim as pto

KIB = 1024


def _gather_kernel(dst_addr: int, rows: int = 8):
    dst = pto.Tile("Vec", "float32", rows, 64, name="dst")
    idx = pto.Tile("Vec", "int32", 1, 8, name="idx")

    def body(table):
        pto.TASSIGN(dst, dst_addr)
        pto.TASSIGN(idx, 0)
        pto.TEXPANDS(idx, 0)
        pto.MGATHER(dst, pto.GlobalTensor(table, (1, 1, 1, 16, 64)), idx, coalesce="row")

    return body


def _table(dev):
    return dev.gm_array(np.arange(16 * 64, dtype=np.float32).reshape(16, 64))


def test_simt_kernel_inside_the_default_128k_budget_runs():
    dev = pto.Device("950pr")
    dev.run(pto.kernel(_gather_kernel(128 * KIB - 2 * KIB)), _table(dev))  # dst ends at 128 KiB


def test_simt_kernel_past_128k_without_declaration_is_an_error_naming_the_tile():
    dev = pto.Device("950pr")
    with pytest.raises(pto.UbBudgetError) as e:
        dev.run(pto.kernel(_gather_kernel(128 * KIB)), _table(dev))
    msg = str(e.value)
    assert e.value.code == "PTO201" and "dst [0x20000, 0x20800) 2048 B" in msg
    assert "131072" in msg and "dyn_ubuf_size" in msg


def test_declared_dynamic_ub_extends_the_budget_up_to_216k():
    dev = pto.Device("950dt")
    body = _gather_kernel(200 * KIB)
    dev.run(pto.kernel(body), _table(dev), dyn_ubuf_size=216 * KIB)
    dev.run(pto.kernel(dyn_ubuf_size=216 * KIB)(body), _table(dev))
    with pytest.raises(pto.UbBudgetError) as e:
        dev.run(pto.kernel(_gather_kernel(215 * KIB)), _table(dev), dyn_ubuf_size=216 * KIB)
    assert "dst" in str(e.value)


def test_declaring_more_than_216k_is_an_error():
    dev = pto.Device("950pr")
    with pytest.raises(pto.UbBudgetError) as e:
        dev.run(pto.kernel(_gather_kernel(0x1000)), _table(dev), dyn_ubuf_size=217 * KIB)
    assert e.value.rule == "simt-dyn-ubuf-max" and "221184" in str(e.value)


def test_non_simt_kernels_and_other_targets_use_the_whole_ub():
    dev = pto.Device("950pr")
    t = pto.Tile("Vec", "float32", 64, 64)

    @pto.kernel
    def vector_only():
        pto.TASSIGN(t, 200 * KIB)
        pto.TEXPANDS(t, 1.0)

    dev.run(vector_only)
    a2 = pto.Device("a2")
    a2.run(pto.kernel(_gather_kernel(160 * KIB)), _table(a2))
