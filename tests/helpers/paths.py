"""Where things are, for tests: the repository root and the C++ test sources."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository (README.md, examples/, configs/)
CXX_DIR = ROOT / "tests" / "cxx"  # the C++ test kernels (*.cpp) and folders
HARNESS_FOLDERS = CXX_DIR / "harness" / "st" / "testcase"  # test folders of the library's shape
