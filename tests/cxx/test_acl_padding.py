"""aclrtMalloc's padding (D23) reached from a C++ program: tests/cxx/harness/st/testcase/padding
stores 224 bytes into aclrtMalloc(201) (fits the 256 bytes the NPU runtime allocates) and into
aclrtMalloc(150) (192 bytes: does not)."""

import pytest

from tests.helpers.paths import HARNESS_FOLDERS

pytestmark = [pytest.mark.cxx, pytest.mark.slow]


@pytest.mark.parametrize("device", ["a2", "cpu"])
def test_a_cpp_program_gets_the_padding_from_aclrtMalloc_on_npu_devices_only(folder_run, device):
    """tests/cxx/harness/.../padding: a 224-byte store into aclrtMalloc(201) and (150)."""
    assert (HARNESS_FOLDERS / "padding" / "main.cpp").is_file()
    run = folder_run("padding", device)
    cases = {r.case: r for r in run.reports}
    small = cases["Padding.into_150_bytes"]
    assert small.verdict == "ERROR" and "[PTO202]" in small.error
    fits = cases["Padding.into_201_bytes"]
    if device == "cpu":  # the CPU simulator's aclrtMalloc is a host malloc: nothing after 201
        assert fits.verdict == "ERROR" and "[PTO202]" in fits.error
    else:
        assert fits.verdict == "pass", (fits.error, fits.log[-400:])
        assert len(fits.findings) == 1 and "[F113 gm-write-into-padding]" in fits.findings[0]
