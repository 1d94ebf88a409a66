"""A kernel folder whose header is written by one of its scripts before the library's build
(the a5 flash-attention folder's run.sh runs scripts/generate_cases.py, which writes
build/generated_cases.h): `ptosim test` names the header and the script at the kernel's line
instead of a bare compile error, and once the script has run the folder builds, build/ being
on the include path as in the library's CMake files."""

from __future__ import annotations

import shutil
import subprocess
import sys

from ptosim.cli import main
from tests.helpers.paths import CXX_DIR

SCRIPT = """\
from pathlib import Path

out = Path(__file__).resolve().parent.parent / "build" / "vadd_cases.h"
out.parent.mkdir(exist_ok=True)
out.write_text("#define VADD_CASES_READY 1\\n")
"""


def _folder(tmp_path):
    folder = tmp_path / "vadd_generated"
    shutil.copytree(CXX_DIR / "vadd_test", folder)
    kernel = folder / "kernel.cpp"
    text = kernel.read_text().replace(
        "#include <pto/pto-inst.hpp>\n",
        '#include <pto/pto-inst.hpp>\n#include "vadd_cases.h"\n'
        "static_assert(VADD_CASES_READY == 1);\n",
    )
    kernel.write_text(text)
    (folder / "scripts").mkdir()
    (folder / "scripts" / "make_cases.py").write_text(SCRIPT)
    return folder


def test_a_header_a_script_writes_is_named_with_the_script(tmp_path, capsys):
    folder = _folder(tmp_path)
    line = next(
        n for n, t in enumerate((folder / "kernel.cpp").read_text().splitlines(), 1)
        if "vadd_cases.h" in t
    )  # fmt: skip
    code = main(["test", str(folder), "--device", "a2", "--work", str(tmp_path / "w")])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert code != 0
    assert f"kernel.cpp:{line}: vadd_cases.h is not in the folder" in out, out
    assert "scripts/make_cases.py" in out and "build/" in out, out


def test_after_the_script_ran_the_folder_builds_and_passes(tmp_path, capsys):
    folder = _folder(tmp_path)
    subprocess.run([sys.executable, str(folder / "scripts" / "make_cases.py")], check=True)
    code = main(["test", str(folder), "--device", "a2", "--work", str(tmp_path / "w")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "3/3 cases pass" in out, out
