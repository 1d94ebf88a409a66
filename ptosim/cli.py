"""The ``ptosim`` command line.

Exit codes: 0 success; 1 the command's verdict is negative (``check`` found a finding, a kernel
file's ``check`` failed, ``run --strict`` had findings, the demo mismatched, a ``sweep`` point
failed); 2 the kernel or
the input is wrong (any PtoSimError: constraint, deadlock, bad device ...; also usage errors),
or the machine is (no space left on the disk);
3 internal error (a bug in ptosim: please report it).

Every error is one line on stderr, blamed on the kernel file's line (or the config key) that
caused it; ``--traceback`` adds the kernel file's own frames (the whole traceback for an
internal error).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import sysconfig
import time
import tomllib
import traceback
from pathlib import Path

from . import (
    DeadlockError,
    Device,
    FindingsError,
    KernelError,
    PtoSimError,
    __version__,
    available_devices,
    load_config,
    targets,
)
from .bench import format_table, parse_devices, parse_shapes, plot, row_vs_elem
from .bench_embedding import compare
from .bench_embedding import format_table as embedding_table
from .config_files import config_path, resolve, sourced_lines
from .cxx import cache as cxx_cache
from .cxx.cli import CxxRunSpec
from .cxx.testdir import folder_devices, print_reports, run_folder
from .demo import run_demo
from .isa.registry import dtype_list, specs
from .kernelfile import load, load_all
from .sourcepatch import patch_text, unified_diff
from .sources import SHORT, instruction_sources
from .sweep import default_output, load_spec, run_sweep
from .targets import spec_of
from .targets import specs as target_specs

# the device whose config labels a target's timing sources in ``instructions -v``
_TIMED_DEVICE = {"a2a3": "a2", "a5": "950pr"}


def _cmd_instructions(args) -> int:
    families = target_specs()
    only = None if args.device is None else spec_of(load_config(args.device).target)
    shown = [s for s in specs() if only is None or only.defines(s.name)]
    timed = {}
    if args.verbose:
        names = [args.device] if args.device else [_TIMED_DEVICE[t] for t in ("a2a3", "a5")]
        timed = {load_config(n).target: load_config(n) for n in names}
    for s in shown:
        print(f"{s.name:<18} {s.family:<24} {s.summary}")
        if args.verbose:
            print(f"    {s.signature}")
            for t in families:
                dts = t.dtypes_of(s.name)
                print(f"    {t.name:<5} {'-' if dts is None else dtype_list(dts) or '(no data)'}")
            for cfg in timed.values():
                src = instruction_sources(cfg, s.name)
                if src:
                    text = "; ".join(f"{SHORT[k]}: {', '.join(v)}" for k, v in src.items())
                    print(f"    timing on {cfg.name}: {text}")
    if args.verbose and timed:
        print(
            "timing sources: fitted = fitted to hardware measurements (docs/calibration.md), "
            "vendor = the vendor's cost model or simulator parameters, public = a public "
            "figure, estimate = chosen without a measurement (configs/*.toml say how)"
        )
    print(f"{len(shown)} instructions")
    return 0


def _cmd_devices(args) -> int:
    for name in available_devices():
        cfg = load_config(name)
        ub = f"UB {cfg.memory.size_of('UB') // 1024} KiB"
        if cfg.memory.ub_reserve is not None:  # 950: the platform config's usable part
            ub += f" ({cfg.memory.ub_size_bytes // 1024} usable)"
        print(f"{name:<6} target {cfg.target:<5} {ub}  {cfg.description}")
    return 0


def _cmd_config(args) -> int:
    cfg = load_config(args.device)
    if not args.sources:
        print(json.dumps(cfg.model_dump(mode="json"), indent=2))
        return 0
    resolved = resolve(config_path(args.device))
    print(f"# {args.device}: " + " extends ".join(str(p) for p in resolved.chain))
    for line in sourced_lines(cfg.model_dump(mode="json"), resolved):
        print(line)
    return 0


def _cmd_demo(args) -> int:
    return 0 if run_demo() else 1


class _Progress:
    """Progress of a long run on stderr (a terminal only): the phase, and the simulated
    instruction count while simulating."""

    def __init__(self):
        self.name = "simulating"

    def phase(self, name: str) -> None:
        self.name = name
        print(f"\rptosim: {name}...{' ' * 30}", end="", file=sys.stderr, flush=True)

    def __call__(self, done: int, total: int | None) -> None:
        count = f"{done}" if total is None else f"{done}/{total}"
        print(
            f"\rptosim: {self.name}... {count} instructions",
            end="",
            file=sys.stderr,
            flush=True,
        )


def _progress_printer():
    """A progress reporter on stderr when it is a terminal, else None."""
    return _Progress() if sys.stderr.isatty() else None


def _overrides(pairs) -> dict:
    """``KEY=VALUE`` strings -> a dict; VALUE parsed as a TOML value (number, string, bool)."""
    out = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep:
            raise KernelError(f"--set expects KEY=VALUE, got {pair!r}")
        try:
            out[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            out[key.strip()] = value.strip()
    return out


def _devices(spec: str) -> list[str]:
    """``all``, a device name, a .toml path or a comma list of them (duplicates dropped).

    Raises:
        KernelError: an empty list. ConfigError: an unknown device.
    """
    if os.path.exists(spec):  # a config path may itself contain a comma
        return [spec]
    out: list[str] = []
    for item in spec.split(","):
        name = item.strip()
        for n in available_devices() if name.lower() == "all" else [name] if name else []:
            load_config(n)  # an unknown name fails here, before anything runs
            if n not in out:
                out.append(n)
    if not out:
        raise KernelError(f"--device: no device given; use {', '.join(available_devices())}, all")
    return out


def _per_device(path: str | None, device: str, several: bool) -> str | None:
    """``out.json`` -> ``out.a2.json`` when one command writes a file per device."""
    if path is None or not several:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}.{os.path.splitext(os.path.basename(device))[0]}{ext}"


def _execute(spec, device: str, args):
    dev = Device(device, overrides=_overrides(args.set))
    kargs, kwargs = spec.build_inputs(dev)
    options = spec.run_options()
    if args.block_dim is not None:
        options["block_dim"] = args.block_dim
    t0 = time.perf_counter()
    run = dev.run(spec.kernel, *kargs, progress=_progress_printer(), **options, **kwargs)
    wall = time.perf_counter() - t0
    if sys.stderr.isatty():
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    return dev, kargs, run, wall


def _cmd_run(args) -> int:
    devices = _devices(args.device)
    several = len(devices) > 1
    for device in devices:  # fail before simulating anything
        if (args.trace or args.csv) and not several and load_config(device).timing is None:
            raise KernelError(
                f"--trace/--csv: device {device} runs untimed; use a timed device such as a2"
            )
    if getattr(args, "entry", None) is not None or args.file.lower().endswith(
        (".cpp", ".cc", ".cxx", ".c++")
    ):  # a C++ kernel file (ptosim/cxx/cli.py)
        spec = CxxRunSpec(
            args.file, args.entry, args.arg, args.out, args.compiler, args.block_dim, several,
            cores=args.cores,
        )  # fmt: skip
    else:
        spec = load(args.file, several_hint="ptosim check FILE runs every kernel of a file")
    status = 0
    for device in devices:
        if several:
            print(f"== {spec.kernel.name} on {device} ==")
        try:
            dev, kargs, run, wall = _execute(spec, device, args)
        except DeadlockError as exc:  # the trace up to the stuck state shows where it hangs
            target = _per_device(args.trace, device, several)
            if target is not None and exc.partial_run is not None:
                exc.partial_run.write_trace(target)
                print(f"trace up to the deadlock written to {target}", file=sys.stderr)
            raise
        timed = run.trace is not None
        print(run.summary(per_instruction=args.per_instruction) if timed else run.summary())
        print(f"(simulated in {wall:.3f} s wall time)")
        for path, write, what in (
            (args.trace, run.write_trace, "trace"),
            (args.csv, run.write_csv, "pipe summary"),
        ):
            target = _per_device(path, device, several)
            if target is None:
                continue
            if not timed:
                print(f"no {what} for {device}: it runs untimed")
                continue
            write(target)
            print(
                f"{what} written to {target}"
                + (" (open it in https://ui.perfetto.dev)" if what == "trace" else "")
            )
        verdict = spec.check(dev, kargs, run)
        if verdict is not None:
            print(f"check: {'passed' if verdict else 'FAILED'}")
            if not verdict:
                status = 1
        if args.strict and run.findings:
            status = 1
    return status


def _cmd_test(args) -> int:
    """`ptosim test DIR`: see ptosim/cxx/testdir.py; exit 1 when any case fails or none ran."""
    if args.device.strip().lower() == "all":
        devices = folder_devices(Path(args.dir))
    else:
        devices = _devices(args.device)
    run = run_folder(
        args.dir, devices, compiler=args.compiler, work=args.work, case_filter=args.filter,
        case_timeout_seconds=args.case_timeout or None, jobs=args.jobs,
    )  # fmt: skip
    print_reports(run.reports, empty_reason=run.empty_reason, verbose=args.verbose)
    return 0 if run.reports and all(r.ok for r in run.reports) else 1


def _cmd_cache(args) -> int:
    """`ptosim cache [clear]`: the C++ build cache's folder, size and cap; or empty it."""
    if args.action == "clear":
        freed = cxx_cache.clear()
        print(f"removed {cxx_cache.cache_dir()} ({freed / 2**20:.1f} MB)")
        return 0
    u = cxx_cache.usage()
    print(f"C++ build cache: {u.folder}")
    print(
        f"  {u.size_bytes / 2**20:.1f} MB in {u.libraries} libraries and {u.objects} objects; "
        f"cap {u.cap_bytes / 2**20:.0f} MB (PTOSIM_CACHE_MAX_MB; least recently used removed first)"
    )
    return 0


def _check_specs(args) -> list:

    if getattr(args, "entry", None) is not None or args.file.lower().endswith(
        (".cpp", ".cc", ".cxx", ".c++")
    ):  # a C++ kernel file (ptosim/cxx/cli.py)
        return [
            CxxRunSpec(
                args.file, args.entry, args.arg, None, args.compiler, args.block_dim,
                cores=args.cores,
            )
        ]  # fmt: skip
    return load_all(args.file)


def _finding_tree(f) -> dict:
    out = {"code": f.code, "kind": f.kind, "message": f.message,
           "instructions": list(f.instructions)}  # fmt: skip
    if f.patch:
        out["patch"] = [e.__dict__ for e in f.patch]
    if f.fix:
        out["fix"] = [e.__dict__ for e in f.fix]
    out["consequences"] = [_finding_tree(c) for c in f.consequences]
    return out


def _cmd_check(args) -> int:
    """`ptosim check FILE`: causes first, each with its count of consequences; ``--fix``
    prints the repairs as a unified diff of the kernel file, ``--apply`` writes them."""
    devices = _devices(args.device)
    status = 0
    edits: list = []
    report: list[dict] = []
    path = args.file.split(".py:", 1)[0] + ".py" if ".py:" in args.file else args.file
    for spec in _check_specs(args):
        for device in devices:
            stopped = None
            try:
                dev, _, run, _ = _execute(spec, device, args)
                findings = run.findings
            except DeadlockError as exc:  # a hang is the verdict; its causes still come first
                stopped, findings = exc, list(exc.findings)
                dev = None
            name = f"{spec.kernel.name} on {dev.name if dev else device}"
            report.append({"kernel": spec.kernel.name, "device": device,
                           "deadlock": stopped is not None,
                           "findings": [_finding_tree(f) for f in findings]})  # fmt: skip
            if stopped is None and not findings:
                print(f"{name}: no findings")
                continue
            status = 1
            if stopped is not None:
                print(f"{name}: {stopped}")
            total = sum(1 + len(f.consequences) for f in findings)
            if total == len(findings):
                print(f"{name}: {total} finding(s)")
            else:
                print(f"{name}: {len(findings)} cause(s), {total} finding(s) in all")
            for f in findings:
                print(f"  - {f}")
                if f.consequences:
                    print(f"    {len(f.consequences)} consequence(s) (--json lists them)")
                edits += [e for e in f.patch if e not in edits]
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)
        print(f"findings written to {args.json}")
    if args.fix or args.apply:
        _print_fix(path, edits, args.apply)
    return status


def _print_fix(path: str, edits: list, apply: bool) -> None:
    with open(path) as fh:
        old = fh.read()
    new, skipped = patch_text(old, path, edits)
    for e in skipped:
        print(f"fix not applied (its line is not in {path}): {e.describe()}", file=sys.stderr)
    if new == old:
        print("no fix to apply")
        return
    print(unified_diff(old, new, path), end="")
    if apply:
        with open(path, "w") as fh:
            fh.write(new)
        print(f"fixes applied to {path}")


def _cmd_bench_embedding(args) -> int:
    if args.lookups is None:
        raise KernelError("bench row-vs-elem --table needs --lookups N (token ids to look up)")
    ((table_rows, cols),) = parse_shapes(args.table)
    devices = parse_devices(args.device)
    print(
        f"Row vs Elem for a whole embedding lookup: {args.lookups} lookups of a "
        f"{table_rows}x{cols} {args.dtype} table on {args.cores} core(s), every core's index "
        "loads, gathers and stores simulated; GB/s = looked-up bytes per simulated second",
        flush=True,
    )
    rows = compare(
        devices, table_rows, cols, args.dtype, args.lookups, args.cores, tile=args.tile,
        seed=args.seed,
    )  # fmt: skip
    print(embedding_table(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
        print(f"rows written to {args.json}")
    return 0


def _cmd_bench_row_vs_elem(args) -> int:
    if args.table is not None:
        return _cmd_bench_embedding(args)
    if args.lookups is not None or args.cores != 1:
        raise KernelError("bench row-vs-elem: --lookups and --cores go with --table ROWSxCOLS")
    if args.plot:  # fail before the sweep, not after it
        try:
            # matplotlib is the optional extra "plot": probed before the sweep runs
            import matplotlib  # noqa: F401
        except ImportError:
            print(
                'ptosim: error: --plot needs matplotlib; install it with pip install -e ".[plot]"',
                file=sys.stderr,
            )
            return 2

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rows = row_vs_elem(
        args.device,
        args.shapes,
        args.dtype,
        cases=args.cases,
        seed=args.seed,
        conflict=args.conflict,
        progress=progress,
        scheduler=args.scheduler,
        output=args.output,
        workers=args.workers,
    )
    print(
        f"Row vs Elem, {rows[0]['dtype']}: cycles of one MGATHER/MSCATTER on one core, GB/s of "
        "the elements it moves per simulated second; Row/Elem = Elem cycles / Row cycles (for "
        "a whole multi-core embedding, give --table ROWSxCOLS --lookups N --cores K)"
    )
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
        print(f"rows written to {args.json}")
    if args.plot:
        plot(rows, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _cmd_sweep(args) -> int:
    spec = load_spec(args.spec)
    output = args.output or str(default_output(spec))
    rows = run_sweep(
        spec,
        output,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        retry_failed=args.retry_failed,
        workers=args.workers,
    )
    failed = [r for r in rows if r.get("status") != "ok"]
    print(f"{len(rows)} point(s), {len(rows) - len(failed)} ok, {len(failed)} failed")
    for row in failed[:10]:
        what = " ".join(str(row[k]) for k in ("kernel", "device", "dtype", "shape") if row.get(k))
        print(f"  {row['status']}: {what}: {row.get('error')}")
    if len(failed) > 10:
        print(f"  ... and {len(failed) - 10} more (see the status and error columns)")
    print(f"table written to {output}")
    return 1 if failed else 0


def _library_dirs() -> tuple[str, ...]:
    """Directories whose frames are never the user's: ptosim, targets, the stdlib, site-packages."""
    dirs = {os.path.dirname(os.path.abspath(__file__)), os.path.dirname(targets.__file__)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if key in sysconfig.get_paths():
            dirs.add(sysconfig.get_paths()[key])
    return tuple(os.path.abspath(d) + os.sep for d in dirs)


def _user_frames(exc: BaseException) -> list:
    """The traceback frames of ``exc`` in the user's own files (kernel files and their helpers)."""
    lib = _library_dirs()
    return [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith("<") and not os.path.abspath(f.filename).startswith(lib)
    ]


def _where(frames) -> str | None:
    """``file:line`` of the innermost user frame."""
    if not frames:
        return None
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}"


def _one_line(exc: PtoSimError) -> str:
    """A PtoSimError as one line: a findings error summarises, other line breaks become '; '."""
    if isinstance(exc, FindingsError):
        first = str(exc.findings[0]).splitlines()[0] if exc.findings else ""
        return (
            f"[{exc.code}] {len(exc.findings)} finding(s) (strict run), first: {first}; "
            "ptosim check FILE lists them all"
        )
    return "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())


def _report(exc: BaseException, show_traceback: bool) -> int:
    """Print the one-line error for an exception escaping a command; return the exit code."""
    frames = _user_frames(exc)
    where = _where(frames)
    if isinstance(exc, SystemExit):
        text, code = f"the kernel file called sys.exit({exc.code!r})", 2
    elif isinstance(exc, PtoSimError):
        text, code = _one_line(exc), 2
    elif isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        # the machine, not ptosim: say which file could not be written and what to do about it
        at = f" writing {exc.filename}" if exc.filename else ""
        text = (
            f"no space left on the disk{at}: free some space, or point PTOSIM_CACHE_DIR (C++ "
            "builds) and TMPDIR (test folders' work files) at a disk with room"
        )
        code = 2
    elif where is not None:  # raised by the kernel file (or a library it called): the user's
        text, code = " ".join(f"{type(exc).__name__}: {exc}".split()), 2
    else:
        text, code = f"internal error: {exc!r} (please report it)", 3
    if show_traceback:
        if code == 3:
            traceback.print_exception(exc, file=sys.stderr)
        elif frames:
            print("Traceback (the kernel file's frames):", file=sys.stderr)
            print("".join(traceback.format_list(frames)), end="", file=sys.stderr)
    blame = f" in {where}" if where and where not in text else ""
    print(f"ptosim: error{blame}: {text}", file=sys.stderr)
    return code


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2) instead of the usage block."""

    def error(self, message: str):
        self.exit(2, f"ptosim: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ptosim", description="Ascend PTO tile instruction simulator")
    p.add_argument("--version", action="version", version=f"ptosim {__version__}")
    p.add_argument(
        "--traceback", action="store_true", help="on an error, also show the kernel file's frames"
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("devices", help="list the devices").set_defaults(func=_cmd_devices)
    ins = sub.add_parser("instructions", help="list the instructions (from the registry)")
    ins.add_argument("--device", help="only those the device's target defines")
    ins.add_argument("-v", "--verbose", action="store_true", help="signatures and dtypes")
    ins.set_defaults(func=_cmd_instructions)
    c = sub.add_parser("config", help="print a device's resolved config (its bases merged) as JSON")
    c.add_argument("device", help="a device name or a path to a config TOML")
    c.add_argument(
        "--sources",
        action="store_true",
        help="one line per value with the file that sets it and its source comment",
    )
    c.set_defaults(func=_cmd_config)
    sub.add_parser("demo", help="run the demo kernel on every device").set_defaults(func=_cmd_demo)
    for cmd, helptext, fn in (
        ("run", "run a kernel file: summary, findings, trace", _cmd_run),
        ("check", "run a kernel file's hazard analysis; exit 1 on any finding", _cmd_check),
    ):
        r = sub.add_parser(cmd, help=helptext)
        r.add_argument(
            "file", help="FILE.py or FILE.py:kernel (see ptosim/kernelfile.py), or KERNEL.cpp"
        )
        r.add_argument(
            "--device",
            default="a2",
            help="cpu, a2, a3, 950pr, 950dt, a .toml, a comma list or all",
        )
        r.add_argument("--block-dim", type=_positive_int, default=None, help="number of blocks")
        r.add_argument(
            "--traceback",
            action="store_true",
            default=argparse.SUPPRESS,
            help="on an error, also show the kernel file's frames",
        )
        r.add_argument(
            "--set",
            action="append",
            metavar="KEY=VALUE",
            help="override a config value, e.g. timing.simt.gm_latency_cycles=400",
        )
        if cmd == "check":
            r.add_argument("--fix", action="store_true", help="print the fixes as a unified diff")
            r.add_argument("--apply", action="store_true", help="write the fixes into the file")
            r.add_argument("--json", help="write the findings (causes and consequences) here")
        # C++ kernel files (KERNEL.cpp): see ptosim/cxx/cli.py
        r.add_argument("--entry", help='C++: the kernel function (extern "C" or kern<T, N>)')
        r.add_argument(
            "--arg",
            action="append",
            metavar="NAME=VALUE",
            help="C++: a kernel argument: path.bin, path.npy, SHAPE:DTYPE or a number",
        )
        r.add_argument("--compiler", help="C++: zig, g++, clang++ or a path (env PTOSIM_CXX)")
        r.add_argument(
            "--cores",
            choices=("vec", "cube", "mix"),
            help="C++: the cores the kernel runs on (default: cube when it uses cube tiles); "
            "mix builds it twice, __DAV_CUBE__ for the cube core, __DAV_VEC__ for the vector cores",
        )
        if cmd == "run":
            r.add_argument("--trace", help="write the Chrome trace JSON here")
            r.add_argument("--csv", help="write the per-pipe summary CSV here")
            r.add_argument("--strict", action="store_true", help="exit 1 when there are findings")
            r.add_argument(
                "--per-instruction",
                action="store_true",
                help="add one summary line per executed instruction",
            )
            r.add_argument("--out", help="C++: directory for the zero buffers after the run")
        r.set_defaults(func=fn)
    t = sub.add_parser("test", help="run a C++ test folder (kernel.cpp, main.cpp, gen_data.py)")
    t.add_argument("dir", help="the test folder")
    t.add_argument("--device", default="all", help="a device, a comma list, or all (the folder's)")
    t.add_argument("--compiler", help="zig, g++, clang++ or a path (env PTOSIM_CXX)")
    t.add_argument("--filter", default="", help="only the cases whose Suite.name contains this")
    t.add_argument(
        "--work",
        help="work folder, kept after the run (gen_data.py's inputs and goldens, each case's "
        "outputs); default: a temporary folder, removed after the run",
    )
    t.add_argument(
        "--case-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="stop a case (and gen_data.py) after this long (default 300; 0: no limit)",
    )
    t.add_argument(
        "--jobs", type=_positive_int, default=None, help="cases run at once (default: CPU count)"
    )
    t.add_argument("-v", "--verbose", action="store_true", help="show what every case printed")
    t.set_defaults(func=_cmd_test)
    c = sub.add_parser("cache", help="the C++ build cache: show its size, or clear it")
    c.add_argument("action", nargs="?", choices=("show", "clear"), default="show")
    c.set_defaults(func=_cmd_cache)
    b = sub.add_parser("bench", help="bandwidth studies").add_subparsers(
        dest="study", required=True
    )
    rv = b.add_parser(
        "row-vs-elem",
        help="Row vs Elem bandwidth of MGATHER and MSCATTER across shapes and devices",
    )
    rv.add_argument("--device", default="all", help="a2, a3, 950pr, 950dt, a comma list or all")
    rv.add_argument("--dtype", default="float32", help="element type (default float32)")
    rv.add_argument(
        "--shapes",
        default=None,
        help="RxC[,RxC...] (default: 32 rows of 32 B to 1 KiB, e.g. 32x8,...,32x256 for float32)",
    )
    rv.add_argument("--plot", help="write the GB/s comparison chart (PNG) here; needs matplotlib")
    rv.add_argument("--json", help="write the rows (a JSON list of objects) here")
    rv.add_argument("--seed", type=int, default=0, help="seed of the random tables and indices")
    rv.add_argument(
        "--cases",
        default="Row,Elem-rows,Elem-half,Elem",
        help="Row (always run), Elem-rows (the same rows), Elem-half (half of each row), "
        "Elem (random flat indices); default all",
    )
    rv.add_argument(
        "--scheduler",
        default="inline",
        help="where the points run: inline (this process, the default), local (a Dask "
        "LocalCluster) or tcp://host:8786 (see ptosim sweep)",
    )
    rv.add_argument("--workers", type=_positive_int, default=None, help="LocalCluster processes")
    rv.add_argument(
        "--output", help="also keep the sweep table (.parquet or .csv) here; resumes from it"
    )
    rv.add_argument(
        "--conflict",
        default="default",
        choices=("default", "last"),
        help="ScatterConflict of the 950 MSCATTERs (default: default)",
    )
    rv.add_argument(
        "--table",
        help="ROWSxCOLS: instead of the shape study, a whole embedding lookup into this table "
        "(with --lookups, --cores): the verdict your multi-core kernel gets",
    )
    rv.add_argument("--lookups", type=_positive_int, help="with --table: token ids looked up")
    rv.add_argument(
        "--cores", type=_positive_int, default=1, help="with --table: blocks (block_dim)"
    )
    rv.add_argument(
        "--tile", type=_positive_int, help="with --table: rows per tile (default: up to 64)"
    )
    rv.set_defaults(func=_cmd_bench_row_vs_elem)
    sw = sub.add_parser(
        "sweep",
        help="run a grid of kernel x shape x dtype x device x overrides on Dask (a table out)",
    )
    sw.add_argument("spec", help="the sweep spec TOML (see ptosim/sweep.py)")
    sw.add_argument(
        "--output",
        "-o",
        help="the table: .parquet (needs pyarrow) or .csv; default NAME.parquet, or NAME.csv "
        "without pyarrow; points already in it are skipped",
    )
    sw.add_argument(
        "--scheduler",
        default=None,
        help="tcp://host:8786 (an existing Dask cluster), local (a new LocalCluster: the "
        "default) or inline (this process, no Dask)",
    )
    sw.add_argument("--workers", type=_positive_int, default=None, help="LocalCluster processes")
    sw.add_argument("--retry-failed", action="store_true", help="run failed points again")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar")
    sw.set_defaults(func=_cmd_sweep)
    return p


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (ptosim ... | head): not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 0
    except KeyboardInterrupt:
        print("ptosim: interrupted", file=sys.stderr)
        return 130
    except (Exception, SystemExit) as exc:  # never a raw traceback; SystemExit: the kernel file's
        return _report(exc, args.traceback)


if __name__ == "__main__":
    sys.exit(main())
