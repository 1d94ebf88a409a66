"""Every number says where it comes from (ptosim/sources.py, targets/*/timing_sources.py).

- every cost entry of every timed config carries a source kind; the 950 configs label their
  clock, core count and UB as public figures (950DT's clock as an estimate: not public);
- the per-target tables of ``ptosim instructions -v`` cover every instruction a target
  defines, and name (at least) the cost entries real kernels use: the examples run on a2 and
  950pr, each step's cost key must be in its instruction's table entry;
- a run on the 950 says in one line that no hardware measurement is behind its cycles; a run
  on a2 of a DMA-bound kernel rests on hardware-fitted costs.
"""

from pathlib import Path

import pytest

import ptosim as pto
from ptosim.config import SOURCE_KINDS, load_config
from ptosim.isa.registry import specs
from ptosim.kernelfile import load_all
from ptosim.sources import basis_line, cycles_by_source, event_source, instruction_sources
from ptosim.targets import spec_of, timing_uses
from tests.helpers.paths import ROOT


def _entries(cfg):
    t = cfg.timing
    yield "scalar", t.scalar.source
    yield "scalar.control", t.scalar.control_source
    yield "mte2", t.mte2.source
    yield "mte3", t.mte3.source
    yield "clock", t.clock_source
    for name, c in t.vector.classes.items():
        yield f"class {name}", c.source
    for name, c in t.vector.ops.items():
        if not isinstance(c, str):
            yield f"op {name}", c.source
    if t.vector.vf is not None:
        yield "vf", t.vector.vf.source
        for name, c in t.vector.vf.ops.items():
            yield f"vf {name}", c.source
    if t.simt is not None:
        yield "simt", t.simt.source
    if t.chip is not None:
        yield "chip", t.chip.source


@pytest.mark.parametrize("device", ("a2", "a3", "950pr", "950dt"))
def test_every_cost_entry_has_a_source_kind(device):
    for what, kind in _entries(load_config(device)):
        assert kind in SOURCE_KINDS, (device, what, kind)


def test_950_public_figures_are_labelled_as_such():
    pr, dt = load_config("950pr"), load_config("950dt")
    assert (pr.timing.clock_ghz, pr.vector_cores, pr.memory.ub_size_bytes) == (1.65, 56, 248 * 1024)
    assert pr.timing.clock_source == "public-figure"
    assert dt.timing.clock_source == "estimate"  # 950DT's clock is not public
    text = (ROOT / "configs" / "950pr.toml").read_text()
    for key in ("clock_ghz = 1.65", "vector_cores = 56", "ub_size_bytes = 253952"):
        comment = text[: text.index(key)].rstrip().split("\n\n")[-1]  # the comment block
        assert "public" in comment, key
    # a3 reuses a2's fitted numbers: there they are estimates
    a2, a3 = load_config("a2"), load_config("a3")
    assert a2.timing.vector.classes["binary"].source == "hardware-fitted"
    assert a3.timing.vector.classes["binary"].source == "estimate"


@pytest.mark.parametrize("target", ("a2a3", "a5"))
def test_the_tables_cover_every_instruction_of_the_target(target):
    names = {s.name for s in specs() if spec_of(target).defines(s.name)}
    assert set(timing_uses(target)) == names


def _key(event) -> str:
    """The cost key of a trace event, in the tables' vocabulary."""
    if event.kind == "dma" and event.pipe == "PIPE_FIX":  # the fixpipe's GM write
        return event.args["intrinsic"]
    if event.kind == "dma":
        return "mte3" if event.pipe == "PIPE_MTE3" else "mte2"
    if event.kind == "scalar":
        return event.args.get("cost", "scalar")
    if event.kind == "simt":
        return "simt"
    if event.kind in ("set_flag", "wait_flag", "barrier", "cross_set", "cross_wait"):
        return "control"
    op = event.args.get("intrinsic", "")
    if op in ("vf_startup", "vf_drain"):
        return "vf"
    return op


def _covered(key: str, declared: tuple) -> bool:
    # flags, barriers and handshakes (every staged instruction has them) and the control
    # intrinsics of TCVT/TQUANT are control costs, not listed per instruction
    if key in ("control", "get_ctrl", "set_ctrl", "set_deqscale"):
        return True
    return key in declared or any(d.endswith("*") and key.startswith(d[:-1]) for d in declared)


EXAMPLES = sorted(Path(ROOT / "examples").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("device", ("a2", "950pr"))
def test_the_tables_name_the_cost_entries_real_kernels_use(device):
    uses = timing_uses(load_config(device).target)
    seen = 0
    for path in EXAMPLES:
        for spec in load_all(str(path)):
            if device not in getattr(spec.module, "DEVICES", (device,)):
                continue
            dev = pto.Device(device)
            args, kwargs = spec.build_inputs(dev)
            run = dev.run(spec.kernel, *args, **spec.run_options(), **kwargs)
            for e in run.trace.events:
                if e.pipe.startswith("SIMT_SCHED") or e.opcode not in uses:
                    continue
                assert _covered(_key(e), uses[e.opcode]), (path.name, e.opcode, _key(e))
                seen += 1
    assert seen > 100


def test_a_950_run_says_no_hardware_measurement_is_behind_its_cycles():
    @pto.kernel
    def k():
        a, b, c = (pto.Tile("Vec", "float32", 16, 64) for _ in range(3))
        for t, addr in ((a, 0), (b, 0x1000), (c, 0x2000)):
            pto.TASSIGN(t, addr)
        pto.TADD(c, a, b)

    run = pto.Device("950pr").run(k)
    line = basis_line(run)
    assert line.startswith("timing basis: ESTIMATES: no hardware measurement")
    assert "hardware-fitted" not in cycles_by_source(run)
    assert run.summary().splitlines()[2].startswith("timing basis: ESTIMATES")
    a2 = pto.Device("a2").run(k)
    assert cycles_by_source(a2).get("hardware-fitted", 0) > 0
    for e in a2.trace.events:
        assert event_source(a2.config, e) in SOURCE_KINDS


def test_instructions_verbose_names_each_targets_timing_sources():
    from tests.helpers.cli import ptosim

    res = ptosim("instructions", "-v")
    assert res.returncode == 0
    out = res.stdout
    block = out[out.index("\nTADD ") : out.index("\nTAND ")]
    assert "timing on a2: fitted: vadd" in block
    assert "timing on 950pr: vendor:" in block
    assert instruction_sources(load_config("a2"), "TLOAD") == {"hardware-fitted": ["mte2"]}
    assert instruction_sources(load_config("a3"), "TLOAD") == {"estimate": ["mte2"]}
    assert instruction_sources(load_config("cpu"), "TLOAD") is None
