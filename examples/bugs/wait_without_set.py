"""Bug: a wait_flag that no set_flag ever posts: the kernel hangs (DeadlockError, PTO400).

The kernel is the ReLU of ``missing_mte2_to_v.py``. Its author wrote the consumer half of the
MTE2 -> V handshake, ``wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)`` before the vector op, and
forgot the producer half after the TLOAD. On hardware PIPE_V then waits forever ("consuming an
event that has not been signaled causes the consumer pipeline to wait indefinitely"), and
everything queued behind it waits too. ptosim stops the run when no pipe can make progress and
raises ``pto.DeadlockError``, which names every stuck pipe, the instruction it is blocked in and
the flag it waits for, and first among its findings the cause: the wait that nothing posts and
where the set belongs (``ptosim check`` prints it and exits 1; the cpu target raises the same
error from the kernel's structure). On a2 (the cycle number depends on the device)::

    [PTO400] deadlock at cycle 302: core 0 PIPE_V blocked in wait_flag(PIPE_MTE2, PIPE_V,
    EVENT_ID0) of WAIT_FLAG #6 (wait_without_set.py:62): no set_flag(PIPE_MTE2, PIPE_V,
    EVENT_ID0) is pending and no queued or unissued work will post it; 4 more step(s) queued
    behind it; core 0 PIPE_MTE3 blocked in wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0) of
    WAIT_FLAG #9 (wait_without_set.py:65): no set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0) is
    pending and no queued or unissued work will post it; 1 more step(s) queued behind it;
    other findings (1): [F209 missing-set] WAIT_FLAG #6 (wait_without_set.py:62) waits for
    (PIPE_MTE2, PIPE_V, EVENT_ID0), which nothing posts; the work it waits for is TLOAD #5
    (wait_without_set.py:60); fix: insert set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) after
    wait_without_set.py:60

PIPE_V is stuck on the missing event; PIPE_MTE3 is stuck behind it, on the V -> MTE3 event
that PIPE_V would have posted after the vector op.

The fix (``fixed``) adds the set: ``set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)`` right after the
TLOAD. Every wait_flag needs a set_flag of the same (src, dst, id) triple that is issued before
the wait can be reached. The same hang happens in a ping-pong loop whose reverse ("buffer
free") events are waited at the top of the first iteration but were never primed before the
loop (see ``reused_event_id.py`` for a correctly primed loop).
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {"a2": "deadlock", "950pr": "deadlock"}
R, C = 16, 64


def _tiles(x, out):
    xt = pto.Tile("Vec", "float32", R, C, name="x")
    yt = pto.Tile("Vec", "float32", R, C, name="y")
    zero = pto.Tile("Vec", "float32", R, 1, blayout="ColMajor", name="zero")
    x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, R, C))
    y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, R, C))
    return xt, yt, zero, x_gm, y_gm


@pto.kernel
def buggy(x, out):
    xt, yt, zero, x_gm, y_gm = _tiles(x, out)
    pto.TASSIGN(xt, 0x0000)
    pto.TASSIGN(yt, 0x1000)
    pto.TASSIGN(zero, 0x2000)
    pto.TEXPANDS(zero, 0.0)
    pto.pipe_barrier(pto.PIPE_V)  # the TROWEXPANDMAX below reads zero
    pto.TLOAD(xt, x_gm)
    # BUG: the set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) that should post this event is missing
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(yt, xt, zero)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(y_gm, yt)


@pto.kernel
def fixed(x, out):
    xt, yt, zero, x_gm, y_gm = _tiles(x, out)
    pto.TASSIGN(xt, 0x0000)
    pto.TASSIGN(yt, 0x1000)
    pto.TASSIGN(zero, 0x2000)
    pto.TEXPANDS(zero, 0.0)
    pto.pipe_barrier(pto.PIPE_V)  # the TROWEXPANDMAX below reads zero
    pto.TLOAD(xt, x_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(yt, xt, zero)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(y_gm, yt)


def host_x():
    return np.random.default_rng(4).standard_normal((R, C)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(host_x()), dev.gm_full((R, C), "float32", 7.0)


def check(dev, args, run):
    return np.array_equal(args[1].numpy(), np.maximum(host_x(), np.float32(0)))
