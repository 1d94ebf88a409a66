"""Acc -> Vec (the 950 fixpipe writing a vector core's UB) is not modelled: TMOV / TEXTRACT of an
Acc tile into a Vec tile stops at its line naming the form, not with a tile-kind rule."""

from __future__ import annotations

import pytest

import ptosim as pto


@pytest.mark.parametrize("opcode", ["TMOV", "TEXTRACT"])
def test_acc_to_vec_stops_naming_the_form(opcode):
    @pto.kernel(cores="cube")
    def kern(c):
        acc = pto.TileAcc("float32", 16, 16)
        vec = pto.Tile("Vec", "float32", 16, 16)
        getattr(pto, opcode)(vec, acc)

    dev = pto.Device("950pr")
    with pytest.raises(pto.PtoSimError) as e:
        dev.run(kern, dev.gm_zeros((16, 16), "float32"))
    assert "Acc -> Vec" in str(e.value) and "test_acc_to_vec.py" in str(e.value), str(e.value)
