"""Shared test helpers."""

import pytest

import ptosim as pto

ALL_DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
ONE_PER_TARGET = ("cpu", "a2", "950pr")


@pytest.fixture(params=ONE_PER_TARGET)
def device(request) -> pto.Device:
    """One device per target family (cpu, a2a3, a5)."""
    return pto.Device(request.param)


@pytest.fixture(scope="module")
def cxx_program(tmp_path_factory):
    """Build a C++ test file once per module (g++, a per-module build cache) with the entries
    given: ``cxx_program(path, entries)``."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PTOSIM_CACHE_DIR", str(tmp_path_factory.mktemp("cxx-cache")))
    built = {}

    def load(path, entries):
        if path not in built:
            built[path] = pto.cxx.load(path, compiler="g++")
            for e in entries:
                built[path].entry(e)
        return built[path]

    yield load
    mp.undo()


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
