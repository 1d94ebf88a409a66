"""The ``ptosim`` command line.

Exit codes: 0 success; 1 the command's verdict is negative (``check`` found a finding, a kernel
file's ``check`` failed, ``run --strict`` had findings, the demo mismatched); 2 the kernel or
the input is wrong (any PtoSimError: constraint, deadlock, bad device ...; also usage errors);
3 internal error (a bug in ptosim: please report it).
"""

from __future__ import annotations

import argparse
import os
import sys

from . import DeadlockError, KernelError, PtoSimError, available_devices, load_config


def _cmd_devices(args) -> int:
    for name in available_devices():
        cfg = load_config(name)
        print(
            f"{name:<6} target {cfg.target:<5} UB {cfg.memory.ub_size_bytes // 1024} KiB  "
            f"{cfg.description}"
        )
    return 0


def _cmd_config(args) -> int:
    import json

    cfg = load_config(args.device)
    print(json.dumps(cfg.model_dump(mode="json"), indent=2))
    return 0


def _cmd_demo(args) -> int:
    from .demo import run_demo

    return 0 if run_demo() else 1


def _progress_printer():
    """A callback printing simulation progress on stderr when it is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        print(
            f"\rptosim: simulating... {done}/{total} instructions",
            end="",
            file=sys.stderr,
            flush=True,
        )

    return show


def _overrides(pairs) -> dict:
    """``KEY=VALUE`` strings -> a dict; VALUE parsed as a TOML value (number, string, bool)."""
    import tomllib

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


def _execute(args):
    import time

    from . import Device
    from .kernelfile import load

    spec = load(args.file)
    dev = Device(args.device, overrides=_overrides(args.set))
    kargs, kwargs = spec.build_inputs(dev)
    options = spec.run_options()
    if getattr(args, "block_dim", None):
        options["block_dim"] = args.block_dim
    t0 = time.perf_counter()
    run = dev.run(spec.kernel, *kargs, progress=_progress_printer(), **options, **kwargs)
    wall = time.perf_counter() - t0
    if sys.stderr.isatty():
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    return spec, dev, kargs, run, wall


def _cmd_run(args) -> int:
    try:
        spec, dev, kargs, run, wall = _execute(args)
    except DeadlockError as exc:  # the trace up to the stuck state shows where it hangs
        if args.trace and exc.partial_run is not None:
            exc.partial_run.write_trace(args.trace)
            print(f"trace up to the deadlock written to {args.trace}", file=sys.stderr)
        raise
    print(run.summary())
    print(f"(simulated in {wall:.3f} s wall time)")
    if args.trace:
        run.write_trace(args.trace)
        print(f"trace written to {args.trace} (open it in https://ui.perfetto.dev)")
    if args.csv:
        run.write_csv(args.csv)
        print(f"pipe summary written to {args.csv}")
    verdict = spec.check(dev, kargs, run)
    if verdict is not None:
        print(f"check: {'passed' if verdict else 'FAILED'}")
        if not verdict:
            return 1
    return 1 if (args.strict and run.findings) else 0


def _cmd_check(args) -> int:
    spec, dev, kargs, run, wall = _execute(args)
    name = f"{spec.kernel.name} on {dev.name}"
    if not run.findings:
        print(f"{name}: no findings")
        return 0
    print(f"{name}: {len(run.findings)} finding(s)")
    for f in run.findings:
        print(f"  - {f}")
    return 1


def _cmd_bench_row_vs_elem(args) -> int:
    import json

    from .bench import format_table, plot, row_vs_elem

    if args.plot:  # fail before the sweep, not after it
        try:
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
        seed=args.seed,
        conflict=args.conflict,
        progress=progress,
    )
    print(f"Row vs Elem bandwidth, {rows[0]['dtype']}, payload R*C*sizeof(T) per instruction")
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
        print(f"rows written to {args.json}")
    if args.plot:
        plot(rows, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _user_frame(exc: BaseException) -> str | None:
    """``file:line`` of the innermost traceback frame outside ptosim, if the error rose there."""
    import traceback

    pkg = os.path.dirname(os.path.abspath(__file__))
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or os.path.abspath(frames[-1].filename).startswith(pkg + os.sep):
        return None
    last = frames[-1]
    return f"{os.path.basename(last.filename)}:{last.lineno}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptosim", description="Ascend PTO tile instruction simulator")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("devices", help="list the devices").set_defaults(func=_cmd_devices)
    c = sub.add_parser("config", help="print a device's resolved config as JSON")
    c.add_argument("device")
    c.set_defaults(func=_cmd_config)
    sub.add_parser("demo", help="run the demo kernel on every device").set_defaults(func=_cmd_demo)
    for cmd, helptext, fn in (
        ("run", "run a kernel file: summary, findings, trace", _cmd_run),
        ("check", "run a kernel file's hazard analysis; exit 1 on any finding", _cmd_check),
    ):
        r = sub.add_parser(cmd, help=helptext)
        r.add_argument("file", help="FILE.py or FILE.py:kernel (see ptosim/kernelfile.py)")
        r.add_argument("--device", default="a2", help="cpu, a2, a3, 950pr, 950dt or a .toml")
        r.add_argument("--block-dim", type=int, default=None, help="number of blocks (cores)")
        r.add_argument(
            "--set",
            action="append",
            metavar="KEY=VALUE",
            help="override a config value, e.g. timing.simt.gm_latency_cycles=400",
        )
        if cmd == "run":
            r.add_argument("--trace", help="write the Chrome trace JSON here")
            r.add_argument("--csv", help="write the per-pipe summary CSV here")
            r.add_argument("--strict", action="store_true", help="exit 1 when there are findings")
        r.set_defaults(func=fn)
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
        help="RxC[,RxC...] (default 8x64,16x64,32x64,32x128,64x128,64x256)",
    )
    rv.add_argument("--plot", help="write the GB/s comparison chart (PNG) here; needs matplotlib")
    rv.add_argument("--json", help="write the rows (a JSON list of objects) here")
    rv.add_argument("--seed", type=int, default=0, help="seed of the random tables and indices")
    rv.add_argument(
        "--conflict",
        default="default",
        choices=("default", "last"),
        help="ScatterConflict of the 950 MSCATTERs (default: default)",
    )
    rv.set_defaults(func=_cmd_bench_row_vs_elem)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except PtoSimError as exc:
        print(f"ptosim: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (ptosim ... | head): not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 0
    except Exception as exc:  # never show a raw traceback to a user
        where = _user_frame(exc)
        if where is not None:  # the kernel file itself raised: a user error, not ours
            print(f"ptosim: error in {where}: {exc!r}", file=sys.stderr)
            return 2
        print(f"ptosim: internal error: {exc!r} (please report it)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
