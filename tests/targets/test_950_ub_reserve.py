"""The 950 UB: 256 KiB physical, of which the public platform config's ub_size gives 248 KiB
(configs/950pr.toml). A launch without SIMT work may place tiles anywhere in the 256 KiB, as the
library's a5 kernels do (PTO_UBUF_SIZE_BYTES is 256 KiB for A5); a tile or raw copy reaching the
top 8 KiB is finding F114; ptosim's allocator and SIMT launches stay below it.

Byte figures are computed by hand: 248 KiB = 253952 = 0x3e000, 256 KiB = 262144 = 0x40000."""

import inspect

import numpy as np
import pytest

import ptosim as pto

USABLE = 248 * 1024
PHYSICAL = 256 * 1024


def _line_of(marker: str) -> int:
    lines = inspect.getsource(inspect.getmodule(_line_of)).splitlines()
    return 1 + next(i for i, line in enumerate(lines) if line.endswith(f"# {marker}"))


def _codes(run, code):
    return [f for f in run.all_findings() if f.code == code]


@pytest.mark.parametrize("device", ["950pr", "950dt"])
def test_the_config_names_the_reserve_and_only_950_has_one(device):
    assert pto.load_config(device).memory.ub_reserve == (USABLE, PHYSICAL)
    assert pto.load_config("a2").memory.ub_reserve is None
    assert pto.load_config("a3").memory.ub_reserve is None


@pytest.mark.parametrize("device", ["950pr", "950dt"])
def test_a_tile_in_the_reserved_top_8_kib_runs_with_one_finding(device):
    dev = pto.Device(device)
    top = pto.Tile("Vec", "float32", 16, 128, name="top")  # 8192 bytes: the whole reserve
    out = dev.gm_zeros((16, 128), "float32")

    @pto.kernel
    def k(out):
        for _ in range(2):  # one site: one finding
            pto.TASSIGN(top, USABLE)  # reserve-site
        pto.TEXPANDS(top, 3.5)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 16, 128)), top)

    run = dev.run(k, out)
    assert (out.numpy() == np.float32(3.5)).all()
    assert not _codes(run, "F111")
    f114 = _codes(run, "F114")
    assert len(f114) == 1 and f114[0].kind == "ub-reserve"
    msg = f114[0].message
    assert "tile top" in msg and "[0x3e000, 0x40000)" in msg and "253952 of 262144" in msg
    assert f"test_950_ub_reserve.py:{_line_of('reserve-site')}" in msg


@pytest.mark.parametrize("device, address", [("950pr", USABLE - 8192), ("a2", 0)])
def test_a_tile_below_the_reserve_has_no_finding_and_a2_never_reports_it(device, address):
    t = pto.Tile("Vec", "float32", 16, 128)

    @pto.kernel
    def k():
        pto.TASSIGN(t, address)
        pto.TEXPANDS(t, 1.0)

    assert not _codes(pto.Device(device).run(k), "F114")


def test_past_the_physical_ub_is_still_the_end_of_memory():
    far = pto.Tile("Vec", "float32", 16, 16, name="far")  # 1024 bytes

    @pto.kernel
    def k():
        pto.TASSIGN(far, PHYSICAL - 512)
        pto.TEXPANDS(far, 1.0)  # touches

    with pytest.raises(pto.MemoryLayoutError) as e:
        pto.Device("950pr").run(k)
    # 0x3fe00 + 1024 = 0x40200, past the 262144 physical bytes
    assert e.value.rule == "fits-in-memory" and "0x3fe00 + 1024 = 0x40200" in str(e.value)
    assert "262144" in str(e.value)


def test_the_allocator_keeps_below_the_reserve():
    a = pto.Tile("Vec", "float32", 248, 256, name="a")  # 253952 bytes: the usable UB
    b = pto.Tile("Vec", "float32", 8, 8, name="b")  # 256 more bytes fit only in the reserve

    @pto.kernel
    def k():
        pto.TEXPANDS(a, 1.0)
        pto.TEXPANDS(b, 1.0)

    with pytest.raises(pto.UbBudgetError) as e:
        pto.Device("950pr").run(k)
    assert "usable UB" in str(e.value) and "253952" in str(e.value)


def test_a_raw_copy_from_the_reserve_runs_with_a_finding():
    """copy_ubuf_to_cbuf of 4 blocks from UB 0x3ff80 (the last 128 bytes) to L1, then the cube
    core copies them back to AIV0's UB at 0 (intra-block flags as tests/engine)."""

    @pto.kernel(cores="mix")
    def bounce(src, out):
        if pto.is_cube():
            pto.wait_intra_block(pto.PIPE_MTE1, 0)  # AIV0's id 0
            pto.copy_cbuf_to_ubuf(0x0, 0x0, 0, 1, 4, 0, 0)
            pto.set_intra_block(pto.PIPE_MTE1, 0)  # to AIV0, id 0
        elif pto.get_subblockid() == 0:
            t = pto.Tile("Vec", "float32", 1, 32)
            pto.TASSIGN(t, PHYSICAL - 128)
            pto.TLOAD(t, pto.GlobalTensor(src, (1, 32)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
            pto.copy_ubuf_to_cbuf(0x0, PHYSICAL - 128, 0, 1, 4, 0, 0)  # raw-copy
            pto.set_intra_block(pto.PIPE_MTE3, 0)
            pto.wait_intra_block(pto.PIPE_MTE3, 0)
            got = pto.Tile("Vec", "float32", 1, 32)
            pto.TASSIGN(got, 0x0)
            pto.TSTORE(pto.GlobalTensor(out, (1, 32)), got)

    dev = pto.Device("950pr")
    src = np.arange(32, dtype=np.float32).reshape(1, 32)
    out = dev.gm_zeros((1, 32), "float32")
    run = dev.run(bounce, dev.gm_array(src), out)
    assert np.array_equal(out.numpy(), src)
    msgs = [f.message for f in _codes(run, "F114")]
    line = f"test_950_ub_reserve.py:{_line_of('raw-copy')}"
    assert any("COPY_UBUF_TO_CBUF" in m and line in m and "[0x3ff80, 0x40000)" in m for m in msgs)


def test_a_simt_launch_keeps_its_budget_below_the_reserve():
    dev = pto.Device("950pr")
    table = dev.gm_array(np.arange(16 * 64, dtype=np.float32).reshape(16, 64))
    top = pto.Tile("Vec", "float32", 8, 64, name="top")  # 2048 bytes
    idx = pto.Tile("Vec", "int32", 1, 8, name="idx")

    @pto.kernel(dyn_ubuf_size=216 * 1024)  # the most a SIMT kernel may declare
    def k(table):
        pto.TASSIGN(top, USABLE)
        pto.TASSIGN(idx, 0)
        pto.TEXPANDS(idx, 0)
        pto.MGATHER(top, pto.GlobalTensor(table, (1, 1, 1, 16, 64)), idx, coalesce="row")

    with pytest.raises(pto.UbBudgetError) as e:
        dev.run(k, table)
    assert "SIMT UB budget" in str(e.value) and "top [0x3e000, 0x3e800)" in str(e.value)
