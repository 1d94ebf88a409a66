"""Deadlocks across one AI core (the cube core and its two vector cores) on the a2a3 mode-2
cross-core flags: a cube core's ``wait_flag_dev`` returns only when *both* vector cores have
posted (reference/cube_isa.md 1.4). A vector core with no work that never posts, or a protocol
where only the vector core that had data posts, leaves the cube core blocked forever. The run
must stop with a DeadlockError naming the blocked core and the vector core whose post is
missing, on the timed targets and (from the kernel's structure) on cpu; the fixed kernel runs.
Without the deadlock check these runs would end silently with the cube core still waiting."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

N = 64
DONE = 5  # vector -> cube: "my rows are stored"
READY = 3  # cube -> vector: "C is in GM"


def _kernel(posters: tuple[int, ...], working: tuple[int, ...], waiters=None):
    """The cube core stores a row to GM and posts READY; each vector core in ``waiters``
    (default: ``working``) waits for it; each in ``working`` copies the row into its own output
    row; each in ``posters`` posts DONE; the cube core waits for DONE before its last store."""
    waiters = working if waiters is None else waiters

    @pto.kernel(cores="mix")
    def k(src, out):
        if pto.is_cube():
            m = pto.Tile("Mat", "float32", 1, N)
            pto.TLOAD(m, pto.GlobalTensor(src, (1, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.TSTORE(pto.GlobalTensor(out, (1, N)), m)
            pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(2, READY))
            pto.wait_flag_dev(DONE)  # needs a DONE post from AIV0 *and* AIV1
            pto.TSTORE(pto.GlobalTensor(out, (1, N), offset=3 * N), m)
            return
        sub = pto.get_subblockid()
        if sub in waiters:
            pto.wait_flag_dev(READY)
        if sub in working:
            t = pto.Tile("Vec", "float32", 1, N)
            pto.TLOAD(t, pto.GlobalTensor(out, (1, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.TSTORE(pto.GlobalTensor(out, (1, N), offset=(1 + sub) * N), t)
        if sub in posters:
            pto.ffts_cross_core_sync(pto.PIPE_MTE3, pto.ffts_config(2, DONE))

    return k


def _run(device, kern):
    dev = pto.Device(device)
    host = np.arange(N, dtype=np.float32) + 1
    src, out = dev.gm_array(host), dev.gm_zeros((4, N), "float32")
    return dev.run(kern, src, out), out, host


@pytest.mark.parametrize("device", ["cpu", "a2", "a3"])
def test_an_idle_vector_core_that_never_posts_blocks_the_cube_wait(device):
    # AIV1 has no rows to copy and does nothing at all; only AIV0 posts DONE
    with pytest.raises(pto.DeadlockError) as err:
        _run(device, _kernel(posters=(0,), working=(0,)))
    text = str(err.value)
    assert "block 0 AIV1 of the group block 0 AIV0, block 0 AIV1 never post" in text, text
    if device != "cpu":
        assert "lacks ffts_cross_core_sync(flag 5) from block 0 AIV1" in text, text
        assert "block 0 AIC PIPE_S blocked in wait_flag_dev(flag 5)" in text, text


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_cube_wait_with_only_the_working_vector_core_posting_deadlocks(device):
    # both vector cores copy (so both consume READY), but only AIV0 tells the cube it is done
    with pytest.raises(pto.DeadlockError) as err:
        _run(device, _kernel(posters=(0,), working=(0, 1)))
    text = str(err.value)
    assert "block 0 AIV1 of the group block 0 AIV0, block 0 AIV1 never post" in text, text


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_cube_wait_with_no_vector_core_posting_names_both(device):
    with pytest.raises(pto.DeadlockError) as err:
        _run(device, _kernel(posters=(), working=(0, 1)))
    text = str(err.value)
    assert "ffts_cross_core_sync(flag 5)" in text, text
    assert "block 0 AIV0, block 0 AIV1 never post" in text, text  # the F209 cause
    if device != "cpu":
        assert "(in mode 2: block 0 AIV0, block 0 AIV1)" in text, text


@pytest.mark.parametrize("device", ["cpu", "a2", "a3"])
def test_the_idle_vector_core_taking_part_removes_the_deadlock(device):
    # the fix: the idle vector core consumes the cube's READY (it reached both) and posts DONE
    run, out, host = _run(device, _kernel(posters=(0, 1), working=(0,), waiters=(0, 1)))
    assert run.findings == [], [str(f) for f in run.findings]
    got = out.numpy()
    assert np.array_equal(got[[0, 1, 3]], np.tile(host, (3, 1)))
    assert not got[2].any()  # AIV1 copied nothing
