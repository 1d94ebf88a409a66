"""The one registry of instructions: every list of instructions comes from here.

Each kernel-facing instruction function is declared once with ``@instruction(...)``: its ISA
name (the function name), its family, a one-line summary and, per target family, the element
types it accepts (or None where the target does not define it). The README and docs tables, the
``ptosim instructions`` listing, the public facade and the C++ front end's entry points read this
registry, so no second list can drift from it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

from ..dtypes import ALL, DType

TARGETS = ("cpu", "a2a3", "a5")

# Families in the order tables list them.
FAMILIES = (
    "data movement",
    "synchronisation",
    "gather / scatter",
    "row broadcast",
    "column broadcast",
    "elementwise tile-tile",
    "elementwise tile-scalar",
    "elementwise unary",
    "reduction",
    "conversion",
    "compare / select",
    "layout / fill",
    "sort / other",
)


@dataclass(frozen=True)
class InstrSpec:
    """What the registry knows about one kernel-facing instruction.

    Attributes:
        name: the ISA spelling (also the Python function name).
        family: one of ``FAMILIES``.
        summary: one line: what the instruction computes.
        signature: the Python signature, destination first as in C++.
        dtypes: per target family, the element types accepted, or None if the target does not
            define the instruction (a kernel using it there gets UnsupportedError).
        notes: per target family, a short note for the tables (lowering, modes).
        function: the kernel-facing function.
    """

    name: str
    family: str
    summary: str
    signature: str
    dtypes: dict[str, tuple[DType, ...] | None]
    notes: dict[str, str]
    function: Callable

    def supported(self, target: str) -> bool:
        return self.dtypes.get(target) is not None


_SPECS: dict[str, InstrSpec] = {}


def instruction(
    *,
    family: str,
    summary: str,
    dtypes: dict[str, tuple[DType, ...] | None],
    notes: dict[str, str] | None = None,
):
    """Register the decorated kernel-facing function as an instruction (returns it unchanged).

    Raises:
        ValueError: a duplicate name, an unknown family or target (a programming error).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown instruction family {family!r}")
    unknown = set(dtypes) - set(TARGETS)
    if unknown:
        raise ValueError(f"unknown target families {sorted(unknown)}")

    def register(fn: Callable) -> Callable:
        name = fn.__name__
        if name in _SPECS:
            raise ValueError(f"instruction {name} registered twice")
        sig = f"{name}({_parameters(fn)})"
        _SPECS[name] = InstrSpec(
            name,
            family,
            summary,
            sig,
            {t: dtypes.get(t) for t in TARGETS},
            dict(notes or {}),
            fn,
        )
        return fn

    return register


def _parameters(fn: Callable) -> str:
    """The parameter list as the kernel writes it: names and defaults, no annotations."""
    parts, star = [], False
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            star = True
            continue
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return ", ".join(parts)


def specs() -> list[InstrSpec]:
    """Every registered instruction, by family then name (the facade imports
    ``ptosim.isa.families`` first, so all registrations have run)."""
    return sorted(_SPECS.values(), key=lambda s: (FAMILIES.index(s.family), s.name))


def spec(name: str) -> InstrSpec:
    """The spec of one instruction by its ISA name (KeyError if unknown)."""
    return _SPECS[name]


def kernel_functions() -> dict[str, Callable]:
    """ISA name -> kernel-facing function, for the public facade."""
    return {s.name: s.function for s in specs()}


_SHORT = {
    "int8": "i8", "uint8": "u8", "int16": "i16", "uint16": "u16", "int32": "i32",
    "uint32": "u32", "int64": "i64", "uint64": "u64", "half": "f16", "bfloat16": "bf16",
    "float32": "f32", "float8_e4m3": "e4m3", "float8_e5m2": "e5m2", "hifloat8": "hif8",
}  # fmt: skip


def dtype_list(dts) -> str:
    """A short, canonical spelling of a dtype set for tables (``all`` for every dtype)."""
    if set(dts) == set(ALL):
        return "all"
    return " ".join(_SHORT[d.name] for d in ALL if d in set(dts))


def _dtype_cell(spec_: InstrSpec, target: str) -> str:
    dts = spec_.dtypes[target]
    if dts is None:
        return "-"
    names = dtype_list(dts) if dts else "(no data)"
    note = spec_.notes.get(target)
    return f"{names}; {note}" if note else names


def markdown_table() -> str:
    """The instruction x target table: the dtypes each target accepts (short names: i8 ... f32,
    e4m3/e5m2 = float8, hif8 = hifloat8; ``all`` = every dtype; ``-`` = not defined there)."""
    lines = [
        "| instruction | family | cpu | a2, a3 | 950pr, 950dt |",
        "|---|---|---|---|---|",
    ]
    for s in specs():
        cells = " | ".join(_dtype_cell(s, t) for t in TARGETS)
        lines.append(f"| {s.name} | {s.family} | {cells} |")
    return "\n".join(lines) + "\n"
