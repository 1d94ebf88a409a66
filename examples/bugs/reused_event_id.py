"""Bug: a ping-pong loop that uses one event id for both buffers (F202 flag-reused).

The kernel clamps a 64 x 64 float32 activation from below by per-row floors (TROWEXPANDMAX,
mode 1, as in ``examples/row_floor_clamp.py``), 16 rows at a time, double-buffered: while the
vector unit works on one input buffer, MTE2 loads the next tile into the other. Two events per
buffer keep the pipeline safe:

- READY[b] (MTE2 -> V): buffer b has been loaded; the vector op may read it;
- FREE[b] (V -> MTE2): the vector op is done with buffer b; the next TLOAD may overwrite it.
  The FREE events are primed (set once for each buffer) before the loop and drained (waited
  once each) after it.

``buggy`` uses EVENT_ID0 for both buffers in each direction. An event is a single flag per
(src, dst, id), not a queue: a second post of EVENT_ID0 can land before the wait meant for the
first one has consumed it. On hardware the second post is then lost (the library's ``Event``
allocator asserts "Event ID still occupied - likely missing Wait()" in its CPU and cost-model
builds): the final drain waits for a post that never comes, and inside the loop a TLOAD can
take the post meant for the other buffer and overwrite a tile the vector unit is still reading.
ptosim counts the posts so the run can go on, and its happens-before analysis reports every
set that is not ordered after the wait of the previous post of its event, once per event
(a2 and 950pr, whatever the simulated timing)::

    [F202 flag-reused] SET_FLAG #2 (reused_event_id.py:65): set_flag(PIPE_V, PIPE_MTE2,
    EVENT_ID0) may post again before WAIT_FLAG #4 (reused_event_id.py:67) has consumed the
    post of SET_FLAG #1 (5 such sets in all); the posts merge into a count and the waits can
    pair with the wrong ones - use a distinct event id for each buffer, or wait before
    setting again
    [F202 flag-reused] SET_FLAG #9 (reused_event_id.py:76): set_flag(PIPE_MTE2, PIPE_V,
    EVENT_ID0) may post again before WAIT_FLAG #10 (reused_event_id.py:77) has consumed the
    post of SET_FLAG #6 (3 such sets in all); the posts merge into a count and the waits can
    pair with the wrong ones - use a distinct event id for each buffer, or wait before
    setting again

The fix (``fixed``): one event id per buffer and direction, READY[b] = FREE[b] = EVENT_ID<b>
(the ids are per pipe pair, so MTE2 -> V and V -> MTE2 may both use 0 and 1). Every set_flag
of an id is then waited before the same id is set again.
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {"a2": ["F202", "F202"], "950pr": ["F202", "F202"]}
ROWS, COLS, TILE_ROWS = 64, 64, 16
TILES = ROWS // TILE_ROWS
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3


def _clamp_pipeline(x, floors, out, ids):
    """The double-buffered loop; ``ids[b]`` is the event id of buffer b (READY and FREE)."""
    t = TILE_ROWS
    floor = pto.Tile("Vec", "float32", t, 1, blayout="ColMajor", name="floor")
    xbuf = [pto.Tile("Vec", "float32", t, COLS, name=f"x{b}") for b in range(2)]
    y = pto.Tile("Vec", "float32", t, COLS, name="y")

    def tile_in(i):
        return pto.GlobalTensor(x, shape=(1, 1, 1, t, COLS), offset=i * t * COLS)

    def tile_out(i):
        return pto.GlobalTensor(out, shape=(1, 1, 1, t, COLS), offset=i * t * COLS)

    pto.TLOAD(floor, pto.GlobalTensor(floors, shape=(1, 1, 1, t, 1), layout="DN"))
    pto.set_flag(V, MTE2, ids[0])  # prime: both input buffers start free
    pto.set_flag(V, MTE2, ids[1])
    pto.set_flag(MTE3, V, pto.EVENT_ID0)  # prime: y starts free
    pto.wait_flag(V, MTE2, ids[0])
    pto.TLOAD(xbuf[0], tile_in(0))
    pto.set_flag(MTE2, V, ids[0])
    for i in range(TILES):
        b = i % 2
        if i + 1 < TILES:  # prefetch the next tile into the other buffer
            nb = 1 - b
            pto.wait_flag(V, MTE2, ids[nb])
            pto.TLOAD(xbuf[nb], tile_in(i + 1))
            pto.set_flag(MTE2, V, ids[nb])
        pto.wait_flag(MTE2, V, ids[b])
        pto.wait_flag(MTE3, V, pto.EVENT_ID0)
        pto.TROWEXPANDMAX(y, xbuf[b], floor)
        pto.set_flag(V, MTE2, ids[b])
        pto.set_flag(V, MTE3, pto.EVENT_ID0)
        pto.wait_flag(V, MTE3, pto.EVENT_ID0)
        pto.TSTORE(tile_out(i), y)
        pto.set_flag(MTE3, V, pto.EVENT_ID0)
    pto.wait_flag(V, MTE2, ids[0])  # drain the primed events
    pto.wait_flag(V, MTE2, ids[1])
    pto.wait_flag(MTE3, V, pto.EVENT_ID0)


@pto.kernel
def buggy(x, floors, out):
    # BUG: the same event id for buffer 0 and buffer 1
    _clamp_pipeline(x, floors, out, ids=(pto.EVENT_ID0, pto.EVENT_ID0))


@pto.kernel
def fixed(x, floors, out):
    _clamp_pipeline(x, floors, out, ids=(pto.EVENT_ID0, pto.EVENT_ID1))


def host_data(seed: int = 6):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    floors = rng.uniform(-0.5, 0.5, (TILE_ROWS, 1)).astype(np.float32)
    return x, floors


def inputs(dev):
    x, floors = host_data()
    return dev.gm_array(x), dev.gm_array(floors), dev.gm_full((ROWS, COLS), "float32", 7.0)


def check(dev, args, run):
    x, floors = host_data()
    expected = np.maximum(x, np.tile(floors, (TILES, 1)))  # the same floors for every tile
    return np.array_equal(args[2].numpy(), expected)
