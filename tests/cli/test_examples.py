"""The example kernels of examples/ and the handshake-bug gallery of examples/bugs/.

Every example runs on every device it declares with an exact result (its own numpy check) and
no finding; every gallery ``buggy`` kernel produces exactly the finding codes its file declares
(or a deadlock) on a2 and 950pr, and its ``fixed`` twin none, with the exact result.
"""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

import ptosim as pto
from ptosim.kernelfile import load
from tests.helpers.cli import ptosim
from tests.helpers.paths import ROOT


def _cli(*argv: str):
    """``ptosim ARGV`` from the repository root (the examples' paths are relative to it)."""
    return ptosim(*argv, cwd=ROOT)


EXAMPLES = ROOT / "examples"
BUG_DEVICES = ("a2", "950pr")


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _kernel_names(mod) -> list[str]:
    return [name for name, v in vars(mod).items() if isinstance(v, pto.Kernel)]


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.py"))
BUG_FILES = sorted((EXAMPLES / "bugs").glob("*.py"))
EXAMPLE_CASES = [
    pytest.param(path, kernel, dev, id=f"{path.stem}:{kernel}-{dev}")
    for path in EXAMPLE_FILES
    for mod in [_module(path)]
    for kernel in _kernel_names(mod)
    for dev in mod.DEVICES
]
# each bug on the timed devices it declares (a cube bug has no 950 twin yet)
BUG_CASES = [
    pytest.param(path, dev, id=f"{path.stem}-{dev}")
    for path in BUG_FILES
    for dev in BUG_DEVICES
    if dev in _module(path).DEVICES
]


def _run(path: Path, kernel: str, devname: str):
    spec = load(f"{path}:{kernel}")
    dev = pto.Device(devname)
    args, kwargs = spec.build_inputs(dev)
    run = dev.run(spec.kernel, *args, **spec.run_options(), **kwargs)
    return spec, dev, args, run


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_gallery_and_the_examples_are_all_there():
    assert {p.stem for p in EXAMPLE_FILES} == {
        "embedding_lookup",
        "sparse_grad_scatter_add",
        "moe_dispatch_combine",
        "row_floor_clamp",
        "tscatter_interleave",
        "pingpong_row_scale",
        "softmax",
        "layernorm",
        "rmsnorm",
        "embedding_bag",
        "vector_pipeline",
        "row_argmax",
        "row_topk",
        "colsum_atomic",
        "gemm",
        "gemm_bias_relu",
        "gemm_acc2vec_epilogue",
    }
    assert {p.stem for p in BUG_FILES} == {
        "missing_mte2_to_v",
        "missing_v_to_mte3",
        "missing_v_barrier",
        "reused_event_id",
        "wait_without_set",
        "wrong_pipe_pair",
        "missing_cube_to_vec_flag",
        "tpush_without_credit",
    }
    readme = (EXAMPLES / "README.md").read_text()
    for path in EXAMPLE_FILES:
        assert f"({path.name})" in readme
    for path in BUG_FILES:
        assert f"(bugs/{path.name})" in readme
    for path in EXAMPLE_FILES + BUG_FILES:
        mod = _module(path)
        assert mod.__doc__ and len(mod.__doc__) > 200, path.name
        assert set(mod.DEVICES) <= set(pto.available_devices()), path.name


@pytest.mark.parametrize("path, kernel, devname", EXAMPLE_CASES)
def test_example_is_exact_and_finding_free(path, kernel, devname):
    spec, dev, args, run = _run(path, kernel, devname)
    assert run.findings == [], [str(f) for f in run.findings]
    assert spec.check(dev, args, run) is True
    if devname != "cpu":
        assert run.cycles > 0


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_example_checks_reject_outputs_the_kernel_did_not_write(path):
    """Each check compares with an independent reference: the untouched inputs fail it."""
    for kernel in _kernel_names(_module(path)):
        spec = load(f"{path}:{kernel}")
        dev = pto.Device("cpu")
        args, _ = spec.build_inputs(dev)
        assert spec.check(dev, args, None) is False, kernel


@pytest.mark.parametrize("devname", ("cpu", "a2", "950pr"))
def test_moe_combine_after_dispatch_is_the_identity_on_routed_tokens(devname):
    path = EXAMPLES / "moe_dispatch_combine.py"
    mod = load(f"{path}:dispatch").module
    dev = pto.Device(devname)
    tokens_h, slot_h = mod.routing()
    expert_buf = dev.gm_full((mod.SLOTS, mod.HIDDEN), "float32", -3.0)
    tokens, slots = dev.gm_array(tokens_h), dev.gm_array(slot_h)
    out = dev.gm_full((mod.TOKENS, mod.HIDDEN), "float32", 42.0)
    first = dev.run(mod.dispatch, expert_buf, tokens, slots)
    second = dev.run(mod.combine, out, expert_buf, slots)
    assert first.findings == [] and second.findings == []
    routed = slot_h < mod.SLOTS
    assert 0 < routed.sum() < mod.TOKENS  # some tokens are dropped, most are routed
    assert np.array_equal(out.numpy()[routed], tokens_h[routed])
    assert np.array_equal(out.numpy()[~routed], np.zeros_like(tokens_h[~routed]))
    # dispatch only wrote the routed slots
    used = np.zeros(mod.SLOTS, bool)
    used[slot_h[routed]] = True
    assert (expert_buf.numpy()[~used] == -3.0).all()


@pytest.mark.parametrize(
    "target",
    ["embedding_lookup.py", "moe_dispatch_combine.py:combine", "row_floor_clamp.py:mode1"],
)
def test_examples_through_the_command_line(target):
    proc = _cli("run", f"examples/{target}", "--device", "a2")
    assert proc.returncode == 0, proc.stderr
    assert "check: passed" in proc.stdout and "findings: none" in proc.stdout


@pytest.mark.parametrize("path, devname", BUG_CASES)
def test_buggy_kernel_gives_exactly_its_expected_findings(path, devname):
    expected = _module(path).EXPECTED[devname]
    if expected == "deadlock":
        with pytest.raises(pto.DeadlockError) as err:
            _run(path, "buggy", devname)
        assert err.value.code == "PTO400"
        assert re.search(r"blocked in wait_flag(_dev)?\(", str(err.value))
        return
    spec, dev, args, run = _run(path, "buggy", devname)
    assert sorted(f.code for f in run.findings) == sorted(expected)
    for f in run.findings:
        if f.code == "F203":
            assert "fix: " in f.message and "wait_flag(" in f.message and (f.fix or f.patch)
    if "F203" in expected:  # the race really reads the UB poison in the simulated schedule
        assert spec.check(dev, args, run) is False


@pytest.mark.parametrize("path, devname", BUG_CASES)
def test_fixed_kernel_is_exact_and_finding_free(path, devname):
    spec, dev, args, run = _run(path, "fixed", devname)
    assert run.findings == [], [str(f) for f in run.findings]
    assert spec.check(dev, args, run) is True


@pytest.mark.parametrize("path", BUG_FILES, ids=lambda p: p.stem)
def test_bug_docstring_shows_the_finding_text_produced_on_a2(path):
    doc = _flat(_module(path).__doc__)
    try:
        _, _, _, run = _run(path, "buggy", "a2")
        texts = [str(f) for f in run.findings]
    except pto.DeadlockError as exc:
        texts = [str(exc)]
    assert texts
    for text in texts:
        pattern = re.escape(_flat(text))
        pattern = re.sub(r"cycle\\ \d+", r"cycle\\ \\d+", pattern)  # the cycle may drift
        assert re.search(pattern, doc), f"{path.name} docstring lacks: {text}"


@pytest.mark.parametrize(
    "path",
    [p for p in BUG_FILES if _module(p).EXPECTED.get("a2") != "deadlock"],
    ids=lambda p: p.stem,
)
def test_the_cpu_reference_sees_the_handshake_bugs_from_structure(path):
    """The cpu reference runs in program order (its output is exact), but the happens-before
    analysis is structural, so it reports the same finding codes as a timed device."""
    spec, dev, args, run = _run(path, "buggy", "cpu")
    assert sorted(f.code for f in run.findings) == sorted(_module(path).EXPECTED["a2"])
    assert spec.check(dev, args, run) is True


def test_check_command_on_the_missing_v_to_mte3_bug():
    target = "examples/bugs/missing_v_to_mte3.py"
    bad = _cli("check", f"{target}:buggy", "--device", "a2")
    assert bad.returncode == 1, bad.stderr
    out = _flat(bad.stdout)
    assert "buggy on a2: 1 finding(s)" in out and "[F203 race-raw]" in out
    assert re.search(
        r"fix: set_flag\(PIPE_V, PIPE_MTE3, EVENT_ID\d\) after TROWEXPANDMAX #\d+ and "
        r"wait_flag\(PIPE_V, PIPE_MTE3, EVENT_ID\d\) before TSTORE #\d+",
        out,
    )
    good = _cli("check", f"{target}:fixed", "--device", "a2")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "fixed on a2: no findings" in good.stdout


def test_deadlock_through_the_command_line_is_a_verdict_naming_the_stuck_pipe_and_cause():
    proc = _cli("check", "examples/bugs/wait_without_set.py:buggy", "--device", "950pr")
    assert proc.returncode == 1, proc.stderr
    out = _flat(proc.stdout)
    assert "[PTO400] deadlock" in out
    assert "PIPE_V blocked in wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)" in out
    # the cause: the wait at line 62 has no set; the set belongs after the TLOAD at line 60
    assert "[F209 missing-set] WAIT_FLAG #6 (wait_without_set.py:62)" in out
    assert "insert set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) after wait_without_set.py:60" in out


@pytest.mark.parametrize("devname", ["a2", "950pr"])
@pytest.mark.parametrize("stem", ["pingpong_row_scale", "vector_pipeline"])
def test_double_buffering_overlaps_the_pipes(devname, stem):
    """The ping-pong loop hides load and store time behind the vector work: it finishes before
    the single-buffer loop doing the same work, with no finding in either."""
    path = EXAMPLES / f"{stem}.py"
    runs = {k: _run(path, k, devname)[3] for k in (stem, "single_buffer")}
    assert not runs[stem].findings and not runs["single_buffer"].findings
    assert runs[stem].cycles < 0.8 * runs["single_buffer"].cycles


def test_a_missing_cube_to_vector_flag_computes_on_stale_gm_on_a2():
    """The vector cores' loads run before the cube's fixpipe store lands: wrong output, and
    the findings name the mode-2 hand-over that fixes it."""
    spec, dev, args, run = _run(EXAMPLES / "bugs" / "missing_cube_to_vec_flag.py", "buggy", "a2")
    assert spec.check(dev, args, run) is False
    assert all("ffts_config(2, F)" in str(f) for f in run.findings) and run.findings
