"""A TASSIGN past the end of UB only sets an address (D22): finding F111 once per TASSIGN site,
and the first instruction that reads or writes the tile stops with rule ``fits-in-memory`` at
that instruction's line.

The a2/a3 UB is 192 KiB = 196608 bytes (docs/targets.md); the byte counts below are computed by
hand from that and the tile sizes."""

import inspect

import numpy as np
import pytest

import ptosim as pto

UB_A2_BYTES = 192 * 1024


def _line_of(marker: str) -> int:
    """The line of this module that ends with the comment ``# <marker>``."""
    lines = inspect.getsource(inspect.getmodule(_line_of)).splitlines()
    return 1 + next(i for i, line in enumerate(lines) if line.endswith(f"# {marker}"))


def test_a_tile_past_the_end_of_ub_that_nothing_touches_runs_with_one_finding():
    dev = pto.Device("a2")
    far = pto.Tile("Vec", "int32", 64, 64, name="far")  # 16384 bytes
    used = pto.Tile("Vec", "float32", 8, 8, name="used")
    out = dev.gm_zeros((8, 8), "float32")

    @pto.kernel
    def k(out):
        pto.TASSIGN(used, 0)
        for _ in range(3):  # one site: one finding
            pto.TASSIGN(far, UB_A2_BYTES - 4096)  # site-loop
        pto.TEXPANDS(used, 2.5)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 8, 8)), used)

    run = dev.run(k, out)
    assert (out.numpy() == np.float32(2.5)).all()
    f111 = [f for f in run.all_findings() if f.code == "F111"]
    assert len(f111) == 1 and f111[0].kind == "tile-outside-memory"
    # ends at 196608 - 4096 + 16384 = 208896 = 0x33000, 12288 bytes past the end of UB
    assert "far" in f111[0].message and "0x33000" in f111[0].message
    assert "12288 byte(s)" in f111[0].message
    assert f"test_tassign_outside_memory.py:{_line_of('site-loop')}" in f111[0].message


def test_the_first_access_of_a_tile_past_the_end_of_ub_is_the_error_at_its_line():
    dev = pto.Device("a2")
    far = pto.Tile("Vec", "float32", 16, 16, name="far")  # 1024 bytes
    src = dev.gm_zeros((16, 16), "float32")

    @pto.kernel
    def k(src):
        pto.TASSIGN(far, UB_A2_BYTES - 512)  # placed
        pto.TLOAD(far, pto.GlobalTensor(src, (1, 1, 1, 16, 16)))  # accessed

    with pytest.raises(pto.MemoryLayoutError) as e:
        dev.run(k, src)
    err = e.value
    assert err.code == "PTO200" and err.rule == "fits-in-memory"
    assert err.instruction == "TLOAD" and err.operand == "tile"
    assert err.source.endswith(f"test_tassign_outside_memory.py:{_line_of('accessed')}")
    # 0x2fe00 + 1024 = 0x30200: the given side of the rule, and the TASSIGN that placed it
    assert "0x2fe00 + 1024 = 0x30200" in str(err) and "196608" in str(err)
    assert f"TASSIGN at test_tassign_outside_memory.py:{_line_of('placed')}" in str(err)


def test_the_same_placement_fits_the_950_ub_without_a_finding():
    far = pto.Tile("Vec", "float32", 16, 16)

    @pto.kernel
    def k():
        pto.TASSIGN(far, UB_A2_BYTES - 512)
        pto.TEXPANDS(far, 1.0)

    run = pto.Device("950pr").run(k)  # 248 KiB usable UB
    assert not [f for f in run.all_findings() if f.code == "F111"]
