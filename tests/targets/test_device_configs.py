"""The device configs the test suite leans on: a3 is a2 under another name, and 950dt is 950pr
with other timing. The instruction tests run one device per target family and the timed tests
leave a3 out (tests/helpers/devices.py); these tests fail the day that stops being true."""

import numpy as np

import ptosim as pto
from tests.helpers.configs import flat
from tests.helpers.devices import ALL_DEVICES, ONE_PER_TARGET, TARGET_OF

NAMING = {"name", "description"}  # what a device may change without changing anything it does


def _naming(key: str) -> bool:
    """A key that names or labels (where a figure comes from) without changing any result or
    cycle: a3 reuses a2's fitted figures, labelled estimates there."""
    return key in NAMING or key.rpartition(".")[2].endswith("source")


def _differences(a: str, b: str) -> set[str]:
    x = flat(pto.Device(a).config.model_dump())
    y = flat(pto.Device(b).config.model_dump())
    return {k for k in x.keys() | y.keys() if x.get(k) != y.get(k)}


def test_a3_is_a2_under_another_name():
    assert all(_naming(k) for k in _differences("a2", "a3")), _differences("a2", "a3")


def test_950dt_differs_from_950pr_in_timing_only():
    diff = {k for k in _differences("950pr", "950dt") if not _naming(k)}
    assert diff, "950dt should differ from 950pr somewhere (its bandwidth)"
    assert all(k.startswith("timing.") for k in diff), sorted(diff)


def test_the_devices_of_a_family_give_the_same_bits():
    """A small timed kernel (load, scale, store over two blocks) is bit-identical on every
    device of a family, and a3 takes exactly a2's cycles."""
    x = np.arange(2 * 16 * 16, dtype=np.float32).reshape(2, 16, 16) / 7

    @pto.kernel
    def scale(src, dst):
        b = pto.get_block_idx()
        t = pto.Tile("Vec", "float32", 16, 16)
        pto.TLOAD(t, pto.GlobalTensor(src, shape=(1, 1, 1, 16, 16), offset=256 * b))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.TMULS(t, t, 3.0)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(dst, shape=(1, 1, 1, 16, 16), offset=256 * b), t)

    outs, cycles = {}, {}
    for name in ALL_DEVICES:
        dev = pto.Device(name)
        dst = dev.gm_zeros(x.shape, "float32")
        run = dev.run(scale, dev.gm_array(x), dst, block_dim=2)
        assert run.findings == []
        outs[name], cycles[name] = dst.numpy().tobytes(), run.cycles
    for name in ALL_DEVICES:
        rep = next(d for d in ONE_PER_TARGET if TARGET_OF[d] == TARGET_OF[name])
        assert outs[name] == outs[rep], name
    assert np.array_equal(np.frombuffer(outs["a2"], np.float32), (x * np.float32(3)).ravel())
    assert cycles["a3"] == cycles["a2"]
    assert cycles["950dt"] != cycles["950pr"]  # the bandwidth shows in the timing
