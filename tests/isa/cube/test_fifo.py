"""TPUSH / TPOP / TALLOC / TFREE (the cube <-> vector TPipe) on a2 and cpu.

Expected values are numpy slices of the data pushed; the credit counts are derived by hand
from the library's documented rule (reference/cube_isa.md 3.8: wait for a free slot before
tile t when t >= slots and t % period == 0, free after tile t when (t + 1) % period == 0,
period = slots for up to 2 slots, else slots // 2) and checked by a balance argument."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto
from ptosim.isa.sync import FftsCrossCoreSync, WaitFlagDev

DEVICES = ("a2", "cpu")
PIPES = (pto.PIPE_MTE2, pto.PIPE_MTE3)


def _handshake(src, dst):
    pto.set_flag(src, dst, 0)
    pto.wait_flag(src, dst, 0)


def _cube_acc(a, m_rows, m_valid, n):
    """Load A [m_valid x n] (half, exact small integers) and multiply it by the identity on
    the cube: the Acc tile holds A exactly (float32)."""
    am = pto.TileMatNZ("float16", m_rows, n, m_valid, n)
    im = pto.TileMatNZ("float16", n, n)
    left = pto.TileLeft("float16", m_rows, n, m_valid, n)
    right = pto.TileRight("float16", n, n)
    acc = pto.TileAcc("float32", m_rows, n, m_valid, n)
    pto.TLOAD(am, pto.GlobalTensor(a, (m_valid, n)))
    pto.TLOAD(im, pto.GlobalTensor(a, (n, n), offset=m_valid * n))
    _handshake(pto.PIPE_MTE2, pto.PIPE_MTE1)
    pto.TMOV(left, am)
    pto.TMOV(right, im)
    _handshake(pto.PIPE_MTE1, pto.PIPE_M)
    pto.TMATMUL(acc, left, right)
    _handshake(pto.PIPE_M, pto.PIPE_FIX)
    return acc


def _host_a(m, n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 8, (m, n)).astype(np.float16)
    return np.concatenate([a, np.eye(n, dtype=np.float16)])


# (split, rows, cols, valid rows, AIV0 part, AIV1 part) with parts as (row0, rows, col0, cols)
C2V_CASES = [
    ("TILE_UP_DOWN", 32, 32, 32, (0, 16, 0, 32), (16, 16, 0, 32)),
    ("TILE_LEFT_RIGHT", 16, 32, 16, (0, 16, 0, 16), (0, 16, 16, 16)),
    ("TILE_NO_SPLIT", 16, 32, 16, (0, 16, 0, 32), (0, 16, 0, 32)),
    ("TILE_UP_DOWN_ODD", 16, 32, 5, (0, 3, 0, 32), (3, 2, 0, 32)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("split, rows, cols, valid, part0, part1", C2V_CASES)
def test_cube_to_vector_split_gives_each_vector_core_its_part(
    device, split, rows, cols, valid, part0, part1
):
    parts = (part0, part1)

    @pto.kernel(cores="mix")
    def kern(a, out, fifo):
        with pto.TPipe(0, "DIR_C2V", rows * cols * 4, 1, fifo) as pipe:
            if pto.is_cube():
                pto.TPUSH(pipe, _cube_acc(a, rows, valid, cols), split)
            else:
                sub = pto.get_subblockid()
                r0, nr, c0, nc = parts[sub]
                t = pto.Tile("Vec", "float32", rows, cols, valid=(nr, nc))
                pto.TPOP(pipe, t, split)
                _handshake(pto.PIPE_MTE2, pto.PIPE_MTE3)
                gm = pto.GlobalTensor(out, (nr, nc), stride=(2 * cols, 1),
                                      offset=sub * cols + r0 * 2 * cols + c0)  # fmt: skip
                pto.TSTORE(gm, t)

    host = _host_a(valid, cols)
    dev = pto.Device(device)
    out = dev.gm_full((valid, 2 * cols), "float32", -99.0)
    fifo = dev.gm_zeros((rows * cols,), "float32")
    run = dev.run(kern, dev.gm_array(host), out, fifo)
    a = host[:valid].astype(np.float32)
    got = out.numpy()
    for sub, (r0, nr, c0, nc) in enumerate(parts):
        view = got[r0 : r0 + nr, sub * cols + c0 : sub * cols + c0 + nc]
        assert np.array_equal(view, a[r0 : r0 + nr, c0 : c0 + nc]), (sub, view)
    # the slot holds the Acc tile as an ND valid x cols matrix
    assert np.array_equal(fifo.numpy()[: valid * cols].reshape(valid, cols), a)
    assert run.findings == []


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("split", ["TILE_UP_DOWN", "TILE_LEFT_RIGHT"])
def test_vector_to_cube_split_assembles_the_tile_in_l1(device, split):
    """Each vector core pushes its half of X; the cube pops the whole X into L1 (ND -> NZ),
    multiplies it by the identity and stores it: out == X."""
    m, n = 16, 32
    hm, hn = (m // 2, n) if split == "TILE_UP_DOWN" else (m, n // 2)

    @pto.kernel(cores="mix")
    def kern(x, eye, out, fifo):
        with pto.TPipe(4, "DIR_V2C", m * n * 2, 1, fifo, 0, 0x20000) as pipe:
            if pto.is_vec():
                sub = pto.get_subblockid()
                v = pto.Tile("Vec", "float16", hm, hn)
                off = sub * hm * n if split == "TILE_UP_DOWN" else sub * hn
                pto.TLOAD(v, pto.GlobalTensor(x, (hm, hn), stride=(n, 1), offset=off))
                _handshake(pto.PIPE_MTE2, pto.PIPE_MTE3)
                pto.TPUSH(pipe, v, split)
            else:
                xm = pto.TileMatNZ("float16", m, n)
                im = pto.TileMatNZ("float16", n, n)
                pto.TASSIGN(im, 0)
                pto.TLOAD(im, pto.GlobalTensor(eye, (n, n)))
                pto.TPOP(pipe, xm, split)
                left, right = pto.TileLeft("float16", m, n), pto.TileRight("float16", n, n)
                acc = pto.TileAcc("float32", m, n)
                _handshake(pto.PIPE_MTE2, pto.PIPE_MTE1)
                pto.TMOV(left, xm)
                pto.TMOV(right, im)
                _handshake(pto.PIPE_MTE1, pto.PIPE_M)
                pto.TMATMUL(acc, left, right)
                _handshake(pto.PIPE_M, pto.PIPE_FIX)
                pto.TSTORE(pto.GlobalTensor(out, (m, n)), acc)

    x = np.random.default_rng(1).integers(-8, 8, (m, n)).astype(np.float16)
    dev = pto.Device(device)
    out = dev.gm_zeros((m, n), "float32")
    fifo = dev.gm_zeros((m * n,), "float16")
    run = dev.run(kern, dev.gm_array(x), dev.gm_array(np.eye(n, dtype=np.float16)), out, fifo)
    assert np.array_equal(out.numpy(), x.astype(np.float32))
    assert run.findings == []


def _stream(device, slots, tiles, *, gm_form=False):
    """The cube pushes ``tiles`` 1 x 64 float32 rows (row t = t) through a C2V pipe of
    ``slots`` slots; each vector core pops them and stores row t to out[sub, t]."""
    n = 64

    @pto.kernel(cores="mix")
    def kern(src, out, fifo):
        with pto.TPipe(6, "DIR_C2V", 16 * n * 4, slots, fifo) as pipe:
            if pto.is_cube():
                am = pto.TileMatNZ("float16", 16, n, 1, n)
                im = pto.TileMatNZ("float16", n, n)
                pto.TASSIGN(am, 0)
                pto.TASSIGN(im, 0x10000)
                pto.TLOAD(im, pto.GlobalTensor(src, (n, n), offset=tiles * n))
                left = pto.TileLeft("float16", 16, n, 1, n)
                right = pto.TileRight("float16", n, n)
                acc = pto.TileAcc("float32", 16, n, 1, n)
                _handshake(pto.PIPE_MTE2, pto.PIPE_MTE1)
                pto.TMOV(right, im)
                pto.set_flag(pto.PIPE_MTE1, pto.PIPE_MTE2, 0)
                pto.set_flag(pto.PIPE_FIX, pto.PIPE_M, 0)
                pto.set_flag(pto.PIPE_M, pto.PIPE_MTE1, 0)
                for t in range(tiles):
                    pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_MTE2, 0)
                    pto.TLOAD(am, pto.GlobalTensor(src, (1, n), offset=t * n))
                    _handshake(pto.PIPE_MTE2, pto.PIPE_MTE1)
                    pto.wait_flag(pto.PIPE_M, pto.PIPE_MTE1, 0)
                    pto.TMOV(left, am)
                    pto.set_flag(pto.PIPE_MTE1, pto.PIPE_MTE2, 0)
                    _handshake(pto.PIPE_MTE1, pto.PIPE_M)
                    pto.wait_flag(pto.PIPE_FIX, pto.PIPE_M, 0)
                    pto.TMATMUL(acc, left, right)
                    pto.set_flag(pto.PIPE_M, pto.PIPE_MTE1, 0)
                    _handshake(pto.PIPE_M, pto.PIPE_FIX)
                    pto.TPUSH(pipe, acc, "TILE_NO_SPLIT")
                    pto.set_flag(pto.PIPE_FIX, pto.PIPE_M, 0)
                pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_MTE2, 0)
                pto.wait_flag(pto.PIPE_FIX, pto.PIPE_M, 0)
                pto.wait_flag(pto.PIPE_M, pto.PIPE_MTE1, 0)
            else:
                sub = pto.get_subblockid()
                v = pto.Tile("Vec", "float32", 1, n)
                pto.TASSIGN(v, 0x10000)
                pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                for t in range(tiles):
                    pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                    if gm_form:
                        slot = pto.GlobalTensor(fifo, (1, n))
                        pto.TPOP(pipe, slot, "TILE_NO_SPLIT")
                        pto.TLOAD(v, slot)
                        pto.TFREE(pipe, slot, "TILE_NO_SPLIT")
                    else:
                        pto.TPOP(pipe, v, "TILE_NO_SPLIT")
                    _handshake(pto.PIPE_MTE2, pto.PIPE_MTE3)
                    pto.TSTORE(pto.GlobalTensor(out, (1, n), offset=(sub * tiles + t) * n), v)
                    pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)

    rows = np.repeat(np.arange(tiles, dtype=np.float16)[:, None], n, axis=1)
    host = np.concatenate([rows, np.eye(n, dtype=np.float16)])
    dev = pto.Device(device)
    out = dev.gm_zeros((2, tiles, n), "float32")
    fifo = dev.gm_zeros((slots * 16 * n,), "float32")
    run = dev.run(kern, dev.gm_array(host), out, fifo)
    return run, out.numpy(), fifo.numpy().reshape(slots, 16, n), rows.astype(np.float32)


def _fifo_flags(run, block_label: str) -> tuple[int, int, int, int]:
    """(free waits, ready posts, ready waits, free posts) recorded by TPipe operations."""
    prog = next(b.program for b in run.blocks if b.role.label == block_label)
    fifo = [i for i in prog if i.fifo is not None]
    waits = [i for i in fifo if isinstance(i, WaitFlagDev)]
    posts = [i for i in fifo if isinstance(i, FftsCrossCoreSync)]
    return (
        sum(i.fifo.role == "free-wait" for i in waits),
        sum(i.fifo.role == "ready-post" for i in posts),
        sum(i.fifo.role == "ready-wait" for i in waits),
        sum(i.fifo.role == "free-post" for i in posts),
    )


# (slots, tiles, credit waits in TPUSH, waits in the destructor, free posts per consumer),
# by hand from the rule in the module docstring
COUNTS = [
    (1, 3, 2, 1, 3),  # period 1: wait before tiles 1, 2; free after every tile
    (2, 5, 1, 1, 2),  # period 2: wait before tile 4; free after tiles 1, 3
    (4, 6, 1, 2, 3),  # period 2: wait before tile 4; free after tiles 1, 3, 5
    (8, 10, 1, 1, 2),  # period 4: wait before tile 8; free after tiles 3, 7
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("slots, tiles, waits, drains, frees", COUNTS)
def test_credits_are_counted_as_the_library_counts_them(device, slots, tiles, waits, drains,
                                                        frees):  # fmt: skip
    run, out, ring, rows = _stream(device, slots, tiles)
    assert np.array_equal(out[0], rows) and np.array_equal(out[1], rows)
    free_waits, ready_posts, _, _ = _fifo_flags(run, "block 0 AIC")
    assert free_waits == waits + drains and ready_posts == tiles
    for aiv in ("block 0 AIV0", "block 0 AIV1"):
        assert _fifo_flags(run, aiv)[2:] == (tiles, frees)
    # every credit a consumer posts is taken (mode 2: one cube wait per pair of posts)
    assert free_waits == frees
    # tile t went to slot t % slots: each slot holds the last tile written into it
    for s in range(min(slots, tiles)):
        last = max(t for t in range(tiles) if t % slots == s)
        assert np.array_equal(ring[s, 0], rows[last])
    assert run.findings == []


def test_the_globaltensor_forms_count_like_the_tile_forms():
    run_tile = _stream("a2", 4, 6)[0]
    run_gm, out, _, rows = _stream("a2", 4, 6, gm_form=True)
    assert np.array_equal(out[0], rows) and np.array_equal(out[1], rows)
    for aiv in ("block 0 AIC", "block 0 AIV0", "block 0 AIV1"):
        assert _fifo_flags(run_gm, aiv) == _fifo_flags(run_tile, aiv)


@pytest.mark.parametrize("slots", range(1, 9))
def test_the_destructor_takes_every_credit_left(slots):
    """Simulate the protocol alone: after the destructor, the producer has waited exactly as
    many credits as the consumer posted, for any number of tiles (the library's fix of a
    destructor that waited a fixed number and hung)."""
    period = slots if slots <= 2 else slots // 2
    for tiles in range(0, 40):
        posted = sum((t + 1) % period == 0 for t in range(tiles))
        waited = sum(t >= slots and t % period == 0 for t in range(tiles))
        pipe = _bare_pipe(slots)
        pipe.prod_index = tiles
        assert waited + pipe.pending_free_credits() == posted, (slots, tiles)


def _bare_pipe(slots):
    """A TPipe outside a run, for its counting rule only."""
    pipe = object.__new__(pto.TPipe)
    pipe.slot_num = slots
    pipe.period = slots if slots <= 2 else slots // 2
    return pipe


def test_pipe_rules_are_coded_errors_at_the_kernel_line():
    dev = pto.Device("a2")
    fifo = dev.gm_zeros((1024,), "float32")

    @pto.kernel(cores="mix")
    def vec_tile_on_cube(fifo):
        pipe = pto.TPipe(0, "DIR_C2V", 4096, 1, fifo)
        if pto.is_cube():
            pto.TPUSH(pipe, pto.Tile("Mat", "float32", 16, 16), "TILE_NO_SPLIT")

    with pytest.raises(pto.ConstraintError) as err:
        dev.run(vec_tile_on_cube, fifo)
    assert err.value.rule == "fifo-tile" and "test_fifo.py:" in str(err.value)

    @pto.kernel(cores="mix")
    def push_on_consumer(fifo):
        pipe = pto.TPipe(0, "DIR_C2V", 4096, 1, fifo)
        if pto.is_vec():
            pto.TPUSH(pipe, pto.Tile("Vec", "float32", 16, 16), "TILE_NO_SPLIT")

    with pytest.raises(pto.ConstraintError) as err:
        dev.run(push_on_consumer, fifo)
    assert err.value.rule == "fifo-side"

    @pto.kernel(cores="mix")
    def flag_too_high(fifo):
        pto.TPipe(13, "DIR_BOTH", 4096, 1, fifo)

    with pytest.raises(pto.KernelError, match=r"flags 13\.\.16"):
        dev.run(flag_too_high, fifo)

    @pto.kernel(cores="vec")
    def vector_only(fifo):
        pto.TPUSH(pto.TPipe(0, "DIR_V2C", 4096, 1, fifo), pto.Tile("Vec", "float32", 16, 16))

    with pytest.raises(pto.ConstraintError) as err:
        dev.run(vector_only, fifo)
    assert err.value.rule == "fifo-launch"


def test_950_refuses_the_gm_forms_on_an_on_chip_pipe():
    """A 950 DIR_V2C pipe is on chip (tests/isa/cube/test_fifo_onchip.py): a GlobalTensor slot
    needs its GM-ring direction, DIR_V2C_GM; the form stops at its line naming it."""
    dev = pto.Device("950pr")

    @pto.kernel(cores="mix")
    def kern(fifo):
        pipe = pto.TPipe(0, "DIR_V2C", 4096, 1, fifo)
        if pto.is_vec():
            pto.TALLOC(pipe, pto.GlobalTensor(fifo, (16, 16)))

    with pytest.raises(pto.ConstraintError) as e:
        dev.run(kern, dev.gm_zeros((1024,), "float32"))
    assert e.value.rule == "fifo-form" and "DIR_V2C_GM" in str(e.value)
