"""Call sites: offsets inside a built C++ kernel library -> ``file:line`` via DWARF.

pyelftools (the ``cxx`` extra) reads the line tables in-process; without it, binutils'
``addr2line`` is used; without either, sites stay unknown (messages then name the instruction
only).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np


class SiteMap:
    """Resolve call-site offsets of one library (results cached)."""

    def __init__(self, library: Path):
        self.library = Path(library)
        self._rows: LineRows | None = None
        self._cache: dict[int, tuple[str, int] | None] = {}

    def lookup(self, pc: int) -> tuple[str, int] | None:
        """(absolute file path, line) of an offset, or None."""
        if pc is None or pc < 0:
            return None
        if pc not in self._cache:
            self._cache[pc] = self._resolve(pc)
        return self._cache[pc]

    def _resolve(self, pc: int) -> tuple[str, int] | None:
        if self._rows is None and _have_pyelftools():
            self._rows = _cached_line_rows(self.library)
        if self._rows is not None:
            return self._rows.at(pc)
        return _addr2line(self.library, pc)


class LineRows:
    """The rows of a library's DWARF line tables as arrays sorted by address: a lookup is one
    binary search (each test case runs in a fresh process and resolves a handful of sites, so
    building Python objects for every row, ~10^5 with libc++'s, would dominate a short case)."""

    def __init__(self, addrs: np.ndarray, files: np.ndarray, lines: np.ndarray, names: list[str]):
        self.addrs, self.files, self.lines, self.names = addrs, files, lines, names

    def at(self, pc: int) -> tuple[str, int] | None:
        i = int(np.searchsorted(self.addrs, np.uint64(pc), side="right")) - 1
        return (self.names[int(self.files[i])], int(self.lines[i])) if i >= 0 else None


def _have_pyelftools() -> bool:
    if os.environ.get("PTOSIM_CXX_NO_PYELFTOOLS"):
        return False
    try:
        # pyelftools is the optional extra "cxx": probed, never required
        import elftools  # noqa: F401
    except ImportError:
        return False
    return True


def _cached_line_rows(library: Path) -> LineRows:
    """``_line_rows``, decoded once per library and kept beside it (``<lib>.lines.npz``): a
    library's name carries the hash of its sources, so its line tables never change, and
    decoding them (libc++'s included) takes about a second."""
    cache = library.with_name(library.name + ".lines.npz")
    try:
        with np.load(cache) as z:
            names = json.loads(str(z["names"]))
            return LineRows(z["addrs"], z["files"], z["lines"], names)
    except (OSError, ValueError, KeyError):
        pass
    addrs, where = _line_rows(library)
    index: dict[str, int] = {}
    rows = LineRows(
        np.array(addrs, np.uint64),
        np.array([index.setdefault(f, len(index)) for f, _ in where], np.int32),
        np.array([n for _, n in where], np.int32),
        [],
    )
    rows.names = list(index)
    tmp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp.npz")
    try:
        np.savez(tmp, addrs=rows.addrs, files=rows.files, lines=rows.lines,
                 names=np.array(json.dumps(rows.names)))  # fmt: skip
        os.replace(tmp, cache)
    except OSError:  # a read-only cache folder: decode again next time
        pass
    return rows


def _line_rows(library: Path) -> tuple[list[int], list[tuple[str, int]]]:
    """Every row of the DWARF line tables, sorted by address."""
    from elftools.elf.elffile import ELFFile  # the optional extra "cxx" (see _have_pyelftools)

    rows: list[tuple[int, str, int]] = []
    with open(library, "rb") as fh:
        elf = ELFFile(fh)
        if not elf.has_dwarf_info():
            return [], []
        dwarf = elf.get_dwarf_info()
        for cu in dwarf.iter_CUs():
            lp = dwarf.line_program_for_CU(cu)
            if lp is None:
                continue
            v5 = lp.header.version >= 5
            files = lp["file_entry"]
            dirs = lp["include_directory"]
            names: dict[int, str] = {}
            for entry in lp.get_entries():
                st = entry.state
                if st is None or st.end_sequence:
                    continue
                if st.file not in names:
                    names[st.file] = _file_name(files, dirs, st.file, v5)
                rows.append((st.address, names[st.file], st.line))
    rows.sort()
    return [r[0] for r in rows], [(r[1], r[2]) for r in rows]


def _file_name(files, dirs, index: int, v5: bool) -> str:
    fe = files[index if v5 else index - 1]
    name = fe.name.decode() if isinstance(fe.name, bytes) else fe.name
    if not name.startswith("/"):
        di = fe.dir_index if v5 else fe.dir_index - 1
        if 0 <= di < len(dirs):
            d = dirs[di]
            d = d.decode() if isinstance(d, bytes) else d
            name = f"{d}/{name}"
    return os.path.normpath(name)


def _addr2line(library: Path, pc: int) -> tuple[str, int] | None:
    exe = shutil.which("addr2line")
    if exe is None:
        return None
    out = subprocess.run([exe, "-e", str(library), hex(pc)], capture_output=True, text=True).stdout
    line = out.strip().splitlines()[0] if out.strip() else ""
    if not line or line.startswith("??"):
        return None
    path, _, lineno = line.rpartition(":")
    lineno = lineno.split(" ")[0]
    return (path, int(lineno)) if lineno.isdigit() and int(lineno) > 0 else None
