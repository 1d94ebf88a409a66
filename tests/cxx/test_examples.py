"""The C++ examples of examples/cxx/ against their Python twins, and the C++ bug gallery.

Every C++ example is the twin of a Python kernel (examples/*.py, or examples/cxx/py/*.py for
the two that have no Python example in examples/): the same instructions in the same order on the
same UB addresses. Run through the C++ front end (``ptosim.cxx``) on cpu, a2 and 950pr it must
give the Python twin's GM contents bit for bit, pass the twin's own independent check, report the
same findings (none), and name the .cpp file in every instruction's source. The C++ bug gallery
(examples/cxx/bugs/) must report exactly what its Python twin in examples/bugs/ reports, naming
C++ lines. The vendor-style folder runs through ``ptosim test``.

The front-end tests are skipped until ``ptosim.cxx`` is importable. The new Python twins of
examples/cxx/py/ are ordinary Python examples and run now.
"""

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ptosim as pto
from ptosim.kernelfile import load
from tests.helpers.paths import ROOT

CXX = ROOT / "examples" / "cxx"
DEVICES = ("cpu", "a2", "950pr")
BUG_DEVICES = ("cpu", "a2", "950pr")

# (C++ file under examples/cxx, entry, Python twin "file:kernel" under the repo root)
EXAMPLES = [
    ("softmax.cpp", "softmax_16x64", "examples/softmax.py:softmax_16x64"),
    ("softmax.cpp", "softmax_8x256", "examples/softmax.py:softmax_8x256"),
    ("rmsnorm.cpp", "rmsnorm_f32", "examples/rmsnorm.py:rmsnorm_f32"),
    ("rmsnorm.cpp", "rmsnorm_f16", "examples/rmsnorm.py:rmsnorm_f16"),
    ("layernorm.cpp", "layernorm_16x64", "examples/layernorm.py:layernorm_16x64"),
    ("layernorm.cpp", "layernorm_8x256", "examples/layernorm.py:layernorm_8x256"),
    ("embedding_lookup.cpp", "embedding_lookup", "examples/embedding_lookup.py:embedding_lookup"),
    (
        "embedding_gather_elem.cpp",
        "embedding_gather_elem",
        "examples/cxx/py/embedding_gather_elem.py:embedding_gather_elem",
    ),
    (
        "pingpong_row_scale.cpp",
        "pingpong_row_scale",
        "examples/pingpong_row_scale.py:pingpong_row_scale",
    ),
    ("pingpong_row_scale.cpp", "single_buffer", "examples/pingpong_row_scale.py:single_buffer"),
    (
        "multicore_scaled_lookup.cpp",
        "multicore_scaled_lookup",
        "examples/cxx/py/multicore_scaled_lookup.py:multicore_scaled_lookup",
    ),
    ("row_argmax.cpp", "row_argmax", "examples/row_argmax.py:row_argmax"),
    ("row_topk.cpp", "row_topk", "examples/row_topk.py:row_topk"),
    ("colsum_atomic.cpp", "colsum_atomic", "examples/colsum_atomic.py:colsum_atomic"),
    ("gemm.cpp", "gemm", "examples/gemm.py:gemm"),
    ("gemm_bias_relu.cpp", "gemm_bias_relu", "examples/gemm_bias_relu.py:gemm_bias_relu"),
]
GALLERY = ROOT / "examples" / "bugs"
# C++ bug (examples/cxx/bugs/<stem>.cpp) -> its Python twin
BUGS = {
    "missing_mte2_to_v": GALLERY / "missing_mte2_to_v.py",
    "missing_v_to_mte3": GALLERY / "missing_v_to_mte3.py",
    "missing_v_barrier": GALLERY / "missing_v_barrier.py",
    "reused_event_id": GALLERY / "reused_event_id.py",
    "wait_without_set": GALLERY / "wait_without_set.py",
    "wrong_pipe_pair": GALLERY / "wrong_pipe_pair.py",
    "cross_core_race": CXX / "py" / "bugs" / "cross_core_race.py",
    "unconsumed_flag": CXX / "py" / "bugs" / "unconsumed_flag.py",
    "ub_overflow": CXX / "py" / "bugs" / "ub_overflow.py",
    "missing_cube_to_vec_flag": GALLERY / "missing_cube_to_vec_flag.py",
    "tpush_without_credit": GALLERY / "tpush_without_credit.py",
}
# the mixed (cube + vector cores) kernels among them
MIXED = {"tpush_without_credit", "gemm_bias_relu", "missing_cube_to_vec_flag"}
TWINS = sorted((CXX / "py").glob("*.py"))
TWIN_BUGS = sorted((CXX / "py" / "bugs").glob("*.py"))


_ENTRY_DEF = re.compile(r'^extern "C" __global__ AICORE void (\w+)\(', re.M)


@pytest.fixture(scope="module")
def cxx():
    """The front end, loaded once per C++ file (its build cache makes reloads cheap anyway)."""
    mod = pytest.importorskip("ptosim.cxx")
    cache: dict[Path, object] = {}

    def entry(path: Path, name: str):
        if path not in cache:
            cache[path] = mod.load(str(path), cores="mix" if path.stem in MIXED else None)
            # every entry of the file up front: one build per file and target, not one more
            # each time a test asks for another entry (the library holds the entries asked for)
            for other in _ENTRY_DEF.findall(Path(path).read_text()):
                cache[path].entry(other)
        return cache[path].entry(name)

    return entry


def _params(spec) -> list[str]:
    return list(inspect.signature(spec.kernel.func).parameters)


def _run_twin(spec, devname: str):
    """Run the Python twin; returns (args, run or the PtoSimError it raised)."""
    dev = pto.Device(devname)
    args, kwargs = spec.build_inputs(dev)
    try:
        return dev, args, dev.run(spec.kernel, *args, **spec.run_options(), **kwargs)
    except pto.PtoSimError as exc:
        return dev, args, exc


def _run_cxx(entry, spec, devname: str):
    """Run the C++ entry on the twin's inputs, bound by the twin's parameter names (which the C++
    entries use too)."""
    dev = pto.Device(devname)
    args, kwargs = spec.build_inputs(dev)
    bound = dict(zip(_params(spec), args), **kwargs)
    try:
        return dev, args, dev.run(entry, **spec.run_options(), **bound)
    except pto.PtoSimError as exc:
        return dev, args, exc


def _opcodes(run, block: int) -> list[str]:
    """The instruction sequence of a block, without TASSIGN: the Python twins mostly let the
    allocator place their tiles, the C++ kernels TASSIGN the same addresses explicitly."""
    return [i.opcode for i in run.blocks[block].program if i.opcode != "TASSIGN"]


def _same_bits(a, b) -> bool:
    return a.numpy().tobytes() == b.numpy().tobytes()


@pytest.mark.parametrize("devname", DEVICES)
@pytest.mark.parametrize(
    "cpp, entry, twin", EXAMPLES, ids=[f"{c[:-4]}:{e}" for c, e, _ in EXAMPLES]
)
def test_cxx_example_matches_its_python_twin(cxx, cpp, entry, twin, devname):
    spec = load(str(ROOT / twin))
    _, py_args, py = _run_twin(spec, devname)
    dev, cx_args, cx = _run_cxx(cxx(CXX / cpp, entry), spec, devname)
    if devname not in spec.module.DEVICES:  # e.g. TROWARGMAX on a5: the same coded error
        if isinstance(py, pto.PtoSimError) or isinstance(cx, pto.PtoSimError):
            assert isinstance(py, pto.PtoSimError) and isinstance(cx, pto.PtoSimError)
            assert cx.code == py.code and f"{cpp}:" in str(cx)
        else:  # a device the example does not claim (the a2a3 flags on 950): the same bits
            assert all(_same_bits(a, b) for a, b in zip(py_args, cx_args) if hasattr(a, "numpy"))
        return
    assert not isinstance(py, Exception) and not isinstance(cx, Exception), str(cx)
    assert cx.findings == [] == py.findings, [str(f) for f in cx.findings]
    assert spec.check(dev, cx_args, cx) is True  # the twin's own numpy reference
    for a, b in zip(py_args, cx_args):
        if isinstance(a, pto.GmBuffer):
            assert _same_bits(a, b)
    assert len(cx.blocks) == len(py.blocks)
    for b in range(len(py.blocks)):
        assert _opcodes(cx, b) == _opcodes(py, b)
        assert all(i.source.startswith(f"{cpp}:") for i in cx.blocks[b].program)
    if devname != "cpu":  # the same schedule up to the few scalar cycles of the TASSIGNs
        assert abs(cx.cycles - py.cycles) <= 0.02 * py.cycles


def _outcome(run) -> str | list[str]:
    """A run's error code, or its sorted finding codes."""
    if isinstance(run, pto.PtoSimError):
        return run.code
    return sorted(f.code for f in run.findings)


def _expected(module, devname: str):
    want = module.EXPECTED.get(devname)
    return "PTO400" if want == "deadlock" else (sorted(want) if isinstance(want, list) else want)


@pytest.mark.parametrize("devname", BUG_DEVICES)
@pytest.mark.parametrize("stem", BUGS)
def test_cxx_bug_reports_what_its_python_twin_reports(cxx, stem, devname):
    spec = load(f"{BUGS[stem]}:buggy")
    _, _, py = _run_twin(spec, devname)
    _, _, cx = _run_cxx(cxx(CXX / "bugs" / f"{stem}.cpp", "buggy"), spec, devname)
    assert _outcome(cx) == _outcome(py), str(cx)
    want = _expected(spec.module, devname)
    if want is not None:  # the gallery's own expectation on this device
        assert _outcome(cx) == want
    if isinstance(cx, pto.PtoSimError):
        assert f"{stem}.cpp:" in str(cx)
        return
    for f in cx.findings:
        assert f"{stem}.cpp:" in str(f)
        if f.code == "F203":
            assert "fix: " in str(f)


@pytest.mark.parametrize("devname", BUG_DEVICES)
@pytest.mark.parametrize("stem", BUGS)
def test_cxx_bug_fixed_twin_is_exact_and_finding_free(cxx, stem, devname):
    spec = load(f"{BUGS[stem]}:fixed")
    if devname not in spec.module.DEVICES:
        pytest.skip(f"{stem} runs on {', '.join(spec.module.DEVICES)}")
    _, py_args, _ = _run_twin(spec, devname)
    dev, args, cx = _run_cxx(cxx(CXX / "bugs" / f"{stem}.cpp", "fixed"), spec, devname)
    assert not isinstance(cx, Exception), str(cx)
    assert cx.findings == [], [str(f) for f in cx.findings]
    assert spec.check(dev, args, cx) is True
    for a, b in zip(py_args, args):
        assert _same_bits(a, b)


@pytest.mark.parametrize("devname", DEVICES)
def test_unimplemented_instruction_stops_with_one_line_naming_it(cxx, devname):
    entry = cxx(CXX / "bugs" / "unimplemented_instruction.cpp", "matmul_16x16")
    dev = pto.Device(devname)
    with pytest.raises(pto.PtoSimError) as err:
        dev.run(entry, out=dev.gm_zeros((16, 16), "float32"))
    text = str(err.value)
    assert "TIMG2COL" in text and "unimplemented_instruction.cpp:" in text
    assert "not implemented" in text


def test_vendor_style_folder_passes_on_every_device(cxx):
    folder = CXX / "vendor_style" / "row_scale"
    proc = subprocess.run(
        [sys.executable, "-m", "ptosim", "test", str(folder), "--device", "all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for case in ("case_float_64x64", "case_float_128x256", "case_half_64x128"):
        assert case in proc.stdout


def test_every_cxx_example_and_bug_is_covered_here():
    """A new .cpp under examples/cxx must be added to this file's tables."""
    assert {c for c, _, _ in EXAMPLES} == {p.name for p in CXX.glob("*.cpp")}
    assert set(BUGS) | {"unimplemented_instruction"} == {
        p.stem for p in (CXX / "bugs").glob("*.cpp")
    }
    assert {p.stem for p in GALLERY.glob("*.py")} <= set(BUGS)
    readme = (CXX / "README.md").read_text()
    for p in [*CXX.glob("*.cpp"), *(CXX / "bugs").glob("*.cpp"), *TWINS, *TWIN_BUGS]:
        assert f"({p.relative_to(CXX).as_posix()})" in readme, p.name


# -- the Python twins of examples/cxx/py: ordinary examples, they run without the front end ----
TWIN_CASES = [
    pytest.param(p, d, id=f"{p.stem}-{d}") for p in TWINS for d in load(str(p)).module.DEVICES
]


@pytest.mark.parametrize("path, devname", TWIN_CASES)
def test_python_twin_is_exact_and_finding_free(path, devname):
    spec = load(str(path))
    dev, args, run = _run_twin(spec, devname)
    assert not isinstance(run, Exception), str(run)
    assert run.findings == [], [str(f) for f in run.findings]
    assert spec.check(dev, args, run) is True


@pytest.mark.parametrize("path", TWINS, ids=lambda p: p.stem)
def test_python_twin_check_rejects_outputs_the_kernel_did_not_write(path):
    spec = load(str(path))
    dev = pto.Device("cpu")
    args, _ = spec.build_inputs(dev)
    assert spec.check(dev, args, None) is False


TWIN_BUG_CASES = [pytest.param(p, d, id=f"{p.stem}-{d}") for p in TWIN_BUGS for d in BUG_DEVICES]


@pytest.mark.parametrize("path, devname", TWIN_BUG_CASES)
def test_python_twin_bug_gives_its_expected_outcome(path, devname):
    spec = load(f"{path}:buggy")
    dev, args, run = _run_twin(spec, devname)
    got = _outcome(run)
    assert got == _expected(spec.module, devname), str(run)
    if isinstance(got, list):  # the race really loses rows; F201 or nothing: the results are right
        assert spec.check(dev, args, run) is ("F205" not in got)


@pytest.mark.parametrize("path, devname", TWIN_BUG_CASES)
def test_python_twin_bug_fixed_is_exact_and_finding_free(path, devname):
    spec = load(f"{path}:fixed")
    dev, args, run = _run_twin(spec, devname)
    assert not isinstance(run, Exception), str(run)
    assert run.findings == [], [str(f) for f in run.findings]
    assert spec.check(dev, args, run) is True
