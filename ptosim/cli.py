"""The ``ptosim`` command line. Exit codes: 0 success, 1 failure of the command's check,
2 usage or input error (a PtoSimError), 3 internal error."""

from __future__ import annotations

import argparse
import sys

from . import PtoSimError, available_devices, load_config


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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptosim", description="Ascend PTO tile instruction simulator")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("devices", help="list the devices").set_defaults(func=_cmd_devices)
    c = sub.add_parser("config", help="print a device's resolved config as JSON")
    c.add_argument("device")
    c.set_defaults(func=_cmd_config)
    sub.add_parser("demo", help="run the demo kernel on every device").set_defaults(func=_cmd_demo)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except PtoSimError as exc:
        print(f"ptosim: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # never show a raw traceback to a user
        print(f"ptosim: internal error: {exc!r} (please report it)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
