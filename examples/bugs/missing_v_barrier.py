"""Bug: a vector instruction reads a tile the previous vector instruction is still writing.

``y = x * 0.5 + 1``: TMULS writes ``t`` on PIPE_V and TADDS reads it, also on PIPE_V. The vector
pipe is pipelined: it issues TADDS without waiting for TMULS's results to reach UB, so on Atlas
A2/A3 TADDS may read stale ``t``. The library itself puts ``pipe_barrier(PIPE_V)`` between its own
dependent vector steps (reference/vector_isa.md 2.4); a kernel must do the same between
dependent instructions. The simulated result happens to be right (ptosim runs the pipe's
instructions one after the other), which is exactly why the checker reports it.

The finding (a2, ``python -m ptosim check examples/bugs/missing_v_barrier.py:buggy --device
a2``, which exits 1)::

    [F207 vector-raw] TADDS #6 (missing_v_barrier.py:49) reads UB[0x1000, 0x2000), which
    TMULS #5 (missing_v_barrier.py:47) writes, with no pipe_barrier(PIPE_V) between them: the
    vector pipe is pipelined and does not wait for a write before a later read; fix:
    pipe_barrier(PIPE_V) after TMULS #5 (missing_v_barrier.py:47)

On the 950 the reference gives no rule for the visibility of one vector function's stores to
the next one's loads, so ptosim reports F207 on a2/a3 (and on cpu, which judges portability by
the A2/A3 rules), not on 950pr/950dt. The fix (``fixed``): ``pipe_barrier(PIPE_V)`` between the
two; it costs one cycle plus the vector pipeline's drain.
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {"a2": ["F207"], "950pr": []}
R, C = 16, 64


def _setup(x):
    xt = pto.Tile("Vec", "float32", R, C, name="x")
    tt = pto.Tile("Vec", "float32", R, C, name="t")
    pto.TASSIGN(xt, 0x0000)
    pto.TASSIGN(tt, 0x1000)
    pto.TLOAD(xt, pto.GlobalTensor(x, shape=(1, 1, 1, R, C)))
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    return xt, tt


@pto.kernel
def buggy(x, out):
    xt, tt = _setup(x)
    pto.TMULS(tt, xt, 0.5)
    # BUG: no pipe_barrier(PIPE_V): TADDS reads t while TMULS may still be writing it
    pto.TADDS(xt, tt, 1.0)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, R, C)), xt)


@pto.kernel
def fixed(x, out):
    xt, tt = _setup(x)
    pto.TMULS(tt, xt, 0.5)
    pto.pipe_barrier(pto.PIPE_V)
    pto.TADDS(xt, tt, 1.0)
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, R, C)), xt)


def host_x():
    return np.random.default_rng(4).uniform(-2.0, 2.0, (R, C)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(host_x()), dev.gm_full((R, C), "float32", 7.0)


def check(dev, args, run):
    want = host_x() * np.float32(0.5) + np.float32(1.0)  # two float32 roundings
    return np.array_equal(args[1].numpy(), want)
