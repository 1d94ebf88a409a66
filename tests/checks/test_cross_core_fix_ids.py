"""A 950 race between the cube core and a vector core of its AI core gets a fix in the ids each
side writes (the cube core sends F + 16 to reach AIV1), with the write first, and one missing
wait gives one finding per vector core, not one per later access the wait would also order."""

import numpy as np

import ptosim as pto

M = K = N = 16


def _acc_to_vec(wait: bool):
    @pto.kernel(cores="mix")
    def k(a, b, c):
        vec = pto.Tile("Vec", "float32", M // 2, N)
        pto.TASSIGN(vec, 0x0)
        if pto.is_cube():
            a_mat, b_mat = pto.TileMatNZ("float16", M, K), pto.TileMatNZ("float16", K, N)
            left, right = pto.TileLeft("float16", M, K), pto.TileRight("float16", K, N)
            acc = pto.TileAcc("float32", M, N)
            pto.TLOAD(a_mat, pto.GlobalTensor(a, (M, K)))
            pto.TLOAD(b_mat, pto.GlobalTensor(b, (K, N)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE1, pto.EVENT_ID0)
            pto.TMOV(left, a_mat)
            pto.TMOV(right, b_mat)
            pto.set_flag(pto.PIPE_MTE1, pto.PIPE_M, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE1, pto.PIPE_M, pto.EVENT_ID0)
            pto.TMATMUL(acc, left, right)
            pto.set_flag(pto.PIPE_M, pto.PIPE_FIX, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_M, pto.PIPE_FIX, pto.EVENT_ID0)
            pto.TMOV(vec, acc, acc_to_vec="DualModeSplitM")
            if wait:
                pto.set_intra_block(pto.PIPE_FIX, 2)
                pto.set_intra_block(pto.PIPE_FIX, 2 + 16)
        else:
            if wait:
                pto.wait_intra_block(pto.PIPE_V, 2)
            pto.TADDS(vec, vec, 1.0)
            pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, pto.EVENT_ID0)
            half = pto.get_subblockid() * (M // 2) * N
            pto.TSTORE(pto.GlobalTensor(c, (M // 2, N), offset=half), vec)

    return k


def _run(wait: bool):
    dev = pto.Device("950pr")
    x = (np.arange(M * K).reshape(M, K) % 5 - 2).astype(np.float16)
    y = (np.arange(K * N).reshape(K, N) % 3 - 1).astype(np.float16)
    c = dev.gm_zeros((M, N), "float32")
    run = dev.run(_acc_to_vec(wait), dev.gm_array(x), dev.gm_array(y), c)
    return run, c.numpy(), x.astype(np.float32) @ y.astype(np.float32) + 1


def test_the_handshake_written_as_the_docs_say_is_exact_and_clean():
    run, got, want = _run(wait=True)
    assert not run.findings, [str(f) for f in run.findings]
    np.testing.assert_array_equal(got, want)


def test_a_missing_intra_block_wait_is_one_race_per_vector_core_with_its_ids():
    run, _, _ = _run(wait=False)
    races = sorted((f for f in run.findings if f.code == "F205"), key=lambda f: f.message)
    assert len(races) == 2, [str(f) for f in run.findings]  # not the TSTOREs after the TADDS
    aiv0, aiv1 = (f.message for f in races)
    assert "block 0 AIV0 TADDS" in aiv0 and "block 0 AIV1 TADDS" in aiv1
    assert (
        "fix: set_intra_block(PIPE_FIX, F) on block 0 AIC after TMOV #" in aiv0
        and "wait_intra_block(PIPE_V, F) on block 0 AIV0 before TADDS #" in aiv0
    ), aiv0
    assert (
        "fix: set_intra_block(PIPE_FIX, F + 16) on block 0 AIC after TMOV #" in aiv1
        and "wait_intra_block(PIPE_V, F) on block 0 AIV1 before TADDS #" in aiv1
    ), aiv1


def test_a_vector_core_write_the_cube_core_reads_puts_the_post_on_the_vector_core():
    """AIV1 inserts into L1 and the cube core extracts from it with no flag: the write goes
    first, so AIV1 posts (its F arrives at the cube core as F + 16) and the cube waits."""

    @pto.kernel(cores="mix")
    def k(a):
        mat = pto.TileMatNZ("float16", 16, 16)
        pto.TASSIGN(mat, 0x0)
        if pto.is_cube():
            left = pto.TileLeft("float16", 16, 16)
            pto.TEXTRACT(left, mat, 0, 0)
        elif pto.get_subblockid() == 1:
            vec = pto.Tile("Vec", "float16", 16, 16)
            pto.TASSIGN(vec, 0x0)
            pto.TLOAD(vec, pto.GlobalTensor(a, (16, 16)))
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
            pto.TINSERT(mat, vec, 0, 0)

    dev = pto.Device("950pr")
    run = dev.run(k, dev.gm_zeros((16, 16), "float16"))
    (f,) = [f for f in run.findings if f.code == "F205"]
    msg = f.message
    assert "L1[" in msg and "of block 0 AIC" in msg, msg
    assert "fix: set_intra_block(PIPE_MTE3, F) on block 0 AIV1 after TINSERT" in msg, msg
    assert "wait_intra_block(PIPE_MTE1, F + 16) on block 0 AIC before TEXTRACT #" in msg, msg
