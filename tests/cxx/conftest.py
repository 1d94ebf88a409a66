"""Fixtures of the C++ front-end tests: one build cache per test session (g++), the harness
folders of tests/cxx/harness, and their runs (each folder run once per device)."""

from __future__ import annotations

from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parent / "harness"
FOLDERS = HARNESS / "st" / "testcase"


@pytest.fixture(scope="session")
def cxx_cache(tmp_path_factory):
    """PTOSIM_CACHE_DIR for the session's builds (and PTOSIM_CXX=g++)."""
    mp = pytest.MonkeyPatch()
    folder = tmp_path_factory.mktemp("cxx-harness-cache")
    mp.setenv("PTOSIM_CACHE_DIR", str(folder))
    mp.setenv("PTOSIM_CXX", "g++")
    yield folder
    mp.undo()


@pytest.fixture(scope="session")
def folder_run(cxx_cache, tmp_path_factory):
    """``folder_run(name, device, **options)``: the FolderRun of a harness folder (cached)."""
    from ptosim.cxx.testdir import run_folder

    done = {}

    def run(name, device, **options):
        key = (name, device, tuple(sorted(options.items())))
        if key not in done:
            work = tmp_path_factory.mktemp(f"work-{name}-{device}")
            done[key] = run_folder(FOLDERS / name, [device], work=work, **options)
        return done[key]

    return run


def by_case(run) -> dict:
    return {r.case: r for r in run.reports}
