"""A plain-called kernel copying a loaded tile into GM element by element (the library's cpu
TLOAD test: ``out[i] = tile.data()[i]``) asks Python once per page, not twice per element: the
shim keeps a page Python served as readable across the raw-write log and the other raw requests
(ptosim_shim/record.hpp RawLog), and drops every page at an instruction request."""

from __future__ import annotations

import pytest

from ptosim.cxx import testdir
from ptosim.cxx.raw import RAW_ACCESS_SERVED
from tests.helpers.paths import HARNESS_FOLDERS

pytestmark = [
    pytest.mark.cxx,
    pytest.mark.skipif(not RAW_ACCESS_SERVED, reason="raw accesses are served on x86_64 Linux"),
]


def test_copying_a_tile_into_gm_costs_requests_per_page_not_per_element(tmp_path, monkeypatch):
    tally = tmp_path / "requests"

    class CountingHost(testdir.Host):
        """Counts the shim's requests of the case (it runs in a forked child: into a file)."""

        def handle(self, request, out):
            with open(tally, "a") as f:
                f.write(".")
            return super().handle(request, out)

    monkeypatch.setattr(testdir, "Host", CountingHost)
    run = testdir.run_folder(
        HARNESS_FOLDERS / "shapes", ["cpu"], work=tmp_path / "w",
        case_filter="plain_out_16x16", jobs=1,
    )  # fmt: skip
    [report] = run.reports
    assert (report.verdict, report.output) == ("pass", "bit-exact"), report.error
    # 256 float copies from one tile page into one GM page: with a request for each element's
    # read and write the case made 783 requests; now 18 (its ACL calls, the kernel's
    # instructions, one request per page)
    requests = len(tally.read_text())
    assert requests < 64, requests
