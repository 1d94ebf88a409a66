"""The 950's cube <-> vector FIFO is not modelled: a kernel stops at its TPipe's construction
(the 950 library passes no GM ring, so nothing after it could run) with the refusal."""

from __future__ import annotations

import pytest

import ptosim as pto


def test_a_950_tpipe_stops_at_its_own_line():
    dev = pto.Device("950dt")

    @pto.kernel(cores="mix")
    def kern(fifo):
        pto.TPipe(0, "DIR_C2V", 4096, 2, fifo)  # the line the error names

    with pytest.raises(pto.UnsupportedError) as e:
        dev.run(kern, dev.gm_zeros((1024,), "float32"))
    text = str(e.value)
    assert "TPipe" in text and "FIFO is not modelled" in text
    assert "test_fifo_950.py:16" in text, text
