"""A kernel file patched with the repairs of its causes (``ptosim check FILE --fix``).

The repairs are ``LineEdit``s (ptosim/checks/lineedits.py) on ``file:line`` anchors: insert a
sync call before or after the statement at a line, delete the sync call at a line, or change
its pipes or event id. This module writes them into the text of a Python or C++ kernel file:

- an inserted call gets the indentation of its anchor statement; "after" goes after the
  statement's last line (Python: its ``ast`` end line; C++: the line with its ``;``);
- a deleted call is cut from its line (the line goes when nothing else is on it; a Python block
  left empty gets ``pass``);
- a changed call keeps the arguments it does not change, as written;
- an event copied from another sync call (``LineEdit.event_like``: a loop's ``ev``, a helper's
  ``events[b]``) is written as that call has it.

Python calls are spelled with the file's own ``import ptosim as NAME`` alias (``pto.set_flag(
pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)``); C++ calls with the bare names of the API.
"""

from __future__ import annotations

import ast
import difflib
import os
import re

CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp")


def _alias(text: str) -> str:
    m = re.search(r"^\s*import\s+ptosim\s+as\s+(\w+)", text, re.M)
    if m:
        return m.group(1) + "."
    if re.search(r"^\s*import\s+ptosim\s*$", text, re.M):
        return "ptosim."
    return "pto."


def _call(edit, cxx: bool, alias: str, event: str | None) -> str:
    """The text of the call ``edit`` inserts; ``event``: its event argument as written at the
    line it copies (None: the constant ``EVENT_IDn``)."""
    if cxx:
        if edit.op == "pipe_barrier":
            return f"pipe_barrier({edit.pipe});"
        event = event or f"EVENT_ID{edit.event_id}"
        return f"{edit.op}({edit.src}, {edit.dst}, {event});"
    a = alias
    if edit.op == "pipe_barrier":
        return f"{a}pipe_barrier({a}{edit.pipe})"
    event = event or f"{a}EVENT_ID{edit.event_id}"
    return f"{a}{edit.op}({a}{edit.src}, {a}{edit.dst}, {event})"


def _event_arg(lines: list[str], line: str, base: str) -> str | None:
    """The event argument (the third) of the set_flag/wait_flag call at ``line`` (``file:n``)
    of this file, as written; None when the line is elsewhere or holds no such call."""
    file, _, num = line.rpartition(":")
    if file != base or not num.isdigit() or not 1 <= int(num) <= len(lines):
        return None
    text = lines[int(num) - 1]
    for op in ("set_flag", "wait_flag"):
        span = _find_call(text, op)
        if span is None:
            continue
        call = text[span[0] : span[1]]
        args = _split_args(call[call.index("(") + 1 : call.rindex(")")])
        if len(args) == 3:
            return args[2].strip()
    return None


def _py_statements(text: str) -> dict[int, tuple[int, int, int]]:
    """Line -> (first line, last line, size of the enclosing block) of the simple statement
    that starts there (1-based lines)."""
    out: dict[int, tuple[int, int, int]] = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for stmt in block:
                if isinstance(stmt, ast.stmt) and not hasattr(stmt, "body"):
                    for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                        out.setdefault(line, (stmt.lineno, stmt.end_lineno or stmt.lineno,
                                              len(block)))  # fmt: skip
    return out


def _cxx_end(lines: list[str], n: int) -> int:
    """0-based index of the line that ends the statement starting on line ``n``."""
    for k in range(n, min(n + 20, len(lines))):
        if ";" in lines[k].split("//", 1)[0]:
            return k
    return n


def _find_call(line: str, op: str) -> tuple[int, int] | None:
    """[start, end) of the call ``op(...)`` (with an ``alias.`` prefix and a trailing ``;``)."""
    m = re.search(r"(?:\b\w+\.)?\b" + op + r"\s*\(", line)
    if not m:
        return None
    depth, k = 0, m.end() - 1
    while k < len(line):
        if line[k] == "(":
            depth += 1
        elif line[k] == ")":
            depth -= 1
            if depth == 0:
                break
        k += 1
    end = k + 1
    rest = line[end:]
    if rest.lstrip().startswith(";"):
        end += len(rest) - len(rest.lstrip()) + 1
    return m.start(), end


def _split_args(inner: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def _retarget(line: str, edit, cxx: bool, alias: str, event: str | None) -> str:
    span = _find_call(line, edit.op)
    if span is None:
        return line
    start, end = span
    call = line[start:end]
    open_at = call.index("(")
    close_at = call.rindex(")")
    args = _split_args(call[open_at + 1 : close_at])
    if len(args) != 3:
        return line
    a = "" if cxx else alias
    # an event copied from another call is written as that call has it (no alias added)
    eid = event if event is not None else f"{a}EVENT_ID{edit.event_id}"
    # None: the argument stays as the user wrote it
    new = [(a + v) if name in edit.changes else None
           for name, v in (("src", edit.src), ("dst", edit.dst))]  # fmt: skip
    new.append(eid if "event_id" in edit.changes else None)
    args = [o if n is None else (" " if k else "") + n for k, (o, n) in enumerate(zip(args, new))]
    return line[:start] + call[: open_at + 1] + ",".join(args) + call[close_at:] + line[end:]


def patch_text(text: str, filename: str, edits) -> tuple[str, list]:
    """``text`` of the kernel file ``filename`` with ``edits`` applied, and the edits whose
    line is not in this file (not applied)."""
    cxx = filename.lower().endswith(CXX_SUFFIXES)
    alias = _alias(text)
    base = os.path.basename(filename)
    lines = text.splitlines(keepends=True)
    stmts = {} if cxx else _py_statements(text)
    before: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    replace: dict[int, str] = {}
    skipped = []
    for e in edits:
        file, _, num = e.line.rpartition(":")
        if file != base or not num.isdigit() or not 1 <= int(num) <= len(lines):
            skipped.append(e)
            continue
        n = int(num) - 1
        event = None
        if getattr(e, "event_like", None) is not None:
            event = _event_arg(lines, e.event_like, base)
            if event is None:  # the event it copies is written in another file
                skipped.append(e)
                continue
        if cxx:
            first, last, block = n, _cxx_end(lines, n), 2
        else:
            s0, s1, block = stmts.get(n + 1, (n + 1, n + 1, 2))
            first, last = s0 - 1, s1 - 1
        indent = re.match(r"\s*", lines[first]).group(0).replace("\n", "")
        if e.action == "insert":
            new = indent + _call(e, cxx, alias, event) + "\n"
            (before.setdefault(first, []) if e.where == "before" else after.setdefault(last, [])
             ).append(new)  # fmt: skip
            continue
        current = replace.get(n, lines[n])
        if e.action == "retarget":
            replace[n] = _retarget(current, e, cxx, alias, event)
            continue
        span = _find_call(current, e.op)
        if span is None:
            skipped.append(e)
            continue
        rest = current[: span[0]] + current[span[1] :]
        code = rest.split("#", 1)[0] if not cxx else rest.split("//", 1)[0]
        if code.strip(" \t;\n") == "":
            replace[n] = indent + "pass\n" if (not cxx and block == 1) else ""
        else:
            replace[n] = rest
    out: list[str] = []
    for n, line in enumerate(lines):
        out += before.get(n, [])
        out.append(replace.get(n, line))
        out += after.get(n, [])
    return "".join(out), skipped


def unified_diff(old: str, new: str, path: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )
