"""The ptosim error tree: every error raised on purpose derives from PtoSimError.

The classes are the one registry of error codes: each carries a stable ``code`` (so that tools
and tests can match errors without parsing messages), a one-line ``meaning`` and, where there
is a usual remedy, a ``fix``. ``error_codes()`` lists them; the docs tables are generated from
it.
"""

from __future__ import annotations

from typing import Any, ClassVar


class PtoSimError(Exception):
    """Base of every error ptosim raises on purpose."""

    code: ClassVar[str] = "PTO000"
    meaning: ClassVar[str] = "base class of every error below"
    fix: ClassVar[str] = ""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


class KernelError(PtoSimError):
    """The kernel used the Python API wrongly (bad argument, unknown enum name, ...)."""

    code = "PTO100"
    meaning = (
        "misuse of the Python API: an unknown enum or dtype name, a wrong operand kind, an "
        "instruction called outside `Device.run`"
    )


class ConstraintError(PtoSimError):
    """An instruction violates a constraint of its specification on the selected target.

    Attributes:
        instruction: ISA name, e.g. ``MGATHER``.
        position: index of the instruction in the kernel (``#n``), or None.
        source: ``file:line`` of the call in the kernel, or None.
        operand: the operand the rule is about (``dst``, ``idx``, ``table``, ...).
        rule: a short stable identifier of the rule (``dtype``, ``index-shape``, ...).
        expected, given: what the rule wants and what the kernel gave.
    """

    code = "PTO101"
    meaning = (
        "a constraint of the instruction's specification is violated (`.instruction`, "
        "`.position`, `.source`, `.operand`, `.rule`, `.expected`, `.given`)"
    )
    fix = "change the operand the message names so that it satisfies the rule"

    def __init__(
        self,
        instruction: str,
        operand: str,
        rule: str,
        expected: Any,
        given: Any,
        *,
        target: str | None = None,
        position: int | None = None,
        source: str | None = None,
        detail: str = "",
    ):
        self.instruction = instruction
        self.operand = operand
        self.rule = rule
        self.expected = expected
        self.given = given
        self.target = target
        self.position = position
        self.source = source
        self.detail = detail
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = self.instruction
        if self.position is not None:
            where += f" #{self.position}"
        if self.source:
            where += f" ({self.source})"
        on = f" on target {self.target}" if self.target else ""
        text = (
            f"{where}{on}: operand '{self.operand}' violates rule '{self.rule}': "
            f"expected {self.expected}, given {self.given}"
        )
        if self.detail:
            text += f" ({self.detail})"
        return text

    def locate(self, position: int | None, source: str | None) -> ConstraintError:
        """Attach the kernel position and source line (done by the recorder)."""
        if self.position is None:
            self.position = position
        if self.source is None:
            self.source = source
        self.message = self._compose()
        self.args = (self.message,)
        return self


class UnsupportedError(ConstraintError):
    """The instruction, mode or policy does not exist on the selected target."""

    code = "PTO102"
    meaning = "the instruction, mode or policy does not exist on the target"
    fix = "use a form the target has (`ptosim instructions --device D -v` lists them)"


class CxxError(KernelError):
    """A C++ kernel (ptosim.cxx) did something the front end cannot run: an instruction ptosim
    does not implement, a raw access to tile storage or GM, a pointer outside the kernel's
    buffers. The message starts with the kernel's ``file:line``."""

    code = "PTO103"
    meaning = (
        "a C++ kernel: an instruction ptosim does not implement, a raw access to tile storage or "
        "GM, a pointer outside the kernel's buffers (message starts with the C++ `file:line`)"
    )


class CxxBuildError(CxxError):
    """A C++ kernel file could not be built: no compiler, or a compilation error (shown at the
    user's file:line; an error inside ptosim's headers is reported as a ptosim bug)."""

    code = "PTO104"
    meaning = (
        "a C++ kernel file cannot be built: no compiler, or a compile error (at the user's line; "
        "inside ptosim's headers: a ptosim bug)"
    )
    fix = "install g++ (or clang++), or the `cxx` extra for zig's clang"


class MemoryLayoutError(ConstraintError):
    """A tile placement is invalid: misaligned, overflowing the memory or the UB budget."""

    code = "PTO200"
    meaning = "TASSIGN is misaligned or the tile overflows the memory"
    fix = "a TASSIGN address aligned to the memory's alignment, with the tile inside it"


class UbBudgetError(MemoryLayoutError):
    """The kernel's tiles do not fit in the UB budget (e.g. the 950 SIMT budget)."""

    code = "PTO201"
    meaning = (
        "the tiles exceed the UB (or L1), or the 950 SIMT budget (128 KiB default, 216 KiB max "
        "via `dyn_ubuf_size`)"
    )
    fix = "smaller tiles, or a larger `dyn_ubuf_size` for a 950 SIMT kernel"


class OutOfBoundsError(PtoSimError):
    """An access would leave the memory or tensor it targets (GM tensor, UB end)."""

    code = "PTO202"
    meaning = (
        "a GM access outside the buffers the host allocated, an Undefined OOB index, or a UB "
        "access past the end of UB"
    )


class ConfigError(PtoSimError):
    """A device configuration is missing, malformed or inconsistent."""

    code = "PTO300"
    meaning = "an unknown device, or an invalid config (unknown keys are rejected)"
    fix = "`ptosim devices` lists the devices; `ptosim config D` shows a resolved config"


class DeadlockError(PtoSimError):
    """Pipes wait on flags that can never be posted.

    Attributes (set by a timed run): findings: the run's other findings up to the deadlock;
    partial_run: the RunResult up to the stuck state (``partial_run.write_trace(path)``).
    """

    code = "PTO400"
    meaning = (
        "a timed run has pipes that wait on flags nobody can post; the error lists each stuck "
        "pipe, its instruction and the flag it waits for"
    )
    fix = "add the missing `set_flag` (or remove the wait); `.partial_run` keeps the trace"
    findings: tuple = ()
    partial_run = None


class ExecutionError(PtoSimError):
    """An instruction failed while executing (e.g. integer division by zero)."""

    code = "PTO401"
    meaning = (
        "a failure while executing, such as integer division by zero; an internal error names the "
        "instruction"
    )


class RaceFailureError(ExecutionError):
    """A timed run failed (out of bounds, ...) in an instruction that read data a race may have
    left stale: the message leads with the race, the kernel's real defect.

    Attributes:
        original: the error the instruction raised (also ``__cause__``); original_code: its code.
        findings: every finding of the steps issued up to the failure (the races first).
    """

    code = "PTO402"
    meaning = (
        "a timed run failed (e.g. out of bounds) in an instruction that read data a race left "
        "stale; the message leads with the race, `.original` keeps the error it replaced, "
        "`.findings` lists the races first"
    )
    fix = "the race's fix (its finding's `fix`)"

    def __init__(self, message: str, original: PtoSimError, findings: list):
        super().__init__(message)
        self.original = original
        self.original_code = original.code
        self.findings = list(findings)


class FindingsError(PtoSimError):
    """Raised by ``run(strict=True)``: carries every finding of the run."""

    code = "PTO500"
    meaning = "`run(strict=True)` ended with findings; it carries all of them"

    def __init__(self, findings: list):
        self.findings = list(findings)
        lines = [f"{len(self.findings)} finding(s):"] + [f"  - {f}" for f in self.findings]
        super().__init__("\n".join(lines))


def error_codes() -> list[type[PtoSimError]]:
    """Every error class of ptosim, in code order (the registry the docs tables come from).

    Raises:
        ValueError: two classes share a code (a registry must not).
    """
    found: list[type[PtoSimError]] = []
    todo = [PtoSimError]
    while todo:
        cls = todo.pop()
        if cls.__module__ == __name__:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    codes = [c.code for c in found]
    if len(set(codes)) != len(codes):
        raise ValueError(f"error codes defined twice: {sorted(codes)}")
    return sorted(found, key=lambda c: c.code)


def markdown_table() -> str:
    """The docs table of the error codes (generated into docs/reference/codes.md)."""
    lines = ["| code | class | raised when | fix |", "|---|---|---|---|"]
    for cls in error_codes():
        lines.append(f"| {cls.code} | `{cls.__name__}` | {cls.meaning} | {cls.fix or '-'} |")
    return "\n".join(lines) + "\n"
