"""The C++ build cache: where built objects and libraries live, its size cap, ``ptosim cache``.

Layout under ``$PTOSIM_CACHE_DIR/cxx`` (default ``~/.cache/ptosim/cxx``): ``obj/<key>.o`` one
object per preprocessed unit (keyed by its text, compiler and flags, so a unit whose text does
not depend on the target is compiled once for every device), ``<name>-<key>.so`` one library per
set of objects, ``<name>-<key>.json`` the manifests that let an unchanged build skip the
preprocessor, ``include-<digest>/`` the generated headers (headers.py).

Every use of an entry touches its modification time; after each build the least recently used
entries are removed until the cache holds at most ``PTOSIM_CACHE_MAX_MB`` megabytes (default
1024). Entries used in the last minute are kept even above the cap: another process may be
linking or loading them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

DEFAULT_MAX_MB = 1024
KEEP_RECENT_SECONDS = 60.0


def cache_dir() -> Path:
    root = os.environ.get("PTOSIM_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "ptosim"
    return base / "cxx"


def max_bytes() -> int:
    """The cap from ``PTOSIM_CACHE_MAX_MB`` (megabytes; default 1024)."""
    text = os.environ.get("PTOSIM_CACHE_MAX_MB", "").strip()
    try:
        mb = float(text) if text else DEFAULT_MAX_MB
    except ValueError:
        raise ConfigError(
            f"PTOSIM_CACHE_MAX_MB={text!r}: expected a number of megabytes (e.g. 512)"
        ) from None
    return int(max(mb, 0) * 1024 * 1024)


def touch(*paths: Path) -> None:
    """Mark entries as used now (the LRU order)."""
    now = time.time()
    for p in paths:
        with contextlib.suppress(OSError):
            os.utime(p, (now, now))


@dataclass(frozen=True)
class Usage:
    folder: Path
    size_bytes: int
    libraries: int
    objects: int
    cap_bytes: int


def _entries(folder: Path) -> list[tuple[float, int, Path]]:
    """(last use, size in bytes, path) of each evictable file."""
    out = []
    for sub in (folder, folder / "obj"):
        if not sub.is_dir():
            continue
        for p in sub.iterdir():
            if p.is_file() and p.suffix in (".so", ".o", ".json", ".npz"):
                try:
                    st = p.stat()
                except OSError:
                    continue
                out.append((st.st_mtime, st.st_size, p))
    return out


def usage(folder: Path | None = None) -> Usage:
    folder = folder or cache_dir()
    size = 0
    if folder.is_dir():
        for p in folder.rglob("*"):
            with contextlib.suppress(OSError):
                size += p.stat().st_size if p.is_file() else 0
    entries = _entries(folder)
    return Usage(
        folder,
        size,
        sum(p.suffix == ".so" for _, _, p in entries),
        sum(p.suffix == ".o" for _, _, p in entries),
        max_bytes(),
    )


def trim(folder: Path | None = None, cap_bytes: int | None = None) -> int:
    """Remove least recently used entries until the cache is within the cap; bytes removed."""
    folder = folder or cache_dir()
    cap = max_bytes() if cap_bytes is None else cap_bytes
    entries = sorted(_entries(folder))
    total = sum(size for _, size, _ in entries)
    removed, now = 0, time.time()
    for used, size, path in entries:
        if total <= cap:
            break
        if now - used < KEEP_RECENT_SECONDS:
            continue
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        removed += size
    return removed


def clear(folder: Path | None = None) -> int:
    """Remove the whole cache; bytes removed."""
    folder = folder or cache_dir()
    size = usage(folder).size_bytes
    shutil.rmtree(folder, ignore_errors=True)
    return size
