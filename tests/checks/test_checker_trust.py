"""Trustworthy verdicts of the happens-before checker (issue 10, items 8-13): scalar stores need
flags from PIPE_S, counting flags make reuse harmless unless it changes the pairing, fixes apply
together, hardware atomics across cores, same-pipe DMA ordering, the checker on cpu."""

import numpy as np
import pytest

import ptosim as pto
from ptosim.checks.fixes import apply_fixes
from ptosim.program import Program, record
from ptosim.run import run_blocks
from tests.helpers.paths import ROOT

V, S, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_S, pto.PIPE_MTE2, pto.PIPE_MTE3


def _codes(run):
    return sorted(f.code for f in run.findings)


# -- item 8: scalar stores are visible to another pipe only through a flag from PIPE_S ---------
def test_a5_scalar_scatter_then_load_needs_a_flag_from_pipe_s():
    """The 950 static (1, 1) MSCATTER fallback stores GM on PIPE_S and ends with S->V only: a
    TLOAD of the table issued after it is not ordered by issue order."""
    dev = pto.Device("950pr")
    table = dev.gm_zeros((1, 64), "float32")
    src = pto.Tile("Vec", "float32", 1, 8, valid=(1, 1))
    idx = pto.Tile("Vec", "int32", 1, 8, valid=(1, 1))
    back = pto.Tile("Vec", "float32", 1, 64)

    @pto.kernel
    def k(table):
        pto.TEXPANDS(src, 2.0)
        pto.TEXPANDS(idx, 3)
        pto.MSCATTER(pto.GlobalTensor(table, (1, 64)), src, idx, coalesce="elem")
        pto.TLOAD(back, pto.GlobalTensor(table, (1, 64)))

    run = dev.run(k, table)
    races = [f for f in run.findings if f.code == "F203" and "TLOAD" in f.message]
    assert len(races) == 1
    assert "writes it on PIPE_S" in races[0].message and "on PIPE_MTE2" in races[0].message


def test_a2_tscatter_then_tstore_without_v_to_mte3_names_the_scalar_stores():
    dev = pto.Device("a2")
    x = dev.gm_array(np.arange(64, dtype=np.float32).reshape(8, 8))
    out = dev.gm_zeros((8, 16), "float32")
    src = pto.Tile("Vec", "float32", 8, 8)
    dst = pto.Tile("Vec", "float32", 8, 16)

    @pto.kernel
    def k(x, out):
        pto.TLOAD(src, pto.GlobalTensor(x, (8, 8)))
        pto.set_flag(MTE2, V, 0)
        pto.wait_flag(MTE2, V, 0)
        pto.TSCATTER(dst, src, mask="P1010", axis="SCATTER_ROW")
        pto.TSTORE(pto.GlobalTensor(out, (8, 16)), dst)

    run = dev.run(k, x, out)
    (race,) = [f for f in run.findings if f.code == "F203"]
    assert "on PIPE_S" in race.message  # the scalar stores of the TSCATTER loop race too
    # one V -> MTE3 pair covers both: the TSCATTER's own S -> V chain carries the stores to V
    assert "fix: set_flag(PIPE_V, PIPE_MTE3" in race.message
    assert {(e.op, e.src, e.dst) for e in race.fix} == {
        ("set_flag", "PIPE_V", "PIPE_MTE3"),
        ("wait_flag", "PIPE_V", "PIPE_MTE3"),
    }


# -- item 9: F202 only where reuse changes something -------------------------------------------
def _ping_pong(tiles, ids):
    t, cols = 16, 64
    floor = pto.Tile("Vec", "float32", t, 1, blayout="ColMajor")
    xbuf = [pto.Tile("Vec", "float32", t, cols) for _ in range(2)]
    y = pto.Tile("Vec", "float32", t, cols)

    @pto.kernel
    def k(x, floors, out):
        def tin(i):
            return pto.GlobalTensor(x, shape=(1, 1, 1, t, cols), offset=i * t * cols)

        pto.TLOAD(floor, pto.GlobalTensor(floors, shape=(1, 1, 1, t, 1), layout="DN"))
        pto.set_flag(V, MTE2, ids[0])
        pto.set_flag(V, MTE2, ids[1])
        pto.set_flag(MTE3, V, 0)
        pto.wait_flag(V, MTE2, ids[0])
        pto.TLOAD(xbuf[0], tin(0))
        pto.set_flag(MTE2, V, ids[0])
        for i in range(tiles):
            b = i % 2
            if i + 1 < tiles:
                pto.wait_flag(V, MTE2, ids[1 - b])
                pto.TLOAD(xbuf[1 - b], tin(i + 1))
                pto.set_flag(MTE2, V, ids[1 - b])
            pto.wait_flag(MTE2, V, ids[b])
            pto.wait_flag(MTE3, V, 0)
            pto.TROWEXPANDMAX(y, xbuf[b], floor)
            pto.set_flag(V, MTE2, ids[b])
            pto.set_flag(V, MTE3, 0)
            pto.wait_flag(V, MTE3, 0)
            pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, t, cols), offset=i * t * cols), y)
            pto.set_flag(MTE3, V, 0)
        pto.wait_flag(V, MTE2, ids[0])
        pto.wait_flag(V, MTE2, ids[1])
        pto.wait_flag(MTE3, V, 0)

    return k


def _run_ping_pong(devname, ids):
    dev = pto.Device(devname)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    floors = rng.standard_normal((16, 1)).astype(np.float32)
    out = dev.gm_zeros((64, 64), "float32")
    run = dev.run(_ping_pong(4, ids), dev.gm_array(x), dev.gm_array(floors), out)
    return run, np.array_equal(out.numpy(), np.maximum(x, np.tile(floors, (4, 1))))


@pytest.mark.parametrize("devname", ("a2", "950pr"))
def test_one_id_for_both_buffers_is_paired_right_by_counting(devname):
    # counting pairs each wait with the post it means (exact result), but the reference forbids
    # setting an event its earlier post still occupies: one F208 per reused event
    run, exact = _run_ping_pong(devname, (0, 0))
    assert exact
    assert sorted(f.code for f in run.findings) == ["F208", "F208"]
    assert all("Event ID still occupied" in f.message for f in run.findings)
    clean, exact = _run_ping_pong(devname, (0, 1))
    assert clean.findings == [] and exact


def test_flag_depth_overflow_is_f202_when_configured(tmp_path):
    from ptosim.config import CONFIG_DIR

    text = (CONFIG_DIR / "a2.toml").read_text()
    config = tmp_path / "a2_depth1.toml"
    config.write_text(text.replace("event_ids = 8", "event_ids = 8\nflag_depth = 1", 1))
    run, _ = _run_ping_pong(str(config), (0, 0))
    # one id for both buffers is an F208 (reported once, not again for its depth)
    assert sorted(f.code for f in run.all_findings()) == ["F208", "F208"]
    run, _ = _run_ping_pong(str(config), (0, 1))
    assert run.findings == []


def test_library_chains_never_give_f202():
    """a2 MGATHER then MSCATTER: their internal PtoSetWaitFlag chains reuse EVENT_ID0."""
    dev = pto.Device("a2")
    table = dev.gm_array(np.arange(64 * 8, dtype=np.float32).reshape(64, 8))
    other = dev.gm_zeros((64, 8), "float32")
    idx_h = dev.gm_array(np.array([3, 1, 4, 5], np.int32))
    idx = pto.Tile("Vec", "int32", 1, 8, valid=(1, 4))
    rows = pto.Tile("Vec", "float32", 4, 8)

    @pto.kernel
    def k(table, other, idx_h):
        pto.TLOAD(idx, pto.GlobalTensor(idx_h, (1, 4)))
        pto.set_flag(MTE2, V, 0)
        pto.wait_flag(MTE2, V, 0)
        pto.MGATHER(rows, pto.GlobalTensor(table, (64, 8)), idx)
        pto.MSCATTER(pto.GlobalTensor(other, (64, 8)), rows, idx)

    run = dev.run(k, table, other, idx_h)
    assert run.findings == []
    assert np.array_equal(other.numpy()[[3, 1, 4, 5]], table.numpy()[[3, 1, 4, 5]])


def test_a_kernel_flag_paired_with_a_library_chain_names_the_instruction():
    dev = pto.Device("a2")
    src = pto.Tile("Vec", "float32", 8, 8)
    dst = pto.Tile("Vec", "float32", 8, 16)

    @pto.kernel
    def k():
        pto.TEXPANDS(src, 1.0)
        pto.set_flag(V, S, 0)  # the kernel's own V -> S event ...
        pto.TSCATTER(dst, src, mask="P1010", axis="SCATTER_ROW")  # ... and the library's V -> S
        pto.wait_flag(V, S, 0)

    run = dev.run(k)
    (f,) = [f for f in run.findings if f.code == "F202"]
    assert f.kind == "flag-library-collision"
    assert "internal flag chain of TSCATTER #2" in f.message and "EVENT_ID1" in f.message
    assert {(e.action, e.event_id) for e in f.fix} == {("retarget", 1)}


# -- item 10: every suggestion of a run applied together gives a clean, exact kernel -----------
def _record(kernel, dev, args, drop=()):
    program = record(kernel, dev.arch, args, {})
    if drop:
        kept = [i for i in program if i.position not in drop]
        for n, i in enumerate(kept):
            i.position = n
        program = Program(program.kernel_name, program.arch, instructions=kept)
    return program


def _fixed_run(devname, make, kernel, drop=()):
    """Run ``kernel`` (minus the instructions ``drop``), apply every fix, re-run from scratch."""
    dev = pto.Device(devname)
    args = make(dev)
    try:
        first = run_blocks([_record(kernel, dev, args, drop)], dev.config, dev.gm)
    except (pto.DeadlockError, pto.OutOfBoundsError):
        return None  # the mutant's race made it read a poisoned index, or it waits forever
    dev = pto.Device(devname)
    args = make(dev)
    fixed = apply_fixes(_record(kernel, dev, args, drop), first.findings)
    return first, run_blocks([fixed], dev.config, dev.gm), args


def _gallery():

    from ptosim.kernelfile import load

    root = ROOT / "examples"
    return root, load


@pytest.mark.parametrize("devname", ("a2", "950pr"))
@pytest.mark.parametrize(
    "name",
    (
        "missing_mte2_to_v",
        "missing_v_to_mte3",
        "reused_event_id",
        "wrong_pipe_pair",
        "missing_v_barrier",
    ),
)
def test_applying_every_fix_of_the_gallery_gives_a_clean_exact_kernel(name, devname):
    root, load = _gallery()
    spec = load(f"{root / 'bugs' / name}.py:buggy")

    def make(dev):
        return spec.build_inputs(dev)[0]

    first, second, args = _fixed_run(devname, make, spec.kernel)
    # (missing_v_barrier has no finding on the 950: nothing to repair there)
    assert bool(first.findings) == bool(spec.module.EXPECTED[devname])
    assert all(f.fix or f.patch for f in first.findings)
    assert second.findings == [], [str(f) for f in second.findings]
    assert spec.check(pto.Device(devname), args, second) is True


def _flag_positions(program):
    from ptosim.isa.sync import PipeBarrier, SetFlag, WaitFlag

    return [i.position for i in program if isinstance(i, (SetFlag, WaitFlag, PipeBarrier))]


EXAMPLE_KERNELS = [
    ("embedding_lookup", "embedding_lookup"),
    ("row_floor_clamp", "mode1"),
    ("tscatter_interleave", "tscatter_interleave"),
    ("moe_dispatch_combine", "combine"),
]
# The scatters without their pipe_barrier(PIPE_ALL) are still ordered on a2 by MSCATTER's own
# MTE2 -> S prologue (no finding to repair); on the 950 the dispatch's SIMT launch races.
MUTANT_CASES = [(f, k, d) for f, k in EXAMPLE_KERNELS for d in ("a2", "950pr")] + [
    ("moe_dispatch_combine", "dispatch", "950pr")
]


@pytest.mark.parametrize("file, kernel, devname", MUTANT_CASES)
def test_mutants_without_their_flags_are_repaired_by_their_fixes(file, kernel, devname):
    """Mutants of the correct examples: all their sync dropped, and each one flag pair dropped."""
    root, load = _gallery()
    spec = load(f"{root / file}.py:{kernel}")

    def make(dev):
        return spec.build_inputs(dev)[0]

    dev = pto.Device(devname)
    flags = _flag_positions(_record(spec.kernel, dev, make(dev)))
    mutants = [set(flags)] + [{a, b} for a, b in zip(flags, flags[1:])]
    repaired = 0
    for drop in mutants:
        got = _fixed_run(devname, make, spec.kernel, drop)
        if got is None:
            continue
        first, second, args = got
        repaired += bool(first.findings)
        assert second.findings == [], (drop, [str(f) for f in second.findings])
        assert spec.check(pto.Device(devname), args, second) is True, drop
    assert repaired


def test_a_loop_carried_fix_says_to_prime_the_first_wait():
    """The ping-pong without its MTE3 -> V events: y is rewritten while TSTORE reads it."""
    dev = pto.Device("a2")
    rng = np.random.default_rng(0)
    x = dev.gm_array(rng.standard_normal((64, 64)).astype(np.float32))
    floors = dev.gm_array(rng.standard_normal((16, 1)).astype(np.float32))
    out = dev.gm_zeros((64, 64), "float32")
    kernel = _ping_pong(4, (0, 1))
    program = record(kernel, dev.arch, (x, floors, out), {})
    from ptosim.isa.sync import SetFlag, WaitFlag

    drop = {
        i.position
        for i in program
        if isinstance(i, (SetFlag, WaitFlag)) and (i.src, i.dst) == (MTE3, V)
    }
    run = run_blocks([_record(kernel, dev, (x, floors, out), drop)], dev.config, dev.gm)
    war = [f for f in run.findings if f.kind == "race-war"]
    assert war and all("prime it with set_flag(PIPE_MTE3, PIPE_V" in f.message for f in war)


def test_unconsumed_set_names_its_source_line_and_where_to_wait():
    @pto.kernel
    def k():
        pto.set_flag(V, MTE3, 2)

    run = pto.Device("a2").run(k)
    (f,) = run.findings
    assert f.code == "F201" and "test_checker_trust.py:" in f.message
    assert "after SET_FLAG #0" in f.message
    # the fix as an edit of the file: the drain wait after the set's line (the kernel's end)
    (edit,) = f.patch
    line = k.func.__code__.co_firstlineno + 2  # @pto.kernel, def, then the set_flag
    assert (edit.action, edit.op, edit.where) == ("insert", "wait_flag", "after")
    assert edit.line == f"test_checker_trust.py:{line}"


# -- item 11: hardware atomics across cores -----------------------------------------------------
def _scatter_add_two_cores(devname, coalesce):
    dev = pto.Device(devname)
    table = dev.gm_zeros((16, 8), "float32")
    src_h = dev.gm_array(np.full((2, 8), 1.5, np.float32))
    shape = (1, 2) if coalesce == "row" else (2, 8)
    elem_idx = np.arange(16, dtype=np.int32).reshape(2, 8) * 3
    idx_h = dev.gm_array(np.array([[3, 7]], np.int32) if coalesce == "row" else elem_idx)
    src = pto.Tile("Vec", "float32", 2, 8)
    idx = pto.Tile("Vec", "int32", shape[0], 8, valid=shape)

    @pto.kernel
    def k(table, src_h, idx_h):
        pto.TLOAD(src, pto.GlobalTensor(src_h, (2, 8)))
        pto.TLOAD(idx, pto.GlobalTensor(idx_h, shape))
        pto.pipe_barrier(pto.PIPE_ALL)
        pto.MSCATTER(
            pto.GlobalTensor(table, (16, 8) if coalesce == "row" else (1, 128)),
            src,
            idx,
            coalesce=coalesce,
            atomic="add",
        )

    run = dev.run(k, table, src_h, idx_h, block_dim=2)
    return run, table.numpy()


@pytest.mark.parametrize("devname", ("a2", "950pr"))
def test_row_atomic_add_from_two_cores_both_land_without_f205(devname):
    run, table = _scatter_add_two_cores(devname, "row")
    assert "F205" not in _codes(run)
    assert (table[[3, 7]] == 3.0).all() and table.sum() == 3.0 * 16
    # the a2a3 Elem Add is a scalar read-modify-write: not atomic across cores
    run, _ = _scatter_add_two_cores("a2", "elem")
    assert "F205" in _codes(run)


def test_a5_elem_atomic_add_from_two_cores_both_land():
    run, table = _scatter_add_two_cores("950pr", "elem")
    assert "F205" not in _codes(run)
    assert table.reshape(-1)[::3][:16].tolist() == [3.0] * 16


# -- item 12: same-pipe GM ordering ---------------------------------------------------------------
def test_two_tstores_to_overlapping_gm_need_a_barrier():
    def run_with(barrier):
        dev = pto.Device("a2")
        out = dev.gm_zeros((8, 8), "float32")
        a, b = pto.Tile("Vec", "float32", 8, 8), pto.Tile("Vec", "float32", 8, 8)

        @pto.kernel
        def k(out):
            pto.TEXPANDS(a, 1.0)
            pto.TEXPANDS(b, 2.0)
            pto.set_flag(V, MTE3, 0)
            pto.wait_flag(V, MTE3, 0)
            pto.TSTORE(pto.GlobalTensor(out, (8, 8)), a)
            if barrier:
                pto.pipe_barrier(MTE3)
            pto.TSTORE(pto.GlobalTensor(out, (8, 8)), b)

        return dev.run(k, out)

    (f,) = run_with(barrier=False).findings
    assert f.code == "F206" and "pipe_barrier(PIPE_MTE3) after TSTORE #4" in f.message
    assert run_with(barrier=True).findings == []


# -- item 13: the checker on cpu ------------------------------------------------------------------
def test_the_checker_runs_on_cpu():
    dev = pto.Device("cpu")
    src = dev.gm_array(np.ones((16, 16), np.float32))
    out = dev.gm_zeros((16, 16), "float32")
    t = pto.Tile("Vec", "float32", 16, 16)

    @pto.kernel
    def copy(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)

    run = dev.run(copy, src, out)
    (race,) = run.findings
    assert race.code == "F203" and "set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0)" in race.message
