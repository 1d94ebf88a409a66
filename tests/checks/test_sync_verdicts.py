"""Synchronisation verdicts that hold on every target: a reused event (F208), hangs (F209 and a
DeadlockError on cpu as on the NPU targets), no F207 after an instruction whose lowering ends
with the barrier, and the bad input around flags that must fail with one coded line."""

import numpy as np
import pytest

import ptosim as pto
from ptosim.findings import flatten

DEVICES = ("cpu", "a2", "950pr")
MTE2, V, MTE3 = pto.PIPE_MTE2, pto.PIPE_V, pto.PIPE_MTE3


def _two_loads(ids):
    @pto.kernel
    def k(x, out):
        a = pto.Tile("Vec", "float32", 8, 8)
        b = pto.Tile("Vec", "float32", 8, 8)
        c = pto.Tile("Vec", "float32", 8, 8)
        pto.TLOAD(a, pto.GlobalTensor(x, (8, 8)))
        pto.set_flag(MTE2, V, ids[0])
        pto.TLOAD(b, pto.GlobalTensor(x, (8, 8)))
        pto.set_flag(MTE2, V, ids[1])
        pto.wait_flag(MTE2, V, ids[0])
        pto.wait_flag(MTE2, V, ids[1])
        pto.TADD(c, a, b)
        pto.set_flag(V, MTE3, 0)
        pto.wait_flag(V, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (8, 8)), c)

    return k


@pytest.mark.parametrize("devname", DEVICES)
def test_a_reused_event_is_f208_naming_both_sets_and_the_wait(devname):
    dev = pto.Device(devname)
    host = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = dev.gm_zeros((8, 8), "float32")
    run = dev.run(_two_loads((0, 0)), dev.gm_array(host), out)
    # the engine keeps counting: the second wait still consumes the second post, exact result
    assert np.array_equal(out.numpy(), host + host)
    (f,) = [g for g in flatten(run.findings) if g.code == "F208"]
    assert f is run.findings[0]
    # both sets (#1, #3) and the wait meant for the second one (#4)
    assert "SET_FLAG #3" in f.message and "SET_FLAG #1" in f.message
    assert "Event ID still occupied" in f.message  # the reference library's rule, cited
    clean = dev.run(_two_loads((0, 1)), dev.gm_array(host), dev.gm_zeros((8, 8), "float32"))
    assert clean.findings == []


@pytest.mark.parametrize("devname", DEVICES)
def test_a_wait_nothing_posts_hangs_on_every_target_with_its_cause(devname):
    @pto.kernel
    def k(x):
        a = pto.Tile("Vec", "float32", 8, 8)
        pto.TLOAD(a, pto.GlobalTensor(x, (8, 8)))
        pto.wait_flag(MTE2, V, 0)
        pto.TADDS(a, a, 1.0)

    dev = pto.Device(devname)
    with pytest.raises(pto.DeadlockError) as err:
        dev.run(k, dev.gm_zeros((8, 8), "float32"))
    cause = err.value.findings[0]
    assert cause.code == "F209" and "WAIT_FLAG #1" in cause.message
    (edit,) = cause.patch  # the set goes after the TLOAD, the work the wait waits for
    assert (edit.action, edit.op, edit.where) == ("insert", "set_flag", "after")


def _cross(kind):
    @pto.kernel
    def no_post():
        pto.wait_flag_dev(3)

    @pto.kernel
    def sync_all_on_one_block():
        if pto.get_block_idx() == 0:
            pto.SyncAll()

    @pto.kernel
    def wait_before_post():
        pto.wait_flag_dev(3)
        pto.ffts_cross_core_sync(MTE3, pto.ffts_config(0, 3))

    return {"no_post": no_post, "syncall": sync_all_on_one_block, "order": wait_before_post}[kind]


@pytest.mark.parametrize("devname", DEVICES)
@pytest.mark.parametrize("kind", ("no_post", "syncall", "order"))
def test_cross_core_hangs_are_deadlocks_on_cpu_too(devname, kind):
    with pytest.raises(pto.DeadlockError) as err:
        pto.Device(devname).run(_cross(kind), block_dim=2)
    assert err.value.code == "PTO400"
    assert any(f.code == "F209" for f in err.value.findings)


@pytest.mark.parametrize("devname", ("cpu", "a2"))
def test_no_f207_after_an_instruction_whose_lowering_ends_with_the_barrier(devname):
    @pto.kernel
    def k(x, out):
        a = pto.Tile("Vec", "float32", 8, 8)
        b = pto.Tile("Vec", "float32", 8, 8)
        c = pto.Tile("Vec", "float32", 8, 8)
        pto.TLOAD(a, pto.GlobalTensor(x, (8, 8)))
        pto.set_flag(MTE2, V, 0)
        pto.wait_flag(MTE2, V, 0)
        pto.TFMODS(b, a, 3.0)  # per-row chain, each step followed by pipe_barrier(PIPE_V)
        pto.TADD(c, b, a)
        pto.set_flag(V, MTE3, 0)
        pto.wait_flag(V, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (8, 8)), c)

    dev = pto.Device(devname)
    host = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = dev.gm_zeros((8, 8), "float32")
    run = dev.run(k, dev.gm_array(host), out)
    assert run.findings == []
    assert np.array_equal(out.numpy(), np.fmod(host, np.float32(3)) + host)


@pytest.mark.parametrize("devname", ("cpu", "a2"))
def test_no_f207_after_a_float_row_reduction(devname):
    # the a2a3 float row reductions end with pipe_barrier(PIPE_V) (count-mode reduce, barrier):
    # a2 is silent, and cpu's structural view takes the same fact (same verdict on both)
    @pto.kernel
    def k(x, out):
        a = pto.Tile("Vec", "float32", 8, 64)
        tmp = pto.Tile("Vec", "float32", 8, 64)
        m = pto.Tile("Vec", "float32", 8, 1, "ColMajor")
        c = pto.Tile("Vec", "float32", 8, 64)
        pto.TLOAD(a, pto.GlobalTensor(x, (8, 64)))
        pto.set_flag(MTE2, V, 0)
        pto.wait_flag(MTE2, V, 0)
        pto.TROWMAX(m, a, tmp)
        pto.TROWEXPANDSUB(c, a, m)  # reads TROWMAX's result with no barrier of its own
        pto.set_flag(V, MTE3, 0)
        pto.wait_flag(V, MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (8, 64)), c)

    dev = pto.Device(devname)
    host = np.random.default_rng(3).standard_normal((8, 64)).astype(np.float32)
    out = dev.gm_zeros((8, 64), "float32")
    run = dev.run(k, dev.gm_array(host), out)
    assert [f.code for f in run.findings] == []
    assert np.array_equal(out.numpy(), host - host.max(axis=1, keepdims=True))


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: pto.set_flag(MTE2, V, 2.5), ("set_flag", "event_id", "2.5")),
        (lambda: pto.wait_flag(MTE2, V, None), ("wait_flag", "event_id", "None")),
        (lambda: pto.ffts_config(None, 3), ("ffts_config", "mode", "None")),
        (lambda: pto.ffts_config(1, 1.5), ("ffts_config", "flag_id", "1.5")),
        (lambda: pto.ffts_config(0, 16), ("ffts_config", "flag_id", "16")),
        # non-finite floats (found by the public-API fuzz test: an OverflowError escaped)
        (lambda: pto.set_flag(MTE2, V, float("inf")), ("set_flag", "event_id", "inf")),
        (lambda: pto.set_flag(MTE2, V, float("nan")), ("set_flag", "event_id", "nan")),
        (lambda: pto.wait_flag(MTE2, V, float("-inf")), ("wait_flag", "event_id", "-inf")),
        (lambda: pto.ffts_config(1, float("inf")), ("ffts_config", "flag_id", "inf")),
        (lambda: pto.wait_flag_dev(float("inf")), ("wait_flag_dev", "flag_id", "inf")),
    ],
)
def test_bad_flag_operands_are_one_coded_line(call, words):
    @pto.kernel
    def k():
        call()

    with pytest.raises(pto.PtoSimError) as err:
        pto.Device("cpu").run(k)
    text = str(err.value)
    assert err.value.code == "PTO100" and "\n" not in text
    assert all(w in text for w in words)


def test_a_runaway_body_stops_at_max_steps_naming_its_line():
    @pto.kernel
    def k():
        t = pto.Tile("Vec", "float32", 8, 8)
        while True:
            pto.TEXPANDS(t, 1.0)

    line = k.func.__code__.co_firstlineno + 4  # @pto.kernel, def, tile, while, the call
    for devname in ("cpu", "a2"):
        with pytest.raises(pto.KernelError) as err:
            pto.Device(devname).run(k, max_steps=500)
        assert "max_steps=500" in str(err.value)
        assert f"test_sync_verdicts.py:{line}" in str(err.value)
