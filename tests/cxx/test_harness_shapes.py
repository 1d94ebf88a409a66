"""`ptosim test` serves every harness shape the library's test folders use (tests/cxx/harness).

Each case of the `shapes` folder compares the kernel's output with golden.bin itself (its own
verdict); these tests check the names googletest would give, the verdicts and ptosim's own
bit-exact comparison, and that a wrong golden makes exactly the cases that read it fail.
"""

from __future__ import annotations

import shutil

import pytest

from ptosim.cxx.testdir import run_folder
from tests.helpers.paths import HARNESS_FOLDERS as FOLDERS
from tests.helpers.testdir import by_case

pytestmark = pytest.mark.slow

SHAPES_CASES = [
    "ShapesTest.launched_16x16",
    "ShapesTest.plain_16x16",
    "ShapesTest.host_fill_16x16",
    "ShapesTest.plain_copy_16x16",
    "ShapesTest.plain_out_16x16",
    "ShapesTest.suite_set_up_ran",
    "ShapesTest.skipped",
    "AddTyped/0.adds",
    "AddTyped/1.adds",
    "Sizes/AddP.float/16x16",
    "Sizes/AddP.float/32x64",
    "Grid/AddGrid.float/0",
    "Grid/AddGrid.float/1",
    "Grid/AddGrid.float/2",
    "Grid/AddGrid.float/3",
]


@pytest.mark.parametrize("device", ["cpu", "a2"])
def test_every_gtest_shape_runs_with_googletests_names(folder_run, device):
    run = folder_run("shapes", device)
    assert [r.case for r in run.reports] == SHAPES_CASES
    for r in run.reports:
        assert (r.verdict, r.error) == ("pass", None), (r.case, r.error, r.log[-500:])
    golden = [r for r in run.reports if r.case not in ("ShapesTest.suite_set_up_ran",
                                                        "ShapesTest.skipped")]  # fmt: skip
    assert all(r.output == "bit-exact" for r in golden)
    cases = by_case(run)
    # launches are timed on a2 (one Device.run each); the plain call is one single-block run
    if device == "a2":
        assert all(c and c > 0 for c in cases["ShapesTest.launched_16x16"].cycles)
        assert len(cases["ShapesTest.plain_16x16"].cycles) == 1
    # googletest's skip message reaches the case's output, and a skip is no failure
    assert "[  SKIPPED ] not on this device" in cases["ShapesTest.skipped"].log


def test_a_wrong_golden_fails_only_the_cases_that_read_it(tmp_path):
    tree = tmp_path / "st"
    shutil.copytree(FOLDERS.parent, tree)
    gen = tree / "testcase" / "shapes" / "gen_data.py"
    text = gen.read_text()
    bad = 'add_case(f"Sizes/AddP.float/{r}x{c}", r, c, np.float32)'
    assert bad in text
    # the 32x64 case of the parameterised suite gets a golden that is off by one
    gen.write_text(
        text.replace(bad, bad + '\n    if r == 32:\n        np.ones((r, c), np.float32).tofile('
                     'f"Sizes/AddP.float/{r}x{c}/golden.bin")')
    )  # fmt: skip
    run = run_folder(tree / "testcase" / "shapes", ["cpu"], work=tmp_path / "w")
    failed = [r.case for r in run.reports if not r.ok]
    assert failed == ["Sizes/AddP.float/32x64"]
    r = by_case(run)["Sizes/AddP.float/32x64"]
    assert r.verdict == "FAIL" and r.output.startswith("differs in")
    assert "elements differ from golden.bin" in r.log


def test_the_filter_and_an_empty_selection_say_why(folder_run):
    run = folder_run("shapes", "cpu", case_filter="AddTyped")
    assert [r.case for r in run.reports] == ["AddTyped/0.adds", "AddTyped/1.adds"]
    none = folder_run("shapes", "cpu", case_filter="no-such-case")
    assert none.reports == [] and "no case name contains 'no-such-case'" in none.empty_reason


def test_a_test_body_that_drives_tiles_is_run_as_a_kernel(folder_run):
    cases = by_case(folder_run("tilebody", "cpu"))
    assert cases["TileBody.adds_in_place"].verdict == "pass"
    wrong = cases["TileBody.a_wrong_expectation_fails"]
    assert wrong.verdict == "FAIL" and "actual: 8 vs 9" in wrong.log
    setup = cases["TileBody.memory_setup_and_tile_offsets"]
    assert setup.verdict == "pass", setup.error or setup.log


def test_a_program_with_its_own_main_is_one_case(folder_run, monkeypatch, tmp_path):
    run = folder_run("program", "a2")
    assert [(r.case, r.verdict) for r in run.reports] == [("main", "pass")]
    assert "0 wrong elements" in run.reports[0].log
    monkeypatch.setenv("PTOSIM_TEST_PROGRAM_STATUS", "3")
    failed = run_folder(FOLDERS / "program", ["a2"], work=tmp_path / "w")
    assert [(r.verdict, r.error) for r in failed.reports] == [("FAIL", "main() returned 3")]


def test_a_folder_without_cases_or_main_says_why(folder_run, capsys):
    from ptosim.cxx.testdir import print_reports

    run = folder_run("empty", "cpu")
    assert run.reports == []
    print_reports(run.reports, empty_reason=run.empty_reason)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("0/0 cases pass")
    assert "registers no gtest cases" in last and "defines no main()" in last


@pytest.mark.parametrize("device", ["cpu", "a2", "950pr"])
def test_every_include_form_resolves(folder_run, device):
    run = folder_run("includes", device)
    assert [(r.case, r.verdict, r.output) for r in run.reports] == [
        ("Includes.scales", "pass", "bit-exact")
    ]


def test_a_cpu_program_over_host_vectors_runs_its_calls_in_order(folder_run):
    # GlobalTensors over std::vector data, PTO calls from main() (the library's cpu demos):
    # exact against the program's own fma loop, the input read at the call, no findings
    run = folder_run("hostgemm", "cpu")
    (case,) = run.reports
    assert (case.case, case.verdict) == ("main", "pass"), case.error or case.log
    assert "0 wrong elements" in case.log and case.findings == []


def test_a_host_vector_global_tensor_stops_on_an_npu_target(folder_run):
    (case,) = folder_run("hostgemm", "a2").reports
    assert case.verdict == "ERROR" and "host memory" in case.error and "main.cpp:" in case.error


def test_the_cpu_simulators_in_process_fifo_stops_each_case_with_one_line(folder_run):
    # the library's cpu tpushpop tests: host threads as cores, TPUSH(tile, pipe), the pipe's
    # bookkeeping; they compile, and each case names the first entry point ptosim lacks
    run = folder_run("cpusimfifo", "cpu")
    got = {r.case: (r.verdict, r.error) for r in run.reports}
    first = {
        "CpuSimFifo.reset_then_threads": "main.cpp:21: TPipe::reset_for_cpu_sim",
        "CpuSimFifo.context_first": "main.cpp:34: pto::cpu_sim::set_execution_context",
        "CpuSimFifo.bookkeeping": "main.cpp:41: TPipe::GetSharedState",
        "CpuSimFifo.manual_protocol": "main.cpp:52: TPipe::setAllocateStatus",
    }
    assert set(got) == set(first)
    for case, start in first.items():
        verdict, error = got[case]
        assert verdict == "ERROR" and start in error and "not supported by ptosim" in error, error
        assert "\n" not in error
