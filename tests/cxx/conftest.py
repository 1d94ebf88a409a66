"""Fixtures of the C++ front-end tests: the runs of the folders of tests/cxx/harness (each folder
run once per device and options, in the ordinary build cache)."""

from __future__ import annotations

import pytest

from tests.helpers.paths import HARNESS_FOLDERS


@pytest.fixture(scope="session")
def folder_run(tmp_path_factory):
    """``folder_run(name, device, **options)``: the FolderRun of a harness folder (cached)."""
    from ptosim.cxx.testdir import run_folder

    done = {}

    def run(name, device, **options):
        key = (name, device, tuple(sorted(options.items())))
        if key not in done:
            work = tmp_path_factory.mktemp(f"work-{name}-{device}")
            done[key] = run_folder(HARNESS_FOLDERS / name, [device], work=work, **options)
        return done[key]

    return run
