"""Mixture-of-experts token routing: ``dispatch`` (MSCATTER Row) and ``combine`` (MGATHER Row).

16 tokens of 32 float32 features are routed top-1 to 4 experts that have 3 slots each (an
expert buffer of 12 rows). ``slot[t] = expert[t] * CAPACITY + rank of t within its expert``;
a token past its expert's capacity is dropped and gets the slot ``E * CAPACITY`` (one past the
buffer).

- ``dispatch``: ``expert_buf[slot[t], :] = tokens[t, :]`` with MSCATTER<Row, None, Skip>: the
  dropped tokens are skipped, unused slots keep their old contents.
- ``combine``: ``out[t, :] = expert_buf[slot[t], :]`` with MGATHER<Row, Zero>: dropped tokens
  read zeros.

The slots are distinct, so the scatter has no collision on any target (no ScatterConflict is
needed, and Atlas A2/A3 has none), and ``combine(dispatch(tokens))`` is the identity on every
routed token and zero on every dropped one. Between the two, a real model would run the
experts on ``expert_buf``; the combine kernel's own inputs here stand for that buffer.

Synchronisation: dispatch TLOAD(slot); TLOAD(tokens); pipe_barrier(PIPE_ALL); MSCATTER (the
documented a2a3 scatter pattern, correct on the 950 too); combine TLOAD(slot); MTE2->V;
MGATHER; V->MTE3; TSTORE.

Run them: ``python -m ptosim run examples/moe_dispatch_combine.py:dispatch --device a3`` and
``... moe_dispatch_combine.py:combine ...``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
TOKENS, HIDDEN, EXPERTS, CAPACITY = 16, 32, 4, 3
SLOTS = EXPERTS * CAPACITY


@pto.kernel
def dispatch(expert_buf, tokens, slots):
    buf = pto.GlobalTensor(expert_buf, shape=(1, 1, 1, SLOTS, HIDDEN))
    tok_gm = pto.GlobalTensor(tokens, shape=(1, 1, 1, TOKENS, HIDDEN))
    slot_gm = pto.GlobalTensor(slots, shape=(1, 1, 1, 1, TOKENS))
    x = pto.Tile("Vec", "float32", TOKENS, HIDDEN, name="tokens")
    idx = pto.Tile("Vec", "int32", 1, TOKENS, name="slot")
    pto.TLOAD(idx, slot_gm)
    pto.TLOAD(x, tok_gm)
    pto.pipe_barrier(pto.PIPE_ALL)
    pto.MSCATTER(buf, x, idx, coalesce="row", oob="skip")


@pto.kernel
def combine(out, expert_buf, slots):
    buf = pto.GlobalTensor(expert_buf, shape=(1, 1, 1, SLOTS, HIDDEN))
    out_gm = pto.GlobalTensor(out, shape=(1, 1, 1, TOKENS, HIDDEN))
    slot_gm = pto.GlobalTensor(slots, shape=(1, 1, 1, 1, TOKENS))
    y = pto.Tile("Vec", "float32", TOKENS, HIDDEN, name="combined")
    idx = pto.Tile("Vec", "int32", 1, TOKENS, name="slot")
    pto.TLOAD(idx, slot_gm)
    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
    pto.MGATHER(y, buf, idx, coalesce="row", oob="zero")
    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(out_gm, y)


def routing(seed: int = 3):
    """Tokens, the top-1 expert of each, and the slot each one gets (SLOTS when dropped)."""
    rng = np.random.default_rng(seed)
    tokens = rng.standard_normal((TOKENS, HIDDEN)).astype(np.float32)
    expert = rng.integers(0, EXPERTS, TOKENS)
    slot = np.full(TOKENS, SLOTS, dtype=np.int32)
    fill = [0] * EXPERTS
    for t, e in enumerate(expert):
        if fill[e] < CAPACITY:
            slot[t] = e * CAPACITY + fill[e]
            fill[e] += 1
    assert (slot == SLOTS).any() and (slot < SLOTS).sum() > SLOTS // 2  # some dropped, most kept
    return tokens, slot


def _stale_buffer():
    return np.full((SLOTS, HIDDEN), -7.0, dtype=np.float32)  # the previous batch's leftovers


def inputs_dispatch(dev):
    tokens, slot = routing()
    return dev.gm_array(_stale_buffer()), dev.gm_array(tokens), dev.gm_array(slot)


def check_dispatch(dev, args, run):
    expert_buf, _, _ = args
    tokens, slot = routing()
    expected = _stale_buffer()
    for t in range(TOKENS):
        if slot[t] < SLOTS:
            expected[slot[t]] = tokens[t]
    return np.array_equal(expert_buf.numpy(), expected)


def inputs_combine(dev):
    tokens, slot = routing()
    buf = _stale_buffer()
    kept = slot < SLOTS
    buf[slot[kept]] = tokens[kept]  # what dispatch leaves (numpy, not the simulator)
    out = dev.gm_full((TOKENS, HIDDEN), "float32", 99.0)  # must be overwritten, zeros too
    return out, dev.gm_array(buf), dev.gm_array(slot)


def check_combine(dev, args, run):
    out, _, _ = args
    tokens, slot = routing()
    expected = np.where((slot < SLOTS)[:, None], tokens, np.float32(0))
    return np.array_equal(out.numpy(), expected)
