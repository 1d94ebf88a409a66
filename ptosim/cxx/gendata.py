"""Running a test folder's ``gen_data.py`` the way the library's own test scripts run it.

The library's runners execute ``python gen_data.py`` with the build folder as the working
directory (the script writes ``<Suite>.<case>/input.bin`` and ``golden.bin`` there) and with the
test tree on ``PYTHONPATH``: the folder's ``st`` directory (two levels up from
``testcase/<name>/``, where the shared ``utils.py`` lives) and the checkout's root (for
``from tests.cpu.st.utils import ...``). ptosim does the same, running the script in place so
that modules next to it import too, and with no arguments.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from ..errors import KernelError

GEN_DATA = "gen_data.py"


def checkout_root(folder: Path) -> Path | None:
    """The pto-isa checkout a folder lives in (the nearest ancestor holding tests/common/
    test_common.h), or None."""
    for parent in [folder, *folder.parents]:
        if (parent / "tests" / "common" / "test_common.h").is_file():
            return parent
    return None


def python_path(folder: Path) -> list[Path]:
    """The test-tree folders gen_data.py may import helpers from: the folder's grandparent (the
    ``st`` directory of ``st/testcase/<name>``) when it holds Python helpers, and the checkout
    root when the folder lives in one."""
    out = []
    st = folder.parent.parent
    if any(st.glob("*.py")):
        out.append(st)
    root = checkout_root(folder)
    if root is not None and root not in out:
        out.append(root)
    return out


def run_gen_data(folder: Path, data: Path, *, timeout_seconds: float | None = None) -> None:
    """Run ``folder/gen_data.py`` (when there is one) in ``data``.

    Raises:
        KernelError: the script failed (its last error line, and how to fix a missing module)
            or ran out of time.
    """
    script = folder / GEN_DATA
    if not script.is_file():
        return
    env = dict(os.environ)
    extra = [str(p) for p in python_path(folder)]
    if env.get("PYTHONPATH"):
        extra.append(env["PYTHONPATH"])
    if extra:
        env["PYTHONPATH"] = os.pathsep.join(extra)
    try:
        proc = subprocess.run(
            [sys.executable, str(script)],
            cwd=data,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_seconds,
        )
    except subprocess.TimeoutExpired:
        raise KernelError(
            f"ptosim test: {GEN_DATA} did not finish in {timeout_seconds:g} s"
        ) from None
    if proc.returncode != 0:
        raise KernelError(f"ptosim test: {GEN_DATA} failed: {failure_reason(proc.stderr)}")


def failure_reason(stderr: str) -> str:
    """One line: the script's last error line (a missing module says which package to install)."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else "it exited with an error and printed nothing"
    m = re.search(r"No module named '([\w.]+)'", last)
    if m:
        top = m.group(1).split(".")[0]
        where = next((ln for ln in reversed(lines) if ln.startswith("File ")), "")
        hint = f"pip install {top.replace('_', '-')}"
        if top in ("utils", "tests"):
            hint = (
                "the helper lives in the library's test tree: run the folder inside its pto-isa "
                "checkout"
            )
        return f"{last} ({where}); {hint}" if where else f"{last}; {hint}"
    return last
