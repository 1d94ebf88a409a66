"""A timed run that fails (out-of-bounds index, ...) after a race on the data the failing
instruction read reports the race first: the stale data is a symptom, the missing flag is the
defect. A deadlock keeps its other findings and the trace up to the stuck state."""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.devices import NPU_DEVICES

TABLE_ROWS, WIDTH, ROWS = 64, 16, 4


def _gather_kernel(sync: str):
    """The real A2/A3 bug: TLOAD of the index tile, ``pipe_barrier(PIPE_MTE2)`` (which orders
    nothing for the scalar unit that reads the indices), then MGATHER Row with the default
    (Undefined) OOB policy. The stale UB index (poison 0xFFFFFFFF) is past the table."""
    dst = pto.Tile("Vec", "float32", ROWS, WIDTH, name="dst")
    idx = pto.Tile("Vec", "int32", 1, 8, valid=(1, ROWS), name="idx")

    @pto.kernel
    def gather(table, index, out):
        pto.TLOAD(idx, pto.GlobalTensor(index, (1, ROWS)))
        if sync == "barrier":
            pto.pipe_barrier(pto.PIPE_MTE2)
        elif sync == "flag":
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
            pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, 0)
        pto.MGATHER(dst, pto.GlobalTensor(table, (TABLE_ROWS, WIDTH)), idx)
        pto.set_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.wait_flag(pto.PIPE_V, pto.PIPE_MTE3, 0)
        pto.TSTORE(pto.GlobalTensor(out, (ROWS, WIDTH)), dst)

    return gather


def _run_gather(devname: str, sync: str, rows=(5, 0, 63, 7)):
    dev = pto.Device(devname)
    table = dev.gm_array(np.arange(TABLE_ROWS * WIDTH, dtype=np.float32).reshape(-1, WIDTH))
    index = dev.gm_array(np.array(rows, np.int32))
    out = dev.gm_zeros((ROWS, WIDTH), "float32")
    run = dev.run(_gather_kernel(sync), table, index, out)
    return run, table.numpy()[list(rows)], out.numpy()


@pytest.mark.parametrize("devname", NPU_DEVICES)
def test_stale_index_failure_reports_the_race_first(devname):
    with pytest.raises(pto.PtoSimError) as e:
        _run_gather(devname, "barrier")
    err = e.value
    msg = str(err)
    # the message leads with the race: what was read, by whom, raced by which write
    assert err.code == "PTO402", msg
    assert msg.startswith("[PTO402] operand 'idx' read by MGATHER #2 (test_failure_findings.py:")
    assert " races TLOAD #0 (test_failure_findings.py:" in msg
    assert msg.index("races TLOAD #0") < msg.index("PTO202")
    assert "missing set_flag(PIPE_MTE2, " in msg
    # the original error is the cause and its code stays available
    assert isinstance(err.__cause__, pto.OutOfBoundsError)
    assert err.original is err.__cause__ and err.original_code == "PTO202"
    assert "4294967295" in msg  # the stale value the original error reported
    # the findings are carried: the race between the index load and the gather
    races = [f for f in err.findings if f.code == "F203"]
    assert any(f.instructions == (0, 2) and f.kind == "race-raw" for f in races), races


@pytest.mark.parametrize("devname", ["a2", "950pr"])
def test_flag_ordered_gather_is_exact_and_a_real_bad_index_keeps_its_error(devname):
    run, want, got = _run_gather(devname, "flag")
    assert run.findings == [] and np.array_equal(got, want)
    # a genuinely out-of-range index in a synchronised kernel: no race, the original error
    with pytest.raises(pto.OutOfBoundsError) as e:
        _run_gather(devname, "flag", rows=(5, 0, 64, 7))
    assert type(e.value) is pto.OutOfBoundsError and e.value.code == "PTO202"
    # ... while the same kernel with the stale index fails on the race
    with pytest.raises(pto.PtoSimError) as e:
        _run_gather(devname, "barrier")
    assert e.value.code == "PTO402"


def test_any_failing_instruction_reads_racing_data_tscatter_past_ub():
    """Generalisation: a TSCATTER whose index tile is loaded without MTE2 -> V reads the UB
    poison as an index past the end of UB (OutOfBoundsError at execution)."""
    dev = pto.Device("a2")
    idx_h = dev.gm_array(np.arange(64, dtype=np.int32).reshape(1, 64))
    dst = pto.Tile("Vec", "int32", 1, 64, name="dst")
    src = pto.Tile("Vec", "int32", 1, 64, name="src")
    idx = pto.Tile("Vec", "int32", 1, 64, name="idx")

    @pto.kernel
    def k(idx_h):
        pto.TEXPANDS(src, 1)
        pto.TLOAD(idx, pto.GlobalTensor(idx_h, (1, 64)))
        pto.TSCATTER(dst, src, idx)

    with pytest.raises(pto.PtoSimError) as e:
        dev.run(k, idx_h)
    err = e.value
    assert err.code == "PTO402", str(err)
    assert "operand 'idx' read by TSCATTER #2" in str(err) and "races TLOAD #1" in str(err)
    assert err.original_code == "PTO202"
    assert any(f.code == "F203" and f.instructions == (1, 2) for f in err.findings)


def _mistyped_event_kernel():
    t = pto.Tile("Vec", "float32", 16, 16, name="t")

    @pto.kernel
    def mistyped(src, out):
        pto.TLOAD(t, pto.GlobalTensor(src, (16, 16)))
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID1)  # meant EVENT_ID0
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_MTE3, pto.EVENT_ID0)
        pto.TSTORE(pto.GlobalTensor(out, (16, 16)), t)

    return mistyped


def test_deadlock_reports_other_findings_and_keeps_the_partial_run(tmp_path):
    dev = pto.Device("a2")
    src, out = dev.gm_zeros((16, 16), "float32"), dev.gm_zeros((16, 16), "float32")
    with pytest.raises(pto.DeadlockError) as e:
        dev.run(_mistyped_event_kernel(), src, out)
    err = e.value
    msg = str(err)
    assert err.code == "PTO400"
    assert "PIPE_MTE3 blocked in wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0)" in msg
    # the cause, reported with the deadlock: the mistyped id (the wait and the set name each
    # other); the unconsumed post of the mistyped id is one of its consequences
    from ptosim.findings import flatten

    cause = err.findings[0]
    assert cause.kind == "wrong-event" and cause.message in msg
    assert "posts (PIPE_MTE2, PIPE_MTE3, EVENT_ID1)" in cause.message
    (post,) = [f for f in flatten(err.findings) if f.code == "F201"]
    assert post in cause.consequences
    assert "set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1) posted by #1" in post.message
    # the partial run: the trace up to the stuck state
    part = err.partial_run
    assert part is not None and part.findings == err.findings
    assert any(s.instr.opcode == "TLOAD" and s.start is not None for s in part.instructions)
    assert part.cycles >= max(s.end for s in part.instructions)
    assert "stopped early: deadlock at cycle" in part.summary()
    part.write_trace(tmp_path / "deadlock.json")
    assert (tmp_path / "deadlock.json").stat().st_size > 0


def test_planning_failure_uses_the_failing_instructions_declared_reads(monkeypatch):
    """A data-dependent plan whose Deferred part (built by PIPE_S after the prologue waits)
    reads the index tile and raises issues no step that reads it: the analysis then uses the
    instruction's declared read operands on PIPE_S, where the planning ran."""
    import ptosim.targets as targets
    from ptosim.plan import Deferred

    real = targets.planner

    def raising_build(instr):
        def build(ctx):
            raw = ctx.ub.typed(instr.idx.address, instr.idx.dtype, 1)
            raise pto.OutOfBoundsError(f"{instr.label}: planned index {int(raw[0])}")

        return build

    def planner(target):
        inner = real(target)

        def plan(instr, ctx):
            steps = inner(instr, ctx)
            if instr.opcode != "MGATHER":
                return steps
            return [Deferred(raising_build(instr)) if isinstance(s, Deferred) else s for s in steps]

        return plan

    monkeypatch.setattr(targets, "planner", planner)
    with pytest.raises(pto.PtoSimError) as e:
        _run_gather("a2", "barrier")
    err = e.value
    assert err.code == "PTO402" and err.original_code == "PTO202", str(err)
    assert "operand 'idx' read by MGATHER #2" in str(err) and "on PIPE_S races TLOAD #0" in str(err)
    assert "missing set_flag(PIPE_MTE2, PIPE_S)" in str(err)
    # MTE2 -> V then the gather's own V -> S prologue order the read: the original error
    with pytest.raises(pto.OutOfBoundsError, match="planned index 5"):
        _run_gather("a2", "flag")


def test_an_instruction_without_a_plan_keeps_its_unsupported_error(monkeypatch):
    """A static failure (no timing plan on the target) is not blamed on a race."""
    import ptosim.targets as targets

    real = targets.planner

    def planner(family):
        plan = real(family)

        def without_tstore(instr, ctx):
            if instr.opcode == "TSTORE":
                raise pto.UnsupportedError(
                    "TSTORE", "instruction", "a2a3-plan", "a plan", "no plan here (test)"
                )
            return plan(instr, ctx)

        return without_tstore if plan is not None else None

    monkeypatch.setattr(targets, "planner", planner)
    dev = pto.Device("a2")
    src = dev.gm_array(np.ones((16, 16), np.float32))
    dst = dev.gm_zeros((16, 16), "float32")

    @pto.kernel
    def k(src, dst):
        t = pto.Tile("Vec", "float32", 16, 16)
        pto.TLOAD(t, pto.GlobalTensor(src, shape=(1, 1, 1, 16, 16)))
        pto.TSTORE(pto.GlobalTensor(dst, shape=(1, 1, 1, 16, 16)), t)  # races the load, too

    with pytest.raises(pto.UnsupportedError, match="no plan here"):
        dev.run(k, src, dst)
