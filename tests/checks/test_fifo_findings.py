"""The checker across the AI core for the cube <-> vector FIFO (TPipe): a wait no TFREE, TPOP
or TPUSH will satisfy is a deadlock whose finding names both sides and the missing operation
with the fix; a TILE_NO_SPLIT vector -> cube push issued by both vector cores is a finding
with the fix (reference/cube_isa.md 6)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

N = 64
TILES = 4


def _v2c_stream(*, free=True, pops=TILES, pushes=TILES):
    """Each vector core pushes ``pushes`` rows (GlobalTensor form: TALLOC, TSTORE, TPUSH) into
    a 2-slot V2C pipe; the cube pops ``pops`` 2-row tiles, loads and stores them."""

    @pto.kernel(cores="mix")
    def kern(src, out, fifo):
        with pto.TPipe(2, "DIR_V2C", 2 * N * 4, 2, fifo) as pipe:
            if pto.is_vec():
                v = pto.Tile("Vec", "float32", 1, N)
                sub = pto.get_subblockid()
                pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                for t in range(pushes):
                    slot = pto.GlobalTensor(fifo, (1, N))
                    pto.TALLOC(pipe, slot, "TILE_UP_DOWN")
                    pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                    pto.TLOAD(v, pto.GlobalTensor(src, (1, N), offset=(2 * t + sub) * N))
                    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                    pto.TSTORE(slot, v)
                    pto.TPUSH(pipe, slot)
                    pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
            else:
                m = pto.Tile("Mat", "float32", 2, N)
                pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                for t in range(pops):
                    slot = pto.GlobalTensor(fifo, (2, N))
                    pto.TPOP(pipe, slot, "TILE_UP_DOWN")
                    pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                    pto.TLOAD(m, slot)
                    if free:
                        pto.TFREE(pipe, slot, "TILE_UP_DOWN")
                    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                    pto.TSTORE(pto.GlobalTensor(out, (2, N), offset=2 * t * N), m)
                    pto.set_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)
                pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_MTE2, 0)

    return kern


def _run(device, kern):
    dev = pto.Device(device)
    src = np.arange(TILES * 2 * N, dtype=np.float32)
    out = dev.gm_zeros((TILES * 2, N), "float32")
    run = dev.run(kern, dev.gm_array(src), out, dev.gm_zeros((2 * 2 * N,), "float32"))
    return run, out.numpy().ravel(), src


@pytest.mark.parametrize("device", ("a2", "cpu"))
def test_the_correct_stream_is_exact_and_finding_free(device):
    run, out, src = _run(device, _v2c_stream())
    assert np.array_equal(out, src) and run.findings == []


@pytest.mark.parametrize("device", ("a2", "a3", "cpu"))
def test_a_missing_tfree_is_a_deadlock_naming_both_sides_and_the_fix(device):
    with pytest.raises(pto.DeadlockError) as err:
        _run(device, _v2c_stream(free=False))
    text = " ".join(str(err.value).split())
    # the producer side: each vector core's TALLOC waits for a free slot of tile 2
    for aiv in ("block 0 AIV0", "block 0 AIV1"):
        assert (
            f"{aiv}: TALLOC:WAIT_FLAG_DEV #15 (test_fifo_findings.py:30) waits for cross-core "
            "flag 3" in text
        )
    assert (
        "TALLOC of tile 2 on TPipe(flag 2, DIR_V2C, 2 slots of 512 B) waits for a free slot" in text
    )
    # the consumer side and the fix: the cube's GlobalTensor TPOPs without TFREE
    assert "but block 0 AIC popped" in text and "freed 0 time(s)" in text
    assert (
        "fix: call TFREE(pipe, gm) on block 0 AIC after its loads from the slot of TPOP "
        "(test_fifo_findings.py:44)" in text
    )


def test_a_missing_tpop_is_a_deadlock_naming_the_consumer_and_the_fix():
    with pytest.raises(pto.DeadlockError) as err:
        _run("a2", _v2c_stream(pops=2))
    text = " ".join(str(err.value).split())
    assert (
        "the TPipe destructor on TPipe(flag 2, DIR_V2C, 2 slots of 512 B) waits for a free slot"
        in text
    )
    assert "but block 0 AIC pops only 2 tile(s)" in text
    assert "fix: add the missing TPOP on block 0 AIC, or push fewer tiles on block 0 AIV0" in text


def test_a_missing_tpush_is_a_deadlock_naming_the_producer_and_the_fix():
    with pytest.raises(pto.DeadlockError) as err:
        _run("a2", _v2c_stream(pushes=3))
    text = " ".join(str(err.value).split())
    assert (
        "TPOP of tile 2 on TPipe(flag 2, DIR_V2C, 2 slots of 512 B) waits for its data" not in text
    )
    assert "TPOP of tile 3 on TPipe(flag 2, DIR_V2C, 2 slots of 512 B) waits for its data" in text
    assert "but block 0 AIV0 pushes only 3 tile(s) on it" in text
    assert (
        "fix: add the missing TPUSH on block 0 AIV0, or remove the extra TPOP on block 0 AIC"
        in text
    )


def _no_split_v2c(*, fixed: bool):
    """Both vector cores push a 16 x 32 half tile with TILE_NO_SPLIT (the tile is AIV0's; AIV1
    holds zeros); ``fixed``: AIV0 alone stores into the slot, both signal."""
    m, n = 16, 32

    @pto.kernel(cores="mix")
    def kern(x, out, fifo):
        with pto.TPipe(0, "DIR_V2C", m * n * 2, 1, fifo) as pipe:
            if pto.is_vec():
                sub = pto.get_subblockid()
                v = pto.Tile("Vec", "float16", m, n)
                pto.TLOAD(v, pto.GlobalTensor(x, (m, n), offset=sub * m * n))
                pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                if fixed:
                    slot = pto.GlobalTensor(fifo, (m, n))
                    pto.TALLOC(pipe, slot, "TILE_NO_SPLIT")
                    if sub == 0:
                        pto.TSTORE(slot, v)
                    pto.TPUSH(pipe, slot)
                else:
                    pto.TPUSH(pipe, v, "TILE_NO_SPLIT")
            else:
                mat = pto.TileMatNZ("float16", m, n)
                pto.TPOP(pipe, mat, "TILE_NO_SPLIT")
                pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, 0)
                pto.TSTORE(pto.GlobalTensor(out, (1, n // 16, m // 16, 16, 16), layout="NZ"), mat)

    return kern


def test_a_no_split_vector_to_cube_push_from_both_aivs_is_a_finding_with_the_fix():
    m, n = 16, 32
    x = np.concatenate([np.full((m, n), 3, np.float16), np.zeros((m, n), np.float16)])
    dev = pto.Device("a2")
    for fixed in (False, True):
        out = dev.gm_zeros((m * n,), "float16")
        run = dev.run(_no_split_v2c(fixed=fixed), dev.gm_array(x), out,
                      dev.gm_zeros((m * n,), "float16"))  # fmt: skip
        if fixed:
            assert run.findings == [] and (out.numpy() == 3).all()
            continue
        kinds = [(f.code, f.kind) for f in run.findings]
        assert kinds == [("F205", "fifo-no-split-push")], [str(f) for f in run.findings]
        text = " ".join(run.findings[0].message.split())
        assert "block 0 AIV0 TPUSH:TSTORE" in text and "block 0 AIV1 TPUSH:TSTORE" in text
        assert "same slot of TPipe(flag 0, DIR_V2C, 1 slots of 1024 B)" in text
        assert "fix: split the tile between the vector cores" in text
        assert "TSTORE(gm, tile) if get_subblockid() == 0, then TPUSH(pipe, gm) on both" in text


def test_the_cpu_simulator_skips_the_second_lane_of_a_no_split_push():
    """cpu follows the CPU simulator: AIV1 is an inactive lane of a TILE_NO_SPLIT vector ->
    cube push, so AIV0's tile arrives (on a2 AIV1's zeros may land last)."""
    m, n = 16, 32
    x = np.concatenate([np.full((m, n), 3, np.float16), np.zeros((m, n), np.float16)])
    dev = pto.Device("cpu")
    out = dev.gm_zeros((m * n,), "float16")
    run = dev.run(_no_split_v2c(fixed=False), dev.gm_array(x), out,
                  dev.gm_zeros((m * n,), "float16"))  # fmt: skip
    assert (out.numpy() == 3).all() and run.findings == []
