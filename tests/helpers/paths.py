"""Where things are, for tests: the repository root and the C++ test sources."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository (README.md, examples/, configs/)
CXX_DIR = ROOT / "tests" / "cxx"  # the C++ test kernels (*.cpp) and folders
HARNESS_FOLDERS = CXX_DIR / "harness" / "st" / "testcase"  # test folders of the library's shape
# a pto-isa checkout, when one is at hand: PTOSIM_PTO_ISA, else shared/pto-isa beside the repo
# (or beside the folder of work trees)
PTO_ISA = Path(
    os.environ.get("PTOSIM_PTO_ISA")
    or next(
        (p / "shared" / "pto-isa" for p in (ROOT.parent, ROOT.parent.parent)
         if (p / "shared" / "pto-isa").is_dir()),
        ROOT.parent / "shared" / "pto-isa",
    )
)  # fmt: skip
