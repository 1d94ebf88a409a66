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
