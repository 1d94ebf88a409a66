"""Device config files: finding them, following ``extends``, and where each value came from.

A config file may start with ``extends = "<base>"`` and then state only what differs from its
base: the base's tables are merged key by key (deeply: a table merges into the base's table,
any other value replaces the base's), and the base may itself extend another file. ``<base>``
is a path relative to the extending file's folder, or a shipped device by name (``"a2"``) or
file name (``"a2.toml"``). Every value a file states keeps the ``# source:`` comment written
above it; a value a file inherits keeps its base's comment and gains the comment above the
``extends`` line of each file that inherited it (why the base's value holds there too).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError

EXTENDS = "extends"


def _config_dir() -> Path:
    """``configs/`` of the source tree (editable installs), else the installed data files."""
    here = Path(__file__).resolve().parent.parent / "configs"
    if here.is_dir():
        return here
    return Path(sys.prefix) / "share" / "ptosim" / "configs"


CONFIG_DIR = _config_dir()


def available_devices() -> list[str]:
    """Names of the device configs shipped in ``configs/``."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.toml"))


def _available() -> str:
    return ", ".join(available_devices())


def config_path(name_or_path: str | Path) -> Path:
    """The file of a device name (``"a2"``) or of a path to a TOML file.

    Raises:
        ConfigError: neither a shipped device nor an existing path.
    """
    if not isinstance(name_or_path, (str, Path)):
        raise ConfigError(
            f"device must be a name or a path to a .toml config, got {name_or_path!r} "
            f"({type(name_or_path).__name__}); available: {_available()}"
        )
    text = str(name_or_path)
    if not text.strip():
        raise ConfigError(f"empty device name; available: {_available()}")
    path = Path(text)
    if not (text.endswith(".toml") or path.exists()):
        path = CONFIG_DIR / f"{text.lower()}.toml"
        if not path.exists():
            raise ConfigError(
                f"unknown device {text!r}; available: {_available()} "
                f"(or give a path to a .toml config)"
            )
    return path


@dataclass(frozen=True)
class Origin:
    """Where a value came from: the file that states it, its ``# source:`` comment (``""``
    when it has none), and, for an inherited value, the files that inherited it with the
    comment above their ``extends`` line (nearest base first)."""

    file: Path
    source: str
    inherited: tuple[tuple[Path, str], ...] = ()

    def describe(self) -> str:
        """``file: source``; an inherited value says so (``sourced_lines`` prints why the
        extending files inherit it)."""
        via = f" (via {', '.join(f.name for f, _ in self.inherited)})" if self.inherited else ""
        return f"{self.file.name}{via}: {self.source or '(no source comment)'}"


@dataclass(frozen=True)
class Resolved:
    """A config file with its bases merged: the raw values, the origin of every key that a
    file states (dotted), the chain of files (the file first, then its bases) and, per file
    that extends another, the source comment above its ``extends`` line."""

    raw: dict
    origins: dict[str, Origin]
    chain: tuple[Path, ...]
    extends_sources: tuple[tuple[Path, str], ...] = ()

    def origin(self, dotted: str) -> Origin | None:
        """The origin of a value, or of the nearest table or inline table holding it."""
        key = dotted
        while key:
            if key in self.origins:
                return self.origins[key]
            key = key.rpartition(".")[0]
        return None


_TABLE = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")
_SOURCE = "# source:"


def source_comments(text: str) -> dict[str, str]:
    """Dotted key -> the ``# source:`` comment lines right above its ``key = value`` line,
    joined (a file's keys without such a comment are absent)."""
    out: dict[str, str] = {}
    table: list[str] = []
    pending: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(_SOURCE):
            pending.append(stripped[len(_SOURCE) :].strip())
            continue
        header = _TABLE.match(line)
        key = _KEY.match(line)
        if header:
            table = [part.strip().strip('"') for part in header.group(1).split(".")]
        elif key and pending:
            out[".".join([*table, key.group(1)])] = " ".join(pending)
        if stripped and not stripped.startswith("#"):
            pending = []
    return out


def _leaf_keys(raw: dict, prefix: str = "") -> list[str]:
    """Dotted keys of every key of ``raw``, tables included (inline tables too)."""
    out = []
    for key, value in raw.items():
        dotted = f"{prefix}{key}"
        out.append(dotted)
        if isinstance(value, dict):
            out += _leaf_keys(value, dotted + ".")
    return out


def _nearest(sources: dict[str, str], dotted: str) -> str:
    """The source comment of a key, or of the nearest key holding it (an inline table's
    values share the comment above the table's line)."""
    key = dotted
    while key:
        if key in sources:
            return sources[key]
        key = key.rpartition(".")[0]
    return ""


def _merge(base: dict, child: dict) -> dict:
    """``child`` over ``base``, table by table (new dicts; the inputs are not changed)."""
    out = dict(base)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _base_path(value, child: Path) -> Path:
    """The file ``extends = value`` in ``child`` names.

    Raises:
        ConfigError: not a string, or no such file or shipped device.
    """
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f"invalid device config {child}: extends must name a config file or a device, "
            f"got {value!r}"
        )
    local = child.parent / value
    if local.is_file():
        return local
    shipped = CONFIG_DIR / f"{value.removesuffix('.toml').lower()}.toml"
    if Path(value).name == value and shipped.is_file():
        return shipped
    raise ConfigError(
        f"invalid device config {child}: extends {value!r} names no file (relative to "
        f"{child.parent}) and no shipped device ({_available()})"
    )


def resolve(path: Path) -> Resolved:
    """Read ``path`` and, through ``extends``, its bases; merge them.

    Raises:
        ConfigError: an unreadable file, a bad or missing base, or an ``extends`` cycle.
    """
    return _resolve(Path(path), ())


def _resolve(path: Path, seen: tuple[Path, ...]) -> Resolved:
    key = path.resolve()
    if key in seen:
        cycle = " -> ".join(p.name for p in (*seen, key))
        raise ConfigError(f"invalid device config {seen[0]}: extends cycle {cycle}")
    try:
        text = path.read_text()
        raw = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read device config {path}: {exc}") from None
    sources = source_comments(text)
    own = {k: Origin(path, _nearest(sources, k)) for k in _leaf_keys(raw) if k != EXTENDS}
    if EXTENDS not in raw:
        return Resolved(raw, own, (path,))
    base = _resolve(_base_path(raw.pop(EXTENDS), path), (*seen, key))
    why = (path, sources.get(EXTENDS, ""))
    origins = {k: Origin(o.file, o.source, (*o.inherited, why)) for k, o in base.origins.items()}
    origins.update(own)
    return Resolved(
        _merge(base.raw, raw), origins, (path, *base.chain), (why, *base.extends_sources)
    )


def sourced_lines(values: dict, resolved: Resolved) -> list[str]:
    """``key = value  # where it came from`` for every value of a loaded config (``values``:
    its ``model_dump``, defaults included: a value no file states says so), after one line
    per ``extends`` saying why the base's values hold."""
    out = [
        f"# {file.name} extends {base.name}: {why or '(no source comment)'}"
        for (file, why), base in zip(resolved.extends_sources, resolved.chain[1:])
    ]
    for key, value in _flat(values):
        origin = resolved.origin(key)
        where = origin.describe() if origin is not None else "(no file states it: the default)"
        out.append(f"{key} = {json.dumps(value)}  # {where}")
    return out


def _flat(values: dict, prefix: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for key, value in values.items():
        if isinstance(value, dict) and value:
            out += _flat(value, f"{prefix}{key}.")
        else:
            out.append((f"{prefix}{key}", value))
    return out
