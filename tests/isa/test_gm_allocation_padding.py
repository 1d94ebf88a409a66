"""D23: the NPU runtime pads every aclrtMalloc (request rounded up to 32 bytes, plus 32 bytes).
A GM write into that padding lands, with ONE finding F113 per (instruction site, buffer); a write
past the padded allocation stays PTO202; the cpu target pads nothing.

The allocation sizes are worked by hand from the documented rule; the stored bytes are checked
against the host data the kernel loaded."""

import numpy as np
import pytest

import ptosim as pto
from ptosim.config import load_config


@pytest.mark.parametrize(
    "asked, allocated",
    [(1, 64), (31, 64), (32, 64), (33, 96), (150, 192), (201, 256), (624, 672), (640, 672)],
)
@pytest.mark.parametrize("device", ["a2", "a3", "950pr", "950dt"])
def test_an_npu_allocation_is_the_request_rounded_to_32_plus_32(device, asked, allocated):
    assert load_config(device).acl.allocation_bytes(asked) == allocated


def test_the_cpu_target_pads_nothing():
    assert load_config("cpu").acl is None


def _padded(dev, asked: int):
    """A GM buffer as the ACL shim's aclrtMalloc makes it on an NPU device (ptosim/cxx/host.py)."""
    buf = dev.gm_zeros(dev.config.acl.allocation_bytes(asked), "uint8")
    buf.requested_bytes = asked
    return buf


def _store_224(dev, src, out, repeats=1):
    tile = pto.Tile("Vec", "int8", 1, 224)

    @pto.kernel
    def k(src, out):
        pto.TLOAD(tile, pto.GlobalTensor(src, (1, 1, 1, 1, 224), dtype="int8"))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        for _ in range(repeats):  # the same site and buffer: reported once
            pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 1, 224), dtype="int8"), tile)

    return dev.run(k, src, out)


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_a_write_into_the_padding_lands_with_one_finding(device):
    dev = pto.Device(device)
    host = ((np.arange(224) * 3 + 1) % 256).astype(np.uint8).view(np.int8)
    src = dev.gm_array(host)
    out = _padded(dev, 201)
    run = _store_224(dev, src, out, repeats=3)
    # the three stores to one buffer are also a WAW between DMAs (F206); F113 comes once
    padding = [f for f in run.findings if f.code == "F113"]
    assert len(padding) == 1, [str(f) for f in run.findings]
    text = str(padding[0])
    assert "23 byte(s) past the 201 bytes asked of aclrtMalloc" in text
    assert "allocation is 256 bytes" in text
    got = out.numpy()
    assert np.array_equal(got[:224].view(np.int8), host) and (got[224:] == 0).all()


@pytest.mark.parametrize("device", ["a2", "950pr"])
def test_a_write_past_the_padding_stops_and_writes_nothing(device):
    dev = pto.Device(device)
    src = dev.gm_array(np.ones(224, np.int8))
    out = _padded(dev, 150)  # 192 bytes allocated
    with pytest.raises(pto.OutOfBoundsError) as exc:
        _store_224(dev, src, out)
    assert "150 bytes asked of aclrtMalloc, 42 bytes of the runtime's padding" in str(exc.value)
    assert (out.numpy() == 0).all()


def test_a_write_inside_the_request_gives_no_finding():
    dev = pto.Device("a2")
    src = dev.gm_array(np.ones(224, np.int8))
    run = _store_224(dev, src, _padded(dev, 224))
    assert run.findings == []
