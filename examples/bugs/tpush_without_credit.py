"""Bug: a TPUSH that never gets a free slot: the vector cores pop with the GlobalTensor form of
TPOP and never TFREE, so the cube's third TPUSH waits forever (DeadlockError, PTO400).

A cube -> vector stream through a ``TPipe`` of 2 slots in GM: the cube core computes four
16 x 32 tiles (``A_t @ I``, so tile t is ``A_t`` exactly) and pushes each with
``TPUSH(pipe, acc, TILE_UP_DOWN)``; each vector core pops its 8-row half with
``TPOP(pipe, slot, TILE_UP_DOWN)`` (the GlobalTensor form: it re-points ``slot`` at the ring
slot), loads it and stores it to ``out``. The GlobalTensor form of TPOP leaves freeing the slot
to the kernel: after its loads it must call ``TFREE(pipe, slot)``, which returns a credit to
the producer once per period of the ring. ``buggy`` forgets it: the first two pushes fill the
two slots, and the push of tile 2 waits for a credit (FFTS flag ``flag_id + 1``) that no vector
core posts, while both vector cores wait for tile 2. ptosim stops the run and names both sides,
the missing TFREE and where it goes (the F201 findings are the flags the stuck cores never
reached); on a2 (the cycle number depends on the device)::

    [PTO400] deadlock at cycle 1726: block 0 AIC PIPE_S blocked in wait_flag_dev(flag 1) of
    TPUSH:WAIT_FLAG_DEV #57 (tpush_without_credit.py:101): no core posted
    ffts_cross_core_sync(flag 1) to block 0 AIC's group (in mode 2: block 0 AIV0, block 0
    AIV1); block 0 AIV0 PIPE_S blocked in wait_flag_dev(flag 0) of TPOP:WAIT_FLAG_DEV #16
    (tpush_without_credit.py:117): no core posted ffts_cross_core_sync(flag 0) to block 0
    AIV0's group (in mode 2: block 0 AIC); block 0 AIV1 PIPE_S blocked in wait_flag_dev(flag
    0) of TPOP:WAIT_FLAG_DEV #16 (tpush_without_credit.py:117): no core posted
    ffts_cross_core_sync(flag 0) to block 0 AIV1's group (in mode 2: block 0 AIC); other
    findings (7):
    [F201 flag-unconsumed] block 0 AIC: set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0) posted by #54
    was never waited before the deadlock (1 post(s) left); add the matching
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0) or drop the set_flag; [F201 flag-unconsumed]
    block 0 AIC: set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0) posted by #49 was never waited
    before the deadlock (1 post(s) left); add the matching wait_flag(PIPE_MTE1, PIPE_MTE2,
    EVENT_ID0) or drop the set_flag; [F201 flag-unconsumed] block 0 AIV0:
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0) posted by #15 was never waited before the
    deadlock (1 post(s) left); add the matching wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0)
    or drop the set_flag; [F201 flag-unconsumed] block 0 AIV1: set_flag(PIPE_MTE3,
    PIPE_MTE2, EVENT_ID0) posted by #15 was never waited before the deadlock (1 post(s)
    left); add the matching wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0) or drop the set_flag;
    [F209 cross-wait-never-posted] block 0 AIC: TPUSH:WAIT_FLAG_DEV #57
    (tpush_without_credit.py:101) waits for cross-core flag 1, which never completes (a hang
    on every target): TPUSH of tile 2 on TPipe(flag 0, DIR_C2V, 2 slots of 2048 B) waits for
    a free slot (a credit the consumer posts once per 2 tile(s) it has popped and freed),
    but block 0 AIV0 popped 2 tile(s) with TPOP(pipe, gm) and freed 0 time(s) (1 due): a
    GlobalTensor TPOP does not free its slot; fix: call TFREE(pipe, gm) on block 0 AIV0
    after its loads from the slot of TPOP (tpush_without_credit.py:117); [F209
    cross-wait-never-posted] block 0 AIV0: TPOP:WAIT_FLAG_DEV #16
    (tpush_without_credit.py:117) waits for cross-core flag 0, which never completes (a hang
    on every target): TPOP of tile 2 on TPipe(flag 0, DIR_C2V, 2 slots of 2048 B) waits for
    its data, but block 0 AIC is blocked before pushing it, in TPUSH
    (tpush_without_credit.py:101) waiting for a free slot (see that finding: the root cause
    is on the consumer's side); [F209 cross-wait-never-posted] block 0 AIV1:
    TPOP:WAIT_FLAG_DEV #16 (tpush_without_credit.py:117) waits for cross-core flag 0, which
    never completes (a hang on every target): TPOP of tile 2 on TPipe(flag 0, DIR_C2V, 2
    slots of 2048 B) waits for its data, but block 0 AIC is blocked before pushing it, in
    TPUSH (tpush_without_credit.py:101) waiting for a free slot (see that finding: the root
    cause is on the consumer's side)

The cpu target raises the same error from the kernel's structure. ``fixed`` adds
``TFREE(pipe, slot, TILE_UP_DOWN)`` after the load from the slot (the tile form
``TPOP(pipe, tile)`` frees its slot itself). The C++ twin is
``examples/cxx/bugs/tpush_without_credit.cpp``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("a2", "cpu")
EXPECTED = {"a2": "deadlock", "cpu": "deadlock"}
TILES, M, N = 4, 16, 32
MTE1, MTE2, MTE3, M_, FIX = pto.PIPE_MTE1, pto.PIPE_MTE2, pto.PIPE_MTE3, pto.PIPE_M, pto.PIPE_FIX


def _handshake(src, dst):
    pto.set_flag(src, dst, pto.EVENT_ID0)
    pto.wait_flag(src, dst, pto.EVENT_ID0)


def _cube(pipe, a, eye):
    """Tile t = A_t @ I on the cube, pushed to the vector cores."""
    am, im = pto.TileMatNZ("float16", M, N), pto.TileMatNZ("float16", N, N)
    left, right = pto.TileLeft("float16", M, N), pto.TileRight("float16", N, N)
    acc = pto.TileAcc("float32", M, N)
    pto.TASSIGN(am, 0x0)
    pto.TASSIGN(im, 0x10000)
    pto.TLOAD(im, pto.GlobalTensor(eye, (N, N)))
    _handshake(MTE2, MTE1)
    pto.TMOV(right, im)
    pto.set_flag(MTE1, MTE2, pto.EVENT_ID0)
    pto.set_flag(M_, MTE1, pto.EVENT_ID0)
    pto.set_flag(FIX, M_, pto.EVENT_ID0)
    for t in range(TILES):
        pto.wait_flag(MTE1, MTE2, pto.EVENT_ID0)
        pto.TLOAD(am, pto.GlobalTensor(a, (M, N), offset=t * M * N))
        _handshake(MTE2, MTE1)
        pto.wait_flag(M_, MTE1, pto.EVENT_ID0)
        pto.TMOV(left, am)
        pto.set_flag(MTE1, MTE2, pto.EVENT_ID0)
        _handshake(MTE1, M_)
        pto.wait_flag(FIX, M_, pto.EVENT_ID0)
        pto.TMATMUL(acc, left, right)
        pto.set_flag(M_, MTE1, pto.EVENT_ID0)
        _handshake(M_, FIX)
        pto.TPUSH(pipe, acc, "TILE_UP_DOWN")
        pto.set_flag(FIX, M_, pto.EVENT_ID0)
    pto.wait_flag(MTE1, MTE2, pto.EVENT_ID0)
    pto.wait_flag(M_, MTE1, pto.EVENT_ID0)
    pto.wait_flag(FIX, M_, pto.EVENT_ID0)


def _vector(pipe, out, fifo, free: bool):
    """Each vector core pops its 8-row half of every tile (GlobalTensor form) and stores it."""
    half = M // 2
    sub = pto.get_subblockid()
    v = pto.Tile("Vec", "float32", half, N)
    pto.TASSIGN(v, 0x0)
    pto.set_flag(MTE3, MTE2, pto.EVENT_ID0)
    for t in range(TILES):
        slot = pto.GlobalTensor(fifo, (half, N))
        pto.TPOP(pipe, slot, "TILE_UP_DOWN")
        pto.wait_flag(MTE3, MTE2, pto.EVENT_ID0)
        pto.TLOAD(v, slot)
        if free:
            pto.TFREE(pipe, slot, "TILE_UP_DOWN")
        _handshake(MTE2, MTE3)
        pto.TSTORE(pto.GlobalTensor(out, (half, N), offset=(t * M + sub * half) * N), v)
        pto.set_flag(MTE3, MTE2, pto.EVENT_ID0)
    pto.wait_flag(MTE3, MTE2, pto.EVENT_ID0)


@pto.kernel(cores="mix")
def buggy(a, eye, out, fifo):
    with pto.TPipe(0, "DIR_C2V", M * N * 4, 2, fifo) as pipe:
        if pto.is_cube():
            _cube(pipe, a, eye)
        else:
            _vector(pipe, out, fifo, free=False)  # BUG: no TFREE after the TPOP's load


@pto.kernel(cores="mix")
def fixed(a, eye, out, fifo):
    with pto.TPipe(0, "DIR_C2V", M * N * 4, 2, fifo) as pipe:
        if pto.is_cube():
            _cube(pipe, a, eye)
        else:
            _vector(pipe, out, fifo, free=True)


def host_a():
    return np.random.default_rng(20).integers(-8, 8, (TILES * M, N)).astype(np.float16)


def inputs(dev):
    return (
        dev.gm_array(host_a()),
        dev.gm_array(np.eye(N, dtype=np.float16)),
        dev.gm_full((TILES * M, N), "float32", -1.0),
        dev.gm_zeros((2 * M * N,), "float32"),
    )


def check(dev, args, run):
    return np.array_equal(args[2].numpy(), host_a().astype(np.float32))
