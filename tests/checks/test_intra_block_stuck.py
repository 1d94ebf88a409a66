"""F209 for a 950 wait_intra_block that never returns names the user's id and the one core that
can post it. The routing (the library's a5 SyncAll: the cube waits id 12 from AIV0 and 12 + 16
from AIV1; TSync posts id and id + 16 from the cube to reach both vector cores): the cube
core's ids 0-15 come from AIV0 and 16-31 from AIV1 (sent as id - 16); AIVk's id comes from the
cube core's set_intra_block(id + 16 k)."""

import pytest

import ptosim as pto


def _f209(body):
    """The F209 findings of a mixed 950 kernel that deadlocks."""
    with pytest.raises(pto.DeadlockError) as e:
        pto.Device("950pr").run(pto.kernel(cores="mix")(body))
    found = [f for f in e.value.findings if f.code == "F209"]
    assert len(found) == 1, [str(f) for f in e.value.findings]
    return found[0].message


@pytest.mark.parametrize(
    "waiter, waited, poster, sent",
    [("AIC", 5, "AIV0", 5), ("AIC", 20, "AIV1", 4), ("AIV0", 3, "AIC", 3), ("AIV1", 3, "AIC", 19)],
)
def test_a_wait_nobody_posts_names_its_id_and_the_sender(waiter, waited, poster, sent):
    def body():
        me = "AIC" if pto.is_cube() else f"AIV{pto.get_subblockid()}"
        if me == waiter:
            pto.wait_intra_block(pto.PIPE_S, waited)

    msg = _f209(body)
    assert f"block 0 {waiter}: WAIT_INTRA_BLOCK" in msg
    assert f"waits for intra-block id {waited} from block 0 {poster}" in msg
    assert f"block 0 {poster} never posts set_intra_block(pipe, {sent})" in msg
    assert "flag 6" not in msg and "flag 8" not in msg  # no internal key (64 + id)
    assert "ffts_cross_core_sync" not in msg


def test_a_post_to_the_other_vector_core_is_named():
    def body():
        if pto.is_cube():
            pto.set_intra_block(pto.PIPE_S, 3)  # to-aiv0: reaches AIV0 as id 3
        elif pto.get_subblockid() == 1:
            pto.wait_intra_block(pto.PIPE_S, 3)  # needs the cube's id 19

    msg = _f209(body)
    assert "block 0 AIC never posts set_intra_block(pipe, 19)" in msg
    assert "SET_INTRA_BLOCK" in msg and "reaches block 0 AIV0 instead" in msg


def test_one_wait_too_many():
    def body():
        if not pto.is_cube() and pto.get_subblockid() == 0:
            pto.set_intra_block(pto.PIPE_S, 2)  # reaches the cube as id 2
        elif pto.is_cube():
            pto.wait_intra_block(pto.PIPE_S, 2)
            pto.wait_intra_block(pto.PIPE_S, 2)

    msg = _f209(body)
    assert "waits for intra-block id 2 from block 0 AIV0" in msg
    assert "every set_intra_block(pipe, 2) from block 0 AIV0 (1) is consumed" in msg
