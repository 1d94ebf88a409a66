"""Bug: one event id for two loads that the vector unit consumes in the other order (F208).

The kernel clamps a 16 x 64 float32 activation from below by per-row floors in mode 2: TLOAD
brings ``x`` and then the [16, 1] ColMajor floors into UB on PIPE_MTE2, TROWEXPAND broadcasts
each floor over a [16, 8] block on PIPE_V, and TROWEXPANDMAX (mode 2) takes the maximum.

Each load posts ``set_flag(PIPE_MTE2, PIPE_V, ...)`` and the vector unit waits before each use,
but ``buggy`` uses EVENT_ID0 for both loads. Events count: the n-th ``wait_flag`` of an event
consumes its n-th post. The first wait, meant for the floors, therefore consumes the post of the
*first* load (``x``), and TROWEXPAND reads the floors while the second DMA may still be writing
them. Setting an event whose earlier post is not waited yet is what the reference library's CPU
simulator stops on ("Event ID still occupied - likely missing Wait()"); ptosim reports it on
every target (F208) and keeps counting, so the race it causes is found too and listed beneath
it as its consequence. The finding (a2, 950pr and cpu)::

    [F208 reused-event] core 0: SET_FLAG #7 (reused_event_id.py:61) sets (PIPE_MTE2, PIPE_V,
    EVENT_ID0) again while the post of SET_FLAG #5 (reused_event_id.py:59) is not waited yet;
    the next wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) is WAIT_FLAG #8 (reused_event_id.py:62):
    the event is taken from its set to its wait (the reference library's CPU simulator stops
    here: "Event ID still occupied - likely missing Wait()"), and counted pairing hands each
    wait the oldest post, which may not be the data it means; fix: make the set_flag at
    reused_event_id.py:61 set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1); make the wait_flag at
    reused_event_id.py:62 wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1)

The fix (``fixed``): one id per load, EVENT_ID0 for ``x`` and EVENT_ID1 for the floors, and each
wait names the load it waits for. (Moving the second wait up, as the finding's mechanical fix
does, works too.)
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {"a2": ["F208"], "950pr": ["F208"]}
R, C, BLOCK = 16, 64, 8
MTE2, V, MTE3 = pto.PIPE_MTE2, pto.PIPE_V, pto.PIPE_MTE3


def _tiles(x, floors, out):
    xt = pto.Tile("Vec", "float32", R, C, name="x")
    fl = pto.Tile("Vec", "float32", R, 1, blayout="ColMajor", name="floor")
    blk = pto.Tile("Vec", "float32", R, BLOCK, name="floor_block")
    yt = pto.Tile("Vec", "float32", R, C, name="y")
    pto.TASSIGN(xt, 0x0000)
    pto.TASSIGN(fl, 0x1000)
    pto.TASSIGN(blk, 0x2000)
    pto.TASSIGN(yt, 0x3000)
    x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, R, C))
    f_gm = pto.GlobalTensor(floors, shape=(1, 1, 1, R, 1), layout="DN")
    y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, R, C))
    return xt, fl, blk, yt, x_gm, f_gm, y_gm


@pto.kernel
def buggy(x, floors, out):
    xt, fl, blk, yt, x_gm, f_gm, y_gm = _tiles(x, floors, out)
    pto.TLOAD(xt, x_gm)
    pto.set_flag(MTE2, V, pto.EVENT_ID0)  # x is ready
    pto.TLOAD(fl, f_gm)
    pto.set_flag(MTE2, V, pto.EVENT_ID0)  # BUG: the floors are ready, on the same id
    pto.wait_flag(MTE2, V, pto.EVENT_ID0)  # meant for the floors: consumes the post of x
    pto.TROWEXPAND(blk, fl)
    pto.pipe_barrier(pto.PIPE_V)  # the TROWEXPANDMAX below reads blk
    pto.wait_flag(MTE2, V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(yt, xt, blk)
    pto.set_flag(V, MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, MTE3, pto.EVENT_ID0)
    pto.TSTORE(y_gm, yt)


@pto.kernel
def fixed(x, floors, out):
    xt, fl, blk, yt, x_gm, f_gm, y_gm = _tiles(x, floors, out)
    pto.TLOAD(xt, x_gm)
    pto.set_flag(MTE2, V, pto.EVENT_ID0)  # x is ready
    pto.TLOAD(fl, f_gm)
    pto.set_flag(MTE2, V, pto.EVENT_ID1)  # the floors are ready
    pto.wait_flag(MTE2, V, pto.EVENT_ID1)
    pto.TROWEXPAND(blk, fl)
    pto.pipe_barrier(pto.PIPE_V)  # the TROWEXPANDMAX below reads blk
    pto.wait_flag(MTE2, V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(yt, xt, blk)
    pto.set_flag(V, MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, MTE3, pto.EVENT_ID0)
    pto.TSTORE(y_gm, yt)


def host_data(seed: int = 6):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((R, C)).astype(np.float32)
    floors = rng.uniform(-0.5, 0.5, (R, 1)).astype(np.float32)
    return x, floors


def inputs(dev):
    x, floors = host_data()
    return dev.gm_array(x), dev.gm_array(floors), dev.gm_full((R, C), "float32", 7.0)


def check(dev, args, run):
    x, floors = host_data()
    return np.array_equal(args[2].numpy(), np.maximum(x, floors))
