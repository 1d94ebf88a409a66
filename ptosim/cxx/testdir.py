"""``ptosim test DIR``: run a test folder of the library's shape (kernel, main.cpp, gen_data.py).

Steps: ``gen_data.py`` runs in ``<work>/data`` as the library's scripts run it (gendata.py);
the folder's ``.cpp`` files are built with the ACL and gtest stand-ins and the test runner (one
library per target family; objects shared where the text does not depend on the target); each
gtest case then runs in its own process (isolate.py), with cwd ``<work>/data/bin`` as the
library's runners use, on a fresh device. ACL device memory is ptosim GM; each
``kernel<<<blocks, l2, stream>>>(args)`` is simulated by ``Device.run`` (host.py). Per case: the
test's own verdict, output.bin vs golden.bin, the cycles and findings of each launch, or the one
line that ended it (a ptosim error at the C++ line, a signal, the time-out). A folder without
gtest cases runs its own ``main()`` as one case.
"""

from __future__ import annotations

import ctypes
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..config import available_devices
from ..device import Device
from ..errors import KernelError, PtoSimError
from ..program import Kernel
from . import build as _build
from .gendata import checkout_root, run_gen_data
from .host import BODY_IS_KERNEL, Host, run_body_as_kernel
from .isolate import run_isolated, run_many
from .kernel import _CALLBACK, _fault_error, _Loaded

DEFAULT_CASE_TIMEOUT_SECONDS = 300.0
MAIN_CASE = "main"  # the name of the one case of a folder that has its own main() and no gtest


@dataclass
class CaseReport:
    case: str
    device: str
    # "pass", "FAIL" (a gtest check failed) or "ERROR" (stopped: error, crash, time-out)
    verdict: str
    output: str  # "bit-exact", "differs in N of M bytes", "no golden/output pair"
    cycles: list = field(default_factory=list)  # per launch (None when untimed)
    findings: list = field(default_factory=list)  # str of each finding
    error: str | None = None
    log: str = ""  # what the case printed

    @property
    def ok(self) -> bool:
        return self.verdict == "pass"


@dataclass
class FolderRun:
    """The reports of a folder, and why there are none when there are none."""

    reports: list[CaseReport]
    empty_reason: str | None = None


# the CMake functions of the reference library's test folders that say which cores a folder's
# kernels run on (tests/npu/*/src/st/testcase/CMakeLists.txt: pto_vec_st, pto_cube_st,
# pto_mix_st build for dav-c220-vec, dav-c220-cube and dav-c220)
_CMAKE_CORES = re.compile(r"^\s*pto_(vec|cube|mix)_st\s*\(", re.M)


def folder_cores(test_dir: Path) -> str | None:
    """``"vec"``, ``"cube"`` or ``"mix"`` as the folder's CMakeLists.txt builds its kernel;
    None when it does not say (the kernel's body decides, ``@pto.kernel(cores=None)``)."""
    cmake = test_dir / "CMakeLists.txt"
    try:
        m = _CMAKE_CORES.search(cmake.read_text(errors="replace"))
    except OSError:
        return None
    return m.group(1) if m else None


def folder_devices(test_dir: Path) -> list[str]:
    """The devices a folder's target allows (``--device all``): by the path's target name."""
    parts = {p.lower() for p in test_dir.resolve().parts}
    if "a2a3" in parts:
        return ["a2", "a3"]
    if "a5" in parts:
        return ["950pr", "950dt"]
    if "cpu" in parts:
        return ["cpu"]
    return [d for d in available_devices()]


def _common_includes(test_dir: Path) -> list[Path]:
    """tests/common (test_common.h ...) of the pto-isa checkout the folder lives in, and the
    folder's build/ when it has one: the library's kernel CMake files include their binary dir
    (PROJECT_BINARY_DIR, build/ under run.sh), where scripts such as the a5 flash-attention
    folder's generate_cases.py write headers the kernel includes."""
    root = checkout_root(test_dir)
    out = [root / "tests" / "common"] if root is not None else []
    if (test_dir / "build").is_dir():
        out.append(test_dir / "build")
    return out


def output_pairs(case_dir: Path) -> list[tuple[Path, Path]]:
    """The (golden, output) files of a case the test wrote: ``golden<S>.bin`` with
    ``output<S>.bin``; a lone ``golden.bin`` with the case's only ``output*.bin`` (the library's
    tcvt test writes ``output_z.bin`` and compares it with ``golden.bin``)."""
    outputs = sorted(case_dir.glob("output*.bin"))
    pairs = []
    for gold in sorted(case_dir.glob("golden*.bin")):
        out = case_dir / ("output" + gold.name[len("golden") :])
        if out.is_file():
            pairs.append((gold, out))
        elif gold.name == "golden.bin" and len(outputs) == 1:
            pairs.append((gold, outputs[0]))
    return pairs


def compare_outputs(case_dir: Path) -> str:
    """Whether the case's outputs equal its golden files byte for byte (``output_pairs``), on
    top of the test's own comparison with its tolerance."""
    pairs = output_pairs(case_dir)
    if not pairs:
        return NO_PAIR
    differing, total, short = 0, 0, []
    for gold, out in pairs:
        g, o = gold.read_bytes(), out.read_bytes()
        n = min(len(g), len(o))
        total += n
        differing += sum(1 for a, b in zip(g[:n], o[:n]) if a != b)
        if len(g) != len(o):
            short.append(f"{gold.name} {len(g)} B, {out.name} {len(o)} B")
    if differing:
        return f"differs in {differing} of {total} bytes"
    if short:
        return f"bit-exact on the first {total} bytes ({'; '.join(short)})"
    return "bit-exact"


NO_PAIR = "no golden/output pair"


def run_test_dir(test_dir, devices: list[str], **options) -> list[CaseReport]:
    """Run every case of ``test_dir`` on each device (options: those of ``run_folder``)."""
    return run_folder(test_dir, devices, **options).reports


def run_folder(
    test_dir,
    devices: list[str],
    *,
    compiler: str | None = None,
    work: Path | None = None,
    case_filter: str = "",
    case_timeout_seconds: float | None = DEFAULT_CASE_TIMEOUT_SECONDS,
    jobs: int | None = None,
) -> FolderRun:
    """``run_test_dir`` with the reason an empty run is empty.

    Raises:
        CxxBuildError: the folder does not build. KernelError: no folder, no sources, or
        gen_data.py failed.
    """
    test_dir = Path(test_dir).resolve()
    if not test_dir.is_dir():
        raise KernelError(f"ptosim test: {test_dir} is not a folder")
    sources = sorted(p for p in test_dir.iterdir() if p.suffix in (".cpp", ".cc", ".cxx"))
    if not sources:
        raise KernelError(f"ptosim test: no .cpp files in {test_dir}")
    if work is None:  # a temporary folder, removed after the run (gen_data.py output can be GBs)
        with tempfile.TemporaryDirectory(prefix=f"ptosim_test_{test_dir.name}_") as tmp:
            return _run_folder(test_dir, devices, sources, Path(tmp), compiler, case_filter,
                               case_timeout_seconds, jobs)  # fmt: skip
    return _run_folder(test_dir, devices, sources, Path(work).resolve(), compiler, case_filter,
                       case_timeout_seconds, jobs)  # fmt: skip


def _run_folder(
    test_dir, devices, sources, work: Path, compiler, case_filter, case_timeout_seconds, jobs
) -> FolderRun:
    data = work / "data"
    (data / "bin").mkdir(parents=True, exist_ok=True)
    run_gen_data(test_dir, data, timeout_seconds=case_timeout_seconds)
    jobs = jobs or os.cpu_count() or 1  # cases at once, each in its own process
    reports: list[CaseReport] = []
    reasons: list[str] = []
    libraries: dict[str, dict[str, _build.Library]] = {}
    cores = folder_cores(test_dir)
    for device in devices:
        target = Device(device).target
        # the host code runs in the build of the vector half (the cube half for a cube-only
        # folder); a mixed folder's cube core runs the cube half's build of the same kernel
        host_half = _build.flavour(target, cores or "vec", "aic" if cores == "cube" else "vec")
        if target not in libraries:
            halves = {}
            kinds = [host_half] + ([_build.flavour(target, "mix", "aic")] if cores == "mix" else [])
            for kind in kinds:
                halves[kind] = _build.build_test(
                    sources, target=target, compiler=compiler,
                    include_dirs=_common_includes(test_dir), kind=kind,
                )  # fmt: skip
            libraries[target] = halves
        lib = libraries[target][host_half]
        setup = CaseSetup(cores, host_half, libraries[target])
        names, has_main = _listing(lib, case_timeout_seconds)
        if not names and has_main:
            names = [MAIN_CASE]
        if not names:
            reasons.append(
                "the test program registers no gtest cases (no TEST / TEST_F / TEST_P / "
                "TYPED_TEST) and defines no main()"
            )
        chosen = [n for n in names if not case_filter or case_filter in n]
        if names and not chosen:
            reasons.append(f"no case name contains {case_filter!r} (cases: {', '.join(names)})")
        if chosen:
            _warm_up(device)
        reports += _isolated_cases(
            lib, [(names.index(n), n) for n in chosen], device, data, case_timeout_seconds, jobs,
            setup,
        )  # fmt: skip
    return FolderRun(reports, "; ".join(dict.fromkeys(reasons)) or None)


def _warm_up(device: str) -> None:
    """Import and configure what a simulation needs once, in this process, so that each case's
    child process starts with it (about a second per case otherwise)."""
    Device(device).run(Kernel(lambda: None))


def _load(lib: _build.Library) -> _Loaded:
    loaded = _Loaded(lib)
    dll = loaded.dll
    dll.ptosim_test_count.restype = ctypes.c_int
    dll.ptosim_test_name.restype = ctypes.c_char_p
    dll.ptosim_test_name.argtypes = [ctypes.c_int]
    dll.ptosim_test_run.argtypes = [ctypes.c_int]
    dll.ptosim_run_pending.restype = ctypes.c_int
    dll.ptosim_run_main.argtypes = [ctypes.c_void_p]
    dll.ptosim_run_main.restype = ctypes.c_int
    return loaded


def _main_address(loaded: _Loaded) -> int | None:
    """The address of the program's own ``main`` (a folder run like a plain executable)."""
    try:
        return ctypes.cast(loaded.dll.main, ctypes.c_void_p).value
    except AttributeError:
        return None


def _listing(lib: _build.Library, timeout_seconds: float | None) -> tuple[list[str], bool]:
    """The gtest case names and whether there is a main(), read in a child process (the test
    program's static constructors run there, not in ptosim's process)."""

    def names():
        loaded = _load(lib)
        dll = loaded.dll
        return [dll.ptosim_test_name(i).decode() for i in range(dll.ptosim_test_count())], (
            _main_address(loaded) is not None
        )

    outcome = run_isolated(names, timeout_seconds)
    if outcome.crash is not None:
        raise KernelError(
            f"ptosim test: the test program failed while starting (static initialisation): "
            f"{outcome.crash.reason}"
        )
    return outcome.value


@dataclass
class CaseSetup:
    """How a folder's cases run: the folder's launch kind (``folder_cores``), the build half
    the host code runs in, and the library of each half (two for a mixed folder)."""

    cores: str | None = None
    host_half: str = "vec"
    halves: dict = field(default_factory=dict)


def _isolated_cases(lib, cases, device: str, data: Path, timeout_seconds, jobs: int,
                    setup: CaseSetup | None = None):  # fmt: skip
    """The reports of ``cases`` ((index, name) pairs), each run in its own process."""

    def case(index, name):
        return lambda: _run_case(lib, index, name, device, data, setup)

    outcomes = run_many([case(i, n) for i, n in cases], timeout_seconds, jobs)
    reports = []
    for (_, name), outcome in zip(cases, outcomes):
        if outcome.crash is not None:
            reports.append(CaseReport(
                name, device, "ERROR", compare_outputs(data / name), [], [],
                outcome.crash.reason, outcome.crash.output,
            ))  # fmt: skip
            continue
        report = outcome.value
        report.log = outcome.output
        reports.append(report)
    return reports


def _run_case(lib: _build.Library, index: int, name: str, device: str, data: Path,
              setup: CaseSetup | None = None) -> CaseReport:  # fmt: skip
    """One case in this (child) process: the gtest case ``index`` (or the program's main)."""
    loaded = _load(lib)
    setup = setup or CaseSetup()
    halves = {setup.host_half: loaded}
    for kind, other in setup.halves.items():  # the other half shares the host's GM window
        if kind != setup.host_half:
            halves[kind] = _Loaded(other, adopt_gm_base=loaded.gm_base)
    os.chdir(data / "bin")  # the library's tests read ../<Suite>.<case>/input.bin
    rc, host = _run_hosted(loaded, index, name, device, setup.cores, halves)
    if rc == 2 and any(k in str(host.error) for k in BODY_IS_KERNEL):
        # the test body drives tiles itself: run it as a single-block kernel (unless it is host
        # code after all: then the first error is the one to report)
        first = host
        rc, host = run_body_as_kernel(loaded, index, Device(device))
        if rc == 2 and "is host code" in str(host.error):
            rc, host = 2, first
    error = None
    if rc == 2:
        error = str(host.error) if host.error is not None else "stopped by ptosim"
    elif rc == 3:
        error = str(_fault_error(loaded))
    elif rc == 4:
        error = "the test ended with a C++ exception"
    elif rc == 5:
        error = f"main() returned {int(loaded.dll.ptosim_main_status())}"
    verdict = {0: "pass", 1: "FAIL", 5: "FAIL"}.get(rc, "ERROR")
    return CaseReport(
        name,
        device,
        verdict,
        compare_outputs(data / name),
        [r.cycles for r in host.runs],
        [str(f) for r in host.runs for f in r.findings],
        error,
    )


def _run_hosted(loaded: _Loaded, index: int, name: str, device: str, cores=None,
                halves=None) -> tuple[int, Host]:  # fmt: skip
    host = Host(loaded, Device(device), cores, halves)
    for lib in {id(x): x for x in [loaded, *(halves or {}).values()]}.values():
        lib.dll.ptosim_set_callback(host.callback)  # the other half's kernel calls back too
    loaded.dll.ptosim_set_block(0, 1)
    try:
        if name == MAIN_CASE and index == 0 and loaded.dll.ptosim_test_count() == 0:
            rc = loaded.dll.ptosim_run_main(_main_address(loaded))
        else:
            rc = loaded.dll.ptosim_test_run(index)
        if rc in (0, 1, 5) and host.implicit:  # a plain call after the last runtime call
            try:
                host.flush()
            except PtoSimError as exc:
                host.error, rc = exc, 2
    finally:
        loaded.dll.ptosim_set_callback(_CALLBACK(0))
    return rc, host


def print_reports(reports: list[CaseReport], *, empty_reason: str | None = None,
                  verbose: bool = False) -> None:  # fmt: skip
    for r in reports:
        tail = f"  <- {r.error.splitlines()[0]}" if r.error else ""
        if not r.error and r.findings:
            tail = f"  ({len(r.findings)} finding(s): {r.findings[0].splitlines()[0]})"
        cycles = ",".join("-" if c is None else str(c) for c in r.cycles) or "-"
        print(f"{r.device:<6} {r.case:<40} {r.verdict:<5} {r.output:<24} cycles {cycles}{tail}")
        if verbose and r.log.strip():
            print("\n".join("    | " + ln for ln in r.log.rstrip().splitlines()))
        elif r.verdict == "FAIL":
            for line in _failure_lines(r.log):
                print(f"    | {line}")
    ok = sum(r.ok for r in reports)
    exact = sum(r.output == "bit-exact" for r in reports)
    paired = sum(r.output != NO_PAIR for r in reports)
    why = f" ({empty_reason})" if not reports and empty_reason else ""
    if reports and not paired:  # no case left a pair of files to compare: say so
        exact_text = "no golden*.bin/output*.bin files to compare byte for byte"
    else:
        unpaired = len(reports) - paired
        exact_text = f"{exact}/{len(reports)} outputs bit-exact to their golden files" + (
            f" ({unpaired} without a golden/output pair)" if unpaired else ""
        )
    print(f"{ok}/{len(reports)} cases pass, {exact_text}{why}")


def _failure_lines(log: str, most: int = 6) -> list[str]:
    """The gtest failure messages of a case's output (``file:line: Failure`` and the next line)."""
    lines = log.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.endswith(": Failure"):
            out += lines[i : i + 2]
    return out[:most]
