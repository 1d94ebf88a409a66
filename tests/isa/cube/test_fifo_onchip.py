"""950: the on-chip TPipe. The cube core pushes accumulators through the fixpipe into the
vector cores' UB ring (a TMOV Acc -> Vec per push, split by rows or columns), the vector cores
pop (re-point their tile at the slot) and free with intra-block flags. Expected values: numpy
(small integers, exact in float32); the flag counts follow the library's a5 TPipe (the consumer
posts a period of free credits when the pipe is built, the producer waits a period of them
when it ends, besides the a2a3 credit rule)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

M, K, N = 32, 16, 32


def _kernel(split, tiles, *, free=True, direction="DIR_C2V"):
    vm = M // 2 if split == "TILE_UP_DOWN" else M
    vn = N // 2 if split == "TILE_LEFT_RIGHT" else N
    readers = (0,) if split == "TILE_NO_SPLIT" else (0, 1)

    @pto.kernel(cores="mix")
    def kern(a, b, out, ring):
        gm = ring if direction.endswith("_GM") else None
        with pto.TPipe(0, direction, vm * vn * 4 * 2, 2, gm, 0x0, 0x0,
                       no_split=split == "TILE_NO_SPLIT") as pipe:  # fmt: skip
            if pto.is_cube():
                am, bm = pto.TileMatNZ("float16", M, K), pto.TileMatNZ("float16", K, N)
                la, rb = pto.TileLeft("float16", M, K), pto.TileRight("float16", K, N)
                acc = pto.TileAcc("float32", M, N)
                pto.TASSIGN(am, 0x0)
                pto.TASSIGN(bm, 0x1000)
                for t in range(tiles):
                    pto.TLOAD(am, pto.GlobalTensor(a, (M, K), offset=t * M * K))
                    pto.TLOAD(bm, pto.GlobalTensor(b, (K, N)))
                    pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
                    pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, 0)
                    pto.TMOV(la, am)
                    pto.TMOV(rb, bm)
                    pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
                    pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, 0)
                    pto.TMATMUL(acc, la, rb)
                    pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
                    pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, 0)
                    pto.TPUSH(pipe, acc, split)
                    for dst in (pto.PIPE_MTE2, pto.PIPE_MTE1, pto.PIPE_M):  # acc, L1 reuse
                        pto.set_flag(pto.PIPE_FIX, dst, 0)
                        pto.wait_flag(pto.PIPE_FIX, dst, 0)
            elif pto.get_subblockid() in readers:
                sub = pto.get_subblockid()
                v = pto.Tile("Vec", "float32", vm, vn)
                o = pto.Tile("Vec", "float32", vm, vn)
                pto.TASSIGN(o, 0x10000)
                for t in range(tiles):
                    pto.TPOP(pipe, v, split)
                    if gm is not None:  # the GM ring's pop is a TLOAD (MTE2)
                        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
                        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
                    pto.TMULS(o, v, 2.0)
                    if free:
                        pto.TFREE(pipe, split=split)
                    pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
                    pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
                    r0 = t * M + (sub * vm if split == "TILE_UP_DOWN" else 0)
                    c0 = sub * vn if split == "TILE_LEFT_RIGHT" else 0
                    view = pto.GlobalTensor(out, (vm, vn), stride=(N, 1), offset=r0 * N + c0)
                    pto.TSTORE(view, o)
                    pto.set_flag(pto.PIPE_MTE3, pto.PIPE_V, 0)
                    pto.wait_flag(pto.PIPE_MTE3, pto.PIPE_V, 0)

    return kern


def _run(kernel, tiles):
    dev = pto.Device("950pr")
    a = (np.arange(tiles * M * K) % 7 - 3).reshape(tiles * M, K).astype(np.float16)
    b = (np.arange(K * N) % 5 - 2).reshape(K, N).astype(np.float16)
    out = dev.gm_zeros((tiles * M, N), "float32")
    run = dev.run(
        kernel, dev.gm_array(a), dev.gm_array(b), out, dev.gm_zeros((4 * M * N,), "float32")
    )
    return run, out.numpy(), 2 * (a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize("split", ["TILE_UP_DOWN", "TILE_LEFT_RIGHT", "TILE_NO_SPLIT"])
def test_c2v_push_pop_free_moves_each_tile_through_the_ub_ring(split):
    run, got, want = _run(_kernel(split, 2), 2)
    assert np.array_equal(got, want)
    # 2 tiles: no push waits; each vector core posts 2 credits when it builds the pipe and a
    # reader 1 more at its second TFREE; the cube core's destructor waits 2 per reader (AIV0
    # only with TILE_NO_SPLIT): credits are left over on both vector cores' free flags (the
    # library's a5 counting), and the checker says so, once per flag
    codes = sorted(f.code for f in run.findings)
    assert codes == ["F201", "F201"], [str(f) for f in run.findings]


def test_the_gm_ring_direction_moves_the_tiles_through_gm_with_intra_block_flags():
    """DIR_C2V_GM: the cube core's push is a fixpipe TSTORE into the GM slot, a vector core's
    pop a TLOAD of its half (waiting on PIPE_MTE2), the flags intra-block ones."""
    run, got, want = _run(_kernel("TILE_UP_DOWN", 2, direction="DIR_C2V_GM"), 2)
    assert np.array_equal(got, want)
    cube = next(b.program for b in run.blocks if b.role.is_cube)
    pushes = [i.opcode for i in cube if i.via == "TPUSH"]
    assert pushes[:3] == ["TSTORE", "SET_INTRA_BLOCK", "SET_INTRA_BLOCK"], pushes
    aiv0 = next(b.program for b in run.blocks if b.role.label.endswith("AIV0"))
    pops = [i for i in aiv0 if i.via == "TPOP"]
    assert (pops[0].opcode, pops[0].pipe) == ("WAIT_INTRA_BLOCK", pto.PIPE_MTE2)
    assert "TLOAD" in [i.opcode for i in pops]


def test_the_push_into_ub_is_the_fixpipe_on_pipe_fix():
    run, _, _ = _run(_kernel("TILE_UP_DOWN", 1), 1)
    cube = next(b.program for b in run.blocks if b.role.is_cube)
    pushes = [i for i in cube if i.via == "TPUSH"]
    assert [i.opcode for i in pushes] == ["TMOV", "SET_INTRA_BLOCK", "SET_INTRA_BLOCK"]
    assert pushes[0].nominal_pipe is pto.PIPE_FIX and pushes[0].cores == (0, 1)
    assert [(i.pipe, i.block_id) for i in pushes[1:]] == [(pto.PIPE_FIX, 0), (pto.PIPE_FIX, 16)]


def test_a_consumer_that_never_frees_deadlocks_the_producer():
    with pytest.raises(pto.DeadlockError) as e:
        _run(_kernel("TILE_UP_DOWN", 4, free=False), 4)
    assert e.value.code == "PTO400"
