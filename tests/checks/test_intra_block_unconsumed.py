"""F201 for 950 intra-block posts that no wait_intra_block consumes speaks the user's ids and
API: the post the cube core sends with id 19 reaches AIV1 as id 3, so the fix on AIV1 is
wait_intra_block(pipe, 3) (never the internal flag key 64 + id, never wait_flag_dev), and the
suggested edit, applied, leaves a run without the finding."""

import pytest

import ptosim as pto
from ptosim.checks.fixes import apply_fixes


def _posts_only(waiting=()):
    @pto.kernel(cores="mix")
    def k():
        if pto.is_cube():
            pto.set_intra_block(pto.PIPE_S, 3)  # reaches AIV0 as id 3
            pto.set_intra_block(pto.PIPE_S, 3 + 16)  # reaches AIV1 as id 3
        else:
            if pto.get_subblockid() in waiting:
                pto.wait_intra_block(pto.PIPE_S, 3)
            t = pto.Tile("Vec", "float32", 8, 64)
            pto.TASSIGN(t, 0)
            pto.TEXPANDS(t, 1.0)

    return k


def _unconsumed(run):
    return [f for f in run.findings if f.kind == "cross-flag-unconsumed"]


@pytest.mark.parametrize("device", ["950pr", "950dt"])
def test_an_intra_block_post_nobody_waits_for_names_the_ids_and_the_wait(device):
    run = pto.Device(device).run(_posts_only())
    found = sorted(_unconsumed(run), key=lambda f: f.message)
    assert [f.code for f in found] == ["F201", "F201"], [str(f) for f in run.findings]
    for f, sub, sent in ((found[0], 0, 3), (found[1], 1, 19)):
        msg = f.message
        assert msg.startswith(f"block 0 AIV{sub}: 1 post(s) of set_intra_block(pipe, {sent})")
        assert "from block 0 AIC" in msg and "reach it as id 3" in msg, msg
        assert f"wait_intra_block(pipe, 3) on block 0 AIV{sub}" in msg, msg
        assert "wait_flag_dev" not in msg and "67" not in msg and "ffts" not in msg, msg
        (edit,) = f.fix
        assert (edit.op, edit.event_id, edit.pipe) == ("wait_intra_block", 3, "PIPE_S")
        assert "wait_intra_block(PIPE_S, 3)" in edit.describe()


def test_one_vector_core_waiting_leaves_the_other_reported():
    run = pto.Device("950pr").run(_posts_only(waiting=(0,)))
    (f,) = _unconsumed(run)
    assert f.message.startswith("block 0 AIV1: 1 post(s) of set_intra_block(pipe, 19)")


def test_the_suggested_wait_removes_the_finding():
    dev = pto.Device("950pr")
    run = dev.run(_posts_only())
    found = _unconsumed(run)
    fixed = [apply_fixes(b.program, [f for f in found if f.message.startswith(f"{b.role.label}:")])
             for b in run.blocks]  # fmt: skip
    assert [i.opcode for i in fixed[1]][-1] == "WAIT_INTRA_BLOCK"
    assert [i.opcode for i in fixed[2]][-1] == "WAIT_INTRA_BLOCK"
    again = dev.run(fixed)
    assert not again.findings, [str(f) for f in again.findings]


def test_a_wait_released_by_an_intra_block_post_is_named_as_written():
    """The hand-off lines of the summary name the wait as the kernel wrote it."""
    run = pto.Device("950pr").run(_posts_only(waiting=(0, 1)))
    assert not run.findings, [str(f) for f in run.findings]
    texts = [w.what for w in run.trace.waits]
    assert "wait_intra_block(PIPE_S, 3) (released by block 0 AIC)" in texts, texts
    assert not any("wait_flag_dev" in t for t in texts), texts
