"""Planted synchronisation bugs: one-line mutants of correct kernel files, and the verdict on each.

A mutant changes one sync call of a correct kernel (Python or C++) the way a person gets it
wrong: a removed wait, a removed set, a wrong event id, a wrong pipe pair, a removed barrier, a
reused event (a set given the id of another set of its pair). Line numbers are kept (a removed
call becomes ``pass`` / ``;``), so "the planted line" is the same in the mutant and the original.

For each mutant and device, :func:`judge` runs the kernel and asks:

- does the first finding (the first cause) name the planted line or the next one (in its text,
  its instruction's source, or where its fix edits)?
- does the file patched with every cause's fix (``ptosim check --fix``) run clean and exact?

The mutated lines are the sync calls the correct kernel records in its file (found by running
it once on cpu), so calls in helper functions are planted too. In a loop whose event ids vary
(``ev = EVENTS[t % 2]``) a "reused event" is the set given the constant id of another set of
its pair (as a kernel that drops the double-buffer ids does).

A mutant with no finding is judged by a stated rule, never by its output alone:

- ``equivalent``: it records the very same program as the correct kernel (same instructions,
  same pipes and event ids; :func:`signature`), so it is not a bug (e.g. ``EVENTS[b]`` for
  ``ev`` where ``ev = EVENTS[b]``);
- ``no-rule``: a removed ``pipe_barrier(PIPE_V)`` on an a5 device (950pr/950dt), where ptosim
  has no vector-barrier rule (docs/reference.md, F207: the reference says nothing about one
  vector function's stores reaching the next one's loads);
- ``lowered``: a removed ``pipe_barrier(PIPE_V)`` after an instruction whose lowering on that
  device already ends with one (:func:`settled_barriers`: the A2/A3 row reductions), so the
  device runs the same ordered steps without it;
- anything else is ``silent`` (exact output) or ``silent-wrong``: a miss.

Only ``equivalent``, ``no-rule`` and ``lowered`` leave the denominator of the hit rate.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import ptosim as pto
from ptosim.findings import flatten
from ptosim.sourcepatch import patch_text
from ptosim.targets import v_settled

KINDS = (
    "removed wait",
    "removed set",
    "wrong event id",
    "wrong pipe pair",
    "removed barrier",
    "reused event",
)
_CALL = re.compile(r"\b(set_flag|wait_flag|pipe_barrier)\s*\((.*)\)")
EXCLUDED = (
    "equivalent",
    "no-rule",
    "lowered",
)  # not bugs: out of the denominator (see the module doc)
MISSES = ("miss", "silent", "silent-wrong")
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
    pipe: str = ""  # a removed barrier: its pipe (as recorded)


@dataclass
class Verdict:
    mutant: Mutant
    device: str
    outcome: str  # "hit", "miss", "silent", "silent-wrong", "equivalent", "no-rule", "lowered"
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


def sync_lines(programs, basename: str) -> dict[int, list]:
    """Line -> the event ids recorded from it (a barrier: its pipe names), for the sync calls
    the ``programs`` (a run's blocks) record in the file ``basename``."""
    out: dict[int, list] = {}
    for program in programs:
        for i in program:
            if i.opcode not in ("SET_FLAG", "WAIT_FLAG", "PIPE_BARRIER") or not i.source:
                continue
            file, _, num = i.source.rpartition(":")
            if file == basename and num.isdigit():
                ids = out.setdefault(int(num), [])
                ids.append(i.pipe.name if i.opcode == "PIPE_BARRIER" else i.event_id)
    return out


def signature(programs) -> list[tuple]:
    """What a run's blocks do, for telling an equivalent mutant: each instruction's opcode and,
    for a sync call, its pipes and event id."""
    out = []
    for program in programs:
        for i in program:
            if i.opcode in ("SET_FLAG", "WAIT_FLAG"):
                out.append((i.opcode, i.src, i.dst, i.event_id))
            elif i.opcode == "PIPE_BARRIER":
                out.append((i.opcode, i.pipe))
            else:  # a mutant changes sync calls only (tile operands differ run to run)
                out.append((i.opcode,))
        out.append(("block end",))
    return out


def mutants(text: str, kernel: str, cxx: bool, lines: dict[int, list] | None = None):
    """Every single-line mutant of the sync calls of ``kernel``: the lines of ``lines``
    (:func:`sync_lines`, helpers included), else the lines of its body."""
    src_lines = text.splitlines(keepends=True)
    where = sorted(lines) if lines is not None else _body_lines(text, kernel, cxx)
    ids = lines or {}
    calls = []
    for n in where:
        line = src_lines[n - 1]
        code = line.split("//")[0] if cxx else line.split("#")[0]
        m = _CALL.search(code)
        if m is None or code.count(";") > 1 or (not cxx and ";" in code):
            continue
        calls.append((n, m.group(1), _args(m.group(2)), m))
    out: list[Mutant] = []
    empty = ";" if cxx else "pass"
    prefix = "" if cxx else "pto."

    def mutate(n: int, new_line: str) -> str:
        copy = list(src_lines)
        copy[n - 1] = new_line
        return "".join(copy)

    def replaced(n: int, m, op: str, args: list[str]) -> str:
        line = src_lines[n - 1]
        start = line.index(m.group(0))
        call = f"{prefix}{op}({', '.join(args)})"
        head = line[:start]
        if not cxx and head.rstrip().endswith("pto."):
            head = head.rstrip()[: -len("pto.")]
        return head + call + line[start + len(m.group(0)) :]

    for n, op, args, m in calls:
        indent = re.match(r"\s*", src_lines[n - 1]).group(0)
        if op == "pipe_barrier":
            pipe = (ids.get(n) or [""])[0]
            out.append(Mutant("removed barrier", n, mutate(n, indent + empty + "\n"), pipe))
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
            if not (k < n and op2 == "set_flag" and args2[:2] == args[:2]):
                continue
            if len(set(ids.get(n, []))) > 1:
                # a loop's alternating id: the other set's first id, as a constant (both
                # buffers on one event)
                other_id = (ids.get(k) or [None])[0]
                if other_id is None or other_id not in ids[n]:
                    continue
                reused = args[:2] + [f"{prefix}EVENT_ID{other_id}"]
            elif args2[2] != args[2]:
                reused = args[:2] + [args2[2]]
            else:
                continue
            out.append(Mutant("reused event", n, mutate(n, replaced(n, m, op, reused))))
            break
    return out


def _load_py(path: Path, kernel: str):
    """The kernel-file spec of a mutated file (a fresh module each time)."""
    from ptosim.kernelfile import load

    return load(f"{path}:{kernel}")


def _programs(run) -> list:
    return [b.program for b in run.blocks] if run is not None else []


def _findings_of(run_fn):
    """(first finding text, causes, exception or None, run or None, the blocks' programs)."""
    try:
        run = run_fn()
    except pto.PtoSimError as exc:
        causes = list(getattr(exc, "findings", ()) or ())
        partial = getattr(exc, "partial_run", None)
        first = str(causes[0]) if causes else str(exc)
        return first, causes, exc, None, _programs(partial)
    causes = list(run.findings)
    return (str(causes[0]) if causes else ""), causes, None, run, _programs(run)


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


def original(path: Path, runner) -> tuple[dict[int, list], list[tuple]]:
    """The sync lines (:func:`sync_lines`) and the :func:`signature` of the correct kernel at
    ``path``, run on cpu; it must run clean and exact."""
    run_fn, check = runner(path, "cpu")
    run = run_fn()
    assert not run.findings and check(run), f"{path} is not a correct kernel"
    programs = _programs(run)
    return sync_lines(programs, path.name), signature(programs)


def settled_barriers(path: Path, runner, device: str) -> set[int]:
    """The lines of ``pipe_barrier(PIPE_V)`` calls of the correct kernel at ``path`` that
    ``device`` does not need: every call follows an instruction whose lowering there already
    orders its results for the next vector instruction: its last PIPE_V step in the run's trace
    is a barrier (as the A2/A3 row reductions end), or it has no vector step (its writes are
    done on other pipes) and ends with PIPE_V waiting for them (the A2/A3 MGATHER). On an
    untimed device (cpu, no trace) the structural view's own fact decides (targets.v_settled:
    the A2/A3 lowerings that end with the barrier)."""
    run_fn, _ = runner(path, device)
    run = run_fn()
    events = getattr(run.trace, "events", None) or []
    kinds: dict[tuple[int, int], list[str]] = {}  # (core, position) -> its PIPE_V step kinds
    for e in events:
        if e.pipe == "PIPE_V" and e.instr >= 0:
            kinds.setdefault((e.core, e.instr), []).append(e.kind)
    last = {
        at: "barrier" if ks[-1] == "barrier" or ("vector" not in ks and ks[-1] == "wait_flag")
        else ks[-1]
        for at, ks in kinds.items()
    }  # fmt: skip
    verdict: dict[int, bool] = {}
    for core, program in enumerate(_programs(run)):
        for i in program:
            file, _, num = (i.source or "").rpartition(":")
            if i.opcode != "PIPE_BARRIER" or i.pipe.name != "PIPE_V" or file != path.name:
                continue
            if events:
                ok = last.get((core, i.position - 1)) == "barrier"
            else:
                before = [p for p in program if p.position == i.position - 1]
                ok = bool(before) and v_settled(device)(before[0])
            verdict[int(num)] = verdict.get(int(num), True) and ok
    return {line for line, ok in verdict.items() if ok}


A5_DEVICES = ("950pr", "950dt")


def no_rule(mutant: Mutant, device: str) -> bool:
    """A removed pipe_barrier(PIPE_V) on an a5 device: no vector-barrier rule there."""
    return mutant.kind == "removed barrier" and mutant.pipe == "PIPE_V" and device in A5_DEVICES


def placed(root: Path, name: str, text: str) -> Path:
    """``text`` as the file ``root/<hash of text>/name``, written once. The C++ build cache is
    keyed by the preprocessed text, which names the file's path: one path per content lets a
    patched mutant that equals the correct kernel (most fixes restore the planted line) reuse
    the correct kernel's build, across tests, xdist workers and runs."""
    path = root / hashlib.sha256(text.encode()).hexdigest()[:16] / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{name}.{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, path)  # atomic: a worker writing the same content at once is harmless
    return path


def judge(
    mutant: Mutant,
    path: Path,
    device: str,
    runner,
    correct: list | None = None,
    settled=(),
    place=None,
) -> Verdict:
    """Run ``mutant`` (written to ``path``) on ``device``; ``runner(path, device)`` returns
    (a zero-argument run function, a check function(run) -> bool). ``correct``: the
    :func:`signature` of the correct kernel (for telling an equivalent mutant); ``settled``:
    :func:`settled_barriers` of the correct kernel on ``device``. ``place(text) -> Path``, if
    given, chooses the file for the mutant and for its patched text instead (:func:`placed`)."""
    if place is not None:
        path = place(mutant.text)
    else:
        path.write_text(mutant.text)
    run_fn, check = runner(path, device)
    first, causes, exc, run, programs = _findings_of(run_fn)
    if not causes and exc is None:
        if correct is not None and signature(programs) == correct:
            return Verdict(mutant, device, "equivalent", "", None)
        if no_rule(mutant, device):
            return Verdict(mutant, device, "no-rule", "", None)
        if mutant.kind == "removed barrier" and mutant.line in settled:
            return Verdict(mutant, device, "lowered", "", None)
        outcome = "silent" if check(run) else "silent-wrong"
        return Verdict(mutant, device, outcome, "", None)
    named = named_lines(first, causes, path.name)
    hit = mutant.line in named or mutant.line + 1 in named
    edits = [e for f in causes for e in f.patch]
    fixed = None
    if edits:
        new, skipped = patch_text(mutant.text, str(path), edits)
        if place is not None:
            fixed_path = place(new)
        else:
            fixed_path = path
            path.write_text(new)
        run_fn, check = runner(fixed_path, device)
        _, again, exc2, run2, _ = _findings_of(run_fn)
        fixed = exc2 is None and not flatten(again) and bool(check(run2))
        if place is None:
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
