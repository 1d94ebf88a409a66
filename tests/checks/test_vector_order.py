"""F207: two vector instructions where the later one reads (RAW) or overwrites (WAW) UB the
earlier one writes, with no pipe_barrier(PIPE_V) (or flag chain through another pipe) between
them. The A2/A3 vector pipe is pipelined (the library puts pipe_barrier(PIPE_V) between its own
dependent steps, reference/vector_isa.md 2.4), so the kernel must too. Reported on a2a3 and on
cpu (the portable view); the 950's reference gives no such rule, so not there."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim as pto

V, S, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_S, pto.PIPE_MTE2, pto.PIPE_MTE3
R, C = 8, 64
SHAPE = (1, 1, 1, R, C)


def _kernel(body):
    """TLOAD x; MTE2 -> V; ``body(x, t, u)`` on PIPE_V; V -> MTE3; TSTORE u."""

    @pto.kernel
    def k(x, out):
        xt, t, u = (pto.Tile("Vec", "float32", R, C) for _ in range(3))
        for tile, addr in ((xt, 0x0), (t, 0x1000), (u, 0x2000)):
            pto.TASSIGN(tile, addr)
        pto.TLOAD(xt, pto.GlobalTensor(x, SHAPE))
        pto.set_flag(MTE2, V, pto.EVENT_ID0)
        pto.wait_flag(MTE2, V, pto.EVENT_ID0)
        body(xt, t, u)
        pto.set_flag(V, MTE3, pto.EVENT_ID0)
        pto.wait_flag(V, MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, SHAPE), u)

    return k


def _findings(body, device: str):
    dev = pto.Device(device)
    x = dev.gm_array(np.random.default_rng(1).standard_normal((R, C)).astype(np.float32))
    out = dev.gm_zeros((R, C), "float32")
    res = dev.run(_kernel(body), x, out)
    return [f for f in res.findings if f.code == "F207"], res


def _raw(x, t, u):
    pto.TMULS(t, x, 2.0)
    pto.TADDS(u, t, 1.0)


def _raw_with_barrier(x, t, u):
    pto.TMULS(t, x, 2.0)
    pto.pipe_barrier(V)
    pto.TADDS(u, t, 1.0)


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_a_dependent_vector_instruction_without_a_barrier_is_reported(device):
    (f,), _ = _findings(_raw, device)
    assert f.kind == "vector-raw"
    assert "TADDS" in f.message and "TMULS" in f.message and "UB[0x1000, 0x1800)" in f.message
    assert "fix: pipe_barrier(PIPE_V) after TMULS" in f.message
    ((edit,),) = [f.fix]
    # right after the writer, where the barrier stands in the library's own chains
    assert (edit.action, edit.op, edit.where, edit.pipe) == (
        "insert",
        "pipe_barrier",
        "after",
        "PIPE_V",
    )


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
def test_the_barrier_orders_them(device):
    found, res = _findings(_raw_with_barrier, device)
    assert not found and not res.findings


def test_the_950_has_no_such_rule():
    found, _ = _findings(_raw, "950pr")
    assert not found


def test_two_writes_of_one_tile_without_a_barrier_are_a_waw():
    def body(x, t, u):
        pto.TEXPANDS(u, 0.0)
        pto.TADDS(u, x, 1.0)

    (f,), _ = _findings(body, "a2")
    assert f.kind == "vector-waw" and "overwrites UB[0x2000, 0x2800)" in f.message


def test_a_write_after_a_read_is_in_order():
    """The pipe reads its operands before a later instruction's results land: WAR is safe."""

    def body(x, t, u):
        pto.TADDS(u, x, 1.0)
        pto.TMULS(x, t, 0.0)  # overwrites x, which the TADDS read

    found, _ = _findings(body, "a2")
    assert not found


def test_a_flag_chain_through_another_pipe_orders_them():
    def body(x, t, u):
        pto.TMULS(t, x, 2.0)
        pto.set_flag(V, S, pto.EVENT_ID1)
        pto.wait_flag(V, S, pto.EVENT_ID1)
        pto.TADDS(u, t, 1.0)

    found, _ = _findings(body, "a2")
    assert not found


def test_stages_inside_one_instruction_are_told_apart():
    """Two TROWEXPANDMULs share the library's broadcast scratch (D10): each writes it, barriers,
    then reads it, so the second's read is ordered by its own barrier (not a finding)."""

    @pto.kernel
    def k(x, w, out):
        xt = pto.Tile("Vec", "float32", 16, C)
        wt = pto.Tile("Vec", "float32", 16, 1, blayout="ColMajor")
        y1, y2 = pto.Tile("Vec", "float32", 16, C), pto.Tile("Vec", "float32", 16, C)
        pto.TLOAD(xt, pto.GlobalTensor(x, (1, 1, 1, 16, C)))
        pto.TLOAD(wt, pto.GlobalTensor(w, (1, 1, 1, 16, 1), layout="DN"))
        pto.set_flag(MTE2, V, pto.EVENT_ID0)
        pto.wait_flag(MTE2, V, pto.EVENT_ID0)
        pto.TROWEXPANDMUL(y1, xt, wt)
        pto.TROWEXPANDMUL(y2, xt, wt)
        pto.set_flag(V, MTE3, pto.EVENT_ID0)
        pto.wait_flag(V, MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 16, C)), y2)

    dev = pto.Device("a2")
    res = dev.run(
        k, dev.gm_zeros((16, C), "float32"), dev.gm_zeros((16, 1), "float32"),
        dev.gm_zeros((16, C), "float32"),
    )  # fmt: skip
    assert not res.findings, [str(f) for f in res.findings]


def test_a_race_with_a_staged_instruction_names_each_pair_once():
    """TCOLSUM runs in stages on a2 (its own barriers between them); its race with a TSTORE
    missing V -> MTE3 is one clause, not one per stage."""

    @pto.kernel
    def k(x, out):
        t = pto.Tile("Vec", "float32", R, C)
        r = pto.Tile("Vec", "float32", 1, C)
        pto.TLOAD(t, pto.GlobalTensor(x, SHAPE))
        pto.set_flag(MTE2, V, pto.EVENT_ID0)
        pto.wait_flag(MTE2, V, pto.EVENT_ID0)
        pto.TCOLSUM(r, t)
        pto.TSTORE(pto.GlobalTensor(out, (1, 1, 1, 1, C)), r)

    dev = pto.Device("a2")
    res = dev.run(k, dev.gm_zeros((R, C), "float32"), dev.gm_zeros((1, C), "float32"))
    (f,) = [f for f in res.findings if f.code == "F203"]
    assert "(also" not in f.message, f.message
