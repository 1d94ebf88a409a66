"""Planted synchronisation bugs: one-line mutants of correct kernel files, and the verdict on each.

A mutant changes one sync call of a correct kernel (Python or C++) the way a person gets it
wrong: a removed wait, a removed set, a wrong event id, a wrong pipe pair, a removed barrier, a
reused event (a set given the id of another set of its pair). Line numbers are kept (a removed
call becomes ``pass`` / ``;``), so "the planted line" is the same in the mutant and the original.

For each mutant and device, :func:`judge` runs the kernel and asks:

- does the first finding (the first cause) name the planted line or the next one (in its text,
  its instruction's source, or where its fix edits)?
- does the file patched with every cause's fix (``ptosim check --fix``) run clean and exact?

A mutant with no finding whose output is still exact is ``benign`` on that device (the call was
redundant there, e.g. a PIPE_V barrier on the 950, whose vector pipe waits for its own writes);
it counts for neither side of the hit rate.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import ptosim as pto
from ptosim.findings import flatten
from ptosim.sourcepatch import patch_text

KINDS = (
    "removed wait",
    "removed set",
    "wrong event id",
    "wrong pipe pair",
    "removed barrier",
    "reused event",
)
_CALL = re.compile(r"\b(set_flag|wait_flag|pipe_barrier)\s*\((.*)\)")
_PIPES = ("PIPE_MTE2", "PIPE_V", "PIPE_MTE3", "PIPE_S")
WRONG_ID = 6  # an id no example uses (ids 0..7 exist on every target)
# a mutant and its patched file are rewritten at one path within a second: never read a stale
# bytecode cache of the previous text
sys.dont_write_bytecode = True


@dataclass
class Mutant:
    kind: str
    line: int  # 1-based, the planted line
    text: str  # the whole mutated file


@dataclass
class Verdict:
    mutant: Mutant
    device: str
    outcome: str  # "hit", "miss", "benign", "silent-wrong"
    first: str  # the first finding (or error) as text
    fixed: bool | None  # the patched file is clean and exact (None: nothing to patch)


def _body_lines(text: str, kernel: str, cxx: bool) -> range:
    """The lines (1-based) of the kernel function's body."""
    lines = text.splitlines()
    if cxx:
        start = next(n for n, line in enumerate(lines) if re.search(rf"\bvoid {kernel}\s*\(", line))
        depth, opened = 0, False
        for n in range(start, len(lines)):
            depth += lines[n].count("{") - lines[n].count("}")
            opened |= "{" in lines[n]
            if opened and depth == 0:
                return range(start + 1, n + 2)
        return range(start + 1, len(lines) + 1)
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return range(node.body[0].lineno, node.end_lineno + 1)
    raise ValueError(f"no kernel {kernel}")


def _args(inner: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in inner:
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def _pipe(arg: str) -> str:
    name = arg.strip().rsplit(".", 1)[-1]
    return name if name.startswith("PIPE_") else f"PIPE_{name}"


def mutants(text: str, kernel: str, cxx: bool) -> list[Mutant]:
    """Every single-line mutant of the sync calls in ``kernel``'s body."""
    lines = text.splitlines(keepends=True)
    body = _body_lines(text, kernel, cxx)
    calls = []
    for n in body:
        line = lines[n - 1]
        code = line.split("//")[0] if cxx else line.split("#")[0]
        m = _CALL.search(code)
        if m is None or code.count(";") > 1 or (not cxx and ";" in code):
            continue
        calls.append((n, m.group(1), _args(m.group(2)), m))
    out: list[Mutant] = []
    empty = ";" if cxx else "pass"
    prefix = "" if cxx else "pto."

    def mutate(n: int, new_line: str) -> str:
        copy = list(lines)
        copy[n - 1] = new_line
        return "".join(copy)

    def replaced(n: int, m, op: str, args: list[str]) -> str:
        line = lines[n - 1]
        start = line.index(m.group(0))
        call = f"{prefix}{op}({', '.join(args)})"
        head = line[:start]
        if not cxx and head.rstrip().endswith("pto."):
            head = head.rstrip()[: -len("pto.")]
        return head + call + line[start + len(m.group(0)) :]

    for n, op, args, m in calls:
        indent = re.match(r"\s*", lines[n - 1]).group(0)
        if op == "pipe_barrier":
            out.append(Mutant("removed barrier", n, mutate(n, indent + empty + "\n")))
            continue
        if len(args) != 3:
            continue
        kind = "removed wait" if op == "wait_flag" else "removed set"
        out.append(Mutant(kind, n, mutate(n, indent + empty + "\n")))
        wrong = list(args)
        wrong[2] = str(WRONG_ID)
        out.append(Mutant("wrong event id", n, mutate(n, replaced(n, m, op, wrong))))
        src, dst = _pipe(args[0]), _pipe(args[1])
        other = next(p for p in _PIPES if p not in (src, dst))
        wrong = list(args)
        # a set posts to the wrong consumer; a wait waits for the wrong producer
        wrong[1 if op == "set_flag" else 0] = prefix + other
        out.append(Mutant("wrong pipe pair", n, mutate(n, replaced(n, m, op, wrong))))
    for n, op, args, m in calls:  # a set given the id of an earlier set of its pair
        if op != "set_flag" or len(args) != 3:
            continue
        for k, op2, args2, _ in calls:
            if k < n and op2 == "set_flag" and args2[:2] == args[:2] and args2[2] != args[2]:
                reused = args[:2] + [args2[2]]
                out.append(Mutant("reused event", n, mutate(n, replaced(n, m, op, reused))))
                break
    return out


def _load_py(path: Path, kernel: str):
    """The kernel-file spec of a mutated file (a fresh module each time)."""
    from ptosim.kernelfile import load

    return load(f"{path}:{kernel}")


def _findings_of(run_fn):
    """(first finding text, causes, exception or None) of a run."""
    try:
        run = run_fn()
    except pto.DeadlockError as exc:
        causes = list(exc.findings)
        return (str(causes[0]) if causes else str(exc)), causes, exc, None
    except pto.PtoSimError as exc:
        causes = list(getattr(exc, "findings", ()) or ())
        return (str(causes[0]) if causes else str(exc)), causes, exc, None
    causes = list(run.findings)
    return (str(causes[0]) if causes else ""), causes, None, run


def named_lines(first_text: str, causes, basename: str) -> set[int]:
    """The lines of ``basename`` the first finding names: in its text, its fix's lines (an
    insert after line k edits line k + 1 too)."""
    lines = {int(x) for x in re.findall(re.escape(basename) + r":(\d+)", first_text)}
    if causes:
        for e in causes[0].patch:
            file, _, num = e.line.rpartition(":")
            if file == basename and num.isdigit():
                lines.add(int(num))
                if e.where == "after":
                    lines.add(int(num) + 1)
    return lines


def judge(mutant: Mutant, path: Path, device: str, runner) -> Verdict:
    """Run ``mutant`` (written to ``path``) on ``device``; ``runner(path, device)`` returns
    (a zero-argument run function, a check function(run) -> bool)."""
    path.write_text(mutant.text)
    run_fn, check = runner(path, device)
    first, causes, exc, run = _findings_of(run_fn)
    if not causes and exc is None:
        if check(run):
            return Verdict(mutant, device, "benign", "", None)
        return Verdict(mutant, device, "silent-wrong", "", None)
    named = named_lines(first, causes, path.name)
    hit = mutant.line in named or mutant.line + 1 in named
    edits = [e for f in causes for e in f.patch]
    fixed = None
    if edits:
        new, skipped = patch_text(mutant.text, str(path), edits)
        path.write_text(new)
        run_fn, check = runner(path, device)
        _, again, exc2, run2 = _findings_of(run_fn)
        fixed = exc2 is None and not flatten(again) and bool(check(run2))
        path.write_text(mutant.text)
    return Verdict(mutant, device, "hit" if hit else "miss", first, fixed)


def python_runner(kernel: str):
    """A runner for a Python kernel file: its inputs, run options and check."""

    def runner(path: Path, device: str):
        spec = _load_py(path, kernel)
        dev = pto.Device(device)
        args, kwargs = spec.build_inputs(dev)

        def run_fn():
            return dev.run(spec.kernel, *args, **spec.run_options(), **kwargs)

        def check(run) -> bool:
            verdict = spec.check(dev, args, run)
            return True if verdict is None else bool(verdict)

        return run_fn, check

    return runner


def cxx_runner(entry: str, twin: str):
    """A runner for a C++ kernel file, with the inputs and check of its Python twin
    (``file.py:kernel``, the same kernel in Python, parameters named alike)."""
    from ptosim.kernelfile import load

    spec = load(twin)
    params = list(inspect.signature(spec.kernel.func).parameters)

    def runner(path: Path, device: str):
        program = pto.cxx.load(str(path), compiler="g++")
        kernel = program.entry(entry)
        dev = pto.Device(device)
        args, kwargs = spec.build_inputs(dev)
        bound = dict(zip(params, args), **kwargs)

        def run_fn():
            return dev.run(kernel, **spec.run_options(), **bound)

        def check(run) -> bool:
            verdict = spec.check(dev, args, run)
            return True if verdict is None else bool(verdict)

        return run_fn, check

    return runner


def summary(verdicts: list[Verdict]) -> dict[str, dict[str, int]]:
    """Per kind: counts of each outcome, and of fixes that ran clean and exact."""
    out: dict[str, dict[str, int]] = {}
    for v in verdicts:
        row = out.setdefault(v.mutant.kind, {})
        row[v.outcome] = row.get(v.outcome, 0) + 1
        if v.fixed is not None:
            key = "fixed" if v.fixed else "fix-failed"
            row[key] = row.get(key, 0) + 1
    return out
