"""The one registry of instructions: every list of instructions comes from here.

Each kernel-facing instruction function is declared once with ``@instruction(...)``: its ISA
name (the function name), its family and a one-line summary. What a target accepts (the element
types, or None where it does not define the instruction) and the per-target table notes are the
target's knowledge: they live in its behaviour spec (``ptosim.isa.spec.TargetSpec``, exported by
each target package), and the tables below take the specs as an argument. The README and docs
tables, the ``ptosim instructions`` listing, the public facade and the C++ front end's entry
points read this registry, so no second list of instructions can drift from it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..dtypes import ALL, LISTED
from .spec import TargetSpec

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
    "cube",
)


@dataclass(frozen=True)
class InstrSpec:
    """What the registry knows about one kernel-facing instruction.

    Attributes:
        name: the ISA spelling (also the Python function name).
        family: one of ``FAMILIES``.
        summary: one line: what the instruction computes.
        signature: the Python signature, destination first as in C++.
        function: the kernel-facing function.
    """

    name: str
    family: str
    summary: str
    signature: str
    function: Callable


_SPECS: dict[str, InstrSpec] = {}


def instruction(*, family: str, summary: str):
    """Register the decorated kernel-facing function as an instruction (returns it unchanged).

    Raises:
        ValueError: a duplicate name or an unknown family (a programming error).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown instruction family {family!r}")

    def register(fn: Callable) -> Callable:
        name = fn.__name__
        if name in _SPECS:
            raise ValueError(f"instruction {name} registered twice")
        sig = f"{name}({_parameters(fn)})"
        _SPECS[name] = InstrSpec(name, family, summary, sig, fn)
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
    "int4": "s4", "float4_e2m1": "e2m1", "float4_e1m2": "e1m2", "float8_e8m0": "e8m0",
}  # fmt: skip


def dtype_list(dts) -> str:
    """A short, canonical spelling of a dtype set for tables (``all`` for every dtype)."""
    have = set(dts)
    listed = [_SHORT[d.name] for d in LISTED if d in have]
    if set(ALL) <= have:
        return " ".join(["all", *listed])
    return " ".join([_SHORT[d.name] for d in ALL if d in have] + listed)


def dtype_cell(name: str, target: TargetSpec) -> str:
    """The table cell of instruction ``name`` on ``target``: its dtypes and note, ``-`` where
    the target does not define it."""
    dts = target.dtypes[name]
    if dts is None:
        return "-"
    names = dtype_list(dts) if dts else "(no data)"
    note = target.notes.get(name)
    return f"{names}; {note}" if note else names


def markdown_table(targets: Sequence[TargetSpec]) -> str:
    """The instruction x target table: the dtypes each target accepts (short names: i8 ... f32,
    e4m3/e5m2 = float8, hif8 = hifloat8, s4 = int4b_t; ``all`` = every whole-byte dtype; ``-`` =
    not defined there), one column per target spec (headed by its devices)."""
    heads = " | ".join(", ".join(t.devices) for t in targets)
    lines = [f"| instruction | family | {heads} |", "|---|---|" + "---|" * len(targets)]
    for s in specs():
        cells = " | ".join(dtype_cell(s.name, t) for t in targets)
        lines.append(f"| {s.name} | {s.family} | {cells} |")
    return "\n".join(lines) + "\n"
