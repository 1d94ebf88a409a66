"""Bug: every block stores to the same GM rows (the output view ignores the block index): F205.

The Python twin of ``examples/cxx/bugs/cross_core_race.cpp``. A ReLU, ``y = max(x, 0)``, over
64 x 64 float32 on 4 blocks: block b loads rows ``[16 b, 16 b + 16)`` (``pto.get_block_idx()``),
takes TROWEXPANDMAX against a zero column and stores the result. ``buggy`` builds the output
view without the block's offset, so the four blocks (cores) write the same 4 KiB of GM, in an
order nothing defines, and rows 16..63 are never written. ptosim reports the cross-core race,
one finding per pair of blocks, 6 for 4 blocks (a2 and 950pr, and the cpu reference, from the
program's structure)::

    [F205 cross-core-race] core 0 TSTORE #11 (cross_core_race.py:...) and core 1 TSTORE #11
    (cross_core_race.py:...) both touch GM[0x100004000, 0x100005000) and one of them writes it
    (not as a hardware atomic), and no cross-core flag orders them: give each block its own GM
    slice, or order them with ffts_cross_core_sync / wait_flag_dev (or SyncAll) between the two
    accesses

``fixed`` offsets the output view by the block's first row, as the input view already is.

Run it: ``python -m ptosim check examples/cxx/py/bugs/cross_core_race.py:buggy --device a2``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "950pr")
EXPECTED = {d: ["F205"] * 6 for d in ("a2", "950pr", "cpu")}  # one per pair of the 4 blocks
BLOCKS, R, C = 4, 16, 64
RUN_OPTIONS = {"block_dim": BLOCKS}
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3


def _relu(x, out, out_row: int) -> None:
    first = pto.get_block_idx() * R
    xt = pto.Tile("Vec", "float32", R, C, name="x")
    yt = pto.Tile("Vec", "float32", R, C, name="y")
    zero = pto.Tile("Vec", "float32", R, 1, blayout="ColMajor", name="zero")
    pto.TASSIGN(xt, 0x0000)
    pto.TASSIGN(yt, 0x1000)
    pto.TASSIGN(zero, 0x2000)
    x_gm = pto.GlobalTensor(x, shape=(1, 1, 1, R, C), offset=first * C)
    y_gm = pto.GlobalTensor(out, shape=(1, 1, 1, R, C), offset=out_row * C)
    pto.TEXPANDS(zero, 0.0)
    pto.pipe_barrier(pto.PIPE_V)  # the TROWEXPANDMAX below reads zero
    pto.TLOAD(xt, x_gm)
    pto.set_flag(MTE2, V, pto.EVENT_ID0)
    pto.wait_flag(MTE2, V, pto.EVENT_ID0)
    pto.TROWEXPANDMAX(yt, xt, zero)
    pto.set_flag(V, MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, MTE3, pto.EVENT_ID0)
    pto.TSTORE(y_gm, yt)


@pto.kernel
def buggy(x, out):
    _relu(x, out, 0)  # BUG: every block stores to rows [0, 16)


@pto.kernel
def fixed(x, out):
    _relu(x, out, pto.get_block_idx() * R)


def host_x():
    return np.random.default_rng(9).standard_normal((BLOCKS * R, C)).astype(np.float32)


def inputs(dev):
    return dev.gm_array(host_x()), dev.gm_full((BLOCKS * R, C), "float32", 7.0)


def check(dev, args, run):
    return np.array_equal(args[1].numpy(), np.maximum(host_x(), np.float32(0)))
