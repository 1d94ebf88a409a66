"""gen_data.py runs as the library's scripts run it: in the data folder, with the test tree's
helpers importable (the st folder, the checkout root), and a failure is one line."""

from __future__ import annotations

import pytest

from ptosim.cxx.gendata import checkout_root, failure_reason, python_path, run_gen_data
from ptosim.errors import KernelError


def _tree(tmp_path):
    """A checkout-like tree: root/tests/common/test_common.h, root/tests/x/st/utils.py and a
    folder root/tests/x/st/testcase/case."""
    root = tmp_path / "root"
    (root / "tests" / "common").mkdir(parents=True)
    (root / "tests" / "common" / "test_common.h").write_text("#pragma once\n")
    st = root / "tests" / "x" / "st"
    (st / "testcase" / "case").mkdir(parents=True)
    (st / "utils.py").write_text("VALUE = 3\n")
    for p in (root / "tests", root / "tests" / "x", st):
        (p / "__init__.py").write_text("")
    return root, st, st / "testcase" / "case"


def test_the_path_is_the_st_folder_and_the_checkout_root(tmp_path):
    root, st, folder = _tree(tmp_path)
    assert checkout_root(folder) == root
    assert python_path(folder) == [st, root]
    lone = tmp_path / "lone" / "case"
    lone.mkdir(parents=True)
    assert checkout_root(lone) is None and python_path(lone) == []


@pytest.mark.parametrize(
    "imports", ["from utils import VALUE", "from tests.x.st.utils import VALUE"]
)
def test_helpers_import_both_ways_and_files_land_in_the_data_folder(tmp_path, imports):
    _, _, folder = _tree(tmp_path)
    (folder / "gen_data.py").write_text(
        f"import os\n{imports}\nopen('out.txt', 'w').write(str(VALUE) + ' ' + os.getcwd())\n"
    )
    data = tmp_path / "data"
    data.mkdir()
    run_gen_data(folder, data)
    assert (data / "out.txt").read_text() == f"3 {data}"


def test_a_failure_is_one_line_with_the_fix(tmp_path):
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "gen_data.py").write_text("import en_dtypes_not_installed_here\n")
    with pytest.raises(KernelError) as err:
        run_gen_data(folder, tmp_path)
    msg = str(err.value)
    assert "No module named 'en_dtypes_not_installed_here'" in msg
    assert msg.endswith("pip install en-dtypes-not-installed-here") and "\n" not in msg
    (folder / "gen_data.py").write_text("from utils import NumExt\n")
    with pytest.raises(KernelError, match="run the folder inside its pto-isa checkout"):
        run_gen_data(folder, tmp_path)
    (folder / "gen_data.py").write_text("raise SystemExit('bad shape 3x5')\n")
    with pytest.raises(KernelError, match="gen_data.py failed: bad shape 3x5$"):
        run_gen_data(folder, tmp_path)


def test_a_hanging_script_is_stopped(tmp_path):
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "gen_data.py").write_text("import time\ntime.sleep(60)\n")
    with pytest.raises(KernelError, match="did not finish in 1 s"):
        run_gen_data(folder, tmp_path, timeout_seconds=1)


def test_failure_reason_of_an_empty_stderr():
    assert failure_reason("") == "it exited with an error and printed nothing"
