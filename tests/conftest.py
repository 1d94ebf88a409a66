"""Shared fixtures, markers and lanes.

Lanes: ``pytest`` runs everything (CI); ``pytest --fast`` is the everyday lane: it leaves out
tests marked ``slow`` (several seconds each) and ``cxx`` (they build C++ kernels). Every test
under tests/cxx/ is marked ``cxx`` here, so a module there need not say it.

C++ builds: the tests use ptosim's ordinary build cache (``PTOSIM_CACHE_DIR`` or
~/.cache/ptosim), which is keyed by the preprocessed text, the compiler and its flags, so every
test, module and xdist worker that builds the same source shares one library, and a rerun builds
nothing. Tests of the cache itself point it at their own temporary folder.
"""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# the helpers' asserts get pytest's rewriting (operands in the failure message), as a test's do
pytest.register_assert_rewrite("tests.helpers")

import ptosim as pto  # noqa: E402
from tests.helpers.devices import ONE_PER_TARGET  # noqa: E402

CXX_TESTS = Path(__file__).resolve().parent / "cxx"


# Hypothesis: no per-example deadline and no "input generation is slow" health check, which only
# measure how busy the machine is (a shared 2-core machine under load failed them); examples and
# their number stay as each test sets them.
settings.register_profile("ptosim", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ptosim")


def pytest_addoption(parser):
    parser.addoption(
        "--fast",
        action="store_true",
        help="the everyday lane: skip tests marked slow or cxx (same as -m 'not slow and not cxx')",
    )


def pytest_configure(config):
    if config.getoption("--fast"):
        config.option.markexpr = "not slow and not cxx"


def pytest_collection_modifyitems(config, items):
    cxx_folder = str(CXX_TESTS) + "/"
    for item in items:
        if str(item.path).startswith(cxx_folder):
            item.add_marker(pytest.mark.cxx)
    # The long tests first: with two xdist workers a 60 s test collected last becomes a 60 s tail
    # after everything else is done; started first, the other worker takes the short ones
    # meanwhile (worksteal). The sort is stable, so the order is the same on every worker.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(params=ONE_PER_TARGET)
def device(request) -> pto.Device:
    """One device per target family (cpu, a2a3, a5)."""
    return pto.Device(request.param)


@pytest.fixture(scope="session")
def cxx_program():
    """Build a C++ test file once per session and worker with the entries given:
    ``cxx_program(path, entries)`` (the build cache shares it across workers and reruns)."""
    built = {}

    def load(path, entries):
        if path not in built:
            built[path] = pto.cxx.load(path)
        for e in entries:  # before the first run, so that one library serves them all
            built[path].entry(e)
        return built[path]

    return load


def _run_twin(kernel, device: str, make_args):
    dev = pto.Device(device)
    args = make_args(dev)
    res = dev.run(kernel, *args)
    return res, [a.numpy().tobytes() for a in args if isinstance(a, pto.GmBuffer)]


@pytest.fixture
def assert_twins():
    """``assert_twins(cxx_entry, py_kernel, device, make_args, ops)``: run a C++ entry and its
    Python twin on fresh GM from ``make_args(dev)`` (a list of kernel arguments) and check every
    GM buffer equal byte for byte, the same cycles and finding codes, and that each opcode of
    ``ops`` was issued from the C++ file (its source is ``<file>.cpp:<line>``). Returns the C++
    run's result."""

    def check(cxx_entry, py_kernel, device, make_args, ops=()):
        py, py_bufs = _run_twin(py_kernel, device, make_args)
        cx, cx_bufs = _run_twin(cxx_entry, device, make_args)
        for k, (got, want) in enumerate(zip(cx_bufs, py_bufs)):
            assert got == want, f"GM buffer {k} differs between the C++ and the Python kernel"
        assert cx.cycles == py.cycles
        assert [f.code for f in cx.findings] == [f.code for f in py.findings]
        program = [i for b in cx.blocks for i in b.program]
        for op in ops:
            issued = [i for i in program if i.opcode == op]
            assert issued, f"{op} was not issued by the C++ kernel"
            assert all(i.source and ".cpp:" in i.source for i in issued), issued[0].source
        return cx

    return check
